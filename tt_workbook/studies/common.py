"""Small helpers shared by the analyses (argument checking, JSON-friendly values)."""

from __future__ import annotations

import math
from numbers import Real

import numpy as np

from tt_core.data.benchmarks import Benchmark, as_benchmark, load_benchmark  # noqa: F401
from tt_core.data.io import shown


def check_number(name: str, value, *, low: float | None = None, high: float | None = None,
                 low_open: bool = False) -> float:
    """``value`` as a finite float within the given bounds, else ValueError naming the argument."""
    if isinstance(value, bool) or not isinstance(value, (Real, np.floating, np.integer)):
        raise ValueError(f"{name} must be a number, got {shown(value)}")
    v = float(value)
    if not math.isfinite(v):
        raise ValueError(f"{name} must be finite, got {shown(value)}")
    if low is not None and (v <= low if low_open else v < low):
        raise ValueError(f"{name} must be {'>' if low_open else '>='} {low}, got {shown(value)}")
    if high is not None and v > high:
        raise ValueError(f"{name} must be <= {high}, got {shown(value)}")
    return v


def check_accuracy(name: str, value) -> float:
    """An accuracy threshold: a fraction in [0, 1] (not a percentage)."""
    v = check_number(name, value)
    if not 0.0 <= v <= 1.0:
        hint = f" (did you mean {v / 100:g}? accuracies are fractions)" if 1.0 < v <= 100.0 else ""
        raise ValueError(f"{name} must be a fraction in [0, 1], got {shown(value)}{hint}")
    return v


def require_column(benchmark: Benchmark, column: str, what: str) -> None:
    """Raise ValueError if a benchmark lacks values for ``column`` (generic files may omit cost/time)."""
    values = benchmark.table[column]
    if values.isna().any():
        raise ValueError(
            f"benchmark {shown(benchmark.name)} has no {what} values (column {shown(column)} is empty); "
            f"this analysis needs them"
        )


def py(value):
    """Plain Python scalar (int/float/str/bool/None) for JSON-friendly result dicts."""
    if value is None:
        return None
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float) and math.isnan(value):
        return None
    return value


def pct(part: int, whole: int) -> float:
    """``100 * part / whole`` (0.0 when ``whole`` is 0)."""
    return 100.0 * part / whole if whole else 0.0


def nullable_ints(df, columns):
    """Convert count columns that may hold None (unavailable data) to pandas' nullable Int64."""
    for c in columns:
        if c in df.columns:
            df[c] = df[c].astype("Float64").round().astype("Int64")
    return df
