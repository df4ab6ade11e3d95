"""Tests of entropy search and information gain per cost (spec Sec. 2.1, 2.3, 2.4)."""

import numpy as np
import pytest

import tt_core.acquisitions.entropy_search as es_module
from tt_core.acquisitions.entropy_search import (
    EntropySearch,
    InformationGainPerCost,
    innovation_nodes,
    sample_representers,
)
from tt_core.acquisitions.epmgp import log_pmin
from tt_core.models.base import JointPosterior
from tt_core.models.fabolas_gp import FabolasGP

D = 2
HYPERS = np.array(
    [
        [0.0, -2.5, -2.0, 0.0, -1.0, -6.0],
        [0.3, -2.0, -2.5, -0.5, -0.5, -5.0],
        [-0.2, -3.0, -1.5, 0.2, -1.5, -7.0],
    ]
)


def _data(n=15, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.uniform(size=(n, D + 1))
    X[:, D] = rng.choice([0.0, 0.5, 1.0], size=n)
    y = np.log(0.05 + 0.5 * np.sum((X[:, :D] - 0.3) ** 2, axis=1) * (1 + (1 - X[:, D]) ** 2))
    return X, y + 0.01 * rng.standard_normal(n)


def _pool(m=7):
    g = np.linspace(0, 1, m)
    return np.array([[a, b, 1.0] for a in g for b in g])


@pytest.fixture(scope="module")
def loss_gp():
    X, y = _data()
    return FabolasGP("loss").fit_fixed_hypers(X, y, HYPERS)


@pytest.fixture(scope="module")
def cost_gp():
    X, _ = _data()
    c = np.log(1 + 5 * X[:, D] ** 1.5 + X[:, 0])
    return FabolasGP("cost").fit_fixed_hypers(X, c, HYPERS - np.array([0, 0, 0, 0, 0, 1.0]))


class PriorGP:
    """A noise-free-data GP prior on the configuration columns (test double with exact posteriors)."""

    def __init__(self, ls=0.1, noise_var=1e-2, mean=None):
        self.ls, self.noise_var, self.mean = ls, noise_var, mean

    def _k(self, A, B):
        return np.exp(-0.5 * np.sum((A[:, None, :-1] - B[None, :, :-1]) ** 2, axis=-1) / self.ls**2)

    def _m(self, A):
        return np.zeros(len(A)) if self.mean is None else self.mean(A)

    def joint_posteriors(self, Z, X):
        return [
            JointPosterior(
                mean_z=self._m(Z), cov_zz=self._k(Z, Z) + 1e-10 * np.eye(len(Z)), cov_zx=self._k(Z, X),
                mean_x=self._m(X), var_x=np.ones(len(X)), noise_var=self.noise_var,
            )
        ]


# ----------------------------------------------------------------------------------- representers
def test_sample_representers_uniform_distinct_and_reproducible():
    pool = _pool()
    pool_dup = np.vstack([pool, pool[:5]])
    Z, lam = sample_representers(pool_dup, np.random.default_rng(3), n=20)
    Z2, lam2 = sample_representers(pool_dup, np.random.default_rng(3), n=20)
    np.testing.assert_array_equal(Z, Z2)
    np.testing.assert_array_equal(lam, lam2)
    assert Z.shape == (20, D + 1)
    assert len(np.unique(Z, axis=0)) == 20
    assert all(any(np.array_equal(z, p) for p in pool) for z in Z)
    np.testing.assert_allclose(lam, -np.log(len(pool)))  # duplicates counted once
    Zall, lam_all = sample_representers(pool, 0, n=500)
    assert len(Zall) == len(pool)


def test_sample_representers_weighted():
    pool = _pool(4)
    lw = np.full(len(pool), -np.inf)
    lw[[1, 5, 7]] = [0.0, np.log(2.0), np.log(3.0)]
    Z, lam = sample_representers(pool, 1, n=10, log_weights=lw)
    assert len(Z) == 3  # only three points have positive weight
    got = {tuple(z): l for z, l in zip(Z, lam)}
    for i, q in zip([1, 5, 7], [1 / 6, 2 / 6, 3 / 6]):
        assert got[tuple(pool[i])] == pytest.approx(np.log(q))


@pytest.mark.parametrize(
    "kwargs, match",
    [
        (dict(pool=np.column_stack([np.zeros(5), np.full(5, 0.5)])), "s~"),
        (dict(n=0), "n "),
        (dict(log_weights=np.zeros(3)), "log_weights"),
        (dict(pool=np.zeros(4)), "2-D"),
    ],
)
def test_sample_representers_bad_arguments(kwargs, match):
    args = dict(pool=_pool(3), rng=0, n=5)
    args.update(kwargs)
    with pytest.raises(ValueError, match=match):
        sample_representers(**args)


# ------------------------------------------------------------------------------- entropy search
def test_nodes():
    w = innovation_nodes(400)
    assert w.shape == (400,) and np.all(np.diff(w) > 0)
    np.testing.assert_allclose(w, -w[::-1], atol=1e-12)
    assert w[-1] == pytest.approx(2.80784, abs=1e-4)  # Phi^-1(400 / 401)


def test_values_nonnegative_and_deterministic(loss_gp):
    Z, lam = sample_representers(_pool(), np.random.default_rng(0), n=20)
    es = EntropySearch(loss_gp, Z, lam)
    rng = np.random.default_rng(1)
    cand = np.column_stack([rng.uniform(size=(60, D)), rng.choice([0.0, 0.5, 1.0], size=60)])
    v = es(cand)
    assert v.shape == (60,)
    assert np.all(v >= -1e-10)
    assert v.max() > 1e-3
    np.testing.assert_array_equal(v, EntropySearch(loss_gp, Z, lam)(cand))
    np.testing.assert_allclose(v, es.per_sample(cand).mean(axis=0))


def test_uncorrelated_candidate_has_zero_value_and_informative_one_is_larger():
    # prior GP whose minimum is likely near x = (0.3, 0.3): representers on a grid
    model = PriorGP(ls=0.15, mean=lambda A: 3.0 * np.sum((A[:, :-1] - 0.3) ** 2, axis=1))
    Z = _pool(5)
    es = EntropySearch(model, Z, np.full(len(Z), -np.log(len(Z))))
    best = Z[np.argmax(es.logp_[0])]
    cand = np.array([best, [5.0, 5.0, 1.0], [1.0, 1.0, 1.0]])
    v = es(cand)
    assert abs(v[1]) < 1e-12  # no covariance with the representers: no information
    assert v[0] > v[2] > 0  # observing near the likely optimum is most informative


def test_full_size_is_more_informative_than_small_size(loss_gp):
    # loss kernel: covariance with s~ = 1 does not depend on s~, but small s~ adds variance
    Z, lam = sample_representers(_pool(), np.random.default_rng(2), n=20)
    es = EntropySearch(loss_gp, Z, lam)
    x = np.array([[0.3, 0.35, s] for s in (0.0, 0.5, 1.0)])
    v = es(x)
    assert v[0] < v[1] < v[2]


def test_closed_form_equals_spec_general_formula(loss_gp):
    """ln p' = ln p + <S~, dSigma> + 0.5 L^T H~ L + (g~^T L) omega with dSigma = -L L^T (spec Sec. 2.3)."""
    Z, lam = sample_representers(_pool(), np.random.default_rng(4), n=12)
    es = EntropySearch(loss_gp, Z, lam, n_innovations=50)
    rng = np.random.default_rng(5)
    cand = np.column_stack([rng.uniform(size=(7, D)), rng.choice([0.0, 0.5, 1.0], size=7)])
    values = es.per_sample(cand)
    for i, post in enumerate(loss_gp.joint_posteriors(Z, cand)):
        logp, d1, d2, dS = log_pmin(post.mean_z, post.cov_zz)
        h0 = -np.sum(np.exp(logp) * (logp + lam))
        for c in range(len(cand)):
            L = post.cov_zx[:, c] / np.sqrt(post.var_x[c] + post.noise_var)
            dSigma = -np.outer(L, L)
            det = logp + np.einsum("kij,ij->k", dS, dSigma) + 0.5 * np.einsum("i,kij,j->k", L, d2, L)
            lp = det[:, None] + (d1 @ L)[:, None] * es.omega[None, :]
            lp -= np.log(np.sum(np.exp(lp), axis=0))[None, :]
            h = -np.sum(np.exp(lp) * (lp + lam[:, None]), axis=0)
            assert values[i, c] == pytest.approx(h0 - h.mean(), rel=1e-8, abs=1e-12)


def test_close_to_brute_force_exact_update():
    """Linearised ES vs re-running EPMGP on the exactly updated Gaussian for every innovation node.

    The spec's (and the originals') second-order expansion of ln p_min is accurate for weakly
    informative observations (here noise variance 2 against prior variance 1); for very informative
    ones it underestimates the gain (about -45 % at noise variance 0.05 in this toy problem).
    """
    model = PriorGP(ls=0.3, noise_var=2.0, mean=lambda A: 2.0 * np.sum((A[:, :-1] - 0.4) ** 2, axis=1))
    Z = _pool(3)[[0, 2, 4, 5, 6, 8]]
    lam = np.full(len(Z), -np.log(9.0))
    es = EntropySearch(model, Z, lam, n_innovations=20)
    cand = np.array([[0.4, 0.4, 1.0], [0.1, 0.9, 1.0], [0.9, 0.2, 1.0], [0.6, 0.6, 1.0]])
    v = es(cand)
    post = model.joint_posteriors(Z, cand)[0]
    lp0 = log_pmin(post.mean_z, post.cov_zz)[0]
    h0 = -np.sum(np.exp(lp0) * (lp0 + lam))
    ref = []
    for c in range(len(cand)):
        L = post.cov_zx[:, c] / np.sqrt(post.var_x[c] + post.noise_var)
        hs = []
        for w in es.omega:
            lp = log_pmin(post.mean_z + L * w, post.cov_zz - np.outer(L, L))[0]
            hs.append(-np.sum(np.exp(lp) * (lp + lam)))
        ref.append(h0 - np.mean(hs))
    np.testing.assert_allclose(v, ref, rtol=0.25)
    assert np.array_equal(np.argsort(v), np.argsort(ref))


def test_pmin_computed_once(loss_gp, monkeypatch):
    calls = []
    orig = es_module.log_pmin_first_order

    def counting(mu, S):
        calls.append(1)
        return orig(mu, S)

    monkeypatch.setattr(es_module, "log_pmin_first_order", counting)
    Z, lam = sample_representers(_pool(), np.random.default_rng(0), n=10)
    es = EntropySearch(loss_gp, Z, lam, n_innovations=20)
    assert len(calls) == loss_gp.n_samples
    es(np.array([[0.2, 0.2, 0.5]]))
    es(np.array([[0.7, 0.2, 1.0]]))
    assert len(calls) == loss_gp.n_samples


def test_entropy_search_bad_arguments(loss_gp):
    Z, lam = sample_representers(_pool(), np.random.default_rng(0), n=5)
    Zs = Z.copy()
    Zs[:, -1] = 0.5
    with pytest.raises(ValueError, match="s~"):
        EntropySearch(loss_gp, Zs, lam)
    with pytest.raises(ValueError, match="lambdas"):
        EntropySearch(loss_gp, Z, lam[:-1])
    with pytest.raises(ValueError, match="n_innovations"):
        EntropySearch(loss_gp, Z, lam, n_innovations=0)
    with pytest.raises(ValueError, match="joint_posteriors"):
        EntropySearch(object(), Z, lam)
    es = EntropySearch(loss_gp, Z, lam, n_innovations=10)
    with pytest.raises(ValueError, match="columns"):
        es(np.zeros((3, D + 2)))
    with pytest.raises(ValueError, match="EntropySearch"):
        InformationGainPerCost(lambda X: X, loss_gp)


# ----------------------------------------------------------------------------- per unit cost
def test_information_gain_per_cost_pairs_samples(loss_gp, cost_gp):
    Z, lam = sample_representers(_pool(), np.random.default_rng(0), n=15)
    es = EntropySearch(loss_gp, Z, lam, n_innovations=100)
    rng = np.random.default_rng(6)
    cand = np.column_stack([rng.uniform(size=(20, D)), rng.choice([0.0, 0.5, 1.0], size=20)])
    per = es.per_sample(cand)
    mu_c, _ = cost_gp.predict_per_sample(cand)
    expected = np.mean(per / np.exp(mu_c), axis=0)  # spec Sec. 2.4: mean_i ES_i / exp(mu_c,i)
    np.testing.assert_allclose(InformationGainPerCost(es, cost_gp)(cand), expected, rtol=1e-12)

    class MeanOnly:
        def predict(self, X, return_std=False):
            return cost_gp.predict(X)

    np.testing.assert_allclose(
        InformationGainPerCost(es, MeanOnly())(cand), per.mean(0) / np.exp(cost_gp.predict(cand)), rtol=1e-12
    )
