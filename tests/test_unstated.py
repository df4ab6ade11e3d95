"""Verdicts under unstated settings (tt_workbook.studies.unstated): ranges and flips computed by hand."""

import pytest

from tt_workbook.studies import unstated as us
from tt_workbook.report.summary import agree


@pytest.mark.parametrize("paper, workbook, flip", [(2.4, 4.48, 4.48 / 2.4), (10.0, 4.0, 2.5), (1.0, 1.0, 1.0),
                                                   (1.0, 0.0, None), (None, 1.0, None), (1.0, float("nan"), None)])
def test_factor_flip_by_hand(paper, workbook, flip):
    assert us.factor_flip(paper, workbook) == (pytest.approx(flip) if flip is not None else None)


def test_tolerance_note_by_hand():
    # 4.48 vs 2.4: 1.87x apart -> differs within 1.5x, agrees within 2x
    assert us.tolerance_note(2.4, 4.48) == "tolerance: within 1.5x differs, within 2x agrees (flips at 1.87x)"
    # the rule is the summary's: agree(p, w, factor=f) is True exactly when f >= the flip
    for f in (1.5, 1.86, 1.87, 2.0):
        assert agree(2.4, 4.48, factor=f) is (us.factor_flip(2.4, 4.48) <= f)
    assert us.tolerance_note(10.0, 4.0) == "tolerance: within 1.5x differs, within 2x differs (flips at 2.5x)"
    row = us.with_tolerance_note({"paper": 10.0, "workbook": 4.0, "factor": 2.0, "note": "n"})
    assert row["note"] == "n; tolerance: within 1.5x differs, within 2x differs (flips at 2.5x)"
    for untouched in ({"paper": True, "workbook": True}, {"paper": 1.0, "workbook": 1.1, "rel_tol": 0.2},
                      {"paper": 1.0, "workbook": None, "factor": 2.0}):
        assert us.with_tolerance_note(untouched) == untouched


def test_holds_ranges_and_range_note_by_hand():
    xs = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]
    ok = [True, True, False, None, True, False]
    assert us.holds_ranges(xs, ok) == [(1.0, 2.0), (5.0, 5.0)]
    text = us.range_note(xs, ok, "B", fmt="${:g}", current=6.0)
    # decided points: 1 T, 2 T, 3 F, 5 T, 6 F -> flips at 3 (T -> F), 5 (F -> T) and 6 (T -> F); 4 has no verdict
    assert text == ("holds for B in [$1, $2] and [$5, $5] (grid $1 to $6, 6 points); flips at $3, $5, $6; "
                    "no verdict at 1 grid point(s), $4 to $4; this row: $6")
    assert us.range_note([1.0, 2.0], [True, True], "B") == "holds for B in [1, 2] (grid 1 to 2, 2 points); never flips on the grid"
    assert us.range_note([1.0, 2.0], [False, False], "B").startswith("holds for B in no value")
    with pytest.raises(ValueError, match="ascending"):
        us.holds_ranges([2.0, 1.0], [True, True])


def test_settings_note_by_hand():
    rule = lambda v: agree(2.4, v, factor=2.0)  # noqa: E731
    values = {"DT, BO tests": 5.2, "DT, all tests": 4.48, "GP, BO tests": 3.0, "GP, all tests": None}
    text = us.settings_note(values, rule, "DT, BO tests")
    # 5.2 / 2.4 = 2.17 > 2: differs; 4.48 / 2.4 = 1.87: agrees; 3.0 / 2.4 = 1.25: agrees
    assert text == ("under other unstated settings: DT, all tests 4.48 (agrees); GP, BO tests 3.00 (agrees); the "
                    "verdict (differs under DT, BO tests) flips under: DT, all tests, GP, BO tests "
                    "(not run here: GP, all tests)")
    same = us.settings_note({"a": 5.2, "b": 6.0}, rule, "a")
    assert same.endswith("the verdict (differs under a) holds under all of them")
    assert us.settings_note({"a": 5.2, "b": None}, rule, "a") == ""


def _fig1_runs():
    import pandas as pd

    # (optimizer, phase, cost, size) per test; one run per optimiser on the "cnn", max size 60
    tests = [("trimtuner-dt", "init", 0.1, 15), ("trimtuner-dt", "init", 0.1, 15),
             ("trimtuner-dt", "bo", 0.2, 6), ("trimtuner-dt", "bo", 0.2, 6),
             ("eic", "init", 1.0, 60), ("eic", "init", 1.0, 60), ("eic", "bo", 1.0, 60), ("eic", "bo", 1.0, 60),
             ("trimtuner-gp", "init", 0.1, 15), ("trimtuner-gp", "init", 0.1, 15),
             ("trimtuner-gp", "bo", 0.4, 30), ("trimtuner-gp", "bo", 0.4, 30)]
    return pd.DataFrame([{"benchmark": "cnn", "optimizer": o, "seed": 1, "phase": p, "cost": c, "size": s}
                         for o, p, c, s in tests])


def test_per_test_costs_by_hand():
    c = us.per_test_costs(_fig1_runs(), {"cnn": 60}).set_index(["optimizer", "counted"])
    assert c.loc[("trimtuner-dt", "BO tests"), "cost_per_test"] == pytest.approx(0.2)
    assert c.loc[("trimtuner-dt", "all tests"), "cost_per_test"] == pytest.approx(0.15)
    assert c.loc[("trimtuner-gp", "all tests"), "cost_per_test"] == pytest.approx(0.25)
    assert c.loc[("trimtuner-dt", "BO tests"), "mean_s"] == pytest.approx(0.1)
    assert c.loc[("trimtuner-dt", "all tests"), "mean_s"] == pytest.approx(0.175)
    assert c.loc[("trimtuner-gp", "BO tests"), "tests"] == 2


def test_fig1_settings_notes_by_hand():
    costs = us.per_test_costs(_fig1_runs(), {"cnn": 60})
    rows = [{"item": "cnn: cost per test, EIc / TrimTuner-DT", "paper": 2.4, "workbook": 5.0, "factor": 2.0, "note": "n"},
            {"item": "cnn: mean sub-sampling rate of TrimTuner-DT tests", "paper": 0.25, "workbook": 0.1, "factor": 2.0},
            {"item": "something else", "paper": True, "workbook": True}]
    cost, rate, other = us.fig1_settings_notes(rows, costs)
    # EIc per test: 1.0 (BO and all). DT: 0.2 / 0.15 -> 5 and 6.67, both outside [1.2, 4.8]: differ;
    # GP: 0.4 / 0.25 -> 2.5 and 4: agree
    assert cost["note"] == (
        "n; under other unstated settings: TrimTuner-DT, all tests 6.67 (differs); TrimTuner-GP, BO tests 2.50 "
        "(agrees); TrimTuner-GP, all tests 4.00 (agrees); the verdict (differs under TrimTuner-DT, BO tests) flips "
        "under: TrimTuner-GP, BO tests, TrimTuner-GP, all tests (fig1_per_test_costs.csv); "
        "tolerance: within 1.5x differs, within 2x differs (flips at 2.08x)")
    # sizes: DT 0.1 (BO) and 0.175 (all); GP 0.5 and 0.375; band [0.125, 0.5]: only DT's BO tests differ
    assert "TrimTuner-DT, all tests 0.17 (agrees); TrimTuner-GP, BO tests 0.50 (agrees)" in rate["note"]
    assert "flips under: TrimTuner-DT, all tests, TrimTuner-GP, BO tests, TrimTuner-GP, all tests" in rate["note"]
    assert other == rows[2]
    # without GP runs, its settings are named as not run
    no_gp = us.per_test_costs(_fig1_runs().query("optimizer != 'trimtuner-gp'"), {"cnn": 60})
    assert "(not run here: TrimTuner-GP, BO tests, TrimTuner-GP, all tests)" in us.fig1_settings_notes(rows[:1], no_gp)[0]["note"]


def test_fig4_residue_notes_by_hand():
    import pandas as pd

    trends = pd.DataFrame([
        {"benchmark": "rnn", "residue": r, "seeds": "1", "runs_per_level": 1, "spearman_rho": rho,
         "best_level": best, "welch_p": float("nan"), "no_filter_minus_beta10": float("nan")}
        for r, rho, best in (("empirical", -0.2, "beta 1%"), ("pos", 0.07, "no filter"), ("zero", -0.1, "beta 1%"),
                             ("neg", -0.3, "beta 20%"))])
    rows = [{"item": "RNN: Accuracy_C increases with beta (Spearman rho > 0)", "paper": True, "workbook": False,
             "note": "n"},
            {"item": "RNN: no filter gives the best mean Accuracy_C", "paper": True, "workbook": False},
            {"item": "RNN: no significant degradation at beta = 10% vs no filter", "paper": True, "workbook": True},
            {"item": "CNN: no filter gives the best mean Accuracy_C", "paper": True, "workbook": True}]
    rho, best, welch, cnn = us.fig4_residue_notes(rows, trends)
    # rho > 0 only under pos (+0.07); no filter best only under pos
    assert rho["note"] == (
        "n; the authors' code under its unstated dH residue model (seed(s) 1, 1 run(s) per beta; claim holds = "
        "agrees): empirical differs (rho = -0.20); pos agrees (rho = +0.07); zero differs (rho = -0.10); neg differs "
        "(rho = -0.30); its answer flips under: pos (fig4_authors_code_residues.csv)")
    assert "empirical differs; pos agrees; zero differs; neg differs; its answer flips under: pos" in best["note"]
    assert welch == rows[2] and cnn == rows[3]  # Welch's test not computable (NaN p); no CNN runs


def test_random_budget_range_by_hand():
    import pandas as pd

    # one random-search run: CNO 20, 8, 4.9, 3 after spending $1, $2, $4, $8 (its budget $8); the grid is
    # geomspace(1, 8, 4) = 1, 2, 4, 8, so the "final CNO had B been x" is 20, 8, 4.9, 3
    df = pd.DataFrame([{"benchmark": "cnn", "optimizer": "random", "horizon": 0, "seed": 1, "iteration": i,
                        "cumulative_cost": c, "cno": v, "budget": 8.0}
                       for i, (c, v) in enumerate(((1.0, 20.0), (2.0, 8.0), (4.0, 4.9), (8.0, 3.0)))])
    other_runs = df.assign(optimizer="nephele", cno=1.0)  # other optimisers and horizons are left out
    df = pd.concat([df, other_runs, df.assign(horizon=1, cno=1.0)], ignore_index=True)
    curve = us.random_budget_curve(df, n_grid=4)
    assert list(curve["budget"]) == pytest.approx([1.0, 2.0, 4.0, 8.0]) and list(curve["cno"]) == [20.0, 8.0, 4.9, 3.0]
    rows = [{"item": us.RANDOM_CNO_ITEM, "paper": 10, "workbook": 3.0, "rel_tol": 0.5, "note": "n"}, {"item": "other"}]
    row, other = us.random_budget_notes(rows, curve)
    # the row's rule, rel_tol 0.5 (math.isclose: |10 - v| <= 0.5 max(10, v)), holds for 5 <= CNO <= 20:
    # at B = $1 (CNO 20) and $2 (CNO 8), not at $4 (4.9) or $8 (3)
    assert row["note"] == ("n; holds for random's exploration budget B (unstated in the thesis) in [$1.00, $2.00] "
                           "(grid $1.00 to $8.00, 4 points); flips at $4.00; this row: $8.00 "
                           "(nephele_random_budget.csv)")
    assert other == rows[1]
