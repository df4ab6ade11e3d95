"""Tests of the EI family and of constraint probabilities (paper Eq. 1, spec Sec. 3-4)."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import norm

from tt_core.acquisitions.ei import EI, EIc, expected_improvement, probability_of_constraints
from tt_core.acquisitions.per_cost import LogNormalMeanCost, PerUnitCost
from tt_core.bo.constraints import Constraint, observed_feasible


class FakeModel:
    """Gaussian predictions given as functions of X (log-space target)."""

    def __init__(self, mean_fn, std_fn):
        self.mean_fn, self.std_fn = mean_fn, std_fn

    def predict(self, X, return_std=False):
        X = np.asarray(X, float)
        m = self.mean_fn(X)
        return (m, self.std_fn(X)) if return_std else m


def fake_models():
    loss = FakeModel(lambda X: -1.0 - 2.0 * X[:, 0], lambda X: 0.1 + 0.5 * X[:, 1])
    cost = FakeModel(lambda X: np.log(0.02) + 2.0 * (X[:, 0] - 0.5), lambda X: 0.2 + 0.3 * X[:, -1])
    time_ = FakeModel(lambda X: np.log(600.0) + X[:, 1], lambda X: 0.3 + 0 * X[:, 0])
    return {"loss": loss, "cost": cost, "time": time_}


X = np.random.default_rng(0).random((25, 4))


@pytest.mark.parametrize("mean, std, best", [(0.0, 1.0, 0.0), (-1.2, 0.3, -1.0), (0.5, 2.0, -1.0),
                                             (-3.0, 0.5, -1.0)])
def test_ei_closed_form_vs_monte_carlo(mean, std, best):
    rng = np.random.default_rng(1)
    y = mean + std * rng.standard_normal(2_000_000)
    mc = np.maximum(best - y, 0.0).mean()
    se = np.maximum(best - y, 0.0).std() / np.sqrt(y.size)
    ei = expected_improvement([mean], [std], best)[0]
    assert abs(ei - mc) < 5 * se + 1e-12


def test_ei_known_values_and_zero_std():
    # z = 0: EI = sigma * phi(0)
    np.testing.assert_allclose(expected_improvement([1.0], [2.0], 1.0), [2.0 * norm.pdf(0.0)])
    np.testing.assert_allclose(expected_improvement([0.0, 2.0], [0.0, 0.0], 1.0), [1.0, 0.0])
    # far below best: EI -> best - mean
    np.testing.assert_allclose(expected_improvement([-10.0], [0.1], 0.0), [10.0], rtol=1e-12)
    v = expected_improvement(np.linspace(-2, 2, 9), np.full(9, 0.5), 0.0)
    assert np.all(np.diff(v) < 0)  # lower predicted loss -> larger EI


def test_lognormal_constraint_probability_vs_monte_carlo():
    rng = np.random.default_rng(2)
    mu, sd = np.log(0.02) + 0.3, 0.4
    lc = mu + sd * rng.standard_normal(1_000_000)
    cost = np.exp(lc)
    p = Constraint("cost", upper=0.02).probability([mu], [sd])[0]
    assert abs(p - (cost <= 0.02).mean()) < 3e-3
    np.testing.assert_allclose(p, norm.cdf((np.log(0.02) - mu) / sd), rtol=1e-12)
    p2 = Constraint("cost", upper=0.03, lower=0.015).probability([mu], [sd])[0]
    assert abs(p2 - ((cost <= 0.03) & (cost >= 0.015)).mean()) < 3e-3
    # accuracy constraint on the loss model ln(1 - acc)
    ml, sl = np.log(0.1), 0.5
    loss = ml + sl * rng.standard_normal(1_000_000)
    acc = 1 - np.exp(loss)
    pa = Constraint("accuracy", lower=0.88).probability([ml], [sl])[0]
    assert abs(pa - (acc >= 0.88).mean()) < 3e-3
    pa2 = Constraint("accuracy", lower=0.85, upper=0.92).probability([ml], [sl])[0]
    assert abs(pa2 - ((acc >= 0.85) & (acc <= 0.92)).mean()) < 3e-3


def test_constraint_probability_tails_and_zero_std():
    c = Constraint("time", lower=10.0, upper=20.0)
    # both bounds far in the upper tail: survival-function form keeps precision
    p = c.probability([np.log(1.0)], [0.05])[0]
    assert 0 <= p < 1e-200
    np.testing.assert_allclose(c.probability([np.log(15.0), np.log(30.0)], [0.0, 0.0]), [1.0, 0.0])
    p_hi = Constraint("cost", lower=1.0).probability([np.log(1.0) - 8 * 0.1], [0.1])[0]
    np.testing.assert_allclose(p_hi, norm.sf(8.0), rtol=1e-10)


def test_product_over_independent_constraints_vs_monte_carlo():
    models = fake_models()
    cons = [Constraint("cost", upper=0.02), Constraint("time", upper=900.0), Constraint("accuracy", lower=0.9)]
    preds = {k: m.predict(X, return_std=True) for k, m in models.items()}
    p = probability_of_constraints(preds, cons)
    rng = np.random.default_rng(3)
    n = 400_000
    ok = np.ones((n, len(X)), bool)
    for c in cons:
        mu, sd = preds[c.model]
        draw = mu + sd * rng.standard_normal((n, len(X)))
        q = 1 - np.exp(draw) if c.quantity == "accuracy" else np.exp(draw)
        ok &= c.satisfied(q)
    np.testing.assert_allclose(p, ok.mean(0), atol=4e-3)
    np.testing.assert_allclose(probability_of_constraints(preds, []), 1.0)


def test_eic_and_eic_per_usd_known_answers():
    models = fake_models()
    cons = [Constraint("cost", upper=0.02)]
    mu, sd = models["loss"].predict(X, return_std=True)
    mc, sc = models["cost"].predict(X, return_std=True)
    p = norm.cdf((np.log(0.02) - mc) / sc)
    ei = expected_improvement(mu, sd, -2.0)
    np.testing.assert_allclose(EI(models["loss"], -2.0)(X), ei)
    np.testing.assert_allclose(EIc(models, cons, -2.0)(X), ei * p, rtol=1e-12)
    np.testing.assert_allclose(EIc(models, cons, None)(X), p, rtol=1e-12)  # no feasible observation
    # expected cost of a log-normal: MC check of exp(mu + s^2 / 2)
    acq = PerUnitCost(EIc(models, cons, -2.0), LogNormalMeanCost(models))
    rng = np.random.default_rng(4)
    draws = np.exp(mc[:3] + sc[:3] * rng.standard_normal((400_000, 3))).mean(0)
    np.testing.assert_allclose(acq.cost(X)[:3], draws, rtol=5e-3)
    np.testing.assert_allclose(acq(X), ei * p / np.exp(mc + sc**2 / 2), rtol=1e-12)
    # without constraints EIc == EI
    np.testing.assert_allclose(EIc(models, [], -2.0)(X), ei)


def test_eic_from_observations_uses_best_feasible():
    models = fake_models()
    cons = [Constraint("cost", upper=0.02), Constraint("accuracy", lower=0.5)]
    losses = np.log(1 - np.array([0.95, 0.9, 0.8, 0.3]))
    costs = np.array([0.05, 0.01, 0.015, 0.001])
    np.testing.assert_array_equal(observed_feasible(cons, {"cost": costs}, losses), [False, True, True, False])
    acq = EIc.from_observations(models, cons, losses, {"cost": costs})
    assert acq.best_feasible == pytest.approx(np.log(0.1))
    acq = EIc.from_observations(models, cons, losses[[0, 3]], {"cost": costs[[0, 3]]})
    assert acq.best_feasible is None


@pytest.mark.parametrize("kwargs, match", [
    (dict(quantity="latency", upper=1.0), "unknown constrained quantity"),
    (dict(quantity="cost"), "upper and/or a lower"),
    (dict(quantity="cost", upper=-1.0), "upper must be > 0"),
    (dict(quantity="cost", upper=1.0, lower=2.0), "must not exceed"),
    (dict(quantity="accuracy", lower=1.5), r"\[0, 1\]"),
    (dict(quantity="time", upper=float("nan")), "finite"),
])
def test_constraint_errors(kwargs, match):
    with pytest.raises(ValueError, match=match):
        Constraint(**kwargs)


def test_missing_model_errors():
    models = fake_models()
    only_loss = {"loss": models["loss"]}
    with pytest.raises(ValueError, match="'time' model"):
        EIc(only_loss, [Constraint("time", upper=100.0)], None)
    with pytest.raises(ValueError, match="'cost' model is required"):
        LogNormalMeanCost(only_loss)
    preds = {"loss": models["loss"].predict(X, return_std=True)}
    with pytest.raises(ValueError, match="needs predictions of the 'cost' model"):
        probability_of_constraints(preds, [Constraint("cost", upper=1.0)])
    with pytest.raises(ValueError, match="finite"):
        expected_improvement([0.0], [1.0], np.inf)
    with pytest.raises(ValueError, match="std >= 0"):
        expected_improvement([0.0], [-1.0], 0.0)
