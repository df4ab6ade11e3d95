"""The one optimiser contract: a problem description, ask/tell, charging and the incumbent.

Every optimiser of the workbook (TrimTuner and its baselines, Nephele and its baselines) is used the
same way, on a replayed benchmark or on a user's own job::

    opt = make_optimizer("trimtuner-dt", problem, seed=1)
    while not opt.done:                      # or: for _ in range(44)
        config_id, size = opt.suggest()
        m = objective(config_id, size)        # train, measure
        opt.observe(config_id, size, m.accuracy, m.cost, m.time)
    best = opt.incumbent()                   # Recommendation(config_id, size) or None

A :class:`Problem` says what is optimised (``objective``: maximise accuracy as TrimTuner, paper
Eq. 4; or minimise cost as Nephele, thesis Eq. 3.1), under which :class:`Constraint` s, with which
exploration budget (USD, optional) and cluster prices.

Charging (what a test costs the exploration) is part of the contract: :meth:`Optimizer.observe`
returns what it charged. By default a test is charged its measured cost and time; a sub-sampled
initial design marked as a *snapshot* pays only the growth of the largest run so far (TrimTuner paper
Sec. III: one training run, snapshotted at each size); a budgeted optimiser with
``finish_last_run=False`` charges only the remaining budget for the run that crosses it and discards
its result (thesis Alg. 2, lines 24-26).
"""

from __future__ import annotations

import math
import time as time_module
from dataclasses import dataclass, field
from typing import NamedTuple

import numpy as np
import pandas as pd

from tt_core.bo.constraints import Constraint, check_constraints, observed_feasible
from tt_core.bo.history import History
from tt_core.data.space import CandidatePool, ConfigSpace
from tt_core.data.io import shown
from tt_core.data.seeds import check_seed
from tt_core.data.validation import check_finite

OBJECTIVES = ("accuracy", "cost")


class Exhausted(RuntimeError):
    """``suggest()`` was called after the budget was spent or every candidate was tested (see ``done``)."""


class Recommendation(NamedTuple):
    """An optimiser's recommendation: a configuration and the training-set size to deploy it at."""

    config_id: int
    size: int


@dataclass(frozen=True)
class Problem:
    """What an optimiser optimises.

    Parameters
    ----------
    space : ConfigSpace
        Configurations and training-set sizes.
    constraints : tuple of Constraint
        Bounds on accuracy, cost and/or time (natural units, inclusive).
    objective : {"accuracy", "cost"}
        Maximise the accuracy (TrimTuner paper) or minimise the cost (thesis Eq. 3.1).
    budget : float or None
        Exploration budget in USD: the optimiser is ``done`` once it has charged this much.
    price_per_second : ndarray or None
        USD per second of each configuration's cluster, in ``space.config_ids`` order (the thesis'
        optimisers derive the time from the predicted cost, §3.2.1).
    name : str
        A label (the benchmark's name).
    """

    space: ConfigSpace
    constraints: tuple = ()
    objective: str = "accuracy"
    budget: float | None = None
    price_per_second: np.ndarray | None = field(default=None, compare=False)
    name: str = ""

    def __post_init__(self):
        if not isinstance(self.space, ConfigSpace):
            raise ValueError(f"space must be a ConfigSpace, got {type(self.space).__name__}")
        object.__setattr__(self, "constraints", check_constraints(self.constraints))
        if self.objective not in OBJECTIVES:
            raise ValueError(f"objective must be one of {list(OBJECTIVES)}, got {shown(self.objective)}")
        if self.budget is not None:
            b = check_finite("budget", self.budget)
            if b <= 0:
                raise ValueError(f"budget must be a positive number of USD, got {shown(self.budget)}")
            object.__setattr__(self, "budget", b)
        if self.price_per_second is not None:
            p = np.asarray(self.price_per_second, dtype=float).ravel()
            if p.shape != (self.space.n_configs,) or not (np.all(np.isfinite(p)) and np.all(p > 0)):
                raise ValueError(
                    f"price_per_second must hold one finite price > 0 per configuration "
                    f"({self.space.n_configs}, in space.config_ids order); got shape {p.shape}"
                )
            object.__setattr__(self, "price_per_second", p)

    def limit(self, quantity: str, side: str) -> float | None:
        """The bound ``side`` ("upper"/"lower") on ``quantity``, or None."""
        for c in self.constraints:
            if c.quantity == quantity and getattr(c, side) is not None:
                return float(getattr(c, side))
        return None

    @property
    def quantities(self) -> tuple[str, ...]:
        """The constrained quantities, e.g. ``("cost",)``."""
        return tuple(c.quantity for c in self.constraints)


def constraints_for(max_cost: float | None = None, max_time: float | None = None,
                    min_accuracy: float | None = None) -> tuple[Constraint, ...]:
    """The constraint tuple of the usual keyword limits."""
    out = []
    if max_cost is not None:
        out.append(Constraint("cost", upper=max_cost))
    if max_time is not None:
        out.append(Constraint("time", upper=max_time))
    if min_accuracy is not None:
        out.append(Constraint("accuracy", lower=min_accuracy))
    return tuple(out)


class Optimizer:
    """Ask/tell base: ``suggest``, ``observe``, ``incumbent``, ``done``, ``history``.

    Subclasses choose the next test (:meth:`_choose`), may keep an initial design queue, update models
    in :meth:`_update` and recommend in :meth:`incumbent`.

    Parameters
    ----------
    problem : Problem
    seed : int
    full_size_only : bool
        Candidates are restricted to the largest size (no sub-sampling).
    finish_last_run : bool
        With a budget: True, the run that crosses it completes and is charged in full; False, it is
        aborted (charged the remaining budget, its result not used).
    """

    name = "base"

    def __init__(self, problem: Problem, *, seed: int, full_size_only: bool = True, finish_last_run: bool = True):
        if not isinstance(problem, Problem):
            raise ValueError(f"problem must be a Problem, got {type(problem).__name__}")
        check_seed(seed)
        self.problem = problem
        self.space = problem.space
        self.constraints = problem.constraints
        self.budget = problem.budget
        self.seed = int(seed)
        self.full_size_only = bool(full_size_only)
        self.finish_last_run = bool(finish_last_run)
        ids, sizes = self.space.all_pairs()
        if self.full_size_only:
            keep = sizes == self.space.max_size
            ids, sizes = ids[keep], sizes[keep]
        self.pool = CandidatePool(ids, sizes)
        self._history = History()
        self.spent = 0.0
        self.init_is_snapshot = False
        self._snapshot_max = (0.0, 0.0)
        #: Diagnostics of the last ``suggest`` (e.g. Nephele's ``gamma_size``), added to replay trajectories.
        self.step_info: dict = {}
        #: Seconds of the last :meth:`refit` (NaN before the first).
        self.refit_s = float("nan")

    # -- state -----------------------------------------------------------------------------------
    @property
    def remaining(self) -> float:
        """Budget left (USD; ``inf`` without a budget, negative after the run that crossed it)."""
        return math.inf if self.budget is None else self.budget - self.spent

    @property
    def done(self) -> bool:
        """The budget is spent or every candidate was tested."""
        return (self.budget is not None and self.spent >= self.budget) or self.pool.n_untested == 0

    @property
    def history(self) -> pd.DataFrame:
        """Observations so far, one row each (see :data:`tt_core.bo.history.COLUMNS`)."""
        return self._history.frame()

    def _phase(self) -> str:
        """The phase of the next test: ``"init"`` (initial design) or ``"bo"``."""
        return "bo"

    # -- ask/tell --------------------------------------------------------------------------------
    def suggest(self) -> tuple[int, int]:
        """The next (configuration id, size) to test.

        Raises
        ------
        Exhausted
            If the budget is spent or every candidate was tested (check :attr:`done`).
        """
        if self.done:
            why = (f"the exploration budget is spent (spent ${self.spent:.4f} of ${self.budget:.4f})"
                   if self.pool.n_untested else "every candidate has been tested")
            raise Exhausted(f"{self.name}: {why}; nothing left to suggest (read incumbent() instead)")
        self.step_info = {}
        return self._choose()

    def _choose(self) -> tuple[int, int]:  # pragma: no cover - abstract
        raise NotImplementedError

    def observe(self, config_id: int, size: int, accuracy: float, cost: float = np.nan,
                time: float = np.nan, *, refit: bool = True) -> tuple[float, float]:
        """Record a measurement, charge it and update the models.

        ``refit=False`` records the measurement without refitting the models (call :meth:`refit` before the
        next :meth:`suggest`; used to time the refit on its own).

        Returns
        -------
        (charged_cost, charged_time) : what this test cost the exploration.
        """
        acc = check_finite("accuracy", accuracy)
        if not 0.0 <= acc <= 1.0:
            raise ValueError(f"accuracy must be a fraction in [0, 1] (not %), got {shown(accuracy)}")
        cost, time = float(cost), float(time)
        for label, v in (("cost", cost), ("time", time)):
            if not math.isnan(v) and (not math.isfinite(v) or v < 0):
                raise ValueError(f"{label} must be a finite number >= 0, got {shown(v)}")
        key = (int(config_id), int(size))
        if not self.pool.contains(*key):
            where = ("at the full size" if self.full_size_only else
                     "at a sub-sampled size (this optimiser never tests the full size)"
                     if getattr(self, "test_full_size", True) is False else "of the space")
            raise ValueError(f"{self.name}: ({key[0]}, {key[1]}) is not a candidate {where}")
        phase = self._phase_of(key)
        self.pool.mark_tested(*key)  # raises if already tested
        charged_cost, charged_time, used = self._charge(cost, time, phase)
        self.spent += charged_cost if math.isfinite(charged_cost) else 0.0
        feasible = bool(observed_feasible(self.constraints, {"accuracy": [acc], "cost": [cost], "time": [time]})[0]) \
            if self.constraints else True
        self._history.add(config_id=key[0], size=key[1], accuracy=acc, cost=cost, time=time, phase=phase,
                          charged_cost=charged_cost, charged_time=charged_time, used=used, feasible=feasible)
        self._after_observe(key, phase, charged_cost)
        if refit:
            self.refit()
        return charged_cost, charged_time

    def refit(self) -> float:
        """Refit the models on the observations so far (what :meth:`observe` does after recording a test).

        Returns the seconds it took, also kept as :attr:`refit_s`.
        """
        t0 = time_module.perf_counter()
        self._update()
        self.refit_s = time_module.perf_counter() - t0
        return self.refit_s

    @property
    def last_observation(self) -> dict | None:
        """The last observation as recorded (a copy of the last :attr:`history` row as a dict), or None."""
        return dict(self._history.rows[-1]) if len(self._history) else None

    @property
    def n_observations(self) -> int:
        """Observations so far (``len(history)`` without building the frame)."""
        return len(self._history)

    def _phase_of(self, key) -> str:
        return self._phase()

    def _after_observe(self, key, phase: str, charged: float) -> None:
        pass

    def _charge(self, cost: float, time: float, phase: str) -> tuple[float, float, bool]:
        """What a test is charged: ``(cost, time, used)`` (see the module docstring)."""
        if self.init_is_snapshot and phase == "init":
            # one training run, snapshotted at each size: pay only the growth of the largest run so far
            c_max, t_max = self._snapshot_max
            self._snapshot_max = (max(c_max, cost), max(t_max, time))
            return max(0.0, cost - c_max), max(0.0, time - t_max), True
        if self.budget is not None and not self.finish_last_run and self.spent + cost > self.budget:
            charged = max(self.budget - self.spent, 0.0)  # aborted when the budget ran out
            return charged, time * (charged / cost if cost > 0 else 0.0), False
        return cost, time, True

    def _update(self) -> None:
        pass

    @property
    def _observers(self) -> list:
        return self.__dict__.setdefault("_observer_list", [])

    def on_select(self, observer) -> None:
        """Call ``observer(step)`` at every model-based choice, before the chosen test runs: the one public
        record of a step (:class:`tt_core.optimizers.model_based.SelectionStep`: the candidates, the
        acquisition, the filter's choice, the choice and the timings of the refit, the acquisition's set-up,
        the filter and the argmax). The analyses that trace a run (:mod:`tt_workbook.studies.fig1_fig2.alpha_trace`,
        :mod:`tt_workbook.studies.fig1_fig2.eic_usd`) and the benchmark of a recommendation read it; observers only read,
        so the run is the one it would be without them. Optimisers without a model-based choice (random
        search, the budgeted ones) never call it."""
        self._observers.append(observer)

    def incumbent(self) -> Recommendation | None:  # pragma: no cover - abstract
        raise NotImplementedError

    # -- helpers ---------------------------------------------------------------------------------
    def _restrict_pool(self, keep) -> None:
        """Keep only the candidates where ``keep`` (a mask over ``pool.pairs()``) is true; before any test."""
        if len(self._history):
            raise RuntimeError("the candidate pool can only be restricted before the first test")
        ids, sizes = self.pool.pairs
        keep = np.asarray(keep, dtype=bool)
        if not keep.any():
            raise ValueError("no candidate test is left after the restriction")
        self.pool = CandidatePool(ids[keep], sizes[keep])

    def _random_untested(self) -> tuple[int, int]:
        ids, sizes = self.pool.untested()
        i = int(self.rng.integers(len(ids)))
        return int(ids[i]), int(sizes[i])

    def __repr__(self) -> str:
        budget = "" if self.budget is None else f", budget={self.budget:g}, spent={self.spent:.4f}"
        return f"{type(self).__name__}(seed={self.seed}{budget}, observations={len(self._history)})"
