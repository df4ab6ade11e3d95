"""Paper-vs-workbook records: agreement rules."""

import pytest

from tt_workbook.report.summary import agree, comparison


def test_agree_rules():
    assert agree(111, 111) is True and agree(111, 112) is False
    assert agree(0.755, 0.7554, abs_tol=0.0005) is True
    assert agree(10.0, 4.9, factor=2.0) is False and agree(10.0, 5.0, factor=2.0) is True
    assert agree(2.4, 4.8, factor=2.0) is True and agree(2.4, -4.8, factor=2.0) is False
    assert agree(None, 1.0) is None and agree(1.0, float("nan")) is None
    assert agree("6000", "6000") is True
    with pytest.raises(ValueError, match="factor must be >= 1"):
        agree(1.0, 1.0, factor=0.5)


def test_comparison_computes_agrees():
    df = comparison([{"source": "s", "item": "a (count)", "paper": 3, "workbook": 3},
                     {"source": "s", "item": "b", "paper": 10.0, "workbook": 30.0, "factor": 2.0}])
    assert df["agrees"].tolist() == [True, False]


def test_status_and_cause():
    df = comparison([
        {"source": "s", "item": "same", "paper": 3, "workbook": 3},
        {"source": "s", "item": "off, explained", "paper": 10.0, "workbook": 30.0, "factor": 2.0,
         "cause": "seeds (fig. x)"},
        {"source": "s", "item": "off, unexplained", "paper": 1.0, "workbook": 2.0},
        {"source": "s", "item": "other setting", "paper": 1.0, "workbook": 1.0, "not_comparable": "3 seeds, not 10"},
        {"source": "s", "item": "paper only", "paper": 1.0, "workbook": None},
    ])
    assert df["status"].tolist() == ["agrees", "differs", "differs", "not comparable", "paper only"]
    assert df["cause"].tolist() == ["", "seeds (fig. x)", "cause not measured yet", "3 seeds, not 10", ""]


def test_collect_completes_old_tables(tmp_path):
    import pandas as pd

    from tt_workbook.report.summary import collect

    pd.DataFrame({"source": ["s", "s", "s"], "item": ["a", "b", "c"], "paper": [1, 1, 1], "workbook": [1, 2, None],
                  "agrees": [True, False, None], "note": ["", "", ""]}).to_csv(tmp_path / "summary_old.csv", index=False)
    df = collect(tmp_path)
    assert df["status"].tolist() == ["agrees", "differs", "paper only"]
    assert df["cause"].tolist() == ["", "cause not measured yet", ""]


def test_deduplicate_keeps_one_row_per_item_and_value_and_lists_its_notebooks():
    import pandas as pd

    from tt_workbook.report.summary import deduplicate

    rows = pd.DataFrame([
        {"source": "S", "item": "x", "paper": 3.0, "workbook": 0.1 + 0.2, "status": "agrees", "notebook": "13_a"},
        {"source": "S", "item": "x", "paper": 3.0, "workbook": 0.3, "status": "agrees", "notebook": "14_b"},  # same to 12 digits
        {"source": "S", "item": "x", "paper": 3.0, "workbook": 0.31, "status": "differs", "notebook": "14_b"},  # other value
        {"source": "T", "item": "x", "paper": 3.0, "workbook": 0.3, "status": "agrees", "notebook": "14_b"},  # other source
        {"source": "S", "item": "y", "paper": "True", "workbook": True, "status": "agrees", "notebook": "13_a"},
        {"source": "S", "item": "y", "paper": "True", "workbook": "True", "status": "agrees", "notebook": "13_a"},
    ])
    out = deduplicate(rows)
    assert len(out) == 4
    assert out.loc[0, "notebook"] == "13_a, 14_b"
    assert list(out["workbook"][:3]) == [0.1 + 0.2, 0.31, 0.3]
    assert out.loc[3, "notebook"] == "13_a"  # the same notebook twice is listed once


def test_input_and_consistency_checks_are_their_own_statuses():
    df = comparison([
        {"source": "s", "item": "price, same as the source", "paper": 0.4, "workbook": 0.4, "check": "input"},
        {"source": "s", "item": "price, source differs", "paper": 0.33, "workbook": 0.333, "check": "input",
         "cause": "the paper prints 0.33"},
        {"source": "s", "item": "the paper's arithmetic", "paper": 15.73, "workbook": 15.73, "abs_tol": 0.005,
         "check": "consistency"},
    ])
    assert df["status"].tolist() == ["input check", "input check", "consistency check"]
    assert df["agrees"].tolist() == [True, False, True]       # the match is still recorded
    assert df["cause"].tolist()[1] == "the paper prints 0.33"
    with pytest.raises(ValueError, match="unknown row kind"):
        comparison([{"source": "s", "item": "x", "paper": 1, "workbook": 1, "check": "sanity"}])


def test_every_kind_of_row_has_its_status_and_still_records_its_match():
    from tt_workbook.report.summary import check_outcome, kind_of

    df = comparison([
        {"source": "s", "item": "a count in the measurements", "paper": 288, "workbook": 288, "check": "data"},
        {"source": "s", "item": "a count that differs", "paper": 178, "workbook": 177, "check": "data"},
        {"source": "s", "item": "initial tests the workbook set", "paper": 4, "workbook": 4, "check": "setup"},
        # a timing row whose interval crosses its band: its agreement is given, None (undetermined)
        {"source": "s", "item": "time ratio", "paper": 1.16, "workbook": 0.34, "factor": 2.0, "check": "timing",
         "agrees": None},
        # a timing row read from an interval inside the band, though its point value is outside it
        {"source": "s", "item": "time ratio 2", "paper": 1.0, "workbook": 2.5, "factor": 2.0, "check": "timing",
         "verdict": True},
    ])
    assert df["status"].tolist() == ["data check", "data check", "setup", "timing", "timing"]
    assert df["agrees"].tolist() == [True, False, True, None, True]
    assert [kind_of(s) for s in df["status"]] == ["data", "data", "setup", "timing", "timing"]
    assert [check_outcome(a, w) for a, w in zip(df["agrees"], df["workbook"])] == [
        "agree", "differ", "agree", "undetermined", "agree"]
    assert kind_of("agrees") == kind_of("differs") == kind_of("too few runs") == "reproduction"
    # a reproduction row's agreement is computed, never given
    with pytest.raises(ValueError, match="only a check row may give its own agreement"):
        comparison([{"source": "s", "item": "x", "paper": 1, "workbook": 3, "agrees": True}])


def test_a_claim_tested_on_outside_data_is_a_kind_of_its_own():
    """Notebook 17's rows: a paper's claim on other data, counted apart; paper = data sets studied, workbook = those
    where it holds; what it found is read from the two counts (3 of 3: all; 1 of 3: some; 0 of 2: none)."""
    from tt_workbook.report.summary import OUTSIDE, check_outcome, kind_of, outside_outcome

    df = comparison([
        {"source": "TrimTuner on outside data (LCDB)", "item": "Fig. 2: data sets where it holds", "paper": 3,
         "workbook": 3, "check": OUTSIDE, "cause": "LCDB curves, not the paper's networks"},
        {"source": "TrimTuner on outside data (LCDB)", "item": "Fig. 1: data sets where it holds", "paper": 3,
         "workbook": 1, "check": OUTSIDE},
        {"source": "TrimTuner on outside data (LCDB)", "item": "Fig. 3: data sets where it holds", "paper": 2,
         "workbook": 0, "check": OUTSIDE, "runs_per_arm": 3},  # no "too few runs": that is a reproduction status
        {"source": "TrimTuner on outside data (LCDB)", "item": "not run", "paper": None, "workbook": None,
         "check": OUTSIDE, "cause": "not run: the lcdb package is not installed"},
    ])
    assert df["status"].tolist() == ["outside data"] * 4
    assert [kind_of(s) for s in df["status"]] == ["outside"] * 4
    assert df["agrees"].tolist() == [True, False, False, None]   # holds on every data set studied: True
    assert df["cause"].tolist()[0] == "LCDB curves, not the paper's networks"
    assert [outside_outcome(p, w) for p, w in zip(df["paper"], df["workbook"])] == [
        "holds on all", "holds on some", "holds on none", "no value"]
    assert outside_outcome(0, 0) == "no value" and check_outcome(True) == "agree"


def test_fewer_than_five_runs_per_arm_is_no_verdict():
    df = comparison([
        # Welch's test on 3 runs a level finds no significant degradation: agreement, but no verdict
        {"source": "Fig. 4", "item": "no degradation, 3 runs", "paper": True, "workbook": True, "runs_per_arm": 3},
        {"source": "Fig. 4", "item": "best level, 3 runs, other setting", "paper": True, "workbook": False,
         "runs_per_arm": 3, "not_comparable": "CNN (the paper's is the RNN)", "cause": "ordering in 40% (boot.csv)"},
        {"source": "Fig. 4", "item": "no degradation, 5 runs", "paper": True, "workbook": True, "runs_per_arm": 5},
        {"source": "Fig. 4", "item": "no degradation, 10 runs", "paper": True, "workbook": False, "runs_per_arm": 10},
    ])
    assert df["status"].tolist() == ["too few runs", "too few runs", "agrees", "differs"]
    assert df["agrees"].tolist() == [True, False, True, False]          # still recorded
    assert df["cause"].iloc[0].startswith("3 runs per arm: a verdict needs at least 5")
    assert "another setting too: CNN (the paper's is the RNN); ordering in 40% (boot.csv)" in df["cause"].iloc[1]


@pytest.mark.parametrize("cause, ok", [
    # the restatement and the pointers the workbook used to print
    ("the measurements' costs (table6_1_budget_check.csv)", False),
    ("measured in spottune_fig7_revpred.csv (cost columns)", False),
    ("measured in spottune_fig7_revpred.csv (jct_h columns)", False),
    # a sentence without its evidence
    ("the initial sampling charged in full costs more with sub-sampling on these measurements "
     "(row 'initial-sampling cost reduction')", False),
    # a long sentence that says only what differs
    ("the value here is 24 and the thesis' value is 8 for the CNN network at the full size (table6_1.csv)", False),
    ("cause not measured yet", False), ("", False), (None, False),
    # mechanisms with their evidence
    ("the initial sampling draws full-size configurations uniformly until B_init = $5 is spent, so its count is "
     "B_init over the mean cost of a test (table6_1_budget_check.csv)", True),
    ("after the initial sampling FABOLAS runs 64% of its tests at the smallest size, Fabulinus 20% (table 'sizes' "
     "of notebook 16): both share the initial sampling, so the BO tests' sizes decide", True),
])
def test_a_cause_names_a_mechanism_and_its_evidence(cause, ok):
    from tt_workbook.report.summary import names_mechanism

    assert names_mechanism(cause)[0] is ok


def test_the_causes_the_workbook_writes_name_a_mechanism():
    """The rewritten causes of thesis Table 6.1 and of SpotTune's theta = 1 vs cheapest pass the rule."""
    import pandas as pd

    from tt_workbook.studies.nephele.rows import table_6_1_rows
    from tt_workbook.report.summary import names_mechanism
    from tt_workbook.studies.spottune.rows import refund_cause

    # SpotTune (θ=1.0) vs Single-Spot (cheapest) on one workload of two job sets (weights 1/2 each):
    # usage 0.30 and 0.50 -> 0.40; cheapest 0.20 and 0.20 -> 0.20 (2.00x); refunded 10% and 30% -> 20%;
    # cost 0.27 and 0.35 -> 0.31 against 0.20: the refunds do not make up for the dearer usage
    per = pd.DataFrame([
        {"job_set": "sklearn/lor#1", "approach": "spottune-1", "cost": 0.27, "usage": 0.30, "refunded_share": 0.1,
         "free_step_share": 0.05},
        {"job_set": "sklearn/lor#2", "approach": "spottune-1", "cost": 0.35, "usage": 0.50, "refunded_share": 0.3,
         "free_step_share": 0.15},
        {"job_set": "sklearn/lor#1", "approach": "single-cheapest", "cost": 0.20, "usage": 0.20, "refunded_share": 0.0,
         "free_step_share": 0.0},
        {"job_set": "sklearn/lor#2", "approach": "single-cheapest", "cost": 0.20, "usage": 0.20, "refunded_share": 0.0,
         "free_step_share": 0.0},
    ])
    text = refund_cause(per)
    assert ("SpotTune (θ=1.0)'s usage is worth $0.400 per job set, 2.00x Single-Spot (cheapest)'s $0.200, and refunds "
            "return 20% of it (10% of its steps free) against 0% for Single-Spot (cheapest), leaving $0.310 against "
            "$0.200, so its refunds do not make up for its dearer usage") in text
    assert names_mechanism(text)[0]
    assert refund_cause(per[per["approach"] == "spottune-1"]) == ""

    # thesis Table 6.1 (CNN: B_init $5, 8 full-size samples): a full-size test costs $0.209 here, $5 buys 23.9
    # draws (24 measured), the thesis' 8 need $0.625 each, 2.99x
    runs = pd.DataFrame([{"benchmark": "cnn", "optimizer": "lynceus", "horizon": 0, "seed": seed, "phase": "init", "iteration": i,
                          "charged_cost": 0.2} for seed in (1, 2) for i in range(24)])
    check = pd.DataFrame([{"benchmark": "cnn", "expected_samples_full_size": 23.9, "mean_cost_full_size": 0.209,
                           "expected_samples_all_sizes": 41.1, "mean_cost_all_sizes": 0.122}])
    rows = table_6_1_rows(runs, {("cnn", "lynceus"): 288}, check)
    assert [r["workbook"] for r in rows] == [24.0, round(100 * 24 / 288, 2)]
    for r in rows:
        assert names_mechanism(r["cause"])[0]
        assert ("draws full-size configurations uniformly until B_init = $5 is spent, so its count is B_init over the "
                "mean cost of a test; a full-size CNN test costs $0.209 on average in the public measurements, which "
                "buys 23.9 draws (measured 24.0), while the thesis' 8 need $0.625 per test, 3.0x") in r["cause"]


def test_the_tours_rows_are_notebook_01_02_rows_counted_there(tmp_path):
    """The tour recounts the search space (288 configurations, 1440 points) and Table II's affordable
    configurations: data checks, the same claims as notebooks 01-02 write, so the report counts each once,
    under those notebooks."""
    import matplotlib

    matplotlib.use("Agg")
    from tt_workbook.apps import tour
    from tt_core.data.benchmarks import load_benchmark
    from tt_workbook.studies.dataset import rows as dataset
    from tt_workbook.studies.feasibility import rows as feasibility
    from tt_workbook.report.report import card_counts, notebook_card, tidy
    from tt_workbook.report.summary import collect, save_comparison

    save_comparison(comparison(tour.comparison_rows(tour.search_space(["cnn", "rnn"]))), "00_tour", tmp_path)
    save_comparison(comparison([r for b in ("cnn", "rnn") for r in dataset.table1_comparison_rows(load_benchmark(b))]),
                    "01_dataset_analysis", tmp_path)
    save_comparison(comparison(feasibility.comparison_rows(feasibility.table2(), "TrimTuner Table II")),
                    "02_table2_feasibility", tmp_path)
    every = collect(tmp_path)
    tour_rows = every[every["notebook"] == "00_tour"]
    assert len(tour_rows) == 6 and set(tour_rows["status"]) == {"data check"}
    assert tour_rows["workbook"].astype(int).tolist() == [288, 1440, 111, 288, 1440, 178]   # Table II: 111 / 178
    rows = tidy(every)
    assert len(rows) == len(every) - 6                      # each of the tour's claims once
    assert card_counts(rows, "00_tour")["linked"] == 6 and sum(card_counts(rows, "00_tour").values()) == 6
    assert notebook_card(rows, "00_tour") == ("6 rows: 6 counted under 01_dataset_analysis, 02_table2_feasibility "
                                              "(the same claims)")
    assert set(rows["group"]) <= {"data check", "paper only"} and (rows["group"] == "agrees").sum() == 0


def test_spottune_pcr_cause_decomposes_the_ratio_by_hand():
    """PCR = 1 / (JCT x cost): SpotTune (θ=1.0) costs 0.5 vs 0.4 (1.25x) and takes 2 h vs 4 h (0.50x) of Single-Spot
    (cheapest): PCR 1 / 1.0 = 1.0 vs 1 / 1.6 = 0.625, a ratio 1.60 = 1 / (1.25 x 0.5)."""
    import pandas as pd

    from tt_workbook.report.summary import names_mechanism
    from tt_workbook.studies.spottune.rows import pcr_cause

    per = pd.DataFrame([{"job_set": "sklearn/svm#1", "approach": a, "cost": c, "jct_h": j, "pcr": 1 / (c * j)}
                        for a, c, j in (("spottune-1", 0.5, 2.0), ("single-cheapest", 0.4, 4.0),
                                        ("single-fastest", 1.0, 1.0))])
    text = pcr_cause(per)
    assert ("against Single-Spot (cheapest) its jobs cost 1.25x and take 0.50x as long, so its PCR is 1.60x theirs; "
            "against Single-Spot (fastest) its jobs cost 0.50x and take 2.00x as long, so its PCR is 1.00x theirs") in text
    assert names_mechanism(text)[0]
    assert pcr_cause(per.drop(columns="jct_h")) == ""


def test_runs_are_counted_per_arm_and_the_fewest_decides():
    import pandas as pd

    from tt_workbook.report.summary import fewest_runs, runs_by_arm

    # seeds 1, 2, 2, 3 of a (3 distinct); 1, 1 of b (1); a seed repeated over iterations counts once
    runs = pd.DataFrame({"benchmark": "rnn", "optimizer": ["a", "a", "a", "a", "b", "b"], "seed": [1, 2, 2, 3, 1, 1]})
    counts = runs_by_arm(runs, ["benchmark", "optimizer"])
    assert counts == {("rnn", "a"): 3, ("rnn", "b"): 1}
    assert fewest_runs(counts, [("rnn", "a")]) == 3 and fewest_runs(counts, [("rnn", "a"), ("rnn", "b")]) == 1
    assert fewest_runs(counts, [("cnn", "a")]) == 0          # an arm without runs
    assert fewest_runs(None, [("rnn", "a")]) is None and fewest_runs(6, ["x"]) == 6
    assert runs_by_arm(runs.iloc[:0], "optimizer") == {}


def test_a_row_without_a_workbook_value_keeps_its_status_whatever_its_runs():
    df = comparison([
        {"source": "S", "item": "no value", "paper": 2.0, "workbook": None, "runs_per_arm": 2},
        {"source": "S", "item": "not run", "paper": 2.0, "workbook": None, "runs_per_arm": 0, "not_comparable": "not run"},
        {"source": "S", "item": "value", "paper": 2.0, "workbook": 2.0, "runs_per_arm": 4},
    ])
    assert df["status"].tolist() == ["paper only", "not comparable", "too few runs"]


def test_a_row_resting_on_measured_seconds_is_a_timing_row():
    """as_timing: counted as a timing (its agreement recorded), the setting that differs kept in the note."""
    from tt_workbook.report.summary import as_timing, comparison

    row = as_timing({"source": "s", "item": "overhead (minutes)", "paper": 6.0, "workbook": 0.5, "factor": 2.0,
                     "not_comparable": "another machine", "note": "measured", "runs_per_arm": 2})
    out = comparison([row]).iloc[0]
    assert out["status"] == "timing" and out["agrees"] in (False, "False")   # 0.5 is 12x below 6
    assert out["note"] == "measured; another setting: another machine; 2 runs per arm"   # 2 < 5 runs, in the note
    unmeasured = comparison([as_timing({"source": "s", "item": "i", "paper": 6.0, "workbook": None,
                                        "not_comparable": "a smoke run"})]).iloc[0]
    assert unmeasured["status"] == "not comparable" and unmeasured["cause"] == "a smoke run"
