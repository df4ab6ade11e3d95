"""Portable arithmetic: kernels whose every bit is the same on any x86-64 (or other IEEE) machine.

A decision of a run (which configuration to test next, which hyper-parameters a fit keeps) must not
depend on the CPU. BLAS and LAPACK pick kernels by CPU (OpenBLAS' Haswell, SkylakeX, Prescott ...), which
sum in other orders and fuse multiply-adds; glibc's ``exp`` and ``log`` and numpy's vectorised ones also
differ by CPU in the last bit. Those last bits were enough to move a maximum-likelihood fit of the
Matern GP by up to 2 % in a length-scale (L-BFGS-B stops at another point of a flat likelihood), and with
it EIc/USD's run from the 19th test on (``OPENBLAS_CORETYPE=Prescott`` against ``SkylakeX``).

The functions here use only IEEE-754 basic operations (+, -, *, /, sqrt, which every conforming machine
rounds the same way), exact scaling by powers of two, and loops in a fixed order, compiled by numba with
no fast-math (so no fused multiply-add and no reassociation) or run as plain Python when numba is absent
(the same operations, so the same bits, only slower):

* :func:`exp`, :func:`log` and :func:`log_array`: Cody-Waite reduction and a fixed polynomial (about 1 ulp;
  not glibc's or numpy's): the models' log targets (``ln(1 - accuracy)``, ``ln cost``) are made with them,
  because a tree's split among features that cut the same samples is decided by the rounding of sums of
  those targets (numpy's SIMD ``log`` moved Nephele's lookahead run at its 152nd test);
* :func:`matern52_nll`: the negative log marginal likelihood of a GP with an ARD Matern-5/2 kernel and
  white noise, and its gradient in the log hyper-parameters (Rasmussen & Williams 2006, Eq. 5.8-5.9);
* :func:`minimize_box`: a limited-memory BFGS on a box (the gradient projected on the box, Armijo
  back-tracking), deterministic given deterministic values.

``tests/test_portable.py`` checks them against numpy/scipy (to rounding) and their bits across emulated
CPUs (``OPENBLAS_CORETYPE``, ``NPY_DISABLE_CPU_FEATURES``, ``NUMBA_CPU_NAME``).
"""

from __future__ import annotations

import math

import numpy as np

from tt_core.models.jit import njit

__all__ = ["JITTER", "exp", "log", "log_array", "matern52_nll", "minimize_box"]

_LN2_HI = 6.93147180369123816490e-01  # ln 2 split so that k * _LN2_HI is exact for |k| < 2^11
_LN2_LO = 1.90821492927058770002e-10
_INV_LN2 = 1.44269504088896338700e00
_SQRT5 = 2.23606797749978969641  # the double nearest sqrt(5)


def _exp(x):
    """e**x from IEEE basic operations: x = k ln2 + r, |r| <= ln2 / 2, e**r by its Taylor series to r**14."""
    if x != x:
        return x
    if x > 709.0:
        return math.inf
    if x < -745.0:
        return 0.0
    k = math.floor(x * _INV_LN2 + 0.5)
    r = (x - k * _LN2_HI) - k * _LN2_LO
    p = 1.0 / _FACT[14]
    for i in range(13, -1, -1):
        p = p * r + 1.0 / _FACT[i]
    return math.ldexp(p, int(k))


#: 0! .. 14! (exact as doubles); the series' coefficients are their reciprocals, rounded once
_FACT = (1.0, 1.0, 2.0, 6.0, 24.0, 120.0, 720.0, 5040.0, 40320.0, 362880.0, 3628800.0, 39916800.0, 479001600.0,
         6227020800.0, 87178291200.0)


def _log(x):
    """Natural log from IEEE basic operations: x = m 2**e, m in [sqrt(1/2), sqrt(2)), log m = 2 atanh(s)."""
    if x != x or x < 0.0:
        return math.nan
    if x == 0.0:
        return -math.inf
    if x == math.inf:
        return x
    m, e = math.frexp(x)  # exact: x = m * 2**e, m in [0.5, 1)
    if m < 0.70710678118654752440:
        m = m * 2.0
        e = e - 1
    s = (m - 1.0) / (m + 1.0)
    s2 = s * s
    t = 1.0 / 25.0
    for j in range(11, -1, -1):
        t = t * s2 + 1.0 / (2 * j + 1)
    return e * _LN2_HI + (2.0 * s * t + e * _LN2_LO)


def _matern52_nll(theta, X, y, jitter):
    """(nll, grad) of the GP ``c * Matern52_ARD(l) + (s2 + jitter) * I`` on (X, y); theta = log [c, l_1..l_d, s2].

    Returns a large finite value and zero gradient when the kernel matrix is not positive definite."""
    n, d = X.shape
    c = _exp(theta[0])
    s2 = _exp(theta[d + 1])
    inv_l = np.empty(d)
    for j in range(d):
        inv_l[j] = 1.0 / _exp(theta[1 + j])
    K = np.empty((n, n))
    E = np.empty((n, n))  # c * (1 + sqrt5 r) * exp(-sqrt5 r): the common factor of the length-scale gradients
    for i in range(n):
        for k in range(i + 1):
            r2 = 0.0
            for j in range(d):
                t = (X[i, j] - X[k, j]) * inv_l[j]
                r2 += t * t
            r = math.sqrt(r2)
            ex = _exp(-_SQRT5 * r)
            K[i, k] = K[k, i] = c * (1.0 + _SQRT5 * r + (5.0 / 3.0) * r2) * ex
            E[i, k] = E[k, i] = c * (1.0 + _SQRT5 * r) * ex
    # Cholesky of K + s2 I (lower, row by row, fixed order)
    L = np.zeros((n, n))
    for i in range(n):
        for k in range(i + 1):
            acc = K[i, k] + (s2 + jitter if i == k else 0.0)
            for m in range(k):
                acc -= L[i, m] * L[k, m]
            if i == k:
                if not acc > 0.0:
                    return 1e25, np.zeros(d + 2)
                L[i, i] = math.sqrt(acc)
            else:
                L[i, k] = acc / L[k, k]
    # alpha = (K + s2 I)^-1 y; Kinv = (K + s2 I)^-1 (through L^-1)
    Li = np.zeros((n, n))
    for col in range(n):
        for i in range(col, n):
            acc = 1.0 if i == col else 0.0
            for m in range(col, i):
                acc -= L[i, m] * Li[m, col]
            Li[i, col] = acc / L[i, i]
    Kinv = np.empty((n, n))
    for i in range(n):
        for k in range(i + 1):
            acc = 0.0
            for m in range(i, n):
                acc += Li[m, i] * Li[m, k]
            Kinv[i, k] = Kinv[k, i] = acc
    alpha = np.empty(n)
    for i in range(n):
        acc = 0.0
        for k in range(n):
            acc += Kinv[i, k] * y[k]
        alpha[i] = acc
    nll = 0.0
    for i in range(n):
        nll += 0.5 * y[i] * alpha[i] + _log(L[i, i])
    nll += 0.5 * n * 1.83787706640934548356  # log(2 pi)
    # gradient of nll = -0.5 tr((alpha alpha^T - Kinv) dK/dtheta)
    g = np.zeros(d + 2)
    for i in range(n):
        for k in range(n):
            w = alpha[i] * alpha[k] - Kinv[i, k]
            g[0] -= 0.5 * w * K[i, k]
            if i == k:
                g[d + 1] -= 0.5 * w * s2
            else:
                f = (5.0 / 3.0) * E[i, k]
                for j in range(d):
                    t = (X[i, j] - X[k, j]) * inv_l[j]
                    g[1 + j] -= 0.5 * w * f * t * t
    return nll, g


def _log_array(x):
    out = np.empty(x.shape[0])
    for i in range(x.shape[0]):
        out[i] = _log(x[i])
    return out


def _dot(a, b):
    acc = 0.0
    for i in range(a.shape[0]):
        acc += a[i] * b[i]
    return acc


def _minimize_box(theta0, lo, hi, X, y, jitter, max_iter, gtol, ftol):
    """L-BFGS (10 pairs) on the box [lo, hi] for :func:`_matern52_nll`: returns (theta, nll, iterations)."""
    p = theta0.shape[0]
    m = 10
    S = np.zeros((m, p))
    Y = np.zeros((m, p))
    rho = np.zeros(m)
    n_pairs = 0
    head = 0
    x = np.empty(p)
    for i in range(p):
        x[i] = min(max(theta0[i], lo[i]), hi[i])
    f, g = _matern52_nll(x, X, y, jitter)
    it = 0
    while it < max_iter:
        it += 1
        free = np.ones(p)
        pgmax = 0.0
        for i in range(p):  # a coordinate at a bound with the gradient pushing out of the box is held
            if (x[i] <= lo[i] and g[i] > 0.0) or (x[i] >= hi[i] and g[i] < 0.0):
                free[i] = 0.0
            elif abs(g[i]) > pgmax:
                pgmax = abs(g[i])
        if pgmax < gtol:
            break
        q = g * free
        a = np.zeros(m)
        for k in range(n_pairs):
            j = (head - 1 - k) % m
            a[j] = rho[j] * _dot(S[j], q)
            for i in range(p):
                q[i] -= a[j] * Y[j, i]
        if n_pairs > 0:
            j = (head - 1) % m
            gamma = _dot(S[j], Y[j]) / _dot(Y[j], Y[j])
        else:
            gamma = 1.0 / max(pgmax, 1.0)
        for i in range(p):
            q[i] *= gamma
        for k in range(n_pairs - 1, -1, -1):
            j = (head - 1 - k) % m
            b = rho[j] * _dot(Y[j], q)
            for i in range(p):
                q[i] += S[j, i] * (a[j] - b)
        dvec = np.empty(p)
        for i in range(p):
            dvec[i] = -q[i] * free[i]
        if _dot(dvec, g) >= 0.0:  # not a descent direction: steepest descent, memory cleared
            for i in range(p):
                dvec[i] = -g[i] * free[i] / max(pgmax, 1.0)
            n_pairs = 0
        t = 1.0
        accepted = False
        xn = np.empty(p)
        for _ in range(40):
            for i in range(p):
                xn[i] = min(max(x[i] + t * dvec[i], lo[i]), hi[i])
            fn, gn = _matern52_nll(xn, X, y, jitter)
            dec = 0.0
            for i in range(p):
                dec += g[i] * (xn[i] - x[i])
            if fn <= f + 1e-4 * dec:
                accepted = True
                break
            t *= 0.5
        if not accepted:
            break
        s = xn - x
        yv = gn - g
        sy = _dot(s, yv)
        if sy > 1e-10 * _dot(yv, yv):
            S[head] = s
            Y[head] = yv
            rho[head] = 1.0 / sy
            head = (head + 1) % m
            n_pairs = min(n_pairs + 1, m)
        done = (f - fn) <= ftol * max(abs(f), abs(fn), 1.0)
        x = xn.copy()
        f = fn
        g = gn
        if done:
            break
    return x, f, it


_compiled = {}


def _kernels():
    """The compiled kernels (numba), or the same functions as Python where numba is unavailable."""
    if not _compiled:
        global _exp, _log, _log_array, _matern52_nll, _dot, _minimize_box
        jexp = njit(_exp)
        if jexp is not None:
            # the compiled functions call each other by their module-level names
            _exp, _log, _dot = jexp, njit(_log), njit(_dot)
            _log_array = njit(_log_array)
            _matern52_nll = njit(_matern52_nll)
            _minimize_box = njit(_minimize_box)
        _compiled.update(exp=_exp, log=_log, log_array=_log_array, nll=_matern52_nll, minimize=_minimize_box)
    return _compiled


def exp(x: float) -> float:
    """``e**x`` with the same bits on any machine (within about 1 ulp of the exact value)."""
    return float(_kernels()["exp"](float(x)))


def log(x: float) -> float:
    """Natural logarithm with the same bits on any machine (within about 1 ulp of the exact value)."""
    return float(_kernels()["log"](float(x)))


#: What scikit-learn's ``GaussianProcessRegressor`` adds to the kernel matrix's diagonal (its ``alpha``).
JITTER = 1e-10


def log_array(x) -> np.ndarray:
    """Element-wise :func:`log` of an array (any shape): model targets with the same bits on any machine."""
    a = np.asarray(x, dtype=float)
    return np.asarray(_kernels()["log_array"](np.ascontiguousarray(a.ravel()))).reshape(a.shape)


def matern52_nll(theta, X, y, jitter: float = JITTER) -> tuple[float, np.ndarray]:
    """Negative log marginal likelihood of ``c * Matern52_ARD(l) + (s2 + jitter) * I`` and its gradient.

    Parameters
    ----------
    theta : array-like of shape (d + 2,)
        ``log [c, l_1, ..., l_d, s2]`` (scikit-learn's ``kernel.theta`` order for
        ``ConstantKernel * Matern(nu=2.5) + WhiteKernel``).
    X : array-like of shape (n, d)
    y : array-like of shape (n,)
        Targets (already standardised, if wanted).
    jitter : float
        Added to the diagonal beside the white noise ``s2`` (not a hyper-parameter).

    Returns
    -------
    (float, ndarray of shape (d + 2,))
        Rasmussen & Williams (2006) Eq. 5.8 negated, and Eq. 5.9 negated.
    """
    X = np.ascontiguousarray(X, dtype=float)
    y = np.ascontiguousarray(y, dtype=float).ravel()
    f, g = _kernels()["nll"](np.ascontiguousarray(theta, dtype=float), X, y, float(jitter))
    return float(f), np.asarray(g)


def minimize_box(theta0, bounds, X, y, jitter: float = JITTER, max_iter: int = 500, gtol: float = 1e-5,
                 ftol: float = 2.220446049250313e-09) -> tuple[np.ndarray, float, int]:
    """Minimise :func:`matern52_nll` over ``theta`` in ``bounds`` (shape (d + 2, 2)) from ``theta0``.

    Stops when the projected gradient's largest entry is below ``gtol`` or an accepted step lowers the
    value by at most ``ftol`` relative (scipy's L-BFGS-B defaults), or after ``max_iter`` iterations.

    Returns
    -------
    (theta, nll, iterations)
    """
    b = np.asarray(bounds, dtype=float)
    x, f, it = _kernels()["minimize"](np.ascontiguousarray(theta0, dtype=float), np.ascontiguousarray(b[:, 0]),
                                      np.ascontiguousarray(b[:, 1]), np.ascontiguousarray(X, dtype=float),
                                      np.ascontiguousarray(y, dtype=float).ravel(), float(jitter), int(max_iter), float(gtol),
                                      float(ftol))
    return np.asarray(x), float(f), int(it)
