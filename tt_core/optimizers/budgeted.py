"""Nephele and its baselines as ask/tell optimisers (thesis ch. 3, Algs. 2-3; ch. 6.1-6.2).

Problem (thesis Eq. 3.1): find the (configuration x, training-set size s) of minimum deployment cost
``C(x, s)`` subject to ``A(x, s) >= A_min`` and ``T(x, s) <= T_max``, spending at most a budget ``B`` on
the exploration. Every optimiser here shares the same ask/tell protocol::

    problem = Problem(space, constraints_for(min_accuracy=0.85, max_time=300), objective="cost",
                      budget=20.0, price_per_second=prices)
    opt = Nephele(problem, initial_budget=5.0, seed=1)
    while not opt.done:
        config_id, size = opt.suggest()
        ...                                   # train, measure
        opt.observe(config_id, size, accuracy, cost, time)
    best = opt.incumbent()                    # cheapest observed point meeting both constraints

Optimisers (registered in :mod:`tt_core.optimizers.registry`):

==============  =========  ===================  =================================================
name            sizes      initial sampling     then
==============  =========  ===================  =================================================
``nephele``     all        LHS until B_init     Gamma (random pick if empty), argmax R/C, lookahead h
``lynceus``     full only  LHS until B_init     the same
``cherrypick``  full only  LHS until B_init     argmax EIc (Eq. 2.17), no Gamma
==============  =========  ===================  =================================================

(``random`` on a cost-minimising problem samples every size without an initial design, thesis §6.1:
:class:`tt_core.optimizers.model_based.RandomSearch`.) Every optimiser stops when its budget is spent
(Alg. 2) and recommends the cheapest observed point meeting the constraints.

Deviations from the thesis (and why)
------------------------------------
* **Models.** Bagged ensembles of 5 trees as in §6.2, built with
  :class:`tt_core.models.trees.ExtraTreesEnsemble` (one tree per bootstrap member). The trees imitate
  Weka's RandomTree (best split among ``floor(log2 D) + 1`` random attributes, no pruning) via
  ``splitter="best"``. They model ``ln(1 - accuracy)`` and ``ln cost`` (the workbook's convention; costs
  span three orders of magnitude) rather than accuracy and cost directly. Consequently the cost
  prediction is log-normal: EI is the exact log-normal ``E[max(0, c* - C)]`` in USD, the cost in the
  reward/cost ratio is the log-normal mean, and Gamma's "predicted mean values" are the back-transformed
  ensemble means of the log targets.
* **Time from cost** (§3.2.1 prints ``T = C * P``; dimensionally ``T = C / P`` with ``P`` the price per
  second of the configuration's cluster): ``ln T = ln C - ln P``, so the time constraint reuses the cost
  model.
* **Initial sampling.** "LHS(T)" on a discrete space: successive Latin-hypercube designs
  (:func:`tt_core.bo.design.latin_hypercube`, i.e. ``scipy.stats.qmc``) of ``lhs_batch`` (10) points
  over the configuration dimensions (and the size for Nephele), in coordinates where every level of a
  dimension gets an equal stratum (so each of the 5 sizes is equally likely), each point mapped to the
  nearest untested pair, until ``B_init`` is spent (the run that crosses ``B_init`` is kept, Alg. 2
  lines 7-10). The thesis does not say how it sized or mapped its design.
* **Ties.** Trees predict piecewise constants, so many pairs tie; ties go to a seeded random priority
  drawn once per recommendation (the thesis does not say).
* **Budget stop.** Alg. 2 aborts the running job when the budget is exhausted (lines 24-26). By default
  (``finish_last_run=True``) the run that crosses ``B`` completes and is charged in full, so a run
  overspends by at most its last exploration; ``finish_last_run=False`` aborts it instead (charged the
  remaining budget, result discarded). Loops stop when ``spent >= B`` (the thesis' ``beta >= 0`` test
  would allow one more run at ``beta == 0`` exactly).
* **EIc before any feasible observation** is the probability of feasibility alone (there is no incumbent
  to improve on); the thesis does not say.
* **Baselines.** Lynceus is Nephele's own selection at the full size (as the thesis' comparison implies:
  same models, same Gamma, same lookahead); the original Lynceus' Gamma (cost below the budget with
  99 % probability) is not used. CherryPick is ``argmax EIc`` over untested full-size configurations with
  the same LHS initial sampling and budget stop (§6.1: "extended to incorporate a budget").
* **Lookahead speed knob.** ``max_paths`` (not in the thesis, default off) limits the lookahead to the
  pairs of Gamma with the highest one-step ``EIc / C``; the notebook's lookahead study uses it because a
  Python refit of the ensembles per Gauss-Hermite node makes the full Gamma slow (reported there). The
  speculated loss is the same at every cost node, so each step's paths fit the loss model once per distinct
  speculated point (:class:`tt_core.acquisitions.memo.FantasyMemo`; no value changes).

"""

from __future__ import annotations

import math
from typing import Mapping

import numpy as np

from tt_core.acquisitions.lookahead import Lookahead, PathState, expected_cost
from tt_core.acquisitions.memo import FantasyMemo
from tt_core.bo.design import latin_hypercube, level_coordinates, nearest_untested
from tt_core.bo.history import log_positive, loss_target
from tt_core.models.trees import ExtraTreesEnsemble
from tt_core.optimizers.base import Optimizer, Recommendation
from tt_core.data.io import shown

__all__ = ["BudgetedOptimizer", "Nephele", "Lynceus", "CherryPick"]


def _check_budget(name: str, value, allow_zero: bool = False) -> float:
    try:
        v = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a number, got {shown(value)}") from None
    if not math.isfinite(v) or v < 0 or (v == 0 and not allow_zero):
        raise ValueError(f"{name} must be a finite number {'>= 0' if allow_zero else '> 0'} (USD), got {shown(value)}")
    return v


#: Largest lookahead horizon: the paths grow as 3^h (N = 3 cost points) and every step refits the models
#: along each (h = 5 had not finished one RNN run after 2 minutes; the thesis studies 0, 1, 2).
MAX_HORIZON = 4


class BudgetedOptimizer(Optimizer):
    """Budget-driven cost minimisation (thesis Alg. 2): initial sampling, tree models, budget stop.

    Parameters
    ----------
    problem : Problem
        ``objective="cost"``, an accuracy constraint (``A_min``), optionally a time constraint
        (``T_max``), a ``budget`` ``B`` (USD) and ``price_per_second`` (the time is derived from the
        predicted cost, §3.2.1).
    initial_budget : float
        ``B_init`` (USD, ``0 <= B_init < B``) of the Latin-hypercube initial sampling (Alg. 2, lines 7-10;
        thesis Table 6.1: CNN 5, RNN 1, MLP 2).
    seed : int
        Seed of every random choice (initial sampling, random picks, tie-breaks, the trees).
    full_size_only : bool
        Candidates restricted to the largest size (Lynceus, CherryPick: no sub-sampling).
    finish_last_run : bool, default True
        True: the run that crosses ``B`` completes, is charged in full and observed. False: it is
        aborted when the budget is exhausted (Alg. 2, lines 24-26): charged only the remaining budget,
        and its result is not used.
    n_trees : int, default 5
        Members of each bagged tree ensemble (thesis §6.2: 5).
    tree_kwargs : dict, optional
        Passed to each tree (:class:`sklearn.tree.ExtraTreeRegressor`). Default imitates Weka's
        RandomTree used by the thesis: best split among ``floor(log2(D)) + 1`` random attributes.
    lhs_batch : int, default 10
        Size of each Latin-hypercube design of the initial sampling (a new one starts when it runs out).
    """

    name = "base"

    def __init__(self, problem, *, initial_budget: float, seed: int, full_size_only: bool = False,
                 finish_last_run: bool = True, n_trees: int = 5, tree_kwargs: Mapping | None = None,
                 lhs_batch: int = 10):
        if problem.objective != "cost":
            raise ValueError(f"{self.name} minimises the cost; it needs a problem with objective='cost'")
        if problem.budget is None:
            raise ValueError(f"{self.name} needs an exploration budget B: pass budget=<USD>")
        if problem.price_per_second is None:
            raise ValueError(f"{self.name} derives the time from the predicted cost: the problem needs "
                             "price_per_second (one USD/s price per configuration)")
        if problem.limit("accuracy", "lower") is None:
            raise ValueError(f"{self.name} minimises the cost subject to A >= A_min: pass min_accuracy")
        super().__init__(problem, seed=seed, full_size_only=full_size_only, finish_last_run=finish_last_run)
        self.initial_budget = _check_budget("initial_budget", initial_budget, allow_zero=True)
        if self.initial_budget >= self.budget:
            raise ValueError(
                f"initial_budget ({initial_budget}) must be smaller than budget ({self.budget:g}) "
                "(thesis Alg. 2: B_init < B)"
            )
        if isinstance(lhs_batch, bool) or not isinstance(lhs_batch, (int, np.integer)) or lhs_batch < 1:
            raise ValueError(f"lhs_batch must be an int >= 1, got {shown(lhs_batch)}")
        self.min_accuracy = problem.limit("accuracy", "lower")
        max_time = problem.limit("time", "upper")
        self.max_time = math.inf if max_time is None else max_time
        self.lhs_batch = int(lhs_batch)

        ss = np.random.SeedSequence(self.seed)
        rng_ss, loss_ss, cost_ss = ss.spawn(3)
        self.rng = np.random.default_rng(rng_ss)
        self._model_seeds = {"loss": loss_ss, "cost": cost_ss}

        ids, sizes = self.pool.pairs
        self._ids, self._sizes = ids, sizes
        self._X = self.space.encode(ids, sizes)
        self._lhs_dims = level_coordinates(self._X[:, :-1] if self.full_size_only else self._X)
        self._price = problem.price_per_second[self.space.rows_of(ids)]

        dim = self._X.shape[1]
        if tree_kwargs is None:
            tree_kwargs = {"splitter": "best", "max_features": min(dim, int(math.log2(dim)) + 1)}
        self.n_trees = n_trees
        self.tree_kwargs = dict(tree_kwargs)
        ExtraTreesEnsemble(n_trees, seed=0, **self.tree_kwargs)  # validate early

        self.initial_spent = 0.0
        self._lhs_queue: list[np.ndarray] = []
        self._pending: tuple[int, str] | None = None
        self._priority = np.arange(len(ids))
        self.lookahead = Lookahead(self._X, self._price, self.constraints, self._predict, self._argmax)

    # ------------------------------------------------------------------ state
    def _phase(self) -> str:
        """``"init"`` while the initial budget is not spent (Alg. 2, line 7), else ``"bo"``."""
        return "init" if self.initial_spent < self.initial_budget else "bo"

    @property
    def phase(self) -> str:
        return self._phase()

    @property
    def n_candidates(self) -> int:
        return len(self._ids)

    def incumbent(self) -> Recommendation | None:
        """The cheapest observed point meeting the constraints (Alg. 2, line 16), or None.

        The rule of :func:`tt_core.bo.incumbent.best_observed` (``objective="cost"``: the first of the
        cheapest used feasible tests), read from the history's rows: a run asks after every test, and
        building the history's table each time took a third of a Nephele run.
        """
        rows = [r for r in self._history.rows if bool(r["used"]) and bool(r["feasible"])]
        if not rows:
            return None
        row = rows[int(np.argmin(np.array([r["cost"] for r in rows], dtype=float)))]
        return Recommendation(int(row["config_id"]), int(row["size"]))

    # ------------------------------------------------------------------ ask / tell
    def _choose(self) -> tuple[int, int]:
        phase = self._phase()
        self.step_info = {"gamma_size": None}
        self._priority = self.rng.permutation(len(self._ids))  # tie-breaking order of this step
        pos = self._initial_point() if phase == "init" else self._select()
        self._pending = (int(pos), phase)
        return int(self._ids[pos]), int(self._sizes[pos])

    def _phase_of(self, key) -> str:
        pending, self._pending = self._pending, None
        if pending is not None and pending[0] == self.pool.position(*key):
            return pending[1]
        return self._phase()

    def _after_observe(self, key, phase: str, charged: float) -> None:
        if phase == "init":
            self.initial_spent += charged

    # ------------------------------------------------------------------ parts
    def _argmax(self, values: np.ndarray, candidates: np.ndarray) -> int:
        """Position (into ``values``) of the maximum; ties go to the candidate of highest random priority.

        The priorities are drawn once per :meth:`suggest` (seeded), so tie-breaking does not depend on how
        many argmaxes a step evaluates (e.g. inside the lookahead).
        """
        values = np.asarray(values, dtype=float)
        top = np.flatnonzero(values == values.max())
        if len(top) == 1:
            return int(top[0])
        return int(top[np.argmax(self._priority[np.asarray(candidates)[top]])])

    def _random_position(self) -> int:
        return int(self.rng.choice(np.flatnonzero(self.pool.untested_mask)))

    def _initial_point(self) -> int:
        """Next point of the Latin-hypercube initial sampling (Alg. 2, line 8)."""
        if not self._lhs_queue:
            self._lhs_queue = list(latin_hypercube(self.lhs_batch, self._lhs_dims.shape[1], self.rng))
        return nearest_untested(self._lhs_queue.pop(0), self._lhs_dims, self.pool.untested_mask, self._argmax)

    def _state(self) -> PathState:
        used = self._history.used()
        pos = np.array([self.pool.position(o["config_id"], o["size"]) for o in used], dtype=np.int64)
        acc = np.array([o["accuracy"] for o in used], dtype=float)
        cost = np.array([o["cost"] for o in used], dtype=float)
        feas = [o["cost"] for o in used if o["feasible"]]
        return PathState(pos, loss_target(acc), log_positive(cost), self.pool.untested_mask, self.remaining,
                         min(feas) if feas else None)

    def _fit(self, state: PathState) -> tuple[ExtraTreesEnsemble, ExtraTreesEnsemble]:
        """Bagged tree ensembles of ``ln(1 - A)`` and ``ln C`` (Alg. 2, line 12; Alg. 3, line 23)."""
        if len(state.pos) == 0:
            raise ValueError(f"{self.name}: no observation to fit the models on; observe at least one run")
        X = self._X[state.pos]
        loss = ExtraTreesEnsemble(self.n_trees, seed=self._model_seeds["loss"], **self.tree_kwargs).fit(X, state.loss)
        cost = ExtraTreesEnsemble(self.n_trees, seed=self._model_seeds["cost"], **self.tree_kwargs).fit(X, state.lcost)
        return loss, cost

    def _predict(self, models, idx: np.ndarray) -> dict[str, np.ndarray]:
        X = self._X[idx]
        mu_l, sd_l = models[0].predict(X, return_std=True)
        mu_c, sd_c = models[1].predict(X, return_std=True)
        return {"mu_l": mu_l, "sd_l": sd_l, "mu_c": mu_c, "sd_c": sd_c}

    def _select(self) -> int:  # pragma: no cover - abstract
        raise NotImplementedError


class Nephele(BudgetedOptimizer):
    """Nephele (thesis Algs. 2-3): sub-sampling as an extra dimension, reward/cost with lookahead.

    After the initial sampling, each step fits the two ensembles, builds the feasible set Gamma of
    untested pairs predicted to meet the constraints and the remaining budget, picks at random when
    Gamma is empty, and otherwise the pair of Gamma maximising ``R / C`` (Eq. 3.2), where ``R`` and ``C``
    are the reward (EIc, Eq. 2.17) and the predicted cost of the lookahead path that starts at the pair
    (EXPLOREPATHS, Alg. 3; :class:`tt_core.acquisitions.lookahead.Lookahead`).

    Parameters
    ----------
    horizon : int, default 0
        Maximum lookahead horizon ``h >= 0``; 0 gives ``argmax EIc / C`` (Eq. 3.2).
    discount : float, default 0.9
        ``gamma`` of Alg. 3, lines 27-28 (thesis §6.2: 0.9).
    gh_cost, gh_accuracy : int, default 3 and 1
        Gauss-Hermite points ``N`` on the cost and ``M`` on the accuracy prediction (Alg. 3, lines 16-17;
        thesis §6.5: N = 3, M = 1, i.e. the accuracy is speculated at its predicted mean).
    max_paths : int or None, default None
        Lookahead from at most this many pairs of Gamma, those of highest ``EIc / C`` (None: all of Gamma,
        as the thesis). Not in the thesis; a speed knob. With ``horizon=0`` it changes nothing.
    **kwargs
        See :class:`BudgetedOptimizer`.
    """

    name = "nephele"

    def __init__(self, problem, *, horizon: int = 0, discount: float = 0.9, gh_cost: int = 3,
                 gh_accuracy: int = 1, max_paths: int | None = None, **kwargs):
        if isinstance(horizon, bool) or not isinstance(horizon, (int, np.integer)) or not 0 <= horizon <= MAX_HORIZON:
            raise ValueError(f"horizon must be an int from 0 (no lookahead) to {MAX_HORIZON}, got {shown(horizon)} "
                             "(the paths grow as 3^h; the thesis studies 0, 1, 2)")
        if not (0.0 <= float(discount) <= 1.0):
            raise ValueError(f"discount (gamma) must lie in [0, 1], got {shown(discount)}")
        if max_paths is not None and (isinstance(max_paths, bool) or not isinstance(max_paths, (int, np.integer))
                                      or max_paths < 1):
            raise ValueError(f"max_paths must be None or an int >= 1, got {shown(max_paths)}")
        super().__init__(problem, **kwargs)
        self.horizon = int(horizon)
        self.max_paths = None if max_paths is None else int(max_paths)
        self.gh_cost, self.gh_accuracy = int(gh_cost), int(gh_accuracy)
        self.lookahead = Lookahead(self._X, self._price, self.constraints, self._predict, self._argmax,
                                   discount=discount, gh_cost=gh_cost, gh_accuracy=gh_accuracy)
        self.discount = float(discount)

    def _select(self) -> int:
        state = self._state()
        models = self._fit(state)
        idx = np.flatnonzero(state.untested)
        pred = self._predict(models, idx)
        gamma = self.lookahead.feasible(pred, idx, state.budget_left)
        self.step_info["gamma_size"] = int(gamma.sum())
        if not gamma.any():
            return self._random_position()  # Alg. 3, line 4
        g = np.flatnonzero(gamma)
        gpred = {k: v[g] for k, v in pred.items()}
        eic = self.lookahead.eic(gpred, idx[g], state.best)
        cost = expected_cost(gpred)  # log-normal mean
        ratio = eic / cost
        if self.horizon == 0:
            return int(idx[g][self._argmax(ratio, idx[g])])  # Eq. 3.2
        order = np.arange(len(g))
        if self.max_paths is not None and len(g) > self.max_paths:
            order = np.argsort(-ratio, kind="stable")[: self.max_paths]
        values = np.full(len(g), -np.inf)
        memo = FantasyMemo()  # the paths refit the loss model on the same data at every cost node
        models = (memo.wrap(models[0]), memo.wrap(models[1]))
        for k in order:
            R, C = self.lookahead.paths(int(idx[g][k]), self.horizon, state, models, eic[k], cost[k],
                                        {key: v[k] for key, v in gpred.items()})
            values[k] = R / C if C > 0 else np.inf
        return int(idx[g][self._argmax(values, idx[g])])

    def explore_paths(self, config_id: int, size: int, horizon: int | None = None) -> tuple[float, float]:
        """Reward and cost ``(R, C)`` of the lookahead path from one pair under the current models (Alg. 3).

        For inspection and tests; needs at least one observation.
        """
        pos = self.pool.position(config_id, size)
        state = self._state()
        models = self._fit(state)
        idx = np.array([pos])
        pred = self._predict(models, idx)
        eic = self.lookahead.eic(pred, idx, state.best)[0]
        cost = float(expected_cost(pred, 0))
        memo = FantasyMemo()
        models = (memo.wrap(models[0]), memo.wrap(models[1]))
        return self.lookahead.paths(pos, self.horizon if horizon is None else int(horizon), state, models, eic, cost,
                                    {k: v[0] for k, v in pred.items()})


class Lynceus(Nephele):
    """Lynceus as the thesis runs it (§6.1): Nephele's selection at the full size only (no sub-sampling)."""

    name = "lynceus"
    fixed_options = ("full_size_only",)

    def __init__(self, problem, **kwargs):
        kwargs["full_size_only"] = True
        super().__init__(problem, **kwargs)


class CherryPick(BudgetedOptimizer):
    """CherryPick extended with a budget (thesis §6.1): ``argmax EIc`` over untested full-size configurations.

    No feasible set and no division by the cost; LHS initial sampling with the same ``B_init``; stops
    when the budget is spent.
    """

    name = "cherrypick"
    fixed_options = ("full_size_only",)

    def __init__(self, problem, **kwargs):
        kwargs["full_size_only"] = True
        super().__init__(problem, **kwargs)

    def _select(self) -> int:
        state = self._state()
        models = self._fit(state)
        idx = np.flatnonzero(state.untested)
        pred = self._predict(models, idx)
        return int(idx[self._argmax(self.lookahead.eic(pred, idx, state.best), idx)])
