"""Thesis ch. 7 vs this workbook: one row per number and statement of §7.3 and the chapter's summary.

The thesis' numbers (:data:`tt_workbook.paper_values.SECTION_7_3`) fill only the ``paper``
column. Rules: percentages of cost reduction agree within ±10 percentage points (10 runs per method
in the thesis; the runs of one seed share their initial configurations here), ratios within a factor
of 1.5, statements exactly. Rows whose quantity depends on the number of tests (the totals after the
run) are *not comparable* when the profile runs fewer tests than the thesis' 100; rows of the
multilayer network are *paper only* (its data are not public).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from tt_workbook import paper_values as pv
from tt_workbook.report.summary import as_timing, fewest_runs

SOURCE = "thesis §7.3"
NAMES = {"fabulinus": "Fabulinus", "fabolas": "Fabolas", "eic": "BO with EIc", "ei": "BO with EI"}
MLP_NOTE = "the multilayer network's measurements are not public"
REDUCTION_TOL = 10.0
RATIO_FACTOR = 1.5


def _get(table: pd.DataFrame, bench: str, col: str, **match):
    if table is None or table.empty:
        return None
    t = table[table["benchmark"] == bench]
    for k, v in match.items():
        t = t[t[k] == v]
    return None if t.empty else float(t[col].iloc[0])


def _fmt(v, digits=1) -> str:
    return "n/a" if v is None or (isinstance(v, float) and np.isnan(v)) else f"{v:.{digits}f}"


def not_run(rows: list[dict]) -> list[dict]:
    """Rows without a workbook value that are not paper-only (a network or method the profile did not
    run) become *not comparable*, saying so."""
    for r in rows:
        if r.get("workbook") is None and r.get("note") != MLP_NOTE and not r.get("not_comparable"):
            r["not_comparable"] = "not run in this profile (network or optimiser left out)"
    return rows


def _ceiling_cause(reduction: pd.DataFrame, ceil: dict | None, bench: str, base: str, pct: float) -> str:
    """Cause of a Fabulinus-vs-full-size-baseline reduction the measurements cannot produce ("" if they can)."""
    cm, cb = _get(reduction, bench, "cost_method", baseline=base), _get(reduction, bench, "cost_baseline", baseline=base)
    if not ceil or cm is None or cb is None or pct >= 100:
        return ""
    implied = cm / (1 - pct / 100)
    if implied <= ceil["costliest"]:
        return ""
    n = ceil["tests"]
    return (f"the measurements' costs: with this Fabulinus (${cm:.2f} per run) the thesis' {_fmt(pct, 2)}% needs "
            f"{NAMES[base]} to spend ${implied:.2f} in {n} full-size tests, more than the {n} costliest "
            f"{bench.upper()} configurations cost together (${ceil['costliest']:.2f}: at most "
            f"{_fmt(100 * (1 - cm / ceil['costliest']))}%); its {n} most accurate cost ${ceil['most_accurate']:.2f}, "
            f"its runs here ${cb:.2f} (table 'cost ceiling' of notebook 16)")


def _with_runs(row: dict, runs: dict | None, bench: str, *methods) -> dict:
    """``row`` with ``runs_per_arm``: the fewest runs (seeds) of ``methods`` on ``bench`` (``runs``:
    ``(benchmark, optimizer) -> runs``, :func:`tt_workbook.report.summary.runs_by_arm` of the runs; None: not
    known). A row without a workbook value is left as it is."""
    if runs is not None and row.get("workbook") is not None:
        row["runs_per_arm"] = fewest_runs(runs, [(bench, m) for m in methods])
    return row


def cost_rows(reduction: pd.DataFrame, initial: pd.DataFrame, expected: dict, iterations: int,
              networks=("cnn", "rnn", "mlp"), mix: pd.DataFrame | None = None,
              ceiling: dict | None = None, runs: dict | None = None) -> list[dict]:
    """Rows of the optimisation-cost reductions (§7.3, ch. 7 summary, ch. 8 "up to 6.6x") and of the
    initial-sampling cost reductions.

    Parameters
    ----------
    reduction : DataFrame
        :func:`tt_workbook.studies.fabulinus.analysis.cost_reduction` (Fabulinus vs each baseline).
    initial : DataFrame
        :func:`tt_workbook.studies.fabulinus.analysis.initial_cost_reduction` (vs EIc and EI).
    expected : dict
        ``benchmark -> expected_initial_cost_ratio(...)`` (what the data say about charging).
    iterations : int
        Tests per run of the profile (the thesis ran 100).
    mix : DataFrame, optional
        Share of the BO tests per size fraction ``s`` for Fabulinus and FABOLAS
        (:func:`tt_workbook.studies.fig1_fig2.rows.size_mix`): the measured cause of a differing
        Fabulinus-vs-FABOLAS row.
    ceiling : dict, optional
        ``benchmark -> cost_ceiling(...)`` (:func:`tt_workbook.studies.fabulinus.analysis.cost_ceiling`): a
        differing row against a full-size baseline whose thesis value would need that baseline to spend
        more than its costliest possible run names the measurements' costs as its cause.
    runs : dict, optional
        ``(benchmark, optimizer) -> runs`` (:func:`tt_workbook.report.summary.runs_by_arm` of the runs): each row
        computed from runs carries ``runs_per_arm``, the fewest runs of the methods it compares (below
        :data:`tt_workbook.report.summary.MIN_RUNS_PER_ARM`: *too few runs*).
    """
    short = (f"{iterations} tests per run (thesis: {pv.SECTION_7_2['iterations']}); the total cost is "
             "dominated by the initial sampling in a shorter run") if iterations != pv.SECTION_7_2["iterations"] else ""
    rows = []
    for bench in networks:
        paper = pv.SECTION_7_3[bench]
        for base, pct in paper["cost_reduction_pct"].items():
            item = f"{bench.upper()}: optimisation cost reduction of Fabulinus vs {NAMES[base]} (%)"
            if bench == "mlp":
                rows.append({"source": SOURCE, "item": item, "paper": pct, "note": MLP_NOTE})
                continue
            w = _get(reduction, bench, "reduction_pct", baseline=base)
            paired = _get(reduction, bench, "paired_median_pct", baseline=base)
            cause = ""
            if base == "fabolas" and w is not None and abs(w - pct) > REDUCTION_TOL and mix is not None and len(mix):
                m = mix[mix["benchmark"] == bench]
                small = m[m["s"] == m["s"].min()].set_index("optimizer")["share"]
                if {"fabulinus", "fabolas"} <= set(small.index):
                    cause = (f"after the initial sampling FABOLAS runs {_fmt(100 * small['fabolas'], 0)}% of its tests "
                             f"at the smallest size, Fabulinus {_fmt(100 * small['fabulinus'], 0)}% (table 'sizes' of "
                             "notebook 16): both share the initial sampling, so the BO tests' sizes decide")
            if base in ("eic", "ei") and not cause and w is not None and abs(w - pct) > REDUCTION_TOL and ceiling:
                cause = _ceiling_cause(reduction, ceiling.get(bench), bench, base, pct)
            rows.append(_with_runs({"source": SOURCE, "item": item, "paper": pct, "workbook": w,
                                    "abs_tol": REDUCTION_TOL, "not_comparable": short, "cause": cause,
                                    "note": f"mean total exploration cost after the run; median of per-seed "
                                            f"reductions {_fmt(paired)}%"}, runs, bench, "fabulinus", base))
        ip = paper["initial_cost_reduction_pct"]
        item = f"{bench.upper()}: initial-sampling cost reduction of Fabulinus vs BO without sub-sampling (%)"
        if bench == "mlp":
            rows.append({"source": SOURCE, "item": item, "paper": ip, "note": MLP_NOTE})
            continue
        w = _get(initial, bench, "reduction_pct", baseline="eic")
        e = expected.get(bench, {})
        cause = ""
        if w is not None and abs(w - ip) > REDUCTION_TOL:
            cause = (f"the public {bench.upper()} measurements: one configuration tested at the four sub-sampled "
                     f"sizes, each charged in full, costs {_fmt(e.get('in_full'), 2)}x one full-size test on average "
                     f"(expected reduction {_fmt(100 * (1 - e.get('in_full', np.nan)))}%); charged as one "
                     f"snapshotted run it would cost {_fmt(e.get('snapshot'), 2)}x "
                     f"({_fmt(100 * (1 - e.get('snapshot', np.nan)))}%) - neither gives the thesis' value "
                     "(table 'initial sampling' of notebook 16)")
        rows.append(_with_runs({"source": SOURCE, "item": item, "paper": ip, "workbook": w, "abs_tol": REDUCTION_TOL,
                                "cause": cause,
                                "note": f"same configurations per seed, each initial test charged in full; the data "
                                        f"alone predict {_fmt(100 * (1 - e.get('in_full', np.nan)))}%"},
                               runs, bench, "fabulinus", "eic"))
    # ch. 7 summary and ch. 8: the largest factor over networks and the baselines without sub-sampling
    ratios = reduction[reduction["baseline"].isin(["eic", "ei"])] if reduction is not None and not reduction.empty else None
    best = None if ratios is None or ratios.empty else float(ratios["ratio"].max())
    where = "" if best is None else ", ".join(f"{r.benchmark.upper()} vs {NAMES[r.baseline]} {r.ratio:.2f}x"
                                              for r in ratios.itertuples())
    up_to = {"source": "thesis ch. 8", "item": "optimisation cost reduction vs BO without sub-sampling: up to (x)",
             "paper": pv.FABULINUS_UP_TO_FACTOR, "workbook": best, "factor": 1.25, "not_comparable": short,
             "note": f"largest ratio over the public networks ({where}); the thesis' own §7.3 percentages "
                     "imply at most 7.46x (MLP vs EI), 6.22x vs EIc"}
    if runs is not None and best is not None:  # the largest over every network and baseline compared
        up_to["runs_per_arm"] = fewest_runs(runs, [(r.benchmark, m) for r in ratios.itertuples()
                                                   for m in ("fabulinus", r.baseline)])
    rows.append(up_to)
    return not_run(rows)


def time_rows(times: pd.DataFrame, overhead: pd.DataFrame, iterations: int, networks=("cnn", "rnn", "mlp"),
              runs: dict | None = None) -> list[dict]:
    """Rows of the total-time ratios (exploration time + overhead) and the recommendation overhead. ``runs``:
    as :func:`cost_rows`, for the total-time ratios (the overhead rows are timings of this machine: no count)."""
    short = (f"{iterations} tests per run (thesis: {pv.SECTION_7_2['iterations']})"
             if iterations != pv.SECTION_7_2["iterations"] else "")
    rows = []
    for bench in networks:
        for base, ratio in pv.SECTION_7_3[bench]["total_time_ratio"].items():
            item = f"{bench.upper()}: total time (exploration + overhead) of Fabulinus / {NAMES[base]} (x)"
            if bench == "mlp":
                rows.append({"source": SOURCE, "item": item, "paper": ratio, "note": MLP_NOTE})
                continue
            w = _get(times, bench, "wall_ratio", baseline=base)
            t = _get(times, bench, "time_ratio", baseline=base)
            share = _get(overhead, bench, "overhead_share", optimizer="fabulinus")
            per = _get(overhead, bench, "mean_bo_s", optimizer="fabulinus")
            cause = ""
            if w is not None and not (ratio / RATIO_FACTOR <= w <= ratio * RATIO_FACTOR):
                cause = (f"recommendation overhead: {_fmt(per)} s per Fabulinus recommendation here "
                         f"({_fmt(100 * share if share is not None else None)}% of its total time) against 6-12 "
                         f"minutes in the thesis; without the overhead the ratio is {_fmt(t, 2)}x "
                         "(table 'time' of notebook 16)")
            rows.append(as_timing({"source": SOURCE, "item": item, "paper": ratio, "workbook": w,  # measured overhead
                                   "factor": RATIO_FACTOR, "cause": cause, "not_comparable": short,
                                   "note": f"mean over runs; exploration time alone {_fmt(t, 2)}x"}))
    machine = ("another implementation and machine (thesis: George + emcee GPs on a Xeon Platinum 8176; here "
               "numpy GPs, batched EPMGP, one BLAS thread, a shared 2-core machine)")
    for key, label in (("first", "first BO recommendation"), ("last", "last recommendation")):
        for bench in ("cnn", "rnn"):
            v = _get(overhead, bench, f"{'first_bo' if key == 'first' else 'last'}_s", optimizer="fabulinus")
            rows.append(as_timing({"source": "thesis §7.3.1, ch. 8",
                         "item": f"{bench.upper()}: Fabulinus' overhead at the {label} (minutes)",
                         "paper": pv.FABULINUS_OVERHEAD_MIN[key], "workbook": None if v is None else v / 60.0,
                         "factor": 2.0, "not_comparable": machine if key == "first" else (short or machine),
                         "note": "the thesis: 'approximately 6 minutes' at the start, 'more than 12 minutes' "
                                 "after 100 tests"}))
    return not_run(rows)


def statement_rows(compliance: pd.DataFrame, times: pd.DataFrame, initial_phase: pd.DataFrame,
                   reach: pd.DataFrame | None = None, runs: dict | None = None) -> list[dict]:
    """Rows of the chapter's statements, each read as a yes/no question on the runs (``runs``: as
    :func:`cost_rows`; a statement's arms are the methods it reads)."""
    def share(bench, opt, col):
        return _get(compliance, bench, col, optimizer=opt)

    rows = []
    for bench in ("cnn", "rnn"):
        s = share(bench, "fabolas", "feasible_share")
        rows.append(_with_runs({"source": SOURCE, "item": f"{bench.upper()}: Fabolas' incumbents never meet the cost limit",
                     "paper": True, "workbook": None if s is None else bool(s == 0.0),
                     "cause": "" if s is None or s == 0.0 else
                     "FABOLAS picks its incumbent without the cost limit, so it falls within the limit whenever the "
                     f"most accurate predicted configuration happens to be cheap enough: {_fmt(100 * s)}% of its "
                     "incumbents after the initial sampling are within it (table 'constraint' of notebook 16)",
                     "note": f"share of Fabolas' BO-phase incumbents within the limit: {_fmt(None if s is None else 100 * s)}%"},
                               runs, bench, "fabolas"))
    for opt in ("fabulinus", "eic"):
        g, f = share("rnn", opt, "good_share"), share("rnn", opt, "feasible_share")
        cause = ""
        if g is not None and g < 1.0:
            cause = (f"{_fmt(100 * (1 - g))}% of its incumbents after the initial sampling fall short; "
                     f"{_fmt(100 * (1 - f))} points of it break the cost limit: the incumbent is chosen on the "
                     "models' predictions of configurations it never ran at full size (table 'constraint' of "
                     "notebook 16)")
        rows.append(_with_runs({"source": SOURCE,
                     "item": f"RNN: {NAMES[opt]} always recommends a high-accuracy (> 85%) configuration within the limit",
                     "paper": True, "workbook": None if g is None else bool(g == 1.0), "cause": cause,
                     "note": f"share of BO-phase incumbents feasible with accuracy > 85%: {_fmt(None if g is None else 100 * g)}%"},
                               runs, "rnn", opt))
    for bench in ("cnn", "rnn"):
        ip = initial_phase[initial_phase["benchmark"] == bench].set_index("optimizer") if initial_phase is not None else None
        ok, cause = None, ""
        if ip is not None and {"fabulinus", "eic"} <= set(ip.index):
            ok = bool(ip.loc["fabulinus", "tests"] > ip.loc["eic", "tests"] and ip.loc["fabulinus", "cost"] < ip.loc["eic", "cost"])
            cause = "" if ok else (
                f"the sub-sampled initial sampling tests each configuration at the four sub-sampled sizes, each test "
                f"charged in full, so on these measurements it pays more for its initial tests than BO without "
                f"sub-sampling: Fabulinus {_fmt(ip.loc['fabulinus', 'tests'], 1)} tests "
                f"for ${ip.loc['fabulinus', 'cost']:.2f}, BO with EIc {_fmt(ip.loc['eic', 'tests'], 1)} for "
                f"${ip.loc['eic', 'cost']:.2f} (table 'initial sampling' of notebook 16)")
        rows.append(_with_runs({"source": "thesis ch. 7 summary",
                                "item": f"{bench.upper()}: sub-sampling gives more initial tests for less money than BO "
                                        "without it", "paper": True, "workbook": ok, "cause": cause},
                               runs, bench, "fabulinus", "eic"))
        tb = times[times["benchmark"] == bench] if times is not None and not times.empty else pd.DataFrame()
        w = tb["wall_ratio"] if len(tb) else pd.Series(dtype=float)
        cause = ""
        if len(tb) and not bool((w > 1).all()):
            slower = ", ".join(f"{NAMES[r.baseline]} {r.wall_ratio:.2f}x (exploration time alone {r.time_ratio:.2f}x)"
                               for r in tb.itertuples() if r.wall_ratio <= 1)
            cause = (f"the recommendation overhead here is seconds, not the thesis' 6-12 minutes, so the exploration "
                     f"time decides: Fabulinus / {slower} (table 'time' of notebook 16)")
        rows.append(_with_runs({"source": "thesis ch. 7 summary",
                                "item": f"{bench.upper()}: Fabulinus has the highest total optimisation time "
                                        "(exploration + overhead)",
                                "paper": True, "workbook": None if w.empty else bool((w > 1).all()), "cause": cause},
                               runs, bench, "fabulinus", *(tb["baseline"] if len(tb) else [])))
    if reach is not None and not reach.empty:
        r = reach[reach["benchmark"] == "cnn"]
        if not r.empty:
            c = r["cost_ratio"].to_numpy(float)
            ok = bool(np.all(np.isnan(r["cost_baseline"].to_numpy(float)) | (c > 1))) and not np.isnan(r["cost_method"].iloc[0])
            cause = ""
            if not ok and initial_phase is not None:
                ip = initial_phase[initial_phase["benchmark"] == "cnn"].set_index("optimizer")["cost"]
                first = [f"{NAMES[x.baseline]} at ${x.cost_baseline:.2f} (its initial sampling: ${ip.get(x.baseline, np.nan):.2f})"
                         for x in r.itertuples() if x.cost_ratio <= 1 or np.isnan(x.cost_method)]
                cause = (f"Fabulinus' mean curve reaches 90% of the optimum at ${r['cost_method'].iloc[0]:.2f}, within "
                         f"its initial sampling of ${ip.get('fabulinus', np.nan):.2f}; earlier: " + "; ".join(first) +
                         ". The same 9 configurations tested at full size cost less on the CNN than at the four "
                         "sub-sampled sizes (table 'reach' of notebook 16)")
            rows.append(_with_runs({"source": SOURCE,
                                    "item": "CNN: Fabulinus reaches a given Accuracy_C for less exploration cost than "
                                            "the others", "paper": True, "workbook": ok, "cause": cause,
                                    "note": "read at 90% of the best feasible accuracy on the mean curves (a baseline "
                                            "that never gets there counts as slower)"},
                                   runs, "cnn", "fabulinus", *r["baseline"]))
    rows.append({"source": SOURCE, "item": "MLP: one of Fabulinus' recommendations does not meet the constraint",
                 "paper": True, "note": MLP_NOTE})
    return not_run(rows)
