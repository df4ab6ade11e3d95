"""Shared model contract: the :class:`Surrogate` protocol, :class:`JointPosterior` and input checks.

Inputs of every surrogate are arrays ``X`` of shape ``(n, d + 1)``: columns ``0 .. d-1`` hold the
configuration encoded in ``[0, 1]`` and the **last** column holds the log2-scaled training-set size
``s~`` in ``[0, 1]`` (``s~ = 1`` is the full data set), as in the TrimTuner paper (Sec. II-III) and
FABOLAS. Targets are whatever the caller passes (``ln(1 - accuracy)`` for the loss model,
``ln(cost)`` for the cost model, as in the FABOLAS and TrimTuner implementations).

Entropy search (Hennig & Schuler, JMLR 2012; FABOLAS; TrimTuner paper Eq. 2-3) needs, per model
sample, the latent joint Gaussian over the representer points ``Z`` and the candidates ``X``;
:class:`JointPosterior` carries exactly the blocks it uses.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol, runtime_checkable

import numpy as np

__all__ = ["JointPosterior", "Surrogate", "check_X", "check_y"]


@dataclass(frozen=True)
class JointPosterior:
    """Latent (noise-free) joint Gaussian posterior of one model sample over representer points Z and candidates X.

    Attributes
    ----------
    mean_z : ndarray of shape (N,)
        Posterior mean of the latent function at the representer points.
    cov_zz : ndarray of shape (N, N)
        Posterior covariance of ``f(Z)``.
    cov_zx : ndarray of shape (N, C)
        Posterior covariance between ``f(Z)`` and ``f(X)``.
    mean_x : ndarray of shape (C,)
        Posterior mean of the latent function at the candidates.
    var_x : ndarray of shape (C,)
        Latent posterior variance at the candidates (without observation noise).
    noise_var : float or ndarray of shape (C,)
        Observation-noise variance of a new measurement at the candidates.
    """

    mean_z: np.ndarray
    cov_zz: np.ndarray
    cov_zx: np.ndarray
    mean_x: np.ndarray
    var_x: np.ndarray
    noise_var: float | np.ndarray


@runtime_checkable
class Surrogate(Protocol):
    """What acquisitions need from a model (GP with hyperparameter samples, or a tree ensemble)."""

    def fit(self, X, y) -> "Surrogate":
        """Fit to inputs ``X`` of shape (n, d+1) and targets ``y`` of shape (n,); return self."""
        ...

    def predict(self, X, return_std: bool = False):
        """Latent predictive mean (n,), or ``(mean, std)``; std of the latent f averaged over samples."""
        ...

    def joint_posteriors(self, Z, X) -> list[JointPosterior]:
        """One :class:`JointPosterior` per hyperparameter sample (GP) / one for an ensemble."""
        ...

    def fantasize(self, X_new, y_new) -> "Surrogate":
        """A NEW model conditioned on extra points; ``self`` is left untouched."""
        ...


def check_X(X, d_expected=None, name="X") -> np.ndarray:
    """Validate a 2-D array of finite floats.

    Parameters
    ----------
    X : array-like of shape (n, m)
        Inputs; for the surrogates ``m = d + 1`` (configuration columns plus the ``s~`` column).
    d_expected : int or None
        Expected number of **columns** ``m`` (i.e. ``d + 1`` for model inputs); ``None`` skips the check.
    name : str
        Name used in error messages.

    Returns
    -------
    ndarray of shape (n, m), dtype float64
        A float copy/view of ``X``.

    Raises
    ------
    ValueError
        If ``X`` is not numeric, not 2-D, empty in the column dimension, contains NaN/inf, or has the
        wrong number of columns.
    """
    try:
        arr = np.asarray(X, dtype=float)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{name} must be a numeric array of shape (n, d+1); could not convert it to float ({exc})") from None
    if arr.ndim != 2:
        hint = " (use X.reshape(1, -1) for a single point)" if arr.ndim == 1 else ""
        raise ValueError(f"{name} must be 2-D of shape (n, d+1), got an array with shape {arr.shape}{hint}")
    if arr.shape[1] == 0:
        raise ValueError(f"{name} has no columns (shape {arr.shape}); expected (n, d+1)")
    if not np.all(np.isfinite(arr)):
        bad = np.argwhere(~np.isfinite(arr))[0]
        raise ValueError(f"{name} contains NaN or inf (first at row {bad[0]}, column {bad[1]}); remove or impute it")
    if d_expected is not None and arr.shape[1] != int(d_expected):
        raise ValueError(
            f"{name} has {arr.shape[1]} columns but {int(d_expected)} were expected "
            "(configuration columns followed by the size column s~)"
        )
    return arr


def check_y(y, n_expected=None, name="y") -> np.ndarray:
    """Validate a 1-D array of finite floats (targets).

    Parameters
    ----------
    y : array-like of shape (n,)
        Targets.
    n_expected : int or None
        Required length (number of rows of the matching ``X``); ``None`` skips the check.
    name : str
        Name used in error messages.

    Returns
    -------
    ndarray of shape (n,), dtype float64

    Raises
    ------
    ValueError
        If ``y`` is not numeric, not 1-D (a column vector (n, 1) is accepted and flattened),
        contains NaN/inf or has the wrong length.
    """
    try:
        arr = np.asarray(y, dtype=float)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{name} must be a numeric 1-D array; could not convert it to float ({exc})") from None
    if arr.ndim == 2 and arr.shape[1] == 1:
        arr = arr[:, 0]
    if arr.ndim != 1:
        raise ValueError(f"{name} must be 1-D of shape (n,), got shape {arr.shape}")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} contains NaN or inf (first at index {int(np.argmin(np.isfinite(arr)))}); remove it")
    if n_expected is not None and arr.shape[0] != int(n_expected):
        raise ValueError(f"{name} has {arr.shape[0]} entries but X has {int(n_expected)} rows; they must match")
    return arr
