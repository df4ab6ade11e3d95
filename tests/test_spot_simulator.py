"""SpotTune provisioner (Eqs. 1-2) and simulator: hand-made traces with known timelines and bills,
conservation of steps and dollars, the baselines, seeds and bad inputs."""

from __future__ import annotations

import math

import numpy as np
import pytest

from tt_spotsim import market, traces, simulator as S, workloads as W
from tt_spotsim.catalogue import SpotError
from tt_spotsim.traces import PriceTrace
from tt_spotsim.provisioner import Provisioner, SpeedTable, expected_hour_cost, step_cost
from tt_spotsim.rules import Rules


class Constant:
    """A revocation predictor with fixed probabilities per type (the RevocationPredictor interface)."""

    name = "constant"

    def __init__(self, p):
        self.p = p

    def fit(self, trace, until=None):
        return self

    def probability(self, name, bid, t):
        return self.p.get(name, 0.0)


def hand_trace(**prices):
    return PriceTrace(traces.TRACE_START, {k.replace("_", "."): np.asarray(v, float) for k, v in prices.items()})


def one_job(steps=100, sps=60.0, model_mb=0.0, types=("r4.large",)):
    return W.job_set("toy", [np.linspace(1.0, 0.5, steps)], {t: sps for t in types}, model_mb=model_mb)


def settings(**kw):
    base = dict(predictor=Constant({}), bid=0.0, start_s=0.0, fit_days=1 / 1440, startup_s=60.0, k=1)
    base.update(kw)
    return S.Settings(**base)


# ---------------------------------------------------------------- provisioner (Eqs. 1-2)
def test_eq1_eq2_on_hand_numbers():
    assert expected_hour_cost(0.8, 0.05) == pytest.approx(0.01)
    assert step_cost(0.01, 100) == pytest.approx(0.01 * 100 / 3600)


def test_provisioner_argmin_on_a_two_type_toy():
    tr = hand_trace(r4_large=[0.05] * 120, m4_4xlarge=[0.2] * 120)
    prov = Provisioner(tr, Constant({"r4.large": 0.8, "m4.4xlarge": 0.1}), ["r4.large", "m4.4xlarge"], bid=0.0)
    prov.speeds.update(0, "r4.large", 100.0)
    prov.speeds.update(0, "m4.4xlarge", 20.0)
    c = prov.choose(0, 3600.0)
    # r4.large: (1 - 0.8) * 0.05 / 3600 * 100 = 2.78e-4; m4.4xlarge: 0.9 * 0.2 / 3600 * 20 = 1.0e-3
    assert c.type == "r4.large"
    assert c.table["r4.large"]["step_cost"] == pytest.approx(0.2 * 0.05 * 100 / 3600)
    assert c.table["m4.4xlarge"]["step_cost"] == pytest.approx(0.9 * 0.2 * 20 / 3600)
    prov.predictor = Constant({"r4.large": 0.0, "m4.4xlarge": 0.1})      # r4.large: 1.39e-3 > 1.0e-3
    assert prov.choose(0, 3600.0).type == "m4.4xlarge"


def test_speed_table_starts_from_vcpus_and_learns_online():
    sp = SpeedTable(["r4.large", "m4.2xlarge", "m4.4xlarge"])
    assert sp.estimate(0, "r4.large") / sp.estimate(0, "m4.4xlarge") == pytest.approx(8.0)   # 16 / 2 vCPUs
    sp.update(0, "m4.2xlarge", 30.0)                 # 240 vCPU-seconds per step
    assert sp.estimate(0, "m4.2xlarge") == 30.0 and sp.estimate(0, "r4.large") == pytest.approx(120.0)
    assert sp.estimate(1, "r4.large") == pytest.approx(0.5)    # another job: nothing observed yet


# ---------------------------------------------------------------- simulator known answers
def test_first_bid_crossing_gives_a_120s_notice_and_a_free_first_hour():
    tr = hand_trace(r4_large=[0.10] * 37 + [0.50] * 200)
    res = S.simulate(one_job(100), tr, "spottune-1.0", settings(), seed=1)
    first = res.timeline.iloc[0]
    assert first["reason"] == "revoked" and first["end"] == 39 * 60      # notice at 37 min + 120 s
    assert first["steps_kept"] == 36                                   # ready at 60 s, 60 s a step, notice at 2220 s
    assert first["charged"] == 0.0 and first["refunded"] == pytest.approx(37 * 0.1 / 60 + 2 * 0.5 / 60)
    second = res.timeline.iloc[1]
    assert second["launch"] == 37 * 60                                  # re-deployed when the checkpoint is done
    assert res.summary["steps_total"] == 100 and res.summary["steps_free"] == 36


def test_hourly_redeployment_and_the_bill_of_an_hour_and_more():
    tr = hand_trace(r4_large=[0.12] * 300)
    res = S.simulate(one_job(100), tr, "spottune-1.0", settings(), seed=1)
    tl = res.timeline
    assert list(tl["reason"]) == ["hourly", "finished"]
    assert tl["steps_kept"].tolist() == [59, 41]                         # ready at 60 s: 59 steps by the hour
    assert tl["end"].tolist() == [3600.0, 3600.0 + 60 + 41 * 60]
    assert res.summary["charged"] == pytest.approx(6120 / 3600 * 0.12) and res.summary["refunded"] == 0.0
    assert res.summary["jct_s"] == pytest.approx(6120.0)


def test_hourly_billing_stops_before_the_hour_boundary():
    """aws-2017 (each started hour charged): 70 s steps, ready at 60 s; the hour holds 50 steps (3560 s), the
    51st would end at 3630 s and start a second hour. Two deployments of 50 steps, one hour each."""
    tr = hand_trace(r4_large=[0.12] * 300)
    res = S.simulate(one_job(100, sps=70.0), tr, "spottune-1.0", settings(rules="aws-2017"), seed=1)
    tl = res.timeline
    assert tl["steps_kept"].tolist() == [50, 50] and list(tl["reason"]) == ["hourly", "finished"]
    assert tl["end"].tolist() == [3560.0, 3560.0 + 60 + 50 * 70]
    assert res.summary["charged"] == pytest.approx(2 * 0.12)        # two started hours, not three
    # per-second billing keeps the paper's rule: the first step boundary after the hour (51 steps, 3630 s)
    per_s = S.simulate(one_job(100, sps=70.0), tr, "spottune-1.0", settings(), seed=1).timeline
    assert per_s["steps_kept"].tolist()[0] == 51 and per_s["end"].iloc[0] == 3630.0


def test_hourly_billing_stop_counts_the_checkpoint_and_saves_an_hour():
    """aws-2017 with a 100 s checkpoint (r4.large, 2 vCPUs: 80.6775 MB/s; 8067.75 MB), 60 s steps, ready at
    60 s. The stop must leave room for the checkpoint: 57 steps end at 3480 s, the checkpoint at 3580 s
    (58 steps would end it at 3640 s, in a second hour). Second deployment: launched at 3580 s, restore
    100 s + start-up 60 s, 43 steps, checkpoint: ends at 6420 s, 2840 s long, one hour. Two hours in all.
    The paper's per-second stopping point (59 steps, the checkpoint ending at 3700 s) would pay two hours for
    the first deployment alone (hand bill below), three in all."""
    tr = hand_trace(r4_large=[0.12] * 300)
    mb = 100.0 * S.checkpoint_speed(2)
    assert mb == pytest.approx(8067.75)
    res = S.simulate(one_job(100, model_mb=mb), tr, "spottune-1.0", settings(rules="aws-2017"), seed=1)
    tl = res.timeline
    assert tl["steps_kept"].tolist() == [57, 43] and list(tl["reason"]) == ["hourly", "finished"]
    assert tl["end"].tolist() == pytest.approx([3580.0, 6420.0]) and tl["launch"].tolist() == pytest.approx([0.0, 3580.0])
    assert res.summary["charged"] == pytest.approx(2 * 0.12)
    from tt_spotsim.rules import bill
    assert bill(tr, "r4.large", 0.0, 60 + 59 * 60 + 100.0, revoked=False, rule="aws-2017").charged == pytest.approx(0.24)
    assert bill(tr, "r4.large", 3700.0, 3700 + 160 + 41 * 60 + 100.0, revoked=False,
                rule="aws-2017").charged == pytest.approx(0.12)


def test_checkpoint_and_restore_times_follow_the_measured_speeds():
    assert S.checkpoint_speed(16) == pytest.approx(134.22) and S.checkpoint_speed(1) == pytest.approx(62.83)
    assert S.max_model_gb(16) == pytest.approx(15.73, abs=0.005) and S.max_model_gb(1) == pytest.approx(7.36, abs=0.005)
    tr = hand_trace(r4_large=[0.12] * 300)
    mb = 1000.0
    ck = mb / S.checkpoint_speed(2)
    tl = S.simulate(one_job(100, model_mb=mb), tr, "spottune-1.0", settings(), seed=1).timeline
    # first deployment: no restore; 59 steps to the hour, then the checkpoint; second: restore then 41 steps
    assert tl["end"].iloc[0] == pytest.approx(3600 + ck)
    assert tl["ready"].iloc[1] == pytest.approx(3600 + ck + 60 + ck)
    assert tl["end"].iloc[1] == pytest.approx(3600 + ck + 60 + ck + 41 * 60 + ck)


def test_a_checkpoint_that_does_not_fit_in_the_notice_loses_the_progress():
    tr = hand_trace(r4_large=[0.10] * 37 + [0.50] * 400)
    mb = 20_000.0                                   # 248 s on 2 vCPUs > 120 s
    res = S.simulate(one_job(100, model_mb=mb), tr, "spottune-1.0", settings(), seed=1)
    first = res.timeline.iloc[0]
    assert first["reason"] == "revoked" and first["steps_run"] == 36 and first["steps_kept"] == 0
    assert first["steps_lost"] == 36
    assert res.summary["steps_lost"] == 36 and res.summary["steps_total"] == 100
    assert res.summary["steps_run"] == 136


def test_single_spot_baseline_on_a_flat_trace():
    tr = hand_trace(r4_large=[0.12] * 300, m4_4xlarge=[0.3] * 300)
    js = W.job_set("toy", [np.linspace(1, 0.5, 100)] * 3, {"r4.large": 60.0, "m4.4xlarge": 15.0}, model_mb=0.0)
    cheap = S.simulate(js, tr, "single-cheapest", settings(k=1), seed=1).summary
    fast = S.simulate(js, tr, "single-fastest", settings(k=1), seed=1).summary
    assert cheap["cost"] == pytest.approx(3 * (60 + 6000) / 3600 * 0.12) and cheap["jct_s"] == pytest.approx(6060)
    assert fast["cost"] == pytest.approx(3 * (60 + 1500) / 3600 * 0.3) and fast["jct_s"] == pytest.approx(1560)
    assert cheap["revocations"] == 0 and cheap["top1"] and cheap["top3"]


def test_capacity_interruptions_under_todays_rules():
    tr = hand_trace(r4_large=[0.04] * 3000)
    never = Rules("t0", "per-second", "hazard", "first-hour", hazard_per_hour={"r4.large": 0.0})
    res = S.simulate(one_job(100), tr, "spottune-1.0", settings(rules=never), seed=3)
    assert res.summary["revocations"] == 0
    often = Rules("t1", "per-second", "hazard", "first-hour", hazard_per_hour={"r4.large": 3.0})
    res = S.simulate(one_job(100), tr, "spottune-1.0", settings(rules=often), seed=3)
    tl = res.timeline
    assert res.summary["revocations"] > 0 and (tl.loc[tl["reason"] == "revoked", "charged"] == 0).all()
    assert res.summary["steps_total"] == 100


def test_capacity_interruption_rate_matches_the_exponential_law():
    """Monte Carlo: under today's rules (capacity interruptions, a Poisson process of rate lambda), a
    deployment exposed for h = 1 h is interrupted with probability 1 - exp(-lambda h). lambda = 0.5 / h
    here (today's assumed 5 % a month would need millions of deployments); model_mb = 0 and 60 s steps
    make every deployment with at least 59 steps to go last exactly an hour unless interrupted."""
    from dataclasses import replace

    from tt_spotsim.rules import rules as get_rules

    lam = 0.5
    today = replace(get_rules("aws-today"), name="today-fast", hazard_per_hour={"r4.large": lam})
    steps = 12000
    js = W.job_set("many", [np.linspace(1.0, 0.5, steps) + 0.01 * i for i in range(8)], {"r4.large": 60.0},
                   model_mb=0.0)
    tr = hand_trace(r4_large=[0.04] * (400 * 60))
    res = S.simulate(js, tr, "spottune-1.0", settings(rules=today, k=1), seed=5)
    tl = res.timeline
    done_before = tl.groupby("job")["steps_kept"].transform(lambda x: x.cumsum() - x)
    full_hour = (steps - done_before) >= 59                 # horizon = launch + 60 s start-up + 59 steps = 1 h
    n = int(full_hour.sum())
    rate = float((tl.loc[full_hour, "reason"] == "revoked").mean())
    p = 1 - math.exp(-lam * 1.0)                            # 0.3935
    se = math.sqrt(p * (1 - p) / n)
    assert n > 1800 and abs(rate - p) < 4 * se, (n, rate, p, se)
    hourly = tl[full_hour & (tl["reason"] == "hourly")]
    np.testing.assert_allclose(hourly["end"] - hourly["launch"], 3600.0)      # the exposure h really is 1 h


# ---------------------------------------------------------------- whole runs: conservation, seeds, errors
@pytest.fixture(scope="module")
def synthetic_run():
    tr = market.synthetic_market(4, days=14)
    js = W.trimtuner_job_sets("rnn", groups=["rnn/t2.xlarge-x4"], reference_hours=2.0)[0]
    return js, tr, S.compare(js, tr, settings=S.Settings(fit_days=9), seed=2)


def test_conservation_of_steps_and_dollars(synthetic_run):
    js, tr, results = synthetic_run
    for r in results:
        tl, s = r.timeline, r.summary
        np.testing.assert_allclose(tl["charged"] + tl["refunded"], tl["usage"], rtol=1e-12, atol=1e-12)
        assert s["charged"] + s["refunded"] == pytest.approx(s["usage"])
        assert s["steps_run"] - s["steps_lost"] == s["steps_total"]
        for j, g in tl.groupby("job"):        # deployments of a job follow each other without overlap of work
            assert (g["launch"].to_numpy()[1:] >= g["launch"].to_numpy()[:-1]).all()
        # each bill recomputed independently: per-second at the market price, free if revoked within the hour
        for row in tl.itertuples():
            usage = sum(tr.series(row.type)[m] * (min(row.end, 60 * (m + 1)) - max(row.launch, 60 * m)) / 3600
                        for m in range(int(row.launch // 60), int(math.ceil(row.end / 60))))
            assert row.usage == pytest.approx(usage, rel=1e-9)
            free = row.reason == "revoked" and row.end - row.launch < 3600
            assert row.charged == (0.0 if free else pytest.approx(usage))
    theta07 = results[3]
    kept = theta07.jobs
    assert (kept.loc[kept["selected"] & ~kept["plateau_stop"], "steps"] == kept.loc[kept["selected"] & ~kept["plateau_stop"], "max_steps"]).all()
    assert (kept.loc[~kept["selected"], "steps"] < kept.loc[~kept["selected"], "max_steps"]).all()


def test_same_seed_same_result(synthetic_run):
    js, tr, results = synthetic_run
    again = S.compare(js, tr, settings=S.Settings(fit_days=9), seed=2)
    for a, b in zip(results, again):
        assert a.summary == b.summary
    other = S.simulate(js, tr, "spottune-0.7", S.Settings(fit_days=9), seed=3)
    assert other.summary["submitted_h"] != results[3].summary["submitted_h"]


def test_bad_inputs_get_one_clear_error():
    tr = hand_trace(r4_large=[0.1] * 300)
    with pytest.raises(SpotError, match=r"theta must lie in \(0, 1\]"):
        S.approach("spottune-1.5")
    with pytest.raises(SpotError, match=r"k=4 is larger than the job set 'toy' \(1 settings\)"):
        S.simulate(one_job(), tr, "spottune-0.7", settings(k=4))
    with pytest.raises(SpotError, match="unknown instance type 'x1.32xlarge'"):
        W.job_set("toy", [[1.0, 0.5]], {"x1.32xlarge": 1.0})
    with pytest.raises(SpotError, match="unknown approach 'cheapest'"):
        S.approach("cheapest")
    with pytest.raises(SpotError, match=r"the price trace has no prices for \['m4.4xlarge'\]"):
        S.simulate(one_job(types=("r4.large", "m4.4xlarge")), tr, "spottune-1.0", settings())
    with pytest.raises(SpotError, match="outside the price trace"):
        S.simulate(one_job(1000), tr, "spottune-1.0", settings())


def test_jct_ends_at_the_selection_and_completion_when_the_top_k_are_trained():
    tr = hand_trace(r4_large=[0.12] * 300)
    k = np.arange(1, 101)
    js = W.job_set("two", [1 / (0.05 * k + 1) + 0.2, 1 / (0.05 * k + 1) + 0.1], {"r4.large": 60.0}, model_mb=0.0)
    res = S.simulate(js, tr, "spottune-0.5", settings(k=1, plateau=False), seed=1)
    s = res.summary
    assert s["jct_s"] == pytest.approx(60 + 50 * 60)                    # both reach 50 steps, EarlyCurve selects
    assert s["completion_s"] == pytest.approx(3060 + 60 + 50 * 60)      # the selected one trains 50 more steps
    assert res.jobs["selected"].tolist() == [False, True] and res.jobs["steps"].tolist() == [50, 100]
    assert s["charged"] == pytest.approx((2 * 3060 + 3060) / 3600 * 0.12)
    assert s["top1"] and s["top3"]


def test_checkpoint_overhead_from_the_records():
    """One job, 100 steps of 60 s on r4.large (2 vCPUs), a 1000 MB model, a flat market: ready at 60 s, 59 steps
    to the hour boundary, a checkpoint at the 2-vCPU speed; the second deployment restores it (as long) and
    runs the other 41 steps, then checkpoints again: overhead 3 checkpoints / 6000 s of training."""
    from tt_workbook.studies.spottune import overhead as OH

    tr = hand_trace(r4_large=[0.12] * 400)
    js = one_job(100, model_mb=1000.0)
    res = S.simulate(js, tr, "spottune-1.0", settings(), seed=1)
    c = 1000.0 / S.checkpoint_speed(2)          # 62.83 + (134.22 - 62.83) / 4 MB/s = 80.68 MB/s: 12.39 s
    assert c == pytest.approx(1000 / 80.6775)
    o = OH.checkpoint_overhead(js, res.timeline, 60.0).iloc[0]
    assert o["train_s"] == pytest.approx(100 * 60.0)
    assert o["restore_s"] == pytest.approx(c) and o["checkpoint_s"] == pytest.approx(2 * c)
    assert o["overhead"] == pytest.approx(3 * c / 6000.0)
