"""Expected-improvement family: EI and EIc (CherryPick), EIc/USD (Lynceus) built on it (TrimTuner paper Eq. 1, Sec. IV).

All acquisitions *minimise* the loss ``y = ln(1 - accuracy)`` predicted by the ``"loss"`` model. With
a Gaussian prediction ``N(mu, sigma^2)`` and incumbent ``eta`` (best observed loss), paper Eq. 1 for a
minimisation reads::

    EI(x) = E[max(0, eta - y)] = sigma * (z * Phi(z) + phi(z)),   z = (eta - mu) / sigma

and ``EI = max(0, eta - mu)`` when ``sigma = 0``.

* ``EIc(x) = EI(x; eta_feasible) * P(constraints hold at x)`` with ``eta_feasible`` the lowest observed
  loss among feasible observations; with no feasible observation EIc is the probability alone.
* ``EIc/USD(x) = EIc(x) / E[C(x)]`` with ``E[C] = exp(mu_c + sigma_c^2 / 2)`` the log-normal mean of
  the ``"cost"`` model's log-space prediction: EIc per unit cost
  (:class:`tt_core.acquisitions.per_cost.PerUnitCost`, :class:`tt_core.acquisitions.per_cost.LogNormalMeanCost`).
* The thesis' cost-minimising variants (Nephele, Lynceus, CherryPick): :func:`lognormal_expected_improvement`
  of a cost below the incumbent cost (thesis Eqs. 2.14-2.15, minimised, for ``ln C ~ N(mu, sd^2)``) and
  :func:`constrained_cost_ei` (thesis Eq. 2.17), ``P(feasible) * EI``, with the time derived from the
  predicted cost and the cluster's price per second (thesis §3.2.1).

Every acquisition is a callable ``acq(X) -> values`` over a batch of encoded candidates ``X`` of shape
(n, d + 1); larger is better.

Deviations from the original implementations
--------------------------------------------
* Constraint probabilities use the exact log-normal form (see :mod:`tt_core.bo.constraints`).
* Paper Eq. 1 is written for maximisation (``f(x) - eta``); here the loss is minimised, which is the
  same criterion on accuracy.
"""

from __future__ import annotations

from typing import Iterable, Mapping

import numpy as np
from scipy.special import ndtr

from tt_core.bo.constraints import (
    LOSS,
    Constraint,
    check_constraints,
    check_models,
    observed_feasible,
    predict_log,
    probability_of_constraints,
)

__all__ = ["expected_improvement", "probability_of_constraints", "EI", "EIc",
           "lognormal_expected_improvement", "constrained_cost_ei"]

_INV_SQRT_2PI = 1.0 / np.sqrt(2.0 * np.pi)


def expected_improvement(mean, std, best) -> np.ndarray:
    """Closed-form expected improvement below ``best`` (paper Eq. 1, minimisation).

    Parameters
    ----------
    mean, std : array-like of shape (n,)
        Gaussian predictive mean and standard deviation of the loss (``std >= 0``).
    best : float
        Incumbent loss ``eta``.

    Returns
    -------
    ndarray of shape (n,)
        ``E[max(0, best - y)]``, ``y ~ N(mean, std^2)``; ``max(0, best - mean)`` where ``std = 0``.
    """
    mean = np.asarray(mean, dtype=float)
    std = np.asarray(std, dtype=float)
    best = float(best)
    if not np.isfinite(best):
        raise ValueError(f"best (incumbent loss) must be finite, got {best}")
    if np.any(std < 0) or not np.all(np.isfinite(std)) or not np.all(np.isfinite(mean)):
        raise ValueError("mean and std must be finite with std >= 0")
    mean, std = np.broadcast_arrays(mean, std)
    out = np.maximum(best - mean, 0.0)
    pos = std > 0
    if np.any(pos):
        s = std[pos]
        z = (best - mean[pos]) / s
        out[pos] = s * (z * ndtr(z) + _INV_SQRT_2PI * np.exp(-0.5 * z * z))
    return np.maximum(out, 0.0)


class EI:
    """Expected improvement of the loss model (paper Eq. 1).

    Parameters
    ----------
    loss_model : Surrogate
        Fitted model of ``ln(1 - accuracy)`` with ``predict(X, return_std=True)``.
    best : float
        Incumbent (lowest observed) loss.
    """

    def __init__(self, loss_model, best: float):
        self.loss_model = loss_model
        self.best = float(best)
        if not np.isfinite(self.best):
            raise ValueError(f"best (incumbent loss) must be finite, got {best}")

    def __call__(self, X) -> np.ndarray:
        mean, std = self.loss_model.predict(X, return_std=True)
        return expected_improvement(np.ravel(mean), np.ravel(std), self.best)


class EIc:
    """Constrained expected improvement (CherryPick: Alipourfard et al., NSDI 2017; TrimTuner paper Sec. IV).

    ``EIc(x) = EI(x; best_feasible) * prod_q P(q(x) satisfied)``, or the probability alone when there
    is no feasible observation (``best_feasible=None``).

    Parameters
    ----------
    models : mapping of str to Surrogate
        ``"loss"`` and one model per constrained quantity (``"cost"``, ``"time"``), all in log space.
    constraints : iterable of Constraint
    best_feasible : float or None
        Lowest observed loss among feasible observations (see :meth:`from_observations`).
    """

    def __init__(self, models: Mapping[str, object], constraints: Iterable[Constraint], best_feasible: float | None):
        self.constraints = check_constraints(constraints)
        check_models(models, self.constraints)
        self.models = dict(models)
        if best_feasible is not None:
            best_feasible = float(best_feasible)
            if not np.isfinite(best_feasible):
                raise ValueError(f"best_feasible must be finite or None, got {best_feasible}")
        self.best_feasible = best_feasible

    @classmethod
    def from_observations(cls, models, constraints, losses, observations: Mapping[str, np.ndarray]):
        """Build with ``best_feasible`` = lowest observed loss among observations meeting every constraint.

        Parameters
        ----------
        losses : array-like of shape (n,)
            Observed ``ln(1 - accuracy)``.
        observations : mapping of str to array-like of shape (n,)
            Observed constrained quantities in natural units (``"cost"``, ``"time"``; ``"accuracy"`` is
            derived from ``losses`` if absent).
        """
        losses = np.asarray(losses, dtype=float).ravel()
        ok = observed_feasible(constraints, observations, losses)
        if len(ok) != len(losses):
            raise ValueError(f"losses ({len(losses)}) and observations ({len(ok)}) differ in length")
        best = float(losses[ok].min()) if ok.any() else None
        return cls(models, constraints, best)

    def _preds(self, X):
        names = [LOSS] + [c.model for c in self.constraints if c.model != LOSS]
        return predict_log(self.models, X, dict.fromkeys(names))

    def _value(self, preds) -> np.ndarray:
        p = probability_of_constraints(preds, self.constraints)
        if self.best_feasible is None:
            return p
        mean, std = preds[LOSS]
        return expected_improvement(mean, std, self.best_feasible) * p

    def __call__(self, X) -> np.ndarray:
        return self._value(self._preds(X))


# ------------------------------------------------------------------------------------------------
# Cost-minimising variants (thesis ch. 2-3: Nephele, Lynceus, CherryPick)
# ------------------------------------------------------------------------------------------------
def lognormal_expected_improvement(mu, sd, best) -> np.ndarray:
    """Expected improvement of a cost below ``best`` when ``ln C ~ N(mu, sd^2)`` (thesis Eqs. 2.14-2.15,
    minimised).

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
        z = (np.log(best) - m) / s
        out[pos] = best * ndtr(z) - np.exp(m + 0.5 * s * s) * ndtr(z - s)
    return np.maximum(out, 0.0)


def constrained_cost_ei(pred: Mapping[str, np.ndarray], price_per_second, best, constraints) -> np.ndarray:
    """Constrained expected improvement of the cost (thesis Eq. 2.17): ``P(feasible) * EI``.

    ``P(feasible)`` is the product over ``constraints`` (independent, as Eq. 2.17 assumes) of
    :meth:`Constraint.probability`: an accuracy bound on the ``ln(1 - A)`` prediction, a time bound on
    ``ln T = ln C - ln p(x)`` (``p`` the price per second: thesis §3.2.1 derives the time from the
    predicted cost), a cost bound on ``ln C``. ``EI`` is :func:`lognormal_expected_improvement` below
    the incumbent cost ``best``; with no feasible observation yet (``best=None``) the score is
    ``P(feasible)`` alone.

    Parameters
    ----------
    pred : mapping with ``mu_l, sd_l`` (prediction of ``ln(1 - accuracy)``) and ``mu_c, sd_c`` (``ln cost``)
    price_per_second : array-like of shape (n,)
    best : float or None
    constraints : iterable of Constraint

    Returns
    -------
    ndarray of shape (n,)
    """
    p = probability_from_cost(pred, price_per_second, constraints)
    if best is None:
        return p
    return p * lognormal_expected_improvement(pred["mu_c"], pred["sd_c"], best)


def probability_from_cost(pred: Mapping[str, np.ndarray], price_per_second, constraints) -> np.ndarray:
    """``P(all constraints hold)`` from a loss and a cost prediction, the time derived as ``C / p(x)``."""
    log_price = np.log(np.asarray(price_per_second, dtype=float))
    p = np.ones(np.shape(pred["mu_c"]), dtype=float)
    for c in check_constraints(constraints):
        if c.quantity == "accuracy":
            p = p * c.probability(pred["mu_l"], pred["sd_l"])
        elif c.quantity == "time":
            p = p * c.probability(np.asarray(pred["mu_c"], float) - log_price, pred["sd_c"])
        else:
            p = p * c.probability(pred["mu_c"], pred["sd_c"])
    return p
