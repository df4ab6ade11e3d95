"""The parts a :class:`tt_core.optimizers.model_based.ModelBasedOptimizer` is assembled from.

Each part is a small object with one contract and validates its own settings when it is made:

=================  ===============================================  =========================================
part               contract                                         parts
=================  ===============================================  =========================================
surrogate          ``surrogate(kind, seed, space) -> model``        :class:`TreeSurrogate` (three variants),
                   (``kind``: ``"loss"``, ``"cost"``, ``"time"``)   :class:`FabolasGPSurrogate`,
                                                                    :class:`MaternGPSurrogate`; any callable
acquisition        ``build(opt) -> callable X -> values``           :class:`Acquisition` of a name in
                   (models fixed for one step)                      :data:`ACQUISITIONS` (trimtuner, fabolas,
                                                                    eic, eic-usd, ei)
filter             ``keep(opt, X, acquisition) -> row indices``     :class:`CandidateFilter`
incumbent rule     ``recommend(opt) -> Recommendation``             :class:`PredictedIncumbent`,
                                                                    :class:`TestedCEAIncumbent`
initial design     ``pairs(space, rng, subsampling) -> pairs``      :class:`PaperDesign`, :class:`RandomDesign`
=================  ===============================================  =========================================

A part reads the optimiser only through its public attributes (``models``, ``constraints``, ``history``,
``space``, ``rng``, ``X_full``, ``tie_rng``). An acquisition's options are listed once, in
:data:`ACQUISITIONS`; the registry reads them (:data:`tt_core.optimizers.registry.ACQUISITION_OPTIONS`,
beside the other parts' options) to route (and refuse) the keyword options of
:func:`tt_core.optimizers.registry.make_optimizer`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np

from tt_core.bo.constraints import LOSS
from tt_core.bo.design import latin_hypercube_configs, random_configs, subsampled_configs, subsampled_snapshot
from tt_core.bo.history import loss_target
from tt_core.bo.incumbent import FEASIBILITY_THRESHOLD, _check_threshold
from tt_core.data.io import shown
from tt_core.data.paper_defaults import CEA_BETA, INITIAL_SAMPLES
from tt_core.data.space import ConfigSpace
from tt_core.data.validation import check_fraction, check_int


# -- surrogates ------------------------------------------------------------------------------------
class TreeSurrogate:
    """Bagged extra-trees; the cost and time models learn ``ln(q) - ln(s)`` (:mod:`tt_core.models.size_offset`).

    ``variant``: ``"workbook"`` (:class:`tt_core.models.trees.ExtraTreesEnsemble`) or ``"overhead"`` (the
    workbook's ensemble whose cost and time models divide by ``r + (1 - r) s``, a start-up share ``r``
    fitted on the observations, ``SizeOffset(overhead="fit")``, instead of the size fraction ``s``: a
    1/60-size RNN run costs 0.040 of the full-size run, not 1/60).
    """

    VARIANTS = ("workbook", "overhead")

    def __init__(self, variant: str = "workbook", n_members: int = 10):
        if variant == "authors":  # a reconstruction, dropped: the authors' code itself runs as the oracle
            raise ValueError("trees 'authors' (a reconstruction of the authors' tree model) was dropped; run the "
                             "authors' code itself: tt authors run, or optimiser authors-dt in the run store")
        if variant not in self.VARIANTS:
            raise ValueError(f"unknown trees {shown(variant)}; known: {list(self.VARIANTS)}")
        self.variant = variant
        self.n_members = check_int("n_members", n_members, 1)

    def __call__(self, kind: str, seed: int, space: ConfigSpace):
        from tt_core.models.size_offset import SizeOffset
        from tt_core.models.trees import ExtraTreesEnsemble

        model = ExtraTreesEnsemble(n_members=self.n_members, seed=seed)
        if kind in ("cost", "time"):
            overhead = {"overhead": "fit"} if self.variant == "overhead" else {}
            return SizeOffset(model, float(np.log(space.max_size / space.min_size)), **overhead)
        return model

    def __repr__(self) -> str:
        return f"TreeSurrogate({self.variant!r})"


class FabolasGPSurrogate:
    """FABOLAS' Gaussian processes (MCMC over the hyperparameters): one for the loss, one for the cost."""

    def __call__(self, kind: str, seed: int, space: ConfigSpace):
        from tt_core.models.fabolas_gp import FabolasGP

        return FabolasGP(kind="loss" if kind == LOSS else "cost", seed=seed)


class MaternGPSurrogate:
    """A GP with a Matern-5/2 kernel fitted by maximum likelihood (ML-II), one per modelled quantity."""

    def __call__(self, kind: str, seed: int, space: ConfigSpace):
        from tt_core.models.matern_gp import MaternGP

        return MaternGP(seed=seed)


# -- acquisitions ----------------------------------------------------------------------------------
def best_loss(history, feasible_only: bool) -> float | None:
    """Lowest observed ``ln(1 - accuracy)`` among the used observations (only the feasible ones when
    ``feasible_only``), or None when there is none."""
    used = history["used"].to_numpy(bool)
    keep = used & history["feasible"].to_numpy(bool) if feasible_only else used
    losses = loss_target(history["accuracy"].to_numpy())[keep]
    return float(losses.min()) if keep.any() else None


def _ei(opt):
    """EI of the loss below the best *observed* loss, feasible or not (the thesis' "BO with EI", §7.1)."""
    from tt_core.acquisitions.ei import EI

    return EI(opt.models[LOSS], best_loss(opt.history, feasible_only=False))


def _eic(opt):
    """Constrained EI (CherryPick) below the best feasible observed loss."""
    from tt_core.acquisitions.ei import EIc

    return EIc(opt.models, opt.constraints, best_loss(opt.history, feasible_only=True))


def _eic_per_usd(opt):
    """EIc per unit of the predicted cost's log-normal mean (Lynceus' EIc/USD)."""
    from tt_core.acquisitions.per_cost import LogNormalMeanCost, PerUnitCost

    return PerUnitCost(_eic(opt), LogNormalMeanCost(opt.models))


def information_gain_per_cost(opt, n_representers: int):
    """FABOLAS' information gain about the full-size optimum per predicted cost (paper Eq. 3), with
    ``n_representers`` representer points drawn from the optimiser's random stream."""
    from tt_core.acquisitions.entropy_search import EntropySearch, sample_representers
    from tt_core.acquisitions.memo import RowMemo
    from tt_core.acquisitions.per_cost import MedianCost, PerUnitCost

    Z, lam = sample_representers(opt.X_full, opt.rng, n=n_representers)
    # each candidate's information gain is computed once, whether the filter (DIRECT, CMA-ES) or the
    # final maximisation asks for it first
    return RowMemo(PerUnitCost(EntropySearch(opt.models[LOSS], Z, lam), MedianCost(opt.models["cost"])))


def _alpha_t(opt, n_representers: int, gh_roots: int, constraint_factor: str, feasibility_threshold: float):
    """TrimTuner's acquisition (paper Eq. 5; Fabulinus' ES_C, thesis Eq. 4.4-4.5 with ``"cea"``): the
    information gain per cost times the constraint factor at the fantasised incumbent."""
    from tt_core.acquisitions.trimtuner import TrimTunerAcquisition

    return TrimTunerAcquisition(information_gain_per_cost(opt, n_representers), opt.models, opt.constraints,
                                opt.X_full, n_roots=gh_roots, feasibility_threshold=feasibility_threshold,
                                factor=constraint_factor)


def _check_factor(factor: str) -> str:
    from tt_core.acquisitions.trimtuner import TrimTunerAcquisition

    if factor not in TrimTunerAcquisition.FACTORS:
        raise ValueError(f"unknown constraint_factor {shown(factor)}; known: {list(TrimTunerAcquisition.FACTORS)}")
    return factor


#: Every acquisition option: its default and its check, in the order they are checked.
ACQUISITION_SETTINGS = {
    "constraint_factor": ("probability", _check_factor),                  # Eq. 5 (thesis Eq. 4.5: "cea")
    "feasibility_threshold": (FEASIBILITY_THRESHOLD, _check_threshold),   # of the fantasised incumbent
    "n_representers": (50, lambda v: check_int("n_representers", v, 1)),
    "gh_roots": (1, lambda v: check_int("gh_roots", v, 1)),               # 1: the paper's single root
}


@dataclass(frozen=True)
class AcquisitionRecipe:
    """How a step builds a named acquisition on the optimiser's models: ``build(opt, **options)``, whether
    it needs a cost model, and the options it takes (of :data:`ACQUISITION_SETTINGS`)."""

    build: Callable
    needs_cost: bool
    options: tuple[str, ...] = ()


#: The acquisitions by name (the ``acquisition`` setting of
#: :meth:`tt_core.optimizers.model_based.ModelBasedOptimizer.from_settings`), each with its options: the one
#: place they are listed (:data:`tt_core.optimizers.registry.ACQUISITION_OPTIONS` is read from here).
ACQUISITIONS = {
    "trimtuner": AcquisitionRecipe(_alpha_t, True, ("n_representers", "gh_roots", "constraint_factor",
                                                    "feasibility_threshold")),
    "fabolas": AcquisitionRecipe(information_gain_per_cost, True, ("n_representers",)),
    "eic": AcquisitionRecipe(_eic, False),
    "eic-usd": AcquisitionRecipe(_eic_per_usd, True),
    "ei": AcquisitionRecipe(_ei, False),
}


class Acquisition:
    """The acquisition part: a named acquisition of :data:`ACQUISITIONS` with its options, each checked
    once, here; :meth:`build` makes the step's acquisition on the optimiser's current models.

    Parameters
    ----------
    name : str
        One of :data:`ACQUISITIONS`.
    **options
        Options the acquisition takes (:attr:`AcquisitionRecipe.options`); the others keep their
        :data:`ACQUISITION_SETTINGS` default. Each is also an attribute (``part.gh_roots``).
    """

    def __init__(self, name: str, **options):
        if name not in ACQUISITIONS:
            raise ValueError(f"unknown acquisition {shown(name)}; known: {list(ACQUISITIONS)}")
        recipe = ACQUISITIONS[name]
        unknown = sorted(set(options) - set(recipe.options))
        if unknown:
            raise ValueError(f"acquisition {shown(name)} has no option {', '.join(unknown)}; its options: "
                             f"{', '.join(recipe.options) or 'none'}")
        self.name = name
        self.needs_cost = recipe.needs_cost
        self.options = {}
        for key, (default, check) in ACQUISITION_SETTINGS.items():
            if key in recipe.options:
                self.options[key] = check(options.get(key, default))
                setattr(self, key, self.options[key])

    def build(self, opt):
        return ACQUISITIONS[self.name].build(opt, **self.options)

    def __repr__(self) -> str:
        return f"Acquisition({self.name!r}{''.join(f', {k}={v!r}' for k, v in self.options.items())})"


# -- filter ----------------------------------------------------------------------------------------
class CandidateFilter:
    """The filter (:mod:`tt_core.bo.filters`) that picks the untested candidates the acquisition is maximised
    over: ``beta`` (in (0, 1]) of them. DIRECT and CMA-ES maximise the acquisition itself on the continuous
    relaxation (paper Sec. IV-B); CEA ranks by Eq. 6."""

    def __init__(self, name: str = "cea", beta: float = CEA_BETA):
        from tt_core.bo.filters import get_filter

        beta = check_fraction("beta", beta, "(the paper uses 0.1)")
        get_filter(name)  # an unknown filter fails here, with the list of known ones
        self.name = name
        self.beta = beta

    def keep(self, opt, X, acquisition) -> np.ndarray:
        from tt_core.bo.filters import filter_candidates

        return np.asarray(filter_candidates(self.name, X, self.beta, models=opt.models, constraints=opt.constraints,
                                            objective=acquisition, rng=opt.rng, space=opt.space,
                                            tie_rng=opt.tie_rng("filter")), dtype=int)


# -- incumbent rules -------------------------------------------------------------------------------
class PredictedIncumbent:
    """Alg. 1 line 19: the predicted-feasible full-size configuration of max predicted accuracy among all
    configurations (:func:`tt_core.bo.incumbent.find_incumbent`); ``constrained=False``: max predicted
    accuracy (FABOLAS)."""

    name = "paper"

    def __init__(self, constrained: bool = True, feasibility_threshold: float = FEASIBILITY_THRESHOLD):
        self.constrained = bool(constrained)
        self.feasibility_threshold = _check_threshold(feasibility_threshold)

    def recommend(self, opt) -> int:
        """The recommended configuration id (at full size)."""
        from tt_core.bo.incumbent import find_incumbent

        cons = opt.constraints if self.constrained else ()
        inc = find_incumbent(opt.models, cons, opt.X_full, threshold=self.feasibility_threshold,
                             rng=opt.tie_rng("incumbent"))
        return int(opt.space.config_ids[inc.index])


class TestedCEAIncumbent(PredictedIncumbent):
    """The authors' code's rule: the configuration of max CEA among those tested so far (any size), predicted
    at full size (:func:`tt_core.bo.incumbent.find_tested_incumbent`)."""

    name = "tested-cea"

    def recommend(self, opt) -> int:
        from tt_core.bo.incumbent import find_tested_incumbent

        h = opt.history
        ids = np.array(list(dict.fromkeys(h.loc[h["used"].to_numpy(bool), "config_id"].astype(int))))
        X = opt.space.encode(ids, np.full(ids.size, opt.space.max_size))
        cons = opt.constraints if self.constrained else ()
        inc = find_tested_incumbent(opt.models, cons, X, rng=opt.tie_rng("incumbent"))
        return int(ids[inc.index])


#: Incumbent rules by name (``incumbent_rule``).
INCUMBENT_RULES = {"paper": PredictedIncumbent, "tested-cea": TestedCEAIncumbent}


# -- initial designs -------------------------------------------------------------------------------
class PaperDesign:
    """TrimTuner's: one random configuration at 1/60, 1/10, 1/4, 1/2 of the data (with sub-sampling), or
    ``n_init`` Latin-hypercube full-size configurations (without). ``snapshot``: the sub-sampled design is
    charged as one training run snapshotted at each size (paper Sec. III)."""

    name = "paper"

    def __init__(self, n_init: int = INITIAL_SAMPLES, snapshot: bool = True):
        self.n_init = n_init
        self.snapshot = bool(snapshot)

    def pairs(self, space: ConfigSpace, rng: np.random.Generator, subsampling: bool) -> list[tuple[int, int]]:
        if subsampling:
            return subsampled_snapshot(space, rng)
        return latin_hypercube_configs(space, self.n_init, rng)


class RandomDesign(PaperDesign):
    """``n_init`` uniformly random configurations, at every sub-sampled size (with sub-sampling,
    :func:`tt_core.bo.design.subsampled_configs`) or at full size (thesis §4.2, §7.2)."""

    name = "random"

    def pairs(self, space, rng, subsampling):
        if subsampling:
            return subsampled_configs(space, self.n_init, rng)
        return random_configs(space, self.n_init, rng)


#: Initial designs by name (``init_design``).
INIT_DESIGNS = {"paper": PaperDesign, "random": RandomDesign}

