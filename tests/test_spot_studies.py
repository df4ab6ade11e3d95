"""SpotTune studies: the aggregation of Fig. 7 on a hand-made grid (known ratios), Fig. 11 errors, top-k."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from tt_core.experiments.profiles import settings
from tt_core.spot import studies as T, workloads as W


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
    per = T.per_job_set(grid)
    ref = per[per["approach"] == "spottune-0.7"]
    assert (ref["cost_norm"] == 1).all() and (ref["pcr_norm"] == 1).all()
    s = T.paper_statements(per, grid)
    assert s["saving_st1_vs_cheapest"] == pytest.approx(0.5)        # 1 - 2/4
    assert s["saving_st1_vs_fastest"] == pytest.approx(0.75)        # 1 - 2/8
    assert s["saving_st07_vs_st1"] == pytest.approx(0.5)
    assert s["saving_st07_vs_cheapest_max"] == pytest.approx(0.75) and s["saving_st07_vs_fastest_max"] == pytest.approx(0.875)
    assert s["jct_fastest_over_st07"] == pytest.approx(0.5) and s["jct_cheapest_over_st07"] == pytest.approx(2.5)
    # PCR = 1 / (JCT h * cost): st1 = 1/10, cheapest = 1/40, fastest = 1/16, st0.7 = 1/4 (job set a)
    assert s["pcr_st1_over_cheapest"] == pytest.approx(4.0) and s["pcr_st1_over_fastest"] == pytest.approx(1.6)
    assert s["pcr_st07_over_cheapest"] == pytest.approx(10.0) and s["pcr_st07_over_fastest"] == pytest.approx(4.0)
    assert s["free_step_share_st07"] == pytest.approx(0.5) and s["st07_cheapest_of_all"] == 1.0


def test_prediction_errors_and_topk_on_hand_curves():
    k = np.arange(1, 101)
    curves = [1 / (0.05 * k + 1) + c for c in (0.3, 0.1, 0.2, 0.4)]
    js = W.job_set("hand", curves, {"r4.large": 10.0})
    err = T.prediction_errors(js, 0.7)
    assert (err["earlycurve_error"] < 1e-6).all() and (err["single-stage_error"] < 1e-6).all()
    assert (err["stages"] == 1).all() and (err["steps_seen"] == 70).all()
    top = T.topk_claim([js], [0.3, 1.0])
    assert top["top1"].all() and top["top3"].all()


def test_smoke_grid_runs_and_is_consistent():
    cfg = settings("quick", "spottune", smoke=True)
    sets = T.study_job_sets(cfg)
    assert [s.name for s in sets] == ["rnn/t2.xlarge-x4"]
    grid = T.run_grid(sets, cfg["seeds"], settings=T.sim_settings(cfg), market_days=cfg["market_days"])
    assert set(grid["approach"]) == {"single-cheapest", "single-fastest", "spottune-1", "spottune-0.7"}
    per = T.per_job_set(grid)
    assert (per.loc[per["approach"] == "single-cheapest", "jct_h"].to_numpy()
            > per.loc[per["approach"] == "single-fastest", "jct_h"].to_numpy()).all()
    stats = T.revocation_stats(T.study_market(cfg, 1), margins=(0.0, 1.0))
    low = stats[stats["margin"] == 0.0].set_index("type")["p_revoked_within_hour"]
    high = stats[stats["margin"] == 1.0].set_index("type")["p_revoked_within_hour"]
    assert (low >= high).all() and (low > 0.3).all()


def test_bench_fig7_reports_cpu_and_wall_seconds():
    res = T.bench_fig7(settings("quick", "spottune", smoke=True))
    assert res["simulations"] == 4 and res["job_sets"] == 1 and res["cpu_s"] > 0 and res["wall_s"] > 0
