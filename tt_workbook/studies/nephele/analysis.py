"""Aggregating Nephele trajectories as the thesis does (§6.1-6.2, Figs. 6.4-6.13).

The thesis plots, for each optimiser, the 90th percentile over 100 seeds of the incumbent's CNO
(Eq. 6.1) at each exploration against the 90th percentile of the exploration cost (and time) spent up
to that exploration (§6.2: "the 90th percentile of one hundred runs of the CNO of the incumbent
configuration in each iteration in function of the 90th percentile of the exploration cost").
:func:`iteration_curves` builds exactly these curves; :func:`curve_at_cost` is the alternative reading
(percentile of the CNO among runs at a fixed spend), used as a robustness check.

Conventions: before a run's first feasible observation its CNO is +inf (no recommendation), so a
percentile is infinite until enough runs have one; a run that stopped (budget spent) keeps its last
values at later explorations.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

__all__ = ["percentile", "iteration_curves", "curve_at_cost", "equal_spend_curves", "values_at_spend", "cost_to_reach",
           "cost_to_reach_per_run", "reach_ratios", "lookahead_table", "initial_sampling_table", "shared_start",
           "GROUP"]

#: Columns identifying one optimiser variant in a table of runs.
GROUP = ["benchmark", "optimizer", "horizon"]


def percentile(values, q: float, axis: int = 0) -> np.ndarray:
    """Linear-interpolation percentile that treats NaN as +inf (a run without an incumbent).

    Parameters
    ----------
    values : array-like
    q : float in [0, 100]
    axis : int

    Returns
    -------
    ndarray
        ``+inf`` where the interpolation involves an infinite value.
    """
    if not 0 <= q <= 100:
        raise ValueError(f"q must lie in [0, 100], got {q}")
    v = np.array(values, dtype=float)
    v[np.isnan(v)] = np.inf
    v = np.sort(np.moveaxis(v, axis, -1), axis=-1)
    n = v.shape[-1]
    if n == 0:
        raise ValueError("percentile of an empty set")
    pos = (n - 1) * q / 100.0
    lo, hi = int(np.floor(pos)), int(np.ceil(pos))
    frac = pos - lo
    a, b = v[..., lo], v[..., hi]
    with np.errstate(invalid="ignore"):
        out = np.where(np.isinf(a) | np.isinf(b), np.where(frac == 0, a, np.inf), a + (b - a) * frac)
    return out


def _wide(df: pd.DataFrame, column: str) -> pd.DataFrame:
    """Iterations x seeds, runs that stopped padded with their last value."""
    w = df.pivot(index="iteration", columns="seed", values=column).sort_index()
    ended = df.groupby("seed")["iteration"].max()
    for seed in w.columns:  # pad only after the end of each run (a NaN CNO inside a run stays NaN)
        last = w.index > ended[seed]
        w.loc[last, seed] = df.loc[(df["seed"] == seed) & (df["iteration"] == ended[seed]), column].iloc[0]
    return w


def iteration_curves(df: pd.DataFrame, q: float = 90.0, group=GROUP) -> pd.DataFrame:
    """Thesis curves: per exploration number, the ``q``-th percentile over seeds of spend and CNO.

    Parameters
    ----------
    df : pandas.DataFrame
        Trajectories of :func:`tt_core.replay.driver.run_optimization` (many seeds).
    q : float
        Percentile (thesis: 90).
    group : list of str
        Columns of one curve.

    Returns
    -------
    pandas.DataFrame
        Columns ``*group, iteration, cost, time, total_time, cno, cno_space, n_runs, n_active``
        (``n_active``: runs still exploring at that iteration).
    """
    out = []
    for key, g in df.groupby(list(group), sort=True):
        key = key if isinstance(key, tuple) else (key,)
        cols = {}
        for col, name in (("cumulative_cost", "cost"), ("cumulative_time", "time"), ("cumulative_wall", "total_time"),
                          ("cno", "cno"), ("cno_space", "cno_space")):
            w = _wide(g, col)
            cols[name] = percentile(w.to_numpy(), q, axis=1)
        ended = g.groupby("seed")["iteration"].max()
        iters = np.sort(g["iteration"].unique())
        frame = pd.DataFrame({"iteration": iters, **cols})
        frame["n_runs"] = len(ended)
        frame["n_active"] = [(ended >= i).sum() for i in iters]
        for k, v in zip(group, key):
            frame.insert(0, k, v)
        out.append(frame)
    cols = [*group, "iteration", "cost", "time", "total_time", "cno", "cno_space", "n_runs", "n_active"]
    return pd.concat(out, ignore_index=True)[cols] if out else pd.DataFrame(columns=cols)


def curve_at_cost(df: pd.DataFrame, grid, q: float = 90.0, x: str = "cumulative_cost", value: str = "cno",
                  group=GROUP) -> pd.DataFrame:
    """Percentile over seeds of the CNO each run had after spending at most ``x`` (a step function).

    Before a run's first exploration that fits under a grid point the value is +inf.
    """
    grid = np.asarray(grid, dtype=float)
    out = []
    for key, g in df.groupby(list(group), sort=True):
        key = key if isinstance(key, tuple) else (key,)
        vals = [_step_values(r, grid, x, value) for _, r in g.sort_values("iteration").groupby("seed")]
        frame = pd.DataFrame({x: grid, value: percentile(np.array(vals), q, axis=0)})
        for k, v in zip(group, key):
            frame.insert(0, k, v)
        out.append(frame)
    return pd.concat(out, ignore_index=True)


def _step_values(run: pd.DataFrame, grid, x: str, value: str) -> np.ndarray:
    """``value`` of one run (rows in exploration order) after spending at most each ``grid`` point; +inf
    before its first exploration that fits."""
    xs, ys = run[x].to_numpy(), run[value].to_numpy(dtype=float)
    i = np.searchsorted(xs, np.asarray(grid, dtype=float), side="right") - 1
    return np.where(i >= 0, ys[np.clip(i, 0, None)], np.inf)


def values_at_spend(df: pd.DataFrame, spend: float, x: str = "cumulative_cost", value: str = "cno") -> pd.Series:
    """Each run's ``value`` after spending at most ``spend`` (one optimiser's runs; index: seed).

    The per-run view behind one grid point of :func:`curve_at_cost`: its percentile over the seeds is
    that curve's value, its median and mean are the other readings of "the CNO at equal spend".
    """
    return pd.Series({seed: float(_step_values(r, [spend], x, value)[0])
                      for seed, r in df.sort_values("iteration").groupby("seed")}, name=value)


def shared_start(df: pd.DataFrame, target: float, value: str = "cno_space", q: float = 90.0) -> pd.DataFrame:
    """How far the initial sampling alone takes each optimiser towards ``value <= target``.

    One row per (benchmark, optimizer) of the runs without lookahead that have an initial phase:
    ``share_after_init`` (fraction of runs at or below ``target`` after their last initial sample),
    ``init_spend`` and ``spend_to_target`` (the ``q``-th percentiles over runs of the spend at the end of
    the initial sampling and of each run's spend to reach ``target``, +inf for a run that never does),
    ``bo_tests`` and ``bo_test_cost`` (mean number and mean charged cost of the explorations after the
    initial sampling) and ``same_as_lynceus`` (median over seeds of the number of leading explorations
    identical to Lynceus' run of the same seed). When ``spend_to_target`` is close to ``init_spend`` for
    every optimiser, a ratio of spends to ``target`` measures the shared initial budget (thesis §6.2: the
    same B_init for all), not the optimisers' selection rules.
    """
    main = df[(df["horizon"] == 0) & df["phase"].notna()]
    # each run's tested configurations in order, looked up per seed below
    tests = {k: g.to_numpy() for k, g in
             main.sort_values("iteration").groupby(["benchmark", "optimizer", "seed"])["config_id"]}
    rows = []
    for (bench, opt), d in main.groupby(["benchmark", "optimizer"], sort=True):
        init = d[d["phase"] == "init"]
        if init.empty:
            continue
        end = init.sort_values("iteration").groupby("seed").tail(1)
        seeds = sorted(d["seed"].unique())
        reach = d[d[value] <= target].groupby("seed")["cumulative_cost"].min().reindex(seeds)
        bo = d[d["phase"] != "init"]
        same = []
        for seed in seeds:
            a, b = tests[bench, opt, seed], tests.get((bench, "lynceus", seed), np.array([]))
            n = min(len(a), len(b))
            if n:
                diff = np.flatnonzero(a[:n] != b[:n])
                same.append(int(diff[0]) if len(diff) else n)
        rows.append({"benchmark": bench, "optimizer": opt, "target": target, "value": value,
                     "share_after_init": float((end[value] <= target).mean()),
                     "init_spend": float(percentile(end["cumulative_cost"], q)),
                     "spend_to_target": float(percentile(reach.to_numpy(dtype=float), q)),
                     "bo_tests": float(bo.groupby("seed").size().reindex(seeds, fill_value=0).mean()),
                     "bo_test_cost": float(bo["charged_cost"].mean()) if len(bo) else np.nan,
                     "same_as_lynceus": float(np.median(same)) if same else np.nan})
    return pd.DataFrame(rows)


def equal_spend_curves(df: pd.DataFrame, benchmarks, q: float = 90.0, points: int = 200) -> pd.DataFrame:
    """Per benchmark, the runs without lookahead (horizon 0) on one shared spend grid, on both readings of the
    CNO: :func:`curve_at_cost` of ``cno`` (against the optimum at any size) and of ``cno_space`` (against each
    optimiser's own space), side by side.

    The grid has ``points`` log-spaced values from the cheapest first exploration of any run to the largest
    budget, so that every optimiser of a benchmark is read at the same spends.
    """
    out = []
    for b in benchmarks:
        d = df[(df["horizon"] == 0) & (df["benchmark"] == b)]
        grid = np.geomspace(d["cumulative_cost"].min(), d["budget"].max(), points)
        out.append(curve_at_cost(d, grid, q).merge(curve_at_cost(d, grid, q, value="cno_space")))
    return pd.concat(out, ignore_index=True)


def cost_to_reach(curves: pd.DataFrame, target: float, x: str = "cost", value: str = "cno",
                  group=GROUP) -> pd.Series:
    """First ``x`` at which a curve's ``value`` is at most ``target`` (NaN if never), per curve."""
    res = {}
    for key, g in curves.groupby(list(group), sort=True):
        hit = g[g[value] <= target]
        res[key] = float(hit[x].iloc[0]) if len(hit) else np.nan
    s = pd.Series(res, name=f"{x}_to_{value}<={target:g}")
    s.index.names = list(group)
    return s


def cost_to_reach_per_run(df: pd.DataFrame, target: float, x: str = "cumulative_cost", value: str = "cno",
                          group=GROUP) -> pd.DataFrame:
    """Per run: the spend ``x`` at the first exploration whose ``value`` is at most ``target`` (inf if never)."""
    rows = []
    for key, g in df.groupby([*group, "seed"], sort=True):
        g = g.sort_values("iteration")
        hit = g[g[value] <= target]
        rows.append((*key, float(hit[x].iloc[0]) if len(hit) else np.inf))
    return pd.DataFrame(rows, columns=[*group, "seed", x])


def reach_ratios(reach: pd.Series, reference: str = "nephele") -> pd.Series:
    """``reach[opt] / reach[reference]`` within each benchmark (and horizon 0 for the reference)."""
    out = {}
    for key, v in reach.items():
        bench, opt, h = key
        ref = reach.get((bench, reference, 0), np.nan)
        out[key] = v / ref if np.isfinite(ref) and ref > 0 else np.nan
    s = pd.Series(out, name=f"ratio_to_{reference}")
    s.index.names = reach.index.names
    return s


def lookahead_table(df: pd.DataFrame, q: float = 90.0) -> pd.DataFrame:
    """Lookahead study (thesis §6.5): per benchmark and horizon, wall time and optimisation outcome.

    Returns
    -------
    pandas.DataFrame
        ``benchmark, horizon, runs, recommendations`` (BO-phase suggestions), ``wall_per_rec_mean_s``,
        ``wall_per_rec_median_s``, ``wall_per_rec_max_s``, ``overhead_total_s`` (mean per run),
        ``exploration_time_s`` and ``total_time_s`` (mean per run: measured training time, and that plus
        the overhead), ``total_time_ratio`` (over h = 0), ``cost_to_optimum_p{q}`` (spend at which the
        ``q``-th percentile curve reaches CNO = 1), ``final_cno_p{q}``.
    """
    curves = iteration_curves(df, q)
    reach = cost_to_reach(curves, 1.0)
    rows = []
    for (bench, opt, h), g in df.groupby(GROUP, sort=True):
        bo = g[g["phase"] == "bo"]
        last = g.sort_values("iteration").groupby("seed").tail(1)
        rows.append({
            "benchmark": bench, "optimizer": opt, "horizon": h, "runs": g["seed"].nunique(),
            "recommendations": len(bo),
            "wall_per_rec_mean_s": bo["overhead_s"].mean(), "wall_per_rec_median_s": bo["overhead_s"].median(),
            "wall_per_rec_max_s": bo["overhead_s"].max(),
            "overhead_total_s": (last["cumulative_wall"] - last["cumulative_time"]).mean(),
            "exploration_time_s": last["cumulative_time"].mean(), "total_time_s": last["cumulative_wall"].mean(),
            f"cost_to_optimum_p{q:g}": reach.get((bench, opt, h), np.nan),
            f"final_cno_p{q:g}": float(percentile(last["cno"].to_numpy(), q)),
        })
    t = pd.DataFrame(rows)
    if len(t):
        base = t[t["horizon"] == 0].set_index(["benchmark", "optimizer"])["total_time_s"]
        t["total_time_ratio"] = [r.total_time_s / base.get((r.benchmark, r.optimizer), np.nan) for r in t.itertuples()]
    return t


def initial_budget_check(benchmarks: dict, budgets: dict) -> pd.DataFrame:
    """What an initial budget buys by the data alone: the mean cost of a test drawn uniformly at full
    size (Lynceus, CherryPick) and over all sizes (Nephele), and ``budget / mean cost``, the number of
    tests a sampler that draws uniformly can expect to make (thesis Table 6.1's quantity, without any
    optimiser). Used to tell a difference that comes from the measurements' costs from one that comes
    from the sampler.

    Parameters
    ----------
    benchmarks : dict
        Name -> Benchmark.
    budgets : dict
        Name -> B_init (USD).
    """
    rows = []
    for name, bench in benchmarks.items():
        if name not in budgets:
            continue
        t = bench.table
        full = t[t["size"] == bench.max_size]["cost"].to_numpy(float)
        every = t["cost"].to_numpy(float)
        b = float(budgets[name])
        rows.append({"benchmark": name, "initial_budget": b, "mean_cost_full_size": float(full.mean()),
                     "expected_samples_full_size": b / float(full.mean()),
                     "mean_cost_all_sizes": float(every.mean()), "expected_samples_all_sizes": b / float(every.mean())})
    return pd.DataFrame(rows)


def initial_sampling_table(df: pd.DataFrame, n_candidates: dict | None = None) -> pd.DataFrame:
    """Thesis Table 6.1: explorations made and money spent by the initial sampling, per optimiser.

    Parameters
    ----------
    n_candidates : dict, optional
        ``{(benchmark, optimizer): size of its search space}`` to add the percentage sampled.
    """
    init = df[df["phase"] == "init"]
    per_run = init.groupby([*GROUP, "seed"]).agg(n=("iteration", "size"), spent=("charged_cost", "sum")).reset_index()
    t = per_run.groupby(GROUP).agg(runs=("seed", "nunique"), initial_samples_mean=("n", "mean"),
                                   initial_samples_min=("n", "min"), initial_samples_max=("n", "max"),
                                   initial_spent_mean=("spent", "mean")).reset_index()
    if n_candidates:
        t["pct_of_space"] = [100 * r.initial_samples_mean / n_candidates[(r.benchmark, r.optimizer)]
                             if (r.benchmark, r.optimizer) in n_candidates else np.nan for r in t.itertuples()]
    return t
