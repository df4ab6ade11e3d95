"""``tt summary`` in a terminal (issue 35, item 4): the table fitted to the terminal's width (long texts cut with
…, ``--wide`` prints everything), and quiet on a closed pipe (``tt summary | head -1``: exit 0, no error)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from conftest import assert_one_line_error, tt_cli
from tt_workbook import cli
from tt_workbook.report.summary import comparison, save_comparison

ROOT = __import__("pathlib").Path(__file__).resolve().parents[1]
LONG_CAUSE = ("the initial sampling draws configurations until five dollars are spent, so five dollars buy "
              "twenty-four tests instead of the paper's eleven, which moves every later incumbent (budget.csv)")


def _figures(tmp_path, n: int = 3, authors: bool = False):
    rows = [{"source": f"TrimTuner Fig. {i} (a long source name of the figure)", "item": f"final Accuracy_C of a "
             f"long-named setting number {i} with its filter and beta", "paper": 0.755 + i, "workbook": 0.5 + i,
             "cause": LONG_CAUSE, "note": "a note " * 30, **({"authors": 0.7} if authors else {})} for i in range(n)]
    figs = tmp_path / "figures"
    save_comparison(comparison(rows), "03_fig1_accuracy_vs_cost", figs)
    return figs


@pytest.mark.parametrize("width", [100, 80, 140])
@pytest.mark.parametrize("authors", [False, True])
def test_summary_fits_the_terminal_width(tmp_path, capsys, monkeypatch, width, authors):
    """Every line of the table within the terminal's width (``shutil.get_terminal_size`` reads COLUMNS first);
    the cut texts end in …; stderr says how many were cut and names --wide."""
    figs = _figures(tmp_path, authors=authors)
    monkeypatch.setenv("COLUMNS", str(width))
    assert cli.main(["summary", "--figures", str(figs)]) == 0
    out, err = capsys.readouterr()
    lines = out.rstrip("\n").splitlines()
    assert len(lines) == 1 + 3 and max(map(len, lines)) <= width
    assert lines[0].split()[:4] == ["nb", "source", "item", "paper"] and ("authors'" in lines[0]) == authors
    assert all(ln.startswith("03  TrimTun") and "…" in ln and "differs" in ln for ln in lines[1:])
    assert "0.50" in lines[1] and "0.755" in lines[1]        # numbers as the report prints them
    assert f"cells cut with … to fit {width} columns; `tt summary --wide` prints them in full" in err
    assert LONG_CAUSE not in out


def test_summary_wide_prints_every_column_in_full(tmp_path, capsys, monkeypatch):
    figs = _figures(tmp_path)
    monkeypatch.setenv("COLUMNS", "100")
    assert cli.main(["summary", "--figures", str(figs), "--wide"]) == 0
    out, err = capsys.readouterr()
    assert LONG_CAUSE in out and ("a note " * 30).strip() in out
    assert max(map(len, out.splitlines())) > 100 and "cut" not in err and "…" not in out


def test_summary_short_rows_are_not_cut(tmp_path, capsys, monkeypatch):
    figs = tmp_path / "figures"
    save_comparison(comparison([{"source": "TrimTuner Table II", "item": "feasible", "paper": 10, "workbook": 10}]),
                    "02_table2_feasibility", figs)
    monkeypatch.setenv("COLUMNS", "100")
    assert cli.main(["summary", "--figures", str(figs)]) == 0
    out, err = capsys.readouterr()
    assert out.splitlines()[1].split() == ["02", "TrimTuner", "Table", "II", "feasible", "10", "10", "agrees"]
    assert "…" not in out and "cut" not in err


def test_summary_into_a_closed_pipe_is_quiet(tmp_path):
    """`tt summary | head -1` on a table larger than a pipe's buffer: head gets the heading, tt exits 0 and
    prints nothing on stderr (once: "tt: error: Broken pipe: (check the path and try again)", exit 2)."""
    figs = _figures(tmp_path, n=2000)
    env = {**os.environ, "COLUMNS": "100", "PYTHONPATH": str(ROOT)}
    script = f'{sys.executable} -m tt_workbook.cli summary --figures "{figs}" 2>"{tmp_path / "err"}" | head -1; ' \
             'echo "tt=${PIPESTATUS[0]}"'
    done = subprocess.run(["bash", "-c", script], capture_output=True, text=True, timeout=120, env=env, cwd=ROOT,
                          stdin=subprocess.DEVNULL)
    lines = done.stdout.splitlines()
    assert lines[0].split()[:3] == ["nb", "source", "item"] and lines[-1] == "tt=0", done.stdout
    err = (tmp_path / "err").read_text()
    assert "Broken pipe" not in err and "Exception ignored" not in err and "Traceback" not in err, err


def test_a_broken_pipe_that_is_not_stdout_is_still_an_error(capsys, monkeypatch):
    """Only a closed standard output is quiet: a BrokenPipeError of a command's own pipe (a worker) stays one
    error line with exit code 2."""
    from tt_workbook.cli import summary

    def broken(args):
        raise BrokenPipeError(32, "Broken pipe")

    monkeypatch.setattr(summary, "cmd_summary", broken)
    code, err = tt_cli(capsys, "summary")
    assert_one_line_error(code, err, "Broken pipe")


@pytest.mark.parametrize("argv", [["summary", "--figures", "{figs}"], ["summary", "--figures", "{figs}", "--wide"],
                                  ["summary", "--figures", "{figs}", "--markdown"], ["data", "list"], ["--help"],
                                  ["summary", "--help"]])
def test_every_command_is_quiet_on_a_pipe_closed_before_it_writes(tmp_path, argv):
    """Standard output a pipe whose reader is already gone (deterministic, unlike a race with head): exit 0 and
    nothing on stderr, for the commands' own printing and argparse's help alike (the handling is in tt's entry)."""
    figs = _figures(tmp_path, n=5)
    r, w = os.pipe()
    os.close(r)
    try:
        done = subprocess.run([sys.executable, "-m", "tt_workbook.cli", *[a.format(figs=figs) for a in argv]], stdout=w,
                              stderr=subprocess.PIPE, text=True, timeout=120, cwd=ROOT, stdin=subprocess.DEVNULL,
                              env={**os.environ, "PYTHONPATH": str(ROOT)})
    finally:
        os.close(w)
    assert done.returncode == 0, done.stderr
    assert "Broken pipe" not in done.stderr and "Exception ignored" not in done.stderr and "Traceback" not in done.stderr
