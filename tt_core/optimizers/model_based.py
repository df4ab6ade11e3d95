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
from tt_core.bo.design import latin_hypercube_configs, random_configs, subsampled_configs, subsampled_snapshot
from tt_core.bo.history import loss_target
from tt_core.bo.incumbent import best_observed
from tt_core.bo.ties import argmax_random_ties
from tt_core.data.space import ConfigSpace
from tt_core.optimizers.base import Optimizer, Recommendation
from tt_core.data.io import shown

ModelFactory = Callable[[str, int, ConfigSpace], object]

#: Incumbent rules of :class:`ModelBasedOptimizer` (``incumbent_rule``).
INCUMBENT_RULES = ("paper", "tested-cea")
#: Initial designs of :class:`ModelBasedOptimizer` (``init_design``).
INIT_DESIGNS = ("paper", "random")


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

    def __init__(self, problem, *, seed: int, full_size_only: bool = True, n_init: int = 4,
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
                         n_init=(0 if by_cost else 4) if n_init is None else n_init, finish_last_run=finish_last_run)

    def _select(self):
        return self._random_untested()

    def incumbent(self):
        return self._best_observed()


class ModelBasedOptimizer(DesignedOptimizer):
    """Constrained BO from parts: models, initial design, filter, acquisition, incumbent rule.

    Parameters
    ----------
    problem, seed : see :class:`tt_core.optimizers.base.Optimizer`
    model_factory : callable ``(kind, seed, space) -> Surrogate``
        ``kind`` is ``"loss"``, ``"cost"`` or ``"time"``.
    acquisition : {"trimtuner", "fabolas", "eic", "eic-usd", "ei"}
        ``"ei"``: expected improvement of the loss below the best *observed* loss, feasible or not (the
        thesis' "BO with EI", §7.1: no constraint).
    filter : str
        Filter name (:mod:`tt_core.bo.filters`), applied to the untested candidates before the acquisition.
    beta : float in (0, 1]
        Fraction of untested candidates the filter keeps.
    subsampling : bool
        Test sub-sampled sizes (initial design at 1/60, 1/10, 1/4, 1/2 of the data) or full size only
        (Latin-hypercube initial design).
    constrained_incumbent : bool
        Recommend the predicted-feasible configuration with max predicted accuracy (Alg. 1 line 19);
        False: max predicted accuracy (FABOLAS).
    snapshot_init : bool
        Charge the sub-sampled initial design as one training run snapshotted at each size (paper
        Sec. III: "a cost equivalent to testing a single configuration using only 50% of the data").
        False: each initial test is charged in full, as in the authors' code (and in the paper's
        Figs. 3-4, whose cost axes are shifted by that difference, see
        :data:`tt_core.data.paper_figures.FIG34_X_SHIFT`).
    incumbent_rule : {"paper", "tested-cea"}
        ``"paper"``: the predicted-feasible full-size configuration of max predicted accuracy among all
        configurations (Alg. 1 line 19, :func:`tt_core.bo.incumbent.find_incumbent`); ``"tested-cea"``:
        as in the authors' code, the configuration of max CEA among those tested so far (any size),
        predicted at full size (:func:`tt_core.bo.incumbent.find_tested_incumbent`).
    init_design : {"paper", "random"}
        ``"paper"``: TrimTuner's one random configuration at 1/60, 1/10, 1/4, 1/2 of the data (with
        ``subsampling``) or ``n_init`` Latin-hypercube full-size configurations (without); ``"random"``:
        ``n_init`` uniformly random configurations, at every sub-sampled size (with ``subsampling``,
        :func:`tt_core.bo.design.subsampled_configs`) or at full size (thesis §4.2, §7.2).
    test_full_size : bool, default True
        With ``subsampling``: whether the full size is a candidate test. False: only sub-sampled sizes
        are tested, the full size only predicted (Fabulinus, thesis ch. 4 and §7.3.3: "Fabulinus only
        predicts the cost and accuracy of the incumbent and never runs it").
    constraint_factor : {"probability", "cea"}
        First factor of the acquisition ``"trimtuner"`` at the fantasised incumbent: ``P(constraints)``
        (TrimTuner Eq. 5) or CEA (Fabulinus, thesis Eq. 4.5); see
        :class:`tt_core.acquisitions.trimtuner.TrimTunerAcquisition`.
    feasibility_threshold : float, default 0.5
        ``P(constraints)`` at which a configuration counts as predicted feasible, in the incumbent rule
        and in the fantasised incumbent of the acquisition (Fabulinus: 0.99, thesis §4.2).
    random_ties : bool, default True
        Break ties of the filter (CEA), of the acquisition's maximum and of the incumbent (either rule) uniformly at
        random with a generator derived from the seed and the step (:mod:`tt_core.bo.ties`); False:
        lowest index first (the behaviour before; with trees it made configuration 0 the first BO
        test of TrimTuner-DT in 8 of 10 RNN runs).
    """

    def __init__(self, problem, *, seed, model_factory: ModelFactory, acquisition: str,
                 filter: str = "cea", beta: float = 0.1, subsampling: bool = True, constrained_incumbent: bool = True,
                 n_init: int = 4, n_representers: int = 50, gh_roots: int = 1, snapshot_init: bool = True,
                 finish_last_run: bool = True, incumbent_rule: str = "paper", random_ties: bool = True,
                 init_design: str = "paper", test_full_size: bool = True, constraint_factor: str = "probability",
                 feasibility_threshold: float = 0.5):
        if not (isinstance(beta, (int, float)) and 0.0 < beta <= 1.0):
            raise ValueError(f"beta must lie in (0, 1] (a fraction of the untested candidates), got {shown(beta)}")
        known = ("trimtuner", "fabolas", "eic", "eic-usd", "ei")
        if acquisition not in known:
            raise ValueError(f"unknown acquisition {shown(acquisition)}; known: {list(known)}")
        from tt_core.bo.filters import get_filter

        get_filter(filter)  # an unknown filter fails here, with the list of known ones
        if incumbent_rule not in INCUMBENT_RULES:
            raise ValueError(f"unknown incumbent_rule {shown(incumbent_rule)}; known: {list(INCUMBENT_RULES)}")
        self.incumbent_rule = incumbent_rule
        if init_design not in INIT_DESIGNS:
            raise ValueError(f"unknown init_design {shown(init_design)}; known: {list(INIT_DESIGNS)}")
        from tt_core.acquisitions.trimtuner import TrimTunerAcquisition
        from tt_core.bo.incumbent import _check_threshold

        if constraint_factor not in TrimTunerAcquisition.FACTORS:
            raise ValueError(f"unknown constraint_factor {shown(constraint_factor)}; "
                             f"known: {list(TrimTunerAcquisition.FACTORS)}")
        self.feasibility_threshold = _check_threshold(feasibility_threshold)
        self.init_design = init_design
        self.constraint_factor = constraint_factor
        self.test_full_size = bool(test_full_size)
        if not subsampling and not test_full_size:
            raise ValueError("test_full_size=False needs subsampling (an optimiser without sub-sampling tests only "
                             "the full size)")
        self.model_factory = model_factory
        self.acquisition = acquisition
        self.filter = filter
        self.beta = float(beta)
        self.subsampling = subsampling
        self.constrained_incumbent = constrained_incumbent
        self.n_representers = n_representers
        self.gh_roots = gh_roots
        self.random_ties = bool(random_ties)
        super().__init__(problem, seed=seed, full_size_only=not subsampling, n_init=n_init,
                         finish_last_run=finish_last_run)
        if not self.test_full_size:
            self._restrict_pool(self.pool.pairs[1] < self.space.max_size)
        self.init_is_snapshot = subsampling and snapshot_init
        self.model_kinds = self._model_kinds()
        self.models: dict[str, object] = {}
        self._X_full = self.space.full_size_X()

    def _model_kinds(self) -> tuple[str, ...]:
        kinds = [LOSS]
        if self.acquisition in ("trimtuner", "fabolas", "eic-usd") or any(c.quantity == "cost" for c in self.constraints):
            kinds.append("cost")
        if any(c.quantity == "time" for c in self.constraints):
            kinds.append("time")
        return tuple(kinds)

    def initial_design(self, n_init):
        if self.init_design == "random":
            if self.subsampling:
                return subsampled_configs(self.space, n_init, self.rng)
            return random_configs(self.space, n_init, self.rng)
        if self.subsampling:
            return subsampled_snapshot(self.space, self.rng)
        return latin_hypercube_configs(self.space, n_init, self.rng)

    # -- models ----------------------------------------------------------------------------------
    def _targets(self, h) -> dict[str, np.ndarray]:
        out = {LOSS: loss_target(h["accuracy"].to_numpy())}
        for kind, col in (("cost", "cost"), ("time", "time")):
            if kind in self.model_kinds:
                v = h[col].to_numpy(float)
                if not np.all(np.isfinite(v) & (v > 0)):
                    raise ValueError(f"every observation needs a positive {col} to model it; got {v}")
                out[kind] = np.log(v)
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
                model = self.model_factory(kind, int(self.rng.integers(2**31)), self.space)
                self.models[kind] = model
            model.fit(X, targets[kind])

    def incumbent(self):
        if not self.models:
            if self.full_size_only:
                return self._best_observed()
            h = self.history
            return Recommendation(int(h["config_id"].iloc[-1]), self.space.max_size) if len(h) else None
        if self.incumbent_rule == "tested-cea":
            return self._tested_cea_incumbent()
        from tt_core.bo.incumbent import find_incumbent

        cons = self.constraints if self.constrained_incumbent else ()
        inc = find_incumbent(self.models, cons, self._X_full, threshold=self.feasibility_threshold,
                             rng=self._ties("incumbent"))
        return Recommendation(int(self.space.config_ids[inc.index]), self.space.max_size)

    def _tested_cea_incumbent(self) -> Recommendation:
        """The authors' code's rule: max CEA at full size among the configurations tested so far."""
        from tt_core.bo.incumbent import find_tested_incumbent

        h = self.history
        ids = np.array(list(dict.fromkeys(h.loc[h["used"].to_numpy(bool), "config_id"].astype(int))))
        X = self.space.encode(ids, np.full(ids.size, self.space.max_size))
        cons = self.constraints if self.constrained_incumbent else ()
        inc = find_tested_incumbent(self.models, cons, X, rng=self._ties("incumbent"))
        return Recommendation(int(ids[inc.index]), self.space.max_size)

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
        ties = self._ties("acquisition")
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

    def _ties(self, purpose: str):
        """The generator that breaks this step's ties for ``purpose`` (None when ``random_ties`` is off)."""
        if not self.random_ties:
            return None
        from tt_core.bo.ties import tie_rng

        return tie_rng(self.seed, purpose, len(self._history))

    def _apply_filter(self, X, acquisition) -> np.ndarray:
        """Indices of the candidates the acquisition is evaluated on. DIRECT and CMA-ES maximise the
        acquisition itself on the continuous relaxation (paper Sec. IV-B); CEA ranks by Eq. 6."""
        from tt_core.bo.filters import filter_candidates

        return np.asarray(filter_candidates(self.filter, X, self.beta, models=self.models,
                                            constraints=self.constraints, objective=acquisition,
                                            rng=self.rng, space=self.space, tie_rng=self._ties("filter")),
                          dtype=int)

    def _best_feasible_loss(self):
        h = self.history
        feas = h["feasible"].to_numpy(bool) & h["used"].to_numpy(bool)
        return float(loss_target(h["accuracy"].to_numpy())[feas].min()) if feas.any() else None

    def _build_acquisition(self):
        """The acquisition of this iteration: a callable ``X -> values`` (models fixed)."""
        if self.acquisition == "ei":
            from tt_core.acquisitions.ei import EI

            h = self.history
            return EI(self.models[LOSS], float(loss_target(h["accuracy"].to_numpy())[h["used"].to_numpy(bool)].min()))
        if self.acquisition in ("eic", "eic-usd"):
            from tt_core.acquisitions.ei import EIc, EIcPerUSD

            cls = EIc if self.acquisition == "eic" else EIcPerUSD
            return cls(self.models, self.constraints, self._best_feasible_loss())
        from tt_core.acquisitions.entropy_search import EntropySearch, InformationGainPerCost, sample_representers
        from tt_core.acquisitions.memo import RowMemo

        Z, lam = sample_representers(self._X_full, self.rng, n=self.n_representers)
        # each candidate's information gain is computed once, whether the filter (DIRECT, CMA-ES) or the
        # final maximisation asks for it first
        info = RowMemo(InformationGainPerCost(EntropySearch(self.models[LOSS], Z, lam), self.models["cost"]))
        if self.acquisition == "fabolas":
            return info
        from tt_core.acquisitions.trimtuner import TrimTunerAcquisition

        return TrimTunerAcquisition(info, self.models, self.constraints, self._X_full, n_roots=self.gh_roots,
                                    feasibility_threshold=self.feasibility_threshold, factor=self.constraint_factor)
