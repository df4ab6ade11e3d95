"""tt_core.models.portable against independent computations: numpy/scipy's exp and log, scikit-learn's GP
likelihood and gradient, finite differences, scipy's L-BFGS-B; and the Matern GP's fit through it."""

from __future__ import annotations

import numpy as np
import pytest

from tt_core.models import portable as P


def test_exp_and_log_within_a_few_ulp_of_numpy():
    xs = np.concatenate([np.linspace(-740.0, 700.0, 4001), np.random.default_rng(0).normal(0.0, 3.0, 500),
                         [0.0, 1.0, -1.0, 1e-300, -1e-300]])
    got = np.array([P.exp(x) for x in xs])
    ref = np.exp(xs)
    assert np.all(np.abs(got - ref) <= 4 * np.spacing(ref))
    assert P.exp(0.0) == 1.0 and P.exp(-800.0) == 0.0 and P.exp(710.0) == np.inf and np.isnan(P.exp(np.nan))
    ys = np.concatenate([np.exp(np.random.default_rng(1).uniform(-700.0, 700.0, 2000)), [1.0, 2.0, 0.5, 1e-310]])
    got = np.array([P.log(y) for y in ys])
    assert np.all(np.abs(got - np.log(ys)) <= 2 * np.spacing(np.maximum(np.abs(np.log(ys)), 1.0)))
    assert P.log(1.0) == 0.0 and P.log(0.0) == -np.inf and np.isnan(P.log(-1.0))


def _sklearn_gp(theta, X, y):
    from sklearn.gaussian_process import GaussianProcessRegressor
    from sklearn.gaussian_process.kernels import ConstantKernel, Matern, WhiteKernel

    c, *ls, s2 = np.exp(theta)
    k = ConstantKernel(c, (1e-3, 1e3)) * Matern(np.array(ls), (1e-2, 1e2), nu=2.5) + WhiteKernel(s2, (1e-8, 1.0))
    return GaussianProcessRegressor(k, optimizer=None).fit(X, y), k


def test_likelihood_and_gradient_match_scikit_learn_and_finite_differences():
    rng = np.random.default_rng(2)
    X = rng.uniform(0.0, 1.0, (30, 4))
    y = np.sin(X @ np.arange(1.0, 5.0)) + 0.1 * rng.normal(size=30)
    theta = np.log([1.3, 0.3, 0.5, 0.7, 1.1, 1e-2])
    gp, k = _sklearn_gp(theta, X, y)
    lml, grad = gp.log_marginal_likelihood(k.theta, eval_gradient=True)
    f, g = P.matern52_nll(theta, X, y)
    assert f == pytest.approx(-lml, rel=1e-12)
    np.testing.assert_allclose(g, -grad, rtol=1e-9, atol=1e-12)
    h = 1e-6
    fd = [(P.matern52_nll(theta + h * e, X, y)[0] - P.matern52_nll(theta - h * e, X, y)[0]) / (2 * h)
          for e in np.eye(len(theta))]
    np.testing.assert_allclose(g, fd, rtol=1e-6, atol=1e-7)


def test_minimize_box_reaches_scipy_optimum_and_holds_bounds():
    from scipy.optimize import minimize

    rng = np.random.default_rng(3)
    X = rng.uniform(0.0, 1.0, (25, 3))
    y = np.cos(3 * X[:, 0]) + X[:, 1] ** 2 + 0.05 * rng.normal(size=25)
    y = (y - y.mean()) / y.std()
    bounds = np.log([[1e-3, 1e3], [1e-2, 1e2], [1e-2, 1e2], [1e-2, 1e2], [1e-8, 1.0]])
    theta0 = np.log([1.0, 0.5, 0.5, 0.5, 1e-3])
    theta, f, it = P.minimize_box(theta0, bounds, X, y)
    ref = minimize(lambda t: P.matern52_nll(t, X, y), theta0, jac=True, method="L-BFGS-B", bounds=bounds)
    assert f == pytest.approx(ref.fun, abs=1e-6) and 0 < it < 500
    assert np.all(theta >= bounds[:, 0]) and np.all(theta <= bounds[:, 1])
    # the third input does not enter y: its length-scale goes to the upper bound, exactly
    assert theta[3] == bounds[3, 1]


def test_matern_gp_fit_matches_scikit_learn_optimiser_to_its_tolerance():
    """The fitted likelihood equals scikit-learn's own L-BFGS-B fit (same starts) to its tolerance, and the
    predictions agree closely: the same ML-II model, only another optimiser."""
    from sklearn.gaussian_process import GaussianProcessRegressor
    from sklearn.gaussian_process.kernels import ConstantKernel, Matern, WhiteKernel

    from tt_core.models.matern_gp import MaternGP

    rng = np.random.default_rng(5)
    Z = rng.uniform(0.0, 1.0, (20, 3))
    X = np.column_stack([Z, np.ones(20)])
    y = np.log1p(-np.clip(0.9 - 0.3 * (Z[:, 0] - 0.4) ** 2 + 0.01 * rng.normal(size=20), 0, 0.99))
    gp = MaternGP(n_restarts=2, seed=7).fit(X, y)
    k = (ConstantKernel(1.0, (1e-3, 1e3)) * Matern(np.full(3, 0.5), (1e-2, 1e2), nu=2.5)
         + WhiteKernel(1e-3, (1e-8, 1.0)))
    ref = GaussianProcessRegressor(k, normalize_y=True, n_restarts_optimizer=2, random_state=7).fit(Z, y)
    ours = gp.gp_.log_marginal_likelihood(gp.gp_.kernel_.theta)
    assert ours == pytest.approx(ref.log_marginal_likelihood_value_, abs=1e-4)
    Zt = rng.uniform(0.0, 1.0, (50, 3))
    np.testing.assert_allclose(gp.predict(np.column_stack([Zt, np.ones(50)])), ref.predict(Zt), rtol=1e-3, atol=1e-3)
