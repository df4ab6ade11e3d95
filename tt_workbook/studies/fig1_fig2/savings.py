"""TrimTuner Fig. 2: how much cheaper (and faster) TrimTuner-DT reaches 90% of the optimum, read several ways.

The paper: "Figure 2 [reports] the time (2a) and cost (2b) savings that TrimTuner (DT variant) achieves
to identify a configuration whose accuracy is 90% (or more) of the optimal (feasible) solution ... Using
EIc and EIc/USD, the optimization process lasts up to 65x/15x (resp.) and costs up to 50x/10x more."

How the bars were computed is not written. The paper's own mean curves of Fig. 1 (read from the PDF,
:mod:`tt_workbook.studies.fig1_fig2.paper_figures`) settle it: the cost at which each method's **mean-over-runs**
Accuracy_C curve first reaches 0.9 x the optimum, divided by TrimTuner-DT's, reproduces the RNN EIc/USD
bar (12.50 vs 12.5), the RNN TrimTuner-GP bar (2.57 vs 2.6) and the CNN EIc/USD bar (3.30 vs 3.3)
(``tests/test_savings.py``). The paper's curves have one point per test: the mean over runs of the
cumulative cost after the i-th test against the mean Accuracy_C of the incumbent after it
(:func:`mean_curve`), so the reading is iteration-aligned, not cost-aligned. "Up to 65x / 50x" is the
RNN bar (EIc). That reading is :func:`curve_savings`, the primary Fig. 2 statistic of the workbook.

:func:`savings_readings` computes the same savings under every other reading of the words, with
percentile bootstrap confidence intervals over the seeds (resampled jointly, so runs with the same seed
stay paired): ratio of medians and of means of the per-run costs to target, mean of the per-run (same
seed) ratios, the largest per-run ratio, and the mean-curve ratio. A run that never reaches the target
is counted at its total cost (a lower bound on its cost to target; the ``*_reached`` columns say how
many did). "Time" is the cumulative *training* time of the tests (``cumulative_time``): the authors'
logs keep training time and recommendation overhead apart, so Fig. 2a's time is most likely training
time only (``../shared/data/paper_figures/SOURCE.md``).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

#: The readings of "costs up to N x more", in the order the tables show them.
READINGS = ("mean curve", "median over runs", "mean over runs", "mean of per-run ratios", "largest per-run ratio")
#: Quantities of Fig. 2 and the trajectory column each is read from (2a time, 2b cost).
QUANTITIES = {"cost": "cumulative_cost", "time": "cumulative_time"}


def first_reach(x, y, target: float) -> float:
    """The first ``x`` at which ``y >= target`` (points in order), NaN if never (NaN ``y`` never counts)."""
    x = np.asarray(x, dtype=float)
    y = np.asarray(y, dtype=float)
    if x.shape != y.shape:
        raise ValueError(f"x ({x.shape}) and y ({y.shape}) must have the same shape")
    with np.errstate(invalid="ignore"):
        hit = np.flatnonzero(y >= target)
    return float(x[hit[0]]) if hit.size else float("nan")


def mean_curve(runs: pd.DataFrame, by=("benchmark", "optimizer"), y: str = "accuracy_c") -> pd.DataFrame:
    """Iteration-aligned mean curves, as the paper draws Fig. 1: for each group and test number, the
    mean over runs of the cumulative cost and time and of ``y``.

    A run shorter than the others (a budget or the candidates ran out) keeps its last state.

    Returns
    -------
    DataFrame with ``by + ["iteration", "cost", "time", y, "initial", "runs"]``; ``initial`` is True
    when the test belongs to the initial design in every run.
    """
    by = list(by)
    need = [*by, "seed", "iteration", "phase", y, *QUANTITIES.values()]
    missing = [c for c in need if c not in runs.columns]
    if missing:
        raise ValueError(f"runs lack column(s) {missing}")
    out = []
    for key, g in runs.groupby(by, sort=False):
        n_it = int(g["iteration"].max())
        cols = {}
        for name, col in (("cost", QUANTITIES["cost"]), ("time", QUANTITIES["time"]), (y, y)):
            cols[name] = _matrix(g, col, n_it)
        init = _matrix(g.assign(_init=(g["phase"] == "init").astype(float)), "_init", n_it, pad=0.0)
        frame = pd.DataFrame({"iteration": np.arange(1, n_it + 1),
                              **{k: np.nanmean(v, axis=0) for k, v in cols.items()},
                              "initial": (init == 1.0).all(axis=0), "runs": g["seed"].nunique()})
        for k, v in zip(by, key if isinstance(key, tuple) else (key,)):
            frame[k] = v
        out.append(frame)
    if not out:
        return pd.DataFrame(columns=[*by, "iteration", "cost", "time", y, "initial", "runs"])
    return pd.concat(out, ignore_index=True)[[*by, "iteration", "cost", "time", y, "initial", "runs"]]


def _matrix(g: pd.DataFrame, col: str, n_it: int, pad: float | None = None) -> np.ndarray:
    """(runs x n_it) values of ``col`` by seed (sorted) and iteration; a short run repeats its last value
    (``pad`` instead, if given)."""
    rows = []
    for _, r in g.groupby("seed", sort=True):
        v = r.sort_values("iteration")[col].to_numpy(float)
        fill = v[-1] if (pad is None and v.size) else (np.nan if pad is None else pad)
        rows.append(np.concatenate([v, np.full(n_it - v.size, fill)]))
    return np.array(rows)


def curve_savings(curves: pd.DataFrame, targets: dict, method: str, baselines, *, key: str = "optimizer",
                  y: str = "accuracy_c", x: dict | None = None) -> pd.DataFrame:
    """Savings read off mean curves: the first cost (time) at which each curve reaches its benchmark's
    target, baseline / method (the paper's Fig. 2).

    Parameters
    ----------
    curves : DataFrame
        Mean curves, one point per row in order (:func:`mean_curve`, or the paper's own from
        :func:`tt_workbook.studies.fig1_fig2.paper_figures.paper_curves`, with ``y="y", x={"cost": "x"}``).
    targets : dict
        ``benchmark -> target`` (e.g. 0.9 x the best feasible accuracy).
    method, baselines : str, list of str
        Values of the ``key`` column.
    x : dict, optional
        ``quantity -> column`` (default ``{"cost": "cost", "time": "time"}``).

    Returns
    -------
    DataFrame, one row per benchmark and baseline: ``<q>_method``, ``<q>_baseline`` (NaN: the curve
    never reaches the target) and ``<q>_ratio`` for each quantity ``q``.
    """
    x = x or {"cost": "cost", "time": "time"}
    rows = []
    for bench, cb in curves.groupby("benchmark", sort=False):
        if bench not in targets:
            continue
        reach = {}
        for name, c in cb.groupby(key, sort=False):
            reach[name] = {q: first_reach(c[col], c[y], targets[bench]) for q, col in x.items()}
        if method not in reach:
            continue
        for base in baselines:
            if base not in reach:
                continue
            row = {"benchmark": bench, "method": method, "baseline": base, "target": targets[bench]}
            for q in x:
                row[f"{q}_method"], row[f"{q}_baseline"] = reach[method][q], reach[base][q]
                row[f"{q}_ratio"] = reach[base][q] / reach[method][q]
            rows.append(row)
    return pd.DataFrame(rows)


def _run_arrays(runs: pd.DataFrame, seeds, target: float, max_cost: float) -> dict:
    """Per-run matrices (seeds x iterations) of one optimiser: costs, Accuracy_C, whether the incumbent is
    on target (feasible and accuracy >= target), and the per-run cost/time to target (censored at the
    run's total)."""
    g = runs[runs["seed"].isin(seeds)]
    n_it = int(g["iteration"].max())
    ok_col = ((g["incumbent_cost"] <= max_cost) & (g["incumbent_accuracy"] >= target)).astype(float)
    ok = _matrix(g.assign(_ok=ok_col), "_ok", n_it) == 1.0
    out = {"acc": _matrix(g, "accuracy_c", n_it), "ok": ok}
    first = np.where(ok.any(axis=1), ok.argmax(axis=1), n_it - 1)
    out["reached"] = ok.any(axis=1)
    for q, col in QUANTITIES.items():
        m = _matrix(g, col, n_it)
        out[q] = m
        out[f"{q}_run"] = m[np.arange(len(m)), first]
    return out


def _curve_value(a: dict, idx: np.ndarray, q: str, target: float) -> tuple[float, bool]:
    """Cost/time at which the mean curve over runs ``idx`` first reaches ``target`` (censored: the mean
    total)."""
    acc = np.nanmean(a["acc"][idx], axis=0)
    xs = a[q][idx].mean(axis=0)
    v = first_reach(xs, acc, target)
    return (v, True) if np.isfinite(v) else (float(xs[-1]), False)


def _statistics(m: dict, b: dict, idx: np.ndarray, q: str, target: float) -> dict:
    cm, cb = m[f"{q}_run"][idx], b[f"{q}_run"][idx]
    per_run = cb / cm
    vm, _ = _curve_value(m, idx, q, target)
    vb, _ = _curve_value(b, idx, q, target)
    return {"mean curve": vb / vm, "median over runs": np.median(cb) / np.median(cm),
            "mean over runs": cb.mean() / cm.mean(), "mean of per-run ratios": per_run.mean(),
            "largest per-run ratio": per_run.max()}


def savings_readings(runs: pd.DataFrame, benchmarks: dict, method: str = "trimtuner-dt",
                     baselines=("eic", "eic-usd", "random"), *, fraction: float = 0.9, key: str = "optimizer",
                     n_boot: int = 2000, level: float = 0.95, seed: int = 0) -> pd.DataFrame:
    """Fig. 2's savings under every reading (:data:`READINGS`), with bootstrap confidence intervals.

    Parameters
    ----------
    runs : DataFrame
        Trajectories (``benchmark, seed, iteration, phase, accuracy_c, incumbent_accuracy,
        incumbent_cost, cumulative_cost, cumulative_time`` and ``key``), scored as the caller wants
        (see :func:`tt_workbook.studies.fig1_fig2.scoring.score_initial_design`).
    benchmarks : dict
        ``name -> Benchmark`` (the optimum and the cost limit).
    method, baselines : the ``key`` values compared (ratio = baseline / method).
    fraction : float
        Target = ``fraction`` x the best feasible full-size accuracy.
    n_boot, level, seed : bootstrap resamples of the seeds (with replacement, the same resample for every
        optimiser, so same-seed runs stay paired), the interval's level and the resampling seed.

    Returns
    -------
    DataFrame, one row per benchmark, baseline, quantity (``cost``, ``time``) and reading: ``value`` (all
    seeds), ``lo``, ``hi`` (percentile interval), ``runs`` (seeds common to both methods),
    ``method_reached`` / ``baseline_reached`` (runs whose incumbent reached the target, as ``k/n``) and
    ``curve_reached`` (whether both mean curves reach the target; if not, the mean-curve value uses the
    mean total cost and is a bound).
    """
    from tt_workbook.studies.fig1_fig2.trajectories import best_feasible_accuracy

    if not 0 < fraction <= 1:
        raise ValueError(f"fraction must lie in (0, 1], got {fraction}")
    if n_boot < 1:
        raise ValueError(f"n_boot must be >= 1, got {n_boot}")
    rng = np.random.default_rng(seed)
    alpha = (1 - level) / 2
    rows = []
    for bench, rb in runs.groupby("benchmark", sort=False):
        b = benchmarks[bench]
        target = fraction * best_feasible_accuracy(b)
        present = set(rb[key].unique())
        if method not in present:
            continue
        for base in [x for x in baselines if x in present]:
            seeds = sorted(set(rb.loc[rb[key] == method, "seed"]) & set(rb.loc[rb[key] == base, "seed"]))
            if not seeds:
                continue
            m = _run_arrays(rb[rb[key] == method], seeds, target, b.max_cost)
            a = _run_arrays(rb[rb[key] == base], seeds, target, b.max_cost)
            n = len(seeds)
            boots = rng.integers(0, n, size=(n_boot, n))
            for q in QUANTITIES:
                full = _statistics(m, a, np.arange(n), q, target)
                samples = np.array([[s[r] for r in READINGS] for s in (_statistics(m, a, i, q, target) for i in boots)])
                lo, hi = np.nanquantile(samples, [alpha, 1 - alpha], axis=0)
                curve_ok = _curve_value(m, np.arange(n), q, target)[1] and _curve_value(a, np.arange(n), q, target)[1]
                for j, r in enumerate(READINGS):
                    rows.append({"benchmark": bench, "baseline": base, "quantity": q, "reading": r,
                                 "value": full[r], "lo": lo[j], "hi": hi[j], "runs": n,
                                 "method_reached": f"{int(m['reached'].sum())}/{n}",
                                 "baseline_reached": f"{int(a['reached'].sum())}/{n}",
                                 "curve_reached": bool(curve_ok)})
    return pd.DataFrame(rows)


def random_subsets(runs: pd.DataFrame, benchmarks: dict, method: str = "trimtuner-dt",
                   baselines=("eic", "eic-usd"), *, size: int = 10, n_subsets: int = 500, fraction: float = 0.9,
                   key: str = "optimizer", seed: int = 0) -> pd.DataFrame:
    """The mean-curve cost ratio over random subsets of ``size`` seeds (without replacement): how far
    the paper's 10-run reading can move with the choice of seeds. One row per benchmark and baseline:
    the 5th, 50th and 95th percentile, min and max of the ratio over the subsets."""
    from tt_workbook.studies.fig1_fig2.trajectories import best_feasible_accuracy

    rng = np.random.default_rng(seed)
    rows = []
    for bench, rb in runs.groupby("benchmark", sort=False):
        b = benchmarks[bench]
        target = fraction * best_feasible_accuracy(b)
        for base in baselines:
            seeds = sorted(set(rb.loc[rb[key] == method, "seed"]) & set(rb.loc[rb[key] == base, "seed"]))
            if len(seeds) < size:
                continue
            m = _run_arrays(rb[rb[key] == method], seeds, target, b.max_cost)
            a = _run_arrays(rb[rb[key] == base], seeds, target, b.max_cost)
            vals = []
            for _ in range(n_subsets):
                idx = rng.choice(len(seeds), size=size, replace=False)
                vals.append(_curve_value(a, idx, "cost", target)[0] / _curve_value(m, idx, "cost", target)[0])
            v = np.array(vals)
            rows.append({"benchmark": bench, "baseline": base, "seeds": len(seeds), "subset_size": size,
                         "subsets": n_subsets, "min": v.min(), "p5": np.quantile(v, 0.05),
                         "median": np.median(v), "p95": np.quantile(v, 0.95), "max": v.max()})
    return pd.DataFrame(rows)
