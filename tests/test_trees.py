"""Tests of tt_core.models.trees.ExtraTreesEnsemble (paper Sec. III-A)."""

from __future__ import annotations

import numpy as np
import pytest

from tt_core.models.base import JointPosterior
from tt_core.models.trees import ExtraTreesEnsemble


def data(n=44, d=5, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.random((n, d + 1))
    y = np.sin(3 * X[:, 0]) + X[:, 1] ** 2 - 0.5 * X[:, -1] + 0.01 * rng.standard_normal(n)
    return X, y


def test_the_surrogate_contract_with_known_answers():
    # fit returns the model; a constant target is predicted exactly, with no spread between the members (the
    # std is the documented floor min_std)
    X, _ = data(20)
    model = ExtraTreesEnsemble(seed=0, min_std=0.004)
    assert model.fit(X, np.full(20, 0.25)) is model
    mean, std = model.predict(X[:5], return_std=True)
    np.testing.assert_array_equal(mean, 0.25)
    np.testing.assert_array_equal(std, 0.004)


def test_same_seed_same_output_different_seed_differs():
    X, y = data()
    Xt, _ = data(50, seed=1)
    a = ExtraTreesEnsemble(seed=3).fit(X, y).predict_members(Xt)
    b = ExtraTreesEnsemble(seed=3).fit(X, y).predict_members(Xt)
    c = ExtraTreesEnsemble(seed=4).fit(X, y).predict_members(Xt)
    np.testing.assert_array_equal(a, b)
    assert not np.allclose(a, c)
    # a Generator is drawn from once: equal generators give equal models
    g1 = ExtraTreesEnsemble(seed=np.random.default_rng(5)).fit(X, y).predict(Xt)
    g2 = ExtraTreesEnsemble(seed=np.random.default_rng(5)).fit(X, y).predict(Xt)
    np.testing.assert_array_equal(g1, g2)
    # refitting the same object reproduces the fit
    m = ExtraTreesEnsemble(seed=None)
    np.testing.assert_array_equal(m.fit(X, y).predict(Xt), m.fit(X, y).predict(Xt))


def test_mean_and_std_are_member_statistics_with_floor():
    X, y = data()
    Xt, _ = data(30, seed=2)
    m = ExtraTreesEnsemble(n_members=7, n_estimators=3, min_std=0.05, seed=1).fit(X, y)
    P = m.predict_members(Xt)
    assert P.shape == (7, 30)
    mean, std = m.predict(Xt, return_std=True)
    np.testing.assert_allclose(mean, P.mean(axis=0))
    np.testing.assert_allclose(std, np.maximum(np.sqrt(((P - P.mean(0)) ** 2).mean(0)), 0.05))
    np.testing.assert_allclose(m.predict(Xt), mean)
    # members differ (bootstrap + tree randomisation)
    assert np.ptp(P, axis=0).max() > 0


@pytest.mark.parametrize("n_estimators", [1, 3])
def test_prediction_does_not_depend_on_batch(n_estimators):
    # bitwise: a fantasy target one ulp off can change a refit tree
    X, y = data()
    Xt, _ = data(40, seed=6)
    m = ExtraTreesEnsemble(seed=0, n_estimators=n_estimators).fit(X, y)
    mean, std = m.predict(Xt, return_std=True)
    for i in range(len(Xt)):
        mi, si = m.predict(Xt[i:i + 1], return_std=True)
        assert mi[0] == mean[i] and si[0] == std[i]


def test_floor_on_constant_targets():
    X, _ = data()
    m = ExtraTreesEnsemble(min_std=1e-3, seed=0).fit(X, np.full(len(X), 2.5))
    mean, std = m.predict(X[:5], return_std=True)
    np.testing.assert_allclose(mean, 2.5)
    np.testing.assert_allclose(std, 1e-3)


def test_members_are_bootstrap_fits():
    # fully grown trees interpolate their bootstrap sample: a member predicts a training target exactly
    # at the points drawn into its sample, and something else at the points it missed
    X, y = data(12)
    m = ExtraTreesEnsemble(n_members=20, seed=0).fit(X, y)
    P = m.predict_members(X)
    exact = np.isclose(P, y[None, :])
    # P(point in a bootstrap sample of size 12) = 1 - (11/12)^12 ~ 0.65; each point is missed by some member
    assert 0.4 < exact.mean() < 0.9
    assert (~exact).any(axis=0).mean() > 0.5


def test_fantasy_equals_refit_on_augmented_data_and_leaves_self_untouched():
    X, y = data()
    Xt, _ = data(40, seed=3)
    m = ExtraTreesEnsemble(seed=11, n_estimators=2, min_samples_leaf=1).fit(X, y)
    before = m.predict_members(Xt)
    x_new, y_new = Xt[:1], np.array([3.0])
    f = m.fantasize(x_new, y_new)
    ref = ExtraTreesEnsemble(seed=11, n_estimators=2, min_samples_leaf=1).fit(np.vstack([X, x_new]),
                                                                              np.r_[y, y_new])
    np.testing.assert_array_equal(f.predict_members(Xt), ref.predict_members(Xt))
    np.testing.assert_array_equal(m.predict_members(Xt), before)
    assert f is not m and len(m.X_) == 44 and len(f.X_) == 45
    # the fantasy refits: the new point pulls the prediction at x_new towards y_new
    assert f.predict(x_new)[0] > m.predict(x_new)[0]


def test_joint_posteriors_empirical_covariance():
    X, y = data()
    Z, _ = data(15, seed=4)
    Xc, _ = data(9, seed=5)
    m = ExtraTreesEnsemble(seed=2, n_estimators=2, min_std=1e-2).fit(X, y)
    (jp,) = m.joint_posteriors(Z, Xc)
    assert isinstance(jp, JointPosterior)
    P = m.predict_members(np.vstack([Z, Xc]))
    C = np.cov(P, rowvar=False, ddof=0)
    jit = 1e-4
    np.testing.assert_allclose(jp.mean_z, P[:, :15].mean(0))
    np.testing.assert_allclose(jp.mean_x, P[:, 15:].mean(0))
    np.testing.assert_allclose(jp.cov_zz, C[:15, :15] + jit * np.eye(15), atol=1e-12)
    np.testing.assert_allclose(jp.cov_zx, C[:15, 15:], atol=1e-12)
    np.testing.assert_allclose(jp.var_x, np.diag(C)[15:] + jit, atol=1e-12)
    assert jp.noise_var == 0.0
    assert np.linalg.eigvalsh(jp.cov_zz).min() >= 0.99 * jit  # rank <= 9 but jittered to PD


def test_errors():
    X, y = data()
    with pytest.raises(ValueError, match="n_members"):
        ExtraTreesEnsemble(n_members=1)
    with pytest.raises(ValueError, match="n_estimators"):
        ExtraTreesEnsemble(n_estimators=0)
    with pytest.raises(ValueError, match="min_std"):
        ExtraTreesEnsemble(min_std=-1)
    with pytest.raises(ValueError, match="random_state"):
        ExtraTreesEnsemble(random_state=3)
    with pytest.raises(ValueError, match="valid ones"):
        ExtraTreesEnsemble(n_trees=3)
    with pytest.raises(ValueError, match="seed"):
        ExtraTreesEnsemble(seed="abc")
    with pytest.raises(ValueError, match="not fitted"):
        ExtraTreesEnsemble(seed=0).predict(X)
    m = ExtraTreesEnsemble(seed=0).fit(X, y)
    with pytest.raises(ValueError, match="columns"):
        m.predict(X[:, :3])
    with pytest.raises(ValueError, match="must match|rows"):
        m.fit(X, y[:3])
    with pytest.raises(ValueError, match="NaN"):
        m.fantasize(X[:1], [np.nan])



# ------------------------------------------------------------------ the first-draw shortcut of tree seeds
def test_first_draw_gives_the_trees_of_a_seeded_random_state():
    """Each tree fitted through _FirstDraw equals scikit-learn's tree with random_state=seed (an int: a fresh
    RandomState), node for node, for several seeds and tree settings."""
    from sklearn.tree import ExtraTreeRegressor

    from tt_core.models import trees as T

    rng = np.random.default_rng(7)
    X = np.ascontiguousarray(rng.uniform(size=(40, 5)), dtype=np.float32)
    y = rng.normal(size=40)
    for kwargs in ({}, {"max_depth": 3}, {"min_samples_leaf": 3}, {"max_features": 2}):
        for seed in (0, 1, 17, 2**31 - 2):
            ref = ExtraTreeRegressor(random_state=seed, **kwargs).fit(X, y)
            fd = T._FirstDraw()
            fd.value = T._first_draw(seed)
            new = ExtraTreeRegressor(random_state=fd, **kwargs).fit(X, y)
            assert T._same_tree(ref, new) and not fd.misused and fd.value is None
            assert np.array_equal(ref.predict(X), new.predict(X))


def test_first_draw_records_any_other_draw():
    from tt_core.models import trees as T

    fd = T._FirstDraw()
    fd.value = 5
    assert fd.randint(0, T._RAND_R_MAX) == 5 and not fd.misused
    fd.randint(0, T._RAND_R_MAX)  # a second draw: not answered from the cache
    assert fd.misused
    fd2 = T._FirstDraw()
    fd2.value = 5
    fd2.random_sample()
    assert fd2.misused


def test_a_draw_the_shortcut_cannot_answer_falls_back_to_the_seeded_state(monkeypatch):
    """A scikit-learn that drew more than the splitter's seed: the tree is refit from the seed's state and the
    shortcut is switched off, so the ensemble equals the one fitted without the shortcut."""
    from sklearn.tree import ExtraTreeRegressor

    from tt_core.models import trees as T

    rng = np.random.default_rng(3)
    X, y = rng.uniform(size=(25, 4)), rng.normal(size=25)
    monkeypatch.setattr(T, "_FIRST_DRAW_OK", [False])
    plain = T.ExtraTreesEnsemble(seed=4).fit(X, y).predict_members(X)

    class DrawsTwice(ExtraTreeRegressor):
        def fit(self, X, y, *a, **kw):
            if isinstance(self.random_state, T._FirstDraw):
                self.random_state.randint(0, T._RAND_R_MAX)  # the cached seed taken: the splitter draws again
            return super().fit(X, y, *a, **kw)

    monkeypatch.setattr(T, "ExtraTreeRegressor", DrawsTwice)
    monkeypatch.setattr(T, "_FIRST_DRAW_OK", [True])
    fell_back = T.ExtraTreesEnsemble(seed=4).fit(X, y).predict_members(X)
    assert T._FIRST_DRAW_OK[0] is False
    assert np.array_equal(plain, fell_back)


def test_bootstrap_draws_are_the_seed_s_stream_drawn_once():
    # every fit restarts the seed's stream: per member, n indices in [0, n) then the member's tree seeds
    from tt_core.models.trees import _draws

    ss = np.random.SeedSequence(7, spawn_key=(1,))
    draws = _draws(ss, 12, 3, 2)
    rng = np.random.default_rng(np.random.SeedSequence(7, spawn_key=(1,)))
    for idx, seeds in draws:
        np.testing.assert_array_equal(idx, rng.integers(0, 12, size=12))
        assert seeds == rng.integers(0, 2**31 - 1, size=2).tolist()
        assert not idx.flags.writeable
    assert _draws(np.random.SeedSequence(7, spawn_key=(1,)), 12, 3, 2) is draws  # an equal seed: drawn once
    other = _draws(np.random.SeedSequence(7, spawn_key=(2,)), 12, 3, 2)        # another child of the seed
    assert not np.array_equal(other[0][0], draws[0][0])
