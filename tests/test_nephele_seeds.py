"""Seed resampling of the thesis-§6.4 rows (tt_workbook.studies.nephele.rows.seed_intervals / with_seed_causes)."""

import numpy as np
import pandas as pd
import pytest

from tt_workbook.studies.nephele import rows as report

ITEM = "CNN: a made-up ratio (ratio)"


def _fake_rows(d, optima, q=90.0):
    # the row's value: the mean over the runs' rows of v (a seed drawn twice must count twice)
    return [{"source": "thesis §6.4", "item": ITEM, "paper": 0.9, "workbook": float(d["v"].mean()), "rel_tol": 0.25}]


def test_resampling_two_seeds_by_hand(monkeypatch):
    monkeypatch.setattr(report, "section_6_4_rows", _fake_rows)
    df = pd.DataFrame({"seed": [1, 2], "v": [0.0, 1.0]})
    rows = _fake_rows(df, None)  # 0.5: differs from 0.9 by more than 25%
    iv = report.seed_intervals(df, None, rows, n_boot=2000, rng=0).set_index("item")
    # draws of two seeds: (1,1) -> 0, (2,2) -> 1, mixed -> 0.5, with probabilities 1/4, 1/4, 1/2;
    # the central 90% interval therefore spans [0, 1]
    assert iv.loc[ITEM, "lo"] == 0.0 and iv.loc[ITEM, "hi"] == 1.0 and iv.loc[ITEM, "seeds"] == 2
    out = report.with_seed_causes(rows, iv.reset_index())
    assert out[0]["cause"].startswith("seeds: 2 runs (thesis: 100)") and "[0.00, 1.00]" in out[0]["cause"]


def test_identical_seeds_leave_nothing_to_resample(monkeypatch):
    monkeypatch.setattr(report, "section_6_4_rows", _fake_rows)
    df = pd.DataFrame({"seed": [1, 2, 3], "v": [0.5, 0.5, 0.5]})
    rows = _fake_rows(df, None)
    iv = report.seed_intervals(df, None, rows, n_boot=50, rng=1)
    assert iv["lo"].iloc[0] == iv["hi"].iloc[0] == 0.5
    out = report.with_seed_causes(rows, iv)
    assert not out[0].get("cause") and "seed resampling does not explain it" in out[0]["note"]


def test_statements_use_the_share_of_draws():
    rows = [{"item": "RNN: x is always the worst (statement)", "paper": True, "workbook": False, "note": "n"}]
    iv = pd.DataFrame([{"item": rows[0]["item"], "paper": True, "workbook": False, "lo": np.nan, "hi": np.nan,
                        "share_true": 0.2, "draws": 30, "seeds": 10}])
    assert "holds in 20% of 30" in report.with_seed_causes(rows, iv)[0]["cause"]
    iv["share_true"] = 0.0
    out = report.with_seed_causes(rows, iv)[0]
    assert not out.get("cause") and out["note"].startswith("n; seed resampling does not explain it")


def test_rows_that_agree_or_have_a_cause_are_not_resampled(monkeypatch):
    monkeypatch.setattr(report, "section_6_4_rows", _fake_rows)
    df = pd.DataFrame({"seed": [1, 2], "v": [0.9, 0.9]})
    assert report.seed_intervals(df, None, _fake_rows(df, None), n_boot=5).empty
    caused = [dict(_fake_rows(pd.DataFrame({"seed": [1], "v": [0.1]}), None)[0], cause="measured elsewhere")]
    assert report.seed_intervals(df, None, caused, n_boot=5).empty


def test_cost_scale_cause_by_hand():
    # CNN: the thesis' 8 full-size and 20 random-size initial tests for $5 imply $0.625 and $0.25 per test;
    # with the data's means $0.25 (full) and $0.125 (random) that is 2.5x and 2.0x: a lynceus / nephele
    # spend ratio of 1.2 (31% below the thesis' 1.75) re-priced becomes 1.2 * 2.5 / 2.0 = 1.5 (within 25%)
    check = pd.DataFrame([{"benchmark": "cnn", "mean_cost_full_size": 0.25, "mean_cost_all_sizes": 0.125}])
    rows = [{"item": "CNN: exploration cost lynceus / nephele to reach CNO = 10 (ratio)", "paper": 1.75,
             "workbook": 1.2, "note": "n"},
            {"item": "CNN: exploration cost cherrypick / nephele to reach CNO = 10 (ratio)", "paper": 2.13,
             "workbook": 1.0, "note": "n"},
            {"item": "CNN: random search's final CNO (ratio)", "paper": 10, "workbook": 2.0, "note": "n"}]
    out = report.with_cost_scale_causes(rows, check)
    assert "becomes 1.50 (agrees" in out[0]["cause"] and "2.5x (full size) and 2.0x (random size)" in out[0]["cause"]
    assert not out[1].get("cause") and "becomes 1.25, still not the thesis'" in out[1]["note"]  # 1.0 * 1.25
    assert out[2] == rows[2]  # not an exploration-cost ratio


def _spend_grid():
    # three spend grid points; values typed by hand
    return pd.DataFrame({"nephele": [4.0, 2.0, 1.0], "lynceus": [8.0, 3.0, 2.5], "cherrypick": [6.0, 5.0, 2.0]},
                        index=pd.Index([1.0, 2.0, 3.0], name="cumulative_cost"))


def test_best_case_ratio_by_hand():
    piv = _spend_grid()
    # lynceus / nephele: 2, 1.5, 2.5 -> 2.5; cherrypick / nephele: 1.5, 2.5, 2 -> 2.5
    assert report.best_case_ratio(piv, "lynceus") == 2.5
    assert report.best_case_ratio(piv, "cherrypick") == 2.5
    assert np.isnan(report.best_case_ratio(piv.iloc[:0], "lynceus"))


def test_always_worst_by_hand():
    piv = _spend_grid()
    # cherrypick is the highest at 2.0 only (5 > 3, 2); at 1.0 lynceus (8) and at 3.0 lynceus (2.5) are higher
    assert report.always_worst(piv, "cherrypick", ["nephele", "lynceus"]) == (False, 1, 3)
    # a tie counts as worst
    tied = piv.assign(cherrypick=[8.0, 5.0, 2.5])
    assert report.always_worst(tied, "cherrypick", ["nephele", "lynceus"]) == (True, 3, 3)


def test_value_when_by_hand():
    piv = _spend_grid()
    # nephele first reaches 1.0 at spend 3.0, where lynceus is at 2.5
    assert report.value_when(piv, "lynceus") == (3.0, 2.5)
    # it first reaches 2.0 at spend 2.0, where cherrypick is at 5.0
    assert report.value_when(piv, "cherrypick", target=2.0) == (2.0, 5.0)
    x, v = report.value_when(piv, "lynceus", target=0.5)
    assert np.isnan(x) and np.isnan(v)


def _runs_by_hand():
    """RNN, two seeds. Lynceus and CherryPick share two initial tests (configs 1, 2), then differ; target CNO 2."""
    rows = []
    def run(opt, seed, steps):
        c = 0.0
        for i, (phase, cfg, cost, cno) in enumerate(steps, 1):
            c += cost
            rows.append({"benchmark": "rnn", "optimizer": opt, "seed": seed, "horizon": 0, "iteration": i,
                         "phase": phase, "config_id": cfg, "charged_cost": cost, "cumulative_cost": c,
                         "cno": cno, "cno_space": cno})
    for seed in (1, 2):
        run("nephele", seed, [("init", 7, 0.5, 3.0), ("init", 8, 0.5, 2.0 if seed == 1 else 3.0), ("bo", 9, 0.1, 1.0)])
        run("lynceus", seed, [("init", 1, 0.5, 3.0), ("init", 2, 0.5, 1.5), ("bo", 3, 0.4, 1.0)])
        run("cherrypick", seed, [("init", 1, 0.5, 3.0), ("init", 2, 0.5, 1.5), ("bo", 4, 0.2, 1.0)])
    return pd.DataFrame(rows)


def test_values_at_spend_by_hand():
    from tt_workbook.studies.nephele.analysis import values_at_spend

    d = _runs_by_hand()
    lyn = d[(d["optimizer"] == "lynceus")]
    # seed 1's run: $0.5 -> CNO 3, $1.0 -> 1.5, $1.4 -> 1.0; before $0.5 nothing (+inf)
    assert values_at_spend(lyn, 0.4).tolist() == [np.inf, np.inf]
    assert values_at_spend(lyn, 0.99).tolist() == [3.0, 3.0]
    assert values_at_spend(lyn, 1.0).tolist() == [1.5, 1.5]
    assert values_at_spend(lyn, 5.0).tolist() == [1.0, 1.0]


def test_shared_start_by_hand():
    from tt_workbook.studies.nephele.analysis import shared_start

    st = shared_start(_runs_by_hand(), 2.0, q=50.0).set_index("optimizer")
    # Nephele: seed 1 reaches CNO <= 2 at its last initial test ($1.0), seed 2 only with its BO test ($1.1)
    assert st.loc["nephele", "share_after_init"] == 0.5
    assert st.loc["nephele", "spend_to_target"] == pytest.approx(1.05) and st.loc["nephele", "init_spend"] == 1.0
    # CherryPick repeats Lynceus' two initial tests, then its own (cheaper) BO test
    assert st.loc["cherrypick", "same_as_lynceus"] == 2 and st.loc["lynceus", "same_as_lynceus"] == 3
    assert st.loc["cherrypick", "bo_test_cost"] == pytest.approx(0.2) and st.loc["lynceus", "bo_test_cost"] == pytest.approx(0.4)
    assert st.loc["lynceus", "share_after_init"] == 1.0 and st.loc["lynceus", "bo_tests"] == 1.0
    cause = report.shared_start_cause(_runs_by_hand(), 2.0, q=50.0)
    assert "nephele 50%, lynceus 100%, cherrypick 100%" in cause and "0.50x Lynceus'" in cause
    worst = report.shared_start_cause(_runs_by_hand(), 2.0, q=50.0, worst_at=(40, 48))
    assert "identical for their first 2 explorations" in worst and "at 8 of 48 spend points" in worst
    # a target the initial sampling does not reach for half the runs: no cause from it
    assert report.shared_start_cause(_runs_by_hand(), 1.2, q=50.0) == ""
    # CNO 3 is reached with the first initial test ($0.5, half the initial spend): the spends do not sit at
    # the end of the initial sampling, so no cause from it either
    assert report.shared_start_cause(_runs_by_hand(), 3.0, q=50.0) == ""


def test_floor_cause_by_hand():
    # Lynceus sits on its floor 4.0 at $2 in both runs, Nephele at the optimum: every reading is 4.0
    rows = []
    for seed in (1, 2):
        for opt, cnos in (("nephele", [3.0, 1.0]), ("lynceus", [8.0, 4.0])):
            for i, cno in enumerate(cnos, 1):
                rows.append({"benchmark": "cnn", "optimizer": opt, "seed": seed, "horizon": 0, "iteration": i,
                             "cumulative_cost": float(i), "cno": cno})
    d = pd.DataFrame(rows)
    optima = pd.DataFrame([{"network": "cnn", "cno_floor_full_size": 4.0}])
    cause = report.floor_cause(d, 2.0, optima, "cnn", 2.5, q=90.0)
    assert "100% of Nephele's runs are at the optimum and 100% of Lynceus' at its floor" in cause
    assert "(p90 4.00, median 4.00, mean 4.00)" in cause and "75% reduction" in cause
    assert report.floor_cause(d, 2.0, optima, "cnn", 4.2, q=90.0) == ""   # a reading agrees: not the floor
    assert report.floor_cause(d, 1.0, optima, "cnn", 2.5, q=90.0) == ""   # at $1 nobody is at floor/optimum
