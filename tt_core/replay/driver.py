"""The one replay driver: run any registered optimiser on a benchmark's measurements.

:func:`run_optimization` builds the problem and the optimiser (:func:`tt_core.optimizers.make_optimizer`),
then loops ``suggest`` -> measure (replay, or a user's ``objective``) -> ``observe`` -> ``incumbent``
until ``iterations`` tests were made, the exploration ``budget`` is spent, or the optimiser is done.
What each test is charged comes from the optimiser (:meth:`tt_core.optimizers.base.Optimizer.observe`).

Each row of the trajectory scores the incumbent by its *measured* values at its (configuration, size):
for an accuracy-maximising problem (TrimTuner paper) the full-size accuracy/cost and Accuracy_C
(paper Eq. 7) and its thesis variant (Eq. 7.1); for a cost-minimising problem (thesis Eq. 3.1) the
CNO (thesis Eq. 6.1) against the optimum at any size (``cno``) and in the optimiser's own space
(``cno_space``).
"""

from __future__ import annotations

import time

import numpy as np
import pandas as pd

from tt_core.data.benchmarks import Benchmark, as_benchmark
from tt_core.data.objectives import ReplayObjective
from tt_core.replay.metrics import accuracy_c, accuracy_c_thesis, cno, optimum
from tt_core.optimizers import make_optimizer
from tt_core.optimizers.registry import objective_of
from tt_core.data.io import shown
from tt_core.data.paper_defaults import INITIAL_BUDGETS, TESTS_PER_RUN, THESIS_MAX_TIME, THESIS_MIN_ACCURACY  # noqa: F401 (re-exported)



#: Exploration budget B (USD) of a cost-minimising run. The thesis gives no number, only "a value that could
#: allow the optimizers to find the optimum" (§6.2); these were chosen so that, on these measurements, the 90th
#: percentile of the Nephele *and* baseline runs reaches the optimum of its own search space (see notebook 09).
EXPLORATION_BUDGETS = {"cnn": 20.0, "rnn": 2.5}


def problem_limits(bench: Benchmark, objective: str, *, max_cost=None, max_time=None, min_accuracy=None,
                   budget=None) -> dict:
    """The limits of a replayed run: explicit ones, else the defaults of the problem's paper.

    Maximising accuracy (TrimTuner paper): the benchmark's cost limit (CNN $0.10, RNN $0.02).
    Minimising cost (thesis §6.2): A_min 0.85 and T_max 300 s, and the exploration budget of
    :data:`EXPLORATION_BUDGETS`.
    """
    if objective == "accuracy":
        if max_cost is None and max_time is None and min_accuracy is not None:
            raise ValueError(
                f"min_accuracy {min_accuracy:g} (--min-accuracy) alone: an accuracy-maximising run is scored "
                "(Accuracy_C) against a cost or time limit; give max_cost (--max-cost USD) and/or max_time "
                "(--max-time s) too")
        if max_cost is None and max_time is None:
            max_cost, max_time = bench.max_cost, bench.max_time
        if max_cost is None and max_time is None:
            raise ValueError(f"benchmark {shown(bench.name)} has no default constraint; pass max_cost and/or max_time")
        _check_limit_columns(bench, max_cost, max_time)
        return {"max_cost": max_cost, "max_time": max_time, "min_accuracy": min_accuracy, "budget": budget}
    if budget is None:
        key = bench.name.lower()
        if key not in EXPLORATION_BUDGETS:
            raise ValueError(f"benchmark {shown(bench.name)} has no default exploration budget; pass budget=<USD> "
                             f"(defaults exist for {sorted(EXPLORATION_BUDGETS)})")
        budget = EXPLORATION_BUDGETS[key]
    return {"max_cost": max_cost, "budget": budget,
            "min_accuracy": THESIS_MIN_ACCURACY if min_accuracy is None else min_accuracy,
            "max_time": THESIS_MAX_TIME if max_time is None else max_time}


def _check_limit_columns(bench: Benchmark, max_cost, max_time) -> None:
    """A cost (time) limit needs the benchmark's cost (time) values: a file without them is refused, not
    replayed with an Accuracy_C of NaN."""
    for limit, col, flag in ((max_cost, "cost", "--max-cost"), (max_time, "training_time", "--max-time")):
        derived = col == "cost" and bench.cost_from_time is not None and not bench.price_stated
        if limit is not None and derived:  # USD at a default price are no limit the user can have meant
            raise ValueError(f"--max-cost {limit:g}: benchmark {shown(bench.name)} ({bench.source}) has no cost "
                             f"column (its costs are training time x {bench.cost_from_time:g} USD per hour, a default "
                             "price); use --max-time, add a cost column, or load it with price_per_hour=<USD>")
        if limit is not None and bench.table[col].isna().all():
            other = "--max-time" if flag == "--max-cost" else "--max-cost"
            raise ValueError(f"{flag} {limit:g}: benchmark {shown(bench.name)} ({bench.source}) has no "
                             f"{'cost' if col == 'cost' else 'time'} column; use {other}, or add the column to the file")


def method_options(bench: Benchmark, optimizer: str, options: dict) -> dict:
    """``options`` with the per-benchmark defaults of the thesis' budgeted methods (``initial_budget``)."""
    from tt_core.optimizers.registry import spec

    out = dict(options)
    if spec(optimizer).family == "budgeted" and "initial_budget" not in out:
        key = bench.name.lower()
        if key not in INITIAL_BUDGETS:
            raise ValueError(f"benchmark {shown(bench.name)} has no default initial budget; pass initial_budget=<USD> "
                             f"(thesis Table 6.1 has {INITIAL_BUDGETS})")
        out["initial_budget"] = INITIAL_BUDGETS[key]
    return out


class Interrupted(RuntimeError):
    """A replay was asked to stop (its state is kept by the last checkpoint)."""


class Replay:
    """A steppable run: one optimiser, one way to measure, one way to score recommendations.

    Used by :func:`run_optimization` (``tt optimize``, ``tt runs``), the explorer (one :meth:`step` per
    click), the recommendation benchmarks (:mod:`tt_workbook.bench`) and the own-job tutorial
    (``measure`` trains the user's model; ``score`` trains the recommendation at full size).

    Parameters
    ----------
    optimizer : Optimizer
    measure : callable ``(config_id, size) -> Measurement``
        Runs a test.
    score : callable ``(config_id, size) -> Measurement``
        The true measurement of a recommendation (replay: the table's row).
    limits : dict
        ``max_cost``, ``max_time``, ``min_accuracy`` of the problem (for Accuracy_C and the CNO).
    optima : tuple of float, optional
        Cost-minimising problems: the optimum's cost at any size and in the optimiser's own space (CNO).
    """

    def __init__(self, optimizer, measure, score, limits: dict, optima: tuple[float, float] | None = None):
        self.optimizer = optimizer
        self.measure = measure
        self.score = score
        self.limits = dict(limits)
        self.objective = optimizer.problem.objective
        self.optima = optima
        self.rows: list[dict] = []
        self._cum_cost = self._cum_time = 0.0

    @classmethod
    def from_benchmark(cls, benchmark, optimizer: str, *, seed: int, beta=None, filter=None, max_cost=None,
                       max_time=None, min_accuracy=None, budget=None, objective=None, measure=None,
                       **options) -> "Replay":
        """A replay of a registered optimiser on a benchmark (limits default to the objective's paper)."""
        bench = as_benchmark(benchmark)
        obj = objective_of(optimizer, objective)
        limits = problem_limits(bench, obj, max_cost=max_cost, max_time=max_time, min_accuracy=min_accuracy,
                                budget=budget)
        opt = make_optimizer(optimizer, bench, seed=seed, beta=beta, filter=filter,
                             objective=objective if objective is not None and optimizer == "random" else None,
                             **limits, **method_options(bench, optimizer, options))
        replay = ReplayObjective(bench)
        optima = None
        if obj == "cost":
            optima = (float(optimum(bench, limits["min_accuracy"], limits["max_time"])["cost"]),
                      float(optimum(bench, limits["min_accuracy"], limits["max_time"],
                                    full_size_only=opt.full_size_only)["cost"]))
        out = cls(opt, measure or replay, replay.at, limits, optima)
        out.benchmark = bench
        return out

    def full_size(self, config_id: int):
        """The true full-size measurement of a configuration (``score`` at the largest size)."""
        return self.score(config_id, self.optimizer.space.max_size)

    def check_iterations(self, iterations) -> None:
        """A clear error when ``iterations`` cannot be run by this optimiser."""
        opt = self.optimizer
        if iterations is None:
            if opt.budget is None:
                raise ValueError(f"{shown(opt.name)} has no budget; give iterations=<number of tests> or budget=<USD>")
            return
        if isinstance(iterations, bool) or not isinstance(iterations, (int, np.integer)) or iterations < 1:
            raise ValueError(f"iterations must be a whole number >= 1, got {shown(iterations)}")
        n_init = getattr(opt, "n_init", 0)
        if iterations < n_init:
            raise ValueError(f"iterations={iterations} is smaller than the initial design of {shown(opt.name)} "
                             f"({n_init} tests); use iterations >= {n_init}")
        n_candidates = opt.pool.n_untested + len(self.rows)
        if iterations > n_candidates:
            raise ValueError(f"iterations={iterations} exceeds the {n_candidates} candidate tests of {shown(opt.name)}; "
                             f"use iterations <= {n_candidates}")

    @property
    def done(self) -> bool:
        return self.optimizer.done

    def step(self, pair: tuple[int, int] | None = None, *, refit: bool = True) -> dict:
        """One test: suggest (or test ``pair``), measure, observe, score the incumbent; returns the row.

        ``refit=False`` records the test without refitting the models (``observe(..., refit=False)``):
        the optimiser's ``refit()`` is then due before its next suggestion. The recommendation benchmark
        (:func:`tt_workbook.bench.measure_recommendation`) replays its observations so, to time
        the refit on its own.
        """
        opt = self.optimizer
        t0 = time.perf_counter()
        config_id, size = opt.suggest() if pair is None else pair
        overhead = time.perf_counter() - t0
        m = self.measure(config_id, size)
        t1 = time.perf_counter()
        charged_cost, charged_time = opt.observe(config_id, size, m.accuracy, m.cost, m.time, refit=refit)
        inc = opt.incumbent()
        overhead += time.perf_counter() - t1
        last = opt.last_observation
        self._cum_cost += charged_cost
        self._cum_time += charged_time
        row = {
            "iteration": len(self.rows) + 1, "phase": last["phase"], "config_id": int(config_id), "size": int(size),
            "accuracy": m.accuracy, "cost": m.cost, "time": m.time,
            "charged_cost": charged_cost, "charged_time": charged_time,
            "cumulative_cost": self._cum_cost, "cumulative_time": self._cum_time, "overhead_s": overhead,
            "incumbent": -1 if inc is None else int(inc.config_id),
            "incumbent_size": -1 if inc is None else int(inc.size),
        }
        if inc is not None:
            true = self.score(inc.config_id, inc.size)
            row.update(incumbent_accuracy=true.accuracy, incumbent_cost=true.cost, incumbent_time=true.time)
        else:
            row.update(incumbent_accuracy=np.nan, incumbent_cost=np.nan, incumbent_time=np.nan)
        if self.objective == "cost":
            row.update(feasible=bool(last["feasible"]), used=bool(last["used"]), budget_left=opt.remaining,
                       incumbent_full_cost=np.nan if inc is None else self.full_size(inc.config_id).cost)
        for k, v in opt.step_info.items():
            row[k] = np.nan if v is None else float(v)
        self.rows.append(row)
        return row

    def run(self, iterations: int | None, progress: bool = False, desc: str = "", after_step=None,
            should_stop=None, blas_threads: int | None = 1) -> pd.DataFrame:
        """Step until ``iterations`` tests were made (None: until the optimiser is done); the trajectory.

        A replay restored from a checkpoint continues where it stopped. ``after_step(self)`` is called
        after every test (the run store checkpoints there); ``should_stop()`` is asked before every test
        and, when true, raises :class:`Interrupted` (e.g. the worker's parent process has gone).

        ``blas_threads`` (default 1) limits the BLAS threads while the run steps (None: as configured).
        The models' matrices are tiny (44 x 44, batches of 24 of them): extra BLAS threads only
        synchronise, and on a busy 2-core machine they made a TrimTuner-GP run about 3x slower.
        """
        from contextlib import nullcontext

        from tqdm.auto import tqdm

        self.check_iterations(iterations)
        if blas_threads is not None and (isinstance(blas_threads, bool) or not isinstance(blas_threads, (int, np.integer))
                                         or blas_threads < 1):
            raise ValueError(f"blas_threads must be None or an integer >= 1, got {shown(blas_threads)}")
        if blas_threads is None:
            limit = nullcontext()
        else:
            from threadpoolctl import threadpool_limits

            limit = threadpool_limits(limits=int(blas_threads), user_api="blas")
        with limit:
            bar = tqdm(total=iterations, initial=len(self.rows), desc=desc, disable=not progress, unit="test")
            try:
                while not self.done and (iterations is None or len(self.rows) < iterations):
                    if should_stop is not None and should_stop():
                        raise Interrupted(f"stopped after {len(self.rows)} tests")
                    self.step()
                    bar.update()
                    if after_step is not None:
                        after_step(self)
            finally:
                bar.close()
        return self.frame()

    def frame(self) -> pd.DataFrame:
        """The trajectory so far, with the metric columns of the problem."""
        traj = pd.DataFrame(self.rows)
        if traj.empty:
            return traj
        if self.objective == "accuracy":
            limit_cost, limit_time = self.limits.get("max_cost"), self.limits.get("max_time")
            if limit_cost is not None:
                traj["accuracy_c"] = accuracy_c(traj["incumbent_accuracy"], traj["incumbent_cost"], limit_cost)
                traj["accuracy_c_thesis"] = accuracy_c_thesis(traj["incumbent_accuracy"], traj["incumbent_cost"],
                                                              limit_cost)
            elif limit_time is not None:
                feasible = traj["incumbent_time"] <= limit_time
                traj["accuracy_c"] = np.where(feasible, traj["incumbent_accuracy"],
                                              traj["incumbent_accuracy"] * limit_time / traj["incumbent_time"])
                traj["accuracy_c_thesis"] = np.where(feasible, traj["incumbent_accuracy"], 0.0)
        elif self.optima is not None:
            best_all, best_space = self.optima
            traj["cno"] = cno(traj["incumbent_cost"], best_all)
            traj["cno_space"] = cno(traj["incumbent_cost"], best_space)
            traj["optimum_cost"] = best_all
            traj["optimum_cost_space"] = best_space
        if self.objective == "cost":
            traj["budget"] = float(self.optimizer.budget)
            traj["initial_budget"] = float(getattr(self.optimizer, "initial_budget", 0.0))
        traj["cumulative_wall"] = traj["cumulative_time"] + traj["overhead_s"].cumsum()
        return traj


def run_optimization(
    benchmark: str | Benchmark,
    optimizer: str,
    *,
    seed: int,
    iterations: int | None = TESTS_PER_RUN,
    beta: float | None = None,
    filter: str | None = None,
    max_cost: float | None = None,
    max_time: float | None = None,
    min_accuracy: float | None = None,
    budget: float | None = None,
    objective: str | None = None,
    measure=None,
    progress: bool = False,
    **options,
) -> pd.DataFrame:
    """Run one optimiser on a benchmark; one trajectory row per test.

    Parameters
    ----------
    benchmark : str or Benchmark
        A registered name, a CSV path, or a loaded benchmark (the search space and, when replayed, the
        measurements).
    optimizer : str
        A registered optimiser (:func:`tt_core.optimizers.available`).
    seed : int
        Seed of every random choice of the run.
    iterations : int or None
        Number of tests, initial design included (paper: 44); None: until the budget is spent.
    beta, filter : optional
        Filter fraction and filter name of the model-based optimisers (paper: 0.1, their own filter).
    max_cost, max_time, min_accuracy : float, optional
        Constraints; default to the paper of the optimiser's objective (see :func:`problem_limits`).
    budget : float, optional
        Exploration budget (USD); the run stops once it is spent.
    objective : {"accuracy", "cost"}, optional
        For random search: maximise accuracy (default) or minimise cost.
    measure : callable, optional
        ``measure(config_id, size) -> Measurement``; default replays the benchmark.
    progress : bool
        Show a progress bar.
    **options
        Method options (``initial_budget``, ``horizon``, ``snapshot_init``, ...).
    """
    run = Replay.from_benchmark(benchmark, optimizer, seed=seed, beta=beta, filter=filter, max_cost=max_cost,
                                max_time=max_time, min_accuracy=min_accuracy, budget=budget, objective=objective,
                                measure=measure, **options)
    return run.run(iterations, progress=progress, desc=f"{run.benchmark.name}/{optimizer}/seed{seed}")
