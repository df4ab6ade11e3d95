"""The SpotTune paper's numbers (reference only) and the paper-vs-workbook rows of notebooks 12-15.

The paper's numbers are typed from its text (§IV); the workbook's come from the analysis modules
(:mod:`tt_workbook.studies.spottune.grids`, :mod:`tt_workbook.studies.spottune.intervals`, :mod:`tt_workbook.studies.spottune.sensitivity`, ...).
Every simulated number is computed on substituted workloads (TrimTuner curves, scikit-learn models) and,
unless the user supplied the 2017 trace, on synthetic prices: those rows are ``not comparable`` and say
so. Table III's rows are *input checks* (the paper's inputs beside an independent 2017 source) and
§IV-F's checkpoint rows *consistency checks* (the paper's own arithmetic): neither is a reproduction. Claims of direction and ordering (who is cheaper, faster, ...) are compared as booleans and agree
or differ; a difference names the evidence. Every row's note also names the reconstructed pieces it
rests on (:data:`RESTS_ON`: Eqs. 1-2, Eq. 3 with Alg. 2, Eqs. 4-7, and the simulator's reading of JCT).
"""

from __future__ import annotations

from tt_workbook.report.summary import comparison, fewest_runs
from tt_spotsim.catalogue import EC2INSTANCES_INFO_2017, EC2INSTANCES_INFO_SOURCE, TABLE_III

SOURCE = "SpotTune"

#: The paper's numbers (§IV-B1, §IV-C, §IV-F, abstract), as fractions or ratios.
PAPER = {
    "saving_st1_vs_cheapest": (0.415, "§IV-B1: SpotTune (θ=1.0) saves 41.5% vs Single-Spot (cheapest)"),
    "saving_st1_vs_fastest": (0.8604, "§IV-B1: SpotTune (θ=1.0) saves 86.04% vs Single-Spot (fastest)"),
    "saving_st07_vs_st1": (0.5716, "§IV-B1: SpotTune (θ=0.7) saves 57.16% vs SpotTune (θ=1.0)"),
    "saving_st07_vs_cheapest_max": (0.7564, "§IV-B1: SpotTune (θ=0.7) saves up to 75.64% vs Single-Spot (cheapest)"),
    "saving_st07_vs_fastest_max": (0.9418, "§IV-B1: SpotTune (θ=0.7) saves up to 94.18% vs Single-Spot (fastest)"),
    "jct_fastest_over_st07": (0.6459, "§IV-B1: SpotTune (θ=0.7) achieves 64.59% of the fastest's performance "
                                      "(JCT fastest / JCT SpotTune)"),
    "jct_cheapest_over_st07": (2.14, "§IV-B1: SpotTune (θ=0.7) is 2.14x faster than the cheapest (JCT ratio)"),
    "pcr_st1_over_cheapest": (2.65, "§IV-B1: PCR SpotTune (θ=1.0) / Single-Spot (cheapest)"),
    "pcr_st1_over_fastest": (3.36, "§IV-B1: PCR SpotTune (θ=1.0) / Single-Spot (fastest)"),
    "pcr_st07_over_cheapest": (13.11, "§IV-B1: PCR SpotTune (θ=0.7) / Single-Spot (cheapest)"),
    "pcr_st07_over_fastest": (16.61, "§IV-B1: PCR SpotTune (θ=0.7) / Single-Spot (fastest)"),
    "free_step_share_st07": (0.775, "§IV-C, Fig. 9: share of steps run on refunded instances"),
}
#: Direction/ordering claims: key -> (paper's value, statement).
CLAIMS = {
    "st07_cheapest": (True, "§IV-B1: SpotTune (θ=0.7) has the lowest cost on every workload (ordering)"),
    "st1_cheaper_than_cheapest": (True, "§IV-B1/IV-C: SpotTune (θ=1.0) is cheaper than Single-Spot (cheapest) "
                                        "on average (direction)"),
    "jct_between_baselines": (True, "§IV-B1: SpotTune's JCT lies between the fastest and the cheapest baseline "
                                    "on average (ordering)"),
    "pcr_st07_highest": (True, "Fig. 7(c): SpotTune (θ=0.7) has the highest PCR on average (ordering)"),
    "top3_at_07": (True, "§IV-A4/IV-B2: top-3 accuracy reaches 100% at θ >= 0.7 (on every workload)"),
    "earlycurve_better": (True, "§IV-E, Fig. 11(b): EarlyCurve's prediction error is lower than the single-stage "
                                "fit's (mean over settings)"),
    "pcr_st1_above_singles": (True, "§IV-B1: SpotTune (θ=1.0) has a higher PCR than both Single-Spot baselines "
                                    "(2.65x and 3.36x, mean ratio over workloads; direction)"),
    "fig8_cost_rises": (True, "§IV-B2, Fig. 8(a): the cost is generally proportional to θ (mean over workloads; "
                              "read as: correlation of cost with θ >= 0.9)"),
    "fig8_jct_linear": (True, "§IV-B2, Fig. 8(b): the JCT varies near-linearly with θ (mean over workloads; "
                              "read as: R² of a straight line >= 0.9)"),
    "fig8_higher_theta_cheaper": (True, "§IV-B2, Fig. 8(a): sometimes a higher θ yields a lower cost (on some workload "
                                        "the cost falls from one θ to the next)"),
    "fig12_overhead_below_10": (True, "§IV-F, Fig. 12: checkpoint-restore takes less than 10% of the training time "
                                      "on average (at the workbook's assumed model size)"),
}

#: The reconstructed pieces a simulated number can rest on (the paper's Eqs. 1-7 and Alg. 1-2 were lost in
#: its text extraction; the reconstructions are written in the docstrings of spot.provisioner, spot.revocation,
#: spot.earlycurve and spot.simulator).
RECONSTRUCTED = {
    "eqs12": "Eqs. 1-2 provisioner",
    "eq3": "Eq. 3 revocation probability (+ Alg. 2 bid)",
    "eqs47": "Eqs. 4-7 EarlyCurve",
    "jct": "JCT = submission to top-k selection (simulator's reading)",
    "jct_completion": "JCT = submission to top-k trained (completion_s, the other reading)",
    "ckpt": "checkpoint speed interpolated between the paper's two measured types",
}
_SPOT1 = ("eqs12", "eq3")                 # SpotTune at θ = 1: no early stop, JCT = completion
_SPOT07 = ("eqs12", "eq3", "eqs47")       # SpotTune at θ = 0.7: selection by EarlyCurve
#: What each paper-vs-workbook row rests on (keys of PAPER and CLAIMS and the extra rows' keys).
RESTS_ON = {
    "saving_st1_vs_cheapest": _SPOT1, "saving_st1_vs_fastest": _SPOT1, "pcr_st1_over_cheapest": _SPOT1,
    "pcr_st1_over_fastest": _SPOT1, "st1_cheaper_than_cheapest": _SPOT1, "pcr_st1_above_singles": _SPOT1,
    "saving_st07_vs_st1": _SPOT07, "saving_st07_vs_cheapest_max": _SPOT07, "saving_st07_vs_fastest_max": _SPOT07,
    "free_step_share_st07": _SPOT07, "st07_cheapest": _SPOT07,
    "jct_fastest_over_st07": _SPOT07 + ("jct",), "jct_cheapest_over_st07": _SPOT07 + ("jct",),
    "pcr_st07_over_cheapest": _SPOT07 + ("jct",), "pcr_st07_over_fastest": _SPOT07 + ("jct",),
    "jct_between_baselines": _SPOT07 + ("jct",), "pcr_st07_highest": _SPOT07 + ("jct",),
    "top3_at_07": ("eqs47",), "earlycurve_better": ("eqs47",), "fig11_errors": ("eqs47",),
    "jct_fastest_over_st07_completion": _SPOT07 + ("jct_completion",),
    "jct_cheapest_over_st07_completion": _SPOT07 + ("jct_completion",),
    "fig8_cost_rises": _SPOT07, "fig8_jct_linear": _SPOT07 + ("jct",),
    "fig8_higher_theta_cheaper": _SPOT07, "fig12_overhead_below_10": _SPOT07 + ("ckpt",),
    "table3": (), "checkpoint": (),
}


_CH, _FA, _S1, _S07 = "single-cheapest", "single-fastest", "spottune-1", "spottune-0.7"
#: The approaches (arms) each simulated number or claim of the Fig. 7 grid compares: a row's ``runs_per_arm`` is the
#: fewest seeds of these (:func:`runs_per_arm`). Keys that are not here (the θ sweep's, Fig. 12's) compare every
#: approach of their own table.
ARMS = {
    "saving_st1_vs_cheapest": (_S1, _CH), "saving_st1_vs_fastest": (_S1, _FA), "saving_st07_vs_st1": (_S07, _S1),
    "saving_st07_vs_cheapest_max": (_S07, _CH), "saving_st07_vs_fastest_max": (_S07, _FA),
    "jct_fastest_over_st07": (_FA, _S07), "jct_cheapest_over_st07": (_CH, _S07),
    "pcr_st1_over_cheapest": (_S1, _CH), "pcr_st1_over_fastest": (_S1, _FA),
    "pcr_st07_over_cheapest": (_S07, _CH), "pcr_st07_over_fastest": (_S07, _FA), "free_step_share_st07": (_S07,),
    "st07_cheapest": (_CH, _FA, _S1, _S07), "st1_cheaper_than_cheapest": (_S1, _CH),
    "jct_between_baselines": (_FA, _S07, _CH), "pcr_st07_highest": (_CH, _FA, _S1, _S07),
    "pcr_st1_above_singles": (_S1, _CH, _FA),
}


def seeds_by_approach(grid) -> dict:
    """``approach -> seeds``: the fewest seeds (simulated markets and submission times) of an approach over the job
    sets of ``grid`` (one row per simulation: ``job_set``, ``approach``, ``seed``), counted from the simulations."""
    if grid is None or len(grid) == 0:
        return {}
    per = grid.groupby(["approach", "job_set"], sort=False)["seed"].nunique()
    return {a: int(v) for a, v in per.groupby(level=0, sort=False).min().items()}


def runs_per_arm(seeds: dict, keys) -> dict:
    """``key -> runs per arm`` of rows ``keys``: the fewest seeds (:func:`seeds_by_approach`) of the approaches the
    key compares (:data:`ARMS`; a key without an entry: every approach in ``seeds``)."""
    return {k: fewest_runs(seeds, ARMS.get(k, tuple(seeds))) for k in keys}


def _runs(runs: dict | int | None, key: str) -> dict:
    """The ``runs_per_arm`` entry of row ``key`` (none when not known)."""
    if runs is None:
        return {}
    n = runs if isinstance(runs, int) else runs.get(key)
    return {} if n is None else {"runs_per_arm": int(n)}


def rests_on(key: str) -> str:
    """The note naming the reconstructed pieces row ``key`` rests on (or that it rests on none); a key
    without an entry in :data:`RESTS_ON` is an error (a new row must say what it rests on)."""
    parts = RESTS_ON[key]
    if not parts:
        return "rests on no reconstructed equation"
    return "reconstructed: " + "; ".join(RECONSTRUCTED[p] for p in parts)


#: §IV-D, Fig. 10: RevPred against the authors' re-implementation of Tributary's predictor.
FIG10 = {
    "accuracy_gain": (0.2032, "§IV-D, Fig. 10(a): RevPred's accuracy gain over Tributary predict"),
    "f1_gain": (0.3403, "§IV-D, Fig. 10(b): RevPred's F1 gain over Tributary predict"),
    "cost_saving": (0.25, "§IV-D, Fig. 10(c): SpotTune's cost saving with RevPred instead of Tributary predict"),
    "pcr_gain": (0.24, "§IV-D, Fig. 10(c): SpotTune's PCR gain with RevPred instead of Tributary predict"),
}
#: §IV-F: checkpoint speeds (MB/s) and the largest models (GB) that fit in the 120 s notice.
CHECKPOINT = {16: (134.22, 15.73), 1: (62.83, 7.36)}


def substitution(synthetic_prices: bool) -> str:
    prices = "a seeded synthetic 2017-style market" if synthetic_prices else "the user's 2017 trace"
    return (f"computed on substituted workloads (TrimTuner learning curves and scikit-learn models trained here, with "
            f"step times from a speed model) and {prices}; the paper simulated its own benchmarks on the 2017 trace")


def table3_rows() -> list[dict]:
    """Table III cell by cell: *input checks*, the paper's printed inputs beside an independent record of
    the same quantities (:data:`tt_spotsim.catalogue.EC2INSTANCES_INFO_2017`). The simulator uses the
    paper's printed values; a row whose values differ says which. Memory: the paper's GB against the
    source's GiB (the paper's unit is not stated), matched to 0.01."""
    rows = []
    src = "independent source: " + EC2INSTANCES_INFO_SOURCE
    for name, cpus, mem, price in TABLE_III:
        r_cpus, r_mem, r_price, _ = EC2INSTANCES_INFO_2017[name]
        for what, paper, ref, tol in (("CPUs (count)", cpus, r_cpus, 0.0), ("memory (GB)", mem, r_mem, 0.005),
                                      ("on-demand price (USD/h)", price, r_price, 0.0005)):
            same = abs(float(paper) - float(ref)) <= tol + 1e-12
            rows.append({"source": f"{SOURCE} Table III", "item": f"{name}: {what}", "paper": paper, "workbook": ref,
                         "abs_tol": tol, "check": "input",
                         "cause": "" if same else f"the paper prints {paper:g}, the 2017 source {ref:g}; the simulator "
                                                  "uses the paper's value",
                         "note": f"{src}; {rests_on('table3')}"})
    return rows


def checkpoint_rows(max_model_gb) -> list[dict]:
    """§IV-F: the largest checkpointable model = speed x 120 s: a *consistency check* (the paper's own
    arithmetic on its own measured speeds, recomputed), not a reproduction."""
    return [{"source": f"{SOURCE} §IV-F", "item": f"largest model checkpointed in the notice, {n} vCPU (GB)",
             "paper": gb, "workbook": round(max_model_gb(n), 2), "abs_tol": 0.005, "check": "consistency",
             "note": f"{speed} MB/s x 120 s / 1024; {rests_on('checkpoint')} (the paper's measured speed)"}
            for n, (speed, gb) in CHECKPOINT.items()]


def interval_text(intervals, key: str) -> str:
    """``"seed interval [lo, hi] (method)"`` of ``key`` in a :func:`tt_workbook.studies.spottune.intervals.statement_intervals`
    table, or "" when there is none."""
    if intervals is None or key not in set(intervals["key"]):
        return ""
    r = intervals.set_index("key").loc[key]
    return f"seed interval [{r['lo']:.4g}, {r['hi']:.4g}] ({r['method']}; mean over {int(r['workloads'])} workloads)"


def fig7_rows(statements: dict, synthetic_prices: bool, intervals=None, reading: str = "",
              runs: dict | int | None = None) -> list[dict]:
    """The §IV-B1 / IV-C numbers: not comparable (substituted workloads and prices); each row's note names
    the reconstructions it rests on (:func:`rests_on`) and, given ``intervals``
    (:func:`tt_workbook.studies.spottune.intervals.statement_intervals`), the number's seed interval. ``reading``: appended
    to each item (e.g. ", RevPred in the loop, random maximum prices") when the rows are another reading.
    ``runs``: key -> runs per arm (:func:`runs_per_arm`), or one number for every row; below
    :data:`tt_workbook.report.summary.MIN_RUNS_PER_ARM` a row is *too few runs*."""
    why = substitution(synthetic_prices)
    return [{"source": f"{SOURCE} Fig. 7/9", "item": text + reading, "paper": value,
             "workbook": round(statements[key], 4),
             "not_comparable": why,
             "note": "; ".join(x for x in (interval_text(intervals, key), rests_on(key)) if x), **_runs(runs, key)}
            for key, (value, text) in PAPER.items() if key in statements]


def jct_reading_rows(readings, synthetic_prices: bool, runs: dict | int | None = None) -> list[dict]:
    """The two JCT statements of §IV-B1 under the other reading of JCT (ending when the top-k have finished
    training, ``completion_s``), from :func:`tt_workbook.studies.spottune.grids.jct_readings`: not comparable, and
    measuring what the reconstructed JCT definition does to the comparison (``runs``: as :func:`fig7_rows`)."""
    r = readings.set_index("jct_ends")
    why = substitution(synthetic_prices)
    return [{"source": f"{SOURCE} Fig. 7", "item": PAPER[key][1] + ", JCT read as submission -> top-k trained",
             "paper": PAPER[key][0], "workbook": round(float(r.loc["top-k trained", key]), 4), "not_comparable": why,
             "note": f"{rests_on(key + '_completion')}; the selection reading gives "
                     f"{float(r.loc['selection', key]):.4f}", **_runs(runs, key)}
            for key in ("jct_fastest_over_st07", "jct_cheapest_over_st07")]


def refund_cause(per, approach: str = "spottune-1", baseline: str = "single-cheapest",
                 evidence: str = "spottune_fig7_revpred.csv") -> str:
    """The measured mechanism of ``approach``'s cost against ``baseline``'s (§IV-B1's "SpotTune (θ=1.0) is cheaper
    than Single-Spot (cheapest)"), from :func:`tt_workbook.studies.spottune.grids.per_job_set` rows (seed means per job set).

    A run's cost is its instances' usage (what their running time is worth at the spot prices) minus the
    refunds of revoked instances: the text gives both approaches' usage, refunded share and free steps, means
    over workloads (:func:`tt_workbook.studies.spottune.grids.job_set_weights`), and says whether the refunds make up for a
    dearer usage. "" when a column or an approach is missing."""
    import numpy as np

    from tt_workbook.studies.spottune.grids import job_set_weights

    need = {"job_set", "approach", "cost", "usage", "refunded_share", "free_step_share"}
    if per is None or not need <= set(per.columns) or not {approach, baseline} <= set(per["approach"]):
        return ""
    w = per.pivot_table(index="job_set", columns="approach", values=sorted(need - {"job_set", "approach"}))
    w = w[w[("cost", approach)].notna() & w[("cost", baseline)].notna()]
    if w.empty:
        return ""
    wt = job_set_weights(list(w.index))

    def avg(col, a):
        return float(np.sum(w[(col, a)].to_numpy(float) * wt))

    c1, cb, u1, ub = avg("cost", approach), avg("cost", baseline), avg("usage", approach), avg("usage", baseline)
    name = {"spottune-1": "SpotTune (θ=1.0)", "spottune-0.7": "SpotTune (θ=0.7)", "single-cheapest":
            "Single-Spot (cheapest)", "single-fastest": "Single-Spot (fastest)"}
    a_name, b_name = name.get(approach, approach), name.get(baseline, baseline)
    verdict = ("so its refunds do not make up for its dearer usage" if c1 >= cb and u1 > ub else
               "so its refunds are too small to bring it below the baseline" if c1 >= cb else
               "so it is the cheaper one")
    return (f"a run pays its instances' usage at the spot prices minus the refunds of revoked instances: {a_name}'s "
            f"usage is worth ${u1:.3f} per job set, {u1 / ub:.2f}x {b_name}'s ${ub:.3f}, and refunds return "
            f"{100 * avg('refunded_share', approach):.0f}% of it ({100 * avg('free_step_share', approach):.0f}% of its "
            f"steps free) against {100 * avg('refunded_share', baseline):.0f}% for {b_name}, leaving ${c1:.3f} against "
            f"${cb:.3f}, {verdict} (means over workloads; usage, refunded_share, free_step_share and cost in {evidence})")


def pcr_cause(per, approach: str = "spottune-1", baselines=("single-cheapest", "single-fastest"),
              evidence: str = "spottune_fig7_revpred.csv") -> str:
    """The mechanism of ``approach``'s PCR against each baseline (§IV-B1's "SpotTune (θ=1.0) has a higher PCR than
    both Single-Spot baselines"): PCR = 1 / (JCT x cost), so its ratio is the baseline's cost over the approach's
    times the baseline's JCT over the approach's; the text gives both factors and the PCR ratio, means over
    workloads of the per-job-set ratios (:func:`tt_workbook.studies.spottune.grids.job_set_weights`). "" when a column or an
    approach is missing."""
    import numpy as np

    from tt_workbook.studies.spottune.grids import job_set_weights

    need = {"job_set", "approach", "cost", "jct_h", "pcr"}
    if per is None or not need <= set(per.columns) or not {approach, *baselines} <= set(per["approach"]):
        return ""
    w = per.pivot_table(index="job_set", columns="approach", values=["cost", "jct_h", "pcr"]).dropna()
    if w.empty:
        return ""
    wt = job_set_weights(list(w.index))
    name = {"spottune-1": "SpotTune (θ=1.0)", "spottune-0.7": "SpotTune (θ=0.7)", "single-cheapest":
            "Single-Spot (cheapest)", "single-fastest": "Single-Spot (fastest)"}
    parts = []
    for b in baselines:
        c = float(np.sum((w[("cost", approach)] / w[("cost", b)]).to_numpy(float) * wt))
        j = float(np.sum((w[("jct_h", approach)] / w[("jct_h", b)]).to_numpy(float) * wt))
        r = float(np.sum((w[("pcr", approach)] / w[("pcr", b)]).to_numpy(float) * wt))
        parts.append(f"against {name.get(b, b)} its jobs cost {c:.2f}x and take {j:.2f}x as long, so its PCR is "
                     f"{r:.2f}x theirs")
    return (f"PCR is 1 / (JCT x cost), so {name.get(approach, approach)}'s PCR ratio is the product of the inverse "
            f"cost and JCT ratios: " + "; ".join(parts)
            + f" (means over workloads of per-job-set ratios; cost, jct_h and pcr in {evidence})")


def claim_rows(values: dict, causes: dict | None = None, synthetic_prices: bool = True,
               not_comparable: dict | None = None, holds: dict | None = None, reading: str = "",
               keys=None, runs: dict | int | None = None) -> list[dict]:
    """Direction and ordering claims, compared as booleans; ``causes`` names the evidence of a difference;
    ``not_comparable``: key -> why the claim cannot be compared here (the row is then *not comparable*, its
    value None); ``holds``: key -> the range of settings in which the claim holds (from the sensitivity
    sweep, :func:`tt_workbook.studies.spottune.sensitivity.holds_text`), appended to the note; ``reading``: appended to each
    item (which predictor and bids the simulations used, as :func:`fig7_rows`); ``keys``: only these claims;
    ``runs``: key -> runs per arm of the simulations the claim reads (as :func:`fig7_rows`)."""
    causes, nc, holds = causes or {}, not_comparable or {}, holds or {}
    rows = []
    for key, (paper, text) in CLAIMS.items():
        if (key not in values and key not in nc) or (keys is not None and key not in keys):
            continue
        text = text + reading
        note = f"{substitution(synthetic_prices)}; {rests_on(key)}" + (f"; {holds[key]}" if key in holds else "")
        if key in nc:
            rows.append({"source": f"{SOURCE} claims", "item": text, "paper": paper, "workbook": None,
                         "not_comparable": nc[key], "note": note})
            continue
        rows.append({"source": f"{SOURCE} claims", "item": text, "paper": paper, "workbook": bool(values[key]),
                     "cause": causes.get(key, "") if bool(values[key]) != paper else "", "note": note,
                     **_runs(runs, key)})
    return rows


def fig10_rows(gains: dict, fig10c: dict | None, synthetic_prices: bool, setting: str) -> list[dict]:
    """Fig. 10's four numbers. (a, b) are comparable only on the user's 2017 trace (on the synthetic
    market they measure the generator, not AWS); (c) never is (substituted workloads). ``gains``: from
    :func:`tt_workbook.studies.spottune.revpred_study.fig10_gains`; ``fig10c``: ``{"cost_saving", "pcr_gain"}`` or None;
    ``setting``: the workbook's setting, named in every row."""
    rows = []
    why_ab = (f"synthetic 2017-style market: the scores measure the synthetic generator, not AWS ({setting})"
              if synthetic_prices else "")
    for key in ("accuracy_gain", "f1_gain"):
        paper, text = FIG10[key]
        col = key.split("_")[0]
        w = gains.get(key)
        rows.append({"source": f"{SOURCE} Fig. 10", "item": text + " (relative, mean over types)", "paper": paper,
                     "workbook": None if w is None or w != w else round(w, 4), "abs_tol": 0.05,
                     "not_comparable": why_ab,
                     "note": f"mean {col}: RevPred {gains[col + '_revpred']:.3f}, Tributary {gains[col + '_tributary']:.3f} "
                             f"({100 * gains[col + '_points']:+.1f} points); the paper's '+%' read as relative; {setting}"})
    why_c = substitution(synthetic_prices)
    for key in ("cost_saving", "pcr_gain"):
        paper, text = FIG10[key]
        w = None if fig10c is None else fig10c.get(key)
        rows.append({"source": f"{SOURCE} Fig. 10", "item": text, "paper": paper,
                     "workbook": None if w is None else round(w, 4), "not_comparable": why_c + f"; {setting}"})
    return rows


def fig10_best_row(scores, synthetic_prices: bool, setting: str, bids: str = "random") -> dict:
    """§IV-D, Fig. 10(a, b): RevPred has the highest mean accuracy and the highest mean F1 of the three
    predictors (RevPred, Tributary's, logistic regression), compared as a boolean; on the synthetic market
    it measures the generator, not AWS (not comparable, as the other Fig. 10 (a, b) rows)."""
    s = scores[scores["bids"] == bids].groupby("predictor")[["accuracy", "f1"]].mean()
    best = {col: str(s[col].idxmax()) for col in ("accuracy", "f1")}
    value = best["accuracy"] == "revpred" and best["f1"] == "revpred"
    means = "; ".join(f"{p}: accuracy {r.accuracy:.3f}, F1 {r.f1:.3f}" for p, r in s.iterrows())
    # the range: the same models asked about the other maximum prices scored (e.g. Alg. 2's)
    other = []
    for b, g in scores[scores["bids"] != bids].groupby("bids", sort=False):
        o = g.groupby("predictor")[["accuracy", "f1"]].mean()
        ok = str(o["accuracy"].idxmax()) == "revpred" and str(o["f1"].idxmax()) == "revpred"
        other.append(f"at {b} maximum prices {'holds' if ok else 'does not'} (highest accuracy "
                     f"{o['accuracy'].idxmax()}, highest F1 {o['f1'].idxmax()})")
    where = f"range: at {bids} maximum prices (the paper's inference rule) {'holds' if value else 'does not'}" + \
        "".join(f"; {x}" for x in other) + "; the profile's network settings only"
    row = {"source": f"{SOURCE} Fig. 10", "item": "§IV-D, Fig. 10(a, b): RevPred has the highest accuracy and F1 of "
                                                  "the three predictors (mean over types)",
           "paper": True, "workbook": bool(value), "note": f"{means}; {setting}; {where}"}
    if synthetic_prices:
        row["not_comparable"] = f"synthetic 2017-style market: the scores measure the synthetic generator, not AWS ({setting})"
    elif not value:
        row["cause"] = f"measured: highest accuracy {best['accuracy']}, highest F1 {best['f1']} (spottune_fig10.csv)"
    return row


def summary(rows: list[dict]):
    return comparison(rows)


_NAMES = {"spottune-1": "SpotTune (θ=1.0)", "spottune-0.7": "SpotTune (θ=0.7)", "single-cheapest": "Single-Spot (cheapest)",
          "single-fastest": "Single-Spot (fastest)"}


def jct_ordering(per):
    """Per workload (the mean of its job sets' seed means, :func:`tt_workbook.studies.spottune.grids.workload_of`) the JCT of the
    four approaches, where SpotTune (θ=0.7)'s lies against the two baselines (``position``: "between", "below the
    fastest", "above the cheapest", or "baselines reversed" when the fastest baseline is not faster than the
    cheapest), θ=0.7's JCT over the fastest's (``vs_fastest``) and its two factors: ``early_stop`` (θ=0.7's JCT over
    θ=1's) and ``instances`` (θ=1's over the fastest's), workload means of per-job-set ratios; a last row ``mean``: the
    means over workloads (:func:`tt_workbook.studies.spottune.grids.job_set_weights`)."""
    import pandas as pd

    from tt_workbook.studies.spottune.grids import job_set_weights, workload_of

    w = per.pivot_table(index="job_set", columns="approach", values="jct_h")[[_FA, _S07, _S1, _CH]].dropna()
    w["early_stop"] = w[_S07] / w[_S1]
    w["instances"] = w[_S1] / w[_FA]
    w["vs_fastest"] = w[_S07] / w[_FA]
    wt = pd.Series(job_set_weights(list(w.index)), index=w.index)
    by = w.groupby(w.index.map(workload_of), sort=False).mean()
    mean = w.mul(wt, axis=0).sum().to_frame("mean").T
    out = pd.concat([by, mean])

    def position(r):
        if not r[_FA] < r[_CH]:
            return "baselines reversed"
        return "between" if r[_FA] < r[_S07] < r[_CH] else ("below the fastest" if r[_S07] <= r[_FA]
                                                             else "above the cheapest")
    out["position"] = [position(r) for _, r in out.iterrows()]
    out.index.name = "workload"
    out = out.reset_index().rename(columns={a: f"jct_h_{a}" for a in (_FA, _S07, _S1, _CH)})
    out.columns.name = None
    return out


def jct_ordering_cause(table, evidence: str = "spottune_jct_ordering.csv") -> str:
    """The measured mechanism of §IV-B1's "SpotTune's JCT lies between the fastest and the cheapest baseline" from
    :func:`jct_ordering`: which inequality fails on the means over workloads, θ=0.7's JCT over the fastest's as
    the product of its early stop and θ=1's instances, and the workloads on which the ordering holds or fails."""
    if table is None or len(table) == 0 or "mean" not in set(table["workload"]):
        return ""
    m = table.set_index("workload").loc["mean"]
    wl = table[table["workload"] != "mean"]
    fa, s07, ch = m[f"jct_h_{_FA}"], m[f"jct_h_{_S07}"], m[f"jct_h_{_CH}"]
    if fa < s07 < ch:
        return ""
    fails = ("SpotTune (θ=0.7) finishes before the fastest baseline" if s07 <= fa else
             "SpotTune (θ=0.7) finishes after the cheapest baseline" if s07 >= ch else
             "the fastest baseline is not faster than the cheapest")
    groups = {p: list(g["workload"]) for p, g in wl.groupby("position", sort=False)}
    where = "; ".join(f"{p} on {len(v)} ({', '.join(v)})" for p, v in groups.items())
    reversed_ = wl[wl["position"] == "baselines reversed"]
    rev = (f"; on {len(reversed_)} workloads the fastest baseline's type is no faster per step than the cheapest's "
           f"(its JCT {float((reversed_[f'jct_h_{_FA}'] / reversed_[f'jct_h_{_CH}']).mean()):.2f}x theirs, mean)"
           if len(reversed_) else "")
    return (f"JCT over the workloads: fastest {fa:.2f} h, SpotTune (θ=0.7) {s07:.2f} h, cheapest {ch:.2f} h, so {fails}: "
            f"θ=0.7's JCT is its early stop (it ends at {m['early_stop']:.2f}x θ=1's JCT) times θ=1's instances "
            f"(θ=1 takes {m['instances']:.2f}x the fastest's JCT), and ends at {m['vs_fastest']:.2f}x the fastest's JCT "
            f"(means of per-job-set ratios){rev}; per workload SpotTune (θ=0.7) lies {where} ({evidence})")


def fig8_linear_cause(work, jct_r2: float, threshold: float = 0.9, evidence: str = "spottune_fig8_phase1.csv") -> str:
    """The measured mechanism of Fig. 8(b)'s JCT bending away from a straight line in θ (R² ``jct_r2`` below
    ``threshold``), from :func:`tt_workbook.studies.spottune.earlycurve_study.phase1_work`: the means over workloads of the first
    phase's work (plateau stop included, and without it), the R² of a straight line through each, and the job sets
    whose work stays flat below θ = 1 because their slowest setting stops at its plateau. "" when the R² reaches
    the threshold or there is no table."""
    import numpy as np

    from tt_workbook.studies.spottune.grids import job_set_weights

    if work is None or len(work) == 0 or not jct_r2 < threshold:
        return ""
    th = np.array(sorted(work["theta"].unique()), float)
    w = {c: work.pivot(index="job_set", columns="theta", values=c) for c in ("work", "work_no_plateau")}
    wt = job_set_weights(list(w["work"].index))
    mean = {c: np.asarray(v.to_numpy(float).T @ wt) for c, v in w.items()}
    r2 = {c: float(np.corrcoef(th, v)[0, 1] ** 2) for c, v in mean.items()}
    below = th < 1
    flat = [f"{j} (from θ {th[below][np.argmax(np.isclose(r[below], r[below].max()))]:g} at {r[below].max():.3f})"
            for j, r in ((j, w["work"].loc[j].to_numpy(float)) for j in w["work"].index)
            if below.sum() > 1 and np.isclose(r[below], r[below].max()).sum() > 1]
    grid = ", ".join(f"{t:g}" for t in th)
    return (f"the JCT ends when the slowest setting ends SpotTune's first phase, which stops at θ x max steps or "
            f"earlier at the setting's plateau, while θ = 1 has no plateau stop: that phase's work (the slowest "
            f"setting's steps x seconds per step, relative to θ = 1) has means over workloads "
            f"{', '.join(f'{v:.3f}' for v in mean['work'])} over θ = {grid}, whose straight line has R² {r2['work']:.3f} "
            f"(the JCT's {jct_r2:.3f}), against R² {r2['work_no_plateau']:.3f} without the plateau stop"
            + (f"; the plateau stop keeps the work flat below θ = 1 on {', '.join(flat)}" if flat else "")
            + f" ({evidence})")
