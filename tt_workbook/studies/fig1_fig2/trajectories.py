"""Summaries of optimisation trajectories (TrimTuner Figs 1-4).

* :func:`curves_on_grid`: each run's incumbent metric (a step function of cumulative optimisation
  cost) sampled on a common grid, then mean and a 95% confidence band over seeds (Fig. 1, 3, 4).
* :func:`seed_band`: the same curves' median and a quantile band (10-90% by default) over seeds: what a
  typical run does and how far runs spread (the tour's step 5, the report's headline figure).
* :func:`time_to_target`: per run, the optimisation cost and time spent until the first recommendation
  that is feasible with at least ``fraction`` of the best feasible full-size accuracy (Fig. 2).
* :func:`savings`: ratios of those costs/times between a method and baselines.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy import stats

from tt_core.data.benchmarks import Benchmark
from tt_core.data.io import shown

RUN_KEYS = ["benchmark", "variant", "seed"]


def best_feasible_accuracy(benchmark: Benchmark, max_cost: float | None = None) -> float:
    """Highest full-size accuracy among configurations with cost <= max_cost (the optimum)."""
    max_cost = benchmark.max_cost if max_cost is None else max_cost
    full = benchmark.full_size()
    feas = full[full["cost"] <= max_cost]
    if feas.empty:
        raise ValueError(f"no full-size configuration of {shown(benchmark.name)} costs <= {max_cost}")
    return float(feas["accuracy"].max())


def curves_on_grid(runs: pd.DataFrame, x: str = "cumulative_cost", y: str = "accuracy_c",
                   grid: np.ndarray | None = None, n_grid: int = 120, by: list[str] | None = None) -> pd.DataFrame:
    """Sample each run's step curve ``y(x)`` on a log-spaced grid; mean and 95% CI over runs.

    Parameters
    ----------
    runs : DataFrame
        Concatenated trajectories with columns ``benchmark, variant, seed``, ``x`` and ``y``.
    x, y : str
        Abscissa (monotone within a run) and metric.
    grid : array, optional
        Common abscissa; default log-spaced over the runs' range, per benchmark.
    by : list of str
        Groups (default ``["benchmark", "variant"]``).

    Returns
    -------
    DataFrame with columns ``by + [x, "mean", "lo", "hi", "n"]``; a grid point before a run's first
    recommendation does not count for that run (``n`` says how many runs do).
    """
    by = by or ["benchmark", "variant"]
    missing = [c for c in [*by, "seed", x, y] if c not in runs.columns]
    if missing:
        raise ValueError(f"runs lack column(s) {missing}")
    out = []
    for bench, rb in runs.groupby("benchmark", sort=False):
        g = grid
        if g is None:
            lo, hi = rb[x][rb[x] > 0].min(), rb[x].max()
            g = np.geomspace(lo, hi, n_grid)
        for key, rg in rb.groupby(by, sort=False):
            mat = []
            for _, run in rg.groupby("seed", sort=True):
                run = run.sort_values(x)
                idx = np.searchsorted(run[x].to_numpy(), g, side="right") - 1
                vals = np.where(idx >= 0, run[y].to_numpy()[np.clip(idx, 0, None)], np.nan)
                mat.append(vals)
            mat = np.array(mat)
            n = np.sum(~np.isnan(mat), axis=0)
            with np.errstate(invalid="ignore"), np.errstate(all="ignore"):
                import warnings

                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", RuntimeWarning)
                    mean = np.nanmean(mat, axis=0)
                    sem = np.nanstd(mat, axis=0, ddof=1) / np.sqrt(np.maximum(n, 1))
            half = np.where(n > 1, stats.t.ppf(0.975, np.maximum(n - 1, 1)) * sem, 0.0)
            frame = pd.DataFrame({x: g, "mean": mean, "lo": mean - half, "hi": mean + half, "n": n})
            for k, v in zip(by, key if isinstance(key, tuple) else (key,)):
                frame[k] = v
            out.append(frame)
    return pd.concat(out, ignore_index=True)[[*by, x, "mean", "lo", "hi", "n"]]


def _step_values(run: pd.DataFrame, x: str, y: str, grid: np.ndarray) -> np.ndarray:
    """A run's step curve ``y(x)`` at ``grid``: the last value at or before each point, NaN before its first."""
    run = run.sort_values(x, kind="stable")
    idx = np.searchsorted(run[x].to_numpy(), grid, side="right") - 1
    return np.where(idx >= 0, run[y].to_numpy(float)[np.clip(idx, 0, None)], np.nan)


def seed_band(runs: pd.DataFrame, x: str = "cumulative_cost", y: str = "accuracy_c", grid: np.ndarray | None = None,
              n_grid: int = 120, by: list[str] | None = None, quantiles: tuple[float, float] = (0.1, 0.9)) -> pd.DataFrame:
    """Median and a quantile band over seeds of each group's step curves ``y(x)``.

    Each run's curve is sampled on a common grid (the last value at or before each grid point; a run that
    has ended keeps its last recommendation). A group's median and band are given only at grid points where
    every one of its runs has a value and no further than its runs' largest ``x``: before that a part of the
    runs has no recommendation yet, and past it no run of the group spent that much.

    Parameters
    ----------
    runs : DataFrame
        Concatenated trajectories with columns ``by``, ``seed``, ``x`` and ``y``.
    x, y : str
        Abscissa (non-decreasing within a run) and metric.
    grid : array, optional
        Common abscissa; default ``n_grid`` log-spaced points over the runs' positive range.
    by : list of str
        Groups (default ``["benchmark", "variant"]``).
    quantiles : (float, float)
        Lower and upper quantile of the band, in [0, 1] (numpy's linear interpolation between runs).

    Returns
    -------
    DataFrame with columns ``by + [x, "median", "lo", "hi", "n"]``, ``n`` the runs of the group; the
    statistics are NaN where the group is not defined (see above).

    Examples
    --------
    Three runs, each a single step: the band at $2 is over (0.2, 0.5, 0.9).

    >>> import pandas as pd
    >>> runs = pd.DataFrame({"variant": "a", "seed": [1, 2, 3], "cumulative_cost": [1.0, 1.0, 2.0],
    ...                      "accuracy_c": [0.2, 0.5, 0.9]})
    >>> seed_band(runs, grid=[1.0, 2.0], by=["variant"]).round(2).to_dict("list")  # doctest: +NORMALIZE_WHITESPACE
    {'variant': ['a', 'a'], 'cumulative_cost': [1.0, 2.0], 'median': [nan, 0.5], 'lo': [nan, 0.26],
     'hi': [nan, 0.82], 'n': [3, 3]}
    """
    by = by or ["benchmark", "variant"]
    missing = [c for c in [*by, "seed", x, y] if c not in runs.columns]
    if missing:
        raise ValueError(f"runs lack column(s) {missing}")
    q_lo, q_hi = (float(q) for q in quantiles)
    if not 0 <= q_lo <= q_hi <= 1:
        raise ValueError(f"quantiles must satisfy 0 <= lower <= upper <= 1, got {shown(quantiles)}")
    if grid is None:
        positive = runs.loc[runs[x] > 0, x]
        if positive.empty:
            raise ValueError(f"no run has a positive {shown(x)}: give a grid")
        grid = np.geomspace(positive.min(), positive.max(), n_grid)
    grid = np.asarray(grid, dtype=float)
    out = []
    for key, rg in runs.groupby(by, sort=False):
        mat = np.array([_step_values(run, x, y, grid) for _, run in rg.groupby("seed", sort=True)])
        ok = ~np.isnan(mat).any(axis=0) & (grid <= rg[x].max())
        stats_ = np.full((3, grid.size), np.nan)
        if ok.any():
            stats_[:, ok] = np.quantile(mat[:, ok], [0.5, q_lo, q_hi], axis=0)
        frame = pd.DataFrame({x: grid, "median": stats_[0], "lo": stats_[1], "hi": stats_[2], "n": len(mat)})
        for k, v in zip(by, key if isinstance(key, tuple) else (key,)):
            frame[k] = v
        out.append(frame)
    return pd.concat(out, ignore_index=True)[[*by, x, "median", "lo", "hi", "n"]]


def time_to_target(runs: pd.DataFrame, benchmarks: dict[str, Benchmark], fraction: float = 0.9,
                   max_cost: dict[str, float] | None = None) -> pd.DataFrame:
    """Cost and time until the first feasible recommendation with >= ``fraction`` x the optimum.

    Returns one row per run: ``benchmark, variant, seed, reached, iteration, cost, time, wall``
    (``cost``/``time``/``wall`` are NaN when the target was never reached within the run).
    """
    if not 0 < fraction <= 1:
        raise ValueError(f"fraction must lie in (0, 1], got {fraction}")
    rows = []
    for (bench, variant, seed), run in runs.groupby(RUN_KEYS, sort=True):
        b = benchmarks[bench]
        cmax = (max_cost or {}).get(bench, b.max_cost)
        target = fraction * best_feasible_accuracy(b, cmax)
        run = run.sort_values("iteration")
        ok = (run["incumbent_cost"] <= cmax) & (run["incumbent_accuracy"] >= target)
        row = {"benchmark": bench, "variant": variant, "seed": seed, "reached": bool(ok.any()),
               "optimizer": run["optimizer"].iloc[0] if "optimizer" in run else variant}
        if ok.any():
            first = run[ok].iloc[0]
            row.update(iteration=int(first["iteration"]), cost=first["cumulative_cost"],
                       time=first["cumulative_time"], wall=first.get("cumulative_wall", np.nan))
        else:
            row.update(iteration=np.nan, cost=np.nan, time=np.nan, wall=np.nan)
        rows.append(row)
    return pd.DataFrame(rows)


def savings(ttt: pd.DataFrame, method: str, baselines: list[str], stat: str = "median",
            time_col: str = "wall", key: str = "optimizer") -> pd.DataFrame:
    """Ratio baseline / method of the cost and time to target, per benchmark.

    ``time_col``: ``"wall"`` (training time of the tests + recommendation overhead, default) or
    ``"time"`` (training time only). ``key``: the column naming methods (``"optimizer"`` or ``"variant"``).

    Runs that never reached the target are counted with the run's whole budget missing (NaN) and
    excluded from the statistic; the ``reached`` columns say how many runs count.
    """
    if stat not in ("median", "mean"):
        raise ValueError(f"stat must be 'median' or 'mean', got {shown(stat)}")
    if time_col not in ("wall", "time"):
        raise ValueError(f"time_col must be 'wall' or 'time', got {shown(time_col)}")
    if key not in ttt.columns:
        raise ValueError(f"time-to-target table has no column {shown(key)}")
    agg = ttt.groupby(["benchmark", key]).agg(
        cost=("cost", stat), time=(time_col, stat), reached=("reached", "sum"), runs=("reached", "size"))
    rows = []
    for bench in ttt["benchmark"].unique():
        if (bench, method) not in agg.index:
            continue
        m = agg.loc[(bench, method)]
        for base in baselines:
            if (bench, base) not in agg.index:
                continue
            bl = agg.loc[(bench, base)]
            rows.append({"benchmark": bench, "method": method, "baseline": base,
                         "cost_ratio": bl["cost"] / m["cost"], "time_ratio": bl["time"] / m["time"],
                         "method_reached": f"{int(m['reached'])}/{int(m['runs'])}",
                         "baseline_reached": f"{int(bl['reached'])}/{int(bl['runs'])}"})
    return pd.DataFrame(rows)


def exploration_stats(runs: pd.DataFrame, sizes_max: dict[str, int] | None = None, key: str = "variant",
                      max_costs: dict[str, float] | None = None) -> pd.DataFrame:
    """Per benchmark and variant: mean cost of one test after the initial design, mean sub-sampling
    rate of the tests, final Accuracy_C (mean, sd), total optimisation cost, median recommendation time,
    and, with ``max_costs`` (benchmark -> cost limit), ``share_over_limit``: the share of the BO tests
    that cost more than the limit (a test the recommendation could never be)."""
    rows = []
    for (bench, variant), rv in runs.groupby(["benchmark", key], sort=False):
        smax = (sizes_max or {}).get(bench, rv["size"].max())
        bo = rv[rv["phase"] == "bo"]
        last = rv.sort_values("iteration").groupby("seed").tail(1)
        rows.append({
            "benchmark": bench, key: variant, "runs": rv["seed"].nunique(),
            "cost_per_test": bo["cost"].mean() if len(bo) else np.nan,
            "mean_s": (bo["size"] / smax).mean() if len(bo) else np.nan,
            "final_accuracy_c": last["accuracy_c"].mean(), "final_accuracy_c_sd": last["accuracy_c"].std(ddof=1),
            "total_cost": last["cumulative_cost"].mean(),
            "median_overhead_s": bo["overhead_s"].median() if len(bo) else np.nan,
            **({"share_over_limit": float((bo["cost"] > max_costs[bench]).mean()) if len(bo) else np.nan}
               if max_costs and bench in max_costs else {}),
        })
    return pd.DataFrame(rows)
