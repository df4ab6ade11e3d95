"""SpotTune studies: the aggregation of Fig. 7 on a hand-made grid (known ratios), Fig. 11 errors, top-k."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from tt_workbook.runs.profiles import settings
from tt_workbook.studies.spottune import earlycurve_study as ECS, grids as G, intervals as IV, market_study as MS, overhead as OH, rows as report, revpred_study as RS, sensitivity as SEN, timing as TM
from tt_spotsim import market, traces, workloads as W


def hand_grid():
    """Two job sets, one seed; costs and JCTs chosen so every ratio is easy by hand."""
    rows = []
    for js, scale in (("a", 1.0), ("b", 2.0)):
        for ap, cost, jct in (("single-cheapest", 4.0, 10.0), ("single-fastest", 8.0, 2.0), ("spottune-1", 2.0, 5.0),
                              ("spottune-0.7", 1.0, 4.0)):
            rows.append({"job_set": js, "approach": ap, "seed": 1, "cost": cost * scale, "jct_s": jct * 3600,
                         "refunded": 0.0, "usage": cost, "free_step_share": 0.5 if ap.startswith("spot") else 0.0,
                         "refunded_share": 0.0, "top1": True, "top3": True, "steps_total": 10})
    return pd.DataFrame(rows)


def test_fig7_ratios_by_hand():
    grid = hand_grid()
    per = G.per_job_set(grid)
    ref = per[per["approach"] == "spottune-0.7"]
    assert (ref["cost_norm"] == 1).all() and (ref["pcr_norm"] == 1).all()
    s = IV.paper_statements(per, grid)
    assert s["saving_st1_vs_cheapest"] == pytest.approx(0.5)        # 1 - 2/4
    assert s["saving_st1_vs_fastest"] == pytest.approx(0.75)        # 1 - 2/8
    assert s["saving_st07_vs_st1"] == pytest.approx(0.5)
    assert s["saving_st07_vs_cheapest_max"] == pytest.approx(0.75) and s["saving_st07_vs_fastest_max"] == pytest.approx(0.875)
    assert s["jct_fastest_over_st07"] == pytest.approx(0.5) and s["jct_cheapest_over_st07"] == pytest.approx(2.5)
    # PCR = 1 / (JCT h * cost): st1 = 1/10, cheapest = 1/40, fastest = 1/16, st0.7 = 1/4 (job set a)
    assert s["pcr_st1_over_cheapest"] == pytest.approx(4.0) and s["pcr_st1_over_fastest"] == pytest.approx(1.6)
    assert s["pcr_st07_over_cheapest"] == pytest.approx(10.0) and s["pcr_st07_over_fastest"] == pytest.approx(4.0)
    assert s["free_step_share_st07"] == pytest.approx(0.5) and s["st07_cheapest_of_all"] == 1.0


def test_jct_readings_by_hand():
    """θ = 0.7 selects after 4 h and its top-k finish at 6 h; the baselines' two readings coincide."""
    grid = hand_grid()
    grid["completion_s"] = grid["jct_s"] + np.where(grid["approach"] == "spottune-0.7", 2 * 3600.0, 0.0)
    r = G.jct_readings(grid).set_index("jct_ends")
    assert r.loc["selection", "jct_fastest_over_st07"] == pytest.approx(2 / 4)
    assert r.loc["top-k trained", "jct_fastest_over_st07"] == pytest.approx(2 / 6)
    assert r.loc["selection", "jct_cheapest_over_st07"] == pytest.approx(10 / 4)
    assert r.loc["top-k trained", "jct_cheapest_over_st07"] == pytest.approx(10 / 6)
    # PCR = 1 / (JCT h x cost): θ=0.7 1/(6 x 1) against the cheapest's 1/(10 x 4) (job set a; b scales costs)
    assert r.loc["top-k trained", "pcr_st07_over_cheapest"] == pytest.approx(40 / 6)
    rows = report.jct_reading_rows(G.jct_readings(grid), synthetic_prices=True)
    assert [row["workbook"] for row in rows] == [pytest.approx(1 / 3, abs=1e-4), pytest.approx(5 / 3, abs=1e-4)]
    assert all("completion_s" in row["note"] and row["not_comparable"] for row in rows)


def test_pcr_claim_of_spottune_at_theta_1_by_hand():
    grid = hand_grid()
    # PCR: SpotTune θ=1 1/(5 x 2) = 0.1 > fastest 1/(2 x 8) = 0.0625 > cheapest 1/(10 x 4) = 0.025
    assert G.claims(G.per_job_set(grid))["pcr_st1_above_singles"] is True
    # θ=1 at 9 h: 1/18 = 0.056 < the fastest's 0.0625 (still above the cheapest's): the claim fails
    grid.loc[grid["approach"] == "spottune-1", "jct_s"] = 9 * 3600.0
    assert G.claims(G.per_job_set(grid))["pcr_st1_above_singles"] is False
    assert "pcr_st1_above_singles" in report.CLAIMS


def test_every_row_names_the_reconstructions_it_rests_on():
    assert set(report.PAPER) | set(report.CLAIMS) <= set(report.RESTS_ON)
    with pytest.raises(KeyError):
        report.rests_on("a_new_row")
    values = {k: 0.5 for k in report.PAPER}
    notes = {r["item"]: r["note"] for r in report.fig7_rows(values, True)}
    # θ = 1: no early stop (no EarlyCurve) and the JCT ends when every job has finished (no JCT reading)
    st1 = notes[report.PAPER["saving_st1_vs_cheapest"][1]]
    assert "Eqs. 1-2" in st1 and "Eq. 3" in st1 and "EarlyCurve" not in st1 and "JCT" not in st1
    jct = notes[report.PAPER["jct_fastest_over_st07"][1]]
    assert all(piece in jct for piece in ("Eqs. 1-2", "Eq. 3", "Eqs. 4-7", "JCT = submission to top-k selection"))
    claims = report.claim_rows({"top3_at_07": True, "jct_between_baselines": True}, synthetic_prices=True)
    assert "Eqs. 4-7" in claims[1]["note"] and "Eqs. 1-2" not in claims[1]["note"]      # top-3: curves only
    assert "JCT" in claims[0]["note"] and "synthetic" in claims[0]["note"]
    assert all(r["note"].endswith("rests on no reconstructed equation") for r in report.table3_rows())


def test_table3_rows_are_input_checks_against_the_2017_source():
    df = report.summary(report.table3_rows())
    assert len(df) == 18 and set(df["status"]) == {"input check"}
    by = df.set_index("item")
    # the independent source (ec2instances.info 0.0.2) lists r3.xlarge as 30.5 GiB and $0.333; the paper 30 / 0.33
    assert by.loc["r3.xlarge: memory (GB)", "workbook"] == 30.5 and by.loc["r3.xlarge: memory (GB)", "paper"] == 30
    assert by.loc["r3.xlarge: on-demand price (USD/h)", "workbook"] == 0.333
    assert df.loc[~df["agrees"].astype(bool), "item"].tolist() == ["r3.xlarge: memory (GB)",
                                                                   "r3.xlarge: on-demand price (USD/h)"]
    assert "30.5" in by.loc["r3.xlarge: memory (GB)", "cause"] and "ec2instances.info" in df["note"].iloc[0]
    assert "agrees" not in set(df["status"])
    ck = report.summary(report.checkpoint_rows(lambda n: {16: 134.22, 1: 62.83}[n] * 120 / 1024))
    assert set(ck["status"]) == {"consistency check"} and ck["agrees"].all()


def test_earlycurve_claim_needs_a_workload_with_stages():
    def errs(stages_a, stages_b, ec_a=0.1, ss_a=0.2):
        rows = [{"job_set": "a", "stages": st, "earlycurve_error": ec_a, "single-stage_error": ss_a} for st in stages_a]
        rows += [{"job_set": "b", "stages": st, "earlycurve_error": 0.5, "single-stage_error": 0.1} for st in stages_b]
        return pd.DataFrame(rows)

    # 2 staged curves of 8 (as the quick profile: a few scattered): not comparable, whatever the errors say
    value, why = ECS.earlycurve_claim(errs([2, 1, 1, 1], [3, 1, 1, 1]))
    assert value is None and "2 of 8" in why
    # job set a staged (3 of 4): the claim on a alone (EarlyCurve 0.1 < 0.2), b's unstaged curves left out
    value, why = ECS.earlycurve_claim(errs([2, 2, 3, 1], [1, 1, 1, 1]))
    assert value is True and why.endswith(": a")
    rows = report.claim_rows({}, not_comparable={"earlycurve_better": why})
    assert report.summary(rows)["status"].tolist() == ["not comparable"]


def test_csv_tables_carry_the_prices_label():
    grid = pd.concat([hand_grid().assign(seed=s) for s in (2, 1)], ignore_index=True)
    grid["prices"], grid["synthetic_prices"] = "synthetic 2017-style market", True
    assert set(G.per_job_set(grid)["prices"]) == {"synthetic 2017-style market (seeds 1, 2)"}
    assert set(G.refund_shares(grid)["prices"]) == {"synthetic 2017-style market (seeds 1, 2)"}
    one = grid[grid["seed"] == 1].assign(prices="AWS spot trace (data/us-east-1.csv)", synthetic_prices=False)
    assert set(G.per_job_set(one)["prices"]) == {"AWS spot trace (data/us-east-1.csv)"}
    tr = market.synthetic_market(3, types=["r4.large"], days=2.5)
    assert set(MS.revocation_stats(tr, margins=(0.0,))["prices"]) == {"synthetic 2017-style market (seed 3)"}
    scores = MS.predictor_scores(tr, fit_days=2.0, test_days=0.25, names=("empirical",))
    assert set(scores["prices"]) == {"synthetic 2017-style market (seed 3)"}
    today = market.synthetic_market(4, types=["r4.large"], days=1, style="today")
    assert G.prices_label(today) == "synthetic today-style market (seed 4)"
    real = traces.PriceTrace(traces.TRACE_START, {"r4.large": np.full(120, 0.04)}, "/data/us-east-1.csv (ffill)")
    assert "us-east-1.csv" in set(MS.revocation_stats(real, margins=(0.0,))["prices"]).pop()


def test_prediction_errors_and_topk_on_hand_curves():
    k = np.arange(1, 101)
    curves = [1 / (0.05 * k + 1) + c for c in (0.3, 0.1, 0.2, 0.4)]
    js = W.job_set("hand", curves, {"r4.large": 10.0})
    err = ECS.prediction_errors(js, 0.7)
    assert (err["earlycurve_error"] < 1e-6).all() and (err["single-stage_error"] < 1e-6).all()
    assert (err["stages"] == 1).all() and (err["steps_seen"] == 70).all()
    top = ECS.topk_claim([js], [0.3, 1.0])
    assert top["top1"].all() and top["top3"].all()


def test_smoke_grid_runs_and_is_consistent():
    cfg = settings("quick", "spottune", smoke=True)
    sets = G.study_job_sets(cfg)
    assert [s.name for s in sets] == ["rnn/t2.xlarge-x4"]
    grid = G.simulate_grid(sets, cfg["seeds"], settings=G.sim_settings(cfg), market_days=cfg["market_days"])
    assert set(grid["approach"]) == {"single-cheapest", "single-fastest", "spottune-1", "spottune-0.7"}
    per = G.per_job_set(grid)
    # the JCT reading matters only where EarlyCurve selects: at θ = 1 and for the baselines both coincide
    same = grid[grid["approach"] != "spottune-0.7"]
    np.testing.assert_allclose(same["jct_s"], same["completion_s"])
    assert set(per["prices"]) == {f"synthetic 2017-style market (seed {cfg['seeds'][0]})"} and len(cfg["seeds"]) == 1
    assert (per.loc[per["approach"] == "single-cheapest", "jct_h"].to_numpy()
            > per.loc[per["approach"] == "single-fastest", "jct_h"].to_numpy()).all()
    stats = MS.revocation_stats(G.study_market(cfg, 1), margins=(0.0, 1.0))
    low = stats[stats["margin"] == 0.0].set_index("type")["p_revoked_within_hour"]
    high = stats[stats["margin"] == 1.0].set_index("type")["p_revoked_within_hour"]
    assert (low >= high).all() and (low > 0.3).all()


def test_bench_fig7_reports_cpu_and_wall_seconds():
    res = TM.bench_fig7(settings("quick", "spottune", smoke=True))
    assert res["simulations"] == 4 and res["job_sets"] == 1 and res["cpu_s"] > 0 and res["wall_s"] > 0


def test_trimtuner_groups_count_as_two_workloads():
    assert G.workload_of("cnn/t2.small-x8") == G.workload_of("cnn/t2.2xlarge-x4") == "TrimTuner CNN"
    w = G.job_set_weights(["cnn/a", "cnn/b", "cnn/c", "rnn/a", "sklearn/lor"])
    assert np.allclose(w, [1 / 9, 1 / 9, 1 / 9, 1 / 3, 1 / 3])
    # three CNN groups where SpotTune (θ=1) saves 50% and one scikit-learn job set where it saves nothing:
    # over job sets 37.5%, over the two workloads 25%
    rows = []
    for js, st1 in (("cnn/a", 2.0), ("cnn/b", 2.0), ("cnn/c", 2.0), ("sklearn/lor", 4.0)):
        for ap, cost in (("single-cheapest", 4.0), ("single-fastest", 8.0), ("spottune-1", st1), ("spottune-0.7", 1.0)):
            rows.append({"job_set": js, "approach": ap, "seed": 1, "cost": cost, "jct_s": 3600.0, "free_step_share": 0.0,
                         "refunded_share": 0.0})
    s = IV.paper_statements(None, pd.DataFrame(rows))
    assert s["saving_st1_vs_cheapest"] == pytest.approx(0.25)
    assert s["saving_st07_vs_cheapest_max"] == pytest.approx(0.75)


def test_seed_interval_is_the_bootstrap_distribution():
    """Three seeds whose cost ratios are 0.2, 0.5 and 1.1 on one job set: the bootstrap distribution of the
    saving can be enumerated exactly (27 equally likely index triples); the sampled interval must match its
    quantiles, and a seed-free statement must have a zero-width interval."""
    import itertools

    st1 = {1: 0.2, 2: 0.5, 3: 1.1}
    rows = []
    for seed, r in st1.items():
        for ap, cost in (("single-cheapest", 1.0), ("single-fastest", 3.0), ("spottune-1", r), ("spottune-0.7", 0.1)):
            rows.append({"job_set": "sklearn/x", "approach": ap, "seed": seed, "cost": cost, "jct_s": 3600.0,
                         "free_step_share": 0.3, "refunded_share": 0.0})
    t = IV.statement_intervals(pd.DataFrame(rows), n_boot=20000, rng=np.random.default_rng(5)).set_index("key")
    exact = np.sort([1 - np.mean([st1[i] for i in idx]) for idx in itertools.product(st1, repeat=3)])
    assert t.loc["saving_st1_vs_cheapest", "value"] == pytest.approx(1 - 1.8 / 3)
    # the exact distribution's extreme atoms, -0.1 (all three draws seed 3) and 0.8 (all seed 1), each have
    # probability 1/27 = 3.7% > 2.5%: they are the exact 2.5% and 97.5% quantiles
    assert (exact[0], exact[-1]) == pytest.approx((-0.1, 0.8))
    assert tuple(t.loc["saving_st1_vs_cheapest", ["lo", "hi"]]) == pytest.approx((exact[0], exact[-1]))
    assert t.loc["free_step_share_st07", "lo"] == t.loc["free_step_share_st07", "hi"] == pytest.approx(0.3)
    assert "3 seeds" in t["method"].iloc[0]


def _sweep_rows(axis, setting, st1_cost, st07_cost, free, seeds=(1, 2)):
    rows = []
    for seed in seeds:
        for js in ("cnn/a", "sklearn/b"):
            for ap, cost, jct, fr in (("single-cheapest", 4.0, 10.0, 0.0), ("single-fastest", 8.0, 2.0, 0.0),
                                      ("spottune-1", st1_cost, 5.0, free), ("spottune-0.7", st07_cost, 4.0, free)):
                rows.append({"axis": axis, "setting": setting, "bid": setting, "parallel_fraction": 0.9, "seed": seed,
                             "job_set": js, "approach": ap, "cost": cost, "jct_s": jct * 3600, "free_step_share": fr,
                             "refunded_share": 0.0, "refunded": 0.0, "usage": cost, "top1": True, "top3": True,
                             "steps_total": 10})
    return rows


def test_sensitivity_table_and_claim_ranges_by_hand():
    sweep = pd.DataFrame(_sweep_rows("bid", "+0%", 2.0, 1.0, 0.8) + _sweep_rows("bid", "+25%", 6.0, 3.0, 0.1))
    t = SEN.sensitivity_table(sweep, n_boot=50).set_index(["setting", "approach"])
    # +0%: θ=1 costs 2 vs 4 and 8; JCT 5 h vs 10 and 2; PCR 1/(5*2) vs 1/(10*4) -> 4x the cheapest's
    r = t.loc[("+0%", "spottune-1")]
    assert (r["cost_vs_cheapest"], r["cost_vs_fastest"], r["jct_vs_cheapest"], r["pcr_vs_cheapest"]) == \
        pytest.approx((0.5, 0.25, 0.5, 4.0))
    assert r["steps_free"] == pytest.approx(0.8) and r["cost_vs_cheapest_lo"] == pytest.approx(0.5)  # no seed spread
    assert t.loc[("+25%", "spottune-0.7"), "cost_vs_cheapest"] == pytest.approx(0.75)
    # θ=1 is cheaper than the cheapest at +0% (2 < 4), not at +25% (6 > 4)
    text = SEN.holds_text(t.reset_index(), "st1_cheaper_than_cheapest")
    assert "holds for bid: +0%;" in text and text.endswith("not for bid: +25%")
    # a claim true (or false) at every setting says so, not "not for none"
    every = pd.DataFrame({"axis": ["bid", "bid", "f"], "setting": ["+0%", "+25%", "f = 0.5"], "seeds": 3,
                          "claim_a": [True, True, True], "claim_b": [False, False, False]})
    assert SEN.holds_text(every, "a").endswith("holds for every setting swept (bid: +0%, +25%; f: f = 0.5)")
    assert SEN.holds_text(every, "b").endswith("holds for no setting swept (bid: +0%, +25%; f: f = 0.5)")
    where = SEN.paper_on_sweep(t.reset_index()).set_index(["approach", "quantity"])
    # the paper's θ=1 cost ratio 0.585 lies between the two settings (0.5 and 1.5) and inside neither's interval
    assert where.loc[("spottune-1", "cost_vs_cheapest"), "within_interval_at"] == "none"
    assert where.loc[("spottune-1", "cost_vs_cheapest"), "nearest"].startswith("bid: +0%")


def test_sensitivity_sweep_on_the_smoke_profile():
    cfg = settings("quick", "spottune", smoke=True)
    sweep = SEN.sensitivity(cfg, [1], bids=(0.0, "algorithm2"), fractions=(0.5, 0.9), startups=(0.0,),
                          model_sizes=(5120.0,))
    assert list(dict.fromkeys(zip(sweep["axis"], sweep["setting"]))) == [
        ("bid", "+0%"), ("bid", "Alg. 2 margin"), ("parallel fraction", "f = 0.5"), ("parallel fraction", "f = 0.9"),
        ("start-up", "0 s"), ("model size", "5120 MB")]
    # a 5 GB model: every baseline run ends with one checkpoint of 5120 MB at the type's speed (§IV-F,
    # interpolated), 100 MB in the profile's setting: the fastest baseline's JCT grows by the difference
    fast = sweep[sweep["approach"] == "single-fastest"].groupby("setting")["jct_s"].mean()
    from tt_spotsim import simulator as S
    assert fast["5120 MB"] - fast["Alg. 2 margin"] == pytest.approx((5120 - 100) / S.checkpoint_speed(16))
    # no start-up: the cheapest baseline's JCT shrinks by the profile's 60 s
    cheap = sweep[sweep["approach"] == "single-cheapest"].groupby("setting")["jct_s"].mean()
    assert cheap["Alg. 2 margin"] - cheap["0 s"] == pytest.approx(60.0)
    single = sweep[sweep["approach"].str.startswith("single")]
    # the baselines never bid (never revoked): the same simulations under every bid rule
    by_bid = [g.sort_values("approach")["cost"].tolist() for _, g in single[single["axis"] == "bid"].groupby("setting")]
    assert by_bid[0] == by_bid[1]
    # Amdahl: a larger parallel fraction helps the 16-vCPU type more than the 2-vCPU one, so the fastest
    # baseline's JCT relative to the cheapest's falls from f = 0.5 to f = 0.9
    t = SEN.sensitivity_table(sweep, n_boot=20)
    jct = single.assign(j=single["jct_s"]).pivot_table(index="setting", columns="approach", values="j")
    ratio = jct["single-fastest"] / jct["single-cheapest"]
    assert ratio["f = 0.9"] < ratio["f = 0.5"] < 1
    assert set(t["approach"]) == {"spottune-1", "spottune-0.7"} and (t["seeds"] == 1).all()
    with pytest.raises(ValueError, match="relative margin >= 0"):
        SEN.sensitivity(cfg, [1], bids=(-0.05,), fractions=())
    with pytest.raises(ValueError, match=r"\(0, 1\]"):
        SEN.sensitivity(cfg, [1], bids=(), fractions=(1.5,))


def test_calibration_counts_only_deployments_exposed_for_the_hour():
    rows = ([{"predictor": "a", "p_revoke": 0.1, "reason": "revoked"}] + [{"predictor": "a", "p_revoke": 0.1,
                                                                           "reason": "hourly"}] * 4
            + [{"predictor": "a", "p_revoke": 0.7, "reason": "revoked"}] * 4 + [{"predictor": "a", "p_revoke": 0.7,
                                                                               "reason": "hourly"}]
            + [{"predictor": "a", "p_revoke": 0.9, "reason": "finished"}] * 3)     # shorter exposure: left out
    rows = rows[5:] + rows[:5]                                                      # high bin first: sorted back
    summary, curve = RS.calibration(pd.DataFrame(rows))
    s = summary.set_index("predictor").loc["a"]
    assert s["deployments"] == 10 and s["predicted"] == pytest.approx(0.4) and s["realised"] == pytest.approx(0.5)
    c = curve.set_index("bin")
    assert c["deployments"].tolist() == [5, 5] and c["realised"].tolist() == pytest.approx([0.2, 0.8])
    assert c["predicted"].tolist() == pytest.approx([0.1, 0.7])


def test_fig7_with_each_predictor_in_the_loop_shares_the_baselines():
    cfg, spot_cfg = settings("quick", "revpred", smoke=True), settings("quick", "spottune", smoke=True)
    trace = RS.revpred_market(cfg, "synthetic", 1)
    preds = RS.fig10_predictors(trace, cfg, names=("empirical", "logistic"))
    sets = RS.fig10c_job_sets(cfg, spot_cfg)
    deployments = []
    grid = RS.fig10c_grid(sets, trace, preds, [1, 2], cfg, spot_cfg, deployments=deployments,
                         approaches=["single-cheapest", "single-fastest", "spottune-1", "spottune-0.7"])
    assert len(grid) == 2 * len(sets) * 4 * 2
    base = grid[grid["approach"].str.startswith("single")].pivot_table(index=["seed", "approach"], columns="predictor",
                                                                       values="cost")
    assert (base["empirical"] == base["logistic"]).all()          # one baseline simulation, under both names
    st = RS.predictor_statements(grid, n_boot=20)
    assert set(st["predictor"]) == {"empirical", "logistic"} and (st["seeds"] == 2).all()
    # the θ=1 saving recomputed by hand from the grid (one job set: seed means, then the ratio)
    g = grid[grid["predictor"] == "logistic"].groupby("approach")["cost"].mean()
    mine = st[(st["predictor"] == "logistic") & (st["key"] == "saving_st1_vs_cheapest")]["value"].iloc[0]
    assert len(sets) == 1 and mine == pytest.approx(1 - g["spottune-1"] / g["single-cheapest"])
    assert len(deployments) == 2 * len(sets) * 2 * 2               # SpotTune runs only


def test_revpred_best_of_three_row():
    scores = pd.DataFrame([
        {"bids": "random", "predictor": "revpred", "type": "a", "accuracy": 0.9, "f1": 0.5},
        {"bids": "random", "predictor": "tributary", "type": "a", "accuracy": 0.8, "f1": 0.6},
        {"bids": "random", "predictor": "logistic", "type": "a", "accuracy": 0.7, "f1": 0.4},
        {"bids": "algorithm2", "predictor": "logistic", "type": "a", "accuracy": 1.0, "f1": 1.0},   # other bids: ignored
    ])
    real = report.fig10_best_row(scores, synthetic_prices=False, setting="s")
    assert real["workbook"] is False and "highest F1 tributary" in real["cause"]       # best accuracy, not best F1
    synth = report.summary([report.fig10_best_row(scores, synthetic_prices=True, setting="s")])
    assert synth["status"].tolist() == ["not comparable"]
    # the range: under the other maximum prices scored, the row says who is best there
    assert "at random maximum prices (the paper's inference rule) does not" in real["note"]
    assert "at algorithm2 maximum prices does not (highest accuracy logistic, highest F1 logistic)" in real["note"]


def test_fig8_shape_claims_by_hand():
    th = [0.1, 0.5, 0.7, 1.0]
    lin = pd.DataFrame({"theta": th, "cost_vs_max_theta": [0.2, 0.55, 0.75, 1.0], "jct_vs_max_theta": th})
    values, text = IV.theta_shape(lin)
    assert values == {"fig8_cost_rises": True, "fig8_jct_linear": True} and "1.000" in text["fig8_jct_linear"]
    # a JCT flat until a jump at θ = 1 is not near-linear: for x = 1..4 and y = 0.1, 0.1, 0.1, 1.0 the
    # covariance is 0.3375 and the variances 1.25 and 0.151875, so R² = 0.3375² / (1.25 x 0.151875) = 0.6
    flat = lin.assign(theta=[0.25, 0.5, 0.75, 1.0], jct_vs_max_theta=[0.1, 0.1, 0.1, 1.0])
    values, text = IV.theta_shape(flat)
    assert values["fig8_jct_linear"] is False and "0.600" in text["fig8_jct_linear"]


def test_step_time_cov_by_hand(monkeypatch):
    table = pd.DataFrame({"setting": [0] * 5 + [1] * 5, "step": list(range(1, 6)) * 2,
                          "seconds": [9, 1, 1, 1, 1] + [1, 1, 3, 1, 3]})
    asked = []
    monkeypatch.setattr(OH.C, "generate", lambda names, *a, **k: asked.append(list(names)) or {n: table for n in names})
    c = OH.step_time_cov(["lor", "gbtr"]).set_index("setting")
    assert asked == [["lor"]]                          # gradient boosting's per-step time is not measured: left out
    assert c.loc[0, "cov"] == 0.0 and c.loc[0, "below_limit"]            # the set-up step is left out
    assert c.loc[1, "cov"] == pytest.approx(0.5) and not c.loc[1, "below_limit"]     # [1, 3, 1, 3]: sd 1 / mean 2


def test_spottune_rows_count_the_seeds_of_the_approaches_they_compare():
    from tt_workbook.report.summary import comparison

    # two job sets; every approach simulated on seeds 1-5, except Single-Spot (fastest): seeds 1-3 on job set b
    approaches = ("single-cheapest", "single-fastest", "spottune-1", "spottune-0.7")
    grid = pd.DataFrame([{"job_set": js, "approach": a, "seed": s}
                         for js in ("a", "b") for a in approaches for s in range(1, 6)
                         if not (a == "single-fastest" and js == "b" and s > 3)])
    seeds = report.seeds_by_approach(grid)
    assert seeds == {"single-cheapest": 5, "single-fastest": 3, "spottune-1": 5, "spottune-0.7": 5}
    runs = report.runs_per_arm(seeds, ["saving_st1_vs_cheapest", "saving_st1_vs_fastest", "st1_cheaper_than_cheapest",
                                       "jct_between_baselines", "free_step_share_st07", "fig8_cost_rises"])
    assert runs == {"saving_st1_vs_cheapest": 5, "saving_st1_vs_fastest": 3, "st1_cheaper_than_cheapest": 5,
                    "jct_between_baselines": 3, "free_step_share_st07": 5, "fig8_cost_rises": 3}
    fig7 = comparison(report.fig7_rows({"saving_st1_vs_cheapest": 0.4, "saving_st1_vs_fastest": 0.8}, True,
                                       runs=runs)).set_index("item")
    # both are substituted workloads (not comparable); vs the fastest the 3 seeds make it no verdict at all
    assert fig7.loc[report.PAPER["saving_st1_vs_cheapest"][1], "status"] == "not comparable"
    few = fig7.loc[report.PAPER["saving_st1_vs_fastest"][1]]
    assert few["status"] == "too few runs" and few["cause"].startswith("3 runs per arm")
    claims = comparison(report.claim_rows({"st1_cheaper_than_cheapest": True, "jct_between_baselines": True},
                                          synthetic_prices=True, runs=runs)).set_index("item")
    assert claims.loc[report.CLAIMS["st1_cheaper_than_cheapest"][1], "status"] == "agrees"      # 5 seeds each
    assert claims.loc[report.CLAIMS["jct_between_baselines"][1], "status"] == "too few runs"    # the fastest: 3
    assert bool(claims.loc[report.CLAIMS["jct_between_baselines"][1], "agrees"])
    # one number for every row; none: the rows state no count (as before)
    assert comparison(report.claim_rows({"st1_cheaper_than_cheapest": False}, runs=10))["status"].iloc[0] == "differs"
    assert comparison(report.claim_rows({"st1_cheaper_than_cheapest": False}, runs=4))["status"].iloc[0] == "too few runs"
