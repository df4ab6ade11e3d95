"""Model-based constrained BO from parts (TrimTuner paper Alg. 1 and its Sec. IV baselines).

| name           | models                    | sizes        | initial design                 | filter  | acquisition                 | incumbent            |
|----------------|---------------------------|--------------|--------------------------------|---------|-----------------------------|----------------------|
| trimtuner-dt   | bagged extra-trees        | all          | 1 random config at 1/60..1/2   | CEA     | alpha_T (Eq. 5)             | constrained (Alg. 1) |
| trimtuner-gp   | FABOLAS GP (MCMC)         | all          | 1 random config at 1/60..1/2   | CEA     | alpha_T (Eq. 5)             | constrained          |
| fabolas        | FABOLAS GP (MCMC)         | all          | 1 random config at 1/60..1/2   | CMA-ES  | info gain / cost (Eq. 3)    | unconstrained        |
| eic            | GP (ML-II Matern-5/2)     | full only    | 4 Latin-hypercube configs      | none    | EIc                         | constrained          |
| eic-usd        | GP (ML-II Matern-5/2)     | full only    | 4 Latin-hypercube configs      | none    | EIc / predicted cost        | constrained          |
| fabulinus      | FABOLAS GP (MCMC)         | sub-sampled  | 9 random configs at 1/60..1/2  | CEA     | ES_C (thesis Eq. 4.4)       | constrained, P>=0.99 |
| ei             | GP (ML-II Matern-5/2)     | full only    | 4 Latin-hypercube configs      | none    | EI (no constraint)          | unconstrained        |
| random         | -                         | full only    | 4 random configs               | -       | uniform random              | best observed feasible |

FABOLAS ignores the constraint, as in the paper. Fabulinus (thesis ch. 4) is TrimTuner-GP with three
settings changed: ``constraint_factor="cea"`` (Eq. 4.5), ``feasibility_threshold=0.99`` (§4.2) and
``test_full_size=False`` (it "only tests configurations ... using subsampled datasets", ch. 4); its
initial design is ``init_design="random"`` with ``n_init`` configurations at every sub-sampled size
(§4.2, §7.2), each test charged in full. Every optimiser takes an explicit ``seed``.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Callable

import numpy as np

from tt_core.bo.constraints import LOSS
from tt_core.bo.design import random_configs
from tt_core.bo.history import loss_target
from tt_core.models.portable import log_array
from tt_core.bo.incumbent import FEASIBILITY_THRESHOLD, best_observed
from tt_core.bo.ties import argmax_random_ties
from tt_core.data.space import ConfigSpace
from tt_core.optimizers import parts
from tt_core.optimizers.base import Optimizer, Recommendation
from tt_core.data.io import shown
from tt_core.data.paper_defaults import CEA_BETA, INITIAL_SAMPLES

ModelFactory = Callable[[str, int, ConfigSpace], object]

#: Incumbent rules of :meth:`ModelBasedOptimizer.from_settings` (``incumbent_rule``).
INCUMBENT_RULES = tuple(parts.INCUMBENT_RULES)
#: Initial designs of :meth:`ModelBasedOptimizer.from_settings` (``init_design``).
INIT_DESIGNS = tuple(parts.INIT_DESIGNS)


@dataclass(frozen=True)
class Parts:
    """The parts a :class:`ModelBasedOptimizer` is assembled from (:mod:`tt_core.optimizers.parts`)."""

    surrogate: Callable
    acquisition: object
    filter: object
    incumbent: object
    design: object


@dataclass(frozen=True)
class SelectionStep:
    """The public record of one model-based choice, handed to each observer of
    :meth:`ModelBasedOptimizer.on_select` before the chosen test is run.

    Attributes
    ----------
    ids, sizes, X : ndarray
        The untested candidates (configuration ids, sizes, encoded rows).
    acquisition : callable
        The acquisition built for this step (models fixed).
    keep : ndarray of int
        The rows of ``X`` the filter kept (the acquisition is maximised over ``X[keep]``).
    choice : (int, int)
        The chosen ``(config_id, size)``.
    iteration : int
        The number of the test this choice is (observations so far + 1).
    refit_s : float
        Seconds of the models' last refit (on the observations so far, at the last ``observe``).
    acquisition_s, filter_s, argmax_s : float
        Seconds spent building the acquisition, filtering the candidates and maximising the acquisition
        over the kept ones in this step.
    """

    ids: np.ndarray
    sizes: np.ndarray
    X: np.ndarray
    acquisition: object
    keep: np.ndarray
    choice: tuple[int, int]
    iteration: int = 0
    refit_s: float = float("nan")
    acquisition_s: float = float("nan")
    filter_s: float = float("nan")
    argmax_s: float = float("nan")


class DesignedOptimizer(Optimizer):
    """An optimiser that starts with a fixed initial design (a queue of pairs), then chooses.

    Parameters
    ----------
    problem : Problem
    seed : int
    full_size_only : bool
    n_init : int
        Size of the initial design.
    finish_last_run : bool
    """

    def __init__(self, problem, *, seed: int, full_size_only: bool = True, n_init: int = INITIAL_SAMPLES,
                 finish_last_run: bool = True):
        super().__init__(problem, seed=seed, full_size_only=full_size_only, finish_last_run=finish_last_run)
        self.rng = np.random.default_rng(seed)
        self._init_queue: list[tuple[int, int]] = self.initial_design(n_init)
        self.n_init = len(self._init_queue)
        #: The initial design as drawn (``(config_id, size)`` pairs), kept after it has been tested.
        self.initial_pairs: tuple[tuple[int, int], ...] = tuple(self._init_queue)

    def initial_design(self, n_init: int) -> list[tuple[int, int]]:
        return random_configs(self.space, n_init, self.rng) if n_init > 0 else []

    def _choose(self) -> tuple[int, int]:
        while self._init_queue:
            cid, size = self._init_queue[0]
            if not self.pool.is_tested(cid, size):
                return cid, size
            self._init_queue.pop(0)
        return self._select()

    def _select(self) -> tuple[int, int]:  # pragma: no cover - abstract
        raise NotImplementedError

    def _phase_of(self, key) -> str:
        if self._init_queue and self._init_queue[0] == key:
            self._init_queue.pop(0)
            return "init"
        return "bo"

    def _best_observed(self) -> Recommendation | None:
        best = best_observed(self.history, self.problem.objective, self.space.max_size)
        return None if best is None else Recommendation(*best)


class RandomSearch(DesignedOptimizer):
    """Uniformly random untested pairs; recommends the best observed test under the problem's objective.

    Defaults follow the problem: maximising accuracy (TrimTuner paper), full-size configurations with
    4 random initial ones; minimising cost (thesis §6.1), every size and no initial design.
    """

    name = "random"

    def __init__(self, problem, *, seed: int, full_size_only: bool | None = None, n_init: int | None = None,
                 finish_last_run: bool = True):
        by_cost = problem.objective == "cost"
        super().__init__(problem, seed=seed, full_size_only=(not by_cost) if full_size_only is None else full_size_only,
                         n_init=(0 if by_cost else INITIAL_SAMPLES) if n_init is None else n_init, finish_last_run=finish_last_run)

    def _select(self):
        return self._random_untested()

    def incumbent(self):
        return self._best_observed()


class ModelBasedOptimizer(DesignedOptimizer):
    """Constrained BO assembled from parts (:mod:`tt_core.optimizers.parts`).

    Each step refits the ``surrogate``'s models, builds the ``acquisition`` on them, lets the ``filter``
    pick the candidates and tests the acquisition's maximum among them; ``incumbent_rule`` recommends and
    ``initial_design`` gives the first tests. :meth:`from_settings` builds the parts from named settings
    (the registry's way, :mod:`tt_core.optimizers.registry`).

    Parameters
    ----------
    problem : Problem
    surrogate : callable ``(kind, seed, space) -> model``
        ``kind`` is ``"loss"``, ``"cost"`` or ``"time"`` (e.g. :class:`~tt_core.optimizers.parts.TreeSurrogate`).
    acquisition : acquisition part
        ``build(opt) -> callable X -> values``, ``name``, ``needs_cost`` (e.g.
        :class:`~tt_core.optimizers.parts.Acquisition`).
    filter : :class:`~tt_core.optimizers.parts.CandidateFilter`
        ``keep(opt, X, acquisition) -> row indices``, applied to the untested candidates.
    incumbent_rule : incumbent part
        ``recommend(opt) -> config_id`` (e.g. :class:`~tt_core.optimizers.parts.PredictedIncumbent`).
    initial_design : design part
        ``pairs(space, rng, subsampling)``, ``n_init``, ``snapshot`` (e.g.
        :class:`~tt_core.optimizers.parts.PaperDesign`).
    seed : int
    subsampling : bool
        Test sub-sampled sizes or the full size only.
    test_full_size : bool, default True
        With ``subsampling``: whether the full size is a candidate test. False: only sub-sampled sizes
        are tested, the full size only predicted (Fabulinus, thesis ch. 4 and §7.3.3: "Fabulinus only
        predicts the cost and accuracy of the incumbent and never runs it").
    random_ties : bool, default True
        Break ties of the filter (CEA), of the acquisition's maximum and of the incumbent (either rule) uniformly at
        random with a generator derived from the seed and the step (:mod:`tt_core.bo.ties`); False:
        lowest index first (the behaviour before; with trees it made configuration 0 the first BO
        test of TrimTuner-DT in 8 of 10 RNN runs).
    finish_last_run : bool, default True
    """

    def __init__(self, problem, surrogate, acquisition, filter, incumbent_rule, initial_design, *, seed,
                 subsampling: bool = True, test_full_size: bool = True, random_ties: bool = True,
                 finish_last_run: bool = True):
        for label, part, needs in (("surrogate", surrogate, "__call__"), ("acquisition", acquisition, "build"),
                                   ("filter", filter, "keep"), ("incumbent_rule", incumbent_rule, "recommend"),
                                   ("initial_design", initial_design, "pairs")):
            if isinstance(part, str) or not callable(getattr(part, needs, None)):
                raise ValueError(f"{label} must be a part with {needs}() (tt_core.optimizers.parts), got "
                                 f"{shown(part)}; ModelBasedOptimizer.from_settings builds the parts from names")
        self.test_full_size = bool(test_full_size)
        if not subsampling and not test_full_size:
            raise ValueError("test_full_size=False needs subsampling (an optimiser without sub-sampling tests only "
                             "the full size)")
        self.parts = Parts(surrogate, acquisition, filter, incumbent_rule, initial_design)
        self.subsampling = bool(subsampling)
        self.random_ties = bool(random_ties)
        super().__init__(problem, seed=seed, full_size_only=not subsampling, n_init=initial_design.n_init,
                         finish_last_run=finish_last_run)
        if not self.test_full_size:
            self._restrict_pool(self.pool.pairs[1] < self.space.max_size)
        self.init_is_snapshot = self.subsampling and initial_design.snapshot
        self.model_kinds = self._model_kinds()
        self.models: dict[str, object] = {}
        #: The full-size configurations, encoded (the acquisitions' and the incumbent's search set).
        self.X_full = self.space.full_size_X()

    @classmethod
    def from_settings(cls, problem, *, seed, model_factory: ModelFactory, acquisition: str,
                      filter: str = "cea", beta: float = CEA_BETA, subsampling: bool = True,
                      constrained_incumbent: bool = True, n_init: int = INITIAL_SAMPLES,
                      snapshot_init: bool = True, finish_last_run: bool = True,
                      incumbent_rule: str = "paper", random_ties: bool = True, init_design: str = "paper",
                      test_full_size: bool = True, feasibility_threshold: float = FEASIBILITY_THRESHOLD,
                      **acquisition_options) -> "ModelBasedOptimizer":
        """The optimiser of named settings: each part built from its own (see :mod:`tt_core.optimizers.parts`).

        ``acquisition`` one of :data:`tt_core.optimizers.parts.ACQUISITIONS` ("trimtuner", "fabolas",
        "eic", "eic-usd", "ei"), with its options (``n_representers``, ``gh_roots``,
        ``constraint_factor`` of TrimTuner's; defaults :data:`tt_core.optimizers.parts.ACQUISITION_SETTINGS`);
        ``filter`` a filter name (:mod:`tt_core.bo.filters`) keeping ``beta`` of the candidates;
        ``constrained_incumbent`` False recommends the max predicted accuracy (FABOLAS); ``incumbent_rule``
        in {"paper", "tested-cea"} with ``feasibility_threshold`` (also TrimTuner's acquisition's, which
        finds the fantasised incumbent by the same rule); ``init_design`` in {"paper", "random"} with
        ``n_init`` and ``snapshot_init`` (charge the sub-sampled initial design as one training run
        snapshotted at each size, paper Sec. III; False: each test in full, as the authors' code).
        """
        flt = parts.CandidateFilter(filter, beta)
        if acquisition not in parts.ACQUISITIONS:
            raise ValueError(f"unknown acquisition {shown(acquisition)}; known: {list(parts.ACQUISITIONS)}")
        if incumbent_rule not in parts.INCUMBENT_RULES:
            raise ValueError(f"unknown incumbent_rule {shown(incumbent_rule)}; known: {list(parts.INCUMBENT_RULES)}")
        if init_design not in parts.INIT_DESIGNS:
            raise ValueError(f"unknown init_design {shown(init_design)}; known: {list(parts.INIT_DESIGNS)}")
        if "feasibility_threshold" in parts.ACQUISITIONS[acquisition].options:
            acquisition_options["feasibility_threshold"] = feasibility_threshold
        acq = parts.Acquisition(acquisition, **acquisition_options)
        incumbent = parts.INCUMBENT_RULES[incumbent_rule](constrained_incumbent, feasibility_threshold)
        design = parts.INIT_DESIGNS[init_design](n_init, snapshot_init)
        return cls(problem, model_factory, acq, flt, incumbent, design, seed=seed, subsampling=subsampling,
                   test_full_size=test_full_size, random_ties=random_ties, finish_last_run=finish_last_run)

    # -- the parts' names and settings (read-only; reports and the explorer show them) -----------
    @property
    def model_factory(self):
        return self.parts.surrogate

    @property
    def acquisition(self) -> str:
        """The acquisition's name (``"trimtuner"``, ``"fabolas"``, ``"eic"``, ``"eic-usd"``, ``"ei"``)."""
        return self.parts.acquisition.name

    @property
    def filter(self) -> str:
        return self.parts.filter.name

    @property
    def beta(self) -> float:
        return self.parts.filter.beta

    @property
    def incumbent_rule(self) -> str:
        return self.parts.incumbent.name

    @property
    def constrained_incumbent(self) -> bool:
        return self.parts.incumbent.constrained

    @property
    def feasibility_threshold(self) -> float:
        return self.parts.incumbent.feasibility_threshold

    @property
    def init_design(self) -> str:
        return self.parts.design.name

    @property
    def constraint_factor(self) -> str | None:
        return getattr(self.parts.acquisition, "constraint_factor", None)

    def _model_kinds(self) -> tuple[str, ...]:
        kinds = [LOSS]
        if self.parts.acquisition.needs_cost or any(c.quantity == "cost" for c in self.constraints):
            kinds.append("cost")
        if any(c.quantity == "time" for c in self.constraints):
            kinds.append("time")
        return tuple(kinds)

    def initial_design(self, n_init):
        return self.parts.design.pairs(self.space, self.rng, self.subsampling)

    # -- models ----------------------------------------------------------------------------------
    def _targets(self, h) -> dict[str, np.ndarray]:
        out = {LOSS: loss_target(h["accuracy"].to_numpy())}
        for kind, col in (("cost", "cost"), ("time", "time")):
            if kind in self.model_kinds:
                v = h[col].to_numpy(float)
                if not np.all(np.isfinite(v) & (v > 0)):
                    raise ValueError(f"every observation needs a positive {col} to model it; got {v}")
                out[kind] = log_array(v)  # the same bits on any CPU
        return out

    def _update(self) -> None:
        h = self.history
        h = h[h["used"].to_numpy(bool)]
        if len(h) < 2:
            return
        X = self.space.encode(h["config_id"].to_numpy(), h["size"].to_numpy())
        targets = self._targets(h)
        for kind in self.model_kinds:
            model = self.models.get(kind)
            if model is None:
                model = self.parts.surrogate(kind, int(self.rng.integers(2**31)), self.space)
                self.models[kind] = model
            model.fit(X, targets[kind])

    def incumbent(self):
        if not self.models:
            if self.full_size_only:
                return self._best_observed()
            h = self.history
            return Recommendation(int(h["config_id"].iloc[-1]), self.space.max_size) if len(h) else None
        return Recommendation(self.parts.incumbent.recommend(self), self.space.max_size)

    # -- acquisition -----------------------------------------------------------------------------
    def _candidates(self):
        ids, sizes = self.pool.untested()
        return ids, sizes, self.space.encode(ids, sizes)

    def _select(self):
        ids, sizes, X = self._candidates()
        if not self.models:  # fewer than two observations (a one-test initial design): nothing to model yet
            i = int(self.rng.integers(len(ids)))
            return int(ids[i]), int(sizes[i])
        t0 = time.perf_counter()
        acquisition = self._build_acquisition()
        t1 = time.perf_counter()
        keep = self._apply_filter(X, acquisition)
        t2 = time.perf_counter()
        ties = self.tie_rng("acquisition")
        if hasattr(acquisition, "argmax"):  # exact, with fewer fantasies (TrimTunerAcquisition.argmax)
            i, _, _ = acquisition.argmax(X[keep], rng=ties)
            best = keep[i]
        else:
            values = np.asarray(acquisition(X[keep]), dtype=float)
            if not np.all(np.isfinite(values)):
                values = np.where(np.isfinite(values), values, -np.inf)
            best = keep[argmax_random_ties(values, ties)]
        t3 = time.perf_counter()
        choice = int(ids[best]), int(sizes[best])
        if self._observers:
            step = SelectionStep(ids, sizes, X, acquisition, np.asarray(keep, dtype=int), choice,
                                 iteration=self.n_observations + 1, refit_s=self.refit_s, acquisition_s=t1 - t0,
                                 filter_s=t2 - t1, argmax_s=t3 - t2)
            for observer in self._observers:
                observer(step)
        return choice

    def preview_acquisition(self):
        """The acquisition the next choice would build from the current models, leaving the optimiser's random
        state untouched (for inspection: the explorer's table). Needs fitted models (two observations)."""
        if not self.models:
            raise ValueError(f"{self.name}: no model fitted yet (the models need two observations)")
        saved = self.rng.bit_generator.state
        try:
            return self._build_acquisition()
        finally:
            self.rng.bit_generator.state = saved

    def tie_rng(self, purpose: str):
        """The generator that breaks this step's ties for ``purpose`` (None when ``random_ties`` is off)."""
        if not self.random_ties:
            return None
        from tt_core.bo.ties import tie_rng

        return tie_rng(self.seed, purpose, len(self._history))

    def _apply_filter(self, X, acquisition) -> np.ndarray:
        """Indices of the candidates the acquisition is evaluated on (the filter part)."""
        return self.parts.filter.keep(self, X, acquisition)

    def _build_acquisition(self):
        """The acquisition of this iteration: a callable ``X -> values`` (models fixed; the acquisition part)."""
        return self.parts.acquisition.build(self)
