"""Tests of EPMGP p_min (spec Sec. 2.2): exact cases, Monte Carlo, derivatives, normalisation, errors."""

import time

import numpy as np
import pytest
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


def test_normalisation_identities():
    mu, S = _random_gaussian(9, 21)
    logp, d1, d2, dS = log_pmin(mu, S)
    p = np.exp(logp)
    assert p.sum() == pytest.approx(1.0, abs=1e-12)
    np.testing.assert_allclose(p @ d1, 0.0, atol=1e-10)  # sum_k p_k g~_k = 0
    np.testing.assert_allclose(np.einsum("k,kij->ij", p, dS), 0.0, atol=1e-10)
    # H~ uses the outer product gbar gbar^T: sum_k p_k (H~_k + g~_k g~_k^T) = 0
    np.testing.assert_allclose(np.einsum("k,kij->ij", p, d2 + d1[:, :, None] * d1[:, None, :]), 0.0, atol=1e-10)
    logp1, d1b, gbar = log_pmin_first_order(mu, S)
    np.testing.assert_allclose(logp1, logp)
    np.testing.assert_allclose(d1b, d1)
    _, g_raw, _ = epmgp_log_normalisers(mu, S)
    np.testing.assert_allclose(d1 + gbar, g_raw, atol=1e-12)


@pytest.mark.slow
def test_speed_n50():
    mu, S = _random_gaussian(50, 3, kind="gp")
    t0 = time.perf_counter()
    log_pmin(mu, S)
    assert time.perf_counter() - t0 < 1.0


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
