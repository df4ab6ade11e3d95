"""Hostile and careless inputs, round 3, the report side (issue 34): ``tt docs results`` and ``tt summary`` on
report files of the wrong type, ``tt reproduce``'s merge of an earlier ``status.json``, what docs/results.md
may hold, ``tt summary --grep``, large ``tt runs`` grids and ``--out`` checked before any work.

Each case ends in one line ``tt: error: ...`` naming the file or option and the fix, with exit code 2 (or one
warning and the correct result); nothing is created before a refusal."""

from __future__ import annotations

import json
import re
import warnings
from pathlib import Path

import pandas as pd
import pytest

from conftest import assert_one_line_error, tt_cli
from tt_workbook.report import reproduce
from tt_workbook.report.summary import comparison, save_comparison


def _row(**kw) -> dict:
    return {"source": "TrimTuner Table II", "item": "feasible configurations", "paper": 10, "workbook": 10, **kw}


def _report(folder: Path, rows=None, status=None, meta=None) -> Path:
    """A ``tt reproduce`` folder: summary.csv (+ status.json and report.json when given, as text or JSON)."""
    folder.mkdir(parents=True, exist_ok=True)
    df = comparison(rows or [_row()])
    df["notebook"] = "02_table2_feasibility"
    df.to_csv(folder / "summary.csv", index=False)
    for name, value in (("status.json", status), ("report.json", meta)):
        if value is not None:
            (folder / name).write_text(value if isinstance(value, str) else json.dumps(value))
    return folder


# ============================================================== tt reproduce: an earlier status.json's entries
def test_a_malformed_earlier_status_entry_is_set_aside_and_the_new_status_kept(tmp_path):
    """An earlier entry without ``ok``, with ``seconds`` of text or a list as ``error``: once crashed
    merge_earlier after the notebook ran (KeyError/ValueError) and the new status was lost. Now it is left
    out with one warning, kept aside in status.json.malformed, and the new result and the good entries stay."""
    e = {x.stem: x for x in reproduce.NOTEBOOKS}
    earlier = [{"notebook": "01_dataset_analysis", "seconds": 5.0},                                  # no ok
               {"notebook": "02_table2_feasibility", "ok": True, "seconds": "fast"},               # text seconds
               {"notebook": "03_fig1_accuracy_vs_cost", "ok": "yes", "seconds": 1.0},              # ok not a bool
               {"notebook": "04_fig2_savings", "ok": True, "seconds": 2.0, "error": ["x"]},         # error a list
               {"notebook": "05_fig3_filters", "ok": True, "seconds": 4.0, "cpu_seconds": 6.0, "error": ""}]
    (tmp_path / "status.json").write_text(json.dumps(earlier))
    for d in earlier:
        (tmp_path / f"{d['notebook']}.ipynb").write_text("{}")
    now = [reproduce.NotebookResult(e["09_nephele_optimizer"], True, 50.0, "", 95.0)]
    with pytest.warns(UserWarning, match="malformed") as caught:
        merged = reproduce.merge_earlier(tmp_path, now)
    assert [(r.entry.stem, r.ok, r.seconds) for r in merged] == [("05_fig3_filters", True, 4.0),
                                                                  ("09_nephele_optimizer", True, 50.0)]
    msg = str(caught[0].message)
    for stem in ("01_dataset_analysis", "02_table2_feasibility", "03_fig1_accuracy_vs_cost", "04_fig2_savings"):
        assert stem in msg
    assert "status.json.malformed" in msg and "tt reproduce --only" in msg
    assert json.loads((tmp_path / "status.json.malformed").read_text()) == earlier[:4]
    reproduce.write_status(tmp_path, merged)                       # what run() does next: the new status is there
    with warnings.catch_warnings():
        warnings.simplefilter("error")                                # and the next merge reads it without a warning
        again = reproduce.merge_earlier(tmp_path, [])
    assert [r.entry.stem for r in again] == ["05_fig3_filters"]   # 09's executed copy is not in the folder


def test_an_earlier_status_json_of_the_wrong_type_is_no_crash(tmp_path):
    """A list of strings, a dict, numbers: no entry is kept, the new results are."""
    e = {x.stem: x for x in reproduce.NOTEBOOKS}
    now = [reproduce.NotebookResult(e["01_dataset_analysis"], True, 1.0, "", 1.0)]
    for text in ('["01_dataset_analysis"]', '{"notebook": "02_table2_feasibility"}', "42", '"x"', "[1, null, []]"):
        (tmp_path / "status.json").write_text(text)
        assert [r.entry.stem for r in reproduce.merge_earlier(tmp_path, now)] == ["01_dataset_analysis"]


def test_an_unknown_only_creates_no_folder(tmp_path, capsys):
    """`tt reproduce --only zz --out new`: refused before the run folder (or the figures folder) exists."""
    out, figs = tmp_path / "new" / "run", tmp_path / "figs"
    code, err = tt_cli(capsys, "reproduce", "--only", "zz", "--out", str(out), "--figures", str(figs))
    assert_one_line_error(code, err, "no notebook matches ['zz']")
    assert not (tmp_path / "new").exists() and not figs.exists()


# ============================================================== tt docs results: report files of the wrong type
FIX = "run `tt reproduce` again to rewrite it, or delete it"


@pytest.mark.parametrize("name, text, needles", [
    ("status.json", '["01_dataset_analysis"]', ["status.json: entry 1 is a string (\"01_dataset_analysis\")",
                                                "not an object with a notebook name"]),
    ("status.json", '{"notebook": "01_dataset_analysis"}', ["status.json holds an object, not the list"]),
    ("status.json", "42", ["status.json holds a number (42), not the list"]),
    ("status.json", '"done"', ["status.json holds a string (\"done\"), not the list"]),
    ("status.json", '[{"notebook": 5, "ok": "yes"}]', ["status.json: entry 1 has notebook a number (5) and ok a "
                                                       "string (\"yes\")"]),
    ("status.json", "[" * 100000 + "]" * 100000, ["status.json is not readable JSON (nested too deep)"]),
    ("status.json", "{not json", ["status.json is not readable JSON ("]),
    ("report.json", "[1, 2]", ["report.json holds a list, not the object"]),
    ("report.json", '"quick"', ["report.json holds a string (\"quick\"), not the object"]),
    ("report.json", '{"profile": 5}', ["report.json: profile is a number (5), not a profile's name"]),
    ("report.json", '{"profile": "quick", "notebooks_not_run": "a, b"}',
     ["report.json: notebooks_not_run is a string (\"a, b\"), not a list of notebook names"]),
    ("report.json", '{"profile": "quick", "notebooks_run": [1]}', ["report.json: notebooks_run is a list, not a list"]),
])
def test_docs_results_names_a_report_file_of_the_wrong_type(tmp_path, capsys, name, text, needles):
    """Each once gave an AttributeError/TypeError/RecursionError traceback (or, for notebooks_not_run as a string,
    "the notebooks a, ,, b did not run"); now one line naming the file, what it holds and the fix, exit 2, and
    docs/results.md (here --out) is not written."""
    folder = _report(tmp_path / "quick", **{"status" if name == "status.json" else "meta": text})
    out = tmp_path / "results.md"
    code, err = tt_cli(capsys, "docs", "results", "--report", str(folder), "--out", str(out))
    assert_one_line_error(code, err, str(folder / name), FIX, *needles)
    assert not out.exists()


def test_docs_results_names_a_summary_csv_with_other_columns(tmp_path, capsys):
    folder = _report(tmp_path / "quick")
    pd.DataFrame({"a": [1], "b": [2]}).to_csv(folder / "summary.csv", index=False)
    code, err = tt_cli(capsys, "docs", "results", "--report", str(folder), "--out", str(tmp_path / "r.md"))
    assert_one_line_error(code, err, f"summary table {folder / 'summary.csv'} lacks the columns source, item, paper, "
                                     "workbook, status (it has a, b)", FIX)


def test_docs_results_on_a_fifo_status_json_does_not_block(tmp_path):
    """A FIFO where status.json belongs: named at once (a subprocess with a timeout, so a hang fails the test)."""
    import os
    import subprocess
    import sys

    folder = _report(tmp_path / "quick")
    os.mkfifo(folder / "status.json")
    done = subprocess.run([sys.executable, "-m", "tt_workbook.cli", "docs", "results", "--report", str(folder), "--out",
                           str(tmp_path / "r.md")], capture_output=True, text=True, timeout=120,
                          stdin=subprocess.DEVNULL)
    assert_one_line_error(done.returncode, done.stderr, "status.json", "is not a regular file (a FIFO)")


def test_docs_results_writes_no_raw_html_nor_line_breaks_from_a_row(tmp_path, capsys):
    """A row's text (item, source, cause) and a notebook's name in status.json with HTML, a newline, a pipe and a
    backtick: docs/results.md holds them as text (entities), one table row per line, and the generated block's
    end marker cannot be forged."""
    evil = "<script>alert(1)</script>\n| x | `y` <!-- END GENERATED -->"
    rows = [_row(item=evil, workbook=11, cause=evil), _row(item="fine", source="TrimTuner <b>Fig</b>"),
            _row(item="typed", workbook=12, cause="p < 0.05 and a ratio <= 2 > 1 for R&D, not &copy; or &#60;")]
    folder = _report(tmp_path / "quick", rows=rows,
                     status=[{"notebook": "02_table2_feasibility", "ok": True},
                             {"notebook": "<img src=x onerror=alert(1)>", "ok": False}],
                     meta={"profile": "<i>quick</i>", "notebooks_not_run": ["<u>16</u>"]})
    out = tmp_path / "results.md"
    code, err = tt_cli(capsys, "docs", "results", "--report", str(folder), "--out", str(out))
    assert code == 0, err
    text = out.read_text()
    generated = text[text.index("<!-- BEGIN"):]
    body = generated[generated.index("\n"):generated.rindex("<!-- END GENERATED -->")]
    for raw in ("<script", "<img", "<b>", "<i>", "<u>", "<!--"):
        assert raw not in body, raw
    assert "&lt;script>alert(1)&lt;/script>" in body and "&lt;img src=x onerror=alert(1)>" in body
    assert generated.count("<!-- END GENERATED -->") == 1
    assert "p < 0.05 and a ratio <= 2 > 1 for R&D, not &amp;copy; or &amp;#60;" in body   # as typed, shown as typed
    row = [ln for ln in body.splitlines() if "alert(1)&lt;/script" in ln and "feasible" not in ln][0]
    assert row.startswith("| 02 | TrimTuner Table II | &lt;script>") and "\\| x \\| 'y'" in row
    assert len(re.split(r"(?<!\\)\|", row)) == 6 + 2   # 6 cells: no extra column from the row's pipes
    # the generated part is rewritten in place: the next run still finds exactly one block
    assert tt_cli(capsys, "docs", "results", "--report", str(folder), "--out", str(out))[0] == 0
    assert out.read_text() == text


# ============================================================== tt summary: summary CSVs that are no summary table
def _figures(tmp_path: Path, rows=None, name="02_table2_feasibility") -> Path:
    figs = tmp_path / "figures"
    save_comparison(comparison(rows or [_row()]), name, figs)
    return figs


def test_summary_names_a_summary_csv_with_other_columns(tmp_path, capsys):
    """Once a KeyError: 'agrees' traceback."""
    figs = _figures(tmp_path)
    pd.DataFrame({"x": [1], "y": [2]}).to_csv(figs / "summary_05_fig3_filters.csv", index=False)
    code, err = tt_cli(capsys, "summary", "--figures", str(figs))
    assert_one_line_error(code, err, f"summary table {figs / 'summary_05_fig3_filters.csv'} lacks the columns source, "
                                     "item, paper, workbook, status (it has x, y)",
                          "delete it, or run its notebook again (tt reproduce --only 05)")


@pytest.mark.parametrize("content, needles", [
    (b"", ["cannot be read as CSV (No columns to parse from file)"]),
    (b'source,item,paper,workbook,status\n"unclosed,1,2,3,agrees\n', ["cannot be read as CSV ("]),
    (b"\xff\xfe\x00binary\x00\x81", ["cannot be read as CSV ("]),
    (b"source,item,paper,workbook,status\n\n\nS,i,1,1,agrees\nS,j,1,2,<b>won</b>\n",
     ["line 5: status '<b>won</b>' is none of agrees, differs"]),
])
def test_summary_names_an_unreadable_summary_csv_and_the_line(tmp_path, capsys, content, needles):
    """Unreadable CSVs once gave pandas' message without the file; a status no notebook writes is named with its
    line as a text editor counts it (blank lines included)."""
    figs = _figures(tmp_path)
    (figs / "summary_05_fig3_filters.csv").write_bytes(content)
    code, err = tt_cli(capsys, "summary", "--figures", str(figs))
    assert_one_line_error(code, err, f"summary table {figs / 'summary_05_fig3_filters.csv'}", *needles,
                          "(tt reproduce --only 05)")


def test_summary_grep_on_numbers_in_item_and_source(tmp_path, capsys):
    """A table whose item and source columns hold only numbers (pandas reads them as numbers): --grep once raised
    'Can only use .str accessor with string values'; now they are text and match."""
    figs = _figures(tmp_path)
    (figs / "summary_05_fig3_filters.csv").write_text("source,item,paper,workbook,status\n7,42,1,1,agrees\n")
    from tt_workbook.cli import main

    assert main(["summary", "--figures", str(figs), "--grep", "^42$"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 2 and lines[1].split()[:3] == ["05", "7", "42"]


def test_summary_grep_without_a_match_says_so(tmp_path, capsys):
    """Rows exist, none matches: the message says that no row matches the pattern (it once said to run
    `tt reproduce` first); an empty --grep is refused as empty."""
    figs = _figures(tmp_path)
    code, err = tt_cli(capsys, "summary", "--figures", str(figs), "--grep", "Fig. 99")
    assert_one_line_error(code, err, "no row matches --grep 'Fig. 99' (in item or source, ignoring case) among the 1 "
                                     "rows of", "try a shorter pattern, or `tt summary` for every row")
    assert "tt reproduce" not in err
    code, err = tt_cli(capsys, "summary", "--figures", str(figs), "--grep", "")
    assert_one_line_error(code, err, "--grep is empty (it would match every row)")
    code, err = tt_cli(capsys, "summary", "--figures", str(tmp_path))   # no summary_*.csv there: none exist
    assert_one_line_error(code, err, "no paper-vs-workbook rows found; run `tt reproduce`")


def test_run_folder_json_nested_too_deep_or_a_fifo_counts_as_absent(tmp_path):
    """`tt reproduce` reads the run folder's earlier status.json and report.json for its time estimate: nested
    too deep (once a RecursionError traceback), larger than any it writes, or a FIFO (once a blocking read: run in
    a subprocess with a timeout) they count as absent, as a malformed file does."""
    import os
    import subprocess
    import sys

    from tt_workbook.report import notebook_times as nt

    (tmp_path / "status.json").write_text("[" * 100000 + "]" * 100000)
    (tmp_path / "report.json").write_text('{"profile": ' + "[" * 100000 + "]" * 100000 + "}")
    assert nt.read_status(tmp_path / "status.json") == [] and nt.earlier_times(tmp_path, "quick") == {}
    (tmp_path / "status.json").write_text(json.dumps([{"notebook": "a", "ok": True, "seconds": 1.0, "pad": "x" * 5_000_000}]))
    assert nt.read_status(tmp_path / "status.json") == []
    fifo = tmp_path / "fifo"
    fifo.mkdir()
    os.mkfifo(fifo / "status.json")
    os.mkfifo(fifo / "report.json")
    code = ("from tt_workbook.report import notebook_times as nt; import sys; "
            "print(nt.read_status(sys.argv[1] + '/status.json'), nt.earlier_times(sys.argv[1], 'quick'))")
    done = subprocess.run([sys.executable, "-c", code, str(fifo)], capture_output=True, text=True, timeout=120,
                          stdin=subprocess.DEVNULL)
    assert done.returncode == 0 and done.stdout.strip() == "[] {}", done.stderr


# ============================================================== tt runs: a large grid states its estimate and stops
def _estimate_then_error(err: str) -> tuple[str, str]:
    lines = [ln for ln in err.strip().splitlines() if ln.strip()]
    assert len(lines) == 2 and "Traceback" not in err, err
    return lines[0], lines[1]


def test_runs_with_100000_seeds_prints_its_estimate_and_stops_at_the_bound(tmp_path, capsys):
    """`tt runs --seeds 1 ... 100000` once started a grid without a bound or an estimate (and its duplicate check
    took minutes: list.count per seed). Now: the estimate first, then one line naming the bound and how to
    confirm, exit 2, quickly, and the run store is not created."""
    import time

    runs = tmp_path / "runs"
    t0 = time.perf_counter()
    code, err = tt_cli(capsys, "runs", "--benchmarks", "rnn", "--optimizers", "random", "--seeds",
                       *map(str, range(1, 100001)), "--runs-dir", str(runs))
    assert time.perf_counter() - t0 < 60
    estimate, error = _estimate_then_error(err)
    assert code == 2 and estimate.startswith("tt: 100000 runs to compute: ")
    assert error == ("tt: error: 100000 runs to compute, more than --max-runs 1000 (the default): give --max-runs "
                     "100000 to compute them all, or fewer --seeds, --benchmarks or --optimizers")
    assert not runs.exists()


def test_runs_max_runs_is_the_stated_bound(tmp_path, capsys):
    runs = tmp_path / "runs"
    code, err = tt_cli(capsys, "runs", "--benchmarks", "rnn", "--optimizers", "random", "--seeds", "1", "2", "3",
                       "--iterations", "3", "--runs-dir", str(runs), "--max-runs", "2")
    estimate, error = _estimate_then_error(err)
    assert code == 2 and estimate.startswith("tt: 3 runs to compute: ")
    assert error.startswith("tt: error: 3 runs to compute, more than --max-runs 2: give --max-runs 3")
    assert not runs.exists()
    code, err = tt_cli(capsys, "runs", "--report", "--max-runs", "5", "--benchmarks", "rnn", "--optimizers", "random",
                       "--seeds", "1")
    assert_one_line_error(code, err, "--max-runs 5 bounds the runs a grid computes; --report computes none: drop "
                                     "--max-runs")


def test_runs_duplicate_seeds_among_many_are_named_quickly(capsys):
    import time

    seeds = [*map(str, range(1, 50001)), "7"]
    t0 = time.perf_counter()
    code, err = tt_cli(capsys, "runs", "--benchmarks", "rnn", "--optimizers", "random", "--seeds", *seeds)
    assert time.perf_counter() - t0 < 30
    assert_one_line_error(code, err, "--seeds 1 2 3 4 5 6 7 8 9 10 ... (50001 values): 7 is given 2 times")


# ============================================================== --out: checked before any work, nothing created
def _outs(tmp_path: Path) -> dict:
    folder = tmp_path / "a_folder"
    folder.mkdir()
    afile = tmp_path / "a_file.txt"
    afile.write_text("keep")
    return {"folder": folder, "file": afile}


@pytest.mark.parametrize("argv, out, needles", [
    (["docs", "results", "--report", "{report}"], "{folder}", ["--out {folder} is a folder: give the path of a file"]),
    (["docs", "results", "--report", "{report}"], "/dev/null", ["--out /dev/null is not a regular file"]),
    (["docs", "results", "--report", "{report}"], "{file}/results.md", ["{file} is a file, not a folder"]),
    (["docs", "results", "--report", "{report}"], " ", ["--out is empty"]),
    (["docs", "results", "--report", "{tmp}/new/absent"], "{tmp}/new/deeper/results.md",
     ["--report {tmp}/new/absent does not exist"]),
    (["spot", "sensitivity", "--profile", "quick"], "{folder}", ["--out {folder} is a folder"]),
    (["spot", "sensitivity", "--profile", "quick"], "{tmp}/new/table.txt",
     ["--out {tmp}/new/table.txt: the output is a CSV file; give a name ending in .csv"]),
    (["spot", "sensitivity", "--profile", "quick"], "{file}/table.csv", ["{file} is a file, not a folder"]),
    (["bench", "recommend", "--quick"], "{folder}", ["--out {folder} is a folder"]),
    (["bench", "acquisition", "--repeats", "1"], "{file}/x/bench.csv", ["{file} is a file, not a folder"]),
    (["reproduce", "--only", "01"], "{file}", ["--out {file} is a file, not a folder"]),
    (["reproduce", "--only", "01", "--figures", "{file}"], "{tmp}/new/run", ["--figures {file} is a file, not a folder"]),
])
def test_out_is_checked_before_any_work_and_nothing_is_created(tmp_path, capsys, argv, out, needles):
    """Each once ran its whole sweep (or measurement, or notebook) and failed on writing, or created folders before
    refusing: now one line naming the option and the fix, at once (no sweep: well under the seconds one takes),
    and nothing new under tmp_path; a FIFO or device as --out would have been replaced by the atomic writer."""
    import time

    paths = {**_outs(tmp_path), "tmp": tmp_path, "report": _report(tmp_path / "quick")}
    before = sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*"))
    fill = [a.format(**paths) for a in argv] + ["--out", out.format(**paths)]
    t0 = time.perf_counter()
    code, err = tt_cli(capsys, *fill)
    assert time.perf_counter() - t0 < 20
    assert_one_line_error(code, err, *[n.format(**paths) for n in needles])
    assert sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*")) == before
    assert paths["file"].read_text() == "keep"


def test_the_report_after_a_run_leaves_out_a_malformed_summary_csv_with_a_warning(tmp_path):
    """`tt reproduce` writes its report after every notebook ran: a malformed summary_*.csv in figures/ (another
    notebook's, or a crafted one) costs its rows, with one warning naming it, not the report."""
    from tt_workbook.report.summary import collect

    figs = _figures(tmp_path)
    (figs / "summary_05_fig3_filters.csv").write_text("x,y\n1,2\n")
    with pytest.raises(ValueError, match="summary_05_fig3_filters.csv lacks the columns"):
        collect(figs)
    with pytest.warns(UserWarning, match=r"summary_05_fig3_filters.csv lacks the columns .* left out of the report"):
        rows = collect(figs, skip_bad=True)
    assert list(rows["notebook"]) == ["02_table2_feasibility"]


def test_a_summary_csv_larger_than_any_notebook_writes_is_named_unread(tmp_path, capsys, monkeypatch):
    from tt_workbook.report import summary

    figs = _figures(tmp_path)
    monkeypatch.setattr(summary, "MAX_SUMMARY_BYTES", 2**20)
    (figs / "summary_05_fig3_filters.csv").write_bytes(b"source,item,paper,workbook,status\n" + b"a" * 2**21)
    code, err = tt_cli(capsys, "summary", "--figures", str(figs))
    assert_one_line_error(code, err, "summary_05_fig3_filters.csv holds 2 MB, more than any notebook writes (1 MB at "
                                     "most)", "(tt reproduce --only 05)")


def test_a_report_folder_whose_summary_csv_is_a_folder(tmp_path, capsys):
    folder = tmp_path / "quick"
    (folder / "summary.csv").mkdir(parents=True)
    code, err = tt_cli(capsys, "docs", "results", "--report", str(folder), "--out", str(tmp_path / "r.md"))
    assert_one_line_error(code, err, f"summary table '{folder / 'summary.csv'}' is a folder, not a file",
                          "give the folder `tt reproduce` wrote")


def test_results_markdown_refuses_not_run_as_text():
    """The API too: a string of names is not split into its characters ("a, ,, b")."""
    from tt_workbook.report.docs import results_markdown

    with pytest.raises(ValueError, match="not_run must be a list of notebook names, got 'a, b'"):
        results_markdown(comparison([_row()]), "quick", [], not_run="a, b")


@pytest.mark.parametrize("iterations, needles", [
    ("2", ["--iterations 2: rnn/random-it2: iterations=2 is smaller than the initial design of 'random' (4 tests)"]),
    ("500", ["--iterations 500: rnn/random-it500: iterations=500 exceeds the 288 candidate tests of 'random'"]),
])
def test_runs_iterations_outside_a_setting_are_refused_before_the_store_exists(tmp_path, capsys, iterations, needles):
    """Once refused from inside the first run, after the run store's folders and a lock file were created."""
    runs = tmp_path / "runs"
    code, err = tt_cli(capsys, "runs", "--benchmarks", "rnn", "--optimizers", "random", "--seeds", "1",
                       "--iterations", iterations, "--runs-dir", str(runs))
    assert_one_line_error(code, err, *needles)
    assert not runs.exists()


@pytest.mark.parametrize("argv, needles", [
    (["summary", "--figures", ""], ["--figures is empty (it would mean the working directory)"]),
    (["summary", "--figures", "  "], ["--figures is empty"]),
    (["docs", "results", "--report", "", "--out", "{tmp}/r.md"], ["--report is empty (it would mean the working "
                                                                  "directory)"]),
    (["reproduce", "--out", ""], ["--out is empty (it would mean the working directory)"]),
    (["reproduce", "--figures", " "], ["--figures is empty"]),
])
def test_empty_folders_are_refused_as_empty(tmp_path, capsys, argv, needles):
    code, err = tt_cli(capsys, *[a.format(tmp=tmp_path) for a in argv])
    assert_one_line_error(code, err, *needles)
    assert list(tmp_path.iterdir()) == []


def test_summary_grep_with_exponential_backtracking_stops_at_its_bound(tmp_path, capsys, monkeypatch):
    """A pattern with nested repetition on a long item ('(a+)+$' on 'aaa...a!') once ran for hours (with a lookahead,
    pandas leaves pyarrow's linear-time engine for Python's backtracking one); now it stops after GREP_SECONDS with
    one line naming --grep and the fix. With no rows at all, --grep says to run first."""
    import time

    from tt_workbook.cli import summary as cli_summary

    figs = _figures(tmp_path, rows=[_row(item="a" * 60 + "!")])
    monkeypatch.setattr(cli_summary, "GREP_SECONDS", 1)
    t0 = time.perf_counter()
    code, err = tt_cli(capsys, "summary", "--figures", str(figs), "--grep", "(?=a)(a+)+$")
    assert time.perf_counter() - t0 < 30
    assert_one_line_error(code, err, "--grep '(?=a)(a+)+$' took more than 1 s on 1 rows", "simplify the pattern")
    empty = tmp_path / "empty"
    empty.mkdir()
    code, err = tt_cli(capsys, "summary", "--figures", str(empty), "--grep", "x")
    assert_one_line_error(code, err, "no paper-vs-workbook rows found; run `tt reproduce`")


def test_docs_results_into_a_page_that_is_not_utf8_text(tmp_path, capsys):
    """--out an existing file of other bytes: once "'utf-8' codec can't decode" without the file; now
    named, and its bytes kept."""
    folder = _report(tmp_path / "quick")
    page = tmp_path / "results.md"
    page.write_bytes(b"\xff\xfe binary")
    code, err = tt_cli(capsys, "docs", "results", "--report", str(folder), "--out", str(page))
    assert_one_line_error(code, err, f"--out {page} is not UTF-8 text (byte 0), no markdown page",
                          "give --out a markdown page (docs/results.md), or a new file")
    assert page.read_bytes() == b"\xff\xfe binary"


@pytest.mark.parametrize("argv, needles", [
    (["runs", "--benchmarks", "rnn", "--optimizers", "random", "--iterations", "5", "--seeds", "1", str(10**40)],
     [f"--seeds must be at most 4294967295, got '{10**40}'"]),
    (["optimize", "--benchmark", "rnn", "--optimizer", "random", "--iterations", "5", "--seed", str(2**32)],
     ["--seed must be at most 4294967295, got '4294967296'"]),
])
def test_a_seed_beyond_the_stored_range_is_refused_by_its_option(tmp_path, capsys, argv, needles):
    """`tt runs --seeds 10**40` once ran and ended in pyarrow's OverflowError traceback while storing the run."""
    code, err = tt_cli(capsys, *argv, *(["--runs-dir", str(tmp_path / "runs")] if argv[0] == "runs" else []))
    assert_one_line_error(code, err, *needles)
    assert not (tmp_path / "runs").exists()


def test_runs_dir_under_a_file_is_refused_before_any_run(tmp_path, capsys):
    """Once the grid started and its first run failed with 'Not a directory: .../rnn/random-it5'."""
    afile = tmp_path / "afile"
    afile.write_text("keep")
    code, err = tt_cli(capsys, "runs", "--benchmarks", "rnn", "--optimizers", "random", "--seeds", "1", "--iterations",
                       "5", "--runs-dir", str(afile / "sub"))
    assert_one_line_error(code, err, f"--runs-dir {afile / 'sub'}: {afile} is a file, not a folder; choose another path")
    assert "runs:" not in err and afile.read_text() == "keep"
