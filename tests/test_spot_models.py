"""SpotTune models: revocation predictors (hand-counted windows, Eq. 3 against the generating probability,
Alg. 2 on a hand case) and EarlyCurve (Eqs. 4-7: a generated two-stage curve's parameters recovered)."""

from __future__ import annotations

import numpy as np
import pytest

from tt_spotsim import earlycurve as E
from tt_spotsim import market, traces, revocation as R
from tt_spotsim.catalogue import SpotError
from tt_spotsim.traces import PriceTrace


def periodic_trace(hours=48):
    """Price 1.0 for 50 minutes then 2.0 for 10 minutes, every hour."""
    one = np.r_[np.ones(50), 2 * np.ones(10)]
    return PriceTrace(traces.TRACE_START, {"r4.large": np.tile(one, hours) * 0.1})


def test_forward_max_is_the_max_of_the_next_59_minutes():
    p = np.arange(200, dtype=float)[::-1]      # decreasing: the max ahead is the next minute's
    fm = R.forward_max(p)
    assert fm[0] == 198 and fm[140] == 58 and np.isnan(fm[141])
    p = np.zeros(200)
    p[100] = 5
    fm = R.forward_max(p)
    assert fm[41] == 5 and fm[40] == 0 and fm[99] == 5 and fm[100] == 0


def test_empirical_predictor_counts_the_windows():
    tr = periodic_trace()
    pred = R.EmpiricalPredictor().fit(tr)
    # a bid 50 % above a price of 0.1: crossed from each of the 50 low minutes of an hour, never from the 10 high ones
    assert pred.probability("r4.large", 0.15, 0.0) == pytest.approx(50 / 60, abs=1e-9)
    assert pred.probability("r4.large", 0.2, 0.0) == 0.0          # 2.0 > 2.0 is false
    assert pred.probability("r4.large", 0.3, 55 * 60.0) == pytest.approx(50 / 60)   # relative: 0.3 is +50 % of 0.2
    with pytest.raises(SpotError, match="fitted without type 'm4.4xlarge'"):
        pred.probability("m4.4xlarge", 1.0, 0.0)


def test_eq3_calibration_recovers_the_generating_probability():
    """Weighted logistic regression (positives weight N, negatives P) then Eq. 3 = the true P(y | x)."""
    from sklearn.linear_model import LogisticRegression

    rng = np.random.default_rng(0)
    x = rng.standard_normal(200_000)
    true = 1 / (1 + np.exp(-(-3.0 + 1.2 * x)))
    y = rng.random(len(x)) < true
    P = y.mean()
    m = LogisticRegression(class_weight={1: 1 - P, 0: P}, C=1e6).fit(x[:, None], y)
    grid = np.array([-1.0, 0.0, 1.0, 2.0])
    o = m.predict_proba(grid[:, None])[:, 1]
    assert np.all(np.abs(o - 1 / (1 + np.exp(-(-3.0 + 1.2 * grid)))) > 0.1)      # uncalibrated: far off
    np.testing.assert_allclose(R.calibrate(o, P), 1 / (1 + np.exp(-(-3.0 + 1.2 * grid))), atol=0.01)
    assert R.calibrate(0.5, 0.2) == pytest.approx(0.2) and R.calibrate(1.0, 0.2) == 1.0 and R.calibrate(0.0, 0.2) == 0.0


def test_algorithm2_margin_is_the_trimmed_mean_variation_of_the_past_hour():
    p = np.full(200, 1.0)
    for m, step in zip((100, 110, 120, 130, 140), (0.1, 0.5, 0.2, 0.4, 0.3)):
        p[m:] += step if m % 20 == 0 else -step
    # changes 0.1, 0.5, 0.2, 0.4, 0.3 -> drop the smallest and the largest (20 % of 5 = 1 each) -> 0.3
    assert R.algorithm2_margins(p, np.array([150]))[0] == pytest.approx(0.3)
    assert R.algorithm2_margins(p, np.array([50]))[0] == R.TICK                     # no change in that hour
    assert R.algorithm2_margins(p, np.array([199]))[0] == pytest.approx(0.3)        # only the change at minute 140 is left in the hour


def test_six_features_on_a_hand_trace():
    p = np.r_[np.full(30, 1.0), np.full(40, 2.0), np.full(10, 3.0)] * 0.01
    f = R.features(PriceTrace(traces.TRACE_START, {"r4.large": p}), "r4.large")
    row = f.iloc[75]        # minutes 16..75: 14 x 1, 40 x 2, 6 x 3 (cents)
    assert row["price"] == pytest.approx(0.03)
    assert row["mean_price_hour"] == pytest.approx((14 * 1 + 40 * 2 + 6 * 3) / 60 * 0.01)
    assert row["changes_hour"] == 2 and row["minutes_since_change"] == 5
    assert row["workday"] == 1.0 and row["hour_of_day"] == 1.0        # 2017-04-26 was a Wednesday; minute 75 = 01:15


def test_predictors_share_one_interface_that_an_lstm_can_join():
    class LSTMLike:
        name = "lstm"

        def fit(self, trace, until=None):
            return self

        def probability(self, name, bid, t):
            return 0.5

    tr = market.synthetic_market(3, days=3)
    for p in (R.EmpiricalPredictor(), R.LogisticPredictor(), R.HazardPredictor({"r4.large": 0.1}), LSTMLike()):
        assert isinstance(p, R.RevocationPredictor)
        assert 0.0 <= p.fit(tr, until=2 * 86400).probability("r4.large", 0.03, 2.5 * 86400) <= 1.0
    assert R.HazardPredictor({"r4.large": 0.1}).probability("r4.large", 0, 0) == pytest.approx(1 - np.exp(-0.1))
    with pytest.raises(SpotError, match=r"unknown revocation predictor 'lstm'; known: \['empirical', 'logistic'\]"):
        R.make_predictor("lstm")


def test_logistic_predictor_learns_the_market():
    """On a seeded synthetic market the logistic model beats the base rate out of sample, and a higher bid
    is less likely to be crossed."""
    tr = market.synthetic_market(5, types=["r4.large", "r3.xlarge"], days=8)
    pred = R.LogisticPredictor().fit(tr, until=6 * 86400)
    ev = R.evaluate(pred, tr, 6 * 86400, 8 * 86400)
    base = np.maximum(ev["positive_rate"], 1 - ev["positive_rate"])
    assert (ev["accuracy"] > base).all()
    t = 7 * 86400.0
    p = tr.price_at("r4.large", t)
    probs = [pred.probability("r4.large", p * (1 + m), t) for m in (0.0, 0.05, 0.2, 1.0)]
    assert probs == sorted(probs, reverse=True) and probs[-1] < 0.05


def two_stage(n1=60, n2=40):
    k = np.arange(1, n1 + 1)
    j = np.arange(1, n2 + 1)
    return np.r_[1 / (0.02 * k + 1) + 0.5, 1 / (0.001 * j ** 2 + 0.05 * j + 4) + 0.1]


def test_eq7_finds_the_new_stage():
    m = two_stage()
    assert E.stage_starts(m) == [0, 60]
    d = E.change_rates(m)
    assert d[60] == pytest.approx(abs(m[60] - m[59]) / m[59]) and d[60] > 0.5 and np.all(d[55:60] < 0.01)
    noisy = m.copy()
    noisy[57] *= 1.05         # one non-calm step among the five before: no new stage
    assert E.stage_starts(noisy) == [0]


def test_earlycurve_recovers_a_generated_two_stage_curve():
    fit = E.fit_earlycurve(two_stage())
    assert fit.starts == (0, 60)
    np.testing.assert_allclose(fit.betas[0], [0.0, 0.02, 1.0, 0.5], atol=2e-4)
    np.testing.assert_allclose(fit.betas[1], [0.001, 0.05, 4.0, 0.1], rtol=1e-3, atol=1e-6)
    # predicted final metric from 80 % of the steps = the curve's own value at step 100
    part = E.fit_earlycurve(two_stage()[:80])
    assert part.final(100) == pytest.approx(1 / (0.001 * 1600 + 0.05 * 40 + 4) + 0.1, rel=1e-6)
    single = E.fit_single_stage(two_stage()[:80]).final(100)
    assert abs(single - two_stage()[-1]) > 50 * abs(part.final(100) - two_stage()[-1])


def test_single_stage_equals_earlycurve_on_a_one_stage_curve():
    k = np.arange(1, 81)
    m = 1 / (0.03 * k + 2) + 0.2
    a, b = E.fit_earlycurve(m[:56]), E.fit_single_stage(m[:56])
    assert a.n_stages == 1 and a.final(80) == pytest.approx(b.final(80)) == pytest.approx(m[-1], rel=1e-6)


def test_theta_topk_and_plateau_rules():
    assert E.theta_steps(0.7, 1000) == 700 and E.theta_steps(0.7, 75) == 53 and E.theta_steps(1.0, 75) == 75
    for bad in (0, 1.5, -0.1, float("nan")):
        with pytest.raises(SpotError, match=r"theta must lie in \(0, 1\]"):
            E.theta_steps(bad, 10)
    assert list(E.select_top_k([0.3, 0.1, 0.2, 0.1], 3)) == [1, 3, 2]
    with pytest.raises(SpotError, match=r"k must lie in \[1, 4\]"):
        E.select_top_k([0.3, 0.1, 0.2, 0.1], 5)
    m = np.r_[np.linspace(1.0, 0.5, 30), np.full(70, 0.5)]
    # window 10 steps: halves of 5; the last half-window before step k differs from the one before it
    # until both lie in the flat part: k - 10 >= 29 -> first k = 39 (0-based 29 is the first 0.5)
    assert E.plateau_step(m, 100, window=0.1, tol=1e-3) == 39
    assert E.plateau_step(two_stage(), 100) is None
    with pytest.raises(SpotError, match="use 1 - accuracy"):
        E.fit_earlycurve([-0.1, 0.2, 0.3])
