"""TrimTuner's acquisition function (paper Eq. 5).

::

    alpha_T(x, s) = E_{p(a, q | x, s, S)} [ prod_q P(q(x*, s=1) satisfied | S u {x, s, a, q}) ]
                    * alpha_F(x, s)

``alpha_F`` (lines 2-3 of Eq. 5, FABOLAS' information gain on the ``s = 1`` optimum per unit cost,
Eq. 3) is injected as any callable ``X -> values`` (e.g. :class:`tt_core.acquisitions.per_cost.PerUnitCost`
of entropy search). The first factor is computed by simulation (paper Sec. III,
steps 1-4), independently for every candidate ``(x, s)``:

1. fantasise the observation: every model needed by the constraints is conditioned on
   ``(x, s, mu_q(x, s))``, its own predicted mean, and the loss model on ``(x, s, y_r)``;
2. (the models' ``fantasize`` returns new models; the current models are untouched);
3. find the incumbent ``x*`` predicted by the fantasised models among the full-size configurations
   (:func:`tt_core.bo.incumbent.select_incumbent`: max predicted accuracy among those with
   ``P(constraints) >= 0.5``);
4. take the fantasised models' probability that ``x*`` satisfies every constraint (product over
   independent constraints, log-normal form of :mod:`tt_core.bo.constraints`).

The expectation over the loss observation uses Gauss-Hermite quadrature with ``n_roots`` nodes
``t_r`` and weights ``w_r / sqrt(pi)``: ``y_r = mu_loss + sqrt(2) * sigma_loss * t_r``. The paper's
choice, and the default, is a single root (``y = mu_loss``, weight 1). The constrained quantities are
always fantasised at their predicted mean. Without constraints the factor is 1 and
``alpha_T = alpha_F``.

Fabulinus (thesis §4.2.1, Eqs. 4.4-4.5) is the same computation with another first factor:
``ES_C(x, s) = a_F(x, s) * CEA(x, s)`` where ``CEA(x, s) = A(x_inc, s=1 | S') * P(C(x_inc, s=1) <= C_max | S')``
multiplies the probability by the fantasised models' *predicted accuracy* of the fantasised
incumbent ``x_inc`` (``factor="cea"``; the default ``factor="probability"`` is TrimTuner's Eq. 5). Its
incumbent rule asks for ``P >= 0.99`` (thesis §4.2, ``feasibility_threshold=0.99``).

Deviations from the original TrimTuner implementation
-----------------------------------------------------
* The original's fantasies were cumulative across candidates (each candidate's fantasy was added on top
  of the previous ones, so the result depended on the evaluation order) and, for GPs, re-optimised the
  hyperparameters per candidate. Here each candidate is fantasised from the current models only, with the
  models' own ``fantasize`` (GP: fixed hyperparameter samples; trees: a refit with the same seed).
* The original's tree-ensemble fantasy did not refit (the constraint factor was inert in the DT variant);
  :class:`tt_core.models.trees.ExtraTreesEnsemble` refits.
* The incumbent after the fantasy is the paper's (max predicted accuracy among predicted-feasible
  full-size configurations), not the original's max-CEA configuration.
"""

from __future__ import annotations

from typing import Callable, Iterable, Mapping

import numpy as np
from numpy.polynomial.hermite import hermgauss

from tt_core.bo.constraints import LOSS, Constraint, check_constraints, check_models, predict_log, probability_of_constraints
from tt_core.bo.incumbent import FEASIBILITY_THRESHOLD, _check_threshold, select_incumbent
from tt_core.models.base import check_X
from tt_core.data.io import shown

__all__ = ["TrimTunerAcquisition", "gauss_hermite_normal"]


def gauss_hermite_normal(n_roots: int) -> tuple[np.ndarray, np.ndarray]:
    """Nodes ``z_r`` and weights ``p_r`` with ``E[f(Z)] ~ sum_r p_r f(z_r)`` for ``Z ~ N(0, 1)``.

    ``z_r = sqrt(2) t_r`` and ``p_r = w_r / sqrt(pi)`` from the Gauss-Hermite rule ``(t_r, w_r)``;
    one root gives ``z = 0`` with weight 1.
    """
    if isinstance(n_roots, bool) or not isinstance(n_roots, (int, np.integer)) or n_roots < 1:
        raise ValueError(f"n_roots must be an int >= 1 (1 = the paper's single root), got {shown(n_roots)}")
    t, w = hermgauss(int(n_roots))
    return np.sqrt(2.0) * t, w / np.sqrt(np.pi)


class TrimTunerAcquisition:
    """``alpha_T(x, s) = alpha_F(x, s) * E[P(constraints hold at the fantasised incumbent)]`` (Eq. 5).

    Parameters
    ----------
    information_gain_per_cost : callable
        ``alpha_F(X) -> (n,)`` values (information gain on the ``s = 1`` optimum per unit cost, Eq. 3).
    models : mapping of str to Surrogate
        ``"loss"`` (model of ``ln(1 - accuracy)``) and the model of every constrained quantity
        (``"cost"``, ``"time"``), each with ``predict(X, return_std=True)`` and ``fantasize``.
    constraints : iterable of Constraint
        QoS constraints (on the full-size configuration).
    X_full : array-like of shape (K, d + 1)
        Encoded full-size configurations (``ConfigSpace.full_size_X()``), where the incumbent is sought.
    n_roots : int, default 1
        Gauss-Hermite roots over the loss prediction (1 = the paper's approximation).
    feasibility_threshold : float, default 0.5
        Incumbent rule threshold (:data:`tt_core.bo.incumbent.FEASIBILITY_THRESHOLD`; Fabulinus: 0.99).
    factor : {"probability", "cea"}
        First factor at the fantasised incumbent ``x*``: ``P(constraints)`` (TrimTuner Eq. 5) or
        ``(1 - exp(mu_loss)) * P(constraints)``, the CEA of ``x*`` (Fabulinus, thesis Eq. 4.5).
    """

    FACTORS = ("probability", "cea")

    def __init__(self, information_gain_per_cost: Callable, models: Mapping[str, object],
                 constraints: Iterable[Constraint], X_full, n_roots: int = 1,
                 feasibility_threshold: float = FEASIBILITY_THRESHOLD, factor: str = "probability"):
        if factor not in self.FACTORS:
            raise ValueError(f"unknown factor {shown(factor)}; known: {list(self.FACTORS)}")
        self.factor = factor
        if not callable(information_gain_per_cost):
            raise ValueError("information_gain_per_cost must be a callable X -> values (e.g. PerUnitCost of EntropySearch)")
        self.information_gain_per_cost = information_gain_per_cost
        self.constraints = check_constraints(constraints)
        check_models(models, self.constraints)
        self.models = dict(models)
        for name in self._fantasy_models():
            if not callable(getattr(self.models[name], "fantasize", None)):
                raise ValueError(f"model {shown(name)} has no fantasize(X_new, y_new) method; TrimTuner needs it")
        self.X_full = check_X(X_full, name="X_full")
        if self.X_full.shape[0] == 0:
            raise ValueError("X_full is empty; pass the full-size configurations (ConfigSpace.full_size_X())")
        if not np.allclose(self.X_full[:, -1], 1.0):
            raise ValueError("X_full must hold full-size configurations (last column s~ = 1); "
                             "use ConfigSpace.full_size_X()")
        self.nodes, self.weights = gauss_hermite_normal(n_roots)
        self.n_roots = int(n_roots)
        self.feasibility_threshold = _check_threshold(feasibility_threshold)
        # each candidate's constraint factor, computed once (a filter that maximises alpha_T and the final
        # argmax ask for the same candidates; the models are fixed during one iteration)
        self._terms: dict[bytes, tuple[float, np.ndarray]] = {}

    @property
    def n_fantasised(self) -> int:
        """Distinct candidates whose constraint factor has been computed (each with a model fantasy per
        Gauss-Hermite root: the costly part of Eq. 5)."""
        return len(self._terms)

    def _fantasy_models(self) -> list[str]:
        return list(dict.fromkeys([LOSS] + [c.model for c in self.constraints]))

    def constraint_term(self, X, return_incumbents: bool = False):
        """First factor of Eq. 5 for each candidate (independent fantasies).

        Parameters
        ----------
        X : array-like of shape (n, d + 1)
            Encoded candidates.
        return_incumbents : bool, default False
            Also return the fantasised incumbent (row of ``X_full``) per candidate and root.

        Returns
        -------
        term : ndarray of shape (n,)
            ``sum_r p_r P(constraints hold at x*_r)`` (``factor="cea"``: ``sum_r p_r A(x*_r) P(...)``);
            ones when there are no constraints.
        incumbents : ndarray of int, shape (n, n_roots), only if ``return_incumbents``
        """
        X = check_X(X, self.X_full.shape[1])
        n = X.shape[0]
        term = np.ones(n)
        incumbents = np.full((n, self.n_roots), -1, dtype=int)
        if not self.constraints:
            return (term, incumbents) if return_incumbents else term
        keys = [row.tobytes() for row in X]
        todo = [i for i in range(n) if keys[i] not in self._terms]
        names = self._fantasy_models()
        preds = predict_log(self.models, X[todo], names) if todo else {}
        others = [m for m in names if m != LOSS]
        for j, i in enumerate(todo):
            if keys[i] in self._terms:  # a repeated row of this batch
                continue
            x = X[i:i + 1]
            full = {}
            for m in others:  # constrained quantities: fantasy at their predicted mean
                fantasy = self.models[m].fantasize(x, preds[m][0][j:j + 1])
                full.update(predict_log({m: fantasy}, self.X_full, [m]))
            mu, sd = preds[LOSS][0][j], preds[LOSS][1][j]
            total = 0.0
            for r, (z, w) in enumerate(zip(self.nodes, self.weights)):
                fantasy = self.models[LOSS].fantasize(x, np.array([mu + sd * z]))
                full.update(predict_log({LOSS: fantasy}, self.X_full, [LOSS]))
                p_full = probability_of_constraints(full, self.constraints)
                inc = select_incumbent(full[LOSS][0], p_full, self.feasibility_threshold)
                incumbents[i, r] = inc.index
                value = p_full[inc.index]
                if self.factor == "cea":  # thesis Eq. 4.5: predicted accuracy x probability at x_inc
                    value = inc.predicted_accuracy * value
                total += w * value
            self._terms[keys[i]] = (total, incumbents[i].copy())
        for i in range(n):
            term[i], incumbents[i] = self._terms[keys[i]]
        return (term, incumbents) if return_incumbents else term

    def __call__(self, X) -> np.ndarray:
        """``alpha_T`` at each candidate row of ``X`` (shape (n, d + 1)) -> (n,)."""
        X = check_X(X, self.X_full.shape[1])
        gain = np.asarray(self.information_gain_per_cost(X), dtype=float).ravel()
        if gain.shape != (X.shape[0],):
            raise ValueError(f"information_gain_per_cost returned shape {gain.shape}; expected ({X.shape[0]},)")
        if not self.constraints:
            return gain
        return gain * self.constraint_term(X)

    def argmax(self, X, rng: np.random.Generator | None = None) -> tuple[int, float, int]:
        """Row of ``X`` with the largest ``alpha_T``, found exactly with far fewer fantasies.

        Since the constraint factor lies in [0, 1], ``alpha_T(x) <= max(alpha_F(x), 0)``. Candidates are
        visited by decreasing ``alpha_F`` and the scan stops as soon as that bound cannot beat the best
        ``alpha_T`` found, so the result equals ``argmax(self(X))`` while most candidates' fantasies are
        skipped. Ties: without ``rng`` the first in visiting order; with ``rng`` the scan goes on while a
        candidate could still *tie* with the best (:data:`tt_core.bo.ties.TIE_RTOL`), and the result is a
        uniform choice among the tied maxima.

        Returns
        -------
        (index, value, n_fantasised)
        """
        from tt_core.bo.ties import TIE_RTOL, argmax_random_ties, order_random_ties

        X = check_X(X, self.X_full.shape[1])
        gain = np.asarray(self.information_gain_per_cost(X), dtype=float).ravel()
        if gain.shape != (X.shape[0],):
            raise ValueError(f"information_gain_per_cost returned shape {gain.shape}; expected ({X.shape[0]},)")
        if not self.constraints:
            i = argmax_random_ties(gain, rng)
            return i, float(gain[i]), 0
        if rng is None:
            best_i, best_v, n_done = -1, -np.inf, 0
            for i in np.argsort(-gain, kind="stable"):
                if best_i >= 0 and max(gain[i], 0.0) <= best_v:
                    break
                v = float(gain[i] * self.constraint_term(X[i:i + 1])[0])
                n_done += 1
                if v > best_v:
                    best_i, best_v = int(i), v
            return best_i, best_v, n_done
        seen: dict[int, float] = {}
        best_v = -np.inf
        for i in order_random_ties(gain, rng):
            if seen and max(gain[i], 0.0) < best_v - TIE_RTOL * abs(best_v):
                break  # cannot beat nor tie the best
            v = float(gain[i] * self.constraint_term(X[i:i + 1])[0])
            seen[int(i)] = v
            best_v = max(best_v, v)
        idx = np.fromiter(seen, dtype=int, count=len(seen))
        vals = np.fromiter(seen.values(), dtype=float, count=len(seen))
        j = argmax_random_ties(vals, rng)
        return int(idx[j]), float(vals[j]), len(seen)

