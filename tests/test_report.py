"""The HTML report (reports/<profile>/index.html) and the offline notebook pages."""

import re

import nbformat
import pytest

from tt_workbook.report.notebook_html import math_to_svg, notebook_to_html, typeset_markdown
from tt_workbook.report.report import ReportNotebook, format_like, headline, tidy, totals, write_index
from tt_workbook.report.summary import collect, comparison, save_comparison


@pytest.mark.parametrize("value, paper, text", [
    (0.75536, 0.755, "0.755"),        # the paper's three decimals
    (3.1523, 65, "3.2"),              # an integer in the paper, but two significant digits at least
    (12.5, 65, "13"),
    (0.0034, 1, "0.0034"),
    (178.0, 178, "178"),
    (2.04, 1.75, "2.04"),
    (1.0, 2.13, "1.00"),
    (123456.7, 120000, "123,457"),
    (float("inf"), 3.62, "never (∞)"),
    (True, True, "yes"), ("False", "True", "no"), (None, 1, ""), (float("nan"), 1, ""),
    ("n/a", 1, "n/a"),
])
def test_format_like_the_paper(value, paper, text):
    assert format_like(value, paper) == text


MECHANISM = ("the paper's ratio is read off its mean curves, which reach the target later than the runs' "
             "median does (fig2_readings.csv)")


def _rows():
    return comparison([
        {"source": "TrimTuner Table II", "item": "RNN: feasible configurations (count)", "paper": 178, "workbook": 178,
         "check": "data"},
        {"source": "TrimTuner Fig. 2b", "item": "cost saving vs EIc (largest)", "paper": 50, "workbook": 1.7,
         "factor": 2.0, "cause": MECHANISM},
        {"source": "TrimTuner Fig. 4", "item": "RNN: no filter is best", "paper": True, "workbook": False},
        {"source": "thesis Table 6.1", "item": "CNN: initial samples", "paper": 8, "workbook": 24, "rel_tol": 0.25},
        {"source": "thesis §6.4", "item": "CNN: cost ratio", "paper": 1.75, "workbook": 1.2,
         "not_comparable": "10 seeds here, 100 in the thesis"},
        {"source": "TrimTuner Table I", "item": "MLP rows (count)", "paper": 6000, "workbook": None},
        {"source": "TrimTuner Fig. 4", "item": "RNN: no significant degradation at beta = 10%", "paper": True,
         "workbook": True, "runs_per_arm": 3},
        {"source": "TrimTuner Table III", "item": "RNN: time dt / eic", "paper": 1.16, "workbook": 0.34, "factor": 2.0,
         "check": "timing", "agrees": None},
        {"source": "TrimTuner §IV text", "item": "eic: initial tests (count)", "paper": 4, "workbook": 4,
         "check": "setup"},
        {"source": "TrimTuner Sec. IV-A", "item": "rnn: cost per test, EIc / TrimTuner-DT", "paper": 10.0,
         "workbook": 6.0, "factor": 2.0},
    ])


def test_tidy_dedupes_across_notebooks_and_groups(tmp_path):
    a = _rows()
    save_comparison(a, "01_data", tmp_path)
    dup = a.iloc[[0]].copy()
    dup["paper"], dup["workbook"] = 178.0, 178.0  # the same row, written as floats by another notebook
    save_comparison(dup, "02_table2", tmp_path)
    rows = tidy(collect(tmp_path))
    assert len(rows) == 10  # 11 written, the duplicate shown once
    feasible = rows[rows["item"].str.startswith("RNN: feasible")].iloc[0]
    assert feasible["notebook"] == "01_data, 02_table2" and feasible["paper_text"] == "178"
    assert rows.set_index("item").loc["CNN: initial samples", "paper_name"] == "Nephele (thesis)"
    assert rows.set_index("item").loc["CNN: initial samples", "section"] == "Table 6.1"
    # 10 / 6 = 1.67 <= 2: the one reproduced row; the data, setup and timing rows are counted apart
    assert totals(rows) == {"agrees": 1, "differs (cause measured)": 1, "differs (cause not measured yet)": 2,
                            "not comparable": 1, "too few runs": 1, "paper only": 1, "data check": 1, "setup": 1,
                            "input check": 0, "consistency check": 0, "timing": 1, "outside data": 0}
    assert rows.set_index("item")["found"].to_dict() == {
        "RNN: feasible configurations (count)": "agree", "cost saving vs EIc (largest)": "", "RNN: no filter is best": "",
        "CNN: initial samples": "", "CNN: cost ratio": "", "MLP rows (count)": "",
        "RNN: no significant degradation at beta = 10%": "", "RNN: time dt / eic": "undetermined",
        "eic: initial tests (count)": "agree", "rnn: cost per test, EIc / TrimTuner-DT": ""}
    assert headline(rows) == (
        "1 reproduced of 7 reproduction rows (1 differ, with a measured mechanism, 2 differ, no mechanism measured "
        "yet, 1 not comparable, 1 too few runs, 1 paper only); checks, counted apart: 1 data check (1 agree), "
        "1 setup (1 agree), 1 timing (1 undetermined)")


def test_a_cause_that_names_no_mechanism_counts_as_not_measured(tmp_path):
    """A differing row's cause counts as measured only with a mechanism sentence and its evidence file."""
    rows = tidy(comparison([
        {"source": "S", "item": "pointer only", "paper": 1.0, "workbook": 3.0,
         "cause": "measured in spottune_fig7_revpred.csv (cost columns)"},
        {"source": "S", "item": "label only", "paper": 1.0, "workbook": 3.0,
         "cause": "the measurements' costs (table6_1_budget_check.csv)"},
        {"source": "S", "item": "no evidence", "paper": 1.0, "workbook": 3.0,
         "cause": "the initial sampling charged in full costs more with sub-sampling on these measurements"},
        {"source": "S", "item": "mechanism", "paper": 1.0, "workbook": 3.0,
         "cause": "the initial sampling draws tests until $5 is spent, so $5 buys 24 tests at $0.21 each "
                  "(table6_1_budget_check.csv)"},
    ]).assign(notebook="09_x"))
    assert rows.set_index("item")["group"].to_dict() == {
        "pointer only": "differs (cause not measured yet)", "label only": "differs (cause not measured yet)",
        "no evidence": "differs (cause not measured yet)", "mechanism": "differs (cause measured)"}


def test_report_page_leads_with_totals_figures_and_differences(tmp_path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figs = tmp_path / "figures"
    figs.mkdir()
    save_comparison(_rows(), "03_fig1", figs)
    fig, ax = plt.subplots(figsize=(8, 5))
    ax.plot([0, 1], [0, 1])
    fig.savefig(figs / "fig1.png", dpi=100)
    plt.close(fig)
    out = tmp_path / "report"
    out.mkdir()
    (out / "03_fig1.html").write_text("<html></html>")
    nbs = [ReportNotebook("03_fig1", "Accuracy_C", "TrimTuner Fig. 1", True, 12.0, "", ("missing.png", "fig1.png")),
           ReportNotebook("04_fig2", "Savings", "TrimTuner Fig. 2", False, 3.0, "ValueError: boom", ())]
    page = write_index(out, figs, nbs, collect(figs), "quick").read_text()
    from PIL import Image

    with Image.open(figs / "fig1.png") as full:   # 800x500, or a little more if a style saves with a tight box
        w, h = full.size
    with Image.open(out / "thumbs" / "03_fig1.png") as im:
        assert im.width == 440 and abs(im.height - h * 440 / w) <= 1  # scaled to the thumbnail width
    totals_at = page.index("class=\"totals\"")
    thumbs_at = page.index("thumbs/03_fig1.png")
    diffs_at = page.index("Where the workbook and the papers differ")
    every_at = page.index("Every row, by paper and section")
    assert totals_at < thumbs_at < diffs_at < every_at
    assert re.search(r"<b>1 reproduced</b> of 7 reproduction rows", page)
    assert page.index("1 reproduced</b>") < page.index("class=\"totals\"")   # the page leads with reproduced
    boxes = re.findall(r"<div class='total'[^>]*><b>(\d+)</b>([^<]+)</div>", page)
    assert [(int(n), label.split(",")[0].split(" (")[0]) for n, label in boxes] == [
        (1, "reproduced"), (1, "differ"), (2, "differ"), (1, "not comparable"), (1, "too few runs"), (1, "paper only"),
        (1, "data checks"), (1, "setup"), (0, "input checks"), (0, "consistency checks"), (1, "timing"),
        (0, "claims tested on outside data")]
    assert "data checks (a value read from the measurements): 1 agree" in page
    assert "timing (times measured on this machine): 1 undetermined" in page
    differences = page[diffs_at:every_at]
    # the explained difference first, then the unexplained ones, then the not comparable one
    order = [differences.index(s) for s in ("cost saving vs EIc", "RNN: no filter is best", "CNN: cost ratio")]
    assert order == sorted(order)
    assert "the paper&#x27;s ratio is read off its mean curves" in differences and "10 seeds here, 100 in the thesis" in differences
    assert "3 runs per arm: a verdict needs at least 5" in differences
    assert "MLP rows" not in differences and "RNN: feasible" not in differences
    assert "FAILED: ValueError: boom" in page
    assert "within a factor of 2" in page and "within 25%" in page and "exact" in page
    assert not re.search(r"(src|href)=['\"]https?://", page)  # nothing from the network


def test_typeset_markdown_draws_maths_and_leaves_money_and_code():
    text, n, failed = typeset_markdown("Costs $5 and $10; $A_{min}$ and $$\\frac{a}{b} \\ge 1$$ but `$x$` stays.")
    assert n == 2 and failed == []
    assert "Costs $5 and $10;" in text and "`$x$`" in text
    assert text.count("<img class=\"tt-math\"") == 2 and 'alt="A_{min}"' in text
    assert math_to_svg("\\notacommand{x}") is None
    text, n, failed = typeset_markdown("bad: $\\notacommand{x}$")
    assert n == 0 and failed == ["\\notacommand{x}"] and "`\\notacommand{x}`" in text


def test_money_escaped_for_jupyterlab_prints_as_a_dollar():
    """The notebooks write money as \\\\$5 (JupyterLab needs two backslashes); the page shows $5."""
    text, n, failed = typeset_markdown("limit \\\\$0.10 for the CNN and \\\\$0.02 for the RNN, at $s = 1$")
    assert n == 1 and "limit \\$0.10 for the CNN and \\$0.02" in text  # markdown prints \\$ as $


def test_notebook_page_is_offline(tmp_path):
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_markdown_cell("Eq. 7: $$Accuracy_C = a \\times P(c \\le C_{max})$$"),
                nbformat.v4.new_markdown_cell("A limit of \\\\$0.10 per run (CNN) and \\\\$0.02 (RNN)."),
                nbformat.v4.new_code_cell("bar", outputs=[nbformat.v4.new_output(
                    "display_data", data={"application/vnd.jupyter.widget-view+json": {"model_id": "x"},
                                          "text/plain": "100%|##########| 12/12"})])]
    nb.metadata["widgets"] = {"application/vnd.jupyter.widget-state+json": {"state": {}}}
    path = tmp_path / "x.ipynb"
    nbformat.write(nb, path)
    page = notebook_to_html(path).read_text()
    assert "tt-math" in page and "100%|##########| 12/12" in page
    assert "A limit of $0.10 per run (CNN) and $0.02 (RNN)." in page
    assert "widget-view+json" not in page and "widget-state" not in page
    assert not re.search(r"<script[^>]+src=['\"]https?://", page)
    assert "cdnjs" not in page and "unpkg" not in page


def test_report_opens_with_one_sentence_and_the_headline_figure(tmp_path):
    """The first screen answers "does it reproduce?": the sentence counts _rows() by hand (1 reproduced; 1 differs
    with a measured mechanism, 2 without; 1 not comparable, 1 on too few runs, 1 paper only; 3 checks), then the
    tour's headline figure, then the rest of the page."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from tt_workbook.report.report import HEADLINE_FIGURE, verdict_sentence

    sentence = ("Of the papers' 7 claims, 4 could be compared at the papers' settings: 1 is reproduced and 3 differ "
                "(1 with a measured cause, 2 not yet); 3 could not be compared (1 run at another setting than the "
                "paper's, 1 on too few runs for a verdict, 1 that the workbook cannot compute); 3 checks of the data, "
                "settings, inputs and timings are counted apart.")
    assert verdict_sentence(totals(tidy(_rows()))) == sentence
    figs, out = tmp_path / "figures", tmp_path / "report"
    figs.mkdir()
    out.mkdir()
    save_comparison(_rows(), "03_fig1", figs)
    fig, ax = plt.subplots(figsize=(12, 6))
    ax.plot([0, 1], [0, 1])
    fig.savefig(figs / HEADLINE_FIGURE, dpi=100)
    plt.close(fig)
    nbs = [ReportNotebook("03_fig1", "Accuracy_C", "TrimTuner Fig. 1", True, 12.0, "", ())]
    page = write_index(out, figs, nbs, collect(figs), "quick").read_text()
    assert "headline.png" not in page and "this report has none from it" in page  # the tour did not run here
    nbs.insert(0, ReportNotebook("00_tour", "Tour", "", True, 5.0, "", ()))
    page = write_index(out, figs, nbs, collect(figs), "quick").read_text()
    body = page[page.index("<body>"):]
    first_text = re.sub(r"<[^>]+>", " ", body).split()
    assert " ".join(first_text[:6]) == "TrimTuner Workbook: does it reproduce? Of"
    import html

    assert html.escape(sentence) in page
    at = page.index(html.escape(sentence))
    assert at < page.index("src='headline.png'") < page.index("class=\"totals\"") < page.index("Every row, by paper")
    from PIL import Image

    with Image.open(out / "headline.png") as im:
        assert im.width == 900  # 1200 px scaled to the page's width


@pytest.mark.parametrize("counts, sentence", [
    ({"agrees": 2, "differs (cause not measured yet)": 1},
     "Of the papers' 3 claims, 3 could be compared at the papers' settings: 2 are reproduced and 1 differs, none with "
     "a measured cause yet; 0 checks of the data, settings, inputs and timings are counted apart."),
    ({"paper only": 1, "timing": 1},
     "Of the papers' 1 claim, 0 could be compared at the papers' settings; 1 could not be compared (1 that the workbook "
     "cannot compute); 1 check of the data, settings, inputs and timings is counted apart."),
    ({"data check": 5}, "No claim of the papers was compared here; 5 checks of the data, settings, inputs and timings "
                        "are counted apart."),
])
def test_the_first_sentence_names_what_could_not_be_compared_only_when_there_is_some(counts, sentence):
    from tt_workbook.report.report import verdict_sentence

    assert verdict_sentence(counts) == sentence
