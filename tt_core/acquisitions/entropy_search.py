"""Entropy search on the full-data-set optimum (FABOLAS, TrimTuner Eq. 2; per unit cost, Eq. 3: :mod:`.per_cost`).

Entropy search (TrimTuner paper Eq. 2) scores a candidate ``<x, s>`` by the expected drop of the entropy
of ``p_opt^{s=1}``, the distribution of the minimiser of the loss at the full data set, after a noisy
observation at ``<x, s>``. FABOLAS (paper Eq. 3) divides it by the predicted cost. Following entropy
search (Hennig & Schuler, "Entropy Search for Information-Efficient Global Optimization", JMLR 13, 2012;
TrimTuner paper ref. [24]) and its use in FABOLAS (Klein et al., AISTATS 2017; code in RoBO):

1. ``p_opt`` is represented on N representer points ``Z`` (configurations at ``s~ = 1``) with proposal
   log-densities ``lambda_k``: :func:`sample_representers`.
2. Per model sample (GP hyperparameter sample, or one ensemble), EPMGP gives ``ln p_min`` on ``Z`` with
   its gradient ``g`` (:mod:`.epmgp`, all samples in one batched EP); this is computed once per
   :class:`EntropySearch` object (one per BO iteration) and cached.
3. A candidate with latent variance ``v``, noise variance ``sn2`` and covariance ``a = Sigma(Z, x)``
   shifts the representer posterior by ``L omega`` with ``L = a / sqrt(v + sn2)``, ``omega ~ N(0, 1)``, and
   ``dSigma = -L L^T``. The predicted ``ln p'_k(omega) = ln p_k - 0.5 [(g_k^T L)^2 - (gbar^T L)^2] +
   (g~_k^T L) omega`` (the closed form of ``<S~_k, dSigma> + 0.5 L^T H~_k L``, Hennig & Schuler 2012) is
   renormalised and the entropy ``H_lambda(p) = -sum_k p_k (ln p_k + lambda_k)`` is averaged over the
   innovation nodes ``omega_j = Phi^-1(j / (Np + 1))``.
4. Values are averaged over model samples; per unit cost (:class:`tt_core.acquisitions.per_cost.PerUnitCost`,
   :meth:`EntropySearch.per_sample`) pairs loss sample ``i`` with cost sample ``i`` (as FABOLAS does).

Speed: step 3 takes ``exp`` of samples x candidates x Np x N numbers (67 million for 24 x 140 x 400 x
50), done by numpy's vectorised ``exp`` in cache-sized chunks; with numba (:mod:`tt_core.models.jit`)
the passes before it (product, sum, maximum, shift) are one compiled loop, with the same values.

Deviations from the original implementations (RoBO / TrimTuner / Emukit)
------------------------------------------------------------------------
* Representers: instead of sampling 50 points with emcee from a density proportional to ``exp(EI)``
  (the original passes EI, not log EI, so the density is nearly flat and the result nearly uniform),
  :func:`sample_representers` draws N *distinct* configurations at ``s~ = 1`` from a discrete pool,
  **uniformly** by default (``lambda_k = -ln P``), or with probabilities proportional to
  ``exp(log_weights)`` (e.g. ``log_weights = EI``) if given; then ``lambda_k`` is the log proposal
  mass. Sampling is without replacement, so for non-uniform weights ``lambda_k`` is the per-draw
  proposal mass, an approximation of the inclusion probability.
* Innovation: ``L = a / sqrt(v + sn2)`` with the latent variance ``v``; the original subtracts the noise
  from an already noise-free variance.
* Covariances from the model are used as they are (the original clips them to ``>= 2.2e-16``).
* The normalised EPMGP derivatives use ``gbar gbar^T`` (see :mod:`.epmgp`).
* An expected entropy drop within ``1e-12 * max(H, 1)`` of zero (:data:`NO_INFORMATION_RTOL`) is set
  to exactly 0: it is rounding noise of a computation whose terms are of the size of the entropy ``H``
  (a candidate that carries no information, e.g. every candidate of a tree ensemble right after
  TrimTuner's initial design, gave values from 1e-300 to 2e-13 that decided the argmax).
"""

from __future__ import annotations

import numpy as np
from scipy.special import logsumexp
from scipy.stats import norm

from tt_core.models.base import check_X
from tt_core.models.jit import njit
from tt_core.acquisitions.epmgp import log_pmin_first_order_batch
from tt_core.data.io import shown

__all__ = ["sample_representers", "EntropySearch", "innovation_nodes"]

#: Largest number of (representer x candidate x node) entries processed at once: a chunk (0.8 MB)
#: stays in the CPU's cache across the passes below (2,000,000 entries took twice as long).
_CHUNK_ENTRIES = 100_000
#: An expected entropy drop ``|alpha_ES| <= NO_INFORMATION_RTOL * max(H, 1)`` is rounding noise and set to 0.
NO_INFORMATION_RTOL = 1e-12


def innovation_nodes(n_innovations: int) -> np.ndarray:
    """Innovation nodes ``omega_j = Phi^-1(j / (Np + 1))``, j = 1..Np (as in the original implementations)."""
    return norm.ppf(np.arange(1, n_innovations + 1) / (n_innovations + 1.0))


def sample_representers(pool, rng, n=50, log_weights=None):
    """Draw N distinct representer configurations at ``s~ = 1`` from a discrete pool.

    Parameters
    ----------
    pool : array-like of shape (P, d + 1)
        Candidate representer points (all configurations of the search space, tested or not) with
        the last column ``s~ = 1``. Duplicate rows are counted once.
    rng : numpy.random.Generator or int
        Random generator (or seed).
    n : int
        Number of representers N; if the pool has fewer distinct rows, all of them are returned.
    log_weights : array-like of shape (P,) or None
        ``None``: uniform proposal. Otherwise the proposal mass is proportional to
        ``exp(log_weights)`` (e.g. the expected improvement at ``s~ = 1``).

    Returns
    -------
    Z : ndarray of shape (min(n, P_distinct), d + 1)
        Representer points (rows of ``pool``).
    lambdas : ndarray of shape (min(n, P_distinct),)
        Log proposal mass ``lambda_k`` of each representer (``-ln P_distinct`` when uniform).

    Raises
    ------
    ValueError
        If the pool is not 2-D and finite, its last column is not 1, ``n < 1``, or ``log_weights``
        has the wrong length or contains NaN / +inf.
    """
    pool = check_X(pool, name="pool")
    if pool.shape[0] == 0:
        raise ValueError("pool is empty; pass the configurations at s~ = 1 as rows of shape (d+1,)")
    if not np.allclose(pool[:, -1], 1.0, atol=1e-9):
        raise ValueError(
            "representer pool must be at the full data set: set its last column (s~) to 1 "
            f"(found values in [{pool[:, -1].min():.4g}, {pool[:, -1].max():.4g}])"
        )
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
        raise ValueError(f"n (number of representers) must be an integer >= 1, got {shown(n)}")
    rng = np.random.default_rng(rng)
    _, first = np.unique(pool, axis=0, return_index=True)
    keep = np.sort(first)
    P = keep.size
    if log_weights is None:
        logq = np.full(P, -np.log(P))
    else:
        lw = np.asarray(log_weights, dtype=float)
        if lw.shape != (pool.shape[0],):
            raise ValueError(f"log_weights must have shape (P,) = ({pool.shape[0]},) like the pool, got {lw.shape}")
        if np.any(np.isnan(lw)) or np.any(lw == np.inf):
            raise ValueError("log_weights contains NaN or +inf; pass finite log-weights (-inf excludes a point)")
        lw = lw[keep]
        if not np.any(np.isfinite(lw)):
            raise ValueError("all log_weights are -inf; at least one pool point must have positive weight")
        logq = lw - logsumexp(lw)
    q = np.exp(logq)
    n_take = min(int(n), int(np.count_nonzero(q > 0)))
    idx = rng.choice(P, size=n_take, replace=False, p=q / q.sum())
    return pool[keep[idx]].copy(), logq[idx].copy()


def _shifted_log_weights(gt, base, omega, x, mx):  # pragma: no cover - compiled
    """``x[r, j, k] = gt[r, k] * omega[j] + base[r, k] - mx[r, j]`` with ``mx`` the maximum over k:
    the numpy passes of :meth:`EntropySearch._values` in one loop per row (same operations, same
    values; the maximum runs over rows of nodes, element-wise, like numpy's)."""
    R, N = gt.shape
    J = omega.shape[0]
    xt = np.empty((N, J))
    m = np.empty(J)
    for r in range(R):
        for j in range(J):
            m[j] = -np.inf
        for k in range(N):
            g = gt[r, k]
            b = base[r, k]
            for j in range(J):
                v = g * omega[j] + b
                xt[k, j] = v
                m[j] = np.maximum(m[j], v)
        for j in range(J):
            mj = m[j]
            mx[r, j, 0] = mj
            for k in range(N):
                x[r, j, k] = xt[k, j] - mj


_SHIFT_KERNEL = njit(_shifted_log_weights)


class EntropySearch:
    """Expected drop of the entropy of ``p_opt^{s=1}`` after observing a candidate (TrimTuner paper Eq. 2).

    Parameters
    ----------
    model : Surrogate
        Fitted loss model providing ``joint_posteriors(Z, X)`` (one posterior per hyperparameter
        sample, or one for an ensemble).
    representers : array-like of shape (N, d + 1)
        Representer points with ``s~ = 1`` (see :func:`sample_representers`).
    lambdas : array-like of shape (N,)
        Log proposal densities ``lambda_k`` of the representers.
    n_innovations : int
        Number of innovation nodes ``Np`` (spec: 400).

    Attributes
    ----------
    logp_ : ndarray of shape (M, N)
        Normalised ``ln p_min`` of each model sample (cached at construction).
    dlogp_ : ndarray of shape (M, N, N)
        Normalised gradients ``g~_k`` per sample; ``gbar_`` (M, N) holds ``sum_j p_j g_j``.
    entropy_ : ndarray of shape (M,)
        Current ``H_lambda(p)`` per sample.
    omega : ndarray of shape (Np,)
        Innovation nodes.
    """

    def __init__(self, model, representers, lambdas, n_innovations=400):
        if not hasattr(model, "joint_posteriors"):
            raise ValueError("model must provide joint_posteriors(Z, X) (see tt_core.models.base.Surrogate)")
        Z = check_X(representers, name="representers")
        if Z.shape[0] < 1:
            raise ValueError("need at least one representer point")
        if not np.allclose(Z[:, -1], 1.0, atol=1e-9):
            raise ValueError("representers must be at the full data set: set their last column (s~) to 1")
        lam = np.asarray(lambdas, dtype=float)
        if lam.shape != (Z.shape[0],):
            raise ValueError(f"lambdas must have shape (N,) = ({Z.shape[0]},) like representers, got {lam.shape}")
        if not np.all(np.isfinite(lam)):
            raise ValueError("lambdas (log proposal densities) must be finite")
        if isinstance(n_innovations, bool) or not isinstance(n_innovations, (int, np.integer)) or n_innovations < 1:
            raise ValueError(f"n_innovations must be an integer >= 1, got {shown(n_innovations)}")
        self.model = model
        self.representers = Z
        self.lambdas = lam
        self.n_innovations = int(n_innovations)
        self.omega = innovation_nodes(self.n_innovations)
        posts = model.joint_posteriors(Z, Z[:1])
        if len(posts) < 1:
            raise ValueError("model.joint_posteriors returned no posterior")
        # EPMGP of every model sample at once (one batched EP over M x N problems)
        logp, dlogp, gbar = log_pmin_first_order_batch(np.array([p.mean_z for p in posts]),
                                                       np.array([p.cov_zz for p in posts]))
        self.logp_ = np.asarray(logp)
        self.dlogp_ = np.asarray(dlogp)
        self.gbar_ = np.asarray(gbar)
        self.entropy_ = -np.sum(np.exp(self.logp_) * (self.logp_ + lam[None, :]), axis=1)

    @property
    def n_samples(self) -> int:
        """Number of model samples M."""
        return self.logp_.shape[0]

    def _values(self, cov_zx: np.ndarray, var_x: np.ndarray, noise_var: np.ndarray) -> np.ndarray:
        """Expected entropy drop of every (model sample, candidate): ``cov_zx`` (M, N, C), ``var_x`` (M, C),
        ``noise_var`` (M,) or (M, C); returns (M, C). All samples are processed together (in chunks)."""
        M, N, C = cov_zx.shape
        denom = np.maximum(np.asarray(var_x, dtype=float), 0.0) + np.reshape(noise_var, (M, -1))  # var of y
        with np.errstate(divide="ignore", invalid="ignore"):
            Lm = np.where(denom[:, None, :] > 0, cov_zx / np.sqrt(denom)[:, None, :], 0.0)  # (M, N, C)
        gtL = np.matmul(self.dlogp_, Lm)  # (M, N, C): g~_k^T L
        gbL = np.einsum("mn,mnc->mc", self.gbar_, Lm)  # (M, C)
        det = -0.5 * ((gtL + gbL[:, None, :]) ** 2 - gbL[:, None, :] ** 2)
        base = (self.logp_[:, :, None] + det).transpose(0, 2, 1).reshape(M * C, N)  # rows (sample, candidate)
        gt = gtL.transpose(0, 2, 1).reshape(M * C, N)
        # columns: 1 (for sum_k e_k), x_k + lambda_k at omega = 0, and the slope g~_k^T L
        rhs = np.stack([np.ones_like(base), base + self.lambdas[None, :], gt], axis=2)  # (M C, N, 3)
        entropy = np.repeat(self.entropy_, C)
        omega = self.omega
        out = np.empty(M * C)
        chunk = max(1, _CHUNK_ENTRIES // max(1, N * omega.size))
        for a in range(0, M * C, chunk):
            b = min(M * C, a + chunk)
            # x[r, j, k] = ln p'_k(omega_j) before renormalisation over k, formed as (r, k, j) so that the
            # maximum over k runs over contiguous rows of nodes (3x faster than along the short last
            # axis; same values: the maximum is exact)
            if _SHIFT_KERNEL is not None:  # the same numbers in one compiled pass
                x = np.empty((b - a, omega.size, N))
                mx = np.empty((b - a, omega.size, 1))
                _SHIFT_KERNEL(gt[a:b], base[a:b], omega, x, mx)
            else:
                xt = np.multiply(gt[a:b, :, None], omega[None, None, :])
                xt += base[a:b, :, None]
                mx = xt.max(axis=1)[:, :, None]
                x = np.subtract(xt.transpose(0, 2, 1), mx)  # (r, j, k), C-ordered for the product below
            np.exp(x, out=x)  # e = exp(x - max)
            sums = np.matmul(x, rhs[a:b])  # (r, j, 3): sum_k e_k, sum_k e_k (base_k + lambda_k), sum_k e_k g~_k
            s = sums[..., 0]
            lse = mx[..., 0] + np.log(s)
            # H_lambda(p') = -sum_k p'_k (x_k - lse + lambda_k) = lse - sum_k e_k (x_k + lambda_k) / s
            h_new = lse - (sums[..., 1] + omega[None, :] * sums[..., 2]) / s
            out[a:b] = entropy[a:b] - np.add.reduce(h_new, axis=1) / omega.size  # = h_new.mean(axis=1)
        # an entropy drop within rounding of the entropy itself is no information: exactly 0, so candidates
        # that carry none tie exactly (and are then broken by the optimiser's seeded rule) instead of being
        # ranked by rounding noise (values of 1e-300 .. 2e-13 were compared after TrimTuner-DT's initial design)
        out[np.abs(out) <= NO_INFORMATION_RTOL * np.maximum(np.abs(entropy), 1.0)] = 0.0
        return out.reshape(M, C)

    def _cross(self, X):
        """``cov_zx`` (M, N, C), ``var_x`` (M, C) and ``noise_var`` of the model at candidates ``X``."""
        fast = getattr(self.model, "cross_posteriors", None)
        if callable(fast):
            cov_zx, var_x, noise = fast(self.representers, X)
        else:
            posts = self.model.joint_posteriors(self.representers, X)
            cov_zx = np.stack([p.cov_zx for p in posts])
            var_x = np.stack([p.var_x for p in posts])
            noise = np.stack([np.broadcast_to(np.asarray(p.noise_var, dtype=float), (X.shape[0],)) for p in posts])
        if cov_zx.shape[0] != self.n_samples:
            raise ValueError(
                f"model returned {cov_zx.shape[0]} joint posteriors but {self.n_samples} were cached; "
                "build a new EntropySearch after refitting the model"
            )
        return cov_zx, var_x, noise

    def per_sample(self, X) -> np.ndarray:
        """Expected entropy drop per model sample.

        Parameters
        ----------
        X : array-like of shape (C, d + 1)
            Candidates ``<x, s~>``.

        Returns
        -------
        ndarray of shape (M, C)
        """
        X = check_X(X, d_expected=self.representers.shape[1], name="X")
        return self._values(*self._cross(X))

    def __call__(self, X) -> np.ndarray:
        """Expected entropy drop ``alpha_ES(x, s~)`` averaged over model samples, shape (C,)."""
        return self.per_sample(X).mean(axis=0)
