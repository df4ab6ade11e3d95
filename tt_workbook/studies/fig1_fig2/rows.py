"""Paper-vs-workbook rows of TrimTuner Figs. 1-2, with the measured cause of each difference.

The paper's reference values come from its text (:mod:`tt_workbook.paper_values`) and from its
own figure data (:mod:`tt_workbook.studies.fig1_fig2.paper_figures`); the cause strings are built from numbers measured
in the notebook's runs, naming the file that holds the evidence.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from tt_workbook.report.summary import fewest_runs

#: The paper's Fig. 1 text: one TrimTuner test costs ~10x less than an EIc test and 2.4x less than an
#: EIc/USD test; TrimTuner's average sub-sampling rate is ~1/4 (the text calls them averages over the three
#: networks; its own curves give other per-network ratios: :func:`paper_curve_ratios_text`).
FIG1_TEXT = {"eic": 10.0, "eic-usd": 2.4, "sub_sampling_rate": 0.25}


def differing_settings(table: pd.DataFrame) -> str:
    """The settings of a :func:`tt_workbook.runs.settings.settings_table` that differ from the paper's,
    as one line ``"<setting>: <this run> (paper: <paper>); ..."`` ("" when none differs)."""
    ours = [c for c in table.columns if c.startswith("this run")][0]
    diff = table[table["same"].eq(False)]
    return "; ".join(f"{r['setting']}: {r[ours]} (paper: {r['paper']})" for _, r in diff.iterrows())


def paper_step_costs(paper_fig1: pd.DataFrame, by=("benchmark", "optimizer")) -> pd.DataFrame:
    """Per network and method of the paper's Fig. 1 (or per ``by`` group of another figure's curves, e.g.
    Fig. 3's ``("benchmark", "variant")``): the median cost step between consecutive points
    after the initial design (one point per test; the last point, cut at the axis limit, is left out).

    The PDF may merge consecutive collinear points (matplotlib simplifies paths), so a step can span
    more than one test: the median is an upper bound on the cost of one test when that happens.
    """
    rows = []
    by = list(by)
    for key, c in paper_fig1.groupby(by, sort=False):
        bench = c["benchmark"].iloc[0]
        bo = c[~c["initial"]]
        xmax = paper_fig1.loc[paper_fig1["benchmark"] == bench, "x"].max()
        bo = bo[bo["x"] < xmax - 1e-9]
        steps = np.diff(bo["x"].to_numpy(float))
        steps = steps[steps > 0]
        rows.append({**dict(zip(by, key if isinstance(key, tuple) else (key,))), "steps": len(steps),
                     "step_cost": float(np.median(steps)) if len(steps) else np.nan})
    return pd.DataFrame(rows)


#: What the workbook's TrimTuner-DT does differently from the authors' public code (measured in notebook 03).
DT_DEVIATION = ("the workbook's TrimTuner-DT uses a real information gain, as the paper describes; the authors' "
                "tree model gives a candidate zero covariance with the representer points and never refits a "
                "fantasy, so their dH is one number for every candidate and they test the CEA-kept candidate "
                "ranked by P(feasible)/cost")
NOT_RUN = "the authors' code was not run here"
#: Why a TrimTuner-DT row of Fig. 3 or Table IV has no value of the authors' code (their DIRECT and CMA-ES are
#: commented out in ``trimtuner/trimtuner/trimtuner.py`` at a9dec1f; the paper's Fig. 3 is TrimTuner-GP's).
NO_AUTHORS_FILTERS = ("the authors' code offers no DIRECT or CMA-ES filter to run (both are commented out in their "
                      "trimtuner.py), and the paper's Fig. 3 and Table IV numbers are TrimTuner-GP's or averages")
#: Why a recommendation-time row (Tables III-IV) has no value of the authors' code.
NO_AUTHORS_TIMES = ("recommendation times are measured for the workbook's code only; the authors' code is not timed "
                    "per recommendation here, and EIc, FABOLAS and TrimTuner-GP are not run from their repository")


#: The measured mechanism behind Table IV's TrimTuner-DT ratios: this workbook's own exact argmax (its side: ours).
TABLE_IV_DT_MECHANISM = (
    "this workbook maximises TrimTuner-DT's alpha_T exactly by branch-and-bound over the candidates CEA keeps "
    "(TrimTunerAcquisition.argmax), so with CEA it computes the constraint fantasies of Eq. 5, the costly part, for "
    "one kept candidate, while DIRECT and CMA-ES evaluate alpha_T at every point they visit; the ratio measures "
    "that argmax of the workbook's code (n_fantasised in bench_recommend.csv)")


def dt_row_without_authors(row: dict, reason: str) -> dict:
    """``row`` (a TrimTuner-DT row no value of the authors' code exists for) with ``authors`` None and the reason,
    so that its side, when it differs from the paper, reads *undetermined: reason*
    (:func:`tt_workbook.report.summary.side_of`). A Table IV row is the exception: its ratio is decided by a
    measured mechanism of this workbook's code (:data:`TABLE_IV_DT_MECHANISM`), so its side reads *ours*."""
    out = {**row, "authors": None, "missing": reason}
    if str(row.get("source", "")) == "TrimTuner Table IV":
        out["ours"] = TABLE_IV_DT_MECHANISM
    return out


def outside_authors(baseline: str) -> str:
    """Why the authors' value of a ratio against ``baseline`` mixes in the workbook's code (``outside`` of a row)."""
    label = {"eic": "EIc", "eic-usd": "EIc/USD", "trimtuner-gp": "TrimTuner-GP", "random": "random search"}.get(
        baseline, baseline)
    if baseline == "trimtuner-gp":
        return ("the authors' TrimTuner-GP is not run here (it needs automl's fork of george); the authors' value "
                "is the workbook's TrimTuner-GP against their TrimTuner-DT")
    return (f"{label} is not in the authors' repository; the authors' value is the workbook's {label} against "
            f"their TrimTuner-DT")


def no_like_for_like(baseline: str) -> str:
    """Why a ratio against ``baseline`` (not in the authors' repository) has no value of the authors' code: the
    same quantity from their code alone does not exist, and a ratio of the workbook's baseline over their
    TrimTuner-DT would mix two codes, so it assigns no side."""
    label = {"eic": "EIc", "eic-usd": "EIc/USD"}.get(baseline, baseline)
    return (f"no like-for-like value: {label} is not in the authors' repository, so their code alone gives no "
            f"{label} / TrimTuner-DT ratio, and the workbook's {label} over their TrimTuner-DT would mix two codes "
            "(shown in the note, deciding no side)")


def paper_curve_ratios_text(paper_steps: pd.DataFrame, base: str, label: str) -> str:
    """What the paper's own Fig. 1 curves give for the text's per-test cost ratio of ``base`` over TrimTuner-DT,
    network by network (``paper_steps``: :func:`paper_step_costs` indexed by ``(benchmark, optimizer)``), e.g.
    ``"the text calls its 2.4 an average over three networks, but the paper's own curves give 1.6 (CNN),
    1.2 (RNN), 0.3 (MLP): mean 1.0"``."""
    ratios = {}
    for bench in dict.fromkeys(paper_steps.index.get_level_values(0)):
        if (bench, base) in paper_steps.index and (bench, "trimtuner-dt") in paper_steps.index:
            r = float(paper_steps.loc[(bench, base), "step_cost"]) / float(paper_steps.loc[(bench, "trimtuner-dt"),
                                                                                           "step_cost"])
            if np.isfinite(r):
                ratios[bench] = r
    order = sorted(ratios, key=lambda n: ("cnn", "rnn", "mlp").index(n) if n in ("cnn", "rnn", "mlp") else 9)
    each = ", ".join(f"{ratios[n]:.1f} ({n.upper()})" for n in order)
    missing = [n.upper() for n in dict.fromkeys(paper_steps.index.get_level_values(0)) if n not in ratios]
    return (f"the text calls its {FIG1_TEXT[base]:g} an average over three networks, but the paper's own curves "
            f"give {label} / TrimTuner-DT {each}" + (f" (no {label} step on the {', '.join(missing)})" if missing else "")
            + (f": mean {np.mean(list(ratios.values())):.1f}, not {FIG1_TEXT[base]:g}" if len(ratios) > 1 else ""))


def authors_range_note(authors: pd.DataFrame, bench: str, column: str, fmt: str = "{:.2f}") -> str:
    """``"authors' code: empirical residue, N runs; pos/zero/neg: a/b/c"`` for one benchmark of a
    :func:`tt_workbook.authors.oracle.size_cost_table` by ``("benchmark", ..., "residue")``."""
    a = authors[authors["benchmark"] == bench].set_index("residue")
    if "empirical" not in a.index:
        return ""
    rng = "/".join(fmt.format(float(a.loc[r, column])) if r in a.index else "-" for r in ("pos", "zero", "neg"))
    return (f"authors' code: empirical dH residue, {int(a.loc['empirical', 'runs'])} runs"
            + (f"; its {column.replace('_', ' ')} with the residue pos/zero/neg {rng}" if rng != "-/-/-" else ""))


def fig1_rows(stats: pd.DataFrame, paper_steps: pd.DataFrame, size_mix: pd.DataFrame, alpha_trace: dict | None = None,
              eic_usd: dict | None = None, authors: pd.DataFrame | None = None) -> list[dict]:
    """Comparison rows of notebook 03 (cost per test, sub-sampling rate) with measured causes.

    Parameters
    ----------
    stats : :func:`tt_workbook.studies.fig1_fig2.trajectories.exploration_stats` with ``key="optimizer"``; its ``runs`` column
        (seeds per optimiser) gives each row's ``runs_per_arm``: the fewest runs of the optimisers the row compares
        (below :data:`tt_workbook.report.summary.MIN_RUNS_PER_ARM`: *too few runs*).
    paper_steps : :func:`paper_step_costs` of the paper's Fig. 1 (may be empty: no figure data).
    size_mix : :func:`size_mix` (the share of TrimTuner-DT's BO tests at each size).
    alpha_trace : dict, optional
        ``benchmark -> measured cause`` of the size mix (:func:`tt_workbook.studies.fig1_fig2.alpha_trace.measured_cause` of
        the traced runs, ``fig1_alpha_trace.csv``); it replaces the unmeasured explanation of that benchmark's
        sub-sampling row.
    eic_usd : dict, optional
        ``benchmark -> measured mechanism`` of EIc/USD's choices (:func:`tt_workbook.studies.fig1_fig2.eic_usd.measured_cause`,
        ``fig1_eic_usd_mechanism.csv``), appended to that benchmark's "EIc-USD / TrimTuner-DT" row.
    authors : DataFrame, optional
        :func:`tt_workbook.authors.oracle.size_cost_table` of the authors' public code by
        ``("benchmark", ..., "residue")`` (``fig1_authors_code.csv``): every row then carries the authors' value
        (the ``empirical`` residue; ``pos``/``zero``/``neg`` in the note) and its side
        (:func:`tt_workbook.report.summary.side_of`). An empty frame: the rows say the authors' code was not run.
    """
    a = None
    if authors is not None and len(authors):
        a = authors[authors["residue"] == "empirical"].set_index("benchmark")
    s = stats.set_index(["benchmark", "optimizer"])
    # runs (seeds) behind each optimiser, as exploration_stats counted them from the runs
    counts = {k: int(v) for k, v in s["runs"].items()} if "runs" in s.columns else None
    p = paper_steps.set_index(["benchmark", "optimizer"]) if len(paper_steps) else None
    rows = []
    for bench in stats["benchmark"].unique():
        if (bench, "trimtuner-dt") not in s.index:
            continue
        tt = float(s.loc[(bench, "trimtuner-dt"), "cost_per_test"])
        mean_s = float(s.loc[(bench, "trimtuner-dt"), "mean_s"])
        mix = size_mix[size_mix["benchmark"] == bench]
        smallest = float(mix.sort_values("s")["share"].iloc[0]) if len(mix) else np.nan
        for base, label in (("eic", "EIc"), ("eic-usd", "EIc-USD")):
            if (bench, base) not in s.index:
                continue
            b = float(s.loc[(bench, base), "cost_per_test"])
            over = (f"; {100 * float(s.loc[(bench, base), 'share_over_limit']):.0f}% of {label}'s BO tests cost more "
                    f"than the limit (fig1_exploration_stats.csv)") if "share_over_limit" in s.columns else ""
            cause = (f"per BO test here: {label} ${b:.4f}, TrimTuner-DT ${tt:.4f} (mean size fraction {mean_s:.2f}; "
                     f"{100 * smallest:.0f}% of its tests at the smallest size, fig1_size_mix.csv){over}")
            if p is not None and (bench, base) in p.index and (bench, "trimtuner-dt") in p.index:
                pb, pt = float(p.loc[(bench, base), "step_cost"]), float(p.loc[(bench, "trimtuner-dt"), "step_cost"])
                cause += (f"; the paper's own {bench.upper()} curves of Fig. 1 step ${pb:.4f} ({label}) and ${pt:.4f} "
                          f"(TrimTuner-DT) per test, a ratio of {pb / pt:.1f}, not {FIG1_TEXT[base]:g} "
                          f"(fig1_paper_step_costs.csv); {paper_curve_ratios_text(p, base, label)}. "
                          f"Against those curves our {label} tests cost {b / pb:.2f}x the paper's and our "
                          f"TrimTuner-DT tests {tt / pt:.2f}x")
            if base == "eic-usd" and (eic_usd or {}).get(bench):
                cause += f"; why EIc/USD costs about as much as EIc: {eic_usd[bench]} (fig1_eic_usd_mechanism.csv)"
            row = {"source": "TrimTuner Sec. IV-A", "item": f"{bench}: cost per test, {label} / TrimTuner-DT",
                   "paper": FIG1_TEXT[base], "workbook": b / tt, "factor": 2.0,
                   "note": "paper's text: an average over three networks", "cause": cause,
                   "runs_per_arm": fewest_runs(counts, [(bench, base), (bench, "trimtuner-dt")])}
            if authors is not None:
                row.update(authors=None, missing=no_like_for_like(base))
                if a is not None and bench in a.index:
                    mixed = b / float(a.loc[bench, "cost_per_bo_test"])
                    row["note"] += (f"; not a value of the authors' code: the workbook's {label} over the authors' "
                                    f"TrimTuner-DT per BO test gives {mixed:.1f} (mixed sources, decides no side; "
                                    f"fig1_authors_code.csv)")
            rows.append(_join_note(row))
        row = {"source": "TrimTuner Sec. IV-A", "item": f"{bench}: mean sub-sampling rate of TrimTuner-DT tests",
               "paper": FIG1_TEXT["sub_sampling_rate"], "workbook": mean_s, "factor": 2.0,
               "note": "paper: 'approx. 1/4'",
               "cause": f"the workbook's TrimTuner-DT runs {100 * smallest:.0f}% of its BO tests at the smallest size "
                        f"(1/60) (fig1_size_mix.csv): "
                        + (f"{alpha_trace[bench]} (fig1_alpha_trace.csv)" if (alpha_trace or {}).get(bench) else
                           "in the workbook's code the trees' information gain hardly depends on the size, so "
                           "information per cost favours the cheapest size (a mechanism of this workbook's code)"),
               "runs_per_arm": fewest_runs(counts, [(bench, "trimtuner-dt")])}
        if authors is not None:
            row.update(_authors_fig1(a, authors, bench, mean_s, tt, "mean_size_fraction", "{:.2f}"))
        rows.append(_join_note(row))
    return rows


def _join_note(row: dict) -> dict:
    """The row with its ``note_authors`` moved to the end of its ``note``."""
    extra = row.pop("note_authors", "")
    if extra:
        row["note"] = f"{row['note']}; {extra}" if row.get("note") else extra
    return row


def _authors_fig1(a, authors, bench, mean_s, tt, column, fmt) -> dict:
    """The ``authors``/``deviation``/``missing`` keys of a Fig. 1 row (the empirical residue's value of ``column``),
    and ``note_authors``: the residue range, for the row's note (:func:`_join_note`)."""
    if a is None or bench not in a.index:
        return {"authors": None, "missing": NOT_RUN}
    am, ac = float(a.loc[bench, "mean_size_fraction"]), float(a.loc[bench, "cost_per_bo_test"])
    note = authors_range_note(authors, bench, column, fmt)
    return {"authors": float(a.loc[bench, column]),
            "deviation": (f"{DT_DEVIATION}; BO tests at a mean size fraction {mean_s:.2f} (${tt:.4f} each) here, "
                          f"{am:.2f} (${ac:.4f}) with the authors' code (fig1_authors_code.csv)"),
            "note_authors": note}


def size_mix(runs: pd.DataFrame, benchmarks: dict, optimizer: str = "trimtuner-dt") -> pd.DataFrame:
    """Share of ``optimizer``'s BO tests at each size of the benchmark (sizes never tested: share 0),
    per benchmark; ``s`` is the size fraction."""
    r = runs[(runs["optimizer"] == optimizer) & (runs["phase"] == "bo")]
    rows = []
    for bench, rb in r.groupby("benchmark", sort=False):
        b = benchmarks[bench]
        counts = rb["size"].value_counts()
        rows += [{"benchmark": bench, "optimizer": optimizer, "s": round(size / b.max_size, 4),
                  "share": float(counts.get(size, 0)) / len(rb), "tests": len(rb)} for size in b.sizes]
    return pd.DataFrame(rows)


#: Why Fig. 2's rows are not comparable on a machine without the paper's digitised figures.
NO_FIG2_BARS = "the paper's Fig. 2 bar heights (read from the PDF: ../shared/data/paper_figures) are not on this machine"


def fig2_rows(ours: pd.DataFrame, paper_sav: pd.DataFrame, bars: pd.DataFrame, runs_per_method: int | dict,
              not_comparable: str = "", authors_sav: pd.DataFrame | None = None) -> list[dict]:
    """Comparison rows of Fig. 2 under the paper's reading (mean curves, :func:`tt_workbook.studies.fig1_fig2.savings.curve_savings`).

    Parameters
    ----------
    ours : curve savings of this run's mean curves (``cost_*`` and ``time_*`` columns).
    paper_sav : curve savings of the paper's own Fig. 1 curves (cost only; may be empty).
    bars : the paper's Fig. 2 bar heights (:func:`tt_workbook.studies.fig1_fig2.paper_figures.paper_fig2_bars`).
    runs_per_method : runs behind each of our mean curves: ``(benchmark, optimizer) -> runs``
        (:func:`tt_workbook.report.summary.runs_by_arm` of the runs), or one number for every curve. Each row's
        ``runs_per_arm`` is the fewer of TrimTuner-DT's and the baseline's (below
        :data:`tt_workbook.report.summary.MIN_RUNS_PER_ARM`: *too few runs*).
    not_comparable : the settings that differ from the paper's ("" for the paper profile); when given
        the rows are *not comparable* and name it.
    authors_sav : the same reading with the authors' TrimTuner-DT as the method (``method`` "authors-dt",
        ``fig2_savings_authors_code.csv``), optional: each row then carries the authors' value and its side
        (the baseline is the workbook's: :func:`outside_authors`); an empty frame: the authors' code was not run.
    """
    a = authors_sav.set_index(["benchmark", "baseline"]) if authors_sav is not None and len(authors_sav) else None
    b = bars.set_index(["benchmark", "baseline"]) if len(bars) else None
    ps = paper_sav.set_index(["benchmark", "baseline"]) if len(paper_sav) else None
    rows = []
    for _, r in ours.iterrows():
        key = (r["benchmark"], r["baseline"])
        if b is not None and key not in b.index:
            continue
        # without the paper's bars on this machine the rows still show the workbook's values, not comparable
        nc = not_comparable if b is not None else "; ".join(filter(None, [NO_FIG2_BARS, not_comparable]))
        label = {"eic": "EIc", "eic-usd": "EIc/USD", "trimtuner-gp": "TrimTuner-GP"}.get(r["baseline"], r["baseline"])
        n_runs = fewest_runs(runs_per_method, [(r["benchmark"], r.get("method", "trimtuner-dt")), key])
        for q, fig in (("cost", "2b"), ("time", "2a")):
            paper_val = float(b.loc[key, q]) if b is not None else None
            mine = r[f"{q}_ratio"]
            if pd.isna(r[f"{q}_baseline"]) and pd.notna(r[f"{q}_method"]):
                mine = float("inf")  # the baseline's mean curve never reaches the target within its tests
            reach = (lambda v: f"${v:.4f}" if pd.notna(v) else "never") if q == "cost" else \
                (lambda v: f"{v:.0f} s" if pd.notna(v) else "never")
            cause = (f"the mean curves over {n_runs} runs reach 90% of the optimum at "
                     f"{reach(r[f'{q}_baseline'])} ({label}) and {reach(r[f'{q}_method'])} (TrimTuner-DT) here")
            if q == "cost" and paper_val is not None:
                p_dt = float(ps.loc[key, "cost_method"]) if ps is not None and key in ps.index else np.nan
                cause += (f"; in the paper's Fig. 1 at ${p_dt * paper_val:.4f} (implied by the bar) and ${p_dt:.4f} "
                          f"(fig2_mean_curve.csv)")
            elif q == "time":
                cause += " (training time); the paper draws no time curves"
            row = {"source": f"TrimTuner Fig. {fig}",
                   "item": f"{r['benchmark'].upper()}: {q} saving vs {label} (mean-curve reading)",
                   "paper": paper_val, "workbook": None if pd.isna(mine) else float(mine), "factor": 2.0,
                   "note": f"bar height read from the PDF; 'up to 65x / 50x' is the RNN EIc bar; "
                           f"{n_runs} runs here" + (f"; {cause}" if nc else ""),
                   "cause": cause, "not_comparable": nc, "runs_per_arm": n_runs}
            if authors_sav is not None:
                row["outside"] = outside_authors(r["baseline"])
                if a is None or key not in a.index:
                    row.update(authors=None, missing=NOT_RUN)
                else:
                    ar = a.loc[key]
                    theirs = ar[f"{q}_ratio"]
                    if pd.isna(ar[f"{q}_baseline"]) and pd.notna(ar[f"{q}_method"]):
                        theirs = float("inf")
                    row["authors"] = None if pd.isna(theirs) else float(theirs)
                    row["deviation"] = (f"{DT_DEVIATION}; TrimTuner-DT's mean curve reaches the target at "
                                        f"{reach(r[f'{q}_method'])} here, {reach(ar[f'{q}_method'])} with the "
                                        f"authors' code (fig2_savings_authors_code.csv)")
                    if row["authors"] is None:
                        row["missing"] = ("the authors' TrimTuner-DT mean curve never reaches the target "
                                          "(fig2_savings_authors_code.csv)")
            rows.append(row)
    return rows


def study_not_comparable(optimizer: str, runs: int, benchmark: str, *, paper_optimizer: str,
                         paper_runs: int = 10, paper_benchmark: str = "rnn") -> str:
    """The settings of a Fig. 3 / Fig. 4 row that differ from the paper's, as one line ("" if none)."""
    parts = []
    if optimizer != paper_optimizer:
        parts.append(f"{optimizer} (paper: {paper_optimizer})")
    if benchmark != paper_benchmark:
        parts.append(f"{benchmark.upper()} (the paper's figure is the {paper_benchmark.upper()} only)")
    if runs < paper_runs:
        parts.append(f"{runs} runs per level (paper: {paper_runs})")
    return "; ".join(parts)


def _fig4_claims(r) -> dict:
    """The three Fig. 4 claims (True/False, None when not computable) for one row of
    :func:`tt_workbook.studies.filters_beta.analysis.beta_trend` (hand-checkable: the best level, the sign of rho, Welch's test)."""
    return {
        "no filter gives the best mean Accuracy_C": bool(r["best_level"] == "no filter"),
        "Accuracy_C increases with beta (Spearman rho > 0)":
            bool(r["spearman_rho"] > 0) if pd.notna(r["spearman_rho"]) else None,
        "no significant degradation at beta = 10% vs no filter":
            bool(not (r["welch_p"] < 0.05 and r["no_filter_minus_beta10"] > 0)) if pd.notna(r["welch_p"]) else None,
    }


def fig4_rows(trend: pd.DataFrame, ordering_share: pd.DataFrame, authors_trend: pd.DataFrame | None = None) -> list[dict]:
    """Comparison rows of notebook 07 (Fig. 4's three claims per network), with the authors' code beside.

    Each row carries ``runs_per_arm`` (the fewest runs at one beta): below
    :data:`tt_workbook.report.summary.MIN_RUNS_PER_ARM` its status is *too few runs*, no verdict (with 3 runs a
    level, "no significant degradation" holds almost whatever the truth: Welch's test has little power).

    Parameters
    ----------
    trend : :func:`tt_workbook.studies.filters_beta.analysis.beta_trend` of the workbook's runs (``runs_per_level``, ``optimizer``).
    ordering_share : :func:`tt_workbook.studies.filters_beta.analysis.ordering_bootstrap`: the evidence of a differing ordering.
    authors_trend : the same trend of the authors' public code (``fig4_authors_code_beta_trend.csv``), optional:
        each TrimTuner-DT row then carries the authors' answer and its side; a network it was not run on
        (or an empty frame) says so.
    """
    at = authors_trend.set_index("benchmark") if authors_trend is not None and len(authors_trend) else None

    def evidence(r, claim, holds):
        boot = ordering_share[(ordering_share["benchmark"] == r["benchmark"])
                              & (ordering_share["optimizer"] == r["optimizer"]) & (ordering_share["ordering"] == claim)]
        return "" if holds or not len(boot) else f"{boot['evidence'].iloc[0]} (fig4_ordering_bootstrap.csv)"

    boot_claim = {"no filter gives the best mean Accuracy_C": "no filter is best",
                  "Accuracy_C increases with beta (Spearman rho > 0)": "Spearman rho of beta vs Accuracy_C > 0"}
    rows = []
    for _, r in trend.iterrows():
        net = r["benchmark"].upper()
        note = f"{r['runs_per_level']} runs per beta; paper: RNN, TrimTuner-DT"
        nc = study_not_comparable(r["optimizer"], int(r["runs_per_level"]), r["benchmark"],
                                  paper_optimizer="trimtuner-dt")
        details = {"no filter gives the best mean Accuracy_C": f"best here: {r['best_level']}",
                   "Accuracy_C increases with beta (Spearman rho > 0)":
                       f"rho = {r['spearman_rho']:.2f} (p = {r['spearman_p']:.2g})",
                   "no significant degradation at beta = 10% vs no filter":
                       f"difference {r['no_filter_minus_beta10']:+.3f}, Welch p = {r['welch_p']:.2g}"}
        theirs = _fig4_claims(at.loc[r["benchmark"]]) if at is not None and r["benchmark"] in at.index else None
        for claim, value in _fig4_claims(r).items():
            if value is None:
                continue
            ev = evidence(r, boot_claim[claim], value) if claim in boot_claim else ""
            row = {"source": "TrimTuner Fig. 4", "item": f"{net}: {claim}", "paper": True, "workbook": value,
                   "note": note + f"; {details[claim]}" + (f"; {ev}" if ev and nc else ""),
                   "not_comparable": nc, "runs_per_arm": int(r["runs_per_level"]),
                   **({"cause": ev} if claim in boot_claim else {})}
            if authors_trend is not None and r["optimizer"] == "trimtuner-dt":
                if theirs is None:
                    row.update(authors=None, missing=f"the authors' code was not run on the {net} here")
                else:
                    a = at.loc[r["benchmark"]]
                    row["authors"] = theirs[claim]
                    if theirs[claim] is None:
                        row["missing"] = "not computable from the authors' runs (too few per beta)"
                    row["deviation"] = (f"{DT_DEVIATION}; with the authors' code: best {a['best_level']}, "
                                        f"rho = {a['spearman_rho']:.2f} (fig4_authors_code_beta_trend.csv)")
                    row["note"] += f"; authors' code: {a.get('runs_per_level', '?')} runs per beta, empirical dH residue"
            rows.append(row)
    return rows


#: Fig. 3's baselines and their "as in the authors' code" counterparts (raw parameter box).
RAW_BOX = {"DIRECT": "DIRECT (raw box)", "CMA-ES": "CMA-ES (raw box)"}


def fig3_raw_box_table(per_test: pd.DataFrame, paper_steps: pd.DataFrame, curve_ratios: pd.DataFrame) -> pd.DataFrame:
    """DIRECT and CMA-ES as this workbook runs them and as the authors' code does, per optimiser: cost per
    BO test relative to CEA's (ours; the paper's from the median step of its Fig. 3 curves), share of
    full-size tests, and Fig. 3's mean-curve cost ratio to CEA.

    Parameters
    ----------
    per_test : :func:`tt_workbook.studies.filters_beta.analysis.test_costs` of the default and raw-box runs.
    paper_steps : :func:`paper_step_costs` of the paper's Fig. 3 curves by ``("benchmark", "variant")``.
    curve_ratios : :func:`tt_workbook.studies.fig1_fig2.savings.curve_savings` rows (``optimizer``, ``baseline``,
        ``cost_ratio``) for both kinds of baseline.
    """
    ps = paper_steps.set_index("variant")["step_cost"] if len(paper_steps) else pd.Series(dtype=float)
    rows = []
    for r in per_test[per_test["variant"] != "CEA"].itertuples():
        base = next((b for b, raw in RAW_BOX.items() if r.variant in (b, raw)), None)
        if base is None:
            continue
        cr = curve_ratios[(curve_ratios["optimizer"] == r.optimizer) & (curve_ratios["baseline"] == r.variant)]
        rows.append({"optimizer": r.optimizer, "filter": base, "variant": r.variant,
                     "search": "raw box, one rounded point (authors' code)" if r.variant != base
                     else "encoded box, snapped, best 10% (workbook)",
                     "cost_per_test_x_cea": r.x_reference, "share_full_size": r.share_full,
                     "paper_cost_per_test_x_cea": float(ps.get(base, np.nan) / ps.get("CEA", np.nan)) if len(ps) else np.nan,
                     "mean_curve_cost_ratio": float(cr["cost_ratio"].iloc[0]) if len(cr) else np.nan})
    return pd.DataFrame(rows)


def fig3_raw_box_causes(table: pd.DataFrame, optimizer: str, paper: dict, factor: float = 2.0) -> dict:
    """``{"direct": cause, "cmaes": cause}`` for Fig. 3's mean-curve rows of ``optimizer``: what the
    authors'-code search changes, measured (cost per test vs CEA, share of full-size tests, the mean-curve
    ratio), and whether that ratio then agrees with the paper's (within ``factor``)."""
    out = {}
    t = table[table["optimizer"] == optimizer]
    for base, key in (("DIRECT", "direct"), ("CMA-ES", "cmaes")):
        ours, raw = t[t["variant"] == base], t[t["variant"] == RAW_BOX[base]]
        if ours.empty or raw.empty:
            continue
        o, r = ours.iloc[0], raw.iloc[0]
        ratio = r["mean_curve_cost_ratio"]
        ok = bool(np.isfinite(ratio) and ratio > 0 and max(ratio / paper[key], paper[key] / ratio) <= factor)
        out[key] = (f"search of the acquisition: per BO test {base} costs {o['cost_per_test_x_cea']:.2f}x CEA's here "
                    f"({100 * o['share_full_size']:.0f}% of tests at full size); as in the authors' code (raw box, one "
                    f"rounded point) {r['cost_per_test_x_cea']:.2f}x ({100 * r['share_full_size']:.0f}% at full size; "
                    f"the paper's curves: {r['paper_cost_per_test_x_cea']:.2f}x), and the mean-curve ratio becomes "
                    + (f"{ratio:.2f}" if np.isfinite(ratio) else "not reached")
                    + (" (agrees)" if ok else f" (still differs from {paper[key]:g})") + " (fig3_raw_box.csv)")
    return out


def fig3_median_cause(ratio: float, reached: int, runs: int, baseline: str, held: bool, mean_curve_ratio: float,
                      paper: float, search_cause: str = "", factor: float = 2.0) -> str:
    """Measured cause of a differing Fig. 3 "median over runs" row (the workbook's per-run reading).

    An infinite median means fewer than half of ``baseline``'s ``runs`` reached 90% of the optimum (or, with
    ``held``, stayed there to the end): the cause is the reading, and the paper's reading (mean curves,
    ``mean_curve_ratio``) is quoted with its verdict. A finite median that differs shares the mean-curve
    row's measured cause, ``search_cause`` (:func:`fig3_raw_box_causes`). ``""`` when the row agrees.
    """
    from tt_workbook.report.summary import agree

    if np.isfinite(ratio) and agree(paper, ratio, factor=factor):
        return ""
    if not np.isfinite(ratio):
        ok = bool(np.isfinite(mean_curve_ratio) and agree(paper, mean_curve_ratio, factor=factor))
        mc = f"{mean_curve_ratio:.2f}" if np.isfinite(mean_curve_ratio) else "not reached"
        return (f"reading: only {reached}/{runs} {baseline} runs reach 90% of the optimum"
                + (" and hold it to the end (the workbook's stricter definition)" if held else "")
                + f", so the median over runs is infinite; the paper's reading, its mean curves, gives {mc}"
                + (" (agrees)" if ok else f" (differs from {paper:g})") + " (fig3_savings.csv)")
    return search_cause
