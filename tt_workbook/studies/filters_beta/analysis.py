"""Filter and beta studies (TrimTuner Figs 3-4, Table IV labels): labels, per-run metrics, summaries.

Exact functions of stored runs (:mod:`tt_workbook.studies.filters_beta.specs` makes them).
"""

from __future__ import annotations

from typing import Sequence

import numpy as np
import pandas as pd

from tt_workbook.bench import _pct
from tt_core.data.io import shown

__all__ = ["heuristic_label", "label_runs", "run_metrics", "level_summary", "cost_ratio", "beta_trend", "test_costs",
           "ordering_bootstrap"]

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
    :func:`tt_workbook.studies.fig1_fig2.trajectories.time_to_target`), the cost from which the incumbent *stays* on
    target until the end of the run (``cost_to_target_held``, NaN if it is off target at the end), and
    the median recommendation overhead per iteration. ``runs`` needs ``optimizer`` and ``variant``."""
    from tt_workbook.studies.fig1_fig2.trajectories import best_feasible_accuracy, time_to_target

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
            p = stats.ttest_ind(nof, ten, equal_var=False).pvalue
        else:
            p = np.nan
        rows.append({"benchmark": bench, "optimizer": opt, "value": value, "spearman_rho": rho,
                     "spearman_p": p_rho, "best_level": means.idxmax(),
                     "no_filter_minus_beta10": (nof.mean() - ten.mean()) if len(ten) and len(nof) else np.nan,
                     "welch_p": p, "runs_per_level": int(m.groupby("variant").size().min())})
    return pd.DataFrame(rows)


def _beta_of(variant: str) -> float:
    """beta of a ``label_runs(..., "beta")`` label (``no filter`` = 1)."""
    return 1.0 if variant == "no filter" else float(variant.split()[1].rstrip("%")) / 100.0


def _percent(share: float) -> str:
    """A share in words, never rounded to 0% or 100% unless exact: ``<1%``, ``23%``, ``>99%``."""
    if 0 < share < 0.005:
        return "<1%"
    if 0.995 <= share < 1:
        return ">99%"
    return f"{100 * share:.0f}%"


def _resampled_means(values: np.ndarray, n_boot: int, rng: np.random.Generator) -> np.ndarray:
    """Means of ``n_boot`` resamples (with replacement, same size) of ``values``: shape (n_boot,)."""
    return values[rng.integers(0, values.size, size=(n_boot, values.size))].mean(axis=1)


def _rowwise_spearman(x: np.ndarray, Y: np.ndarray) -> np.ndarray:
    """Spearman rho of ``x`` (n,) against every row of ``Y`` (B, n); NaN where a row (or x) is constant."""
    from scipy.stats import rankdata

    rx = rankdata(x)
    rx = rx - rx.mean()
    ry = rankdata(Y, axis=1)
    ry = ry - ry.mean(axis=1, keepdims=True)
    den = np.sqrt((rx ** 2).sum() * (ry ** 2).sum(axis=1))
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(den > 0, (ry @ rx) / np.where(den > 0, den, 1.0), np.nan)


def ordering_bootstrap(metrics: pd.DataFrame, study: str, n_boot: int = 2000,
                       seed: int | np.random.Generator = 0, value: str = "mean_accuracy_c",
                       method: str = "CEA", baselines: Sequence[str] = ("DIRECT", "CMA-ES", "Random")) -> pd.DataFrame:
    """How often the paper's ordering of Fig. 3 or Fig. 4 holds across bootstrap resamples of the runs.

    Each resample draws, within every level (a filter for Fig. 3, a beta for Fig. 4) and independently,
    as many runs (seeds) as the level has, with replacement, and recomputes the statistic of the
    notebooks from the per-run ``value`` (:func:`run_metrics`; default the BO-phase mean Accuracy_C):

    * ``study="filter"``, TrimTuner (Mendes et al., MASCOTS 2020) Fig. 3: ``method``'s (CEA's) mean
      over runs strictly above each baseline's (DIRECT, CMA-ES, random), each separately and all at once;
    * ``study="beta"``, Fig. 4: the Spearman rho between beta (no filter = 100%) and ``value`` over the
      pooled runs is > 0 (as :func:`beta_trend`), and "no filter" has the strictly largest mean
      (the paper: "the best results are achieved when the no filtering heuristic is employed").

    Parameters
    ----------
    metrics : DataFrame
        :func:`run_metrics` rows (``benchmark, optimizer, variant, seed`` and ``value``); ``variant``
        labelled by :func:`label_runs` for ``study``. Runs whose ``value`` is NaN are left out.
    study : {"filter", "beta"}
    n_boot : int, default 2000
        Number of resamples B.
    seed : int or numpy.random.Generator, default 0
        The resampling's generator (``numpy.random.default_rng(seed)``): the same seed, the same shares.
    value : str, default "mean_accuracy_c"
    method, baselines : str, sequence of str
        Fig. 3 only: the filter expected on top and those it is compared with (absent ones are skipped).

    Returns
    -------
    DataFrame
        One row per benchmark, optimiser and ordering: ``ordering`` (the paper's claim, in words),
        ``observed`` (whether it holds in the runs themselves), ``share`` (fraction of the ``resamples``
        in which it holds), ``runs`` (runs involved) and ``runs_per_level`` (the smallest level's), and
        ``evidence``: the share in words, for the ``cause``/``note`` of a paper-vs-workbook row.
    """
    if study not in ("filter", "beta"):
        raise ValueError(f"study must be 'filter' or 'beta', got {shown(study)}")
    n_boot = int(n_boot)
    if n_boot < 1:
        raise ValueError(f"n_boot must be a positive number of resamples, got {n_boot}")
    rng = np.random.default_rng(seed)
    rows = []

    def add(bench, opt, ordering, observed, holds, levels):
        runs = int(sum(v.size for v in levels))
        share = float(np.mean(holds))
        unit = "filter" if study == "filter" else "level"
        rows.append({"benchmark": bench, "optimizer": opt, "ordering": ordering, "observed": bool(observed),
                     "share": share, "resamples": n_boot, "runs": runs,
                     "runs_per_level": int(min(v.size for v in levels)),
                     "evidence": f"paper's ordering ({ordering}) in {_percent(share)} of {n_boot} bootstrap resamples "
                                 f"of the {runs} runs (resampled within each {unit})"})

    for (bench, opt), m in metrics.groupby(["benchmark", "optimizer"], sort=False):
        m = m[m[value].notna()]
        groups = {v: g[value].to_numpy(float) for v, g in m.groupby("variant", sort=False)}
        if study == "filter":
            if method not in groups:
                continue
            base = [b for b in baselines if b in groups]
            top = _resampled_means(groups[method], n_boot, rng)
            others = {b: _resampled_means(groups[b], n_boot, rng) for b in base}
            for b in base:
                add(bench, opt, f"{method} above {b}", groups[method].mean() > groups[b].mean(), top > others[b],
                    [groups[method], groups[b]])
            if len(base) > 1:
                add(bench, opt, f"{method} above {', '.join(base)} at once",
                    all(groups[method].mean() > groups[b].mean() for b in base),
                    np.logical_and.reduce([top > others[b] for b in base]),
                    [groups[method]] + [groups[b] for b in base])
        else:
            if len(groups) < 2:
                continue
            names = sorted(groups, key=_beta_of)
            x = np.concatenate([np.full(groups[v].size, _beta_of(v)) for v in names])
            draws = {v: groups[v][rng.integers(0, groups[v].size, size=(n_boot, groups[v].size))] for v in names}
            Y = np.concatenate([draws[v] for v in names], axis=1)
            rho_obs = _rowwise_spearman(x, np.concatenate([groups[v] for v in names])[None, :])[0]
            add(bench, opt, "Spearman rho of beta vs Accuracy_C > 0", rho_obs > 0,
                _rowwise_spearman(x, Y) > 0, list(groups.values()))
            if "no filter" in groups:
                others = [v for v in names if v != "no filter"]
                means = {v: draws[v].mean(axis=1) for v in names}
                add(bench, opt, "no filter is best", all(groups["no filter"].mean() > groups[v].mean() for v in others),
                    np.logical_and.reduce([means["no filter"] > means[v] for v in others]), list(groups.values()))
    return pd.DataFrame(rows, columns=["benchmark", "optimizer", "ordering", "observed", "share", "resamples", "runs",
                                       "runs_per_level", "evidence"])




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
