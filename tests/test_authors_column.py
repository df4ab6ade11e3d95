"""The "authors' code" column of the paper-vs-workbook rows and the side of each differing TrimTuner-DT row.

Every expected side is worked out by hand from the row's rule (a factor of 2, or +/- a tolerance), then the
rows go through the whole path: comparison -> save_comparison -> collect -> `tt summary`'s markdown, the HTML
report and `tt docs results`."""

import math

import pandas as pd

from tt_workbook.report.docs import results_markdown
from tt_workbook.report.report import ReportNotebook, tidy, write_index
from tt_workbook.report.summary import (SIDE_BOTH, SIDE_UNDETERMINED, SIDE_WORKBOOK, collect, comparison,
                                       save_comparison, side_of, to_markdown)

DEV = "the workbook's trees give an information gain, theirs give dH constant (fig1_authors_code.csv)"
EIC = "EIc is not in the authors' repository"


def _rows():
    return [
        # 0.25 / 0.11 = 2.27 > 2: the workbook differs; 0.39 / 0.25 = 1.56 <= 2: the authors' code agrees
        {"source": "TrimTuner Sec. IV-A", "item": "rnn: mean sub-sampling rate", "paper": 0.25, "workbook": 0.11,
         "authors": 0.39, "factor": 2.0, "deviation": DEV,
         "cause": "the size mix: information per cost favours the smallest size, so most tests run there "
                  "(fig1_size_mix.csv)"},
        # a ratio with our EIc on top: 10 / 1.0 = 10 and 10 / 1.2 = 8.3 > 2: both differ, EIc is ours
        {"source": "TrimTuner Sec. IV-A", "item": "rnn: cost per test, EIc / TrimTuner-DT", "paper": 10.0,
         "workbook": 1.0, "authors": 1.2, "factor": 2.0, "outside": EIC, "deviation": DEV},
        # 10 / 3 = 3.3 > 2 (workbook differs), 10 / 6 = 1.67 <= 2 (our EIc over their DT agrees)
        {"source": "TrimTuner Sec. IV-A", "item": "cnn: cost per test, EIc / TrimTuner-DT", "paper": 10.0,
         "workbook": 3.0, "authors": 6.0, "factor": 2.0, "outside": EIC, "deviation": DEV},
        # a qualitative claim: both False against the paper's True, and they agree with each other
        {"source": "TrimTuner Fig. 4", "item": "RNN: no filter gives the best mean Accuracy_C", "paper": True,
         "workbook": False, "authors": False, "deviation": DEV},
        # |0.925 - 0.5| and |0.925 - 0.2| > 0.05, and |0.5 - 0.2| > 0.05: all three differ
        {"source": "TrimTuner Fig. 1", "item": "RNN: Accuracy_C after one BO test", "paper": 0.925, "workbook": 0.5,
         "authors": 0.2, "abs_tol": 0.05, "deviation": DEV},
        # the workbook agrees (0.3 / 0.25 = 1.2): no side, whatever the authors' code gives
        {"source": "TrimTuner Sec. IV-A", "item": "cnn: mean sub-sampling rate", "paper": 0.25, "workbook": 0.3,
         "authors": 0.9, "factor": 2.0},
        # a TrimTuner-DT row whose oracle did not run
        {"source": "TrimTuner Fig. 2b", "item": "RNN: cost saving vs EIc", "paper": 65.0, "workbook": 5.0,
         "authors": None, "factor": 2.0, "missing": "the authors' code was not run"},
        # not a TrimTuner-DT row: no authors key, no side
        {"source": "TrimTuner Table I", "item": "EIc tests", "paper": 3, "workbook": 4},
    ]


def test_side_by_hand():
    df = comparison(_rows())
    assert df["agrees"].tolist() == [False, False, False, False, False, True, False, False]
    assert df["side"].tolist() == [
        f"{SIDE_WORKBOOK}: {DEV}",
        # a value mixing our EIc with their DT decides no side, whether it gives the paper's value or not
        f"{SIDE_UNDETERMINED}: {EIC}; a value that mixes the workbook's code with the authors' decides no side "
        "(the mixed value does not give the paper's value)",
        f"{SIDE_UNDETERMINED}: {EIC}; a value that mixes the workbook's code with the authors' decides no side "
        "(the mixed value gives the paper's value)",
        f"{SIDE_BOTH} (the workbook's value agrees with it)",
        f"{SIDE_BOTH}; the workbook differs from it too ({DEV})",
        "",
        f"{SIDE_UNDETERMINED}: the authors' code was not run",
        "",
    ]
    assert df["authors"].iloc[0] == 0.39 and df["authors"].iloc[-1] is None
    # the status is the workbook's against the paper, untouched by the authors' column
    assert df["status"].tolist()[:5] == ["differs"] * 5 and df["status"].iloc[5] == "agrees"


def test_side_rule_edges():
    assert side_of(None, True) == "" and side_of(True, False) == ""     # paper only / agreeing rows
    assert side_of(False, True) == f"{SIDE_WORKBOOK}: not named yet"    # a deviation must be named
    assert side_of(False, None, outside=EIC) == f"{SIDE_UNDETERMINED}: {EIC}"
    assert side_of("False", "False", "True") == f"{SIDE_BOTH} (the workbook's value agrees with it)"  # read from CSV


def test_column_end_to_end(tmp_path):
    figs = tmp_path / "figures"
    figs.mkdir()
    save_comparison(comparison(_rows()), "03_fig1", figs)
    # a table written before the column existed (no authors/side): collected with both empty
    pd.DataFrame([{"source": "Nephele Table II", "item": "old row", "paper": 1.0, "workbook": 2.0, "agrees": False,
                   "status": "differs", "cause": "seeds", "note": "", "tolerance": "exact"}]).to_csv(
        figs / "summary_09_old.csv", index=False)
    got = collect(figs)
    assert len(got) == 9
    old = got[got["item"] == "old row"].iloc[0]
    assert old["side"] == "" and (old["authors"] is None or math.isnan(old["authors"]))
    sub = got[got["item"] == "rnn: mean sub-sampling rate"].iloc[0]
    assert float(sub["authors"]) == 0.39 and sub["side"].startswith(SIDE_WORKBOOK)
    assert str(got[got["item"].str.startswith("RNN: no filter")]["authors"].iloc[0]) == "False"

    md = to_markdown(got)
    assert md.splitlines()[0] == "| source | item | paper | authors' code | this workbook | status | cause |"
    line = next(x for x in md.splitlines() if "rnn: mean sub-sampling rate" in x)
    assert "| 0.25 | 0.39 | 0.11 | differs | side: " + SIDE_WORKBOOK in line and "the size mix" in line

    rows = tidy(got)
    r = rows[rows["item"] == "rnn: mean sub-sampling rate"].iloc[0]
    assert r["authors_text"] == "0.39" and r["cause"].startswith("side: " + SIDE_WORKBOOK)

    out = tmp_path / "report"
    out.mkdir()
    page = write_index(out, figs, [ReportNotebook("03_fig1", "Accuracy_C", "TrimTuner Fig. 1", True, 1.0, "", ())],
                       got, "quick").read_text()
    assert "<th>authors&#x27; code</th>" in page or "<th>authors' code</th>" in page
    assert "<td class='num'>0.39</td><td class='num'>0.11</td>" in page
    assert "a deviation of the workbook from the authors&#x27; code" in page

    doc = results_markdown(got, "quick")
    assert "| nb | source | item | paper | authors' code | workbook | measured mechanism (evidence) |" in doc
    assert "| 03 | TrimTuner Sec. IV-A | rnn: mean sub-sampling rate | 0.25 | 0.39 | 0.11 | side: " in doc


def test_no_authors_column_without_authors_values():
    df = comparison([{"source": "s", "item": "a", "paper": 1.0, "workbook": 2.0}])
    assert to_markdown(df).splitlines()[0] == "| source | item | paper | this workbook | status | cause |"


def test_fig1_rows_carry_the_authors_value():
    from tt_workbook.studies.fig1_fig2.rows import fig1_rows

    stats = pd.DataFrame([{"benchmark": "rnn", "optimizer": "trimtuner-dt", "cost_per_test": 0.0023, "mean_s": 0.11},
                          {"benchmark": "rnn", "optimizer": "eic", "cost_per_test": 0.0046}])
    mix = pd.DataFrame([{"benchmark": "rnn", "s": 1 / 60, "share": 0.8}, {"benchmark": "rnn", "s": 1.0, "share": 0.2}])
    steps = pd.DataFrame(columns=["benchmark", "optimizer", "step_cost"])
    oracle = pd.DataFrame([
        {"benchmark": "rnn", "source": "authors' public code", "residue": "empirical", "runs": 10,
         "mean_size_fraction": 0.39, "cost_per_bo_test": 0.0089},
        {"benchmark": "rnn", "source": "authors' public code", "residue": "pos", "runs": 10,
         "mean_size_fraction": 0.41, "cost_per_bo_test": 0.0092}])
    df = comparison(fig1_rows(stats, steps, mix, authors=oracle))
    ratio, rate = df.iloc[0], df.iloc[1]
    # EIc / DT: 0.0046 / 0.0023 = 2 here (10 / 2 = 5 > 2: differs). EIc is not in the authors' code, so there is no
    # like-for-like value: no authors' value, side undetermined; the mixed 0.0046 / 0.0089 = 0.517 only in the note
    assert math.isclose(ratio["workbook"], 2.0) and pd.isna(ratio["authors"])
    assert ratio["side"].startswith(SIDE_UNDETERMINED + ": no like-for-like value: EIc is not in the authors' repository")
    assert "the workbook's EIc over the authors' TrimTuner-DT per BO test gives 0.5 (mixed sources" in ratio["note"]
    # sub-sampling: 0.25 / 0.11 = 2.27 > 2 differs; 0.39 / 0.25 = 1.56 agrees -> the workbook's deviation
    assert rate["authors"] == 0.39 and rate["side"].startswith(SIDE_WORKBOOK)
    assert "0.11 ($0.0023 each) here, 0.39 ($0.0089) with the authors' code" in rate["side"]
    assert "pos/zero/neg 0.41/-/-" in rate["note"]
    assert "max-CEA" not in rate["cause"]          # the dropped reconstruction is not cited
    # without the oracle: no authors value, no side
    old = comparison(fig1_rows(stats, steps, mix))
    assert old["side"].tolist() == ["", ""] and old["cause"].iloc[1] == rate["cause"]
    # an empty oracle: the authors' code did not run, said as such
    none = comparison(fig1_rows(stats, steps, mix, authors=pd.DataFrame(columns=["benchmark", "residue"])))
    assert none["side"].iloc[0].startswith(f"{SIDE_UNDETERMINED}: no like-for-like value")
    assert none["side"].iloc[1] == f"{SIDE_UNDETERMINED}: the authors' code was not run here"


def test_fig4_rows_side_by_hand():
    from tt_workbook.studies.fig1_fig2.rows import fig4_rows

    trend = pd.DataFrame([{"benchmark": "rnn", "optimizer": "trimtuner-dt", "best_level": "beta 1%",
                           "spearman_rho": -0.3, "spearman_p": 0.04, "welch_p": 0.5, "no_filter_minus_beta10": -0.1,
                           "runs_per_level": 10}])
    theirs = trend.assign(optimizer="authors-dt", spearman_rho=-0.5, best_level="beta 1%")
    boot = pd.DataFrame(columns=["benchmark", "optimizer", "ordering", "evidence"])
    df = comparison(fig4_rows(trend, boot, theirs))
    # best: beta 1% (not no filter) in both -> False, False; rho < 0 in both -> False, False;
    # Welch p = 0.5 -> no significant degradation -> True: agrees, no side
    assert df["workbook"].tolist() == [False, False, True] and df["authors"].tolist() == [False, False, True]
    assert df["side"].tolist() == [f"{SIDE_BOTH} (the workbook's value agrees with it)"] * 2 + [""]
    assert df["status"].tolist() == ["differs", "differs", "agrees"]
    # the CNN was not run with the authors' code
    cnn = comparison(fig4_rows(trend.assign(benchmark="cnn"), boot, theirs))
    assert cnn["side"].iloc[0] == f"{SIDE_UNDETERMINED}: the authors' code was not run on the CNN here"


def test_fig2_rows_side_by_hand():
    from tt_workbook.studies.fig1_fig2.rows import fig2_rows

    ours = pd.DataFrame([{"benchmark": "rnn", "method": "trimtuner-dt", "baseline": "eic", "target": 0.88,
                          "cost_method": 0.06, "cost_baseline": 0.6, "cost_ratio": 10.0,
                          "time_method": 100.0, "time_baseline": 300.0, "time_ratio": 3.0}])
    # their DT reaches the target at $0.15 (cost 0.6 / 0.15 = 4) and never in time (ratio NaN)
    theirs = ours.assign(method="authors-dt", cost_method=0.15, cost_ratio=4.0, time_method=float("nan"),
                         time_ratio=float("nan"))
    bars = pd.DataFrame([{"benchmark": "rnn", "baseline": "eic", "time": 65.4, "cost": 50.3}])
    df = comparison(fig2_rows(ours, pd.DataFrame(), bars, 10, authors_sav=theirs))
    cost = df[df["item"].str.contains("cost")].iloc[0]
    time = df[df["item"].str.contains("time")].iloc[0]
    # 50.3 / 10 = 5 > 2 and 50.3 / 4 = 12.6 > 2: both differ, EIc is the workbook's -> undetermined
    assert cost["authors"] == 4.0 and cost["side"].startswith(SIDE_UNDETERMINED + ": EIc is not in the authors'")
    assert pd.isna(time["authors"])
    assert time["side"] == f"{SIDE_UNDETERMINED}: the authors' TrimTuner-DT mean curve never reaches the target " \
                           "(fig2_savings_authors_code.csv)"
    # had their DT reached it at $0.012 (0.6 / 0.012 = 50, within 2 of 50.3), the mixed value (our EIc over their DT)
    # would give the paper's, yet it still decides no side: a side comes only from like-for-like values
    df2 = comparison(fig2_rows(ours, pd.DataFrame(), bars, 10, authors_sav=theirs.assign(cost_method=0.012,
                                                                                         cost_ratio=50.0)))
    c2 = df2["side"].iloc[0]  # the cost row
    assert c2.startswith(SIDE_UNDETERMINED + ": EIc is not in the authors'") and "(the mixed value gives the paper's" in c2


def test_dt_rows_without_an_authors_value_say_undetermined():
    """Table III-IV and Fig. 3 rows of TrimTuner-DT: the authors' code gives no value (not timed; no DIRECT or
    CMA-ES in it), so a difference is undetermined, named; rows of other optimisers get no side."""
    from tt_workbook.studies.recommendation_time.rows import comparison_rows
    from tt_workbook.studies.fig1_fig2.rows import NO_AUTHORS_FILTERS, NO_AUTHORS_TIMES, dt_row_without_authors

    t3 = pd.DataFrame([{"benchmark": "rnn", "setting": s, "median_s": m}
                       for s, m in (("trimtuner-gp", 1.0), ("trimtuner-dt", 0.5), ("fabolas", 1.0), ("eic", 0.05))])
    t4 = pd.DataFrame(columns=["heuristic", "optimizer", "setting", "median_s", "x CEA 10%", "paper x CEA 10%"])
    rows = comparison(comparison_rows(t3, t4)).set_index("item")
    # timing rows without repeated measurements: no interval, so undetermined (agrees None) and no side
    for item in ("RNN: recommendation time trimtuner-gp / trimtuner-dt", "RNN: recommendation time trimtuner-dt / eic"):
        assert rows.loc[item, "status"] == "timing" and rows.loc[item, "agrees"] is None
        assert rows.loc[item, "side"] == ""
    # GP / DT = 1.0 / 0.5 = 2, the paper's 13x is 6.5x away (> 2): a differing Table III DT row has no value of
    # the authors' code, so its side is undetermined
    gp_dt = {"source": "TrimTuner Table III", "item": "RNN: recommendation time trimtuner-gp / trimtuner-dt",
             "paper": 13.0, "workbook": 2.0, "factor": 2.0, "check": "timing", "verdict": False}
    assert comparison([dt_row_without_authors(gp_dt, NO_AUTHORS_TIMES)])["side"].iloc[0] == \
        f"{SIDE_UNDETERMINED}: {NO_AUTHORS_TIMES}"
    assert rows.loc["RNN: recommendation time fabolas / eic", "side"] == ""
    fig3 = comparison([dt_row_without_authors({"source": "TrimTuner Fig. 3", "item": "RNN trimtuner-dt: x",
                                               "paper": 2.0, "workbook": 0.5, "factor": 2.0}, NO_AUTHORS_FILTERS),
                       dt_row_without_authors({"source": "TrimTuner Fig. 3", "item": "RNN trimtuner-dt: y",
                                               "paper": 2.0, "workbook": 1.5, "factor": 2.0}, NO_AUTHORS_FILTERS)])
    assert fig3["side"].tolist() == [f"{SIDE_UNDETERMINED}: {NO_AUTHORS_FILTERS}", ""]   # 4x apart; 1.33x agrees
