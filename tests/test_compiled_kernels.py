"""The numba-compiled kernels equal the numpy implementations they replace (kept as the references).

EPMGP's sites and normalisers (:func:`tt_core.acquisitions.epmgp._ep_sites_kernel` vs
``_ep_sites_batch_reference``, ``_normalisers_kernel`` vs ``_normalisers_batch_reference``) and
the FABOLAS GP's log-likelihood over walkers (``_log_likelihood_kernel`` vs
``FabolasGP._log_likelihood_reference``) on fixed inputs: equal to 1e-10 relative (they differ only in
the order of summation). Skipped when numba is not installed (the references are then what runs).
"""

import numpy as np
import pytest
from scipy.special import log_ndtr

from tt_core.models import jit

pytestmark = pytest.mark.skipif(not jit.AVAILABLE, reason="numba not installed: the numpy implementations run")


def _gaussians(M, N, seed, kind):
    rng = np.random.default_rng(seed)
    mus, Ss = [], []
    for _ in range(M):
        if kind == "wishart":
            A = rng.standard_normal((N, N))
            S = A @ A.T / N + 0.05 * np.eye(N)
        else:  # GP-like covariance over random 2-D points (strongly correlated)
            P = rng.uniform(size=(N, 2))
            S = np.exp(-np.sum((P[:, None] - P[None]) ** 2, axis=-1) / 0.1) + 1e-4 * np.eye(N)
        mus.append(0.5 * rng.standard_normal(N))
        Ss.append(0.5 * (S + S.T))
    return np.array(mus), np.array(Ss)


def _cases():
    yield "wishart", *_gaussians(3, 12, 0, "wishart")
    yield "gp", *_gaussians(2, 50, 1, "gp")
    mu, S = _gaussians(2, 20, 2, "gp")
    mu[:, 3] += 40.0  # far above the others: p_min(3) = 0, its EP problem dies
    yield "dead", mu, S
    mu, S = _gaussians(1, 10, 3, "wishart")
    mu[0, 5], S[0, 5, :], S[0, :, 5] = mu[0, 4], S[0, 4, :], S[0, :, 4]  # duplicated representer
    S[0, 5, 5] = S[0, 4, 4]
    yield "duplicate", mu, S


def test_log_ndtr_matches_scipy():
    from tt_core.acquisitions.epmgp import _log_ndtr

    z = np.linspace(-6.0, 6.0, 2401)
    got = np.array([_log_ndtr(v) for v in z])
    np.testing.assert_allclose(got, log_ndtr(z), rtol=1e-13, atol=1e-300)


@pytest.mark.parametrize("name, mu, S", list(_cases()), ids=[c[0] for c in _cases()])
def test_ep_kernel_equals_reference(name, mu, S, monkeypatch):
    from tt_core.acquisitions import epmgp

    assert epmgp._EP_KERNEL is not None
    new_sites = epmgp._ep_sites_batch(mu, S)
    new = epmgp.log_pmin_first_order_batch(mu, S)
    ref_sites = epmgp._ep_sites_batch_reference(mu, S)
    monkeypatch.setattr(epmgp, "_EP_KERNEL", None)
    monkeypatch.setattr(epmgp, "_NORM_KERNEL", None)
    ref = epmgp.log_pmin_first_order_batch(mu, S)
    np.testing.assert_array_equal(new_sites[3], ref_sites[3])  # the same problems die
    if name == "dead":
        assert ref_sites[3][:, 3].all()  # (others may die too)
    monkeypatch.undo()
    logZ_new, g_new, _ = epmgp._normalisers_batch(mu, S, *new_sites)  # both kernels
    logZ_ref, g_ref, _ = epmgp._normalisers_batch_reference(mu, S, *ref_sites)  # both references
    logZ_mix, g_mix, _ = epmgp._normalisers_batch_reference(mu, S, *new_sites)  # the normaliser alone
    np.testing.assert_array_equal(np.isfinite(logZ_new), np.isfinite(logZ_ref))
    f = np.isfinite(logZ_ref)
    np.testing.assert_allclose(logZ_new[f], logZ_ref[f], rtol=1e-10)
    np.testing.assert_allclose(logZ_new[f], logZ_mix[f], rtol=1e-12)
    np.testing.assert_allclose(g_new, g_mix, rtol=1e-10, atol=1e-12 * np.max(np.abs(g_mix)))
    np.testing.assert_allclose(g_new, g_ref, rtol=1e-10, atol=1e-10 * np.max(np.abs(g_ref)))
    for a, b in zip(new, ref):  # normalised ln p_min, its gradients, the mean gradient
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-10 * np.max(np.abs(b)))


def test_ep_kernel_matches_monte_carlo():
    """Not merely equal to the reference: p_min of the compiled EP against sampling."""
    from tt_core.acquisitions.epmgp import log_pmin_first_order_batch

    mu, S = _gaussians(1, 8, 5, "gp")
    logp = log_pmin_first_order_batch(mu, S)[0][0]
    f = np.random.default_rng(0).multivariate_normal(mu[0], S[0], size=200_000)
    freq = np.bincount(f.argmin(axis=1), minlength=8) / f.shape[0]
    np.testing.assert_allclose(np.exp(logp), freq, atol=0.03)


def test_gp_log_likelihood_kernel_equals_reference_and_closed_form():
    from scipy.stats import multivariate_normal

    from tt_core.models.fabolas_gp import NOISE_JITTER, FabolasGP, fabolas_kernel, sample_prior

    rng = np.random.default_rng(0)
    X = np.column_stack([rng.uniform(size=(30, 3)), rng.choice([1 / 60, 0.1, 0.25, 0.5, 1.0], 30)])
    y = np.log(rng.uniform(0.05, 0.6, 30))
    for kind in ("loss", "cost"):
        gp = FabolasGP(kind=kind, seed=1)
        gp._set_data(X, y)
        th = sample_prior(12, 3, np.random.default_rng(3))
        new = gp._log_likelihood(th)
        ref = gp._log_likelihood_reference(th)
        np.testing.assert_allclose(new, ref, rtol=1e-10)
        # and the Gaussian density itself for one walker (an independent formula)
        K = fabolas_kernel(X, X, th[0], kind)[0] + (np.exp(th[0, -1]) + NOISE_JITTER) * np.eye(30)
        expected = multivariate_normal(np.full(30, y.mean()), K, allow_singular=False).logpdf(y)
        np.testing.assert_allclose(new[0], expected, rtol=1e-8)


@pytest.mark.parametrize("kind, d, walkers", [("loss", 2, 12), ("cost", 3, 14)])
def test_compiled_chain_equals_emcee(kind, d, walkers):
    """The compiled stretch-move chain makes emcee's proposals and decisions: same walkers after 150 steps."""
    from tt_core.models.fabolas_gp import FabolasGP, sample_prior

    rng = np.random.default_rng(d)
    X = np.column_stack([rng.uniform(size=(25, d)), rng.choice([1 / 60, 0.1, 0.25, 0.5, 1.0], 25)])
    y = np.log(rng.uniform(0.05, 0.6, 25))
    gp = FabolasGP(kind=kind, seed=1)
    gp._set_data(X, y)
    p0 = sample_prior(walkers, d, np.random.default_rng(3))
    rs_ref, rs = np.random.RandomState(7), np.random.RandomState(7)
    ref_coords, ref_lp = gp._emcee_chain(p0, 150, rs_ref)
    coords, lp = gp._stretch_chain(p0, 150, rs)
    assert not np.array_equal(ref_coords, p0)  # the chain moved
    np.testing.assert_array_equal(coords, ref_coords)
    np.testing.assert_allclose(lp, ref_lp, rtol=1e-10)


@pytest.mark.parametrize("W, steps, seed", [(12, 300, 1), (13, 40, 2), (2, 5, 3)])
def test_compiled_draws_equal_randomstate(W, steps, seed):
    """The chain's random numbers drawn from the MT19937 state in compiled code equal numpy's
    RandomState calls (shuffle, random_sample, randint) and leave the generator in the same state."""
    from tt_core.models.stretch_move import stretch_draws

    out, states = [], []
    for compiled in (False, True):
        rs = np.random.RandomState(seed)
        rs.random_sample(7)  # not at the start of a block of 624 words
        arrays = (np.empty((steps, W), dtype=np.int64), np.zeros((steps, 2, W)),
                  np.zeros((steps, 2, W), dtype=np.int64), np.ones((steps, 2, W)))
        arrays[0][:] = np.arange(W) % 2
        stretch_draws(rs, *arrays, compiled=compiled)
        out.append(arrays)
        states.append(rs.get_state())
    for a, b in zip(*out):
        np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(states[0][1], states[1][1])
    assert states[0][2] == states[1][2]


def test_entropy_search_values_compiled_pass_matches_numpy(monkeypatch):
    """Entropy search's values with the compiled pass (shifted log weights) equal the numpy passes to
    rounding, on a fitted GP-like state of 3 samples, 20 representers and 30 candidates. Not to the bit:
    numpy's vectorised exp/log and the C library's (which the compiled pass calls) each pick their code by CPU,
    and differ in the last bit on some (1.8e-15 seen on an AVX-512 machine); decisions compare such values with
    a relative tolerance (tt_core.bo.ties)."""
    from tt_core.acquisitions import entropy_search as es

    rng = np.random.default_rng(4)
    M, N, C = 3, 20, 30
    obj = es.EntropySearch.__new__(es.EntropySearch)
    logits = rng.normal(size=(M, N)) * 2
    obj.logp_ = logits - np.log(np.exp(logits).sum(axis=1, keepdims=True))
    obj.dlogp_ = rng.normal(size=(M, N, N))
    obj.gbar_ = rng.normal(size=(M, N))
    obj.lambdas = np.full(N, -np.log(200.0))
    obj.entropy_ = -np.sum(np.exp(obj.logp_) * (obj.logp_ + obj.lambdas), axis=1)
    obj.omega = es.innovation_nodes(400)
    cov = rng.normal(size=(M, N, C)) * 0.1
    var = rng.uniform(0.05, 1.0, size=(M, C))
    noise = np.full(M, 0.01)
    assert es._SHIFT_KERNEL is not None
    monkeypatch.setattr(es, "_CHUNK_ENTRIES", 30_000)  # several chunks, the last one partial
    new = obj._values(cov, var, noise)
    monkeypatch.setattr(es, "_SHIFT_KERNEL", None)
    ref = obj._values(cov, var, noise)
    assert np.all(np.isfinite(ref)) and np.any(ref != 0)
    np.testing.assert_allclose(new, ref, rtol=1e-12, atol=1e-14 * np.abs(ref).max())


def test_fabolas_kernel_compiled_passes_equal_the_numpy_passes_to_the_bit(monkeypatch):
    """The FABOLAS kernel with its passes around the exp compiled (numpy's exp kept) equals the numpy passes
    to the bit, as a matrix (fabolas_kernel, several column blocks) and as a list of pairs (the likelihood's
    upper triangle), and the closed form k = e^t0 prod_i (1 + r_i + r_i^2/3) e^-r_i (e^ta + e^tb u u'),
    r_i = sqrt(5) |x_i - x'_i| e^(-t_i/2), entry by entry to rounding."""
    import math

    from tt_core.models import fabolas_gp as fg

    assert fg._MATERN_KERNEL is not None
    rng = np.random.default_rng(11)
    d = 3
    X1 = np.column_stack([rng.uniform(size=(7, d)), rng.choice([1 / 60, 0.25, 1.0], 7)])
    X2 = np.column_stack([rng.uniform(size=(40, d)), rng.choice([1 / 60, 0.25, 1.0], 40)])
    X2[:5] = X1[:5]  # zero distances
    th = rng.normal(size=(4, d + 4)) * 1.5
    monkeypatch.setattr(fg, "_KERNEL_BLOCK_ENTRIES", 300)  # column blocks of 10, the last one partial
    for kind in ("loss", "cost"):
        new_matrix = fg.fabolas_kernel(X1, X2, th, kind)
        new_pairs = fg._SelfPairs(X2, kind).kernel(th)
        with monkeypatch.context() as m:
            m.setattr(fg, "_MATERN_KERNEL", None)
            ref_matrix = fg.fabolas_kernel(X1, X2, th, kind)
            ref_pairs = fg._SelfPairs(X2, kind).kernel(th)
        np.testing.assert_array_equal(new_matrix, ref_matrix)
        np.testing.assert_array_equal(new_pairs, ref_pairs)
        u = (lambda s: (1.0 - s) ** 2) if kind == "loss" else (lambda s: s)
        for m_, a, b in [(0, 0, 0), (1, 3, 17), (3, 6, 39)]:
            t, x, y = th[m_], X1[a], X2[b]
            k = math.exp(t[0]) * (math.exp(t[d + 1]) + math.exp(t[d + 2]) * u(x[d]) * u(y[d]))
            for i in range(d):
                r = math.sqrt(5.0) * abs(x[i] - y[i]) * math.exp(-0.5 * t[1 + i])
                k *= (1.0 + r + r * r / 3.0) * math.exp(-r)
            assert new_matrix[m_, a, b] == pytest.approx(k, rel=1e-13)


def _row_by_row_cholesky(K):
    """The textbook Cholesky-Crout loop, one row after the other, in Python floats (the order the
    likelihood used before its two-row pass): lower factor and sum of ln L_ii, or None if not positive definite."""
    n = K.shape[0]
    L = [[0.0] * n for _ in range(n)]
    logdet = 0.0
    for i in range(n):
        for j in range(i + 1):
            acc = float(K[i, j])
            for q in range(j):
                acc -= L[i][q] * L[j][q]
            if i == j:
                if not acc > 0.0:
                    return None, None
                L[i][i] = float(np.sqrt(acc))
                logdet += float(np.log(L[i][i]))
            else:
                L[i][j] = acc / L[j][j]
    return np.array(L), logdet


@pytest.mark.parametrize("n", [1, 2, 5, 8, 44])
def test_two_row_cholesky_equals_row_by_row_and_factorises(n):
    """The likelihood's Cholesky, two rows per pass, gives the bits of the row-by-row loop, L L^T = K to
    rounding, and sum ln L_ii = ln det K / 2 (numpy's slogdet)."""
    from tt_core.models.fabolas_gp import _cholesky_rows

    rng = np.random.default_rng(n)
    A = rng.normal(size=(n, n))
    K = A @ A.T + 0.1 * np.eye(n)
    work = K.copy()
    logdet = _cholesky_rows(work)
    L = np.tril(work)
    L_ref, logdet_ref = _row_by_row_cholesky(K)
    np.testing.assert_array_equal(L, L_ref)
    assert logdet == logdet_ref
    np.testing.assert_allclose(L @ L.T, K, rtol=1e-12, atol=1e-12 * np.abs(K).max())
    assert logdet == pytest.approx(0.5 * np.linalg.slogdet(K)[1], rel=1e-12, abs=1e-12)


@pytest.mark.parametrize("K", [
    [[1.0, 2.0], [2.0, 1.0]],                                  # eigenvalue -1: the second row of a pair fails
    [[-1.0, 0.0], [0.0, 1.0]],                                 # the first row of a pair fails
    [[4.0, 2.0, 0.0], [2.0, 1.0, 0.0], [0.0, 0.0, 1.0]],       # singular: pivot exactly 0
    [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, np.nan]],    # a NaN pivot in the last, unpaired row
])
def test_two_row_cholesky_rejects_a_matrix_that_is_not_positive_definite(K):
    from tt_core.models.fabolas_gp import _cholesky_rows

    assert _cholesky_rows(np.array(K, dtype=float)) == -np.inf
    assert _row_by_row_cholesky(np.array(K, dtype=float))[0] is None
