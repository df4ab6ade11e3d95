"""Figs 7/9 with each predictor in the loop, the predictors' calibration in the loop, and Fig. 8's shape
claims with seed intervals (tt_workbook.studies.spottune.readings): hand-made grids with hand-computed answers, a Monte
Carlo calibration check with known rates, and the rows naming their reading."""

from __future__ import annotations

import statistics

import numpy as np
import pandas as pd
import pytest

from tt_workbook.studies.spottune import intervals as I, readings as RD, rows as report


def theta_grid(costs: dict, seeds=(1, 2, 3), noise=None):
    """A θ sweep grid: ``costs[job_set]`` the cost per θ of (0.5, 0.7, 1.0), the same on every seed unless
    ``noise[seed]`` multiplies it; JCT = θ x 10 h (exactly linear)."""
    rows = []
    for seed in seeds:
        for js, cs in costs.items():
            for th, c in zip((0.5, 0.7, 1.0), cs):
                f = 1.0 if noise is None else noise[seed]
                rows.append({"seed": seed, "job_set": js, "theta": th, "approach": f"spottune-{th:g}",
                             "cost": c * f, "jct_s": th * 36000.0})
    return pd.DataFrame(rows)


def test_fig8_shape_claims_on_a_hand_made_sweep():
    # lor: cost proportional to θ; svm: cheaper at 0.7 than at 0.5 (a 20% fall), as the paper's SVM example
    grid = theta_grid({"sklearn/lor": [0.5, 0.7, 1.0], "sklearn/svm": [0.5, 0.4, 1.0]})
    out = I.theta_shape_intervals(grid, n_boot=50)
    t = out["table"].set_index("claim")
    # mean over the two workloads of cost / cost at θ = 1: (0.5, 0.55, 1.0); the correlation by the stdlib's formula
    r = statistics.correlation([0.5, 0.7, 1.0], [0.5, 0.55, 1.0])
    assert r == pytest.approx(0.94993, abs=1e-4)
    assert t.loc["fig8_cost_rises", "value"] == pytest.approx(r)
    assert t.loc["fig8_jct_linear", "value"] == pytest.approx(1.0)
    assert t.loc["fig8_higher_theta_cheaper", "value"] == pytest.approx(-0.2)       # (0.4 - 0.5) / 0.5
    # every seed the same: the bootstrap interval collapses onto the point and the claims hold in every resample
    assert t.loc["fig8_cost_rises", "lo"] == pytest.approx(r) and t.loc["fig8_cost_rises", "hi"] == pytest.approx(r)
    assert (t["share_holds"] == 1.0).all()
    assert out["values"] == {"fig8_cost_rises": True, "fig8_jct_linear": True, "fig8_higher_theta_cheaper": True}
    assert "sklearn/svm, θ 0.5 -> 0.7" in out["text"]["fig8_higher_theta_cheaper"]
    # monotone costs: no fall (the largest change is the smallest rise, 0.7 -> 1.0 of lor: +3/7)
    mono = I.theta_shape_intervals(theta_grid({"sklearn/lor": [0.5, 0.7, 1.0], "sklearn/svm": [0.5, 0.6, 1.0]}), n_boot=0)
    assert mono["values"]["fig8_higher_theta_cheaper"] is False
    assert mono["table"].set_index("claim").loc["fig8_higher_theta_cheaper", "value"] == pytest.approx(0.1 / 0.5)


def test_fig8_shape_weights_workloads_not_job_sets():
    # three CNN groups (one workload) and one scikit-learn model: the workload means weigh 1/2 each
    costs = {"cnn/a": [0.5, 0.7, 1.0], "cnn/b": [0.5, 0.7, 1.0], "cnn/c": [0.5, 0.7, 1.0], "sklearn/svm": [1.0, 1.0, 1.0]}
    t = I.theta_shape_intervals(theta_grid(costs), n_boot=0)["table"].set_index("claim")
    mean = [(0.5 + 1.0) / 2, (0.7 + 1.0) / 2, 1.0]
    assert t.loc["fig8_cost_rises", "value"] == pytest.approx(statistics.correlation([0.5, 0.7, 1.0], mean))


def test_fig8_interval_widens_with_seed_noise_and_contains_the_point():
    rng = np.random.default_rng(5)
    noise = {s: float(rng.uniform(0.5, 1.5)) for s in range(1, 9)}
    # the noise scales a seed's whole cost row of one job set, so ratios to θ = 1 differ by seed only
    # through the mean over seeds; give svm's 0.7 its own noise to make the shape vary
    grid = theta_grid({"sklearn/lor": [0.5, 0.7, 1.0], "sklearn/svm": [0.5, 0.45, 1.0]}, seeds=range(1, 9))
    m = (grid["job_set"] == "sklearn/svm") & (grid["theta"] == 0.7)
    grid.loc[m, "cost"] = grid.loc[m, "seed"].map(noise) * 0.45
    t = I.theta_shape_intervals(grid, n_boot=400, rng=np.random.default_rng(1))["table"].set_index("claim")
    row = t.loc["fig8_higher_theta_cheaper"]
    assert row["lo"] < row["value"] < row["hi"] and row["hi"] - row["lo"] > 0.05
    assert 0 < row["share_holds"] <= 1


def test_fig8_sweep_with_a_missing_cell_is_refused():
    grid = theta_grid({"sklearn/lor": [0.5, 0.7, 1.0]})
    with pytest.raises(ValueError, match="lacks simulations"):
        I.theta_shape_intervals(grid.iloc[1:], n_boot=0)


def test_calibration_in_the_loop_recovers_known_rates():
    """Monte Carlo: predictor "good" says 0.2 and revocations happen with probability 0.2; "bold" says 0.8 for
    the same deployments. The realised rates must be 0.2 within 4 standard errors, the gaps 0 and 0.6."""
    rng = np.random.default_rng(11)
    n = 4000
    revoked = rng.random(n) < 0.2
    reason = np.where(revoked, "revoked", "hourly")
    rows = pd.concat([pd.DataFrame({"predictor": name, "p_revoke": p, "reason": reason})
                      for name, p in (("good", 0.2), ("bold", 0.8))]
                     + [pd.DataFrame({"predictor": ["good"] * 50, "p_revoke": 0.2, "reason": "finished"})])
    summary, curve = RD.loop_calibration(rows)
    s = summary.set_index("predictor")
    se = np.sqrt(0.2 * 0.8 / n)
    assert (s["deployments"] == n).all()                        # the 50 finished early are not exposed for the hour
    assert abs(s.loc["good", "realised"] - 0.2) < 4 * se and s.loc["good", "realised"] == s.loc["bold", "realised"]
    assert abs(s.loc["good", "gap"]) < 4 * se and s.loc["bold", "gap"] == pytest.approx(0.8 - s.loc["bold", "realised"])
    assert s.loc["good", "realised_se"] == pytest.approx(se, rel=0.05)
    assert curve.groupby("predictor")["deployments"].sum().to_dict() == {"good": n, "bold": n}


def test_predictor_range_text_names_each_predictor():
    table = pd.DataFrame({"predictor": ["revpred", "tributary", "logistic"], "st07_cheapest": [True, False, True]})
    text = RD.predictor_range_text(table, "st07_cheapest")
    assert text.endswith("RevPred: holds; Tributary's predictor: does not; logistic regression: holds")
    assert RD.predictor_range_text(table, "unknown") == ""


def test_rows_name_the_reading_and_the_predictor():
    reading = RD.reading_text("revpred", "tributary", 9, "one synthetic market (seed 1) x 10 submission times")
    assert reading.startswith(", RevPred in the loop (main reading), random maximum prices")
    rows = report.claim_rows({"st07_cheapest": True, "fig8_cost_rises": True}, synthetic_prices=True, reading=reading,
                             keys=["st07_cheapest"])
    assert len(rows) == 1 and rows[0]["item"].endswith(reading)
    other = RD.reading_text("logistic", "algorithm2", 9, "10 markets")
    assert "logistic regression in the loop, Alg. 2 maximum prices" in other and "main reading" not in other
    st = {"saving_st1_vs_cheapest": 0.4}
    assert report.fig7_rows(st, True, reading=reading)[0]["item"].endswith(reading)
