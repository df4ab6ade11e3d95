"""Does training on a sub-sampled data set lower the cost in production? (thesis §6.3)

The Nephele evaluation (thesis §6.2-6.3) uses QoS constraints on accuracy and training time:
a measured point ``(x, s)`` (configuration ``x`` trained on a data set of size ``s``) is **feasible**
when ``accuracy >= A_min`` and ``training_time <= T_max`` (defaults: 85%, 300 s). The cheapest
feasible point is the optimum. This module computes, exactly from the measurements:

* :func:`subsampling_gain` -- Table 6.2 (feasible points with and without sub-sampling), the
  optimum with and without sub-sampling and the cost reduction of **Eq. 6.2**;
* :func:`cost_reduction_grid` -- Eq. 6.2 over a grid of ``(A_min, T_max)`` (Fig. 6.8);
* :func:`feasible_per_size` -- how many configurations meet each constraint at each size (Fig. 6.9);
* :func:`constraint_crosstab` -- constraint status at a sub-sampled size vs at the full size
  (Tables 6.3 (CNN), 6.4 (RNN)).

Eq. 6.2 and its edge cases
--------------------------
With ``C1`` the cost of the cheapest feasible configuration trained on the full data set (s = 1)
and ``Call`` the cost of the cheapest feasible point over all sizes (s = 1 included, so
``Call <= C1``)::

    cost_reduction = (C1 - Call) / C1                                        (Eq. 6.2)

* the optimum is at the full size -> ``0.0`` (thesis: "Equation 6.2 is equal to 0");
* no feasible point at any size -> ``None`` (status ``"infeasible"``; grey in Fig. 6.8);
* feasible points only at sub-sampled sizes, none at s = 1 -> ``None`` as well (status
  ``"full_size_infeasible"``): Eq. 6.2 is undefined because its reference ``C1`` does not exist,
  and the problem the user actually wants solved (deploy on the full data set) has no solution.
  The thesis greys these cells too: it reports the CNN problem as infeasible below about 60 s,
  which is the shortest full-size training time of an accurate CNN configuration, while 1000-
  and 6000-image CNN runs meet both constraints in 5-20 s. The optimum over all sizes is still
  reported (``optimum_size``, ``optimum_cost_all_sizes``, ``optimum_config``).

Ties in cost are broken towards the larger data set, then the lower ``config_id``.
"""

from __future__ import annotations

import os
from decimal import ROUND_HALF_UP, Decimal

import numpy as np
import pandas as pd

from tt_core.data.benchmarks import Benchmark
from tt_workbook.studies.common import as_benchmark, check_accuracy, check_number, pct, py, require_column
from tt_core.data.io import shown
from tt_core.data.paper_defaults import THESIS_MAX_TIME, THESIS_MIN_ACCURACY

#: Constraint status of a point, in the order of the thesis' Tables 6.3-6.5: (time met?, accuracy met?).
STATUS_LABELS = ("Time/Acc", "notTime/Acc", "Time/notAcc", "notTime/notAcc")
#: Statuses of :func:`subsampling_gain` (and codes of :func:`feasibility_grid`).
STATUSES = ("infeasible", "full_size_infeasible", "full_size_optimal", "subsampling_helps")

#: The QoS constraints of the thesis' Nephele evaluation (§6.2-6.3): ``A_min`` = 85%, ``T_max`` = 300 s.


def _check_constraints(min_accuracy, max_time) -> tuple[float, float]:
    return (check_accuracy("min_accuracy", min_accuracy),
            check_number("max_time", max_time, low=0.0))


def prepared_benchmark(benchmark) -> Benchmark:
    """The benchmark (as :func:`~tt_core.data.benchmarks.as_benchmark`), checked to have cost and training-time values."""
    bench = as_benchmark(benchmark)
    require_column(bench, "cost", "cost")
    require_column(bench, "training_time", "training-time")
    return bench


def feasible_mask(table: pd.DataFrame, min_accuracy: float, max_time: float) -> np.ndarray:
    """Boolean array: which rows meet ``accuracy >= min_accuracy`` and ``training_time <= max_time``."""
    return (table["accuracy"].to_numpy(float) >= min_accuracy) & (table["training_time"].to_numpy(float) <= max_time)


def _cheapest(rows: pd.DataFrame) -> pd.Series | None:
    """The cheapest row; ties -> larger size, then lower config_id (documented in the module)."""
    if rows.empty:
        return None
    order = rows.sort_values(["cost", "size", "config_id"], ascending=[True, False, True], kind="mergesort")
    return order.iloc[0]


def _point(bench: Benchmark, row: pd.Series | None) -> dict | None:
    if row is None:
        return None
    keys = ["config_id", *bench.config_columns, "size", "accuracy", "training_time", "cost"]
    return {k: py(row[k]) for k in keys}


def subsampling_gain(
    benchmark: Benchmark | str | os.PathLike,
    min_accuracy: float = THESIS_MIN_ACCURACY,
    max_time: float = THESIS_MAX_TIME,
) -> dict:
    """Feasible points and production-cost reduction by sub-sampling (thesis Table 6.2, Eq. 6.2).

    Parameters
    ----------
    benchmark : Benchmark or str or path
    min_accuracy : float
        ``A_min``, a fraction in [0, 1] (thesis: 0.85).
    max_time : float
        ``T_max`` in seconds, >= 0 (thesis: 300).

    Returns
    -------
    dict
        ``benchmark, min_accuracy, max_time, n_configs, n_points`` (configurations x sizes);
        ``feasible_all_sizes`` (feasible points over all sizes, thesis Table 6.2 column
        "forall s in D") and ``feasible_all_sizes_pct`` (% of ``n_points``);
        ``feasible_full_size`` (feasible configurations at s = 1) and ``feasible_full_size_pct``
        (% of ``n_configs``);
        ``optimum_size`` (images) and ``optimum_s`` of the cheapest feasible point over all sizes,
        ``optimum_cost_all_sizes`` = C(x*, all s), ``optimum_cost_full_size`` = C(x*, s=1),
        ``cost_ratio`` = C1 / Call, ``cost_reduction`` (Eq. 6.2, a fraction), ``status`` (one of
        :data:`STATUSES`), ``optimum_config`` and ``optimum_config_full_size`` (dicts of the
        configuration and its measured accuracy, time, cost; None when absent).
        See the module docstring for the infeasible cases (``cost_reduction`` None).
    """
    bench = prepared_benchmark(benchmark)
    a, t = _check_constraints(min_accuracy, max_time)
    table = bench.table
    ok = feasible_mask(table, a, t)
    full = (table["size"] == bench.max_size).to_numpy()
    n_configs, n_points = bench.n_configs, len(table)
    best_all = _cheapest(table[ok])
    best_full = _cheapest(table[ok & full])

    c_all = None if best_all is None else float(best_all["cost"])
    c_full = None if best_full is None else float(best_full["cost"])
    if best_all is None:
        status, reduction, ratio = "infeasible", None, None
    elif best_full is None:
        status, reduction, ratio = "full_size_infeasible", None, None
    else:
        reduction = (c_full - c_all) / c_full if c_full > 0 else 0.0
        ratio = c_full / c_all if c_all > 0 else None
        status = "full_size_optimal" if int(best_all["size"]) == bench.max_size else "subsampling_helps"
        if status == "full_size_optimal":
            reduction = 0.0
    return {
        "benchmark": bench.name,
        "min_accuracy": a,
        "max_time": t,
        "n_configs": n_configs,
        "n_points": n_points,
        "feasible_all_sizes": int(ok.sum()),
        "feasible_all_sizes_pct": pct(int(ok.sum()), n_points),
        "feasible_full_size": int((ok & full).sum()),
        "feasible_full_size_pct": pct(int((ok & full).sum()), n_configs),
        "optimum_size": None if best_all is None else int(best_all["size"]),
        "optimum_s": None if best_all is None else float(best_all["s"]),
        "optimum_cost_all_sizes": c_all,
        "optimum_cost_full_size": c_full,
        "cost_ratio": ratio,
        "cost_reduction": reduction,
        "status": status,
        "optimum_config": _point(bench, best_all),
        "optimum_config_full_size": _point(bench, best_full),
    }


def subsampling_table(
    benchmarks=("cnn", "rnn"),
    min_accuracy: float = THESIS_MIN_ACCURACY,
    max_time: float = THESIS_MAX_TIME,
) -> pd.DataFrame:
    """One :func:`subsampling_gain` row per benchmark (workbook values only; CLI-friendly).

    The optimum configurations are flattened to text columns ``optimum`` and ``optimum_full_size``
    (e.g. ``"t2.xlarge x2, learning_rate=0.001, ... @ 6000 images"``).
    """
    rows = []
    for b in benchmarks:
        bench = as_benchmark(b)
        g = subsampling_gain(bench, min_accuracy, max_time)
        flat = {k: v for k, v in g.items() if not k.startswith("optimum_config")}
        for key, col in (("optimum_config", "optimum"), ("optimum_config_full_size", "optimum_full_size")):
            point = g[key]
            flat[col] = "" if point is None else ", ".join(
                f"{c}={point[c]:g}" if isinstance(point[c], float) else f"{c}={point[c]}" for c in bench.config_columns
            ) + f" @ {point['size']} images"
        rows.append(flat)
    return pd.DataFrame(rows)


def _grid_axes(accuracies, times) -> tuple[np.ndarray, np.ndarray]:
    acc = np.asarray(accuracies, dtype=float).ravel()
    tim = np.asarray(times, dtype=float).ravel()
    if acc.size == 0 or tim.size == 0:
        raise ValueError("accuracies and times must each hold at least one value")
    if not np.isfinite(acc).all() or (acc < 0).any() or (acc > 1).any():
        raise ValueError(f"accuracies must be fractions in [0, 1], got {acc.min():g}..{acc.max():g}")
    if not np.isfinite(tim).all() or (tim < 0).any():
        raise ValueError("times must be finite and >= 0 seconds")
    return acc, tim


def _grid(bench: Benchmark, acc: np.ndarray, tim: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Eq. 6.2 and the status code for every (A_min, T_max); rows = accuracies, columns = times."""
    table = bench.table
    a = table["accuracy"].to_numpy(float)
    tt = table["training_time"].to_numpy(float)
    c = table["cost"].to_numpy(float)
    full = (table["size"] == bench.max_size).to_numpy()
    time_ok = tt[None, :] <= tim[:, None]                      # (n_times, n_points)
    reduction = np.full((acc.size, tim.size), np.nan)
    status = np.zeros((acc.size, tim.size), dtype=int)
    for i, thr in enumerate(acc):
        ok = time_ok & (a >= thr)[None, :]
        c_all = np.where(ok, c, np.inf).min(axis=1)
        c_full = np.where(ok & full, c, np.inf).min(axis=1)
        any_all, any_full = np.isfinite(c_all), np.isfinite(c_full)
        status[i] = np.where(any_full, 2, np.where(any_all, 1, 0))
        with np.errstate(invalid="ignore", divide="ignore"):
            r = np.where(c_full > 0, (c_full - c_all) / c_full, 0.0)
        reduction[i] = np.where(any_full, r, np.nan)
        status[i] = np.where(any_full & (c_all < c_full), 3, status[i])
    return reduction, status


def cost_reduction_grid(
    benchmark: Benchmark | str | os.PathLike,
    accuracies,
    times,
) -> pd.DataFrame:
    """Eq. 6.2 for every pair of constraints (thesis Fig. 6.8).

    Parameters
    ----------
    benchmark : Benchmark or str or path
    accuracies : array-like of float
        ``A_min`` values (fractions); the rows of the result.
    times : array-like of float
        ``T_max`` values (seconds); the columns of the result.

    Returns
    -------
    pandas.DataFrame
        Cost reduction (a fraction in [0, 1)) with index ``min_accuracy`` and columns ``max_time``;
        NaN where no configuration is feasible on the full data set (infeasible problem, or
        feasible only with sub-sampling: Eq. 6.2 undefined, see the module docstring). Each cell
        equals ``subsampling_gain(benchmark, a, t)["cost_reduction"]``.
    """
    bench = prepared_benchmark(benchmark)
    acc, tim = _grid_axes(accuracies, times)
    reduction, _ = _grid(bench, acc, tim)
    return pd.DataFrame(reduction, index=pd.Index(acc, name="min_accuracy"), columns=pd.Index(tim, name="max_time"))


def feasibility_grid(
    benchmark: Benchmark | str | os.PathLike,
    accuracies,
    times,
) -> pd.DataFrame:
    """Status code of every pair of constraints, aligned with :func:`cost_reduction_grid`.

    Codes index :data:`STATUSES`: 0 infeasible at every size, 1 feasible only with sub-sampling
    (none at s = 1), 2 optimum at the full size, 3 sub-sampling lowers the cost.
    """
    bench = prepared_benchmark(benchmark)
    acc, tim = _grid_axes(accuracies, times)
    _, status = _grid(bench, acc, tim)
    return pd.DataFrame(status, index=pd.Index(acc, name="min_accuracy"), columns=pd.Index(tim, name="max_time"))


def feasible_per_size(
    benchmark: Benchmark | str | os.PathLike,
    min_accuracy: float = THESIS_MIN_ACCURACY,
    max_time: float = THESIS_MAX_TIME,
) -> pd.DataFrame:
    """Configurations meeting the constraints at each training-set size (thesis Fig. 6.9).

    The thesis' text on Fig. 6.9 discusses, per data-set size, the number of feasible
    configurations, of those meeting the time constraint and of those meeting the accuracy
    constraint; the exclusive counts are given too.

    Returns
    -------
    pandas.DataFrame
        One row per size: ``size, s, n_configs, feasible`` (both constraints), ``time_ok``,
        ``accuracy_ok`` (each constraint, regardless of the other), ``time_only``,
        ``accuracy_only``, ``neither``. ``feasible + time_only + accuracy_only + neither ==
        n_configs``.
    """
    bench = prepared_benchmark(benchmark)
    a, t = _check_constraints(min_accuracy, max_time)
    tab = bench.table
    acc_ok = tab["accuracy"].to_numpy(float) >= a
    time_ok = tab["training_time"].to_numpy(float) <= t
    flags = pd.DataFrame({
        "size": tab["size"].to_numpy(), "feasible": acc_ok & time_ok, "time_ok": time_ok, "accuracy_ok": acc_ok,
        "time_only": time_ok & ~acc_ok, "accuracy_only": acc_ok & ~time_ok, "neither": ~acc_ok & ~time_ok,
    })
    out = flags.groupby("size").sum().astype(int)
    out.insert(0, "n_configs", flags.groupby("size").size().astype(int))
    out = out.reset_index()
    out.insert(1, "s", out["size"] / bench.max_size)
    return out


def _status(table: pd.DataFrame, a: float, t: float) -> pd.Series:
    time_ok = table["training_time"].to_numpy(float) <= t
    acc_ok = table["accuracy"].to_numpy(float) >= a
    code = np.where(time_ok & acc_ok, 0, np.where(acc_ok, 1, np.where(time_ok, 2, 3)))
    return pd.Series(np.asarray(STATUS_LABELS, dtype=object)[code], index=table["config_id"].to_numpy())


def constraint_crosstab(
    benchmark: Benchmark | str | os.PathLike,
    size: int,
    min_accuracy: float = THESIS_MIN_ACCURACY,
    max_time: float = THESIS_MAX_TIME,
    *,
    percent: bool = False,
) -> pd.DataFrame:
    """Constraint status at a sub-sampled size vs at the full size (thesis Tables 6.3, 6.4).

    Parameters
    ----------
    benchmark : Benchmark or str or path
    size : int
        The sub-sampled training-set size (images), one of ``benchmark.sizes``.
    min_accuracy, max_time : float
        The constraints (thesis: 0.85, 300 s).
    percent : bool
        Return % of the configurations instead of counts.

    Returns
    -------
    pandas.DataFrame
        4 x 4, rows = status at the full size (the thesis' "60K"), columns = status at ``size``, both
        in the order :data:`STATUS_LABELS` (Time/Acc, notTime/Acc, Time/notAcc, notTime/notAcc).
        Counts sum to the number of configurations.
    """
    bench = prepared_benchmark(benchmark)
    a, t = _check_constraints(min_accuracy, max_time)
    if isinstance(size, bool) or not isinstance(size, (int, np.integer)):
        raise ValueError(f"size must be a whole number of images, one of {list(bench.sizes)}; got {shown(size)}")
    sub = _status(bench.at_size(int(size)), a, t)
    full = _status(bench.full_size(), a, t)
    full, sub = full.align(sub, join="inner")
    ct = pd.crosstab(
        pd.Categorical(full.to_numpy(), categories=STATUS_LABELS),
        pd.Categorical(sub.to_numpy(), categories=STATUS_LABELS),
        dropna=False,
    ).reindex(index=list(STATUS_LABELS), columns=list(STATUS_LABELS), fill_value=0).astype(int)
    ct.index.name = f"full size ({bench.max_size})"
    ct.columns.name = f"size {int(size)}"
    if percent:
        return 100.0 * ct / len(full)
    return ct


def format_crosstab(counts: pd.DataFrame) -> pd.DataFrame:
    """Cells as the thesis prints them: ``"21.18% (61)"`` (``"0"`` for empty cells); percentages
    of the total, rounded half up to 2 decimals (9/288 -> 3.13%)."""
    total = int(counts.to_numpy().sum())

    def cell(v: int) -> str:
        if not v:
            return "0"
        share = (Decimal(100 * int(v)) / Decimal(total)).quantize(Decimal("0.01"), rounding=ROUND_HALF_UP)
        return f"{share}% ({int(v)})"

    return counts.apply(lambda col: [cell(v) for v in col])


def size_facts(
    benchmark: Benchmark | str | os.PathLike,
    min_accuracy: float = THESIS_MIN_ACCURACY,
    max_time: float = THESIS_MAX_TIME,
) -> dict:
    """Facts the thesis states in the text of §6.3.1 (CNN), computed for any benchmark.

    Returns
    -------
    dict
        ``smallest_feasible_size`` (images; None if nothing is feasible),
        ``dataset_size_reduction_pct`` = 100 (1 - smallest_feasible_size / full size) ("reductions of
        98.33% in the dataset size, while still allowing both constraints to be complied with"),
        ``accuracy_violated_at_smallest_pct``: % of configurations below ``A_min`` at the smallest
        size ("95.83% of the configurations also do not comply with the accuracy constraint").
    """
    bench = prepared_benchmark(benchmark)
    per = feasible_per_size(bench, min_accuracy, max_time)
    sizes = per.loc[per["feasible"] > 0, "size"]
    smallest = int(sizes.min()) if len(sizes) else None
    first = per.iloc[0]
    return {
        "smallest_feasible_size": smallest,
        "dataset_size_reduction_pct": None if smallest is None else 100.0 * (1 - smallest / bench.max_size),
        "accuracy_violated_at_smallest_pct": pct(int(first["n_configs"] - first["accuracy_ok"]), int(first["n_configs"])),
    }


def time_limit_floor(
    benchmark: Benchmark | str | os.PathLike,
    min_accuracy: float = THESIS_MIN_ACCURACY,
    size: int | None = None,
) -> float | None:
    """The smallest ``T_max`` (s) for which some configuration at ``size`` (default: the full size)
    meets ``A_min``: below it the problem is infeasible at that size (thesis §6.3: "when the time
    constraint is lower than approximately 60 seconds, the problem becomes infeasible" for the CNN).
    None when no configuration reaches ``A_min`` at that size."""
    bench = prepared_benchmark(benchmark)
    a = check_accuracy("min_accuracy", min_accuracy)
    rows = bench.full_size() if size is None else bench.at_size(size)
    t = rows.loc[rows["accuracy"] >= a, "training_time"]
    return float(t.min()) if len(t) else None


def accurate_time_range(
    benchmark: Benchmark | str | os.PathLike,
    min_accuracy: float = THESIS_MIN_ACCURACY,
) -> tuple[float, float] | None:
    """(shortest, longest) training time in s of the points (all sizes) with ``accuracy >= A_min``
    (the range of the thesis' Fig. 6.7); None when no point reaches ``A_min``."""
    bench = prepared_benchmark(benchmark)
    a = check_accuracy("min_accuracy", min_accuracy)
    t = bench.table.loc[bench.table["accuracy"] >= a, "training_time"]
    return (float(t.min()), float(t.max())) if len(t) else None
