"""Thesis ch. 7 (Figs 7.1-7.2): Fabulinus against FABOLAS, BO with EIc and BO with EI, read from runs.

Every function takes concatenated trajectories of :func:`tt_workbook.runs.store.load_runs` (columns
``benchmark, optimizer, seed, iteration, phase, cumulative_cost, cumulative_time, cumulative_wall,
overhead_s, incumbent_accuracy, incumbent_cost, accuracy_c_thesis``) and returns a table.

* :func:`panel_curves` -- the four panels of Figs 7.1-7.3: the thesis' Accuracy_C (Eq. 7.1: the
  incumbent's accuracy, 0 when it breaks the cost limit) against (a) exploration cost, (b) exploration
  time, (c) number of explorations and (d) exploration time plus recommendation overhead (§7.1: "the
  exploration time plus the overhead time necessary to compute the acquisition function"). Mean over
  runs with a 95% band; the thesis does not name the statistic (its text speaks of averages).
* :func:`initial_phase` and :func:`initial_cost_reduction` -- what the initial sampling cost
  (§7.3.1: "Fabulinus reduces the cost of the initial sampling phase by approximately 3%").
* :func:`cost_reduction` -- "Fabulinus reduces the cost of the optimization process in X% comparing
  with ...": with a fixed number of tests (the thesis' stop rule, §7.2) the optimisation cost is the
  exploration cost of the whole run, so the reduction is ``100 (1 - C_method / C_baseline)`` of the
  mean total costs (and the ratio ``C_baseline / C_method``, the "up to 6.6x" of ch. 8).
* :func:`time_ratio` -- "Fabulinus consumes 1.06 more time than ...": total time with the overhead,
  method / baseline, beside the same ratio without the overhead.
* :func:`overhead_profile` -- the recommendation overhead at the first and the last BO test
  ("approximately 6 minutes ... more than 12 minutes" on the thesis' machine).
* :func:`constraint_compliance` -- how often the incumbents meet the cost limit and have high
  accuracy (§7.3: Fabolas "always outputs configurations that do not respect the constraint";
  Fabulinus and EIc "always recommend configurations that have high accuracy and ensure the cost
  constraint").
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from tt_workbook.studies.fig1_fig2.trajectories import curves_on_grid

#: Thesis §7.2: "high accuracy" means an accuracy above 85%.
HIGH_ACCURACY = 0.85
#: The four panels of Figs 7.1-7.3: panel -> (trajectory column, axis label).
PANELS = {
    "a": ("cumulative_cost", "exploration cost [USD]"),
    "b": ("cumulative_time", "exploration time [s]"),
    "c": ("iteration", "number of explorations"),
    "d": ("cumulative_wall", "exploration time + overhead [s]"),
}
KEY = "optimizer"


def _check(runs: pd.DataFrame, cols) -> None:
    missing = [c for c in ["benchmark", KEY, "seed", *cols] if c not in runs.columns]
    if missing:
        raise ValueError(f"runs lack column(s) {missing}")


def panel_curves(runs: pd.DataFrame, y: str = "accuracy_c_thesis", n_grid: int = 120) -> pd.DataFrame:
    """Mean and 95% band over runs of ``y`` against each panel's abscissa (Figs 7.1-7.3 (a)-(d)).

    Returns
    -------
    DataFrame with ``panel, benchmark, optimizer, x, mean, lo, hi, n``: panels (a), (b), (d) on a
    log-spaced grid per network, panel (c) at every test number.
    """
    _check(runs, [y, *(c for c, _ in PANELS.values())])
    out = []
    for panel, (col, _) in PANELS.items():
        if col == "iteration":
            frames = [curves_on_grid(rb, x=col, y=y, grid=np.arange(1, int(rb[col].max()) + 1, dtype=float),
                                     by=["benchmark", KEY]) for _, rb in runs.groupby("benchmark", sort=False)]
            c = pd.concat(frames, ignore_index=True)
        else:
            c = curves_on_grid(runs, x=col, y=y, n_grid=n_grid, by=["benchmark", KEY])
        out.append(c.rename(columns={col: "x"}).assign(panel=panel))
    return pd.concat(out, ignore_index=True)[["panel", "benchmark", KEY, "x", "mean", "lo", "hi", "n"]]


def initial_end(runs: pd.DataFrame) -> pd.DataFrame:
    """Per run, the point where the initial sampling ends (the circles of Figs 7.1-7.3): one row per run
    with ``benchmark, optimizer, seed`` and the end's value of every panel's abscissa and of Accuracy_C."""
    _check(runs, ["phase", "iteration"])
    init = runs[runs["phase"] == "init"].sort_values("iteration")
    last = init.groupby(["benchmark", KEY, "seed"], sort=False).tail(1)
    cols = ["benchmark", KEY, "seed", *dict.fromkeys(c for c, _ in PANELS.values()), "accuracy_c_thesis"]
    return last[[c for c in cols if c in last.columns]].reset_index(drop=True)


def initial_phase(runs: pd.DataFrame) -> pd.DataFrame:
    """Per network and optimiser: initial tests per run and the mean charged cost and time of the
    initial sampling (means over runs)."""
    _check(runs, ["phase", "charged_cost", "charged_time"])
    init = runs[runs["phase"] == "init"]
    per_run = init.groupby(["benchmark", KEY, "seed"], sort=False).agg(
        tests=("iteration", "size"), cost=("charged_cost", "sum"), time=("charged_time", "sum"))
    return (per_run.groupby(["benchmark", KEY], sort=False).agg(runs=("tests", "size"), tests=("tests", "mean"),
                                                               cost=("cost", "mean"), time=("time", "mean"))
            .reset_index())


def _reduction_rows(table: pd.DataFrame, value: str, method: str, baselines) -> pd.DataFrame:
    rows = []
    for bench, tb in table.groupby("benchmark", sort=False):
        v = tb.set_index(KEY)[value]
        if method not in v.index:
            continue
        for base in baselines:
            if base not in v.index:
                continue
            m, b = float(v[method]), float(v[base])
            rows.append({"benchmark": bench, "method": method, "baseline": base, f"{value}_method": m,
                         f"{value}_baseline": b, "reduction_pct": 100.0 * (1.0 - m / b) if b > 0 else np.nan,
                         "ratio": b / m if m > 0 else np.nan})
    return pd.DataFrame(rows)


def initial_cost_reduction(runs: pd.DataFrame, method: str = "fabulinus", baselines=("eic", "ei")) -> pd.DataFrame:
    """Reduction of the mean initial-sampling cost, ``100 (1 - C_init,method / C_init,baseline)`` (§7.3)."""
    return _reduction_rows(initial_phase(runs), "cost", method, baselines)


def final_rows(runs: pd.DataFrame) -> pd.DataFrame:
    """The last row of every run."""
    _check(runs, ["iteration"])
    return runs.sort_values("iteration").groupby(["benchmark", KEY, "seed"], sort=False).tail(1)


def cost_reduction(runs: pd.DataFrame, method: str = "fabulinus",
                   baselines=("fabolas", "eic", "ei")) -> pd.DataFrame:
    """Reduction of the optimisation cost: mean total exploration cost of the runs (fixed number of
    tests), ``reduction_pct = 100 (1 - C_method / C_baseline)`` and ``ratio = C_baseline / C_method``.

    Also ``paired_median_pct``: the median over seeds of the per-seed reduction (the runs of one seed
    start from the same configurations), a check that one run does not make the mean.
    """
    _check(runs, ["cumulative_cost"])
    last = final_rows(runs)
    means = last.groupby(["benchmark", KEY], sort=False)["cumulative_cost"].mean().rename("cost").reset_index()
    out = _reduction_rows(means, "cost", method, baselines)
    if out.empty:
        return out
    per_seed = last.pivot_table(index=["benchmark", "seed"], columns=KEY, values="cumulative_cost")
    paired = []
    for r in out.itertuples():
        t = per_seed.loc[r.benchmark]
        paired.append(float(np.nanmedian(100.0 * (1.0 - t[r.method] / t[r.baseline]))))
    return out.assign(paired_median_pct=paired)


def time_ratio(runs: pd.DataFrame, method: str = "fabulinus", baselines=("fabolas", "eic", "ei")) -> pd.DataFrame:
    """Mean total time of the method's runs / the baseline's: with the recommendation overhead
    (``wall_ratio``, the thesis' "time (exploration time + overhead)") and without (``time_ratio``)."""
    _check(runs, ["cumulative_time", "cumulative_wall"])
    last = final_rows(runs)
    means = last.groupby(["benchmark", KEY], sort=False)[["cumulative_time", "cumulative_wall"]].mean()
    rows = []
    for bench in dict.fromkeys(last["benchmark"]):
        if (bench, method) not in means.index:
            continue
        m = means.loc[(bench, method)]
        for base in baselines:
            if (bench, base) not in means.index:
                continue
            b = means.loc[(bench, base)]
            rows.append({"benchmark": bench, "method": method, "baseline": base,
                         "wall_method_s": m["cumulative_wall"], "wall_baseline_s": b["cumulative_wall"],
                         "wall_ratio": m["cumulative_wall"] / b["cumulative_wall"],
                         "time_ratio": m["cumulative_time"] / b["cumulative_time"]})
    return pd.DataFrame(rows)


def overhead_profile(runs: pd.DataFrame) -> pd.DataFrame:
    """Recommendation overhead (seconds) per network and optimiser: median over runs at the first BO
    test and at the last test, mean per BO test, and the share of the total time it takes."""
    _check(runs, ["phase", "iteration", "overhead_s", "cumulative_wall"])
    bo = runs[runs["phase"] == "bo"].sort_values("iteration")
    g = bo.groupby(["benchmark", KEY, "seed"], sort=False)["overhead_s"]
    per_run = pd.DataFrame({"first_s": g.first(), "last_s": g.last(), "mean_s": g.mean()})
    last = final_rows(runs).set_index(["benchmark", KEY, "seed"])
    per_run["share"] = runs.groupby(["benchmark", KEY, "seed"])["overhead_s"].sum() / last["cumulative_wall"]
    return (per_run.groupby(["benchmark", KEY], sort=False)
            .agg(first_bo_s=("first_s", "median"), last_s=("last_s", "median"), mean_bo_s=("mean_s", "mean"),
                 overhead_share=("share", "mean"))
            .reset_index())


def constraint_compliance(runs: pd.DataFrame, max_cost: dict, min_accuracy: float = HIGH_ACCURACY) -> pd.DataFrame:
    """How often the incumbents after the initial sampling meet the cost limit (and have high accuracy).

    Parameters
    ----------
    max_cost : dict
        ``benchmark -> cost limit`` (USD; thesis §7.2: CNN 0.1, RNN 0.02).
    min_accuracy : float
        "High accuracy" (thesis §7.2: 85%).

    Returns
    -------
    DataFrame per network and optimiser: ``feasible_share`` (BO-phase incumbents within the limit),
    ``good_share`` (within the limit and accurate), ``final_feasible`` (runs whose last incumbent is
    within the limit, as a fraction) and ``runs``.
    """
    _check(runs, ["phase", "incumbent_cost", "incumbent_accuracy"])
    rows = []
    for (bench, opt), r in runs.groupby(["benchmark", KEY], sort=False):
        cmax = float(max_cost[bench])
        bo = r[r["phase"] == "bo"]
        feas = (bo["incumbent_cost"] <= cmax).to_numpy()
        good = feas & (bo["incumbent_accuracy"] >= min_accuracy).to_numpy()
        last = final_rows(r)
        rows.append({"benchmark": bench, KEY: opt, "runs": r["seed"].nunique(),
                     "feasible_share": float(feas.mean()) if feas.size else np.nan,
                     "good_share": float(good.mean()) if good.size else np.nan,
                     "final_feasible": float((last["incumbent_cost"] <= cmax).mean())})
    return pd.DataFrame(rows)


def expected_initial_cost_ratio(benchmark, fractions=None) -> dict:
    """What the data alone say about the initial sampling: mean over configurations of the cost of
    testing one configuration at every sub-sampled size, each test charged in full (``in_full``) or as
    one run snapshotted at each size (``snapshot``: the cost at the largest sub-sampled size), divided
    by the mean cost of one full-size test."""
    from tt_core.bo.design import INIT_FRACTIONS, subsampled_sizes
    from tt_core.data.space import ConfigSpace

    space = ConfigSpace.from_benchmark(benchmark)
    sizes = subsampled_sizes(space, INIT_FRACTIONS if fractions is None else fractions)
    t = benchmark.table.pivot_table(index="config_id", columns="size", values="cost")
    full = float(t[space.max_size].mean())
    return {"in_full": float(t[sizes].sum(axis=1).mean()) / full, "snapshot": float(t[max(sizes)].mean()) / full}


def cost_ceiling(benchmark, n_tests: int) -> dict:
    """The most ``n_tests`` distinct full-size tests can cost on these measurements.

    ``costliest``: the summed cost of the ``n_tests`` costliest full-size configurations (no run of BO
    with EIc or EI, which test each configuration once, can spend more); ``most_accurate``: the summed
    cost of the ``n_tests`` most accurate ones (what a purely exploiting, unconstrained search would
    pay); ``grid``: all full-size configurations. Used to test whether a cost reduction the thesis
    reports (``100 (1 - C_Fabulinus / C_baseline)``, §7.3) is reachable with these costs at all.
    """
    t = benchmark.table
    full = t[t["size"] == t["size"].max()]
    n = min(int(n_tests), len(full))
    by_cost = full["cost"].sort_values(ascending=False)
    by_acc = full.sort_values(["accuracy", "cost"], ascending=[False, False])["cost"]
    return {"tests": n, "costliest": float(by_cost.iloc[:n].sum()), "most_accurate": float(by_acc.iloc[:n].sum()),
            "grid": float(full["cost"].sum())}
