"""Incumbent recommendation (paper Alg. 1 line 19).

The incumbent is the full-size (``s = 1``) configuration with the highest *predicted* accuracy among the
configurations *predicted* feasible. Predicted accuracy is ``1 - exp(mu_loss)`` (the loss model
predicts ``ln(1 - accuracy)``); a configuration is predicted feasible when the probability that all
constraints hold (:func:`tt_core.bo.constraints.probability_of_constraints`) is at least
:data:`FEASIBILITY_THRESHOLD` = 0.5, i.e. when the median prediction of every single constrained
quantity meets its bound (for one constraint, ``P >= 0.5`` iff ``mu <= ln q_max``).

Fallback: when no configuration is predicted feasible, the incumbent is the one with the highest
constrained expected accuracy ``CEA = (1 - exp(mu_loss)) * P(constraints)`` (paper Eq. 6), which trades
accuracy against the chance of being feasible. Ties (tree models predict the same accuracy for many
configurations) go to a uniform choice with ``rng`` (:mod:`tt_core.bo.ties`), or to the lowest row
index without one.

Deviations from the original TrimTuner implementation
-----------------------------------------------------
* The authors' public code (pedrogbmendes/TrimTuner, commit a9dec1f; see
  ``../shared/data/paper_figures/SOURCE.md``) recommends, after each BO test, the configuration of
  maximum CEA among the configurations *tested so far* (at any size), with CEA predicted at full size;
  it does not search all full-size configurations. Here the paper's rule (max predicted accuracy among
  the predicted-feasible full-size configurations, Alg. 1 line 19) is the default, with max CEA only as
  the fallback when none is predicted feasible; the authors' rule is :func:`find_tested_incumbent`
  (``incumbent_rule="tested-cea"`` of :class:`tt_core.optimizers.model_based.ModelBasedOptimizer`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Mapping

import numpy as np

from tt_core.bo.ties import argmax_random_ties
from tt_core.bo.constraints import LOSS, Constraint, check_constraints, check_models, predict_log, probability_of_constraints
from tt_core.data.io import shown

#: P(all constraints hold) at or above which a configuration counts as predicted feasible.
FEASIBILITY_THRESHOLD = 0.5


@dataclass(frozen=True)
class Incumbent:
    """The recommended configuration.

    Attributes
    ----------
    index : int
        Row of the incumbent in the full-size inputs (``ConfigSpace.full_size_X()`` rows are in
        ``ConfigSpace.config_ids`` order).
    predicted_accuracy : float
        ``1 - exp(mu_loss)`` at the incumbent.
    p_feasible : float
        Predicted probability that all constraints hold at the incumbent.
    predicted_feasible : bool
        Whether ``p_feasible >= threshold`` (False only in the fallback case).
    """

    index: int
    predicted_accuracy: float
    p_feasible: float
    predicted_feasible: bool


def _check_threshold(threshold: float) -> float:
    threshold = float(threshold)
    if not 0.0 <= threshold <= 1.0:
        raise ValueError(f"feasibility threshold must lie in [0, 1], got {threshold} (the paper's rule uses 0.5)")
    return threshold


def select_incumbent(loss_mean, p_feasible, threshold: float = FEASIBILITY_THRESHOLD,
                     rng: np.random.Generator | None = None) -> Incumbent:
    """Pick the incumbent from predictions at the full-size configurations (Alg. 1 line 19).

    Parameters
    ----------
    loss_mean : array-like of shape (n,)
        Predicted mean of ``ln(1 - accuracy)``.
    p_feasible : array-like of shape (n,)
        Predicted probability that every constraint holds.
    threshold : float, default 0.5
        Predicted-feasible means ``p_feasible >= threshold``.
    rng : numpy.random.Generator, optional
        Breaks ties at random (None: lowest index).

    Returns
    -------
    Incumbent
    """
    mu = np.asarray(loss_mean, dtype=float).ravel()
    p = np.asarray(p_feasible, dtype=float).ravel()
    threshold = _check_threshold(threshold)
    if mu.size == 0:
        raise ValueError("no configurations to choose the incumbent from; pass the full-size configurations")
    if p.shape != mu.shape:
        raise ValueError(f"loss_mean ({mu.size}) and p_feasible ({p.size}) must have the same length")
    acc = -np.expm1(mu)
    feasible = p >= threshold
    if feasible.any():
        idx = int(np.flatnonzero(feasible)[argmax_random_ties(acc[feasible], rng)])
    else:
        idx = argmax_random_ties(acc * p, rng)
    return Incumbent(idx, float(acc[idx]), float(p[idx]), bool(feasible[idx]))


def find_incumbent(models: Mapping[str, object], constraints: Iterable[Constraint], X_full,
                   threshold: float = FEASIBILITY_THRESHOLD, rng: np.random.Generator | None = None) -> Incumbent:
    """Incumbent predicted by the models among full-size configurations.

    Parameters
    ----------
    models : mapping of str to Surrogate
        ``"loss"`` plus the model of every constrained quantity (log space).
    constraints : iterable of Constraint
    X_full : array-like of shape (n, d + 1)
        Encoded full-size configurations (last column 1), e.g. ``ConfigSpace.full_size_X()``.
    threshold : float, default 0.5
    rng : numpy.random.Generator, optional
        Breaks ties at random (None: lowest index).

    Returns
    -------
    Incumbent
    """
    constraints = check_constraints(constraints)
    check_models(models, constraints)
    X_full = np.asarray(X_full, dtype=float)
    if X_full.ndim != 2 or X_full.shape[0] == 0:
        raise ValueError(f"X_full must be a non-empty (n, d + 1) array, got shape {X_full.shape}")
    if not np.allclose(X_full[:, -1], 1.0):
        raise ValueError("X_full must hold full-size configurations (last column s~ = 1); use ConfigSpace.full_size_X()")
    names = dict.fromkeys([LOSS] + [c.model for c in constraints])
    preds = predict_log(models, X_full, names)
    p = probability_of_constraints(preds, constraints)
    return select_incumbent(preds[LOSS][0], p, threshold, rng)


def find_tested_incumbent(models: Mapping[str, object], constraints: Iterable[Constraint], X_tested_full,
                          rng: np.random.Generator | None = None) -> Incumbent:
    """The authors' code's incumbent: max CEA among the configurations tested so far, predicted at full size.

    CEA = ``(1 - exp(mu_loss)) * P(constraints)`` (paper Eq. 6) at ``s = 1``; without constraints it is
    the predicted accuracy. Ties go to a uniform choice with ``rng`` (:mod:`tt_core.bo.ties`, as in
    :func:`select_incumbent`), or to the lowest row without one.

    Parameters
    ----------
    models : mapping of str to Surrogate
        ``"loss"`` plus the model of every constrained quantity (log space).
    constraints : iterable of Constraint
    X_tested_full : array-like of shape (n, d + 1)
        The encoded tested configurations (each once, whatever size it was tested at) *at full size*
        (last column 1).
    rng : numpy.random.Generator, optional
        Breaks ties at random (None: lowest row).

    Returns
    -------
    Incumbent
        ``index`` is the row of ``X_tested_full``; ``predicted_feasible`` says whether ``p_feasible``
        reaches :data:`FEASIBILITY_THRESHOLD` (the rule does not require it).
    """
    constraints = check_constraints(constraints)
    check_models(models, constraints)
    X = np.asarray(X_tested_full, dtype=float)
    if X.ndim != 2 or X.shape[0] == 0:
        raise ValueError(f"X_tested_full must be a non-empty (n, d + 1) array, got shape {X.shape}")
    if not np.allclose(X[:, -1], 1.0):
        raise ValueError("X_tested_full must hold the tested configurations at full size (last column s~ = 1)")
    preds = predict_log(models, X, dict.fromkeys([LOSS] + [c.model for c in constraints]))
    p = probability_of_constraints(preds, constraints)
    acc = -np.expm1(np.asarray(preds[LOSS][0], dtype=float).ravel())
    p = np.broadcast_to(np.asarray(p, dtype=float).ravel(), acc.shape)
    idx = argmax_random_ties(acc * p, rng)
    return Incumbent(idx, float(acc[idx]), float(p[idx]), bool(p[idx] >= FEASIBILITY_THRESHOLD))


def best_observed(history, objective: str, max_size: int | None = None) -> tuple[int, int] | None:
    """The best observed test, as ``(config_id, size)``, under the problem's objective.

    * ``objective="accuracy"`` (TrimTuner paper): the full-size test (``size == max_size``) of highest
      accuracy among the feasible ones, or among all full-size tests when none is feasible; None
      without a full-size test.
    * ``objective="cost"`` (thesis Alg. 2, line 16): the cheapest used feasible test at any size; None
      when no test is feasible.

    Parameters
    ----------
    history : DataFrame
        The optimiser's history (columns ``config_id, size, accuracy, cost, feasible, used``).
    objective : {"accuracy", "cost"}
    max_size : int, optional
        The full size (needed for ``objective="accuracy"``).
    """
    if objective == "accuracy":
        h = history[history["size"] == max_size]
        if h.empty:
            return None
        feas = h["feasible"].to_numpy(bool)
        pick = h[feas] if feas.any() else h
        row = pick.loc[pick["accuracy"].idxmax()]
        return int(row["config_id"]), int(row["size"])
    if objective == "cost":
        h = history[history["used"].to_numpy(bool) & history["feasible"].to_numpy(bool)]
        if h.empty:
            return None
        row = h.iloc[int(np.argmin(h["cost"].to_numpy(float)))]
        return int(row["config_id"]), int(row["size"])
    raise ValueError(f"objective must be 'accuracy' or 'cost', got {shown(objective)}")
