"""Evaluation metrics of the papers.

* :func:`accuracy_c`: TrimTuner paper Eq. 7, *Accuracy_C*: the accuracy of a recommended
  configuration, scaled down by ``C_max / C`` when it violates the cost constraint.
* :func:`accuracy_c_thesis`: thesis Eq. 7.1 variant: infeasible recommendations score 0.
* :func:`cno`: thesis Eq. 6.1, cost normalised by the optimum's cost.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from tt_core.data.io import shown

if TYPE_CHECKING:  # annotations only
    from tt_core.data.benchmarks import Benchmark


def accuracy_c(accuracy, cost, max_cost):
    """Accuracy_C (TrimTuner Eq. 7).

    Parameters
    ----------
    accuracy, cost : array-like
        True full-size accuracy and cost of the recommended configuration(s).
    max_cost : float
        The cost constraint C_max.

    Returns
    -------
    ndarray or float
        ``accuracy`` where ``cost <= max_cost``, else ``accuracy * max_cost / cost``.
        NaN where there is no recommendation (NaN input).
    """
    if max_cost is None or not np.isfinite(max_cost) or max_cost <= 0:
        raise ValueError(f"max_cost must be a positive number, got {shown(max_cost)}")
    a = np.asarray(accuracy, dtype=float)
    c = np.asarray(cost, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        out = np.where(c <= max_cost, a, a * max_cost / c)
    return out if out.ndim else float(out)


def accuracy_c_thesis(accuracy, cost, max_cost):
    """Thesis Eq. 7.1: accuracy if the recommendation is feasible, else 0."""
    if max_cost is None or not np.isfinite(max_cost) or max_cost <= 0:
        raise ValueError(f"max_cost must be a positive number, got {shown(max_cost)}")
    a = np.asarray(accuracy, dtype=float)
    c = np.asarray(cost, dtype=float)
    out = np.where(np.isnan(a), np.nan, np.where(c <= max_cost, a, 0.0))
    return out if out.ndim else float(out)


def cno(cost, optimum_cost):
    """Cost normalised by the optimum (thesis Eq. 6.1); 1 means the optimum was found."""
    if not optimum_cost > 0:
        raise ValueError(f"optimum_cost must be > 0, got {shown(optimum_cost)}")
    return np.asarray(cost, dtype=float) / optimum_cost


def optimum(benchmark: Benchmark, min_accuracy: float, max_time: float,
            full_size_only: bool = False) -> pd.Series:
    """The cheapest measured point meeting ``A >= A_min`` and ``T <= T_max`` (thesis Eq. 3.1).

    Parameters
    ----------
    full_size_only : bool
        Search only the full training-set size (the optimum of Lynceus' and CherryPick's space).

    Returns
    -------
    pandas.Series
        The benchmark row (config_id, size, accuracy, training_time, cost, ...).
    """
    t = benchmark.table
    if full_size_only:
        t = t[t["size"] == benchmark.max_size]
    feas = t[(t["accuracy"] >= min_accuracy) & (t["training_time"] <= max_time)]
    if feas.empty:
        where = "at the full size" if full_size_only else "at any size"
        raise ValueError(
            f"benchmark {shown(benchmark.name)}: no point meets A >= {min_accuracy} and T <= {max_time} s {where}; "
            "the CNO (thesis Eq. 6.1) is undefined - relax the constraints"
        )
    return feas.loc[feas["cost"].idxmin()]
