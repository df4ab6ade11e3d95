"""Filter and beta studies (TrimTuner Figs 3-4, Table IV labels): labels, per-run metrics, summaries.

Exact functions of stored runs (:mod:`tt_core.experiments.studies` makes them).
"""

from __future__ import annotations

from typing import Sequence

import numpy as np
import pandas as pd

from tt_core.experiments.bench import _pct
from tt_core.data.io import shown

__all__ = ["heuristic_label", "label_runs", "run_metrics", "level_summary", "cost_ratio", "beta_trend", "test_costs"]

_FILTER_LABELS = {"cea": "CEA", "direct": "DIRECT", "cmaes": "CMA-ES", "random": "Random", "none": "no filter",
                  "direct-raw": "DIRECT (raw box)", "cmaes-raw": "CMA-ES (raw box)"}


def heuristic_label(filter: str, beta: float) -> str:
    """Display name of a filter setting as in Table IV: ``no filter``, ``CEA (10%)``, ``CMA-ES (10%)``..."""
    if filter == "none":
        return "no filter"
    return f"{_FILTER_LABELS.get(filter, filter)} ({_pct(float(beta))})"


def label_runs(runs: pd.DataFrame, study: str) -> pd.DataFrame:
    """A copy of ``runs`` whose ``variant`` column names the study's factor (``filter`` or ``beta``)."""
    if study not in ("filter", "beta"):
        raise ValueError(f"study must be 'filter' or 'beta', got {shown(study)}")
    out = runs.copy()
    filt = out["filter"].where(out["filter"].notna(), "cea").astype(str)
    if study == "filter":
        out["variant"] = [_FILTER_LABELS.get(f, f) for f in filt]
    else:
        out["variant"] = ["no filter" if f == "none" else f"beta {_pct(float(b))}" for f, b in zip(filt, out["beta"])]
    return out


def run_metrics(runs: pd.DataFrame, benchmarks: dict, fraction: float = 0.9) -> pd.DataFrame:
    """One row per run: final Accuracy_C, mean Accuracy_C over the BO phase, cost to reach ``fraction``
    of the optimum (first feasible incumbent with that accuracy, the paper's definition,
    :func:`tt_core.analysis.trajectories.time_to_target`), the cost from which the incumbent *stays* on
    target until the end of the run (``cost_to_target_held``, NaN if it is off target at the end), and
    the median recommendation overhead per iteration. ``runs`` needs ``optimizer`` and ``variant``."""
    from tt_core.analysis.trajectories import best_feasible_accuracy, time_to_target

    rows = []
    for (bench, opt), ro in runs.groupby(["benchmark", "optimizer"], sort=False):
        ttt = time_to_target(ro, benchmarks, fraction).set_index(["variant", "seed"])
        for (variant, seed), r in ro.groupby(["variant", "seed"], sort=False):
            r = r.sort_values("iteration")
            bo = r[r["phase"] == "bo"]
            t = ttt.loc[(variant, seed)]
            # sustained: from the first iteration after which the incumbent stays on target to the end
            b = benchmarks[bench]
            target = fraction * best_feasible_accuracy(b)
            ok = ((r["incumbent_cost"] <= b.max_cost) & (r["incumbent_accuracy"] >= target)).to_numpy()
            held = np.logical_and.accumulate(ok[::-1])[::-1]
            rows.append({"benchmark": bench, "optimizer": opt, "variant": variant, "seed": seed,
                         "final_accuracy_c": float(r["accuracy_c"].iloc[-1]),
                         "mean_accuracy_c": float(bo["accuracy_c"].mean()) if len(bo) else np.nan,
                         "reached": bool(t["reached"]), "cost_to_target": float(t["cost"]),
                         "held": bool(held.any()),
                         "cost_to_target_held": float(r["cumulative_cost"].to_numpy()[held.argmax()])
                         if held.any() else np.nan,
                         "total_cost": float(r["cumulative_cost"].iloc[-1]),
                         "median_overhead_s": float(bo["overhead_s"].median()) if len(bo) else np.nan})
    return pd.DataFrame(rows)


def level_summary(metrics: pd.DataFrame, order: Sequence[str] | None = None) -> pd.DataFrame:
    """Per benchmark, optimiser and level (``variant``): mean and 95% CI of the final and BO-phase mean
    Accuracy_C, median cost to target (runs that never reached it excluded; ``reached`` says how many
    did) and median overhead per iteration."""
    from scipy import stats

    rows = []
    for (bench, opt, variant), m in metrics.groupby(["benchmark", "optimizer", "variant"], sort=False):
        row = {"benchmark": bench, "optimizer": opt, "variant": variant, "runs": len(m)}
        for col in ("final_accuracy_c", "mean_accuracy_c"):
            v = m[col].dropna().to_numpy()
            half = stats.t.ppf(0.975, len(v) - 1) * v.std(ddof=1) / np.sqrt(len(v)) if len(v) > 1 else np.nan
            row[col] = v.mean() if len(v) else np.nan
            row[col + "_ci"] = half
        row["reached"] = f"{int(m['reached'].sum())}/{len(m)}"
        row["median_cost_to_target"] = m["cost_to_target"].median()
        row["held"] = f"{int(m['held'].sum())}/{len(m)}"
        row["median_cost_to_target_held"] = m["cost_to_target_held"].median()
        row["median_overhead_s"] = m["median_overhead_s"].median()
        rows.append(row)
    out = pd.DataFrame(rows)
    if order:
        rank = {v: i for i, v in enumerate(order)}
        out = out.sort_values(["benchmark", "optimizer", "variant"], key=lambda c: c.map(rank) if c.name == "variant"
                              else c.map({x: i for i, x in enumerate(dict.fromkeys(out[c.name]))}), kind="stable")
    return out.reset_index(drop=True)


def cost_ratio(metrics: pd.DataFrame, baseline: str, method: str = "CEA", held: bool = False) -> pd.DataFrame:
    """Per benchmark and optimiser: median cost to target of ``baseline`` / that of ``method`` (the paper's
    "CEA achieves a 3.62x savings"). A run that never reached the target within its budget counts as
    infinitely expensive (censored), so a median over mostly censored runs is ``inf``. ``held=True``
    uses the cost from which the target is held until the end of the run."""
    cost_col, ok_col = ("cost_to_target_held", "held") if held else ("cost_to_target", "reached")
    rows = []
    for (bench, opt), m in metrics.groupby(["benchmark", "optimizer"], sort=False):
        cost = m[cost_col].where(m[ok_col], np.inf)
        med = cost.groupby(m["variant"]).median()
        if baseline in med and method in med:
            rows.append({"benchmark": bench, "optimizer": opt, "definition": "held" if held else "first",
                         "method": method, "baseline": baseline,
                         "method_cost": med[method], "baseline_cost": med[baseline],
                         "ratio": med[baseline] / med[method],
                         "method_reached": int(m.loc[m["variant"] == method, ok_col].sum()),
                         "baseline_reached": int(m.loc[m["variant"] == baseline, ok_col].sum()),
                         "runs": int((m["variant"] == method).sum())})
    return pd.DataFrame(rows)


def beta_trend(metrics: pd.DataFrame, value: str = "mean_accuracy_c") -> pd.DataFrame:
    """Per benchmark and optimiser: Spearman correlation between beta (no filter = 1) and ``value`` over
    runs, the best level, and a Welch t-test of beta 10% against no filter (the paper: "no significant
    degradation for values of beta as low as 10%")."""
    from scipy import stats

    def beta_of(v):
        return 1.0 if v == "no filter" else float(v.split()[1].rstrip("%")) / 100.0

    rows = []
    for (bench, opt), m in metrics.groupby(["benchmark", "optimizer"], sort=False):
        b = m["variant"].map(beta_of)
        rho, p_rho = stats.spearmanr(b, m[value]) if b.nunique() > 1 else (np.nan, np.nan)
        means = m.groupby("variant")[value].mean()
        ten, nof = m.loc[m["variant"] == "beta 10%", value], m.loc[m["variant"] == "no filter", value]
        if len(ten) > 1 and len(nof) > 1 and (ten.std() > 0 or nof.std() > 0):
            t, p = stats.ttest_ind(nof, ten, equal_var=False)
        else:
            t, p = np.nan, np.nan
        rows.append({"benchmark": bench, "optimizer": opt, "value": value, "spearman_rho": rho,
                     "spearman_p": p_rho, "best_level": means.idxmax(),
                     "no_filter_minus_beta10": (nof.mean() - ten.mean()) if len(ten) and len(nof) else np.nan,
                     "welch_p": p, "runs_per_level": int(m.groupby("variant").size().min())})
    return pd.DataFrame(rows)




def test_costs(runs: pd.DataFrame, reference: str = "CEA") -> pd.DataFrame:
    """Per benchmark, optimiser and variant: the BO tests' mean cost (USD per test), its ratio to the
    ``reference`` variant's (same benchmark and optimiser), and the share of tests at the smallest and at
    the largest (full) size. The sizes are those present in ``runs``' tests."""
    bo = runs[runs["phase"] == "bo"]
    rows = []
    for (bench, opt), rb in bo.groupby(["benchmark", "optimizer"], sort=False):
        smallest, full = runs.loc[runs["benchmark"] == bench, "size"].min(), runs.loc[runs["benchmark"] == bench, "size"].max()
        for variant, rv in rb.groupby("variant", sort=False):
            rows.append({"benchmark": bench, "optimizer": opt, "variant": variant, "tests": len(rv),
                         "cost_per_test": float(rv["cost"].mean()), "share_smallest": float((rv["size"] == smallest).mean()),
                         "share_full": float((rv["size"] == full).mean())})
    out = pd.DataFrame(rows)
    if out.empty:
        return out
    ref = out[out["variant"] == reference].set_index(["benchmark", "optimizer"])["cost_per_test"]
    out["x_reference"] = [r.cost_per_test / ref.get((r.benchmark, r.optimizer), np.nan) for r in out.itertuples()]
    return out
