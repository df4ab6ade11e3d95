"""Objectives: what an optimiser's suggestion is evaluated by.

* :class:`ReplayObjective` answers from a measured benchmark table, charging the measured cost and
  training time (the papers' simulation methodology).
* :class:`CallableObjective` wraps a user's own training function, so the same optimisers can tune a
  real job: ``fn(config: dict, size: int) -> {"accuracy": ..., "cost": ..., "time": ...}``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Protocol

import numpy as np

from tt_core.data.benchmarks import Benchmark
from tt_core.data.io import shown
from tt_core.data.space import plain_values


@dataclass(frozen=True)
class Measurement:
    accuracy: float
    cost: float
    time: float


class Objective(Protocol):
    def __call__(self, config_id: int, size: int) -> Measurement: ...


class ReplayObjective:
    """Replays a benchmark: the measurement of (configuration, size) is the table's row."""

    def __init__(self, benchmark: Benchmark):
        self.benchmark = benchmark
        t = benchmark.table
        self._index = {(int(c), int(s)): i for i, (c, s) in enumerate(zip(t["config_id"], t["size"]))}
        self._acc = t["accuracy"].to_numpy(float)
        self._cost = t["cost"].to_numpy(float)
        self._time = t["training_time"].to_numpy(float)

    def __call__(self, config_id: int, size: int) -> Measurement:
        key = (int(config_id), int(size))
        if key not in self._index:
            raise ValueError(
                f"benchmark {shown(self.benchmark.name)} has no measurement of configuration {config_id} at size "
                f"{size}; sizes: {list(self.benchmark.sizes)}, configurations 0..{self.benchmark.n_configs - 1}"
            )
        i = self._index[key]
        return Measurement(float(self._acc[i]), float(self._cost[i]), float(self._time[i]))

    def at(self, config_id: int, size: int) -> Measurement:
        """The measurement of ``(config_id, size)`` (the same as calling the objective)."""
        return self(config_id, size)

    def full_size(self, config_id: int) -> Measurement:
        """True full-size measurement (used to score recommendations)."""
        return self(config_id, self.benchmark.max_size)


class CallableObjective:
    """A user's training job: ``fn(config, size)`` returns accuracy, cost and/or time.

    Parameters
    ----------
    fn : callable
        ``fn(config: dict, size: int) -> dict`` with keys ``accuracy`` and ``cost`` and/or ``time``.
    configs : pandas.DataFrame
        One row per configuration (``config_id`` + configuration columns), e.g. ``benchmark.configs()``.

    The job receives each configuration as plain Python values, one type per column as in ``configs``: an
    integer column gives ``int`` s (also when the row's other values are floats), a missing value ``None``
    (:func:`tt_core.data.space.plain_values`).
    """

    def __init__(self, fn: Callable[[dict, int], dict], configs):
        if not callable(fn):
            raise ValueError(f"fn must be a function fn(config: dict, size: int) -> dict, got {type(fn).__name__}")
        if not hasattr(configs, "columns") or "config_id" not in configs.columns:
            raise ValueError("configs must be a DataFrame with a 'config_id' column and the configuration columns")
        self.fn = fn
        self.configs = configs.set_index("config_id")
        columns = {c: plain_values(self.configs[c]) for c in self.configs.columns}
        self._config_of = {int(cid): {c: columns[c][i] for c in columns} for i, cid in enumerate(self.configs.index)}

    def config(self, config_id: int) -> dict:
        """The configuration ``config_id`` as the job receives it (a copy)."""
        if int(config_id) not in self._config_of:
            raise ValueError(f"unknown config_id {shown(config_id)}; the configurations are "
                             f"{min(self._config_of)}..{max(self._config_of)}")
        return dict(self._config_of[int(config_id)])

    def __call__(self, config_id: int, size: int) -> Measurement:
        config = self.config(config_id)
        out = self.fn(config, int(size))
        if not isinstance(out, dict) or "accuracy" not in out:
            raise ValueError(
                f"the objective must return a dict with 'accuracy' and 'cost' and/or 'time'; got {shown(out)}"
            )
        acc = float(out["accuracy"])
        if not 0.0 <= acc <= 1.0:
            raise ValueError(f"the objective returned accuracy {acc}; it must be a fraction in [0, 1]")
        return Measurement(acc, float(out.get("cost", np.nan)), float(out.get("time", np.nan)))
