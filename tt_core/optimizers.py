"""Optimisers built from parts, registered by name (TrimTuner paper Sec. IV baselines).

| name           | models                    | sizes        | initial design                 | filter  | acquisition                 | incumbent            |
|----------------|---------------------------|--------------|--------------------------------|---------|-----------------------------|----------------------|
| trimtuner-dt   | bagged extra-trees        | all          | 1 random config at 1/60..1/2   | CEA     | alpha_T (Eq. 5)             | constrained (Alg. 1) |
| trimtuner-gp   | FABOLAS GP (MCMC)         | all          | 1 random config at 1/60..1/2   | CEA     | alpha_T (Eq. 5)             | constrained          |
| fabolas        | FABOLAS GP (MCMC)         | all          | 1 random config at 1/60..1/2   | CMA-ES  | info gain / cost (Eq. 3)    | unconstrained        |
| eic            | GP (ML-II Matern-5/2)     | full only    | 4 Latin-hypercube configs      | none    | EIc                         | constrained          |
| eic-usd        | GP (ML-II Matern-5/2)     | full only    | 4 Latin-hypercube configs      | none    | EIc / predicted cost        | constrained          |
| random         | -                         | full only    | 4 random configs               | -       | uniform random              | best observed feasible |

FABOLAS ignores the constraint, as in the paper. Every optimiser takes an explicit ``seed``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np

from .benchmarks import Benchmark
from .constraints import LOSS, Constraint, check_constraints, observed_feasible
from .loop import History, loss_target
from .space import ConfigSpace

#: Fractions of the largest size tested by the sub-sampled initial design (paper Sec. III).
INIT_FRACTIONS = (1 / 60, 1 / 10, 1 / 4, 1 / 2)


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
    """Ask/tell base: ``suggest() -> (config_id, size)``, ``observe(...)``, ``incumbent()``, ``history``.

    Parameters
    ----------
    space : ConfigSpace
    constraints : sequence of Constraint
    seed : int
    full_size_only : bool
        Candidates are restricted to the largest size (no sub-sampling).
    """

    name = "base"
    init_is_snapshot = False

    def __init__(self, space: ConfigSpace, constraints=(), *, seed: int, full_size_only: bool = True, n_init: int = 4):
        if not isinstance(space, ConfigSpace):
            raise ValueError(f"space must be a ConfigSpace, got {type(space).__name__}")
        self.space = space
        self.constraints = check_constraints(constraints)
        self.seed = seed
        self.rng = np.random.default_rng(seed)
        self.full_size_only = full_size_only
        ids, sizes = space.all_pairs()
        if full_size_only:
            keep = sizes == space.max_size
            ids, sizes = ids[keep], sizes[keep]
        from .space import CandidatePool

        self.pool = CandidatePool(ids, sizes)
        self._history = History()
        self._init_queue: list[tuple[int, int]] = self.initial_design(n_init)
        self.n_init = len(self._init_queue)

    # -- parts ----------------------------------------------------------------------------------
    def initial_design(self, n_init: int) -> list[tuple[int, int]]:
        ids = self.rng.choice(self.space.config_ids, size=min(n_init, self.space.n_configs), replace=False)
        return [(int(c), self.space.max_size) for c in ids]

    def _choose(self) -> tuple[int, int]:  # pragma: no cover - abstract
        raise NotImplementedError

    # -- ask/tell ------------------------------------------------------------------------------
    def suggest(self) -> tuple[int, int]:
        """The next (configuration id, size) to test."""
        if self.pool.n_untested == 0:
            raise ValueError("every candidate has been tested; nothing left to suggest")
        while self._init_queue:
            cid, size = self._init_queue[0]
            if not self.pool.is_tested(cid, size):
                return cid, size
            self._init_queue.pop(0)
        return self._choose()

    def observe(self, config_id: int, size: int, accuracy: float, cost: float = np.nan, time: float = np.nan) -> None:
        """Record a measurement and update the models."""
        if not (0.0 <= float(accuracy) <= 1.0):
            raise ValueError(f"accuracy must be a fraction in [0, 1], got {accuracy}")
        self.pool.mark_tested(config_id, size)
        if self._init_queue and self._init_queue[0] == (int(config_id), int(size)):
            self._init_queue.pop(0)
            phase = "init"
        else:
            phase = "bo"
        self._history.add(config_id=int(config_id), size=int(size), accuracy=float(accuracy), cost=float(cost),
                          time=float(time), phase=phase)
        self._update()

    def _update(self) -> None:
        pass

    def incumbent(self) -> int | None:  # pragma: no cover - abstract
        raise NotImplementedError

    @property
    def history(self):
        """Observations so far as a DataFrame."""
        return self._history.frame()

    # -- helpers -------------------------------------------------------------------------------
    def _observed_feasible(self, h) -> np.ndarray:
        if not self.constraints:
            return np.ones(len(h), dtype=bool)
        return observed_feasible(self.constraints, {"cost": h["cost"].to_numpy(), "time": h["time"].to_numpy(),
                                                    "accuracy": h["accuracy"].to_numpy()})

    def _best_observed_full_size(self) -> int | None:
        h = self.history
        h = h[h["size"] == self.space.max_size]
        if h.empty:
            return None
        feas = self._observed_feasible(h)
        pick = h[feas] if feas.any() else h
        return int(pick.loc[pick["accuracy"].idxmax(), "config_id"])


class RandomSearch(Optimizer):
    """Uniform random full-size configurations; recommends the best observed feasible one."""

    name = "random"

    def _choose(self):
        ids, sizes = self.pool.untested()
        i = int(self.rng.integers(len(ids)))
        return int(ids[i]), int(sizes[i])

    def incumbent(self):
        return self._best_observed_full_size()


ModelFactory = Callable[[str, int, ConfigSpace], object]


class ModelBasedOptimizer(Optimizer):
    """Constrained BO from parts: models, initial design, filter, acquisition, incumbent rule.

    Parameters
    ----------
    space, constraints, seed : see :class:`Optimizer`
    model_factory : callable ``(kind, seed, space) -> Surrogate``
        ``kind`` is ``"loss"``, ``"cost"`` or ``"time"``.
    acquisition : {"trimtuner", "fabolas", "eic", "eic-usd"}
    filter : str
        Filter name (:mod:`tt_core.filters`), applied to the untested candidates before the acquisition.
    beta : float in (0, 1]
        Fraction of untested candidates the filter keeps.
    subsampling : bool
        Test sub-sampled sizes (initial design at 1/60, 1/10, 1/4, 1/2 of the data) or full size only
        (Latin-hypercube initial design).
    constrained_incumbent : bool
        Recommend the predicted-feasible configuration with max predicted accuracy (Alg. 1 line 19);
        False: max predicted accuracy (FABOLAS).
    """

    def __init__(self, space, constraints=(), *, seed, model_factory: ModelFactory, acquisition: str,
                 filter: str = "cea", beta: float = 0.1, subsampling: bool = True, constrained_incumbent: bool = True,
                 n_init: int = 4, n_representers: int = 50, gh_roots: int = 1):
        if not (isinstance(beta, (int, float)) and 0.0 < beta <= 1.0):
            raise ValueError(f"beta must lie in (0, 1] (a fraction of the untested candidates), got {beta!r}")
        known = ("trimtuner", "fabolas", "eic", "eic-usd")
        if acquisition not in known:
            raise ValueError(f"unknown acquisition {acquisition!r}; known: {list(known)}")
        self.model_factory = model_factory
        self.acquisition = acquisition
        self.filter = filter
        self.beta = float(beta)
        self.subsampling = subsampling
        self.constrained_incumbent = constrained_incumbent
        self.n_representers = n_representers
        self.gh_roots = gh_roots
        self.init_is_snapshot = subsampling
        super().__init__(space, constraints, seed=seed, full_size_only=not subsampling, n_init=n_init)
        self.model_kinds = self._model_kinds()
        self.models: dict[str, object] = {}
        self._X_full = space.full_size_X()

    def _model_kinds(self) -> tuple[str, ...]:
        kinds = [LOSS]
        if self.acquisition in ("trimtuner", "fabolas", "eic-usd") or any(c.quantity == "cost" for c in self.constraints):
            kinds.append("cost")
        if any(c.quantity == "time" for c in self.constraints):
            kinds.append("time")
        return tuple(kinds)

    def initial_design(self, n_init):
        if self.subsampling:
            sub = [s for s in self.space.sizes if s < self.space.max_size]
            if not sub:
                raise ValueError(
                    f"this optimiser tests sub-sampled sizes, but the benchmark has only size {self.space.max_size}; "
                    "use a full-size optimiser (eic, eic-usd, random) or add smaller sizes"
                )
            wanted = sorted({min(sub, key=lambda s: abs(np.log(s / (f * self.space.max_size)))) for f in INIT_FRACTIONS})
            cid = int(self.rng.choice(self.space.config_ids))
            return [(cid, int(s)) for s in wanted]
        from scipy.stats import qmc

        U = qmc.LatinHypercube(d=self.space.dim, seed=self.rng).random(n_init)
        chosen: list[int] = []
        enc = self.space.encoded_configs
        for u in U:  # nearest not-yet-chosen configuration
            order = np.argsort(((enc - u) ** 2).sum(axis=1), kind="stable")
            cid = next(int(self.space.config_ids[j]) for j in order if int(self.space.config_ids[j]) not in chosen)
            chosen.append(cid)
        return [(c, self.space.max_size) for c in chosen]

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
        if len(h) < 2:
            return
        X = self.space.encode(h["config_id"].to_numpy(), h["size"].to_numpy())
        targets = self._targets(h)
        for i, kind in enumerate(self.model_kinds):
            model = self.models.get(kind)
            if model is None:
                model = self.model_factory(kind, int(self.rng.integers(2**31)), self.space)
                self.models[kind] = model
            model.fit(X, targets[kind])

    def incumbent(self):
        if not self.models:
            return self._best_observed_full_size() if self.full_size_only else int(self.history["config_id"].iloc[-1])
        from .incumbent import find_incumbent

        cons = self.constraints if self.constrained_incumbent else ()
        inc = find_incumbent(self.models, cons, self._X_full)
        return int(self.space.config_ids[inc.index])

    # -- acquisition -----------------------------------------------------------------------------
    def _candidates(self):
        ids, sizes = self.pool.untested()
        return ids, sizes, self.space.encode(ids, sizes)

    def _choose(self):
        ids, sizes, X = self._candidates()
        if not self.models:  # fewer than two observations (a one-test initial design): nothing to model yet
            i = int(self.rng.integers(len(ids)))
            return int(ids[i]), int(sizes[i])
        acquisition = self._build_acquisition()
        keep = self._apply_filter(X, acquisition)
        if hasattr(acquisition, "argmax"):  # exact, with fewer fantasies (TrimTunerAcquisition.argmax)
            i, _, _ = acquisition.argmax(X[keep])
            return int(ids[keep[i]]), int(sizes[keep[i]])
        values = np.asarray(acquisition(X[keep]), dtype=float)
        if not np.all(np.isfinite(values)):
            values = np.where(np.isfinite(values), values, -np.inf)
        best = keep[int(np.argmax(values))]
        return int(ids[best]), int(sizes[best])

    def _apply_filter(self, X, acquisition) -> np.ndarray:
        """Indices of the candidates the acquisition is evaluated on. DIRECT and CMA-ES maximise the
        acquisition itself on the continuous relaxation (paper Sec. IV-B); CEA ranks by Eq. 6."""
        from .filters import filter_candidates

        return np.asarray(filter_candidates(self.filter, X, self.beta, models=self.models,
                                            constraints=self.constraints, objective=acquisition,
                                            rng=self.rng, space=self.space), dtype=int)

    def _best_feasible_loss(self):
        h = self.history
        feas = self._observed_feasible(h)
        return float(loss_target(h["accuracy"].to_numpy())[feas].min()) if feas.any() else None

    def _build_acquisition(self):
        """The acquisition of this iteration: a callable ``X -> values`` (models fixed)."""
        if self.acquisition in ("eic", "eic-usd"):
            from .acquisitions.ei import EIc, EIcPerUSD

            cls = EIc if self.acquisition == "eic" else EIcPerUSD
            return cls(self.models, self.constraints, self._best_feasible_loss())
        from .acquisitions.entropy_search import EntropySearch, InformationGainPerCost, sample_representers

        Z, lam = sample_representers(self._X_full, self.rng, n=self.n_representers)
        info = InformationGainPerCost(EntropySearch(self.models[LOSS], Z, lam), self.models["cost"])
        if self.acquisition == "fabolas":
            return info
        from .acquisitions.trimtuner import TrimTunerAcquisition

        return TrimTunerAcquisition(info, self.models, self.constraints, self._X_full, n_roots=self.gh_roots)


# ------------------------------------------------------------------------------------------------
# Registry
# ------------------------------------------------------------------------------------------------
def _trees(kind: str, seed: int, space: ConfigSpace):
    """Bagged extra-trees; cost and time models learn ln(q) - ln(s) (see models.size_offset)."""
    from .models.size_offset import SizeOffset
    from .models.trees import ExtraTreesEnsemble

    model = ExtraTreesEnsemble(n_members=10, seed=seed)
    if kind in ("cost", "time"):
        return SizeOffset(model, float(np.log(space.max_size / space.min_size)))
    return model


def _fabolas_gp(kind: str, seed: int, space: ConfigSpace):
    from .models.fabolas_gp import FabolasGP

    return FabolasGP(kind="loss" if kind == LOSS else "cost", seed=seed)


def _matern_gp(kind: str, seed: int, space: ConfigSpace):
    from .models.matern_gp import MaternGP

    return MaternGP(seed=seed)


@dataclass(frozen=True)
class OptimizerSpec:
    description: str
    build: Callable[..., Optimizer]


def _model_based(model_factory, acquisition, filter, subsampling, constrained_incumbent):
    def build(space, constraints, *, seed, beta=0.1, filter_override=None, **kw):
        return ModelBasedOptimizer(
            space, constraints,
            seed=seed, model_factory=model_factory, acquisition=acquisition,
            filter=filter_override or filter, beta=beta, subsampling=subsampling,
            constrained_incumbent=constrained_incumbent, **kw,
        )
    return build


REGISTRY: dict[str, OptimizerSpec] = {
    "trimtuner-dt": OptimizerSpec("TrimTuner, bagged extra-trees", _model_based(_trees, "trimtuner", "cea", True, True)),
    "trimtuner-gp": OptimizerSpec("TrimTuner, FABOLAS GPs", _model_based(_fabolas_gp, "trimtuner", "cea", True, True)),
    "fabolas": OptimizerSpec("FABOLAS (ignores constraints)", _model_based(_fabolas_gp, "fabolas", "cmaes", True, False)),
    "eic": OptimizerSpec("EIc (CherryPick), full size", _model_based(_matern_gp, "eic", "none", False, True)),
    "eic-usd": OptimizerSpec("EIc/USD (Lynceus), full size", _model_based(_matern_gp, "eic-usd", "none", False, True)),
    "random": OptimizerSpec("random search, full size",
                            lambda space, constraints, *, seed, beta=0.1, filter_override=None, **kw: RandomSearch(space, constraints, seed=seed)),
}


#: Budget-driven cost minimisers of the thesis (Nephele, Lynceus, CherryPick), built from a Benchmark;
#: drive them with :func:`tt_core.nephele.run_nephele` (they stop when the exploration budget is spent).
BUDGETED = ("nephele", "lynceus", "cherrypick")


def available() -> list[str]:
    return sorted([*REGISTRY, *BUDGETED])


def make_optimizer(name: str, benchmark_or_space, *, seed: int, beta: float = 0.1, filter: str | None = None,
                   max_cost: float | None = None, max_time: float | None = None, min_accuracy: float | None = None,
                   **options) -> Optimizer:
    """Build a registered optimiser for a benchmark (or a ConfigSpace) and constraints."""
    if name in BUDGETED:
        if not isinstance(benchmark_or_space, Benchmark):
            raise ValueError(f"{name!r} needs a Benchmark (it prices configurations), not a ConfigSpace")
        from .nephele import NEPHELE_OPTIMIZERS

        return NEPHELE_OPTIMIZERS[name](benchmark_or_space, seed=seed, **options)
    if name not in REGISTRY:
        raise ValueError(f"unknown optimizer {name!r}; known optimizers: {available()}")
    if isinstance(benchmark_or_space, Benchmark):
        space = ConfigSpace.from_benchmark(benchmark_or_space)
    elif isinstance(benchmark_or_space, ConfigSpace):
        space = benchmark_or_space
    else:
        raise ValueError(f"expected a Benchmark or ConfigSpace, got {type(benchmark_or_space).__name__}")
    if seed is None:
        raise ValueError("seed is required (same seed, same run)")
    constraints = constraints_for(max_cost, max_time, min_accuracy)
    return REGISTRY[name].build(space, constraints, seed=int(seed), beta=beta, filter_override=filter, **options)
