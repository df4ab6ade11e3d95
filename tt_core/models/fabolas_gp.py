"""FABOLAS Gaussian process with MCMC-marginalised hyperparameters.

The model of the loss ``y = ln(1 - accuracy)`` and of the cost ``c = ln(cost)`` used by FABOLAS and by
TrimTuner-GP (TrimTuner paper Sec. III-A; FABOLAS: Klein, Falkner, Bartels, Hennig & Hutter, "Fast
Bayesian Optimization of Machine Learning Hyperparameters on Large Datasets", AISTATS 2017, TrimTuner
paper ref. [8], as implemented in RoBO with george kernels). Inputs are ``(n, d + 1)`` arrays whose last
column is the log2-scaled size ``s~`` in ``[0, 1]``. With ``theta`` on the natural-log scale::

    k(x, x') = e^t0 * prod_i Matern52((x_i - x'_i)^2 / e^ti) * (e^t(d+1) + e^t(d+2) u(s~) u(s~'))
    Matern52(r2) = (1 + sqrt(5 r2) + 5 r2 / 3) exp(-sqrt(5 r2))
    u = (1 - s~)^2 (loss model),  u = s~ (cost model)

plus homoscedastic noise ``e^t(d+3) + 1.25e-12``; the prior mean is the constant ``mean(y)``.

Implementation
--------------
* The kernel is computed **in numpy**, vectorised over hyperparameter samples (shape ``(M, n1, n2)``),
  because the likelihood of a whole half-ensemble of emcee walkers is then one batched Cholesky
  (``emcee.EnsembleSampler(..., vectorize=True)``). George's Python-level overhead per call would
  dominate at n = 44. :func:`george_kernel` builds the *same* kernel with george
  (``ConstantKernel * prod_i Matern52Kernel(axes=i) * (ConstantKernel + LinearKernel(axes=u))`` on inputs
  ``[config, u]``, see :func:`george_inputs`); the tests check both agree, so george is the reference.
* Hyperparameters are marginalised with emcee's stretch move: burn-in on the first fit, then the chain
  continues from the last walker positions at every refit (``chain_length`` steps on the new data, no
  second burn-in), as FABOLAS' reference implementation does (RoBO's MCMC GP burns in once and keeps
  its walkers); the samples are the final walker positions. The chain is seeded: each fit draws
  emcee's random state from the model's own generator, and the walkers and that generator are part of
  the model's checkpointed state (:mod:`tt_workbook.runs.checkpoint`), so a run resumed from a
  checkpoint continues the very same chain (tests/test_fabolas_gp.py: refit continues the chain;
  tests/test_loop.py: a TrimTuner-GP replay checkpointed mid-run continues with the identical trajectory).
* ``K(X, X)`` of the likelihood is computed on the upper triangle only (:class:`_SelfPairs`, the same
  arithmetic, so the same bits) and the batched triangular solves call LAPACK directly
  (:func:`tt_core.models.linalg.tri_solve`): a continued 100-step chain at n = 44 costs 0.11 CPU s
  instead of 0.16 with identical samples.
* Per sample the Cholesky factor ``L_i`` and ``alpha_i = K_i^-1 (y - m0)`` are cached; predictions are
  batched triangular solves (``scipy.linalg.solve_triangular`` on stacked factors).
* With numba (:mod:`tt_core.models.jit`) the kernel's passes around numpy's ``exp`` and the MCMC chain run
  compiled, every entry with the operations and order of the numpy code, so with the same bits (the
  chain's likelihood forms its Cholesky factor two rows per pass: :func:`_cholesky_rows`).

Deviations from the original implementations (RoBO / george / TrimTuner)
------------------------------------------------------------------------
* Priors use log-densities throughout; the original adds the N(0, 1) *density* (not its log) of the two
  size-kernel parameters.
* No clipping of predicted covariances to ``>= 2.2e-16`` (the original clips every entry, which turns
  negative covariances positive); only the predictive *std* takes ``sqrt(max(var, 0))``.
* Fantasies (:meth:`FabolasGP.fantasize`) keep the hyperparameter samples fixed and extend the cached
  Cholesky factors by a block (rank-one for one point) update; the original re-optimised the
  hyperparameters per candidate and accumulated fantasies across candidates (order-dependent).
* Number of walkers: the original implementation's default rule (12, or ``3 (d + 3)`` rounded up to
  even when ``12 < 2 (d + 3)``) is raised to at least ``2 (d + 4)`` (emcee's stretch move needs twice as many
  walkers as parameters; the rule alone gives 12 < 14 for d = 3). For d = 5 it gives 24 as in the original.
* The initial walker positions are drawn from the priors (the noise from a horseshoe-like draw around
  the prior scale 1e-3); all coordinates are clipped into ``|theta| <= 19.9``.
"""

from __future__ import annotations

import copy
import warnings

import emcee
import numpy as np

from tt_core.models.base import JointPosterior, check_X, check_y
from tt_core.data.io import shown
from tt_core.models.jit import njit
from tt_core.models.linalg import tri_solve
from tt_core.models.stretch_move import stretch_draws

__all__ = [
    "FabolasGP",
    "fabolas_kernel",
    "fabolas_kernel_diag",
    "log_prior",
    "sample_prior",
    "size_feature",
    "george_kernel",
    "george_inputs",
    "NOISE_JITTER",
]

#: Added to the noise variance of every sample (as in the original implementation).
NOISE_JITTER = 1.25e-12
#: Support of every log-hyperparameter: ``|theta_j| <= THETA_BOUND``.
THETA_BOUND = 20.0
#: Support of the log length scales (uniform prior).
LOG_LS_LOW, LOG_LS_HIGH = -10.0, 2.0
#: Horseshoe prior scale of the noise.
HORSESHOE_SCALE = 1e-3
_LN_2PI = float(np.log(2.0 * np.pi))
_KINDS = ("loss", "cost")


# --------------------------------------------------------------------------------------------------
# Kernel
# --------------------------------------------------------------------------------------------------
def _check_kind(kind) -> str:
    if kind not in _KINDS:
        raise ValueError(f"kind must be 'loss' (u = (1 - s~)^2) or 'cost' (u = s~), got {shown(kind)}")
    return kind


def size_feature(s, kind) -> np.ndarray:
    """Size feature ``u`` of the FABOLAS kernel.

    Parameters
    ----------
    s : array-like
        Scaled sizes ``s~`` in ``[0, 1]``.
    kind : {"loss", "cost"}
        ``u = (1 - s~)^2`` for the loss model (so ``u(1) = 0``), ``u = s~`` for the cost model.

    Returns
    -------
    ndarray
        ``u`` with the shape of ``s``.
    """
    s = np.asarray(s, dtype=float)
    return (1.0 - s) ** 2 if _check_kind(kind) == "loss" else s


def _as_theta2d(theta) -> np.ndarray:
    th = np.asarray(theta, dtype=float)
    return th[None, :] if th.ndim == 1 else th


def _kernel_values(dists, uu, th) -> np.ndarray:
    """The FABOLAS kernel from per-dimension distances ``dists[i]`` and ``uu = u(s~) u(s~')`` (any shape S);
    returns shape (M,) + S. The one place the kernel's arithmetic is written (same operations, same order,
    whether the pairs form a matrix or a list).

    With numba (:mod:`tt_core.models.jit`) the passes around the ``exp`` run as two compiled loops
    (:func:`_matern_passes`, :func:`_scaled_product`) and the ``exp`` stays numpy's: every entry gets the
    same IEEE operations in the same order as in the numpy passes below, so the same bits (3.6x less CPU
    for the predictions of a recommendation's filter, 24 samples x 44 x 1,396)."""
    if _MATERN_KERNEL is not None and len(dists) > 0:
        d = len(dists)
        M, S = th.shape[0], uu.shape
        scale, dist = np.empty((d, M)), np.empty((d, uu.size))
        for i, di in enumerate(dists):
            scale[i] = np.sqrt(5.0) * np.exp(-0.5 * th[:, 1 + i])  # as below, one dimension at a time
            dist[i] = np.ravel(di)
        poly, neg = np.empty((M, uu.size)), np.empty((M, uu.size))
        _MATERN_KERNEL(dist, scale, poly, neg)
        _PRODUCT_KERNEL(poly, np.exp(neg), np.ascontiguousarray(uu, dtype=float).ravel(), np.exp(th[:, 0]),
                        np.exp(th[:, d + 1]), np.exp(th[:, d + 2]))  # numpy's exp, as below
        return poly.reshape((M,) + S)
    shape = (th.shape[0],) + uu.shape
    expand = (slice(None),) + (None,) * uu.ndim
    # prod_i (1 + r_i + r_i^2 / 3) exp(-r_i) with r_i = sqrt(5 r2_i): one exp of the summed r_i
    poly = np.ones(shape)
    rsum = np.zeros(shape)
    for i, dist in enumerate(dists):
        r = dist[None] * (np.sqrt(5.0) * np.exp(-0.5 * th[:, 1 + i]))[expand]
        poly *= 1.0 + r + r * r / 3.0
        rsum += r
    out = poly * np.exp(-rsum)
    d = len(dists)
    size_part = np.exp(th[:, d + 1])[expand] + np.exp(th[:, d + 2])[expand] * uu[None]
    out *= np.exp(th[:, 0])[expand] * size_part
    return out


def _matern_passes(dist, scale, poly, neg):  # pragma: no cover - compiled
    """``poly[m, e] = prod_i (1 + r + r^2 / 3)`` and ``neg[m, e] = -sum_i r`` with ``r = dist[i, e] * scale[i, m]``:
    the passes of :func:`_kernel_values` before its ``exp``, one entry at a time (same operations, same order)."""
    d, E = dist.shape
    for m in range(scale.shape[1]):
        p = poly[m]
        s = neg[m]
        for e in range(E):
            p[e] = 1.0
            s[e] = 0.0
        for i in range(d):  # dimension by dimension, as the numpy passes (a vector loop over the entries)
            c = scale[i, m]
            di = dist[i]
            for e in range(E):
                r = di[e] * c
                p[e] *= 1.0 + r + r * r / 3.0
                s[e] += r
        for e in range(E):
            s[e] = -s[e]


def _scaled_product(poly, ex, uu, c0, c1, c2):  # pragma: no cover - compiled
    """``poly[m, e] = poly[m, e] * ex[m, e] * (c0[m] * (c1[m] + c2[m] * uu[e]))`` in place: the passes of
    :func:`_kernel_values` after its ``exp`` (same operations, same order)."""
    for m in range(poly.shape[0]):
        for e in range(poly.shape[1]):
            v = poly[m, e] * ex[m, e]
            v *= c0[m] * (c1[m] + c2[m] * uu[e])
            poly[m, e] = v


_MATERN_KERNEL = njit(_matern_passes)
_PRODUCT_KERNEL = njit(_scaled_product)


def fabolas_kernel(X1, X2, theta, kind) -> np.ndarray:
    """FABOLAS kernel matrices for one or several hyperparameter vectors.

    ``k = e^t0 prod_i Matern52((x_i - x'_i)^2 / e^ti) (e^t(d+1) + e^t(d+2) u u')``, without noise.

    Parameters
    ----------
    X1 : ndarray of shape (n1, d + 1)
    X2 : ndarray of shape (n2, d + 1)
        Inputs; the last column is ``s~``.
    theta : ndarray of shape (d + 4,) or (M, d + 4)
        Log-hyperparameters ``[t0, t1..td, t(d+1), t(d+2), t(d+3)]`` (the noise entry is ignored here).
    kind : {"loss", "cost"}

    Returns
    -------
    ndarray of shape (M, n1, n2)
        One covariance matrix per hyperparameter vector (M = 1 for a 1-D ``theta``).
    """
    th = _as_theta2d(theta)
    d = X1.shape[1] - 1
    n1, n2 = X1.shape[0], X2.shape[0]
    block = max(1, _KERNEL_BLOCK_ENTRIES // max(1, th.shape[0] * n1))
    if n2 > block:
        # in column blocks that stay in the CPU's cache across the passes of _kernel_values (every entry
        # is computed alone, so the values are the same to the bit; 2.5x less CPU at 24 x 44 x 1,400)
        out = np.empty((th.shape[0], n1, n2))
        for a in range(0, n2, block):
            out[:, :, a : a + block] = fabolas_kernel(X1, X2[a : a + block], th, kind)
        return out
    dists = [np.abs(X1[:, i][:, None] - X2[:, i][None, :]) for i in range(d)]
    uu = np.outer(size_feature(X1[:, d], kind), size_feature(X2[:, d], kind))
    return _kernel_values(dists, uu, th)


#: Entries of a kernel matrix stack computed at once by :func:`fabolas_kernel`.
_KERNEL_BLOCK_ENTRIES = 100_000


class _SelfPairs:
    """The pairs ``i <= j`` of a training set, for ``K(X, X)`` at half the cost (the matrix is symmetric).

    Every entry equals the one :func:`fabolas_kernel` computes (same arithmetic on the same numbers:
    ``|a - b| = |b - a|`` and ``u_i u_j = u_j u_i`` exactly), so the likelihood is unchanged to the bit.
    """

    def __init__(self, X: np.ndarray, kind: str):
        n, d = X.shape[0], X.shape[1] - 1
        self.X = X
        self.n = n
        self.iu, self.ju = np.triu_indices(n)
        self.dists = [np.abs(X[self.iu, i] - X[self.ju, i]) for i in range(d)]
        u = size_feature(X[:, d], kind)
        self.uu = u[self.iu] * u[self.ju]
        self.dist_array = None  # the distances as one (d, P) array, for the compiled likelihood
        self.ij = None

    def kernel(self, theta) -> np.ndarray:
        vals = _kernel_values(self.dists, self.uu, _as_theta2d(theta))
        K = np.empty((vals.shape[0], self.n, self.n))
        K[:, self.iu, self.ju] = vals
        K[:, self.ju, self.iu] = vals
        return K


def fabolas_kernel_diag(X, theta, kind) -> np.ndarray:
    """Diagonal ``k(x, x)`` of :func:`fabolas_kernel`, shape (M, n) (Matern52(0) = 1)."""
    th = _as_theta2d(theta)
    d = X.shape[1] - 1
    u2 = size_feature(X[:, d], kind) ** 2
    return np.exp(th[:, 0])[:, None] * (np.exp(th[:, d + 1])[:, None] + np.exp(th[:, d + 2])[:, None] * u2[None])


def george_inputs(X, kind) -> np.ndarray:
    """Inputs for :func:`george_kernel`: the configuration columns followed by ``u(s~)``."""
    X = np.asarray(X, dtype=float)
    return np.column_stack([X[:, :-1], size_feature(X[:, -1], kind)])


def george_kernel(theta, d, kind):
    """The FABOLAS kernel built from george kernels (reference for :func:`fabolas_kernel`).

    ``ConstantKernel(t0) * prod_i Matern52Kernel(metric=e^ti, axes=i) *
    (ConstantKernel(t(d+1)) + LinearKernel(log_gamma2=-t(d+2), order=1, axes=d))``, evaluated on
    :func:`george_inputs` (``LinearKernel`` gives ``u u' / gamma^2`` with ``gamma^2 = e^-t(d+2)``).
    The constant kernels are restricted to one axis: george 0.4's ``ConstantKernel`` over ``ndim``
    axes returns ``ndim * c``, not ``c``.

    Parameters
    ----------
    theta : ndarray of shape (d + 4,)
    d : int
        Number of configuration dimensions.
    kind : {"loss", "cost"}
        Only documents the input transform (apply :func:`george_inputs` with the same kind).

    Returns
    -------
    george.kernels.Kernel
    """
    from george import kernels

    _check_kind(kind)
    th = np.asarray(theta, dtype=float)
    ndim = d + 1
    k = kernels.ConstantKernel(log_constant=th[0], ndim=ndim, axes=0)
    for i in range(d):
        k = k * kernels.Matern52Kernel(metric=float(np.exp(th[1 + i])), ndim=ndim, axes=i)
    size = kernels.ConstantKernel(log_constant=th[d + 1], ndim=ndim, axes=0) + kernels.LinearKernel(
        log_gamma2=-th[d + 2], order=1, ndim=ndim, axes=d
    )
    return k * size


# --------------------------------------------------------------------------------------------------
# Priors
# --------------------------------------------------------------------------------------------------
def log_prior(theta) -> np.ndarray:
    """Log prior density of FABOLAS hyperparameters (as in the original implementation), up to a
    constant for the horseshoe.

    * ``t0 + 2 ~ LogNormal(0, 1)``;
    * ``t1..td ~ Uniform[-10, 2]`` (log length scales);
    * ``t(d+1), t(d+2) ~ N(0, 1)`` (log-density, unlike the original which adds the density);
    * noise ``t(d+3)``: horseshoe with scale 1e-3, ``ln ln(1 + 3 (1e-3 / e^t)^2)``;
    * ``-inf`` whenever some ``|theta_j| > 20``.

    Parameters
    ----------
    theta : ndarray of shape (p,) or (M, p), p = d + 4

    Returns
    -------
    ndarray of shape (M,)
    """
    th = _as_theta2d(theta)
    d = th.shape[1] - 4
    with np.errstate(divide="ignore", invalid="ignore"):
        w = th[:, 0] + 2.0
        lw = np.log(np.where(w > 0, w, 1.0))
        lp = np.where(w > 0, -lw - 0.5 * _LN_2PI - 0.5 * lw**2, -np.inf)
        ls = th[:, 1 : d + 1]
        in_box = np.all((ls >= LOG_LS_LOW) & (ls <= LOG_LS_HIGH), axis=1)
        lp = lp + np.where(in_box, -d * np.log(LOG_LS_HIGH - LOG_LS_LOW), -np.inf)
        lp = lp - _LN_2PI - 0.5 * (th[:, d + 1] ** 2 + th[:, d + 2] ** 2)
        lp = lp + np.log(np.log1p(3.0 * (HORSESHOE_SCALE * np.exp(-th[:, d + 3])) ** 2))
    lp = np.where(np.all(np.abs(th) <= THETA_BOUND, axis=1), lp, -np.inf)
    return np.where(np.isnan(lp), -np.inf, lp)


def sample_prior(n, d, rng) -> np.ndarray:
    """Draw ``n`` initial walker positions from the priors of :func:`log_prior`.

    The noise coordinate is ``ln |1e-3 * lambda * N(0, 1)|`` with ``lambda ~ |Cauchy(0, 1)|`` (a
    horseshoe-like draw); every coordinate is clipped into ``[-19.9, 19.9]``.

    Parameters
    ----------
    n : int
        Number of positions.
    d : int
        Number of configuration dimensions.
    rng : numpy.random.Generator

    Returns
    -------
    ndarray of shape (n, d + 4)
    """
    th = np.empty((n, d + 4))
    th[:, 0] = np.exp(rng.standard_normal(n)) - 2.0
    th[:, 1 : d + 1] = rng.uniform(LOG_LS_LOW, LOG_LS_HIGH, size=(n, d))
    th[:, d + 1 : d + 3] = rng.standard_normal((n, 2))
    lam = np.abs(rng.standard_cauchy(n))
    th[:, d + 3] = np.log(np.abs(HORSESHOE_SCALE * lam * rng.standard_normal(n)) + 1e-300)
    return np.clip(th, -THETA_BOUND + 0.1, THETA_BOUND - 0.1)


# --------------------------------------------------------------------------------------------------
# Linear algebra helpers
# --------------------------------------------------------------------------------------------------
def _robust_cholesky(K: np.ndarray) -> np.ndarray:
    """Cholesky of one matrix, adding growing jitter (relative to the mean diagonal) if needed."""
    try:
        return np.linalg.cholesky(K)
    except np.linalg.LinAlgError:
        pass
    scale = float(np.mean(np.diag(K))) if K.size else 1.0
    for exponent in range(-10, -1):
        jitter = scale * 10.0**exponent
        try:
            L = np.linalg.cholesky(K + jitter * np.eye(K.shape[0]))
        except np.linalg.LinAlgError:
            continue
        warnings.warn(f"FabolasGP: covariance not positive definite, added jitter {jitter:.2e}", RuntimeWarning)
        return L
    raise np.linalg.LinAlgError("FabolasGP: covariance matrix is not positive definite even with jitter")


def _batched_cholesky(K: np.ndarray) -> np.ndarray:
    try:
        return np.linalg.cholesky(K)
    except np.linalg.LinAlgError:
        return np.stack([_robust_cholesky(Ki) for Ki in K])


def _log_likelihood_one(dists, uu, ij, r, th, jitter, K, z, scale, poly, rsum):  # pragma: no cover - compiled
    """GP log marginal likelihood of one hyperparameter vector ``th``, written for numba: the kernel
    entries of the pairs ``ij`` with the arithmetic of :func:`_kernel_values` (same operations, same
    order), noise on the diagonal, a Cholesky factorisation (``-inf`` when it fails, as the reference),
    ``L^-1 r``. ``K``, ``z``, ``scale``, ``poly``, ``rsum`` are work arrays.

    The polynomial and the sum of the Matern factors are formed dimension by dimension over all pairs
    (a vector loop), and the factorisation runs two rows at a time (:func:`_cholesky_rows`): every
    entry gets the same operations in the same order as one pair and one row at a time, so the same bits."""
    d, P = dists.shape
    n = r.shape[0]
    sq5 = np.sqrt(5.0)
    c0 = np.exp(th[0])
    c1 = np.exp(th[d + 1])
    c2 = np.exp(th[d + 2])
    for i in range(d):
        scale[i] = sq5 * np.exp(-0.5 * th[1 + i])
    for p in range(P):
        poly[p] = 1.0
        rsum[p] = 0.0
    for i in range(d):
        c = scale[i]
        for p in range(P):
            ri = dists[i, p] * c
            poly[p] *= 1.0 + ri + ri * ri / 3.0
            rsum[p] += ri
    for p in range(P):
        v = poly[p] * np.exp(-rsum[p])
        v *= c0 * (c1 + c2 * uu[p])
        a = ij[0, p]
        b = ij[1, p]
        if a >= b:
            K[a, b] = v
        else:
            K[b, a] = v
    noise = np.exp(th[d + 3]) + jitter
    for i in range(n):
        K[i, i] += noise
    logdet = _cholesky_rows(K)
    if logdet == -np.inf:
        return -np.inf
    quad = 0.0
    for i in range(n):
        acc = r[i]
        for q in range(i):
            acc -= K[i, q] * z[q]
        z[i] = acc / K[i, i]
        quad += z[i] * z[i]
    val = -0.5 * quad - logdet - 0.5 * n * _LN_2PI
    return -np.inf if val != val else val


def _cholesky_rows(K):  # pragma: no cover - compiled
    """Lower Cholesky factor of ``K`` in place (its lower triangle, row by row) and ``sum_i ln L_ii``;
    ``-inf`` at the first non-positive or NaN pivot (not positive definite).

    Entry ``(i, j)`` is ``(K_ij - sum_{q<j} L_iq L_jq) / L_jj``, summed in the order of ``q``. Rows ``i`` and
    ``i + 1`` are formed in one pass over ``j`` (they depend only on the rows above and on themselves), so
    the two sums run side by side instead of one after the other: the same operations per entry, so
    the same bits as one row at a time, in about two thirds of the time at n = 44."""
    n = K.shape[0]
    logdet = 0.0
    i = 0
    while i < n:
        two = i + 1 < n
        for j in range(i + 1):
            acc = K[i, j]
            acc2 = K[i + 1, j] if two else 0.0
            for q in range(j):
                acc -= K[i, q] * K[j, q]
                if two:
                    acc2 -= K[i + 1, q] * K[j, q]
            if i == j:
                if not acc > 0.0:
                    return -np.inf
                K[i, i] = np.sqrt(acc)
                logdet += np.log(K[i, i])
            else:
                K[i, j] = acc / K[j, j]
            if two:
                K[i + 1, j] = acc2 / K[j, j]
        if two:
            acc2 = K[i + 1, i + 1]
            for q in range(i + 1):
                acc2 -= K[i + 1, q] * K[i + 1, q]
            if not acc2 > 0.0:
                return -np.inf
            K[i + 1, i + 1] = np.sqrt(acc2)
            logdet += np.log(K[i + 1, i + 1])
        i += 2
    return logdet


def _log_likelihood_kernel(dists, uu, ij, r, thetas, jitter, out):  # pragma: no cover - compiled
    """:func:`_log_likelihood_one` for every row of ``thetas`` into ``out``."""
    n = r.shape[0]
    K = np.zeros((n, n))
    z = np.empty(n)
    scale = np.empty(dists.shape[0])
    poly = np.empty(dists.shape[1])
    rsum = np.empty(dists.shape[1])
    for w in range(thetas.shape[0]):
        out[w] = _log_likelihood_one(dists, uu, ij, r, thetas[w], jitter, K, z, scale, poly, rsum)


def _log_prior_one(th):  # pragma: no cover - compiled
    """:func:`log_prior` of one vector, written for numba (same formulas, same order)."""
    p = th.shape[0]
    d = p - 4
    for j in range(p):
        if not abs(th[j]) <= THETA_BOUND:
            return -np.inf
    w = th[0] + 2.0
    if not w > 0:
        return -np.inf
    lw = np.log(w)
    lp = -lw - 0.5 * _LN_2PI - 0.5 * lw**2
    for i in range(1, d + 1):
        if not (th[i] >= LOG_LS_LOW and th[i] <= LOG_LS_HIGH):
            return -np.inf
    lp = lp + -d * np.log(LOG_LS_HIGH - LOG_LS_LOW)
    lp = lp - _LN_2PI - 0.5 * (th[d + 1] ** 2 + th[d + 2] ** 2)
    lp = lp + np.log(np.log1p(3.0 * (HORSESHOE_SCALE * np.exp(-th[d + 3])) ** 2))
    return -np.inf if lp != lp else lp


def _stretch_chain_kernel(dists, uu, ij, r, jitter, coords, logp, inds, zu, rint, acc_u):  # pragma: no cover
    """emcee's stretch move (a = 2, two halves in shuffled order, one accept draw per walker) on the
    FABOLAS GP posterior, every step compiled; the random numbers are drawn beforehand in emcee's order
    (:meth:`FabolasGP._stretch_chain`). ``coords`` (W, p) and ``logp`` (W,) are updated in place."""
    W, p = coords.shape
    n = r.shape[0]
    K = np.zeros((n, n))
    z = np.empty(n)
    scale = np.empty(dists.shape[0])
    poly = np.empty(dists.shape[1])
    rsum = np.empty(dists.shape[1])
    q = np.empty((W, p))
    qlp = np.empty(W)
    fac = np.empty(W)
    sel = np.empty(W, dtype=np.int64)
    oth = np.empty(W, dtype=np.int64)
    for t in range(inds.shape[0]):
        for split in range(2):
            ns = 0
            nc = 0
            for j in range(W):
                if inds[t, j] == split:
                    sel[ns] = j
                    ns += 1
                else:
                    oth[nc] = j
                    nc += 1
            for a in range(ns):
                zz = ((2.0 - 1.0) * zu[t, split, a] + 1) ** 2.0 / 2.0
                fac[a] = (p - 1.0) * np.log(zz)
                c = oth[rint[t, split, a]]
                s = sel[a]
                for k in range(p):
                    q[a, k] = coords[c, k] - (coords[c, k] - coords[s, k]) * zz
                lp = _log_prior_one(q[a])
                if lp != -np.inf:
                    lp = lp + _log_likelihood_one(dists, uu, ij, r, q[a], jitter, K, z, scale, poly, rsum)
                qlp[a] = lp
            for a in range(ns):
                j = sel[a]
                if fac[a] + qlp[a] - logp[j] > np.log(acc_u[t, split, a]):
                    for k in range(p):
                        coords[j, k] = q[a, k]
                    logp[j] = qlp[a]


_cholesky_rows = njit(_cholesky_rows) or _cholesky_rows
_log_likelihood_one = njit(_log_likelihood_one) or _log_likelihood_one
_log_prior_one = njit(_log_prior_one) or _log_prior_one
_LOGLIK_KERNEL = njit(_log_likelihood_kernel)
_CHAIN_KERNEL = njit(_stretch_chain_kernel)


def _tri_solve(L: np.ndarray, B: np.ndarray, trans: bool = False) -> np.ndarray:
    """Batched lower-triangular solve ``L^-1 B`` (or ``L^-T B``) over the leading axis (:func:`tri_solve`)."""
    return tri_solve(L, B, lower=True, trans=trans)


# --------------------------------------------------------------------------------------------------
# Model
# --------------------------------------------------------------------------------------------------
class FabolasGP:
    """FABOLAS GP for loss or cost with emcee-marginalised hyperparameters (FABOLAS, Klein et al. 2017).

    Parameters
    ----------
    kind : {"loss", "cost"}
        Size feature ``u = (1 - s~)^2`` (loss) or ``u = s~`` (cost).
    n_hypers : int or None
        Number of emcee walkers = number of hyperparameter samples. ``None``: 12, or ``3 (d + 3)``
        rounded up to even when ``12 < 2 (d + 3)``, and at least ``2 (d + 4)`` (24 for d = 5).
        An explicit value must be even and ``>= 2 (d + 4)``.
    burnin : int
        Burn-in steps of the first fit.
    chain_length : int
        Steps per fit (after burn-in on the first fit; the only steps at refits).
    seed : int, numpy.random.Generator or None
        Seeds the initial walker positions and emcee's random state; same seed, same data and same
        sequence of fits give identical samples.

    Attributes
    ----------
    samples_ : ndarray of shape (M, d + 4)
        Hyperparameter samples (final walker positions).
    log_prob_ : ndarray of shape (M,)
        Their log posterior (NaN after :meth:`fantasize`, which does not recompute it).
    noise_var_ : ndarray of shape (M,)
        Noise variance per sample (``e^t(d+3) + 1.25e-12``).
    X_, y_ : ndarray
        Training data; ``mean_`` is the constant prior mean ``mean(y_)``.
    L_ : ndarray of shape (M, n, n)
        Cholesky factors of ``K_i + noise_i I``; ``alpha_`` (M, n) is ``K_i^-1 (y - mean_)``.
    n_steps_ : int
        Total MCMC steps run so far; ``initial_positions_`` is where the last chain segment started.
    """

    def __init__(self, kind="loss", n_hypers=None, burnin=100, chain_length=100, seed=None):
        self.kind = _check_kind(kind)
        if n_hypers is not None:
            if isinstance(n_hypers, bool) or not isinstance(n_hypers, (int, np.integer)) or n_hypers < 2:
                raise ValueError(f"n_hypers must be None or an even integer >= 2 (walkers), got {shown(n_hypers)}")
            if n_hypers % 2:
                raise ValueError(f"n_hypers must be even (emcee splits walkers in two halves), got {n_hypers}")
        for name, val, low in (("burnin", burnin, 0), ("chain_length", chain_length, 1)):
            if isinstance(val, bool) or not isinstance(val, (int, np.integer)) or val < low:
                raise ValueError(f"{name} must be an integer >= {low} (MCMC steps), got {shown(val)}")
        if seed is not None and not isinstance(seed, (int, np.integer, np.random.Generator)):
            raise ValueError(f"seed must be None, an int or a numpy.random.Generator, got {type(seed).__name__}")
        self.n_hypers = None if n_hypers is None else int(n_hypers)
        self.burnin = int(burnin)
        self.chain_length = int(chain_length)
        self.seed = seed
        self._rng = np.random.default_rng(seed)
        self.n_steps_ = 0

    # ---------------------------------------------------------------- helpers
    def n_walkers(self, d: int) -> int:
        """Number of walkers (hyperparameter samples) for ``d`` configuration dimensions."""
        p = d + 4
        if self.n_hypers is not None:
            if self.n_hypers < 2 * p:
                raise ValueError(
                    f"n_hypers={self.n_hypers} is too small for d={d}: emcee's stretch move needs at least "
                    f"2 * (d + 4) = {2 * p} walkers; pass n_hypers >= {2 * p} or None"
                )
            return self.n_hypers
        n = 12
        if n < 2 * (d + 3):
            n = 3 * (d + 3)
        n = max(n, 2 * p)
        return n + (n % 2)

    @property
    def n_samples(self) -> int:
        """Number of hyperparameter samples M."""
        self._check_fitted()
        return self.samples_.shape[0]

    @property
    def d(self) -> int:
        """Number of configuration dimensions."""
        self._check_fitted()
        return self.X_.shape[1] - 1

    def _check_fitted(self):
        if not hasattr(self, "L_"):
            raise ValueError("FabolasGP is not fitted yet; call fit(X, y) or fit_fixed_hypers(X, y, hypers) first")

    def _check_inputs(self, X, name="X", d_expected=None):
        X = check_X(X, d_expected=d_expected, name=name)
        if X.shape[1] < 2:
            raise ValueError(f"{name} needs at least one configuration column plus the size column s~ (got 1 column)")
        s = X[:, -1]
        if np.any(s < -1e-9) or np.any(s > 1 + 1e-9):
            raise ValueError(
                f"the last column of {name} (scaled size s~) must lie in [0, 1]; got values in "
                f"[{s.min():.4g}, {s.max():.4g}] - scale sizes as (log2 s - log2 s_min) / (log2 s_max - log2 s_min)"
            )
        return X

    def _check_data(self, X, y):
        X = self._check_inputs(X)
        y = check_y(y, n_expected=X.shape[0])
        if X.shape[0] < 1:
            raise ValueError("need at least one observation to fit the GP")
        return X, y

    def _set_data(self, X, y):
        self.X_ = X
        self.y_ = y
        self.mean_ = float(np.mean(y))

    def _self_kernel(self, thetas) -> np.ndarray:
        """``fabolas_kernel(X_, X_, thetas)`` from the upper triangle (the pairs are kept per data set)."""
        pairs = getattr(self, "_pairs", None)
        if pairs is None or pairs.X is not self.X_:
            pairs = self._pairs = _SelfPairs(self.X_, self.kind)
        return pairs.kernel(thetas)

    # ---------------------------------------------------------------- likelihood
    def _log_likelihood(self, thetas: np.ndarray) -> np.ndarray:
        """GP log marginal likelihood of the current data for each row of ``thetas`` (M, p).

        With numba, :func:`_log_likelihood_kernel` (the emcee walkers call this ~700 times per refit);
        otherwise :meth:`_log_likelihood_reference`. They agree to rounding (the compiled Cholesky sums
        in another order than LAPACK's)."""
        if _LOGLIK_KERNEL is None:
            return self._log_likelihood_reference(thetas)
        pairs = self._compiled_pairs()
        thetas = np.ascontiguousarray(thetas, dtype=float)
        out = np.empty(thetas.shape[0])
        _LOGLIK_KERNEL(pairs.dist_array, pairs.uu, pairs.ij, np.ascontiguousarray(self.y_ - self.mean_, dtype=float),
                       thetas, NOISE_JITTER, out)
        return out

    def _log_likelihood_reference(self, thetas: np.ndarray) -> np.ndarray:
        """GP log marginal likelihood of the current data for each row of ``thetas`` (M, p) (numpy)."""
        X, r = self.X_, self.y_ - self.mean_
        n, d = X.shape[0], X.shape[1] - 1
        K = self._self_kernel(thetas)
        K[:, np.arange(n), np.arange(n)] += (np.exp(thetas[:, d + 3]) + NOISE_JITTER)[:, None]
        out = np.full(thetas.shape[0], -np.inf)
        try:
            L = np.linalg.cholesky(K)
            ok = np.ones(thetas.shape[0], dtype=bool)
        except np.linalg.LinAlgError:
            L = np.zeros_like(K)
            ok = np.zeros(thetas.shape[0], dtype=bool)
            for i in range(K.shape[0]):
                try:
                    L[i] = np.linalg.cholesky(K[i])
                    ok[i] = True
                except np.linalg.LinAlgError:
                    pass
        if not ok.any():
            return out
        Lk = L[ok]
        z = _tri_solve(Lk, np.broadcast_to(r, (Lk.shape[0], n))[..., None])[..., 0]
        logdet = 2.0 * np.sum(np.log(np.diagonal(Lk, axis1=1, axis2=2)), axis=1)
        out[ok] = -0.5 * np.sum(z**2, axis=1) - 0.5 * logdet - 0.5 * n * _LN_2PI
        return np.where(np.isnan(out), -np.inf, out)

    def log_posterior(self, thetas) -> np.ndarray:
        """Unnormalised log posterior ``log prior + log likelihood`` on the current data, shape (M,)."""
        self._check_fitted_data()
        th = _as_theta2d(np.asarray(thetas, dtype=float))
        lp = log_prior(th)
        ok = np.isfinite(lp)
        out = np.full(th.shape[0], -np.inf)
        if ok.any():
            out[ok] = lp[ok] + self._log_likelihood(th[ok])
        return out

    def _check_fitted_data(self):
        if not hasattr(self, "X_"):
            raise ValueError("FabolasGP has no data yet; call fit(X, y) first")

    # ---------------------------------------------------------------- fitting
    def fit(self, X, y) -> "FabolasGP":
        """Sample the hyperparameters with emcee and cache per-sample factors.

        The first fit (or a fit after the input dimension changed) starts the walkers from the priors
        and runs ``burnin + chain_length`` steps; later fits continue from the last walker positions
        with ``chain_length`` steps on the new data.

        Parameters
        ----------
        X : array-like of shape (n, d + 1)
            Inputs; last column ``s~`` in [0, 1].
        y : array-like of shape (n,)
            Targets (``ln(1 - acc)`` or ``ln(cost)``).

        Returns
        -------
        self
        """
        X, y = self._check_data(X, y)
        d = X.shape[1] - 1
        nw, p = self.n_walkers(d), d + 4
        prev = getattr(self, "samples_", None)
        continuing = prev is not None and prev.shape == (nw, p)
        if continuing:
            p0, n_steps = prev.copy(), self.chain_length
        else:
            p0, n_steps = sample_prior(nw, d, self._rng), self.burnin + self.chain_length
        self._set_data(X, y)
        rs = np.random.RandomState(int(self._rng.integers(0, 2**32 - 1)))
        self.initial_positions_ = p0.copy()
        if _CHAIN_KERNEL is not None and nw >= 2 * p:
            coords, log_prob = self._stretch_chain(p0, n_steps, rs)
        else:
            coords, log_prob = self._emcee_chain(p0, n_steps, rs)
        self.n_steps_ += n_steps
        self._set_samples(coords, log_prob)
        return self

    def _emcee_chain(self, p0, n_steps, rs):
        """``n_steps`` of emcee's ensemble sampler (stretch move) from ``p0``, random numbers from ``rs``
        (the reference of :meth:`_stretch_chain`); returns the final positions and log posteriors."""
        sampler = emcee.EnsembleSampler(p0.shape[0], p0.shape[1], self.log_posterior, vectorize=True)
        state = emcee.State(p0, random_state=rs.get_state())
        final = sampler.run_mcmc(state, n_steps, store=False, skip_initial_state_check=True)
        return final.coords, final.log_prob

    def _stretch_chain(self, p0, n_steps, rs):
        """:meth:`_emcee_chain` with every step compiled (:func:`_stretch_chain_kernel`).

        emcee 3's ensemble sampler with its default move draws, per step: one uniform (choosing the
        move), a shuffle of the walkers' half labels, and per half the stretch factors, the partner
        indices and one uniform per walker for the acceptance; none of these depends on the walkers'
        positions, so they are drawn here in that order and the chain runs without Python per step.
        Same proposals, same decisions up to rounding of the log posterior (1e-13 relative)."""
        W, p = p0.shape
        coords = np.array(p0, dtype=float)
        log_prob = self.log_posterior(coords)  # emcee's initial state
        if np.any(np.isnan(log_prob)):
            raise ValueError("The initial log_prob was NaN")
        inds = np.empty((n_steps, W), dtype=np.int64)
        inds[:] = np.arange(W) % 2
        zu = np.zeros((n_steps, 2, W))
        rint = np.zeros((n_steps, 2, W), dtype=np.int64)
        acc_u = np.ones((n_steps, 2, W))
        stretch_draws(rs, inds, zu, rint, acc_u)
        pairs = self._compiled_pairs()
        _CHAIN_KERNEL(pairs.dist_array, pairs.uu, pairs.ij, np.ascontiguousarray(self.y_ - self.mean_, dtype=float),
                      NOISE_JITTER, coords, log_prob, inds, zu, rint, acc_u)
        return coords, log_prob

    def fit_fixed_hypers(self, X, y, hypers) -> "FabolasGP":
        """Condition on data with given hyperparameter samples (no MCMC).

        Useful for tests (fantasy vs full refit) and for reusing samples. A later :meth:`fit` continues
        the chain from ``hypers`` when their number equals the number of walkers.

        Parameters
        ----------
        X : array-like of shape (n, d + 1)
        y : array-like of shape (n,)
        hypers : array-like of shape (M, d + 4) or (d + 4,)
            Log-hyperparameters ``[t0, t1..td, t(d+1), t(d+2), t(d+3)]``.

        Returns
        -------
        self
        """
        X, y = self._check_data(X, y)
        d = X.shape[1] - 1
        H = np.asarray(hypers, dtype=float)
        if H.ndim == 1:
            H = H[None, :]
        if H.ndim != 2 or H.shape[1] != d + 4 or H.shape[0] < 1:
            raise ValueError(
                f"hypers must have shape (M, d + 4) = (M, {d + 4}) for d = {d}: "
                "[t0, log length scales x d, t_a, t_b, log noise]; got shape " + str(np.shape(hypers))
            )
        if not np.all(np.isfinite(H)):
            raise ValueError("hypers contains NaN or inf")
        self._set_data(X, y)
        self._set_samples(H.copy(), self.log_posterior(H))
        return self

    def _set_samples(self, samples: np.ndarray, log_prob: np.ndarray):
        X, r = self.X_, self.y_ - self.mean_
        n, d = X.shape[0], X.shape[1] - 1
        self.samples_ = np.array(samples, dtype=float)
        self.log_prob_ = np.asarray(log_prob, dtype=float)
        self.noise_var_ = np.exp(self.samples_[:, d + 3]) + NOISE_JITTER
        K = self._self_kernel(self.samples_)
        K[:, np.arange(n), np.arange(n)] += self.noise_var_[:, None]
        self.L_ = _batched_cholesky(K)
        self.alpha_ = self._cho_solve_vec(self.L_, r)

    @staticmethod
    def _cho_solve_vec(L: np.ndarray, r: np.ndarray) -> np.ndarray:
        z = _tri_solve(L, np.broadcast_to(r, L.shape[:2])[..., None])
        return _tri_solve(L, z, trans=True)[..., 0]

    # ---------------------------------------------------------------- prediction
    def _check_predict_X(self, X, name="X"):
        self._check_fitted()
        return self._check_inputs(X, name=name, d_expected=self.X_.shape[1])

    def predict_per_sample(self, X):
        """Latent posterior mean and variance per hyperparameter sample.

        ``mu_i = m0 + k_i(X, X_)^T alpha_i``, ``v_i = k_i(x, x) - ||L_i^-1 k_i(X_, x)||^2``.

        Parameters
        ----------
        X : array-like of shape (C, d + 1)

        Returns
        -------
        means : ndarray of shape (M, C)
        variances : ndarray of shape (M, C)
            Latent (noise-free) variances; not clipped.
        """
        X = self._check_predict_X(X)
        M, C = self.samples_.shape[0], X.shape[0]
        means, variances = np.empty((M, C)), np.empty((M, C))
        chunk = max(1, 2_000_000 // max(1, M * self.X_.shape[0]))
        for start in range(0, C, chunk):
            Xc = X[start : start + chunk]
            Ktx = self._train_kernel(Xc)  # (M, n, c)
            means[:, start : start + chunk] = self.mean_ + np.einsum("mnc,mn->mc", Ktx, self.alpha_)
            V = _tri_solve(self.L_, Ktx)
            variances[:, start : start + chunk] = fabolas_kernel_diag(Xc, self.samples_, self.kind) - np.sum(V**2, axis=1)
        return means, variances

    def _train_kernel(self, X):
        """``k_i(X_, X)`` for every sample (M, n, C), as :func:`fabolas_kernel` computes it.

        A fantasy (:meth:`fantasize`) shares its first ``n`` training rows and its hyperparameter samples
        with the model it came from, so those rows of its kernel are its parent's ``k_i(X_, X)``: they are
        taken from the parent (which keeps the last such block it computed, while its samples are the
        same array) and only the new rows are computed. TrimTuner's constraint factor (Eq. 5) predicts
        every full-size configuration under a fantasy per candidate and Gauss-Hermite root, i.e. the same
        ``k_i(X_, X_full)`` dozens of times per candidate. Every entry of the kernel is computed on its own
        (element-wise operations), so the stacked block equals the direct one to the bit.
        """
        th = self.samples_
        base = self.__dict__.get("_fantasy_base")
        if base is not None:
            parent, n, X_ref, parent_samples = base
            if self.X_ is X_ref and parent.samples_ is parent_samples and np.array_equal(th, parent_samples):
                top = parent._train_kernel_memo(X)
                return np.concatenate([top, fabolas_kernel(self.X_[n:], X, th, self.kind)], axis=1)
        return fabolas_kernel(self.X_, X, th, self.kind)

    def _train_kernel_memo(self, X):
        """:meth:`_train_kernel`, keeping the last block computed (keyed by ``X``'s bytes and shape, valid
        while the training rows and samples are the same arrays: a refit replaces both)."""
        key = (X.shape, X.tobytes())
        memo = self.__dict__.get("_kx_memo")
        if memo is not None and memo[0] is self.X_ and memo[1] is self.samples_ and memo[2] == key:
            return memo[3]
        K = self._train_kernel(X)
        self._kx_memo = (self.X_, self.samples_, key, K)
        return K

    def predict(self, X, return_std: bool = False):
        """Latent predictive mean (and std) averaged over hyperparameter samples.

        ``mu = mean_i mu_i`` and ``v = var_i(mu_i) + mean_i v_i`` (moment-matched mixture).

        Parameters
        ----------
        X : array-like of shape (C, d + 1)
        return_std : bool
            Also return ``sqrt(max(v, 0))``.

        Returns
        -------
        mean : ndarray of shape (C,)
        std : ndarray of shape (C,), only if ``return_std``
        """
        means, variances = self.predict_per_sample(X)
        mu = means.mean(axis=0)
        if not return_std:
            return mu
        v = means.var(axis=0) + variances.mean(axis=0)
        return mu, np.sqrt(np.maximum(v, 0.0))

    def joint_posteriors(self, Z, X) -> list[JointPosterior]:
        """Latent joint posteriors over representers ``Z`` and candidates ``X``, one per sample.

        ``Sigma(Z, X) = k(Z, X) - V_Z^T V_X`` with ``V = L_i^-1 k(X_, .)`` (what entropy search needs,
        Hennig & Schuler 2012); covariances are not clipped.

        Parameters
        ----------
        Z : array-like of shape (N, d + 1)
            Representer points (usually at ``s~ = 1``).
        X : array-like of shape (C, d + 1)
            Candidates.

        Returns
        -------
        list of JointPosterior, length M
        """
        Z = self._check_predict_X(Z, name="Z")
        X = self._check_predict_X(X, name="X")
        th, kind = self.samples_, self.kind
        Ktz = fabolas_kernel(self.X_, Z, th, kind)
        Ktx = fabolas_kernel(self.X_, X, th, kind)
        Vz, Vx = _tri_solve(self.L_, Ktz), _tri_solve(self.L_, Ktx)
        self._vz_cache = (self.L_, Z.tobytes(), Vz)  # entropy search's set-up, then its cross_posteriors
        mean_z = self.mean_ + np.einsum("mnk,mn->mk", Ktz, self.alpha_)
        mean_x = self.mean_ + np.einsum("mnc,mn->mc", Ktx, self.alpha_)
        cov_zz = fabolas_kernel(Z, Z, th, kind) - np.einsum("mnk,mnl->mkl", Vz, Vz)
        cov_zz = 0.5 * (cov_zz + cov_zz.transpose(0, 2, 1))
        cov_zx = fabolas_kernel(Z, X, th, kind) - np.einsum("mnk,mnc->mkc", Vz, Vx)
        var_x = fabolas_kernel_diag(X, th, kind) - np.sum(Vx**2, axis=1)
        return [
            JointPosterior(
                mean_z=mean_z[i], cov_zz=cov_zz[i], cov_zx=cov_zx[i], mean_x=mean_x[i], var_x=var_x[i],
                noise_var=float(self.noise_var_[i]),
            )
            for i in range(th.shape[0])
        ]

    def cross_posteriors(self, Z, X):
        """The blocks of :meth:`joint_posteriors` that entropy search needs per candidate, as arrays.

        ``cov_zx[i] = k_i(Z, X) - V_Z^T V_X`` and ``var_x[i] = k_i(x, x) - ||V_x||^2`` for every sample
        ``i`` at once. ``V_Z = L_i^-1 k_i(X_, Z)`` depends only on the representers and the fitted state:
        it is computed once and reused while ``Z`` and the Cholesky factors stay the same (a filter such
        as CMA-ES evaluates the acquisition in many small batches; :meth:`joint_posteriors`, which entropy
        search's set-up calls with the same representers, leaves its ``V_Z`` here too).

        Parameters
        ----------
        Z : array-like of shape (N, d + 1)
        X : array-like of shape (C, d + 1)

        Returns
        -------
        cov_zx : ndarray of shape (M, N, C)
        var_x : ndarray of shape (M, C)
        noise_var : ndarray of shape (M,)
        """
        Z = self._check_predict_X(Z, name="Z")
        X = self._check_predict_X(X, name="X")
        th, kind = self.samples_, self.kind
        key = Z.tobytes()
        cached = getattr(self, "_vz_cache", None)
        if cached is not None and cached[0] is self.L_ and cached[1] == key:
            Vz = cached[2]
        else:
            Vz = _tri_solve(self.L_, fabolas_kernel(self.X_, Z, th, kind))
            self._vz_cache = (self.L_, key, Vz)  # holds L_: an identity match cannot be a reused address
        Vx = _tri_solve(self.L_, fabolas_kernel(self.X_, X, th, kind))
        cov_zx = fabolas_kernel(Z, X, th, kind) - np.matmul(Vz.transpose(0, 2, 1), Vx)
        var_x = fabolas_kernel_diag(X, th, kind) - np.sum(Vx**2, axis=1)
        return cov_zx, var_x, self.noise_var_.copy()

    # ---------------------------------------------------------------- fantasies
    def fantasize(self, X_new, y_new) -> "FabolasGP":
        """A new model conditioned on extra observations with the same hyperparameter samples.

        The Cholesky factor of each sample is extended by a block update
        ``L' = [[L, 0], [B^T, chol(K_** + noise I - B^T B)]]`` with ``B = L^-1 k(X_, X_new)`` (a rank-one
        extension for one point; TrimTuner paper Sec. III, simulation steps 1-2); the constant prior mean
        becomes the mean of the extended targets and ``alpha`` is recomputed in O(n^2). ``self`` is not
        modified. The result equals :meth:`fit_fixed_hypers` on the extended data with ``self.samples_``.

        Parameters
        ----------
        X_new : array-like of shape (k, d + 1) (a single point may be given as shape (d + 1,))
        y_new : float or array-like of shape (k,)

        Returns
        -------
        FabolasGP
        """
        self._check_fitted()
        if np.ndim(X_new) == 1:
            X_new = np.reshape(X_new, (1, -1))
        Xn = self._check_predict_X(X_new, name="X_new")
        yn = check_y(np.atleast_1d(np.asarray(y_new, dtype=float)), n_expected=Xn.shape[0], name="y_new")
        th, n, k = self.samples_, self.X_.shape[0], Xn.shape[0]
        B = _tri_solve(self.L_, fabolas_kernel(self.X_, Xn, th, self.kind))  # (M, n, k)
        S = fabolas_kernel(Xn, Xn, th, self.kind) - np.einsum("mni,mnj->mij", B, B)
        S[:, np.arange(k), np.arange(k)] += self.noise_var_[:, None]
        Cf = _batched_cholesky(0.5 * (S + S.transpose(0, 2, 1)))
        L_new = np.zeros((th.shape[0], n + k, n + k))
        L_new[:, :n, :n] = self.L_
        L_new[:, n:, :n] = B.transpose(0, 2, 1)
        L_new[:, n:, n:] = Cf
        new = copy.copy(self)
        new._rng = copy.deepcopy(self._rng)
        new._set_data(np.vstack([self.X_, Xn]), np.concatenate([self.y_, yn]))
        new.samples_ = th.copy()
        new.log_prob_ = np.full(th.shape[0], np.nan)
        new.noise_var_ = self.noise_var_.copy()
        new.L_ = L_new
        new.alpha_ = self._cho_solve_vec(L_new, new.y_ - new.mean_)
        new._fantasy_base = (self, n, new.X_, self.samples_)  # its kernel's first n rows are self's
        return new

    def _compiled_pairs(self) -> "_SelfPairs":
        """The pairwise distances of ``X_`` (cached while ``X_`` is the same array), with the contiguous
        arrays the compiled likelihood and chain read."""
        pairs = getattr(self, "_pairs", None)
        if pairs is None or pairs.X is not self.X_:
            pairs = self._pairs = _SelfPairs(self.X_, self.kind)
        if pairs.dist_array is None:
            pairs.dist_array = np.ascontiguousarray(np.array(pairs.dists, dtype=float).reshape(-1, pairs.uu.size))
            pairs.ij = np.ascontiguousarray(np.stack([pairs.iu, pairs.ju]).astype(np.int64))
        return pairs

    def __getstate__(self):
        # the cache of cross_posteriors is not part of the model's state (checkpoints, copies)
        state = dict(self.__dict__)
        state.pop("_vz_cache", None)
        state.pop("_pairs", None)
        state.pop("_kx_memo", None)
        state.pop("_fantasy_base", None)
        return state

    def __repr__(self) -> str:
        return (
            f"FabolasGP(kind={shown(self.kind)}, n_hypers={self.n_hypers}, burnin={self.burnin}, "
            f"chain_length={self.chain_length}, seed={shown(self.seed)})"
        )
