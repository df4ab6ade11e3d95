"""Nephele's lookahead (thesis Alg. 3, EXPLOREPATHS and NEXTSTEP) as an acquisition.

The value of testing a pair ``(x, s)`` is ``R / C``: the reward ``R`` (constrained EI of the cost,
thesis Eq. 2.17, :func:`tt_core.acquisitions.ei.constrained_cost_ei`) and the predicted cost ``C`` of
the path that starts at the pair, followed for ``h`` more steps under speculated outcomes. At each
step the outcome of the last test is speculated at Gauss-Hermite nodes of its predicted cost (``N``)
and accuracy (``M``), the models are refitted on the speculated observation (their ``fantasize``),
the next step is the pair of the predicted-feasible set Omega of highest EIc (line 32), and the
rewards and costs of the continuations are added with weight ``gamma * w_c * w_a`` (lines 27-28).

With ``h = 0`` the value is ``EIc / E[C]`` (thesis Eq. 3.2).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable

import numpy as np

from tt_core.acquisitions.ei import constrained_cost_ei
from tt_core.acquisitions.trimtuner import gauss_hermite_normal
from tt_core.bo.constraints import observed_feasible, predicted_feasible


@dataclass
class PathState:
    """Observations a lookahead path builds on (real, or speculated along the path)."""

    pos: np.ndarray       # candidate positions of the observations
    loss: np.ndarray      # ln(1 - accuracy)
    lcost: np.ndarray     # ln cost
    untested: np.ndarray  # bool mask over candidates
    budget_left: float
    best: float | None    # cheapest feasible cost so far

    def add(self, pos: int, loss: float, lcost: float, cost: float, feasible: bool) -> "PathState":
        untested = self.untested.copy()
        untested[pos] = False
        best = self.best
        if feasible and (best is None or cost < best):
            best = cost
        return PathState(np.append(self.pos, pos), np.append(self.loss, loss), np.append(self.lcost, lcost),
                         untested, self.budget_left - cost, best)


def expected_cost(pred, k=None) -> np.ndarray:
    """Log-normal mean ``exp(mu_c + sd_c^2 / 2)`` of the cost prediction (at index ``k`` if given)."""
    mu, sd = (pred["mu_c"], pred["sd_c"]) if k is None else (pred["mu_c"][k], pred["sd_c"][k])
    return np.exp(mu + 0.5 * sd ** 2)


class Lookahead:
    """Reward and cost of lookahead paths (thesis Alg. 3).

    Parameters
    ----------
    X : ndarray of shape (n, d + 1)
        Encoded candidates (all pairs of the optimiser's pool).
    price_per_second : ndarray of shape (n,)
        Price of each candidate's cluster.
    constraints : tuple of Constraint
        The accuracy and time constraints.
    predict : callable ``(models, idx) -> dict(mu_l, sd_l, mu_c, sd_c)``
    argmax : callable ``(values, candidates) -> int``
        The optimiser's tie-breaking argmax.
    discount : float
        ``gamma`` of lines 27-28.
    gh_cost, gh_accuracy : int
        Gauss-Hermite nodes ``N`` and ``M``.
    """

    def __init__(self, X, price_per_second, constraints, predict: Callable, argmax: Callable, *,
                 discount: float = 0.9, gh_cost: int = 3, gh_accuracy: int = 1):
        self.X = X
        self.price = np.asarray(price_per_second, dtype=float)
        self.constraints = constraints
        self.predict = predict
        self.argmax = argmax
        self.discount = float(discount)
        self.gh_cost = gauss_hermite_normal(gh_cost)
        self.gh_accuracy = gauss_hermite_normal(gh_accuracy)

    def eic(self, pred, idx, best) -> np.ndarray:
        return constrained_cost_ei(pred, self.price[idx], best, self.constraints)

    def feasible(self, pred, idx, budget_left) -> np.ndarray:
        return predicted_feasible(pred["mu_l"], pred["mu_c"], self.price[idx], budget_left, self.constraints)

    def _speculated_feasible(self, acc: float, cost: float, pos: int) -> bool:
        obs = {"accuracy": [acc], "time": [cost / self.price[pos]], "cost": [cost]}
        return bool(observed_feasible(self.constraints, obs)[0])

    def paths(self, pos: int, h: int, state: PathState, models, eic: float, cost: float,
              p: dict) -> tuple[float, float]:
        """EXPLOREPATHS (Alg. 3, lines 10-29): reward and cost of the path starting at candidate ``pos``.

        ``models`` are the (loss, cost) models fitted on ``state``; ``eic``, ``cost`` and ``p`` (``mu_l,
        sd_l, mu_c, sd_c``) their predictions at ``pos``. The retrained models of line 23 are the
        models' ``fantasize`` (a refit on the state's data plus the speculated point).
        """
        R, C = float(eic), float(cost)
        if h == 0:
            return R, C
        z_c, w_c = self.gh_cost
        z_a, w_a = self.gh_accuracy
        for zc, wc in zip(z_c, w_c):
            lc = p["mu_c"] + p["sd_c"] * zc          # speculated ln cost c_i
            c = float(np.exp(lc))
            for za, wa in zip(z_a, w_a):
                loss = p["mu_l"] + p["sd_l"] * za    # speculated ln(1 - a_j)
                acc = 1.0 - math.exp(loss)
                new = state.add(pos, loss, lc, c, self._speculated_feasible(acc, c, pos))  # lines 20-22
                if not new.untested.any() or new.budget_left <= 0:
                    continue
                x_new = self.X[pos:pos + 1]                      # line 23: retrain on S'
                new_models = (models[0].fantasize(x_new, [loss]), models[1].fantasize(x_new, [lc]))
                idx = np.flatnonzero(new.untested)
                pred = self.predict(new_models, idx)
                omega = self.feasible(pred, idx, new.budget_left)  # NEXTSTEP, line 31
                if not omega.any():
                    continue                                     # line 25
                o = np.flatnonzero(omega)
                opred = {k: v[o] for k, v in pred.items()}
                eic_o = self.eic(opred, idx[o], new.best)
                k = self.argmax(eic_o, idx[o])                   # line 32
                r, cc = self.paths(int(idx[o][k]), h - 1, new, new_models, eic_o[k], float(expected_cost(opred, k)),
                                   {key: v[k] for key, v in opred.items()})
                C += self.discount * wc * wa * cc                # lines 27-28
                R += self.discount * wc * wa * r
        return R, C
