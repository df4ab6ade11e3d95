"""Paper-vs-workbook rows of TrimTuner Fig. 3 (filtering heuristics, notebook 05).

The rows compare the paper's savings of CEA over CMA-ES and DIRECT (3.62x and 7x, the cost to reach 90%
of the optimum) with the workbook's two readings of the runs (the mean-over-runs curves, the paper's
reading, and the median over runs), and the ordering of the filters by their BO-phase mean Accuracy_C.
The measured causes come from :mod:`tt_workbook.studies.fig1_fig2.rows` (the authors'-code search of the
acquisition, ``fig3_raw_box.csv``; the reading, ``fig3_savings.csv``) and from the bootstrap over runs
(``fig3_ordering_bootstrap.csv``).
"""

from __future__ import annotations

import pandas as pd

from tt_workbook import paper_values as pv
from tt_workbook.report.summary import fewest_runs
from tt_workbook.studies.fig1_fig2.rows import (NO_AUTHORS_FILTERS, dt_row_without_authors, fig3_median_cause,
                                              fig3_raw_box_causes, study_not_comparable)

SOURCE = "TrimTuner Fig. 3"
#: Baseline label -> key of the paper's savings (:data:`tt_workbook.paper_values.FIG3`).
PAPER_KEY = {"CMA-ES": "cmaes", "DIRECT": "direct"}


def _nc(optimizer: str, runs_per_optimizer: dict) -> str:
    return study_not_comparable(optimizer, int(runs_per_optimizer[optimizer]), "rnn", paper_optimizer="trimtuner-gp")


def _runs(runs_per_arm: dict | None, optimizer: str, baseline: str) -> int | None:
    """The fewer runs of CEA and ``baseline`` for ``optimizer`` (``runs_per_arm``: ``(optimizer, filter) -> runs``,
    :func:`tt_workbook.report.summary.runs_by_arm` of the run metrics; None: not known)."""
    return fewest_runs(runs_per_arm, [(optimizer, "CEA"), (optimizer, baseline)])


def mean_curve_rows(curve_ratios: pd.DataFrame, runs_per_optimizer: dict, raw_causes: dict,
                    paper: dict | None = None, runs_per_arm: dict | None = None) -> list[dict]:
    """One row per optimiser and paper baseline (CMA-ES, DIRECT) of the mean-curve reading.

    ``curve_ratios``: :func:`tt_workbook.studies.fig1_fig2.savings.curve_savings` rows (``optimizer, baseline,
    cost_method, cost_baseline, cost_ratio``); ``raw_causes``: optimiser -> :func:`fig3_raw_box_causes`.
    The workbook value is the ratio, ``inf`` when CEA reached the target and the baseline never did, and
    None (a paper-only row) when CEA never did.
    """
    paper = pv.FIG3["savings_vs"] if paper is None else paper
    rows = []
    for _, r in curve_ratios.iterrows():
        key = PAPER_KEY.get(r["baseline"])
        if not key:
            continue
        nc = _nc(r["optimizer"], runs_per_optimizer)
        raw_cause = raw_causes.get(r["optimizer"], {}).get(key, "")
        note = (f"mean curves reach it at ${r['cost_method']:.4f} (CEA) and ${r['cost_baseline']:.4f} "
                f"({r['baseline']}); NaN: never")
        workbook = (float(r["cost_ratio"]) if pd.notna(r["cost_ratio"])
                    else (float("inf") if pd.notna(r["cost_method"]) else None))
        rows.append({"source": SOURCE, "item": f"RNN {r['optimizer']}: cost to 90% of optimum, "
                     f"{r['baseline']} / CEA (mean-curve reading, the paper's)", "paper": paper[key],
                     "workbook": workbook, "factor": 2.0,
                     "note": note + (f"; {raw_cause}" if raw_cause and nc else ""),  # in the note too when not comparable
                     "not_comparable": nc, "cause": raw_cause,
                     "runs_per_arm": _runs(runs_per_arm, r["optimizer"], r["baseline"])})
    return rows


def median_rows(ratios: pd.DataFrame, curve_ratios: pd.DataFrame, runs_per_optimizer: dict, raw_causes: dict,
                paper: dict | None = None, runs_per_arm: dict | None = None) -> list[dict]:
    """Rows of the median-over-runs reading (:func:`tt_workbook.studies.filters_beta.analysis.cost_ratio`, both definitions):
    for CMA-ES and DIRECT the saving itself, and for every baseline whether CEA reaches the target cheaper.
    A ratio that is NaN (both medians infinite) gives no row (:func:`no_ratio_lines` says why)."""
    paper = pv.FIG3["savings_vs"] if paper is None else paper
    rows = []
    for _, r in ratios.iterrows():
        if pd.isna(r["ratio"]):
            continue
        key = PAPER_KEY.get(r["baseline"])
        nc = _nc(r["optimizer"], runs_per_optimizer)
        n_runs = _runs(runs_per_arm, r["optimizer"], r["baseline"])
        how = "" if r["definition"] == "first" else " (held to the end)"
        note = (f"{r['optimizer']}: on target in {r['method_reached']}/{r['runs']} CEA runs vs "
                f"{r['baseline_reached']}/{r['runs']}" + ("; paper: TrimTuner-GP" if r["optimizer"] != "trimtuner-gp" else "")
                + ("; workbook's stricter definition" if how else ""))
        if key:
            mc = curve_ratios[(curve_ratios["optimizer"] == r["optimizer"]) & (curve_ratios["baseline"] == r["baseline"])]
            cause = fig3_median_cause(
                float(r["ratio"]), int(r["baseline_reached"]), int(r["runs"]), r["baseline"], bool(how),
                float(mc["cost_ratio"].iloc[0]) if len(mc) and pd.notna(mc["cost_ratio"].iloc[0]) else float("nan"),
                paper[key], raw_causes.get(r["optimizer"], {}).get(key, ""))
            rows.append({"source": SOURCE, "item": f"RNN {r['optimizer']}: cost to 90% of optimum{how}, "
                         f"{r['baseline']} / CEA (median over runs)", "paper": paper[key],
                         "workbook": float(r["ratio"]), "factor": 2.0,
                         "note": note + (f"; {cause}" if cause and nc else ""), "not_comparable": nc, "cause": cause,
                         "runs_per_arm": n_runs})
        rows.append({"source": SOURCE, "item": f"RNN {r['optimizer']}: CEA reaches 90% of optimum{how} "
                     f"cheaper than {r['baseline']}", "paper": True if key else None, "workbook": bool(r["ratio"] > 1.0),
                     "note": note + ("" if key else "; the paper plots random without a number"), "not_comparable": nc,
                     "runs_per_arm": n_runs})
    return rows


def no_ratio_lines(ratios: pd.DataFrame) -> list[str]:
    """Why a median-over-runs saving has no row: neither filter reached the target in most runs."""
    return [f"{r['optimizer']}, {r['baseline']} / CEA ({r['definition']}): no ratio, neither reached the target in "
            f"most runs (CEA {r['method_reached']}/{r['runs']}, {r['baseline']} {r['baseline_reached']}/{r['runs']})"
            for _, r in ratios.iterrows() if pd.isna(r["ratio"])]


def ordering_rows(levels: pd.DataFrame, ordering_share: pd.DataFrame, runs_per_optimizer: dict,
                  runs_per_arm: dict | None = None) -> list[dict]:
    """Per optimiser and filter other than CEA: is CEA's BO-phase mean Accuracy_C above it
    (:func:`tt_workbook.studies.filters_beta.analysis.level_summary`)? The paper says so for DIRECT and CMA-ES (random: no
    claim); a differing ordering carries its bootstrap share (:func:`tt_workbook.studies.filters_beta.analysis.ordering_bootstrap`)."""
    rows = []
    for _, r in levels[levels["variant"] != "CEA"].iterrows():
        cea = levels[(levels["optimizer"] == r["optimizer"]) & (levels["variant"] == "CEA")]
        if not len(cea):
            continue
        nc = _nc(r["optimizer"], runs_per_optimizer)
        above = bool(cea["mean_accuracy_c"].iloc[0] > r["mean_accuracy_c"])
        boot = ordering_share[(ordering_share["optimizer"] == r["optimizer"])
                              & (ordering_share["ordering"] == f"CEA above {r['variant']}")]
        # the bootstrap share as the evidence of a differing ordering (in the note when not comparable)
        evidence = (f"{boot['evidence'].iloc[0]} (fig3_ordering_bootstrap.csv)"
                    if len(boot) and r["variant"] != "Random" and not above else "")
        rows.append({"source": SOURCE, "item": f"RNN {r['optimizer']}: CEA's mean Accuracy_C over the "
                     f"BO phase above {r['variant']}'s", "paper": True if r["variant"] != "Random" else None,
                     "workbook": above,
                     "note": f"{cea['mean_accuracy_c'].iloc[0]:.3f} vs {r['mean_accuracy_c']:.3f}; paper: 'the plot "
                             "confirms the cost-efficiency of the proposed heuristic'"
                             + (f"; {evidence}" if evidence and nc else ""),
                     "not_comparable": nc, "cause": evidence,
                     "runs_per_arm": _runs(runs_per_arm, r["optimizer"], r["variant"])})
    return rows


def fig3_rows(curve_ratios: pd.DataFrame, ratios: pd.DataFrame, levels: pd.DataFrame, ordering_share: pd.DataFrame,
              raw_table: pd.DataFrame, runs_per_optimizer: dict, runs_per_arm: dict | None = None) -> list[dict]:
    """Comparison rows of notebook 05 (rows without a workbook value left out), in the notebook's order:
    the mean-curve savings, the median-over-runs savings and orderings, the filters' ordering; a differing
    TrimTuner-DT row's side is *undetermined* (the authors' code has no DIRECT / CMA-ES filter to run).

    Parameters
    ----------
    curve_ratios : mean-curve savings per optimiser (:func:`tt_workbook.studies.fig1_fig2.savings.curve_savings`).
    ratios : median-over-runs savings (:func:`tt_workbook.studies.filters_beta.analysis.cost_ratio`, both definitions).
    levels : :func:`tt_workbook.studies.filters_beta.analysis.level_summary` per filter.
    ordering_share : :func:`tt_workbook.studies.filters_beta.analysis.ordering_bootstrap` by filter.
    raw_table : :func:`tt_workbook.studies.fig1_fig2.rows.fig3_raw_box_table` (``fig3_raw_box.csv``).
    runs_per_optimizer : optimiser -> runs (seeds) per filter, for the *not comparable* setting.
    runs_per_arm : ``(optimizer, filter) -> runs`` (:func:`tt_workbook.report.summary.runs_by_arm` of the run
        metrics): each row's ``runs_per_arm`` is the fewer of CEA's and the other filter's runs; below
        :data:`tt_workbook.report.summary.MIN_RUNS_PER_ARM` the row is *too few runs*. None: rows state no count.
    """
    paper = pv.FIG3["savings_vs"]
    raw_causes = {o: fig3_raw_box_causes(raw_table, o, paper) for o in curve_ratios["optimizer"].unique()}
    rows = mean_curve_rows(curve_ratios, runs_per_optimizer, raw_causes, runs_per_arm=runs_per_arm)
    rows += median_rows(ratios, curve_ratios, runs_per_optimizer, raw_causes, runs_per_arm=runs_per_arm)
    rows += ordering_rows(levels, ordering_share, runs_per_optimizer, runs_per_arm=runs_per_arm)
    # a TrimTuner-DT row has no value of the authors' code (their DIRECT / CMA-ES are commented out): its side,
    # when it differs, is undetermined
    rows = [dt_row_without_authors(r, NO_AUTHORS_FILTERS) if " trimtuner-dt:" in r["item"] else r for r in rows]
    return [r for r in rows if r["workbook"] is not None]
