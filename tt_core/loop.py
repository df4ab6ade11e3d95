"""Ask/tell optimisation loop (TrimTuner paper Alg. 1) and the replay driver.

An :class:`Optimizer` is built from parts (see :mod:`tt_core.optimizers`): an initial design, surrogate
models for loss ``ln(1 - accuracy)``, ``ln(cost)`` and (with a time constraint) ``ln(time)``, a filter
that picks which untested (configuration, size) pairs the acquisition is evaluated on, an acquisition,
and an incumbent rule. It is used the same way on a replayed benchmark and on a user's own job::

    opt = make_optimizer("trimtuner-dt", space, constraints, seed=1)
    for _ in range(44):
        config_id, size = opt.suggest()
        m = objective(config_id, size)                 # train the model, measure
        opt.observe(config_id, size, m.accuracy, m.cost, m.time)
    best = opt.incumbent()

:func:`run_optimization` drives that loop on a benchmark and returns the per-iteration trajectory
(cumulative optimisation cost/time, recommendation overhead, the incumbent's true full-size accuracy
and cost, Accuracy_C of Eq. 7 and the thesis' Eq. 7.1 variant).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from .benchmarks import Benchmark, load_benchmark
from .metrics import accuracy_c, accuracy_c_thesis
from .objectives import ReplayObjective

LOSS_FLOOR = 1e-6  # 1 - accuracy is clipped here before the log (an accuracy of exactly 1)


@dataclass
class History:
    """Observations so far (one row each)."""

    rows: list[dict] = field(default_factory=list)

    def add(self, **row) -> None:
        self.rows.append(row)

    def frame(self) -> pd.DataFrame:
        return pd.DataFrame(self.rows, columns=["config_id", "size", "accuracy", "cost", "time", "phase"])

    def __len__(self) -> int:
        return len(self.rows)


def run_optimization(
    benchmark: str | Benchmark,
    optimizer: str,
    *,
    seed: int,
    iterations: int = 44,
    beta: float = 0.1,
    filter: str | None = None,
    max_cost: float | None = None,
    max_time: float | None = None,
    objective=None,
    progress: bool = False,
    snapshot_init: bool = True,
    **options,
) -> pd.DataFrame:
    """Run one optimiser on a benchmark for ``iterations`` tests (initial design included).

    Parameters
    ----------
    benchmark : str or Benchmark
        A registered name, a CSV path, or a loaded benchmark (the search space and, when replayed, the
        measurements).
    optimizer : str
        A registered optimiser (see :func:`tt_core.optimizers.available`).
    seed : int
        Seed of every random choice of the run.
    iterations : int
        Total number of tests, initial design included (paper: 44).
    beta : float
        Filter fraction in (0, 1] (paper: 0.1).
    filter : str, optional
        Override the optimiser's filter ("cea", "random", "none", "direct", "cmaes").
    max_cost, max_time : float, optional
        Constraints; default to the benchmark's own (CNN $0.10, RNN $0.02).
    objective : callable, optional
        ``objective(config_id, size) -> Measurement``; default replays the benchmark.
    snapshot_init : bool
        Charge the sub-sampled initial design as one training run snapshotted at each size (paper
        Sec. III: "a cost equivalent to testing a single configuration using only 50% of the data").

    Returns
    -------
    pandas.DataFrame
        One row per iteration.
    """
    from tqdm.auto import tqdm

    from .optimizers import make_optimizer

    bench = benchmark if isinstance(benchmark, Benchmark) else load_benchmark(benchmark)
    max_cost = bench.max_cost if max_cost is None else max_cost
    max_time = bench.max_time if max_time is None else max_time
    if max_cost is None and max_time is None:
        raise ValueError(
            f"benchmark {bench.name!r} has no default constraint; pass max_cost and/or max_time"
        )
    opt = make_optimizer(optimizer, bench, seed=seed, beta=beta, filter=filter, max_cost=max_cost,
                         max_time=max_time, **options)
    if iterations < opt.n_init:
        raise ValueError(
            f"iterations={iterations} is smaller than the initial design of {optimizer!r} ({opt.n_init} tests); "
            f"use iterations >= {opt.n_init}"
        )
    replay = ReplayObjective(bench)
    objective = objective or replay
    rows = []
    cum_cost = cum_time = 0.0
    init_cost_max = init_time_max = 0.0
    for it in tqdm(range(1, iterations + 1), desc=f"{bench.name}/{optimizer}/seed{seed}", disable=not progress):
        t0 = time.perf_counter()
        config_id, size = opt.suggest()
        overhead = time.perf_counter() - t0
        m = objective(config_id, size)
        phase = "init" if it <= opt.n_init else "bo"
        charged_cost, charged_time = m.cost, m.time
        if snapshot_init and phase == "init" and opt.init_is_snapshot:
            # one training run, snapshotted at each size: pay only the growth of the largest run so far
            charged_cost = max(0.0, m.cost - init_cost_max)
            charged_time = max(0.0, m.time - init_time_max)
            init_cost_max, init_time_max = max(init_cost_max, m.cost), max(init_time_max, m.time)
        t1 = time.perf_counter()
        opt.observe(config_id, size, m.accuracy, m.cost, m.time)
        inc = opt.incumbent()
        overhead += time.perf_counter() - t1
        cum_cost += charged_cost
        cum_time += charged_time
        row = {
            "iteration": it, "phase": phase, "config_id": int(config_id), "size": int(size),
            "accuracy": m.accuracy, "cost": m.cost, "time": m.time,
            "charged_cost": charged_cost, "charged_time": charged_time,
            "cumulative_cost": cum_cost, "cumulative_time": cum_time, "overhead_s": overhead,
            "incumbent": -1 if inc is None else int(inc),
        }
        if inc is not None:
            true = replay.full_size(inc)
            row.update(incumbent_accuracy=true.accuracy, incumbent_cost=true.cost, incumbent_time=true.time)
        else:
            row.update(incumbent_accuracy=np.nan, incumbent_cost=np.nan, incumbent_time=np.nan)
        rows.append(row)
    traj = pd.DataFrame(rows)
    if max_cost is not None:
        traj["accuracy_c"] = accuracy_c(traj["incumbent_accuracy"], traj["incumbent_cost"], max_cost)
        traj["accuracy_c_thesis"] = accuracy_c_thesis(traj["incumbent_accuracy"], traj["incumbent_cost"], max_cost)
    else:
        feasible = traj["incumbent_time"] <= max_time
        traj["accuracy_c"] = np.where(feasible, traj["incumbent_accuracy"], traj["incumbent_accuracy"] * max_time / traj["incumbent_time"])
        traj["accuracy_c_thesis"] = np.where(feasible, traj["incumbent_accuracy"], 0.0)
    traj["cumulative_wall"] = traj["cumulative_time"] + traj["overhead_s"].cumsum()
    return traj


def loss_target(accuracy) -> np.ndarray:
    """Model target of the accuracy: ``ln(1 - accuracy)`` (paper Sec. III-A, FABOLAS)."""
    return np.log(np.clip(1.0 - np.asarray(accuracy, float), LOSS_FLOOR, None))


def accuracy_from_loss(mean_loss) -> np.ndarray:
    return 1.0 - np.exp(np.asarray(mean_loss, float))
