"""Does an optimiser's initial design already contain a good configuration? (TrimTuner Fig. 2 bias check)

EIc and EIc/USD start with 4 full-size configurations drawn by Latin-hypercube sampling (paper §IV:
"we sample 4 full data-set configurations using LHS"). If such a design already holds a *good feasible*
configuration (cost within the limit, accuracy >= 0.9 x the optimum: Fig. 2's target), the baseline
reaches Fig. 2's target right after its initial design, and its cost to target is the cost of 4-5
full-size tests. :func:`design_hits` reads each seed's design from the registered optimiser (nothing is
run); :func:`uniform_hit_probability` is the chance that ``k`` configurations drawn uniformly without
replacement from the grid contain at least one good one (hypergeometric), the reference a design
uniform over the grid would give.
"""

from __future__ import annotations

from math import comb

import numpy as np
import pandas as pd


def good_configs(benchmark, fraction: float = 0.9, max_cost: float | None = None) -> np.ndarray:
    """Ids of the full-size configurations that are feasible and reach ``fraction`` x the optimum."""
    from tt_workbook.studies.fig1_fig2.trajectories import best_feasible_accuracy

    cmax = benchmark.max_cost if max_cost is None else max_cost
    full = benchmark.full_size()
    target = fraction * best_feasible_accuracy(benchmark, cmax)
    good = full[(full["cost"] <= cmax) & (full["accuracy"] >= target)]
    return np.sort(good["config_id"].to_numpy(int))


def uniform_hit_probability(n_configs: int, n_good: int, k: int) -> float:
    """P(at least one of ``k`` distinct uniform draws from ``n_configs`` is among ``n_good``):
    ``1 - C(n - g, k) / C(n, k)``."""
    if not (0 <= n_good <= n_configs and 0 <= k <= n_configs):
        raise ValueError(f"need 0 <= n_good <= n_configs and 0 <= k <= n_configs, got {n_good}, {n_configs}, {k}")
    return 1.0 - comb(n_configs - n_good, k) / comb(n_configs, k)


def design_hits(benchmark, optimizer: str, seeds, fraction: float = 0.9) -> pd.DataFrame:
    """Per seed: the full-size configurations of ``optimizer``'s initial design and how many are good.

    Returns
    -------
    DataFrame with ``seed, configs, n_good, hit`` (``hit``: at least one good configuration).
    """
    from tt_core.optimizers import make_optimizer

    good = set(good_configs(benchmark, fraction).tolist())
    rows = []
    for s in seeds:
        opt = make_optimizer(optimizer, benchmark, seed=int(s), max_cost=benchmark.max_cost)
        ids = sorted({int(c) for c, size in opt.initial_pairs})
        n = sum(c in good for c in ids)
        rows.append({"seed": int(s), "configs": ids, "n_good": n, "hit": n > 0})
    return pd.DataFrame(rows)


def design_hit_summary(benchmarks: dict, optimizer: str = "eic", seeds=range(1, 201), fraction: float = 0.9) -> pd.DataFrame:
    """Per benchmark: how often ``optimizer``'s initial design holds a good feasible configuration (with
    a 95% Wilson interval), against the share of good configurations and the probability for the same
    number of uniform draws from the grid."""
    from scipy import stats

    rows = []
    for name, b in benchmarks.items():
        hits = design_hits(b, optimizer, seeds, fraction)
        n, h = len(hits), int(hits["hit"].sum())
        k = int(np.median([len(c) for c in hits["configs"]]))
        n_configs = b.full_size()["config_id"].nunique()
        n_good = len(good_configs(b, fraction))
        ci = stats.binomtest(h, n).proportion_ci(0.95, method="wilson")
        rows.append({"benchmark": name, "optimizer": optimizer, "seeds": n, "design_size": k,
                     "hit_rate": h / n, "hit_lo": ci.low, "hit_hi": ci.high,
                     "good_configs": n_good, "good_share": n_good / n_configs,
                     "uniform_hit_probability": uniform_hit_probability(n_configs, n_good, k)})
    return pd.DataFrame(rows)
