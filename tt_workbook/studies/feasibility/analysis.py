"""Feasible configurations under a cost constraint (TrimTuner Table II, thesis Table 7.1).

Both tables look at the configurations trained on the **full** data set (s = 1) only:

* **TrimTuner, Table II** -- a configuration is *feasible* when its training cost is at most the QoS
  limit (``cost <= max_cost``); it has *high accuracy* when it is feasible and its accuracy is at
  least 95% of the accuracy of the most accurate feasible configuration ("within 5%").
* **Thesis, Table 7.1** -- same feasibility; *high accuracy* means ``accuracy >= 0.85`` (a fixed
  threshold), reported both among the feasible configurations and without the cost constraint.

Percentages are of all full-size configurations (288 for the authors' data sets).
"""

from __future__ import annotations

import os

import numpy as np
import pandas as pd

from tt_core.data.benchmarks import Benchmark
from tt_workbook.studies.common import as_benchmark, check_accuracy, check_number, pct, py, require_column
from tt_core.data.io import shown

VARIANTS = ("trimtuner", "thesis")
#: "High accuracy" threshold of the thesis variant (thesis §7.2, Table 7.1: accuracy of at least 85%).
THESIS_HIGH_ACCURACY = 0.85


def feasibility(
    benchmark: Benchmark | str | os.PathLike,
    max_cost: float | None = None,
    variant: str = "trimtuner",
    *,
    min_accuracy: float = THESIS_HIGH_ACCURACY,
    relative_accuracy: float = 0.95,
) -> dict:
    """Count the full-size configurations that satisfy a cost constraint (TrimTuner Table II).

    Parameters
    ----------
    benchmark : Benchmark or str or path
        The measurements (or a registered name such as ``"cnn"``, or a CSV path).
    max_cost : float, optional
        Cost limit in USD per training run; default: the benchmark's own (paper: CNN $0.10,
        RNN $0.02). Must be >= 0.
    variant : {"trimtuner", "thesis"}
        ``"trimtuner"``: high accuracy = feasible and ``accuracy >= relative_accuracy * best``, where
        ``best`` is the highest accuracy of a feasible configuration (TrimTuner Table II).
        ``"thesis"``: high accuracy = ``accuracy >= min_accuracy`` (thesis Table 7.1), counted among
        the feasible configurations (``high_accuracy``) and among all of them
        (``high_accuracy_unconstrained``).
    min_accuracy : float
        Threshold of the thesis variant (fraction, default 0.85).
    relative_accuracy : float
        Fraction of the best feasible accuracy of the TrimTuner variant (default 0.95 = "within 5%").

    Returns
    -------
    dict
        ``benchmark, variant, max_cost, n_configs, feasible, feasible_pct, best_accuracy,
        accuracy_threshold, high_accuracy, high_accuracy_pct``; the thesis variant adds
        ``min_accuracy, high_accuracy_unconstrained, high_accuracy_unconstrained_pct``.
        Percentages are in % of ``n_configs``; ``best_accuracy`` is None when nothing is feasible.

    Raises
    ------
    ValueError
        Unknown benchmark or variant, negative or missing ``max_cost``, thresholds outside [0, 1],
        or a benchmark without cost values.
    """
    if variant not in VARIANTS:
        raise ValueError(f"variant must be one of {VARIANTS}, got {shown(variant)}")
    bench = as_benchmark(benchmark)
    if max_cost is None:
        max_cost = bench.max_cost
    if max_cost is None:
        raise ValueError(
            f"benchmark {shown(bench.name)} has no default cost limit; pass max_cost (USD per training run)"
        )
    max_cost = check_number("max_cost", max_cost, low=0.0)
    require_column(bench, "cost", "cost")
    full = bench.full_size()
    n = len(full)
    acc = full["accuracy"].to_numpy(float)
    feasible = full["cost"].to_numpy(float) <= max_cost
    out = {
        "benchmark": bench.name,
        "variant": variant,
        "max_cost": max_cost,
        "n_configs": n,
        "feasible": int(feasible.sum()),
        "feasible_pct": pct(int(feasible.sum()), n),
        "best_accuracy": py(acc[feasible].max()) if feasible.any() else None,
    }
    if variant == "trimtuner":
        rel = check_number("relative_accuracy", relative_accuracy, low=0.0, high=1.0)
        threshold = rel * out["best_accuracy"] if feasible.any() else None
        high = feasible & (acc >= threshold) if threshold is not None else np.zeros(n, bool)
        out.update(accuracy_threshold=threshold, high_accuracy=int(high.sum()), high_accuracy_pct=pct(int(high.sum()), n))
    else:
        thr = check_accuracy("min_accuracy", min_accuracy)
        accurate = acc >= thr
        high = feasible & accurate
        out.update(
            min_accuracy=thr, accuracy_threshold=thr,
            high_accuracy=int(high.sum()), high_accuracy_pct=pct(int(high.sum()), n),
            high_accuracy_unconstrained=int(accurate.sum()),
            high_accuracy_unconstrained_pct=pct(int(accurate.sum()), n),
        )
    return out


def feasibility_table(
    benchmarks=("cnn", "rnn"),
    variant: str = "trimtuner",
    *,
    max_costs: dict | None = None,
    min_accuracy: float = THESIS_HIGH_ACCURACY,
) -> pd.DataFrame:
    """One :func:`feasibility` row per benchmark (the workbook's values only; CLI-friendly).

    Parameters
    ----------
    benchmarks : iterable of Benchmark or str
    variant : {"trimtuner", "thesis"}
    max_costs : dict, optional
        Cost limit per benchmark name; default: each benchmark's own.
    min_accuracy : float
        Threshold of the thesis variant.
    """
    rows = []
    for b in benchmarks:
        bench = as_benchmark(b)
        limit = (max_costs or {}).get(bench.name)
        rows.append(feasibility(bench, limit, variant, min_accuracy=min_accuracy))
    return pd.DataFrame(rows)

