"""Tests of the FABOLAS GP (spec Sec. 1): kernel, exact posterior, MCMC behaviour, fantasies, errors."""

import numpy as np
import pytest
from scipy import stats

from tt_core.models.base import JointPosterior, check_X
from tt_core.models.fabolas_gp import (
    FabolasGP,
    fabolas_kernel,
    fabolas_kernel_diag,
    george_inputs,
    george_kernel,
    log_prior,
)


def _data(n, d, seed=0, noise=0.01):
    rng = np.random.default_rng(seed)
    X = rng.uniform(size=(n, d + 1))
    X[:, d] = rng.choice([0.0, 0.25, 0.5, 0.75, 1.0], size=n)
    y = np.log(0.05 + 0.5 * np.sum((X[:, :d] - 0.3) ** 2, axis=1) * (1 + (1 - X[:, d]) ** 2))
    return X, y + noise * rng.standard_normal(n)


def _theta(d, seed=0, n=1):
    rng = np.random.default_rng(seed)
    th = np.empty((n, d + 4))
    th[:, 0] = rng.uniform(-1, 1, n)
    th[:, 1 : d + 1] = rng.uniform(-3, 0.5, (n, d))
    th[:, d + 1 : d + 3] = rng.normal(0, 0.5, (n, 2))
    th[:, d + 3] = rng.uniform(-6, -3, n)
    return th


# ----------------------------------------------------------------------------------------- kernel
@pytest.mark.parametrize("kind", ["loss", "cost"])
@pytest.mark.parametrize("d", [1, 3])
def test_kernel_matches_george(kind, d):
    X, _ = _data(25, d, seed=d)
    th = _theta(d, seed=d)[0]
    K = fabolas_kernel(X, X, th, kind)[0]
    Kg = george_kernel(th, d, kind).get_value(george_inputs(X, kind))
    np.testing.assert_allclose(K, Kg, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(fabolas_kernel_diag(X, th, kind)[0], np.diag(K), rtol=1e-12)


def test_kernel_closed_form_single_pair():
    # d = 1: k = e^t0 * Matern52(dx^2 / e^t1) * (e^ta + e^tb u u'), u = (1 - s)^2 for the loss
    th = np.array([0.3, -1.2, 0.1, -0.4, -5.0])
    x1, x2 = np.array([[0.2, 0.5]]), np.array([[0.7, 0.0]])
    r2 = 0.5**2 / np.exp(-1.2)
    m = (1 + np.sqrt(5 * r2) + 5 * r2 / 3) * np.exp(-np.sqrt(5 * r2))
    expected = np.exp(0.3) * m * (np.exp(0.1) + np.exp(-0.4) * 0.25 * 1.0)
    assert fabolas_kernel(x1, x2, th, "loss")[0, 0, 0] == pytest.approx(expected, rel=1e-12)
    expected_cost = np.exp(0.3) * m * (np.exp(0.1) + np.exp(-0.4) * 0.5 * 0.0)
    assert fabolas_kernel(x1, x2, th, "cost")[0, 0, 0] == pytest.approx(expected_cost, rel=1e-12)


def test_loss_kernel_full_size_covariance_independent_of_size():
    th = _theta(2, seed=3)[0]
    full = np.array([[0.4, 0.6, 1.0]])
    others = np.array([[0.1, 0.2, s] for s in (0.0, 0.3, 1.0)])
    k = fabolas_kernel(full, others, th, "loss")[0, 0]
    np.testing.assert_allclose(k, k[0], rtol=1e-12)


# ---------------------------------------------------------------------------------------- priors
def test_log_prior_known_values_and_support():
    d = 2
    th = np.array([0.5, -3.0, 1.0, 0.2, -0.7, -4.0])
    expected = (
        stats.lognorm(s=1.0).logpdf(th[0] + 2)
        + 2 * stats.uniform(-10, 12).logpdf(-3.0)
        + stats.norm.logpdf(0.2)
        + stats.norm.logpdf(-0.7)
        + np.log(np.log1p(3 * (1e-3 / np.exp(-4.0)) ** 2))
    )
    assert log_prior(th)[0] == pytest.approx(expected, rel=1e-12)
    for j, bad in [(0, -2.5), (1, 2.5), (2, -10.5), (d + 1, 21.0), (d + 3, -20.5)]:
        t = th.copy()
        t[j] = bad
        assert log_prior(t)[0] == -np.inf


# ----------------------------------------------------------------------------- exact posterior
def test_posterior_matches_closed_form_with_fixed_hypers():
    d = 3
    X, y = _data(30, d, seed=1)
    H = _theta(d, seed=2, n=2)
    gp = FabolasGP("loss").fit_fixed_hypers(X, y, H)
    Xs, _ = _data(17, d, seed=5)
    Z = Xs[:6].copy()
    Z[:, d] = 1.0
    m0 = y.mean()
    means, variances = gp.predict_per_sample(Xs)
    posts = gp.joint_posteriors(Z, Xs)
    for i, th in enumerate(H):
        K = fabolas_kernel(X, X, th, "loss")[0] + (np.exp(th[d + 3]) + 1.25e-12) * np.eye(len(y))
        Ks = fabolas_kernel(X, Xs, th, "loss")[0]
        Kz = fabolas_kernel(X, Z, th, "loss")[0]
        mu = m0 + Ks.T @ np.linalg.solve(K, y - m0)
        cov = fabolas_kernel(Xs, Xs, th, "loss")[0] - Ks.T @ np.linalg.solve(K, Ks)
        np.testing.assert_allclose(means[i], mu, rtol=1e-9, atol=1e-10)
        np.testing.assert_allclose(variances[i], np.diag(cov), rtol=1e-7, atol=1e-10)
        p = posts[i]
        assert isinstance(p, JointPosterior)
        np.testing.assert_allclose(p.mean_z, m0 + Kz.T @ np.linalg.solve(K, y - m0), rtol=1e-9, atol=1e-10)
        czz = fabolas_kernel(Z, Z, th, "loss")[0] - Kz.T @ np.linalg.solve(K, Kz)
        czx = fabolas_kernel(Z, Xs, th, "loss")[0] - Kz.T @ np.linalg.solve(K, Ks)
        np.testing.assert_allclose(p.cov_zz, czz, rtol=1e-7, atol=1e-10)
        np.testing.assert_allclose(p.cov_zx, czx, rtol=1e-7, atol=1e-10)
        np.testing.assert_allclose(p.mean_x, mu, rtol=1e-9, atol=1e-10)
        np.testing.assert_allclose(p.var_x, np.diag(cov), rtol=1e-7, atol=1e-10)
        assert p.noise_var == pytest.approx(np.exp(th[d + 3]) + 1.25e-12)
    # averaged predictor: mu = mean_i mu_i, v = var_i(mu_i) + mean_i v_i
    mean, std = gp.predict(Xs, return_std=True)
    np.testing.assert_allclose(mean, means.mean(0), rtol=1e-12)
    np.testing.assert_allclose(std**2, means.var(0) + variances.mean(0), rtol=1e-10)
    np.testing.assert_allclose(gp.predict(Xs), mean)


def test_check_X_by_hand():
    np.testing.assert_array_equal(check_X([[1, 2], [3, 4]], d_expected=2), [[1.0, 2.0], [3.0, 4.0]])
    with pytest.raises(ValueError, match="column"):
        check_X([[1, 2], [3, 4]], d_expected=3)
    with pytest.raises(ValueError):
        check_X([[1, np.nan]])


# ------------------------------------------------------------------------------------------ MCMC
def _small_gp(seed, **kw):
    kw.setdefault("burnin", 30)
    kw.setdefault("chain_length", 20)
    return FabolasGP("loss", seed=seed, **kw)


def test_mcmc_samples_respect_prior_support():
    d = 2
    X, y = _data(20, d, seed=3)
    gp = _small_gp(0).fit(X, y)
    S = gp.samples_
    assert S.shape == (gp.n_walkers(d), d + 4) == (12, 6)
    assert np.all(np.abs(S) <= 20)
    assert np.all((S[:, 1 : d + 1] >= -10) & (S[:, 1 : d + 1] <= 2))
    assert np.all(S[:, 0] > -2)
    assert np.all(np.isfinite(gp.log_prob_))
    np.testing.assert_allclose(gp.log_prob_, gp.log_posterior(S), rtol=1e-8)


def test_default_walkers():
    gp = FabolasGP()
    assert gp.n_walkers(5) == 24  # spec: 3 (d + 3) for d = 5
    assert gp.n_walkers(1) == 12
    for d in range(1, 12):
        n = gp.n_walkers(d)
        assert n % 2 == 0 and n >= 2 * (d + 4)


def test_same_seed_identical_samples_and_different_seed_differs():
    X, y = _data(15, 2, seed=4)
    a = _small_gp(7).fit(X, y)
    b = _small_gp(7).fit(X, y)
    c = _small_gp(8).fit(X, y)
    np.testing.assert_array_equal(a.samples_, b.samples_)
    assert not np.allclose(a.samples_, c.samples_)
    a.fit(X, y)
    b.fit(X, y)
    np.testing.assert_array_equal(a.samples_, b.samples_)
    gen = _small_gp(np.random.default_rng(7)).fit(X, y)
    assert gen.samples_.shape == a.samples_.shape


def _closed_form_cross(X, y, th, Z, Xs, kind):
    d = X.shape[1] - 1
    K = fabolas_kernel(X, X, th, kind)[0] + (np.exp(th[d + 3]) + 1.25e-12) * np.eye(len(y))
    Ks, Kz = fabolas_kernel(X, Xs, th, kind)[0], fabolas_kernel(X, Z, th, kind)[0]
    czx = fabolas_kernel(Z, Xs, th, kind)[0] - Kz.T @ np.linalg.solve(K, Ks)
    var = np.diag(fabolas_kernel(Xs, Xs, th, kind)[0] - Ks.T @ np.linalg.solve(K, Ks))
    return czx, var


def test_cross_posteriors_closed_form_and_cache_follows_the_state():
    """cross_posteriors against np.linalg.solve on the kernel matrices, before and after a refit and in a
    fantasy (the cached L^-1 k(X_, Z) must never outlive the factors it was computed with)."""
    d = 3
    X, y = _data(30, d, seed=1)
    H = _theta(d, seed=2, n=2)
    gp = FabolasGP("loss").fit_fixed_hypers(X, y, H)
    Xs, _ = _data(9, d, seed=5)
    Z = Xs[:4].copy()
    Z[:, d] = 1.0

    def check(model, Xtrain, ytrain):
        for batch in (Xs[:3], Xs):  # a second call reuses the cached representer block
            czx, var, noise = model.cross_posteriors(Z, batch)
            for i, th in enumerate(H):
                ref_czx, ref_var = _closed_form_cross(Xtrain, ytrain, th, Z, batch, "loss")
                np.testing.assert_allclose(czx[i], ref_czx, rtol=1e-7, atol=1e-10)
                np.testing.assert_allclose(var[i], ref_var, rtol=1e-7, atol=1e-10)
                assert noise[i] == pytest.approx(np.exp(th[d + 3]) + 1.25e-12)

    check(gp, X, y)
    Xn, yn = _data(2, d, seed=7)
    fant = gp.fantasize(Xn, yn)
    check(fant, np.vstack([X, Xn]), np.concatenate([y, yn]))
    gp.fit_fixed_hypers(X[:20], y[:20], H)  # new data: new factors
    check(gp, X[:20], y[:20])
    import json

    from tt_workbook.runs import checkpoint

    text, _ = checkpoint.encode(gp)
    fields = [name for name, _ in json.loads(text)["root"]["fields"]]
    assert "_vz_cache" not in fields and "X_" in fields  # the cache is not part of a checkpoint


def test_refit_continues_the_chain():
    X, y = _data(18, 2, seed=5)
    gp = _small_gp(1, burnin=25, chain_length=10)
    gp.fit(X[:12], y[:12])
    first = gp.samples_.copy()
    assert gp.n_steps_ == 35
    gp.fit(X, y)
    np.testing.assert_array_equal(gp.initial_positions_, first)
    assert gp.n_steps_ == 45  # no second burn-in
    assert gp.X_.shape[0] == 18
    assert np.all(np.isfinite(gp.log_prob_))


def test_mcmc_fit_recovers_noise_level_and_interpolates():
    rng = np.random.default_rng(0)
    n = 40
    X = np.column_stack([rng.uniform(size=n), np.ones(n)])
    f = np.sin(6 * X[:, 0])
    y = f + 0.1 * rng.standard_normal(n)
    gp = FabolasGP("loss", seed=0, burnin=100, chain_length=100).fit(X, y)
    noise_sd = np.sqrt(np.median(gp.noise_var_))
    assert 0.05 < noise_sd < 0.2
    Xt = np.column_stack([np.linspace(0.05, 0.95, 50), np.ones(50)])
    mean, std = gp.predict(Xt, return_std=True)
    err = mean - np.sin(6 * Xt[:, 0])
    assert np.sqrt(np.mean(err**2)) < 0.1
    assert np.all(std > 0)


# -------------------------------------------------------------------------------------- fantasies
@pytest.mark.parametrize("k", [1, 3])
def test_fantasy_equals_full_refit_with_same_hypers(k):
    d = 3
    X, y = _data(25, d, seed=6)
    Xn, yn = _data(k, d, seed=7)
    H = _theta(d, seed=8, n=3)
    gp = FabolasGP("cost").fit_fixed_hypers(X, y, H)
    Xs, _ = _data(40, d, seed=9)
    before = gp.predict_per_sample(Xs)
    fant = gp.fantasize(Xn if k > 1 else Xn[0], yn if k > 1 else float(yn[0]))
    full = FabolasGP("cost").fit_fixed_hypers(np.vstack([X, Xn]), np.concatenate([y, yn]), H)
    mf, vf = fant.predict_per_sample(Xs)
    mr, vr = full.predict_per_sample(Xs)
    np.testing.assert_allclose(mf, mr, rtol=1e-6, atol=1e-9)
    np.testing.assert_allclose(vf, vr, rtol=1e-6, atol=1e-9)
    Z = Xs[:5].copy()
    Z[:, d] = 1.0
    for pf, pr in zip(fant.joint_posteriors(Z, Xs), full.joint_posteriors(Z, Xs)):
        np.testing.assert_allclose(pf.cov_zx, pr.cov_zx, rtol=1e-6, atol=1e-9)
        np.testing.assert_allclose(pf.mean_z, pr.mean_z, rtol=1e-6, atol=1e-9)
    # the original model is untouched
    after = gp.predict_per_sample(Xs)
    np.testing.assert_array_equal(before[0], after[0])
    np.testing.assert_array_equal(before[1], after[1])
    assert gp.X_.shape[0] == 25 and fant.X_.shape[0] == 25 + k


def test_fantasy_at_predicted_mean_shrinks_variance_only_there():
    d = 2
    X, y = _data(20, d, seed=10)
    gp = FabolasGP("loss").fit_fixed_hypers(X, y, _theta(d, seed=11, n=2))
    x = np.array([[0.5, 0.5, 0.25]])
    fant = gp.fantasize(x, gp.predict(x))
    _, v0 = gp.predict_per_sample(x)
    _, v1 = fant.predict_per_sample(x)
    assert np.all(v1 < v0)


# ----------------------------------------------------------------------------------- bad inputs
@pytest.mark.parametrize(
    "kwargs, match",
    [
        (dict(kind="accuracy"), "kind"),
        (dict(n_hypers=7), "even"),
        (dict(n_hypers=0), "n_hypers"),
        (dict(burnin=-1), "burnin"),
        (dict(chain_length=0), "chain_length"),
        (dict(seed="abc"), "seed"),
    ],
)
def test_bad_constructor_arguments(kwargs, match):
    with pytest.raises(ValueError, match=match):
        FabolasGP(**kwargs)


def test_bad_fit_and_predict_arguments():
    X, y = _data(10, 2)
    gp = FabolasGP(burnin=2, chain_length=2, seed=0)
    with pytest.raises(ValueError, match="not fitted"):
        gp.predict(X)
    with pytest.raises(ValueError, match="2-D"):
        gp.fit(X[:, 0], y)
    with pytest.raises(ValueError, match="rows"):
        gp.fit(X, y[:-1])
    Xnan = X.copy()
    Xnan[2, 1] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        gp.fit(Xnan, y)
    Xbig = X.copy()
    Xbig[:, -1] = 60000
    with pytest.raises(ValueError, match=r"s~"):
        gp.fit(Xbig, y)
    with pytest.raises(ValueError, match="n_hypers"):
        FabolasGP(n_hypers=10).fit(X, y)  # d = 2 needs >= 12 walkers
    gp.fit_fixed_hypers(X, y, _theta(2, n=2))
    with pytest.raises(ValueError, match="columns"):
        gp.predict(X[:, 1:])
    with pytest.raises(ValueError, match="hypers"):
        FabolasGP().fit_fixed_hypers(X, y, np.zeros((2, 5)))
    with pytest.raises(ValueError, match="y_new"):
        gp.fantasize(X[:2], [0.1])


def test_fantasy_kernel_rows_shared_with_parent_equal_the_direct_kernel_to_the_bit():
    """A fantasy's k(X_, X) takes its first n rows from its parent's kept block: the same numbers as the
    kernel computed directly on the extended rows (element-wise arithmetic), and its predictions are the
    ones made without the shared block; a refit parent (new samples) is not used."""
    from tt_core.models.fabolas_gp import fabolas_kernel

    d = 3
    X, y = _data(25, d, seed=6)
    H = _theta(d, seed=8, n=4)
    gp = FabolasGP("loss").fit_fixed_hypers(X, y, H)
    Xs, _ = _data(300, d, seed=9)
    f1 = gp.fantasize(Xs[0], 0.3)
    f2 = f1.fantasize(Xs[1], -0.2)  # a fantasy of a fantasy: rows from both ancestors
    for fant in (f1, f2, gp.fantasize(Xs[2], 0.1)):
        direct = fabolas_kernel(fant.X_, Xs, fant.samples_, "loss")
        assert np.array_equal(fant._train_kernel(Xs), direct)
        m, v = fant.predict_per_sample(Xs)
        alone = FabolasGP.__new__(FabolasGP)
        alone.__dict__.update({k: val for k, val in fant.__dict__.items() if k != "_fantasy_base"})
        m0, v0 = alone.predict_per_sample(Xs)
        assert np.array_equal(m, m0) and np.array_equal(v, v0)
    assert gp._kx_memo[2][0] == Xs.shape  # the parent kept its block
    kept = gp._kx_memo[3]
    assert np.array_equal(kept, fabolas_kernel(X, Xs, H, "loss"))
    # the parent refit with other samples: its kept block no longer matches, the fantasy computes its own
    gp.fit_fixed_hypers(X, y, _theta(d, seed=12, n=4))
    assert not np.array_equal(f1._train_kernel(Xs)[:, :25], fabolas_kernel(X, Xs, gp.samples_, "loss"))
    assert np.array_equal(f1._train_kernel(Xs), fabolas_kernel(f1.X_, Xs, f1.samples_, "loss"))


def test_joint_posteriors_leave_the_representer_solve_for_cross_posteriors():
    """Entropy search's set-up (joint_posteriors) and its values (cross_posteriors) solve L^-1 k(X_, Z) for
    the same representers: the second reuses the first's (the same call on the same arrays), and the blocks
    equal the joint posterior's; after a refit the solve is made again."""
    d = 2
    X, y = _data(20, d, seed=3)
    gp = FabolasGP("loss").fit_fixed_hypers(X, y, _theta(d, seed=4, n=3))
    Z, _ = _data(6, d, seed=5)
    Z[:, d] = 1.0
    Xc, _ = _data(9, d, seed=6)
    posts = gp.joint_posteriors(Z, Xc[:1])
    kept = gp._vz_cache[2]
    cov_zx, var_x, _ = gp.cross_posteriors(Z, Xc)
    assert gp._vz_cache[2] is kept
    for i, p in enumerate(posts):
        np.testing.assert_allclose(cov_zx[i][:, :1], p.cov_zx, rtol=1e-12, atol=1e-14)
        np.testing.assert_allclose(var_x[i][:1], p.var_x, rtol=1e-12, atol=1e-14)
    gp.fit_fixed_hypers(X, y, _theta(d, seed=7, n=3))
    gp.cross_posteriors(Z, Xc)
    assert gp._vz_cache[2] is not kept
