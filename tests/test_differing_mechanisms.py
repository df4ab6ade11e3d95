"""The measured mechanisms of four differing rows, on hand-made inputs with hand-computed answers:
SpotTune's JCT ordering (notebook 13), Fig. 8(b)'s near-linear JCT (13), the top-3 claim (14) and random
search's final CNO (09)."""

import math

import numpy as np
import pandas as pd
import pytest

from tt_workbook.studies import unstated
from tt_workbook.report.summary import names_mechanism
from tt_workbook.studies.spottune import earlycurve_study as ECS, rows as report
from tt_spotsim.workloads import job_set


# --------------------------------------------------------------------------- SpotTune: JCT ordering
def _per(rows):
    return pd.DataFrame([{"job_set": j, "approach": a, "jct_h": v} for j, d in rows.items() for a, v in d.items()])


def test_jct_ordering_positions_factors_and_mean():
    per = _per({"sklearn/lir": {"single-fastest": 2.0, "spottune-0.7": 1.0, "spottune-1": 5.0, "single-cheapest": 3.0},
                "sklearn/svm": {"single-fastest": 4.0, "spottune-0.7": 2.0, "spottune-1": 8.0, "single-cheapest": 3.5}})
    t = report.jct_ordering(per).set_index("workload")
    # lir: fastest 2 < cheapest 3, SpotTune 1 <= 2; svm: fastest 4 is not below cheapest 3.5
    assert t.loc["sklearn/lir", "position"] == "below the fastest"
    assert t.loc["sklearn/svm", "position"] == "baselines reversed"
    assert t.loc["sklearn/lir", "early_stop"] == pytest.approx(0.2)        # 1 / 5
    assert t.loc["sklearn/lir", "instances"] == pytest.approx(2.5)         # 5 / 2
    assert t.loc["sklearn/svm", "vs_fastest"] == pytest.approx(0.5)        # 2 / 4
    # two workloads weigh 1/2 each: fastest (2 + 4)/2 = 3, SpotTune 1.5, cheapest 3.25
    m = t.loc["mean"]
    assert (m["jct_h_single-fastest"], m["jct_h_spottune-0.7"], m["jct_h_single-cheapest"]) == pytest.approx((3, 1.5, 3.25))
    assert m["position"] == "below the fastest"
    cause = report.jct_ordering_cause(t.reset_index())
    assert "fastest 3.00 h, SpotTune (θ=0.7) 1.50 h, cheapest 3.25 h" in cause
    assert "finishes before the fastest baseline" in cause
    assert "ends at 0.50x the fastest's JCT" in cause                       # (0.5 + 0.5) / 2
    assert "its JCT 1.14x theirs" in cause                                  # 4 / 3.5 on the reversed workload
    assert "below the fastest on 1 (sklearn/lir)" in cause and "baselines reversed on 1 (sklearn/svm)" in cause
    assert "(spottune_jct_ordering.csv)" in cause
    assert names_mechanism(cause) == (True, "")


def test_jct_ordering_cause_empty_when_the_ordering_holds():
    per = _per({"sklearn/lir": {"single-fastest": 1.0, "spottune-0.7": 2.0, "spottune-1": 4.0, "single-cheapest": 3.0}})
    assert report.jct_ordering(per).set_index("workload").loc["mean", "position"] == "between"
    assert report.jct_ordering_cause(report.jct_ordering(per)) == ""


# --------------------------------------------------------------------------- Fig. 8(b): the first phase's work
def _plateau_set():
    # setting 0: constant, so it plateaus at step 4 (two flat half-windows of 2); 10 s a step
    # setting 1: 1/j + 0.6, never flat to 0.1 % within 20 steps; 1 s a step
    j = np.arange(1, 21)
    return job_set("user/plateau", [np.full(20, 1.0), 1.0 / j + 0.6],
                   [{"r4.large": 10.0}, {"r4.large": 1.0}])


def test_phase1_work_caps_the_slowest_setting_at_its_plateau():
    w = ECS.phase1_work([_plateau_set()], [0.5, 0.7, 1.0]).set_index("theta")
    # θ = 0.5: 10 steps each; setting 0 stops at 4: max(4 x 10, 10 x 1) = 40 of max(20 x 10, 20 x 1) = 200
    assert w.loc[0.5, "work"] == pytest.approx(0.2)
    assert w.loc[0.5, "work_no_plateau"] == pytest.approx(0.5)              # 10 x 10 / 200
    assert w.loc[0.7, "work"] == pytest.approx(0.2)                         # still 4 steps
    assert w.loc[0.7, "work_no_plateau"] == pytest.approx(0.7)              # 14 x 10 / 200
    assert w.loc[1.0, "work"] == w.loc[1.0, "work_no_plateau"] == 1.0       # θ = 1: no plateau stop
    assert list(w["plateau_stopped"]) == [1, 1, 0]


def test_fig8_linear_cause_from_the_work():
    w = ECS.phase1_work([_plateau_set()], [0.5, 0.7, 1.0])
    cause = report.fig8_linear_cause(w, jct_r2=0.85)
    # the straight line through (0.5, 0.2), (0.7, 0.2), (1, 1): Sxy = 0.21333, Sxx = 0.12667, Syy = 0.42667,
    # R² = Sxy² / (Sxx Syy) = 0.842; without the plateau stop (0.5, 0.7, 1) lies on y = x: R² 1
    assert "0.200, 0.200, 1.000 over θ = 0.5, 0.7, 1" in cause
    assert "R² 0.842 (the JCT's 0.850)" in cause
    assert "R² 1.000 without the plateau stop" in cause
    assert "user/plateau (from θ 0.5 at 0.200)" in cause
    assert names_mechanism(cause) == (True, "")
    assert report.fig8_linear_cause(w, jct_r2=0.95) == ""                   # the claim holds: no cause


# --------------------------------------------------------------------------- top-3 (here top-1) misses
def _miss_set():
    # setting 0: flat at 1.0 for 10 steps, then 0.5: plateau-stopped at step 4 (ranked by 1.0), true final 0.5
    # setting 1: 1/j + 0.6 (the fitted form, beta = (0, 1, 0, 0.6)): predicted and true final 1/20 + 0.6 = 0.65
    j = np.arange(1, 21)
    return job_set("user/miss", [np.r_[np.full(10, 1.0), np.full(10, 0.5)], 1.0 / j + 0.6], {"r4.large": 1.0})


def test_topk_misses_names_the_plateau_stopped_best():
    js = _miss_set()
    claim = ECS.topk_claim([js], [0.7, 1.0], k=1).set_index("theta")
    assert not claim.loc[0.7, "top1"] and claim.loc[1.0, "top1"]
    m = ECS.topk_misses([js], [0.7, 1.0], k=1)
    assert len(m) == 1                                                      # θ = 1 ranks by the true finals
    r = m.iloc[0]
    assert (r["job_set"], r["theta"], r["best"], r["settings"]) == ("user/miss", 0.7, 0, 2)
    assert r["best_plateau_stop"] and r["best_predicted"] == 1.0 and r["best_final"] == 0.5
    assert r["best_error"] == pytest.approx(1.0)                            # (1.0 - 0.5) / 0.5
    assert (r["rank_earlycurve"], r["rank_single_stage"], r["rank_seen"]) == (2, 2, 1)   # seen at step 14: 0.5 < 0.671
    assert r["split_settings"] == 0                                         # a drop of exactly 0.5 is not > alpha
    assert r["top"] == "1" and abs(r["outrank"]) < 1e-3                     # setting 1's fit is exact
    cause = ECS.top3_cause(m, k=1)
    assert "user/miss at θ = 0.7: the true best is ranked 2 of 2 because its curve plateaued" in cause
    assert "1, +100.0% off its final 0.5" in cause
    assert "by the metric seen at θ it ranks 1" in cause
    assert "Eq. 7 splits none of these curves" in cause and "does not decide these misses" in cause
    assert names_mechanism(cause) == (True, "")
    assert ECS.top3_cause(m.iloc[:0]) == ""


# --------------------------------------------------------------------------- random search's final CNO
def test_random_draws_curve_hypergeometric_p90():
    # 4 points, optimum cost 1: feasible CNOs 1 and 3, one infeasible point, one feasible point of CNO 10
    costs = [1.0, 3.0, 2.0, 10.0]
    feasible = [True, True, False, True]
    c = unstated.random_draws_curve(costs, feasible, 1.0, q=50).set_index("draws")
    # N = 1: P(miss CNO 1) = 3/4 > 0.5; P(miss CNO <= 3) = 2/4 <= 0.5 -> p50 = 3
    assert c.loc[1, "cno"] == 3.0
    # N = 2: P(miss CNO 1) = C(3, 2) / C(4, 2) = 3/6 = 0.5 -> p50 = 1
    assert c.loc[2, "cno"] == 1.0
    assert c.loc[4, "cno"] == 1.0 and c.loc[3, "budget"] == pytest.approx(3 * 4.0)   # mean cost 16 / 4
    c90 = unstated.random_draws_curve(costs, feasible, 1.0, q=90).set_index("draws")
    # N = 1: P(miss every feasible point) = 1/4 > 0.1: no p90
    assert math.isinf(c90.loc[1, "cno"])
    assert c90.loc[3, "cno"] == 3.0             # P(miss 1) = 1/4 > 0.1, P(miss 1 and 3) = 0 <= 0.1


def test_random_draws_causes_fills_a_differing_row_only():
    curve = pd.DataFrame({"draws": [1, 2, 3, 4], "budget": [0.5, 1.0, 1.5, 2.0], "cno": [math.inf, 12.0, 4.0, 2.0]})
    rows = [{"item": unstated.RANDOM_CNO_ITEM, "paper": 10, "workbook": 2.0, "rel_tol": 0.5, "cause": ""},
            {"item": unstated.RANDOM_CNO_ITEM, "paper": 10, "workbook": 9.0, "rel_tol": 0.5, "cause": ""},
            {"item": "other", "paper": 10, "workbook": 2.0, "rel_tol": 0.5}]
    out = unstated.random_draws_causes(rows, curve, tests=4.2, budget=2.1, n_points=4, n_feasible=3)
    cause = out[0]["cause"]
    assert "3 of the 4 points are feasible, the budget $2.1 buys 4 tests per run" in cause
    assert "puts the p90 at 2.00 (measured 2.0)" in cause                   # the nearest whole draws: 4
    assert "the thesis' 10 is that p90 after 2 draws ($1.00 at the mean $0.500 a point)" in cause  # 12 within 50 %
    assert names_mechanism(cause) == (True, "")
    assert out[1]["cause"] == "" and "cause" not in out[2]                  # agrees; another row
