"""Nephele and its baselines as ask/tell optimisers (thesis ch. 3, Algs. 2-3; ch. 6.1-6.2).

Problem (thesis Eq. 3.1): find the (configuration x, training-set size s) of minimum deployment cost
``C(x, s)`` subject to ``A(x, s) >= A_min`` and ``T(x, s) <= T_max``, spending at most a budget ``B`` on
the exploration. Every optimiser here shares the same ask/tell protocol::

    opt = Nephele(space, price_per_second, budget=20.0, initial_budget=5.0, seed=1)
    while not opt.done:
        config_id, size = opt.suggest()
        ...                                   # train, measure
        opt.observe(config_id, size, accuracy, cost, time)
    best = opt.incumbent()                    # cheapest observed point meeting both constraints

See :mod:`tt_core.nephele` for the list of optimisers and the deviations from the thesis.
"""

from __future__ import annotations

import math
import time as _time
from dataclasses import dataclass
from typing import Mapping

import numpy as np
import pandas as pd
from scipy.special import ndtr

from ..acquisitions.trimtuner import gauss_hermite_normal
from ..models.trees import ExtraTreesEnsemble
from ..space import CandidatePool, ConfigSpace

__all__ = [
    "BudgetExhausted", "BudgetedOptimizer", "Nephele", "Lynceus", "CherryPick", "RandomSearch",
    "lognormal_expected_improvement", "constrained_ei", "feasible_set_mask", "latin_hypercube",
    "LOSS_FLOOR",
]

#: ``1 - accuracy`` is clipped here before the log (an accuracy of exactly 1).
LOSS_FLOOR = 1e-6
#: Costs are clipped here before the log (a free run).
COST_FLOOR = 1e-12


class BudgetExhausted(RuntimeError):
    """``suggest()`` was called after the exploration budget was spent or every candidate was tested."""


# ---------------------------------------------------------------------------------------------
# Scores (vectorised, model-free: they take log-space Gaussian predictions)
# ---------------------------------------------------------------------------------------------


def lognormal_expected_improvement(mu, sd, best) -> np.ndarray:
    """Expected improvement of a cost below ``best`` when ``ln C ~ N(mu, sd^2)`` (thesis Eq. 2.15, minimised).

    ``EI = E[max(0, best - C)] = best * Phi(z) - exp(mu + sd^2 / 2) * Phi(z - sd)`` with
    ``z = (ln best - mu) / sd``; ``max(0, best - exp(mu))`` where ``sd = 0``.

    Parameters
    ----------
    mu, sd : array-like of shape (n,)
        Mean and standard deviation of ``ln C`` (``sd >= 0``).
    best : float
        Incumbent cost ``> 0`` (USD).

    Returns
    -------
    ndarray of shape (n,), in USD, ``>= 0``.
    """
    mu = np.asarray(mu, dtype=float)
    sd = np.asarray(sd, dtype=float)
    best = float(best)
    if not (np.isfinite(best) and best > 0):
        raise ValueError(f"best (incumbent cost) must be a finite number > 0, got {best}")
    if np.any(sd < 0) or not (np.all(np.isfinite(mu)) and np.all(np.isfinite(sd))):
        raise ValueError("mu and sd must be finite with sd >= 0")
    mu, sd = np.broadcast_arrays(mu, sd)
    out = np.maximum(best - np.exp(mu), 0.0)
    pos = sd > 0
    if np.any(pos):
        m, s = mu[pos], sd[pos]
        z = (math.log(best) - m) / s
        out[pos] = best * ndtr(z) - np.exp(m + 0.5 * s * s) * ndtr(z - s)
    return np.maximum(out, 0.0)


def _log_le_probability(mu, sd, log_bound) -> np.ndarray:
    """P(Y <= log_bound) for Y ~ N(mu, sd^2) (indicator where sd = 0)."""
    mu = np.asarray(mu, dtype=float)
    sd = np.asarray(sd, dtype=float)
    out = (mu <= log_bound).astype(float)
    pos = sd > 0
    if np.any(pos):
        out[pos] = ndtr((log_bound - mu[pos]) / sd[pos])
    return out


def constrained_ei(mu_loss, sd_loss, mu_cost, sd_cost, price_per_second, best, min_accuracy, max_time) -> np.ndarray:
    """Constrained expected improvement of the cost (thesis Eq. 2.17): ``P(feasible) * EI``.

    ``P(feasible) = P(A >= A_min) * P(T <= T_max)`` (independent, as Eq. 2.17 assumes) with
    ``ln(1 - A) ~ N(mu_loss, sd_loss^2)`` and ``ln T = ln C - ln p(x)`` (``p`` the price per second,
    thesis §3.2.1: time is derived from the predicted cost). ``EI`` is
    :func:`lognormal_expected_improvement` below the incumbent cost ``best``; with no feasible
    observation yet (``best=None``) the score is ``P(feasible)`` alone.

    Parameters
    ----------
    mu_loss, sd_loss : array-like of shape (n,)
        Prediction of ``ln(1 - accuracy)``.
    mu_cost, sd_cost : array-like of shape (n,)
        Prediction of ``ln cost``.
    price_per_second : array-like of shape (n,)
        USD per second of each candidate's cluster.
    best : float or None
        Cost of the incumbent (cheapest observed feasible point).
    min_accuracy, max_time : float
        ``A_min`` in [0, 1) and ``T_max`` in seconds.

    Returns
    -------
    ndarray of shape (n,)
    """
    price = np.asarray(price_per_second, dtype=float)
    p_acc = _log_le_probability(mu_loss, sd_loss, math.log1p(-min_accuracy))
    p_time = _log_le_probability(np.asarray(mu_cost, float) - np.log(price), sd_cost, math.log(max_time))
    p = p_acc * p_time
    if best is None:
        return p
    return p * lognormal_expected_improvement(mu_cost, sd_cost, best)


def feasible_set_mask(mu_loss, mu_cost, price_per_second, budget_left, min_accuracy, max_time) -> np.ndarray:
    """Membership of the feasible set Gamma / Omega (thesis Alg. 3, lines 2 and 31).

    A candidate belongs when its *predicted* values meet the constraints: accuracy
    ``1 - exp(mu_loss) >= A_min``, cost ``exp(mu_cost) <= budget_left`` and time
    ``exp(mu_cost) / p(x) <= T_max`` (§3.2.1: "the configurations whose predicted mean values of
    accuracy and cost comply with the constraints"; the point prediction of the log-space models is the
    back-transformed ensemble mean).
    """
    mu_loss = np.asarray(mu_loss, dtype=float)
    mu_cost = np.asarray(mu_cost, dtype=float)
    price = np.asarray(price_per_second, dtype=float)
    if budget_left <= 0:
        return np.zeros(mu_cost.shape, dtype=bool)
    return (
        (mu_loss <= math.log1p(-min_accuracy))
        & (mu_cost <= math.log(budget_left))
        & (mu_cost - np.log(price) <= math.log(max_time))
    )


def latin_hypercube(n: int, d: int, rng: np.random.Generator) -> np.ndarray:
    """``n`` Latin-hypercube points in ``[0, 1]^d``: every dimension has one point in each of ``n`` strata.

    Parameters
    ----------
    n, d : int
    rng : numpy.random.Generator

    Returns
    -------
    ndarray of shape (n, d)
    """
    if n < 1 or d < 1:
        raise ValueError(f"latin_hypercube needs n >= 1 and d >= 1, got n={n}, d={d}")
    u = rng.random((n, d))
    strata = np.column_stack([rng.permutation(n) for _ in range(d)])
    return (strata + u) / n


def _level_coordinates(X: np.ndarray) -> np.ndarray:
    """Each column's distinct values replaced by the centres of equal strata: level ``i`` of ``k`` -> ``(i + 0.5) / k``.

    A Latin-hypercube point mapped to the nearest candidate in these coordinates picks every level of a
    discrete dimension (e.g. each of the 5 training-set sizes) with equal probability, whatever the spacing
    of the levels in the encoded space.
    """
    out = np.empty_like(X, dtype=float)
    for j in range(X.shape[1]):
        levels, inverse = np.unique(X[:, j], return_inverse=True)
        out[:, j] = (inverse + 0.5) / len(levels)
    return out


def _check_positive(name: str, value, allow_zero: bool = False) -> float:
    try:
        v = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a number, got {value!r}") from None
    if not math.isfinite(v) or v < 0 or (v == 0 and not allow_zero):
        raise ValueError(f"{name} must be a finite number {'>= 0' if allow_zero else '> 0'} (USD), got {value!r}")
    return v


@dataclass
class _State:
    """Observations used to fit the models (real, or speculated along a lookahead path)."""

    pos: np.ndarray       # candidate positions of the observations
    loss: np.ndarray      # ln(1 - accuracy)
    lcost: np.ndarray     # ln cost
    untested: np.ndarray  # bool mask over candidates
    budget_left: float
    best: float | None    # cheapest feasible cost so far

    def add(self, pos: int, loss: float, lcost: float, cost: float, feasible: bool) -> "_State":
        untested = self.untested.copy()
        untested[pos] = False
        best = self.best
        if feasible and (best is None or cost < best):
            best = cost
        return _State(np.append(self.pos, pos), np.append(self.loss, loss), np.append(self.lcost, lcost),
                      untested, self.budget_left - cost, best)


# ---------------------------------------------------------------------------------------------
# Optimisers
# ---------------------------------------------------------------------------------------------


class BudgetedOptimizer:
    """Ask/tell base of the budget-driven optimisers (thesis Alg. 2: state, budget, stop, incumbent).

    Parameters
    ----------
    space : ConfigSpace
        The configurations and sizes (``ConfigSpace.from_benchmark``).
    price_per_second : mapping or array-like
        USD per second of each configuration's cluster: a mapping ``config_id -> price`` or an array in
        ``space.config_ids`` order. Used to derive the time from the predicted cost (§3.2.1).
    budget : float
        Exploration budget ``B`` (USD, > 0). The optimiser is :attr:`done` once it has spent ``B``; the
        run that crosses ``B`` is the last one (Alg. 2, lines 11 and 25).
    initial_budget : float
        ``B_init`` (USD, ``0 <= B_init < B``) of the Latin-hypercube initial sampling (Alg. 2, lines 7-10).
    seed : int
        Seed of every random choice (initial sampling, random picks, tie-breaks, the trees).
    min_accuracy, max_time : float
        ``A_min`` (thesis: 0.85) and ``T_max`` in seconds (thesis: 300).
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
    uses_models = True
    uses_initial_sampling = True

    def __init__(self, space: ConfigSpace, price_per_second, *, budget: float, initial_budget: float, seed: int,
                 min_accuracy: float = 0.85, max_time: float = 300.0, full_size_only: bool = False,
                 finish_last_run: bool = True, n_trees: int = 5, tree_kwargs: Mapping | None = None,
                 lhs_batch: int = 10):
        if not isinstance(space, ConfigSpace):
            raise ValueError(f"space must be a ConfigSpace (ConfigSpace.from_benchmark(b)), got {type(space).__name__}")
        self.budget = _check_positive("budget", budget)
        self.initial_budget = _check_positive("initial_budget", initial_budget, allow_zero=True)
        if self.uses_initial_sampling and self.initial_budget >= self.budget:
            raise ValueError(
                f"initial_budget ({initial_budget}) must be smaller than budget ({budget}) (thesis Alg. 2: B_init < B)"
            )
        if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
            raise ValueError(f"seed must be a non-negative int, got {seed!r}")
        if not (0.0 <= float(min_accuracy) < 1.0):
            raise ValueError(f"min_accuracy must lie in [0, 1), got {min_accuracy!r}")
        if not (math.isfinite(float(max_time)) and float(max_time) > 0):
            raise ValueError(f"max_time must be a finite number of seconds > 0, got {max_time!r}")
        if isinstance(lhs_batch, bool) or not isinstance(lhs_batch, (int, np.integer)) or lhs_batch < 1:
            raise ValueError(f"lhs_batch must be an int >= 1, got {lhs_batch!r}")
        self.space = space
        self.seed = int(seed)
        self.min_accuracy = float(min_accuracy)
        self.max_time = float(max_time)
        self.full_size_only = bool(full_size_only)
        self.finish_last_run = bool(finish_last_run)
        self.lhs_batch = int(lhs_batch)

        ss = np.random.SeedSequence(self.seed)
        rng_ss, loss_ss, cost_ss = ss.spawn(3)
        self.rng = np.random.default_rng(rng_ss)
        self._model_seeds = {"loss": loss_ss, "cost": cost_ss}

        ids, sizes = space.all_pairs()
        if self.full_size_only:
            keep = sizes == space.max_size
            ids, sizes = ids[keep], sizes[keep]
        self.pool = CandidatePool(ids, sizes)
        self._ids, self._sizes = ids, sizes
        self._pos = {(int(c), int(s)): i for i, (c, s) in enumerate(zip(ids, sizes))}
        self._X = space.encode(ids, sizes)
        self._lhs_dims = _level_coordinates(self._X[:, :-1] if self.full_size_only else self._X)
        self._price = self._prices_of(price_per_second)[space.rows_of(ids)]
        self._untested = np.ones(len(ids), dtype=bool)

        dim = self._X.shape[1]
        if tree_kwargs is None:
            tree_kwargs = {"splitter": "best", "max_features": min(dim, int(math.log2(dim)) + 1)}
        self.n_trees = n_trees
        self.tree_kwargs = dict(tree_kwargs)
        ExtraTreesEnsemble(n_trees, seed=0, **self.tree_kwargs)  # validate early

        self._obs: list[dict] = []
        self.spent = 0.0
        self.initial_spent = 0.0
        self._lhs_queue: list[np.ndarray] = []
        self._pending: dict | None = None
        self.last_gamma_size: int | None = None
        self._priority = np.arange(len(ids))

    # ------------------------------------------------------------------ construction helpers
    def _prices_of(self, price_per_second) -> np.ndarray:
        ids = self.space.config_ids
        if isinstance(price_per_second, Mapping):
            missing = [int(c) for c in ids if int(c) not in price_per_second]
            if missing:
                raise ValueError(f"price_per_second lacks config_id(s) {missing[:5]} (needs all {len(ids)})")
            p = np.array([float(price_per_second[int(c)]) for c in ids])
        else:
            p = np.asarray(price_per_second, dtype=float).ravel()
            if p.shape != ids.shape:
                raise ValueError(
                    f"price_per_second must have one entry per configuration ({len(ids)}, in space.config_ids "
                    f"order) or be a mapping config_id -> USD/s; got shape {p.shape}"
                )
        if not (np.all(np.isfinite(p)) and np.all(p > 0)):
            raise ValueError("price_per_second must be finite and > 0 (USD per second of the cluster)")
        return p

    # ------------------------------------------------------------------ state
    @property
    def remaining(self) -> float:
        """Budget left, ``beta = B - spent`` (negative after the run that crossed ``B``)."""
        return self.budget - self.spent

    @property
    def phase(self) -> str:
        """``"init"`` while the initial budget is not spent (Alg. 2, line 7), else ``"bo"`` (or ``"random"``)."""
        if self.uses_initial_sampling and self.initial_spent < self.initial_budget:
            return "init"
        return "bo" if self.uses_models else "random"

    @property
    def done(self) -> bool:
        """The budget is spent (Alg. 2, line 11) or every candidate was tested."""
        return self.spent >= self.budget or not self._untested.any()

    @property
    def n_candidates(self) -> int:
        return len(self._ids)

    @property
    def history(self) -> pd.DataFrame:
        """One row per observation: config_id, size, accuracy, cost (charged), time, feasible, phase, used."""
        cols = ["config_id", "size", "accuracy", "cost", "time", "feasible", "phase", "used"]
        return pd.DataFrame([{k: o[k] for k in cols} for o in self._obs], columns=cols)

    def incumbent(self) -> dict | None:
        """The cheapest observed point meeting both constraints (Alg. 2, line 16), or None.

        Returns
        -------
        dict with ``config_id, size, accuracy, cost, time`` or None if no observation is feasible.
        """
        best = None
        for o in self._obs:
            if o["used"] and o["feasible"] and (best is None or o["cost"] < best["cost"]):
                best = o
        if best is None:
            return None
        return {k: best[k] for k in ("config_id", "size", "accuracy", "cost", "time")}

    def is_feasible(self, accuracy: float, time: float) -> bool:
        """Whether a measurement meets ``A >= A_min`` and ``T <= T_max``."""
        return bool(accuracy >= self.min_accuracy and time <= self.max_time)

    # ------------------------------------------------------------------ ask / tell
    def suggest(self) -> tuple[int, int]:
        """The next ``(config_id, size)`` to run.

        Raises
        ------
        BudgetExhausted
            If the budget is spent or every candidate was tested (check :attr:`done`).
        """
        if self.done:
            why = (f"the exploration budget is spent (spent ${self.spent:.4f} of ${self.budget:.4f})"
                   if self.spent >= self.budget else "every candidate was tested")
            raise BudgetExhausted(f"{self.name}: {why}; read incumbent() instead")
        t0 = _time.perf_counter()
        phase = self.phase
        self.last_gamma_size = None
        self._priority = self.rng.permutation(len(self._ids))  # tie-breaking order of this step
        pos = self._initial_point() if phase == "init" else self._select()
        self._pending = {"pos": int(pos), "phase": phase, "overhead_s": _time.perf_counter() - t0,
                         "gamma_size": self.last_gamma_size}
        return int(self._ids[pos]), int(self._sizes[pos])

    def observe(self, config_id: int, size: int, accuracy: float, cost: float, time: float) -> None:
        """Record a measurement and charge its cost to the budget (Alg. 2, UPDATE, lines 17-20).

        Parameters
        ----------
        config_id, size : int
            A candidate pair not observed before.
        accuracy : float
            Measured accuracy in [0, 1].
        cost, time : float
            Measured cost (USD, >= 0) and training time (s, >= 0).
        """
        key = (int(config_id), int(size))
        if key not in self._pos:
            where = "at the full size" if self.full_size_only else "of the space"
            raise ValueError(f"{self.name}: ({key[0]}, {key[1]}) is not a candidate {where}")
        for name, v in (("accuracy", accuracy), ("cost", cost), ("time", time)):
            if v is None or not math.isfinite(float(v)) or float(v) < 0:
                raise ValueError(f"{name} must be a finite number >= 0, got {v!r}")
        if float(accuracy) > 1:
            raise ValueError(f"accuracy must lie in [0, 1] (a fraction, not %), got {accuracy!r}")
        pos = self._pos[key]
        self.pool.mark_tested(*key)  # raises if already tested
        self._untested[pos] = False
        pending = self._pending if (self._pending and self._pending["pos"] == pos) else None
        self._pending = None
        phase = pending["phase"] if pending else self.phase
        charged, used = float(cost), True
        if not self.finish_last_run and self.spent + charged > self.budget:
            charged, used = max(self.budget - self.spent, 0.0), False  # aborted when the budget ran out
        self.spent += charged
        if phase == "init":
            self.initial_spent += charged
        self._obs.append({
            "config_id": key[0], "size": key[1], "pos": pos, "accuracy": float(accuracy), "cost": float(cost),
            "charged": charged, "time": float(time), "feasible": self.is_feasible(float(accuracy), float(time)),
            "phase": phase, "used": used,
            "overhead_s": pending["overhead_s"] if pending else float("nan"),
            "gamma_size": pending["gamma_size"] if pending else None,
        })

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

    def _random_untested(self) -> int:
        return int(self.rng.choice(np.flatnonzero(self._untested)))

    def _initial_point(self) -> int:
        """Next point of the Latin-hypercube initial sampling (Alg. 2, line 8).

        LHS designs of ``lhs_batch`` points over the configuration dimensions (plus the size dimension
        unless full-size only), each dimension's levels given equal strata (:func:`_level_coordinates`);
        each point is mapped to the nearest untested candidate.
        """
        if not self._lhs_queue:
            self._lhs_queue = list(latin_hypercube(self.lhs_batch, self._lhs_dims.shape[1], self.rng))
        u = self._lhs_queue.pop(0)
        cand = np.flatnonzero(self._untested)
        d2 = ((self._lhs_dims[cand] - u) ** 2).sum(axis=1)
        return int(cand[self._argmax(-d2, cand)])

    def _state(self) -> _State:
        used = [o for o in self._obs if o["used"]]
        pos = np.array([o["pos"] for o in used], dtype=np.int64)
        acc = np.array([o["accuracy"] for o in used], dtype=float)
        cost = np.array([o["cost"] for o in used], dtype=float)
        feas = [o["cost"] for o in used if o["feasible"]]
        return _State(pos, np.log(np.clip(1.0 - acc, LOSS_FLOOR, None)), np.log(np.clip(cost, COST_FLOOR, None)),
                      self._untested.copy(), self.remaining, min(feas) if feas else None)

    def _fit(self, state: _State) -> tuple[ExtraTreesEnsemble, ExtraTreesEnsemble]:
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

    def _eic(self, pred, idx, best) -> np.ndarray:
        return constrained_ei(pred["mu_l"], pred["sd_l"], pred["mu_c"], pred["sd_c"], self._price[idx], best,
                              self.min_accuracy, self.max_time)

    def _feasible(self, pred, idx, budget_left) -> np.ndarray:
        return feasible_set_mask(pred["mu_l"], pred["mu_c"], self._price[idx], budget_left, self.min_accuracy,
                                 self.max_time)

    def _select(self) -> int:  # pragma: no cover - abstract
        raise NotImplementedError

    def __repr__(self) -> str:
        return (f"{type(self).__name__}(budget={self.budget:g}, initial_budget={self.initial_budget:g}, "
                f"seed={self.seed}, spent={self.spent:.4f}, observations={len(self._obs)})")


class Nephele(BudgetedOptimizer):
    """Nephele (thesis Algs. 2-3): sub-sampling as an extra dimension, reward/cost with lookahead.

    After the initial sampling, each step fits the two ensembles, builds the feasible set Gamma of
    untested pairs predicted to meet ``A_min``, ``T_max`` and the remaining budget, picks at random when
    Gamma is empty, and otherwise the pair of Gamma maximising ``R / C`` (Eq. 3.2), where ``R`` and ``C``
    are the reward (EIc, Eq. 2.17) and the predicted cost of the lookahead path that starts at the pair
    (EXPLOREPATHS, Alg. 3).

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

    def __init__(self, space, price_per_second, *, horizon: int = 0, discount: float = 0.9, gh_cost: int = 3,
                 gh_accuracy: int = 1, max_paths: int | None = None, **kwargs):
        if isinstance(horizon, bool) or not isinstance(horizon, (int, np.integer)) or horizon < 0:
            raise ValueError(f"horizon must be an int >= 0 (0 = no lookahead), got {horizon!r}")
        if not (0.0 <= float(discount) <= 1.0):
            raise ValueError(f"discount (gamma) must lie in [0, 1], got {discount!r}")
        if max_paths is not None and (isinstance(max_paths, bool) or not isinstance(max_paths, (int, np.integer))
                                      or max_paths < 1):
            raise ValueError(f"max_paths must be None or an int >= 1, got {max_paths!r}")
        super().__init__(space, price_per_second, **kwargs)
        self.horizon = int(horizon)
        self.discount = float(discount)
        self.max_paths = None if max_paths is None else int(max_paths)
        self._gh_cost = gauss_hermite_normal(gh_cost)
        self._gh_acc = gauss_hermite_normal(gh_accuracy)
        self.gh_cost, self.gh_accuracy = int(gh_cost), int(gh_accuracy)

    def _select(self) -> int:
        state = self._state()
        models = self._fit(state)
        idx = np.flatnonzero(state.untested)
        pred = self._predict(models, idx)
        gamma = self._feasible(pred, idx, state.budget_left)
        self.last_gamma_size = int(gamma.sum())
        if not gamma.any():
            return self._random_untested()  # Alg. 3, line 4
        g = np.flatnonzero(gamma)
        gpred = {k: v[g] for k, v in pred.items()}
        eic = self._eic(gpred, idx[g], state.best)
        cost = np.exp(gpred["mu_c"] + 0.5 * gpred["sd_c"] ** 2)  # expected cost (log-normal mean)
        ratio = eic / cost
        if self.horizon == 0:
            return int(idx[g][self._argmax(ratio, idx[g])])  # Eq. 3.2
        order = np.arange(len(g))
        if self.max_paths is not None and len(g) > self.max_paths:
            order = np.argsort(-ratio, kind="stable")[: self.max_paths]
        values = np.full(len(g), -np.inf)
        for k in order:
            R, C = self._explore_paths(int(idx[g][k]), self.horizon, state, models, eic[k], cost[k],
                                       {key: v[k] for key, v in gpred.items()})
            values[k] = R / C if C > 0 else np.inf
        return int(idx[g][self._argmax(values, idx[g])])

    def explore_paths(self, config_id: int, size: int, horizon: int | None = None) -> tuple[float, float]:
        """Reward and cost ``(R, C)`` of the lookahead path from one pair under the current models (Alg. 3).

        A public wrapper of EXPLOREPATHS for inspection and tests; needs at least one observation.
        """
        pos = self._pos[(int(config_id), int(size))]
        state = self._state()
        models = self._fit(state)
        idx = np.array([pos])
        pred = self._predict(models, idx)
        eic = self._eic(pred, idx, state.best)[0]
        cost = float(np.exp(pred["mu_c"][0] + 0.5 * pred["sd_c"][0] ** 2))
        return self._explore_paths(pos, self.horizon if horizon is None else int(horizon), state, models, eic, cost,
                                   {k: v[0] for k, v in pred.items()})

    def _explore_paths(self, pos: int, h: int, state: _State, models, eic: float, cost: float,
                       p: dict) -> tuple[float, float]:
        """EXPLOREPATHS (Alg. 3, lines 10-29): reward and cost of the path starting at candidate ``pos``.

        ``models`` are the ensembles fitted on ``state``; ``eic``, ``cost`` and ``p`` (``mu_l, sd_l, mu_c,
        sd_c``) their predictions at ``pos``. The retrained models of line 23 are the ensembles'
        ``fantasize`` (a refit on the state's data plus the speculated point, same seeds), identical to
        a fit on the speculated state.
        """
        R, C = float(eic), float(cost)
        if h == 0:
            return R, C
        z_c, w_c = self._gh_cost
        z_a, w_a = self._gh_acc
        for zc, wc in zip(z_c, w_c):
            lc = p["mu_c"] + p["sd_c"] * zc          # speculated ln cost c_i
            c = float(np.exp(lc))
            for za, wa in zip(z_a, w_a):
                loss = p["mu_l"] + p["sd_l"] * za    # speculated ln(1 - a_j)
                acc = 1.0 - math.exp(loss)
                feasible = acc >= self.min_accuracy and c / self._price[pos] <= self.max_time
                new = state.add(pos, loss, lc, c, feasible)      # S', beta', T' (lines 20-22)
                if not new.untested.any() or new.budget_left <= 0:
                    continue
                x_new = self._X[pos:pos + 1]                     # line 23: retrain on S'
                new_models = (models[0].fantasize(x_new, [loss]), models[1].fantasize(x_new, [lc]))
                idx = np.flatnonzero(new.untested)
                pred = self._predict(new_models, idx)
                omega = self._feasible(pred, idx, new.budget_left)  # NEXTSTEP, line 31
                if not omega.any():
                    continue                                     # line 25
                o = np.flatnonzero(omega)
                opred = {k: v[o] for k, v in pred.items()}
                eic_o = self._eic(opred, idx[o], new.best)
                k = self._argmax(eic_o, idx[o])                  # line 32
                cost_k = float(np.exp(opred["mu_c"][k] + 0.5 * opred["sd_c"][k] ** 2))
                r, cc = self._explore_paths(int(idx[o][k]), h - 1, new, new_models, eic_o[k], cost_k,
                                            {key: v[k] for key, v in opred.items()})
                C += self.discount * wc * wa * cc                # lines 27-28
                R += self.discount * wc * wa * r
        return R, C


class Lynceus(Nephele):
    """Lynceus as the thesis runs it (§6.1): Nephele's selection at the full size only (no sub-sampling)."""

    name = "lynceus"

    def __init__(self, space, price_per_second, **kwargs):
        kwargs["full_size_only"] = True
        super().__init__(space, price_per_second, **kwargs)


class CherryPick(BudgetedOptimizer):
    """CherryPick extended with a budget (thesis §6.1): ``argmax EIc`` over untested full-size configurations.

    No feasible set and no division by the cost; LHS initial sampling with the same ``B_init``; stops
    when the budget is spent.
    """

    name = "cherrypick"

    def __init__(self, space, price_per_second, **kwargs):
        kwargs["full_size_only"] = True
        super().__init__(space, price_per_second, **kwargs)

    def _select(self) -> int:
        state = self._state()
        models = self._fit(state)
        idx = np.flatnonzero(state.untested)
        pred = self._predict(models, idx)
        return int(idx[self._argmax(self._eic(pred, idx, state.best), idx)])


class RandomSearch(BudgetedOptimizer):
    """Uniformly random untested pairs until the budget is spent (thesis §6.1).

    ``full_size_only=False`` (default) samples Nephele's space (all sizes); True samples the full size.
    The initial budget is ignored (there is no model to bootstrap).
    """

    name = "random"
    uses_models = False
    uses_initial_sampling = False

    def __init__(self, space, price_per_second, **kwargs):
        kwargs.setdefault("initial_budget", 0.0)
        super().__init__(space, price_per_second, **kwargs)

    def _select(self) -> int:
        return self._random_untested()
