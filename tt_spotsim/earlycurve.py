"""EarlyCurve (SpotTune §III-C, Eqs. 4-7): predict a training job's final metric from its partial curve.

The metric is "loss-like": positive and decreasing as training improves (validation loss, MSE, or
``1 - accuracy`` for an accuracy curve). Steps ``k`` count from 1.

Reconstructions (the paper's equations were lost in extraction; the text around them gives)
------------------------------------------------------------------------------------------
* **Eq. 4**: the predicted metric is a piecewise (staged) sub-linear curve,
  ``y(k) = sum_i I_i(k) * f(k - l_i + 1; beta_i)`` with ``f(j; beta) = 1 / (beta0 j^2 + beta1 j + beta2) + beta3``
  and non-negative ``beta0..beta3`` per stage. ``f`` is the form of SLAQ (ref. [19]) for the O(1/k) and
  O(1/k^2) convergence the text cites (``beta0 = 0`` gives Optimus' ``1/(beta1 k + beta2) + beta3``). Each
  stage is fitted in its own step count ``j = k - l_i + 1`` (a new learning-rate stage converges afresh);
  the text does not say whether ``k`` restarts, this is the reconstruction's choice.
* **Eq. 5**: ``I_i(k) = 1`` if ``l_i <= k < r_i``, else 0 (the indicator of stage *i*).
* **Eq. 6**: the stages tile the observed steps at time *t*: ``l_1 = 1``, ``r_i = l_{i+1}``, ``r_n = t + 1``.
* **Eq. 7**: with the change rate ``d_k = |m_k - m_{k-1}| / m_{k-1}``, a new stage starts at step *k* when
  ``d_k > alpha`` and the five previous steps of the current stage all had ``d < epsilon`` (``alpha = 0.5``,
  ``epsilon = 0.01`` in the paper).
* The final metric after ``max_steps`` is the last stage's ``f`` extrapolated to ``max_steps``. A last
  stage with fewer than four points is fitted with ``beta0 = 0`` (three points) or taken as flat (fewer).

The coefficients are found with :func:`scipy.optimize.least_squares` with bounds (``beta >= 0``), as the
paper does (its ref. [24]). The baseline of SLAQ/Optimus is the same ``f`` fitted as one stage
(:func:`fit_single_stage`).

Plateau (§III-C, "the model comes to convergence before theta x max steps"): :func:`plateau_step` finds
the first step at which the mean metric of the last half-window differs from that of the half-window
before it by less than ``tol`` (relative), windows of ``window x max_steps`` steps (defaults 10 %,
0.1 %: a criterion chosen here, the paper gives none).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np
from scipy.optimize import least_squares

from tt_spotsim.catalogue import SpotError
from tt_core.data.io import shown

#: Eq. 7's thresholds (paper §III-C): change rate of a new stage, and of the five steps before it.
ALPHA = 0.5
EPSILON = 0.01
CALM_STEPS = 5


def stage_curve(j, beta) -> np.ndarray:
    """``f(j; beta) = 1 / (beta0 j^2 + beta1 j + beta2) + beta3`` (Eq. 4's per-stage curve)."""
    j = np.asarray(j, float)
    b0, b1, b2, b3 = beta
    return 1.0 / (b0 * j * j + b1 * j + b2) + b3


def change_rates(metric) -> np.ndarray:
    """Eq. 7's ``d_k = |m_k - m_{k-1}| / |m_{k-1}|`` (``d`` of the first step is NaN)."""
    m = np.asarray(metric, float)
    out = np.full(len(m), np.nan)
    if len(m) > 1:
        prev = np.abs(m[:-1])
        out[1:] = np.abs(np.diff(m)) / np.where(prev > 0, prev, np.nan)
    return out


def stage_starts(metric, alpha: float = ALPHA, epsilon: float = EPSILON, calm: int = CALM_STEPS) -> list[int]:
    """0-based indices where stages start (Eq. 7), the first always 0."""
    d = change_rates(metric)
    starts = [0]
    for k in range(1, len(d)):
        s = starts[-1]
        if k - calm < s + 1:          # the calm steps must be change rates inside the current stage
            continue
        if d[k] > alpha and np.all(d[k - calm:k] < epsilon):
            starts.append(k)
    return starts


def _initial(j, y, three: bool):
    """Starting points: ``beta3`` below the minimum, ``1 / (y - beta3)`` fitted as a line in ``j``."""
    out = []
    lo = float(np.min(y))
    for frac in (0.9, 0.5, 0.0):
        b3 = max(0.0, frac * lo)
        z = 1.0 / np.maximum(y - b3, 1e-12)
        slope, icpt = np.polyfit(j, z, 1) if len(j) > 1 else (0.0, z[0])
        b1, b2 = max(slope, 1e-9), max(icpt, 1e-6)
        out.append(np.array([b1, b2, b3]) if three else np.array([0.0, b1, b2, b3]))
    return out


def fit_stage(j, y, n_params: int = 4) -> np.ndarray:
    """Least-squares fit of ``f`` to one stage's points (``j`` its own step counts), ``beta >= 0``.
    ``n_params=3`` fixes ``beta0 = 0``. Returns the four coefficients."""
    j = np.asarray(j, float)
    y = np.asarray(y, float)
    three = n_params == 3
    best, best_cost = None, np.inf
    lower = [0.0, 1e-12, 0.0] if three else [0.0, 0.0, 1e-12, 0.0]

    cols = np.column_stack([j * j, j, np.ones_like(j)])

    def resid(b):
        bb = np.r_[0.0, b] if three else b
        return stage_curve(j, bb) - y

    def jac(b):   # d r / d beta: -j^2/D^2, -j/D^2, -1/D^2, 1
        bb = np.r_[0.0, b] if three else b
        D = bb[0] * j * j + bb[1] * j + bb[2]
        J = np.column_stack([-cols / (D * D)[:, None], np.ones_like(j)])
        return J[:, 1:] if three else J

    starts = [np.maximum(x0, lower) for x0 in _initial(j, y, three)]
    costs = [float(np.sum(resid(x0) ** 2)) for x0 in starts]
    for i in np.argsort(costs)[:2]:      # the two best starting points (of three)
        try:
            r = least_squares(resid, starts[i], jac=jac, bounds=(lower, np.inf), x_scale="jac",
                              max_nfev=100 * len(starts[i]))
        except ValueError:
            continue
        if np.isfinite(r.cost) and r.cost < best_cost:
            best, best_cost = r.x, r.cost
    if best is None:
        return np.array([0.0, 0.0, 1.0, max(0.0, float(y[-1]) - 1.0)])
    return np.r_[0.0, best] if three else best


@dataclass(frozen=True)
class CurveFit:
    """A fitted (staged) curve: ``starts`` are 0-based stage start indices into the observed points;
    ``betas[i]`` the coefficients of stage *i*; ``n`` the number of observed points."""

    starts: tuple
    betas: tuple
    n: int

    def predict(self, steps) -> np.ndarray:
        """The fitted metric at 1-based ``steps`` (beyond the observations: the last stage, extrapolated)."""
        k = np.asarray(steps, float)
        idx = np.clip(np.searchsorted(np.asarray(self.starts) + 1, k, side="right") - 1, 0, len(self.starts) - 1)
        out = np.empty(k.shape)
        for i, (s, beta) in enumerate(zip(self.starts, self.betas)):
            sel = idx == i
            out[sel] = stage_curve(k[sel] - s, beta)
        return out

    def final(self, max_steps: int) -> float:
        return float(self.predict([max_steps])[0])

    @property
    def n_stages(self) -> int:
        return len(self.starts)


def _check(metric) -> np.ndarray:
    m = np.asarray(metric, float)
    if m.ndim != 1 or len(m) == 0:
        raise SpotError("a learning curve needs at least one metric value")
    if not np.isfinite(m).all():
        raise SpotError("a learning curve contains NaN or infinite values")
    if (m < 0).any():
        raise SpotError("EarlyCurve fits a non-negative, loss-like metric (use 1 - accuracy for an accuracy curve)")
    return m


def _fit(m: np.ndarray, starts: list[int]) -> CurveFit:
    betas = []
    bounds = list(starts) + [len(m)]
    for s, e in zip(bounds[:-1], bounds[1:]):
        y = m[s:e]
        j = np.arange(1, e - s + 1, dtype=float)
        if len(y) >= 4:
            betas.append(fit_stage(j, y, 4))
        elif len(y) == 3:
            betas.append(fit_stage(j, y, 3))
        else:  # flat at the last value: 1 / huge + y
            betas.append(np.array([0.0, 0.0, 1e12, float(y[-1])]))
    return CurveFit(tuple(starts), tuple(betas), len(m))


def fit_earlycurve(metric, alpha: float = ALPHA, epsilon: float = EPSILON, calm: int = CALM_STEPS) -> CurveFit:
    """EarlyCurve: stages by Eq. 7, each fitted with Eq. 4's curve (see the module docstring)."""
    m = _check(metric)
    return _fit(m, stage_starts(m, alpha, epsilon, calm))


def fit_single_stage(metric) -> CurveFit:
    """The baseline of SLAQ / Optimus: one stage over all points."""
    return _fit(_check(metric), [0])


METHODS = {"earlycurve": fit_earlycurve, "single-stage": fit_single_stage}


def predict_final(metric, max_steps: int, method: str = "earlycurve") -> float:
    """The predicted metric after ``max_steps`` steps from the observed partial curve ``metric`` (memoised:
    the simulator asks for the same curve and theta once per seed and approach)."""
    if method not in METHODS:
        raise SpotError(f"unknown curve-fitting method {shown(method)}; known: {list(METHODS)}")
    m = _check(metric)
    if max_steps < len(m):
        raise SpotError(f"max_steps ({max_steps}) is smaller than the observed steps ({len(m)})")
    return _predict_cached(m.tobytes(), int(max_steps), method)


@lru_cache(maxsize=65536)
def _predict_cached(raw: bytes, max_steps: int, method: str) -> float:
    return METHODS[method](np.frombuffer(raw, dtype=float)).final(max_steps)


def theta_steps(theta: float, max_steps: int) -> int:
    """Steps run before EarlyCurve predicts: ``ceil(theta x max_steps)`` (at least 1)."""
    check_theta(theta)
    return max(1, int(np.ceil(theta * max_steps - 1e-9)))


def check_theta(theta: float) -> float:
    if not (isinstance(theta, (int, float)) and np.isfinite(theta) and 0 < theta <= 1):
        raise SpotError(f"theta must lie in (0, 1], got {shown(theta)}")
    return float(theta)


def plateau_step(metric, max_steps: int, window: float = 0.1, tol: float = 1e-3, start: int = 0) -> int | None:
    """The first 1-based step (> ``start``) at which the curve has plateaued (see the module docstring), or None."""
    m = _check(metric)
    w = max(4, int(round(window * max_steps)))
    h = w // 2
    if len(m) < w:
        return None
    c = np.concatenate([[0.0], np.cumsum(m)])
    k = np.arange(w, len(m) + 1)          # number of points observed
    last = (c[k] - c[k - h]) / h
    before = (c[k - h] - c[k - 2 * h]) / h
    flat = np.abs(last - before) <= tol * np.maximum(np.abs(before), 1e-12)
    hits = k[flat & (k > start)]
    return int(hits[0]) if len(hits) else None


def select_top_k(predicted, k: int) -> np.ndarray:
    """Indices of the ``k`` smallest predicted final metrics (ties: the lower index first)."""
    p = np.asarray(predicted, float)
    if not (1 <= k <= len(p)):
        raise SpotError(f"k must lie in [1, {len(p)}] (the number of hyper-parameter settings), got {k}")
    return np.argsort(p, kind="stable")[:k]
