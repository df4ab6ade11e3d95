"""Fig. 2 statistics (tt_workbook.studies.fig1_fig2.savings) and the initial-design check (tt_workbook.studies.fig1_fig2.initial_design).

Independent known answers: the paper's own Fig. 2 bar heights, reproduced from the paper's own Fig. 1
curves (both read from the PDF); hand-computed cases; a Monte Carlo check of the hypergeometric formula.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from tt_workbook.studies.fig1_fig2.initial_design import design_hits, good_configs, uniform_hit_probability
from tt_workbook.studies.fig1_fig2.savings import READINGS, curve_savings, first_reach, mean_curve, savings_readings
from tt_workbook.studies.fig1_fig2.trajectories import best_feasible_accuracy
from tt_workbook.studies.fig1_fig2 import paper_figures as pf
from tt_core.data.benchmarks import load_benchmark

needs_figures = pytest.mark.skipif(pf.locate() is None, reason="paper figure data not available")


@pytest.fixture(scope="module")
def benches():
    return {b: load_benchmark(b) for b in ("rnn", "cnn")}


@needs_figures
def test_mean_curve_reading_reproduces_the_papers_fig2_bars(benches):
    targets = {b: 0.9 * best_feasible_accuracy(x) for b, x in benches.items()}
    sav = curve_savings(pf.paper_curves("fig1"), targets, "trimtuner-dt",
                        ["eic", "eic-usd", "trimtuner-gp"], y="y", x={"cost": "x"}).set_index(["benchmark", "baseline"])
    bars = pf.paper_fig2_bars().set_index(["benchmark", "baseline"])["cost"]
    for key in [("rnn", "eic-usd"), ("rnn", "trimtuner-gp"), ("cnn", "eic-usd")]:
        assert sav.loc[key, "cost_ratio"] == pytest.approx(bars[key], abs=0.05), key
    # the RNN EIc curve is drawn only to $0.20, where it has not reached the target yet
    assert np.isnan(sav.loc[("rnn", "eic"), "cost_ratio"])


@needs_figures
def test_fig3_savings_come_out_on_fig1s_cost_axis(benches):
    """The paper's 3.62x (CMA-ES) and 7x (DIRECT) from its own Fig. 3 curves, once shifted to Fig. 1's axis."""
    targets = {"rnn": 0.9 * best_feasible_accuracy(benches["rnn"])}
    curves = pf.paper_curves("fig3", align_to_fig1=True)
    sav = curve_savings(curves, targets, "CEA", ["CMA-ES", "DIRECT"], key="variant", y="y", x={"cost": "x"})
    r = sav.set_index("baseline")["cost_ratio"]
    assert r["CMA-ES"] == pytest.approx(3.62, abs=0.01)
    assert r["DIRECT"] == pytest.approx(7.0, abs=0.3)


def test_first_reach_by_hand():
    assert first_reach([1, 2, 3, 4], [0.1, 0.95, 0.5, 0.99], 0.9) == 2
    assert first_reach([1, 2], [np.nan, 0.9], 0.9) == 2
    assert np.isnan(first_reach([1, 2], [0.1, 0.2], 0.9))


def _runs(opt, seeds_costs_accs, bench="rnn", n_init=1):
    rows = []
    for seed, (costs, accs) in seeds_costs_accs.items():
        for i, (c, a) in enumerate(zip(costs, accs)):
            rows.append({"benchmark": bench, "optimizer": opt, "variant": opt, "seed": seed, "iteration": i + 1,
                         "phase": "init" if i < n_init else "bo", "cumulative_cost": c, "cumulative_time": 10 * c,
                         "accuracy_c": a, "incumbent_accuracy": a, "incumbent_cost": 0.01})
    return pd.DataFrame(rows)


def test_mean_curve_is_iteration_aligned_by_hand():
    runs = _runs("a", {1: ([1, 2, 3], [0.2, 0.4, 0.9]), 2: ([3, 4], [0.6, 0.8])})
    c = mean_curve(runs)
    assert list(c["iteration"]) == [1, 2, 3]
    assert list(c["cost"]) == pytest.approx([2, 3, 3.5])          # the short run keeps its last state (4)
    assert list(c["accuracy_c"]) == pytest.approx([0.4, 0.6, 0.85])
    assert list(c["time"]) == pytest.approx([20, 30, 35])
    assert list(c["initial"]) == [True, False, False]


def test_readings_by_hand(benches):
    t = 0.9 * best_feasible_accuracy(benches["rnn"])  # 0.882
    hi, lo = 0.95, 0.5
    # method reaches at costs 1 and 2; baseline at 4 and 10 (same seeds)
    m = _runs("m", {1: ([0.5, 1, 3], [lo, hi, hi]), 2: ([1, 2, 3], [lo, hi, hi])})
    b = _runs("b", {1: ([2, 4, 6], [lo, hi, hi]), 2: ([5, 10, 12], [lo, hi, hi])})
    r = savings_readings(pd.concat([m, b]), benches, "m", ["b"], n_boot=200, seed=1)
    cost = r[r["quantity"] == "cost"].set_index("reading")
    assert cost.loc["median over runs", "value"] == pytest.approx(7 / 1.5)
    assert cost.loc["mean over runs", "value"] == pytest.approx(7 / 1.5)
    assert cost.loc["mean of per-run ratios", "value"] == pytest.approx(4.5)
    assert cost.loc["largest per-run ratio", "value"] == pytest.approx(5.0)
    # mean curves: method (0.75, lo), (1.5, hi) -> 1.5; baseline (3.5, lo), (7, hi) -> 7
    assert cost.loc["mean curve", "value"] == pytest.approx(7 / 1.5)
    assert (cost["lo"] <= cost["value"] + 1e-12).all() and (cost["value"] <= cost["hi"] + 1e-12).all()
    # the bootstrap can only see the two per-run ratios 4 and 5
    assert cost.loc["largest per-run ratio", "lo"] >= 4 - 1e-12
    assert list(r["reading"].unique()) == list(READINGS)
    time = r[r["quantity"] == "time"].set_index("reading")
    assert time.loc["mean curve", "value"] == pytest.approx(7 / 1.5)  # time = 10 x cost here
    assert set(r["method_reached"]) == {"2/2"} and t < hi


def test_unreached_runs_count_at_their_total_cost(benches):
    lo, hi = 0.5, 0.95
    m = _runs("m", {1: ([1, 2], [hi, hi])})
    b = _runs("b", {1: ([3, 8], [lo, lo])})
    r = savings_readings(pd.concat([m, b]), benches, "m", ["b"], n_boot=10)
    cost = r[r["quantity"] == "cost"].set_index("reading")
    assert cost.loc["median over runs", "value"] == pytest.approx(8.0)
    assert cost.loc["mean curve", "value"] == pytest.approx(8.0)
    assert not cost["curve_reached"].any() and set(cost["baseline_reached"]) == {"0/1"}


def test_uniform_hit_probability_by_monte_carlo():
    rng = np.random.default_rng(0)
    n, g, k, trials = 288, 37, 4, 40000
    hits = sum((rng.choice(n, size=k, replace=False) < g).any() for _ in range(trials))
    assert hits / trials == pytest.approx(uniform_hit_probability(n, g, k), abs=0.01)
    assert uniform_hit_probability(10, 0, 4) == 0 and uniform_hit_probability(10, 7, 4) == 1


def test_good_configs_and_random_design(benches):
    b = benches["rnn"]
    good = good_configs(b)
    full = b.full_size().set_index("config_id")
    assert (full.loc[good, "cost"] <= 0.02).all()
    assert (full.loc[good, "accuracy"] >= 0.9 * best_feasible_accuracy(b) - 1e-12).all()
    hits = design_hits(b, "random", range(1, 4))
    assert (hits["configs"].map(len) == 4).all()
