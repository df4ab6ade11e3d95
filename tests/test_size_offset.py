"""SizeOffset: trees model ln(q) - ln(s); predictions add ln(s) back."""

import numpy as np
import pytest

from tt_core.data.benchmarks import load_benchmark
from tt_core.models.size_offset import SizeOffset
from tt_core.models.trees import ExtraTreesEnsemble
from tt_core.data.space import ConfigSpace


def test_offset_round_trip_and_extrapolation_in_size():
    # cost exactly proportional to size: trained at small sizes only, full size is predicted exactly
    rng = np.random.default_rng(0)
    x = rng.uniform(size=(40, 2))
    s_tilde = rng.choice([0.0, 0.25, 0.5], size=40)
    X = np.column_stack([x, s_tilde])
    L = np.log(60.0)
    base = np.log(0.01 + x[:, 0])
    y = base + (s_tilde - 1.0) * L
    model = SizeOffset(ExtraTreesEnsemble(seed=1), L).fit(X, y)
    X_full = np.column_stack([x, np.ones(40)])
    np.testing.assert_allclose(model.predict(X_full), ExtraTreesEnsemble(seed=1).fit(X, y - (s_tilde - 1.0) * L).predict(X_full))
    plain = ExtraTreesEnsemble(seed=1).fit(X, y).predict(X_full)
    assert np.abs(model.predict(X_full) - base).mean() < 0.2 * np.abs(plain - base).mean()


def test_fantasy_and_joint_posteriors_carry_the_offset():
    rng = np.random.default_rng(1)
    X = np.column_stack([rng.uniform(size=(20, 2)), rng.choice([0.0, 1.0], size=20)])
    y = rng.normal(size=20)
    m = SizeOffset(ExtraTreesEnsemble(seed=3), 2.0).fit(X, y)
    x_new, y_new = X[:1] * 0.5, np.array([0.3])
    fant = m.fantasize(x_new, y_new)
    ref = SizeOffset(ExtraTreesEnsemble(seed=3), 2.0).fit(np.vstack([X, x_new]), np.concatenate([y, y_new]))
    np.testing.assert_allclose(fant.predict(X), ref.predict(X))
    Z = X[:5].copy()
    Z[:, -1] = 1.0
    (jp,) = m.joint_posteriors(Z, X[5:9])
    np.testing.assert_allclose(jp.mean_x, m.predict(X[5:9]), atol=1e-9)
    with pytest.raises(ValueError, match="log_size_ratio must be"):
        SizeOffset(ExtraTreesEnsemble(), -1.0)


def test_cost_per_data_fraction_is_nearly_size_invariant_on_real_data():
    """The reason for the offset, checked on the data: ln(cost/s) moves far less with size than ln(cost)."""
    for name in ("cnn", "rnn"):
        t = load_benchmark(name).table
        full = t[t["size"] == t["size"].max()].set_index("config_id")
        for size in sorted(t["size"].unique())[:-1]:
            sub = t[t["size"] == size].set_index("config_id")
            gap_offset = abs((np.log(full.cost / full.s) - np.log(sub.cost / sub.s)).mean())
            gap_plain = abs((np.log(full.cost) - np.log(sub.cost)).mean())
            assert gap_offset < gap_plain
    space = ConfigSpace.from_benchmark(load_benchmark("rnn"))
    assert space.min_size == 1000 and space.max_size == 60000


def test_overhead_offset_is_fitted_and_kept_by_fantasies():
    # cost = c_a x (r + (1 - r) s) with a start-up share r = 0.05: the fit finds r, and the trees then see a
    # size-free target, so the full size is predicted from sub-sampled runs alone
    L, r = np.log(60.0), 0.05
    c = np.array([0.01, 0.02, 0.05])
    s_tilde = np.array([0.0, 0.25, 0.5, 0.75])
    X = np.array([[u, st] for u in (0.0, 0.5, 1.0) for st in s_tilde])
    y = np.log(np.repeat(c, 4) * (r + (1 - r) * np.exp((X[:, 1] - 1.0) * L)))
    m = SizeOffset(ExtraTreesEnsemble(seed=2), L, overhead="fit").fit(X, y)
    assert m.r_ == pytest.approx(0.05)
    np.testing.assert_allclose(m.offset(np.array([[0.0, 0.0], [0.0, 1.0]])), [np.log(0.05 + 0.95 / 60), 0.0])
    np.testing.assert_allclose(m.model.y_, np.log(np.repeat(c, 4)), rtol=1e-12)  # the trees' target: ln c_a
    plain = SizeOffset(ExtraTreesEnsemble(seed=2), L).fit(X, y)
    assert plain.r_ == 0.0  # the default stays proportional, and its target still moves with the size
    # ln c + ln(r / s + 1 - r), from s = 1/60 (s~ = 0) to s = 60^-0.25 (s~ = 0.75)
    assert np.ptp(plain.model.y_[:4]) == pytest.approx(np.log(r * 60 + 1 - r) - np.log(r * 60 ** 0.25 + 1 - r))
    fant = m.fantasize(X[:1], y[:1])
    assert fant.r_ == m.r_ and fant.overhead == m.r_
    # one configuration per size: nothing to fit, proportional offset
    assert m.fit_overhead(X[[0, 5, 10]], y[[0, 5, 10]]) == 0.0
    with pytest.raises(ValueError, match="overhead must be"):
        SizeOffset(ExtraTreesEnsemble(), L, overhead=1.5)


def test_tree_variant_overhead_builds_fitted_cost_models():
    from tt_core.optimizers import make_optimizer

    opt = make_optimizer("trimtuner-dt", load_benchmark("rnn"), seed=1, max_cost=0.02, trees="overhead")
    cost = opt.model_factory("cost", 1, opt.space)
    assert isinstance(cost, SizeOffset) and cost.overhead == "fit"
    assert not isinstance(opt.model_factory("loss", 1, opt.space), SizeOffset)
