"""EIc/USD mechanism trace (tt_workbook.studies.fig1_fig2.eic_usd): hand-checked arithmetic and one short replay."""

import numpy as np
import pandas as pd
import pytest

from tt_workbook.studies.fig1_fig2 import eic_usd


def test_step_record_by_hand():
    # EIc / cost = [0.25, 0.5, 1.0]: the division moves the argmax from 0 (largest EIc) to 2 (cheapest)
    r = eic_usd.step_record([1.0, 0.5, 0.1], [4.0, 1.0, 0.1])
    assert (r["i_usd"], r["i_eic"], r["i_cheapest"], r["same"]) == (2, 0, 2, False)
    assert r["eic_ratio"] == pytest.approx(0.1)  # EIc of the pick / max EIc
    assert r["cost_ratio"] == pytest.approx(0.1 / 4.0)
    assert r["eic_decades"] == pytest.approx(np.log10(1.0 / 0.5))  # max / median
    assert r["cost_decades"] == pytest.approx(np.log10(4.0 / 1.0))
    assert r["cost_range_decades"] == pytest.approx(np.log10(40.0))
    assert r["eic_range_decades"] == pytest.approx(1.0)
    # contenders: EIc >= 1.0 * 0.1 / 4.0 = 0.025 -> all three
    assert r["n_contenders"] == 3


def test_step_record_ei_spread_dominates():
    # EIc spans 6 decades, cost 1 decade: the most valuable candidate stays the argmax despite costing 10x
    r = eic_usd.step_record([1.0, 1e-3, 1e-6], [1.0, 0.1, 0.1])
    assert (r["i_usd"], r["i_eic"], r["same"]) == (0, 0, True)
    assert r["n_contenders"] == 1  # only EIc >= 1.0 * 0.1 / 1.0 = 0.1
    assert r["cost_ratio"] == 1.0


def test_step_record_rejects_bad_costs():
    with pytest.raises(ValueError):
        eic_usd.step_record([1.0, 2.0], [1.0, 0.0])
    with pytest.raises(ValueError):
        eic_usd.step_record([1.0], [1.0, 2.0])


def test_trace_replays_the_same_run():
    from tt_core.replay.driver import run_optimization

    t = eic_usd.trace_run("rnn", 1, iterations=7)
    assert list(t["iteration"]) == [5, 6, 7]  # 4 Latin-hypercube tests, then BO
    plain = run_optimization("rnn", "eic-usd", seed=1, iterations=7)
    assert list(t["chosen"]) == list(plain["config_id"].iloc[4:7])
    assert np.allclose(t["true_cost_usd"], plain["cost"].iloc[4:7])
    s = eic_usd.summarise(t.assign(benchmark="rnn"))
    assert s.loc[0, "steps"] == 3 and 0.0 <= s.loc[0, "same_share"] <= 1.0
    assert "rnn (1 seeds, 3 BO steps)" in eic_usd.measured_cause(s)


def test_fig1_rows_append_the_mechanism():
    from tt_workbook.studies.fig1_fig2.rows import fig1_rows

    stats = pd.DataFrame({"benchmark": ["rnn"] * 3, "optimizer": ["trimtuner-dt", "eic", "eic-usd"],
                          "cost_per_test": [0.002, 0.03, 0.029], "mean_s": [0.1, 1.0, 1.0]})
    mix = pd.DataFrame({"benchmark": ["rnn"], "s": [1 / 60], "share": [0.5]})
    rows = {r["item"]: r for r in fig1_rows(stats, pd.DataFrame(), mix, eic_usd={"rnn": "MECHANISM"})}
    usd = rows["rnn: cost per test, EIc-USD / TrimTuner-DT"]
    assert usd["workbook"] == pytest.approx(14.5)
    assert usd["cause"].endswith("why EIc/USD costs about as much as EIc: MECHANISM (fig1_eic_usd_mechanism.csv)")
    assert "MECHANISM" not in rows["rnn: cost per test, EIc / TrimTuner-DT"]["cause"]
