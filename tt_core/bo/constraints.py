"""QoS constraints and the probability that a configuration satisfies them (paper Eqs. 5-6).

A :class:`Constraint` bounds one measured quantity: ``"cost"`` (USD), ``"time"`` (training time, s) or
``"accuracy"``. Every quantity is modelled in log space, by a model named in :data:`MODEL_FOR_QUANTITY`:

* ``"cost"`` / ``"time"``: a model of ``ln cost`` / ``ln time``;
* ``"accuracy"``: the loss model of ``ln(1 - accuracy)`` (the optimisation target).

With a Gaussian prediction ``N(mu, sd^2)`` in log space the quantity is log-normal, so::

    P(q <= q_max) = Phi((ln q_max - mu) / sd)
    P(q_min <= q <= q_max) = Phi((ln q_max - mu) / sd) - Phi((ln q_min - mu) / sd)

and for accuracy ``P(acc >= a_min) = Phi((ln(1 - a_min) - mu_loss) / sd_loss)``. Constraints are
independent (paper Sec. III), so the probability of satisfying all of them is the product.

Deviations from the original TrimTuner implementation
-----------------------------------------------------
* The original treats ``exp(mu)`` as the mean of a Normal with standard deviation ``exp(mu) * v`` (using
  the log-space *variance* as if it were a standard deviation). Here the exact log-normal form is used.
* Constraints are general (upper and/or lower bounds on cost, time or accuracy), not only a cost cap.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Iterable, Mapping, Sequence

import numpy as np
from scipy.special import ndtr
from tt_core.data.io import shown

#: Which model (log-space target) predicts each constrainable quantity.
MODEL_FOR_QUANTITY: dict[str, str] = {"accuracy": "loss", "cost": "cost", "time": "time"}
#: Name of the model of ``ln(1 - accuracy)``.
LOSS = "loss"


@dataclass(frozen=True)
class Constraint:
    """A bound on one quantity, e.g. ``Constraint("cost", upper=0.02)`` (RNN budget of the paper).

    Parameters
    ----------
    quantity : {"cost", "time", "accuracy"}
        The constrained quantity (natural units: USD, seconds, accuracy in [0, 1]).
    upper, lower : float or None
        Bounds in natural units (inclusive); at least one must be given. Cost and time bounds must be
        positive (a lower bound may be 0); accuracy bounds must lie in [0, 1].
    """

    quantity: str
    upper: float | None = None
    lower: float | None = None

    def __post_init__(self) -> None:
        if self.quantity not in MODEL_FOR_QUANTITY:
            raise ValueError(
                f"unknown constrained quantity {shown(self.quantity)}; known quantities: {sorted(MODEL_FOR_QUANTITY)}"
            )
        if self.upper is None and self.lower is None:
            raise ValueError(f"constraint on {shown(self.quantity)} needs an upper and/or a lower bound")
        for name in ("upper", "lower"):
            v = getattr(self, name)
            if v is not None and (isinstance(v, bool) or not isinstance(v, (int, float, np.floating, np.integer))
                                  or not math.isfinite(v)):
                raise ValueError(f"constraint on {shown(self.quantity)}: {name} must be a finite number, got {shown(v)}")
        lo, hi = self.lower, self.upper
        if self.quantity == "accuracy":
            for name, v in (("upper", hi), ("lower", lo)):
                if v is not None and not 0.0 <= v <= 1.0:
                    raise ValueError(f"accuracy constraint: {name} must lie in [0, 1], got {v}")
        else:
            if hi is not None and hi <= 0:
                raise ValueError(
                    f"constraint on {shown(self.quantity)}: upper must be > 0 (the quantity is modelled in log space), "
                    f"got {hi}"
                )
            if lo is not None and lo < 0:
                raise ValueError(f"constraint on {shown(self.quantity)}: lower must be >= 0, got {lo}")
        if lo is not None and hi is not None and lo > hi:
            raise ValueError(f"constraint on {shown(self.quantity)}: lower ({lo}) must not exceed upper ({hi})")

    @property
    def model(self) -> str:
        """Name of the model whose predictions this constraint needs."""
        return MODEL_FOR_QUANTITY[self.quantity]

    def log_bounds(self) -> tuple[float, float]:
        """Bounds ``(lo, hi)`` on the model's log-space target (``-inf`` / ``+inf`` when absent)."""
        with np.errstate(divide="ignore"):
            if self.quantity == "accuracy":  # target ln(1 - acc) is decreasing in acc
                hi = float(np.log1p(-self.lower)) if self.lower is not None else math.inf
                lo = float(np.log1p(-self.upper)) if self.upper is not None else -math.inf
            else:
                hi = float(np.log(self.upper)) if self.upper is not None else math.inf
                lo = float(np.log(self.lower)) if self.lower is not None else -math.inf
        return lo, hi

    def probability(self, mean, std) -> np.ndarray:
        """P(constraint satisfied) for log-space predictions ``N(mean, std^2)``.

        Parameters
        ----------
        mean, std : array-like of shape (n,)
            Predictive mean and standard deviation of the model's log-space target. ``std = 0`` gives
            the indicator of ``lo <= mean <= hi``.

        Returns
        -------
        ndarray of shape (n,) in [0, 1]
        """
        mean = np.asarray(mean, dtype=float)
        std = np.asarray(std, dtype=float)
        if np.any(std < 0) or not np.all(np.isfinite(std)) or not np.all(np.isfinite(mean)):
            raise ValueError(f"constraint on {shown(self.quantity)}: predictions must be finite with std >= 0")
        lo, hi = self.log_bounds()
        return _interval_probability(mean, std, lo, hi)

    def satisfied(self, values) -> np.ndarray:
        """Whether observed values (natural units) satisfy the constraint."""
        v = np.asarray(values, dtype=float)
        ok = np.ones(v.shape, dtype=bool)
        if self.upper is not None:
            ok &= v <= self.upper
        if self.lower is not None:
            ok &= v >= self.lower
        return ok


def _interval_probability(mean: np.ndarray, std: np.ndarray, lo: float, hi: float) -> np.ndarray:
    """P(lo <= Y <= hi) for Y ~ N(mean, std^2), accurate in both tails; std = 0 -> indicator."""
    mean, std = np.broadcast_arrays(mean, std)
    out = ((mean >= lo) & (mean <= hi)).astype(float)
    pos = std > 0
    if np.any(pos):
        m, s = mean[pos], std[pos]
        a = (lo - m) / s
        b = (hi - m) / s
        # upper tail: use survival functions to avoid 1 - 1 cancellation
        p = np.where(a > 0, ndtr(-a) - ndtr(-b), ndtr(b) - ndtr(a))
        out[pos] = np.clip(p, 0.0, 1.0)
    return out


def check_constraints(constraints: Iterable[Constraint] | None) -> tuple[Constraint, ...]:
    """Validate and return constraints as a tuple (``None`` -> no constraints)."""
    if constraints is None:
        return ()
    if isinstance(constraints, Constraint):
        return (constraints,)
    out = tuple(constraints)
    for c in out:
        if not isinstance(c, Constraint):
            raise ValueError(f"constraints must be Constraint objects, got {type(c).__name__}: {shown(c)}")
    return out


def required_models(constraints: Iterable[Constraint], include_loss: bool = True) -> tuple[str, ...]:
    """Model names needed to evaluate the constraints (and the loss model, if asked), loss first."""
    names = [LOSS] if include_loss else []
    for c in check_constraints(constraints):
        if c.model not in names:
            names.append(c.model)
    return tuple(names)


def check_models(models: Mapping[str, object], constraints: Iterable[Constraint] = (),
                 need: Sequence[str] = (LOSS,)) -> None:
    """Raise ValueError if a model needed by ``need`` or by a constraint is missing from ``models``."""
    if not isinstance(models, Mapping):
        raise ValueError(
            f"models must be a mapping of model name to model, e.g. {{'loss': ..., 'cost': ...}}, "
            f"got {type(models).__name__}"
        )
    for name in need:
        if name not in models:
            raise ValueError(f"a {shown(name)} model is required; models given: {sorted(models)}")
    for c in check_constraints(constraints):
        if c.model not in models:
            raise ValueError(
                f"constraint on {shown(c.quantity)} needs a {shown(c.model)} model (of ln {c.quantity if c.model != LOSS else '(1 - accuracy)'}), "
                f"but models has only {sorted(models)}; add that model or drop the constraint"
            )


def predict_log(models: Mapping[str, object], X, names: Iterable[str]) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """Log-space predictions ``{name: (mean, std)}`` of the named models at ``X``."""
    out = {}
    for name in names:
        if name not in models:
            raise ValueError(f"no {shown(name)} model; models given: {sorted(models)}")
        mean, std = models[name].predict(X, return_std=True)
        out[name] = (np.asarray(mean, dtype=float).ravel(), np.asarray(std, dtype=float).ravel())
    return out


def probability_of_constraints(preds: Mapping[str, tuple[np.ndarray, np.ndarray]],
                               constraints: Iterable[Constraint]) -> np.ndarray:
    """Probability that every constraint holds: ``prod_q P(q satisfied)`` (paper Eq. 6, independence).

    Parameters
    ----------
    preds : mapping of str to (mean, std)
        Log-space predictions keyed by model name (``"loss"``, ``"cost"``, ``"time"``), each a pair of
        arrays of shape (n,).
    constraints : iterable of Constraint

    Returns
    -------
    ndarray of shape (n,)
        Ones when there are no constraints.
    """
    constraints = check_constraints(constraints)
    if not preds:
        raise ValueError("preds is empty; pass log-space predictions {model name: (mean, std)}")
    n = len(np.asarray(next(iter(preds.values()))[0]).ravel())
    p = np.ones(n)
    for c in constraints:
        if c.model not in preds:
            raise ValueError(
                f"constraint on {shown(c.quantity)} needs predictions of the {shown(c.model)} model, but preds has only "
                f"{sorted(preds)}; model that quantity or drop the constraint"
            )
        mean, std = preds[c.model]
        if len(np.asarray(mean).ravel()) != n:
            raise ValueError("all predictions in preds must have the same length")
        p = p * c.probability(np.asarray(mean).ravel(), np.asarray(std).ravel())
    return p


def observed_feasible(constraints: Iterable[Constraint], observations: Mapping[str, np.ndarray],
                      losses=None) -> np.ndarray:
    """Which observations satisfy every constraint.

    Parameters
    ----------
    constraints : iterable of Constraint
    observations : mapping of str to array of shape (n,)
        Observed quantities in natural units (``"cost"``, ``"time"``, ``"accuracy"``).
    losses : array-like of shape (n,), optional
        Observed ``ln(1 - accuracy)``; used for an accuracy constraint when ``observations`` has no
        ``"accuracy"``.

    Returns
    -------
    ndarray of bool, shape (n,)
    """
    constraints = check_constraints(constraints)
    obs = {k: np.asarray(v, dtype=float).ravel() for k, v in observations.items()}
    if losses is not None and "accuracy" not in obs:
        obs["accuracy"] = -np.expm1(np.asarray(losses, dtype=float).ravel())
    lengths = {len(v) for v in obs.values()}
    if len(lengths) > 1:
        raise ValueError(f"observations have different lengths: { {k: len(v) for k, v in obs.items()} }")
    n = lengths.pop() if lengths else 0
    ok = np.ones(n, dtype=bool)
    for c in constraints:
        if c.quantity not in obs:
            raise ValueError(
                f"constraint on {shown(c.quantity)} but no observed {shown(c.quantity)}; observations have {sorted(obs)}"
            )
        ok &= c.satisfied(obs[c.quantity])
    return ok


def predicted_feasible(mu_loss, mu_cost, price_per_second, budget_left: float, constraints) -> np.ndarray:
    """Membership of the feasible set Gamma / Omega (thesis Alg. 3, lines 2 and 31).

    A candidate belongs when its *predicted* values meet the constraints and the remaining budget:
    accuracy ``1 - exp(mu_loss)``, cost ``exp(mu_cost) <= budget_left`` and time
    ``exp(mu_cost) / p(x)`` (thesis §3.2.1: "the configurations whose predicted mean values of accuracy
    and cost comply with the constraints"; the point prediction of the log-space models is the
    back-transformed mean). The comparisons are made in log space.

    Parameters
    ----------
    mu_loss, mu_cost : array-like of shape (n,)
        Predicted ``ln(1 - accuracy)`` and ``ln cost``.
    price_per_second : array-like of shape (n,)
        USD per second of each candidate's cluster.
    budget_left : float
        Exploration budget left (USD); nothing is feasible at or below 0.
    constraints : iterable of Constraint

    Returns
    -------
    ndarray of bool, shape (n,)
    """
    mu_loss = np.asarray(mu_loss, dtype=float)
    mu_cost = np.asarray(mu_cost, dtype=float)
    if budget_left <= 0:
        return np.zeros(mu_cost.shape, dtype=bool)
    log_time = mu_cost - np.log(np.asarray(price_per_second, dtype=float))
    ok = mu_cost <= math.log(budget_left)
    for c in check_constraints(constraints):
        lo, hi = c.log_bounds()
        value = {"accuracy": mu_loss, "time": log_time, "cost": mu_cost}[c.quantity]
        ok &= (value >= lo) & (value <= hi)
    return ok
