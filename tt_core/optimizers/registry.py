"""One registry for every optimiser of the workbook, built from one problem description.

=============  ======================  ==========================  ================================  ==============
name           family                  models                      initial design                    objective
=============  ======================  ==========================  ================================  ==============
trimtuner-dt   model-based (Alg. 1)    bagged extra-trees          1 random config at 1/60..1/2      max accuracy
trimtuner-gp   model-based             FABOLAS GP (MCMC)           1 random config at 1/60..1/2      max accuracy
fabolas        model-based             FABOLAS GP (MCMC)           1 random config at 1/60..1/2      max accuracy (ignores constraints)
eic            model-based             GP (ML-II Matern-5/2)       4 Latin-hypercube configs         max accuracy
eic-usd        model-based             GP (ML-II Matern-5/2)       4 Latin-hypercube configs         max accuracy
fabulinus      model-based (thesis)    FABOLAS GP (MCMC)           3% of configs at 1/60..1/2        max accuracy
ei             model-based             GP (ML-II Matern-5/2)       4 Latin-hypercube configs         max accuracy (ignores constraints)
random         random                  -                           4 random configs / none           either
nephele        budgeted (thesis)       5 bagged trees              LHS until B_init                  min cost
lynceus        budgeted                5 bagged trees              LHS until B_init (full size)      min cost
cherrypick     budgeted                5 bagged trees              LHS until B_init (full size)      min cost
=============  ======================  ==========================  ================================  ==============

TrimTuner and its baselines (paper Sec. IV): filter CEA for TrimTuner (beta 10 %), CMA-ES for FABOLAS,
none for EIc and EIc/USD; acquisitions alpha_T (Eq. 5), information gain per cost (Eq. 3), EIc,
EIc / predicted cost. Fabulinus (thesis ch. 4, evaluated in ch. 7) is TrimTuner-GP with the thesis'
acquisition ES_C (Eq. 4.4-4.5: the fantasised incumbent's CEA, not only its probability of meeting the
constraint), the incumbent rule "P(constraint) >= 0.99" (§4.2), sub-sampled tests only and an initial
design of ``ceil(3% x configurations)`` random configurations at every sub-sampled size, each test
charged in full (§4.2, §7.2). ``ei`` is the thesis' "BO with EI" (§7.1): EIc without the constraint,
full size, unconstrained incumbent. Nephele, Lynceus and CherryPick (thesis §6.1) minimise cost under an accuracy
and a time limit and stop when the exploration budget is spent. Random search samples full-size
configurations when maximising accuracy and every size when minimising cost (thesis §6.1).

:func:`make_optimizer` checks that the method can honour the problem: a limit or option it cannot
honour is a ``ValueError`` naming what it accepts.
"""

from __future__ import annotations

import inspect
import math
from dataclasses import dataclass
from typing import Callable

from tt_core.data.benchmarks import Benchmark, price_per_second
from tt_core.data.space import ConfigSpace
from tt_core.optimizers.base import Optimizer, Problem, constraints_for
from tt_core.optimizers.budgeted import CherryPick, Lynceus, Nephele
from tt_core.optimizers.model_based import ModelBasedOptimizer, RandomSearch
from tt_core.optimizers.parts import ACQUISITIONS, FabolasGPSurrogate, MaternGPSurrogate, TreeSurrogate
from tt_core.data.io import shown
from tt_core.data.paper_defaults import CEA_BETA
from tt_core.data.seeds import check_seed


#: Surrogate variants of the tree-based optimiser (option ``trees``): one tree surrogate, two variants.
TREE_VARIANTS = {variant: TreeSurrogate(variant) for variant in TreeSurrogate.VARIANTS}
_trees, _overhead_trees = (TREE_VARIANTS[v] for v in ("workbook", "overhead"))
_fabolas_gp = FabolasGPSurrogate()
_matern_gp = MaternGPSurrogate()

#: Keyword options of each part of a model-based optimiser (:mod:`tt_core.optimizers.parts`) and of the
#: optimiser itself: :func:`make_optimizer` accepts an option only when one of the optimiser's parts takes it.
ACQUISITION_OPTIONS = {name: recipe.options for name, recipe in ACQUISITIONS.items()}
INCUMBENT_OPTIONS = ("incumbent_rule", "feasibility_threshold")
DESIGN_OPTIONS = ("init_design", "n_init", "snapshot_init")
LOOP_OPTIONS = ("test_full_size", "random_ties", "finish_last_run")


@dataclass(frozen=True)
class OptimizerSpec:
    """A registered optimiser: what it is, what it optimises, what it honours, how to build it."""

    description: str
    family: str                      # "model-based", "budgeted" or "random"
    objective: str | None            # "accuracy", "cost" or None (either)
    limits: tuple[str, ...]          # the limits it honours, of "max_cost", "max_time", "min_accuracy"
    build: Callable[..., Optimizer]
    cls: type


@dataclass(frozen=True)
class ModelBasedRecipe:
    """A named model-based optimiser as parts: its surrogate, its acquisition and filter (by name), whether
    it tests sub-sampled sizes and honours the constraint in its incumbent, and the method's settings
    (``defaults``, ``(option, value)`` pairs the caller may override). Calling it builds the optimiser
    (:meth:`ModelBasedOptimizer.from_settings`); :meth:`options` are the keyword options its parts take."""

    surrogate: Callable
    acquisition: str
    filter: str
    subsampling: bool
    constrained_incumbent: bool
    defaults: tuple = ()

    def options(self) -> list[str]:
        """The keyword options this optimiser's parts take (surrogate, acquisition, incumbent rule, initial
        design, loop), in that order."""
        names = ["trees"] if isinstance(self.surrogate, TreeSurrogate) else []
        names += [*ACQUISITION_OPTIONS[self.acquisition], *INCUMBENT_OPTIONS, *DESIGN_OPTIONS, *LOOP_OPTIONS]
        return list(dict.fromkeys(names))

    def __call__(self, problem, *, seed, beta=None, filter_override=None, trees=None, **kw) -> ModelBasedOptimizer:
        surrogate = self.surrogate
        if trees is not None:
            if not isinstance(surrogate, TreeSurrogate):
                raise ValueError("option trees applies to the tree-based optimiser (trimtuner-dt) only")
            surrogate = TreeSurrogate(trees)  # an unknown variant fails here, with the known ones
        settings = {**dict(self.defaults), **kw}
        if callable(settings.get("n_init")):
            settings["n_init"] = settings["n_init"](problem.space)
        return ModelBasedOptimizer.from_settings(
            problem, seed=seed, model_factory=surrogate, acquisition=self.acquisition,
            filter=filter_override or self.filter, beta=CEA_BETA if beta is None else beta, subsampling=self.subsampling,
            constrained_incumbent=self.constrained_incumbent, **settings)


def _model_based(model_factory, acquisition, filter, subsampling, constrained_incumbent, **defaults) -> ModelBasedRecipe:
    """The recipe of a model-based optimiser; ``defaults`` are method settings the caller may override."""
    return ModelBasedRecipe(model_factory, acquisition, filter, subsampling, constrained_incumbent,
                            tuple(defaults.items()))


#: Share of the search space (configurations) in Fabulinus' initial design (thesis §7.2: "a number of
#: configurations that corresponds to 3% of the search space size, randomly selected").
FABULINUS_INIT_SHARE = 0.03


def fabulinus_n_init(space: ConfigSpace) -> int:
    """Configurations of Fabulinus' initial design: ``ceil(3% x configurations)`` (288 -> 9; thesis §7.2)."""
    return max(1, math.ceil(FABULINUS_INIT_SHARE * space.n_configs - 1e-9))


#: Fabulinus' settings on top of TrimTuner-GP (thesis ch. 4 and §7.2).
FABULINUS_SETTINGS = {"constraint_factor": "cea", "feasibility_threshold": 0.99, "test_full_size": False,
                      "init_design": "random", "n_init": fabulinus_n_init, "snapshot_init": False}


def _plain(cls):
    def build(problem, *, seed, beta=None, filter_override=None, **kw):
        return cls(problem, seed=seed, **kw)
    return build


_LIMITS_ALL = ("max_cost", "max_time", "min_accuracy")
_LIMITS_COST = ("min_accuracy", "max_time")

REGISTRY: dict[str, OptimizerSpec] = {
    "trimtuner-dt": OptimizerSpec("TrimTuner, bagged extra-trees", "model-based", "accuracy", _LIMITS_ALL,
                                  _model_based(_trees, "trimtuner", "cea", True, True), ModelBasedOptimizer),
    "trimtuner-gp": OptimizerSpec("TrimTuner, FABOLAS GPs", "model-based", "accuracy", _LIMITS_ALL,
                                  _model_based(_fabolas_gp, "trimtuner", "cea", True, True), ModelBasedOptimizer),
    "fabolas": OptimizerSpec("FABOLAS (ignores constraints)", "model-based", "accuracy", _LIMITS_ALL,
                             _model_based(_fabolas_gp, "fabolas", "cmaes", True, False), ModelBasedOptimizer),
    "eic": OptimizerSpec("EIc (CherryPick), full size", "model-based", "accuracy", _LIMITS_ALL,
                         _model_based(_matern_gp, "eic", "none", False, True), ModelBasedOptimizer),
    "eic-usd": OptimizerSpec("EIc/USD (Lynceus), full size", "model-based", "accuracy", _LIMITS_ALL,
                             _model_based(_matern_gp, "eic-usd", "none", False, True), ModelBasedOptimizer),
    "fabulinus": OptimizerSpec("Fabulinus (thesis ch. 4): TrimTuner-GP with ES_C, P>=0.99 incumbent, sub-sampled tests",
                               "model-based", "accuracy", _LIMITS_ALL,
                               _model_based(_fabolas_gp, "trimtuner", "cea", True, True, **FABULINUS_SETTINGS),
                               ModelBasedOptimizer),
    "ei": OptimizerSpec("BO with EI (thesis §7.1), full size, ignores constraints", "model-based", "accuracy", _LIMITS_ALL,
                        _model_based(_matern_gp, "ei", "none", False, False), ModelBasedOptimizer),
    "random": OptimizerSpec("random search", "random", None, _LIMITS_ALL, _plain(RandomSearch), RandomSearch),
    "nephele": OptimizerSpec("Nephele: min cost, sub-sampling, lookahead (thesis)", "budgeted", "cost",
                             _LIMITS_COST, _plain(Nephele), Nephele),
    "lynceus": OptimizerSpec("Lynceus as in the thesis: Nephele at full size", "budgeted", "cost",
                             _LIMITS_COST, _plain(Lynceus), Lynceus),
    "cherrypick": OptimizerSpec("CherryPick with a budget: argmax EIc, full size", "budgeted", "cost",
                                _LIMITS_COST, _plain(CherryPick), CherryPick),
}


def available() -> list[str]:
    """Every registered optimiser name."""
    return sorted(REGISTRY)


def spec(name: str) -> OptimizerSpec:
    """The registry entry of ``name`` (a clear error lists the known names)."""
    if name not in REGISTRY:
        raise ValueError(f"unknown optimizer {shown(name)}; known optimizers: {available()}")
    return REGISTRY[name]


def objective_of(name: str, objective: str | None = None) -> str:
    """The objective ``name`` optimises (``objective`` chooses for random search; default accuracy)."""
    own = spec(name).objective
    if objective is not None and own is not None and objective != own:
        raise ValueError(f"{shown(name)} optimises {shown(own)}, not {shown(objective)}")
    return objective or own or "accuracy"


def accepted_options(name: str) -> list[str]:
    """Keyword options of ``name`` beyond the problem and the seed.

    A model-based optimiser takes the options of its parts (:meth:`ModelBasedRecipe.options`); the others'
    are read from the ``__init__`` signatures along the class hierarchy (a subclass passing ``**kwargs`` on
    accepts its parents' options), less the ones the registry or the class itself fixes.
    """
    s = spec(name)
    if isinstance(s.build, ModelBasedRecipe):
        return s.build.options()
    cls = s.cls
    fixed = {"self", "problem", "seed", *getattr(cls, "fixed_options", ())}
    names: list[str] = []
    for klass in cls.__mro__:
        init = klass.__dict__.get("__init__")
        if init is None:
            continue
        params = inspect.signature(init).parameters
        names += [p for p, v in params.items() if p not in fixed and p not in names
                  and v.kind not in (v.VAR_KEYWORD, v.VAR_POSITIONAL)]
        if not any(v.kind is v.VAR_KEYWORD for v in params.values()):
            break
    return names


def make_problem(name: str, benchmark_or_space, *, max_cost: float | None = None, max_time: float | None = None,
                 min_accuracy: float | None = None, budget: float | None = None,
                 objective: str | None = None) -> Problem:
    """The :class:`Problem` of optimiser ``name`` on a benchmark (or a ConfigSpace) with these limits.

    Raises a ``ValueError`` for a limit the method cannot honour.
    """
    s = spec(name)
    given = {"max_cost": max_cost, "max_time": max_time, "min_accuracy": min_accuracy}
    refused = [k for k, v in given.items() if v is not None and k not in s.limits]
    if refused:
        hint = (" (it minimises the cost: the exploration's spending limit is budget=<USD>)"
                if "max_cost" in refused and s.objective == "cost" else "")
        raise ValueError(f"{shown(name)} cannot honour {', '.join(refused)}{hint}; it takes {', '.join(s.limits)}")
    if isinstance(benchmark_or_space, Benchmark):
        bench = benchmark_or_space
        space = ConfigSpace.from_benchmark(bench)
        label = bench.name
    elif isinstance(benchmark_or_space, ConfigSpace):
        bench, space, label = None, benchmark_or_space, ""
    else:
        raise ValueError(f"expected a Benchmark, ConfigSpace or Problem, got {type(benchmark_or_space).__name__}")
    obj = objective_of(name, objective)
    prices = None
    if obj == "cost":
        if bench is None:
            raise ValueError(f"{shown(name)} minimising cost needs a Benchmark (it prices configurations), or a Problem "
                             "with price_per_second")
        prices = price_per_second(bench)
    return Problem(space, constraints_for(max_cost, max_time, min_accuracy), objective=obj, budget=budget,
                   price_per_second=prices, name=label)


def make_optimizer(name: str, problem, *, seed: int, beta: float | None = None, filter: str | None = None,
                   max_cost: float | None = None, max_time: float | None = None, min_accuracy: float | None = None,
                   budget: float | None = None, objective: str | None = None, **options) -> Optimizer:
    """Build a registered optimiser.

    Parameters
    ----------
    name : str
        One of :func:`available`.
    problem : Problem, Benchmark or ConfigSpace
        With a Benchmark or ConfigSpace, the limits below describe the problem (see :func:`make_problem`);
        with a Problem they must be left out.
    seed : int
        Seed of every random choice (same seed, same run).
    beta, filter : optional
        Filter fraction and filter name; only for the model-based optimisers (TrimTuner, FABOLAS, EIc).
    max_cost, max_time, min_accuracy, budget, objective : optional
        The problem's limits, exploration budget (USD) and objective (random search only).
    **options
        Method options (e.g. ``initial_budget`` and ``horizon`` for Nephele; ``n_init``); an unknown
        option is a ``ValueError`` listing the accepted ones.
    """
    s = spec(name)
    if seed is None:
        raise ValueError("seed is required (same seed, same run)")
    if isinstance(problem, Problem):
        given = [k for k, v in {"max_cost": max_cost, "max_time": max_time, "min_accuracy": min_accuracy,
                                "budget": budget, "objective": objective}.items() if v is not None]
        if given:
            raise ValueError(f"pass {', '.join(given)} in the Problem, not beside it")
        if s.objective is not None and problem.objective != s.objective:
            raise ValueError(f"{shown(name)} optimises {shown(s.objective)}; the problem's objective is {shown(problem.objective)}")
        refused = [q for q in problem.quantities
                   if {"cost": "max_cost", "time": "max_time", "accuracy": "min_accuracy"}[q] not in s.limits]
        if refused:
            raise ValueError(f"{shown(name)} cannot honour a constraint on {', '.join(refused)}; it takes "
                             f"{', '.join(s.limits)}")
    else:
        problem = make_problem(name, problem, max_cost=max_cost, max_time=max_time, min_accuracy=min_accuracy,
                               budget=budget, objective=objective)
    if s.family != "model-based":
        extra = [k for k, v in (("filter", filter), ("beta", beta)) if v is not None]
        if extra:
            raise ValueError(f"{shown(name)} has no candidate filter; {' and '.join(extra)} {'apply' if len(extra) > 1 else 'applies'} only to the model-based "
                             "optimisers (trimtuner-dt, trimtuner-gp, fabolas, fabulinus, eic, eic-usd, ei)")
    accepted = accepted_options(name)
    unknown = sorted(set(options) - set(accepted))
    if unknown:
        raise ValueError(f"{shown(name)} has no option {', '.join(unknown)}; its options: {', '.join(accepted) or 'none'}")
    if s.family == "budgeted" and "initial_budget" not in options:
        raise ValueError(f"{shown(name)} needs initial_budget=<USD> (B_init of the initial sampling; thesis Table 6.1: "
                         "CNN 5, RNN 1, MLP 2)")
    opt = s.build(problem, seed=check_seed(seed), beta=beta, filter_override=filter, **options)
    opt.name = name
    return opt
