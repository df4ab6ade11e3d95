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
    """

    def __init__(self, fn: Callable[[dict, int], dict], configs):
        self.fn = fn
        self.configs = configs.set_index("config_id")

    def __call__(self, config_id: int, size: int) -> Measurement:
        config = self.configs.loc[int(config_id)].to_dict()
        out = self.fn(config, int(size))
        if not isinstance(out, dict) or "accuracy" not in out:
            raise ValueError(
                f"the objective must return a dict with 'accuracy' and 'cost' and/or 'time'; got {shown(out)}"
            )
        acc = float(out["accuracy"])
        if not 0.0 <= acc <= 1.0:
            raise ValueError(f"the objective returned accuracy {acc}; it must be a fraction in [0, 1]")
        return Measurement(acc, float(out.get("cost", np.nan)), float(out.get("time", np.nan)))
