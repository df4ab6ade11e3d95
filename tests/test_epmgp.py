"""Tests of EPMGP p_min (spec Sec. 2.2): exact cases, Monte Carlo, derivatives, normalisation, errors."""

import numpy as np
import pytest
from scipy.integrate import quad
from scipy.stats import norm

from tt_core.acquisitions.epmgp import epmgp_log_normalisers, log_pmin, log_pmin_first_order


def _random_gaussian(N, seed, kind="wishart"):
    rng = np.random.default_rng(seed)
    if kind == "wishart":
        A = rng.standard_normal((N, N))
        S = A @ A.T / N + 0.05 * np.eye(N)
    else:  # smooth GP-like covariance over random 2-D points
        P = rng.uniform(size=(N, 2))
        S = np.exp(-np.sum((P[:, None] - P[None]) ** 2, axis=-1) / 0.1) + 1e-4 * np.eye(N)
    return 0.5 * rng.standard_normal(N), S


def _mc_pmin(mu, S, n, seed):
    f = np.random.default_rng(seed).multivariate_normal(mu, S, size=n)
    return np.bincount(f.argmin(axis=1), minlength=len(mu)) / n


def test_two_points_exact():
    # with a single constraint EP is exact: p_min(0) = Phi((mu1 - mu0) / sd(f1 - f0))
    for seed in range(4):
        mu, S = _random_gaussian(2, seed)
        logZ, _, _ = epmgp_log_normalisers(mu, S)
        sd = np.sqrt(S[0, 0] + S[1, 1] - 2 * S[0, 1])
        expected = norm.cdf([(mu[1] - mu[0]) / sd, (mu[0] - mu[1]) / sd])
        np.testing.assert_allclose(np.exp(logZ), expected, rtol=1e-8)
        np.testing.assert_allclose(np.exp(log_pmin(mu, S)[0]), expected, rtol=1e-8)


@pytest.mark.parametrize("N, seed", [(5, 0), (7, 1), (8, 2), (10, 3), (10, 4)])
def test_pmin_matches_monte_carlo(N, seed):
    mu, S = _random_gaussian(N, seed)
    p = np.exp(log_pmin(mu, S)[0])
    freq = _mc_pmin(mu, S, 200_000, seed + 100)
    np.testing.assert_allclose(p, freq, atol=0.03)
    assert p.sum() == pytest.approx(1.0, abs=1e-12)


def test_pmin_matches_monte_carlo_n50_correlated():
    mu, S = _random_gaussian(50, 5, kind="gp")
    p = np.exp(log_pmin(mu, S)[0])
    freq = _mc_pmin(mu, S, 100_000, 7)
    np.testing.assert_allclose(p, freq, atol=0.02)


def test_symmetric_case_is_uniform_and_dominant_case_is_degenerate():
    N = 6
    p = np.exp(log_pmin(np.zeros(N), np.eye(N))[0])
    np.testing.assert_allclose(p, 1.0 / N, atol=1e-10)  # exchangeable: EP and normalisation keep symmetry
    mu = np.zeros(N)
    mu[2] = -50.0
    logp = log_pmin(mu, np.eye(N))[0]
    assert np.exp(logp[2]) == pytest.approx(1.0, abs=1e-12)
    assert np.all(logp[np.arange(N) != 2] < -100)


def test_single_point():
    logp, d1, d2, dS = log_pmin(np.array([0.3]), np.array([[2.0]]))
    assert logp.tolist() == [0.0]
    assert not d1.any() and not d2.any() and not dS.any()


def _fd(fun, x, h):
    cols = []
    for i in range(x.size):
        e = np.zeros_like(x)
        e.flat[i] = h
        cols.append((fun(x + e) - fun(x - e)) / (2 * h))
    return np.stack(cols, axis=-1)


@pytest.mark.parametrize("seed", [0, 1])
def test_derivatives_vs_finite_differences(seed):
    N = 5
    mu, S = _random_gaussian(N, seed + 10)
    logp, d1, d2, dS = log_pmin(mu, S)
    h = 1e-5
    # gradient w.r.t. mu: exact at the EP fixed point (stationarity of the EP normaliser)
    g_fd = _fd(lambda m: log_pmin(m, S)[0], mu, h)
    np.testing.assert_allclose(d1, g_fd, atol=1e-4)
    # gradient w.r.t. Sigma: a symmetric perturbation E_ab + E_ba changes ln p by S~_ab + S~_ba
    iu = np.triu_indices(N)
    sym = dS + dS.transpose(0, 2, 1) - dS * np.eye(N)[None]
    for a, b in zip(*iu):
        E = np.zeros((N, N))
        E[a, b] = E[b, a] = h
        fd = (log_pmin(mu, S + E)[0] - log_pmin(mu, S - E)[0]) / (2 * h)
        np.testing.assert_allclose(sym[:, a, b], fd, atol=1e-4)
    # Hessian w.r.t. mu is taken with the EP sites fixed, so it matches finite differences of the
    # gradient only approximately (a few percent)
    H_fd = _fd(lambda m: log_pmin(m, S)[1], mu, h)
    assert np.linalg.norm(d2 - H_fd) / np.linalg.norm(H_fd) < 0.1
    np.testing.assert_allclose(d2, d2.transpose(0, 2, 1), atol=1e-10)
    np.testing.assert_allclose(dS, dS.transpose(0, 2, 1), atol=1e-10)


def test_normalisation_two_points_hand_computed():
    """N = 2 (one constraint, EP exact): every normalised output against numbers derived by hand.

    mu = (0, 1), Sigma = I, so f_1 - f_0 ~ N(1, 2); u = 1/sqrt(2) = 0.7071068, phi(u) = e^-0.25 / sqrt(2 pi)
    = 0.3106966, Phi(u) = 0.7602499, Phi(-u) = 0.2397501.
    p_0 = Phi(u) = 0.7602499, p_1 = Phi(-u) = 0.2397501 (sum exactly 1, so the normalisation is a no-op).
    Gradient of ln p_0 = ln Phi((mu_1 - mu_0) / sqrt 2): r_0 = phi(u) / Phi(u) = 0.4086769,
      g_0 = r_0 / sqrt 2 * (-1, 1) = (-0.2889782, 0.2889782);
      r_1 = phi(u) / Phi(-u) = 1.2959186, g_1 = r_1 / sqrt 2 * (1, -1) = (0.9163528, -0.9163528).
    gbar = p_0 g_0 + p_1 g_1 = (-0.2196955 + 0.2196955) * (1, -1) = 0 (= grad of p_0 + p_1 = 1), so g~ = g.
    Hessian: d2/du2 ln Phi(u) = -r (u + r) and du/dmu = (-1, 1) / sqrt 2:
      k = 0: -0.4086769 (0.7071068 + 0.4086769) / 2 = -0.2279975; k = 1: -1.2959186 (-0.7071068 + 1.2959186) / 2
      = -0.3815261; H[k] = h_k [[1, -1], [-1, 1]]. sum_j p_j (H_j + g_j g_j^T) = Hessian of 1 = 0, so H~ = H.
    Sigma derivative (chain rule through v = S00 + S11 - S01 - S10 = 2, du/dv = -u / (2 v)):
      d ln p_0 / dS00 = -r_0 u / 4 = -0.0722446; d ln p_1 / dS00 = +r_1 u / 4 = 0.2290882 (same for S11,
      opposite sign for S01 and S10); sum_k p_k S_k = 0.5 * Hessian of 1 = 0, so S~ = S.
    """
    mu, S = np.array([0.0, 1.0]), np.eye(2)
    sign = np.array([[1.0, -1.0], [-1.0, 1.0]])
    p_hand = np.array([0.7602499, 0.2397501])
    g_hand = np.array([[-0.2889782, 0.2889782], [0.9163528, -0.9163528]])
    h_hand = np.array([-0.2279975, -0.3815261])
    s_hand = np.array([-0.0722446, 0.2290882])
    logp, d1, d2, dS = log_pmin(mu, S)
    np.testing.assert_allclose(np.exp(logp), p_hand, rtol=1e-6)
    np.testing.assert_allclose(d1, g_hand, rtol=1e-6)
    np.testing.assert_allclose(d2, h_hand[:, None, None] * sign, rtol=1e-6)
    np.testing.assert_allclose(dS, s_hand[:, None, None] * sign, rtol=1e-5)
    logp1, d1b, gbar = log_pmin_first_order(mu, S)
    np.testing.assert_allclose(np.exp(logp1), p_hand, rtol=1e-6)
    np.testing.assert_allclose(d1b, g_hand, rtol=1e-6)
    np.testing.assert_allclose(gbar, 0.0, atol=1e-9)
    # the unnormalised EP derivatives are the same numbers (EP is exact with one constraint)
    logZ, g_raw, _ = epmgp_log_normalisers(mu, S)
    np.testing.assert_allclose(np.exp(logZ), p_hand, rtol=1e-6)
    np.testing.assert_allclose(g_raw, g_hand, rtol=1e-6)


def _quad_pmin_independent(mu, sd):
    """p_min(k) and d p_min(k) / d mu_j for independent f_l ~ N(mu_l, sd_l^2), by 1-D numerical integration.

    p_k = int phi_k(t) prod_{l != k} (1 - Phi_l(t)) dt; for j != k the derivative replaces the survival factor
    of l = j by the density phi_j(t); d/dmu_k = -sum_{j != k} d/dmu_j (shifting every mean changes nothing).
    """
    N = len(mu)

    def integral(k, j=None):
        def f(t):
            v = norm.pdf(t, mu[k], sd[k])
            for l in range(N):
                if l != k:
                    v *= norm.pdf(t, mu[l], sd[l]) if l == j else norm.sf(t, mu[l], sd[l])
            return v

        return quad(f, -np.inf, np.inf, epsabs=1e-13, epsrel=1e-11)[0]

    p = np.array([integral(k) for k in range(N)])
    dp = np.array([[integral(k, j) if j != k else 0.0 for j in range(N)] for k in range(N)])
    dp[np.arange(N), np.arange(N)] = -dp.sum(axis=1)
    return p, dp


@pytest.mark.parametrize("mu, sd", [((0.0, 0.5, 1.2), (1.0, 0.6, 1.5)), ((0.0, 0.3, -0.2), (1.0, 0.5, 0.8))])
def test_normalisation_identities(mu, sd):
    """Normalised EPMGP (N = 3, EP approximate) against quadrature, and the identities of a distribution."""
    mu, sd = np.array(mu), np.array(sd)
    p_ref, dp_ref = _quad_pmin_independent(mu, sd)
    assert p_ref.sum() == pytest.approx(1.0, abs=1e-8)  # the reference itself is a distribution
    logp, d1, d2, dS = log_pmin(mu, np.diag(sd**2))
    p = np.exp(logp)
    # EP's error on these problems is ~2e-3 (measured); 5e-3 / 1e-2 leaves room but catches real errors
    np.testing.assert_allclose(p, p_ref, atol=5e-3)
    np.testing.assert_allclose(d1, dp_ref / p_ref[:, None], atol=1e-2)  # d ln p_k / d mu
    logp1, d1b, _ = log_pmin_first_order(mu, np.diag(sd**2))
    np.testing.assert_allclose(np.exp(logp1), p_ref, atol=5e-3)
    np.testing.assert_allclose(d1b, dp_ref / p_ref[:, None], atol=1e-2)
    # identities of the exact quantities (p sums to 1 for every mu and Sigma, so its derivatives sum to 0)
    assert p.sum() == pytest.approx(1.0, abs=1e-12)
    np.testing.assert_allclose(p @ d1, 0.0, atol=1e-10)  # sum_k p_k g~_k = grad 1
    np.testing.assert_allclose(np.einsum("k,kij->ij", p, dS), 0.0, atol=1e-10)
    np.testing.assert_allclose(np.einsum("k,kij->ij", p, d2 + d1[:, :, None] * d1[:, None, :]), 0.0, atol=1e-10)


@pytest.mark.parametrize(
    "mu, S, match",
    [
        (np.zeros((2, 2)), np.eye(2), "1-D"),
        (np.zeros(3), np.eye(2), "shape"),
        (np.array([0.0, np.nan]), np.eye(2), "finite"),
        (np.zeros(2), np.array([[1.0, 0.5], [0.0, 1.0]]), "symmetric"),
        (np.zeros(2), -np.eye(2), "negative"),
        (np.zeros(0), np.zeros((0, 0)), "non-empty"),
    ],
)
def test_bad_arguments(mu, S, match):
    with pytest.raises(ValueError, match=match):
        log_pmin(mu, S)


def _dense_normalisers(mu, S, tau, nu, logS, dead):
    """The EP normaliser of every problem k with dense matrices (a second formula: C, R, B, A built explicitly)."""
    N = len(mu)
    logZ, g = np.full(N, -np.inf), np.zeros((N, N))
    for k in np.flatnonzero(~dead):
        C = np.eye(N)
        C[k, :] -= 1.0
        C /= np.sqrt(2.0)  # column l = c_l = (e_l - e_k) / sqrt(2); column k = 0
        R = C * np.sqrt(tau[k])[None, :]
        r = C @ nu[k]
        B = np.eye(N) + R.T @ S @ R
        A = R @ np.linalg.solve(B, R.T)
        b = mu + S @ r
        site = np.where(nu[k] != 0, nu[k] ** 2 / np.where(tau[k] > 0, tau[k], 1.0), 0.0)
        logZ[k] = (0.5 * (r @ S @ r - b @ A @ b - np.linalg.slogdet(B)[1]) + mu @ r + logS[k].sum()
                   - 0.5 * site.sum())
        g[k] = r - A @ b
    return logZ, g


@pytest.mark.parametrize("N, seed, kind", [(6, 0, "wishart"), (12, 1, "gp"), (30, 2, "gp")])
def test_structured_normaliser_equals_dense_formula(N, seed, kind):
    """The O(N^2)-per-problem normaliser (structure of c_l) equals the dense-matrix formula on the same sites."""
    from tt_core.acquisitions.epmgp import _ep_sites_batch, _normalisers_batch

    mu, S = _random_gaussian(N, seed, kind)
    tau, nu, logS, dead = _ep_sites_batch(mu[None], S[None])
    logZ, g, H = _normalisers_batch(mu[None], S[None], tau, nu, logS, dead, hessian=True)
    ref_logZ, ref_g = _dense_normalisers(mu, S, tau[0], nu[0], logS[0], dead[0])
    np.testing.assert_allclose(logZ[0], ref_logZ, rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(g[0], ref_g, rtol=1e-7, atol=1e-8)
    # the Hessian is -A; its action on b is the A b of the gradient: g = r - A b
    assert np.all(np.isfinite(H))


def test_batch_equals_one_gaussian_at_a_time():
    """log_pmin_first_order_batch: row i equals log_pmin_first_order of Gaussian i (several sizes of problem)."""
    from tt_core.acquisitions.epmgp import log_pmin_first_order_batch

    gauss = [_random_gaussian(15, s, "gp" if s % 2 else "wishart") for s in range(5)]
    mu = np.array([g[0] for g in gauss])
    S = np.array([g[1] for g in gauss])
    logp, d1, gbar = log_pmin_first_order_batch(mu, S)
    for i in range(len(gauss)):
        ref = log_pmin_first_order(mu[i], S[i])
        np.testing.assert_allclose(logp[i], ref[0], rtol=1e-9, atol=1e-9)
        np.testing.assert_allclose(d1[i], ref[1], rtol=1e-7, atol=1e-8)
        np.testing.assert_allclose(gbar[i], ref[2], rtol=1e-7, atol=1e-8)
    # and against Monte Carlo for one of them (the batch is EPMGP, not merely self-consistent)
    freq = _mc_pmin(mu[1], S[1], 100_000, 3)
    np.testing.assert_allclose(np.exp(logp[1]), freq, atol=0.03)
    with pytest.raises(ValueError, match=r"\(M, N\)"):
        log_pmin_first_order_batch(mu[0], S[0])
