"""What each "as in the authors' code" setting changes (TrimTuner Figs. 1-2).

The authors' public code differs from the paper's text, and from this workbook's defaults, in ways that
matter for Figs. 1-2 (``../shared/data/paper_figures/SOURCE.md``). Three are settings of the workbook's
TrimTuner-DT and are run here one at a time:

* the incumbent is the tested configuration of maximum CEA (``incumbent_rule="tested-cea"``);
* each initial sub-sampled test is charged in full (``snapshot_init=False``);
* the initial design is drawn as its own series in Fig. 1, not scored as full-size recommendations
  (:func:`tt_workbook.studies.fig1_fig2.scoring.score_initial_design` with ``how="paper"``).

The fourth, their tree model (zero covariance between a candidate and the representer points, fantasies
that never refit), is not reconstructed: the authors' code itself is run instead
(:mod:`tt_workbook.authors.oracle`, optimiser ``authors-dt``), and its runs are scored here like the
variants' (:func:`variant_effects` takes any stored trajectories).

:data:`VARIANTS` names the runs and the scoring of each variant; :func:`variant_specs` makes the run
specifications and :func:`variant_effects` the table: per variant, the final Accuracy_C (mean and 95%
CI over seeds), how many runs reached Fig. 2's target, the median per-run cost to it (an unreached run
counted at its total cost), and the cost at which the mean-over-runs curve reaches it (Fig. 2's
reading, :mod:`tt_workbook.studies.fig1_fig2.savings`).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from tt_core.data.paper_defaults import TESTS_PER_RUN

#: label -> (optimiser options, scoring of the initial design). The first is the workbook's default.
VARIANTS = {
    "workbook default": ((), "incumbent"),
    "incumbent: max CEA among tested (authors' code)": ((("incumbent_rule", "tested-cea"),), "incumbent"),
    "initial tests charged in full (authors' code)": ((("snapshot_init", False),), "incumbent"),
    "initial design scored as in Fig. 1": ((), "paper"),
    "all three (authors' code)": ((("incumbent_rule", "tested-cea"), ("snapshot_init", False)), "paper"),
}


def variant_specs(seeds, benchmark: str = "rnn", optimizer: str = "trimtuner-dt", iterations: int = TESTS_PER_RUN,
                  labels=None) -> dict:
    """``label -> list of RunSpec`` of each variant (the default runs are Fig. 1's, reused)."""
    from tt_workbook.runs.store import RunSpec

    labels = list(VARIANTS) if labels is None else list(labels)
    unknown = [x for x in labels if x not in VARIANTS]
    if unknown:
        raise ValueError(f"unknown variant(s) {unknown}; known: {list(VARIANTS)}")
    return {lab: [RunSpec(benchmark, optimizer, int(s), iterations=iterations, options=VARIANTS[lab][0])
                  for s in seeds] for lab in labels}


def variant_effects(runs: dict, benchmarks: dict, fraction: float = 0.9) -> pd.DataFrame:
    """One row per variant: ``label -> runs`` (trajectories as stored), each scored as :data:`VARIANTS` says.

    Columns: ``variant, runs, final_accuracy_c, final_accuracy_c_ci`` (95% t half-width),
    ``mean_bo_accuracy_c``, ``reached`` (k/n), ``median_cost_to_target`` (per run; unreached runs at
    their total cost), ``mean_curve_cost_to_target`` (NaN: the mean curve never reaches it),
    ``mean_total_cost``, ``mean_size_fraction`` (tested size / full size over the BO tests) and
    ``cost_per_bo_test`` (USD).
    """
    from scipy import stats

    from tt_workbook.studies.fig1_fig2.savings import first_reach, mean_curve
    from tt_workbook.studies.fig1_fig2.scoring import score_initial_design
    from tt_workbook.studies.fig1_fig2.trajectories import best_feasible_accuracy, time_to_target

    rows = []
    for label, r in runs.items():
        how = VARIANTS[label][1] if label in VARIANTS else "incumbent"
        r = score_initial_design(r, benchmarks, how)
        for bench, rb in r.groupby("benchmark", sort=False):
            target = fraction * best_feasible_accuracy(benchmarks[bench])
            last = rb.sort_values("iteration").groupby("seed").tail(1)
            fin = last["accuracy_c"].to_numpy(float)
            half = stats.t.ppf(0.975, len(fin) - 1) * fin.std(ddof=1) / np.sqrt(len(fin)) if len(fin) > 1 else np.nan
            ttt = time_to_target(rb.assign(variant=label), benchmarks, fraction).set_index("seed")
            total = last.set_index("seed")["cumulative_cost"]
            cost = ttt["cost"].where(ttt["reached"], total.reindex(ttt.index))
            curve = mean_curve(rb.assign(optimizer=label))
            bo = rb[rb["phase"] == "bo"]
            rows.append({"benchmark": bench, "variant": label, "runs": len(fin), "final_accuracy_c": fin.mean(),
                         "final_accuracy_c_ci": half, "mean_bo_accuracy_c": bo["accuracy_c"].mean(),
                         "reached": f"{int(ttt['reached'].sum())}/{len(ttt)}",
                         "median_cost_to_target": float(cost.median()),
                         "mean_curve_cost_to_target": first_reach(curve["cost"], curve["accuracy_c"], target),
                         "mean_total_cost": float(total.mean()),
                         "mean_size_fraction": float((bo["size"] / benchmarks[bench].max_size).mean()),
                         "cost_per_bo_test": float(bo["cost"].mean())})
    return pd.DataFrame(rows)
