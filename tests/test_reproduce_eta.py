"""`tt reproduce`'s expected seconds per notebook and its ETA (tt_workbook.report.notebook_times), with
hand-computed answers; the shipped table against the totals docs/performance.md states."""

import json
import math

import nbformat
import pytest

from tt_workbook.report import notebook_times as nt
from tt_workbook.report import reproduce
from tt_workbook.report.notebook_times import Expected


def _csv(path, text):
    path.write_text(text)
    return path


# ------------------------------------------------------------------------------------------------
# expected seconds and their sources
# ------------------------------------------------------------------------------------------------
def test_expected_seconds_this_machine_then_table_then_median():
    # a: table 10; b: table 20 but run here in 5 s; c: table 40; d: nowhere -> median of 10, 5, 40 = 10
    got = nt.expected_seconds(["a", "b", "c", "d"], {"a": 10, "b": 20, "c": 40}, {"b": 5.0})
    assert got == [Expected("a", 10.0, "table"), Expected("b", 5.0, "this machine"),
                   Expected("c", 40.0, "table"), Expected("d", 10.0, "median")]
    # an even number of known notebooks: the median is the mean of the middle two, (10 + 30) / 2
    got = nt.expected_seconds(["x", "y", "z"], {"x": 10, "y": 30}, {})
    assert got[2] == Expected("z", 20.0, "median")
    # a time measured on this machine of a notebook the run does not include changes nothing
    assert nt.expected_seconds(["x"], {"x": 10}, {"other": 999.0}) == [Expected("x", 10.0, "table")]


def test_no_measured_time_at_all_counts_notebooks_equally():
    got = nt.expected_seconds(["a", "b"], {}, {})
    assert got == [Expected("a", nt.UNKNOWN_SECONDS, "none"), Expected("b", nt.UNKNOWN_SECONDS, "none")]
    assert nt.start_line(got) == "2 notebooks, no measured times (the bar counts notebooks)"


def test_start_line_counts_the_sources():
    exp = [Expected("a", 10, "table"), Expected("b", 5, "this machine"), Expected("c", 40, "table"),
           Expected("d", 10, "median")]
    assert nt.start_line(exp) == ("4 notebooks, about 65 s by measured times (1 of them measured on this machine; "
                                  "the ETA then follows this machine's pace); "
                                  "1 without a measured time, counted at the median of the others")
    # 18 notebooks of 100 s, 3 from this machine: 1800 s = 30 min
    exp = [Expected(str(i), 100.0, "this machine" if i < 3 else "table") for i in range(18)]
    assert nt.start_line(exp) == ("18 notebooks, about 30 min by measured times (3 of them measured on this machine; "
                                  "the ETA then follows this machine's pace)")


def test_table_rows_wall_else_cpu_and_missing_rows(tmp_path):
    path = _csv(tmp_path / "t.csv",
                "notebook,profile,wall_s,cpu_s,measured_on,note\n"
                "a,quick,,8,2026-11-26,cpu only\n"
                "b,quick,6,12,2026-11-26,both\n"
                "c,quick,abc,,2026-11-26,unreadable wall and no cpu\n"
                "d,quick,-3,,2026-11-26,negative\n"
                "a,paper,600,500,2026-11-25,other profile\n"
                ",quick,1,1,,no notebook\n")
    rows = nt.read_table(path)
    assert nt.table_times(rows, "quick") == {"a": 8.0, "b": 6.0}
    assert nt.table_times(rows, "paper") == {"a": 600.0}
    assert nt.table_times(rows, "smoke") == {}
    # c and d have no usable time: the median of a and b, (8 + 6) / 2
    got = nt.expected_seconds(["a", "b", "c", "d"], nt.table_times(rows, "quick"), {})
    assert [(e.seconds, e.source) for e in got] == [(8.0, "table"), (6.0, "table"), (7.0, "median"), (7.0, "median")]


@pytest.mark.parametrize("content", [
    b"\xff\xfe\x00binary, not utf-8",               # not text
    b"just,some,columns\n1,2,3\n",                  # no notebook/profile columns
    b"",                                            # empty
    b'notebook,profile,wall_s\n"a,quick,1\n',       # an unterminated quote
])
def test_a_corrupt_table_is_ignored(tmp_path, content):
    path = tmp_path / "t.csv"
    path.write_bytes(content)
    rows = nt.read_table(path)
    assert nt.table_times(rows, "quick") == {}
    assert nt.read_table(tmp_path / "absent.csv") == []


# ------------------------------------------------------------------------------------------------
# the earlier status.json of the run folder
# ------------------------------------------------------------------------------------------------
def test_earlier_times_only_finished_notebooks_with_a_time(tmp_path):
    (tmp_path / "status.json").write_text(json.dumps([
        {"notebook": "a", "ok": True, "seconds": 12.5, "cpu_seconds": 20.0, "error": ""},
        {"notebook": "b", "ok": False, "seconds": 3.0, "cpu_seconds": 3.0, "error": "boom"},   # failed: not a time
        {"notebook": "c", "ok": True, "seconds": "NaN"},                                        # no time
        {"notebook": "d", "ok": True, "seconds": -1},
        {"notebook": "e", "ok": True},
        "not an entry", {"ok": True, "seconds": 4},
    ]))
    assert nt.earlier_times(tmp_path, "quick") == {"a": 12.5}
    # the folder's report names another profile: its times are not this profile's
    (tmp_path / "report.json").write_text(json.dumps({"profile": "paper"}))
    assert nt.earlier_times(tmp_path, "quick") == {}
    assert nt.earlier_times(tmp_path, "paper") == {"a": 12.5}


@pytest.mark.parametrize("content", ["{not json", '{"notebook": "a"}', "[1, 2]", "null", "\udcff"])
def test_a_corrupt_status_json_is_ignored_and_the_table_used(tmp_path, content):
    (tmp_path / "status.json").write_bytes(content.encode("utf-8", "surrogateescape"))
    (tmp_path / "report.json").write_text("{corrupt")             # a corrupt report.json is not a reason either
    earlier = nt.earlier_times(tmp_path, "quick")
    assert earlier == {}
    got = nt.expected_seconds(["a", "b"], {"a": 30.0}, earlier)
    assert got == [Expected("a", 30.0, "table"), Expected("b", 30.0, "median")]


# ------------------------------------------------------------------------------------------------
# pace and ETA
# ------------------------------------------------------------------------------------------------
def test_eta_scales_the_remaining_expected_seconds_by_the_pace():
    expected = [10.0, 20.0, 30.0, 40.0]
    assert nt.eta(expected, []) == (1.0, 100.0)                      # nothing done: pace 1
    # the first took 20 s for 10 expected: pace 2, left 2 * (20 + 30 + 40) = 180
    assert nt.eta(expected, [20.0]) == (2.0, 180.0)
    # the second has run 15 s: 2 * 20 - 15 = 25 of it left, plus 2 * (30 + 40) = 140
    assert nt.eta(expected, [20.0], running=15.0) == (2.0, 165.0)
    # it has overrun (50 s > 2 * 20): nothing of it is counted, the rest still is
    assert nt.eta(expected, [20.0], running=50.0) == (2.0, 140.0)
    # two done in 20 + 10 = 30 s for 10 + 20 expected: pace 1, left 30 + 40
    assert nt.eta(expected, [20.0, 10.0]) == (1.0, 70.0)
    # all done: nothing left (10 s for 100 expected is a pace of 0.1, clipped to 0.25)
    assert nt.eta(expected, [1.0, 2.0, 3.0, 4.0]) == (0.25, 0.0)


def test_the_eta_says_whether_it_follows_this_machines_pace():
    expected = [60.0, 120.0, 120.0]
    # before a notebook is done: the measured times, 300 s = 5:00
    assert nt.eta_text(*nt.eta(expected, []), 0) == "about 5:00 left by the measured times"
    # the last of 2 notebooks expected 200 s (pace 1.5 from the first) has run 400 s: no zero, it says why
    assert nt.eta_text(*nt.eta([100.0, 200.0], [150.0], running=400.0), 1, 2) == (
        "the last notebook runs past its expected time: no estimate of what is left")
    assert nt.eta_text(*nt.eta([100.0, 200.0], [150.0], running=100.0), 1, 2).startswith("about 3:20 left")
    # the first took 150 s for 60 expected (the notebook 13: 6.6 min for 2.5-2.9): pace 2.5, 2.5 * 240 = 600 s
    assert nt.eta_text(*nt.eta(expected, [150.0]), 1) == (
        "about 10:00 left at this machine's pace so far (2.5 x the measured times)")
    # 2 h 5 min 3 s reads as h:mm:ss
    assert nt.clock(2 * 3600 + 5 * 60 + 3) == "2:05:03" and nt.clock(59.6) == "1:00"


def test_the_pace_is_clipped():
    expected = [10.0, 20.0, 30.0, 40.0]
    # 100 s for 10 expected is a pace of 10: clipped to 4, left 4 * 90 = 360
    assert nt.eta(expected, [100.0]) == (4.0, 360.0)
    # 1 s for 10 expected (its runs were stored): 0.1, clipped to 0.25, left 0.25 * 90 = 22.5
    assert nt.eta(expected, [1.0]) == (0.25, 22.5)
    assert nt.eta(expected, [1.0], lo=0.05) == (0.1, 9.0)
    # notebooks expected to take no time say nothing about the pace
    assert nt.eta([0.0, 10.0], [5.0]) == (1.0, 10.0)


# ------------------------------------------------------------------------------------------------
# regenerating the table from a run folder
# ------------------------------------------------------------------------------------------------
def test_the_table_from_a_run_folders_status_json(tmp_path, capsys):
    table = _csv(tmp_path / "t.csv",
                 "notebook,profile,wall_s,cpu_s,measured_on,note\n"
                 "a,quick,,8,2026-11-20,docs\n"
                 "b,quick,,9,2026-11-20,docs\n"
                 "a,paper,600,500,2026-11-25,docs\n")
    run = tmp_path / "run"
    run.mkdir()
    (run / "status.json").write_text(json.dumps([
        {"notebook": "a", "ok": True, "seconds": 12.5, "cpu_seconds": 20.0, "error": ""},
        {"notebook": "b", "ok": False, "seconds": 1.0, "cpu_seconds": 1.0, "error": "boom"},
        {"notebook": "c", "ok": True, "seconds": 3.25, "cpu_seconds": float("nan"), "error": ""},
    ]))
    assert nt.main(["--from", str(run), "--profile", "quick", "--table", str(table), "--measured-on", "2026-11-26",
                    "--note", "test run"]) == 0
    assert table.read_text() == ("notebook,profile,wall_s,cpu_s,measured_on,note\n"
                                 "a,quick,12.5,20,2026-11-26,test run\n"     # replaced
                                 "b,quick,,9,2026-11-20,docs\n"              # failed in the run: kept
                                 "a,paper,600,500,2026-11-25,docs\n"         # another profile: kept
                                 "c,quick,3.25,,2026-11-26,test run\n")      # new; its CPU time was not measured
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []   # no temporary file left
    capsys.readouterr()


def test_the_table_command_rejects_bad_input(tmp_path, capsys):
    table = _csv(tmp_path / "t.csv", "notebook,profile,wall_s,cpu_s,measured_on,note\n")
    assert nt.main(["--from", str(tmp_path / "nowhere"), "--profile", "quick", "--table", str(table)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("tt: error: no status.json in ") and "--from" in err[0]
    (tmp_path / "status.json").write_text("{broken")
    assert nt.main(["--from", str(tmp_path), "--profile", "quick", "--table", str(table)]) == 2
    assert capsys.readouterr().err.startswith("tt: error: no finished notebook in status.json")
    assert nt.main(["--from", str(tmp_path), "--profile", "papr", "--table", str(table)]) == 2
    assert capsys.readouterr().err.strip() == "tt: error: unknown profile 'papr'; give --profile quick or paper"
    assert table.read_text() == "notebook,profile,wall_s,cpu_s,measured_on,note\n"   # untouched


# ------------------------------------------------------------------------------------------------
# the shipped table
# ------------------------------------------------------------------------------------------------
def test_the_shipped_table_matches_the_documented_totals(tmp_path):
    """docs/performance.md: the quick rows are the fresh-clone run of 24.4 CPU-min in 25.6 min wall (its
    status.json, per-notebook wall and CPU s) with notebooks 00 and 17 re-measured alone, 25.4 CPU-min in 28.8 min
    wall in all; the paper rows are the 2026-11-28 paper-profile run's notebooks (after its plan: they read the
    runs), all 19 of them, 47.9 min wall and 47.0 CPU-min, notebook 13 (SpotTune's simulations, not in the plan)
    2199.54 s of it."""
    rows = nt.read_table()
    stems = [e.stem for e in reproduce.NOTEBOOKS]
    quick = {r["notebook"]: r for r in rows if r["profile"] == "quick"}
    paper = {r["notebook"]: r for r in rows if r["profile"] == "paper"}
    assert sorted(quick) == sorted(stems)
    assert set(paper) == set(stems)
    assert all(r["note"] and r["measured_on"] for r in rows)
    assert math.isclose(sum(r["cpu_s"] for r in quick.values()) / 60, 25.4, abs_tol=0.1)
    assert math.isclose(sum(r["wall_s"] for r in quick.values()) / 60, 28.8, abs_tol=0.2)
    fresh_clone = [r for s, r in quick.items() if s not in ("00_tour", "17_lcdb_outside_data")]
    assert {r["measured_on"] for r in fresh_clone} == {"2026-11-26"}   # the rest: the fresh-clone run's own rows
    assert math.isclose(sum(r["wall_s"] for r in paper.values()) / 60, 47.9, abs_tol=0.1)
    assert math.isclose(sum(r["cpu_s"] for r in paper.values()) / 60, 47.0, abs_tol=0.1)
    assert {r["measured_on"] for r in paper.values()} == {"2026-11-28"}
    assert nt.table_times(rows, "paper")["13_spottune_simulation"] == 2199.54
    # the quick rows' wall times, as measured
    assert nt.table_times(rows, "quick")["07_fig4_beta"] == 473.56
    # regenerating rows leaves the other rows byte for byte as shipped
    assert nt.write_table(rows, tmp_path / "t.csv").read_bytes() == nt.NOTEBOOK_TIMES.read_bytes()


# ------------------------------------------------------------------------------------------------
# the runner (papermill's executor replaced: no kernel is started)
# ------------------------------------------------------------------------------------------------
def _nb(path):
    nb = nbformat.v4.new_notebook()
    params = nbformat.v4.new_code_cell("profile = 'quick'")
    params.metadata["tags"] = ["parameters"]
    nb.cells = [params]
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nbformat.write(nb, path)


@pytest.fixture
def fake_workbook(tmp_path, monkeypatch):
    import papermill as pm

    nbdir = tmp_path / "nbs"
    nbdir.mkdir()
    for s in ("a", "b", "c"):
        _nb(nbdir / f"{s}.ipynb")
    monkeypatch.setattr(reproduce, "NOTEBOOK_DIR", nbdir)
    monkeypatch.setattr(reproduce, "NOTEBOOKS", [reproduce.NotebookEntry(s, s, "test") for s in ("a", "b", "c")])
    monkeypatch.setattr(nt, "NOTEBOOK_TIMES", _csv(tmp_path / "t.csv", "notebook,profile,wall_s,cpu_s,measured_on,note\n"
                                                   "a,quick,30,,2026-11-26,test\nb,quick,1000,,2026-11-26,test\n"))
    monkeypatch.setattr(pm, "execute_notebook", lambda source, executed, **kw: None)
    out = tmp_path / "out"
    out.mkdir()
    (out / "status.json").write_text(json.dumps([{"notebook": "b", "ok": True, "seconds": 10.0, "cpu_seconds": 9.0}]))
    return tmp_path


def test_the_runner_prints_the_expected_time_and_an_eta(fake_workbook, capsys):
    reproduce.run("quick", out_dir=fake_workbook / "out", figures_dir=fake_workbook / "figs", progress=True)
    captured = capsys.readouterr()
    # a: table 30 s; b: this machine 10 s (not the table's 1000); c: median (30 + 10) / 2 = 20; total 60 s
    assert ("3 notebooks, about 60 s by measured times (1 of them measured on this machine; the ETA then follows "
            "this machine's pace); 1 without a measured time, counted at the median of the others") in captured.out
    # the notebooks take no time here (their executor is replaced): the pace is clipped to 0.25
    assert "3/3 notebooks, done, about 0:00 left at this machine's pace so far (0.25 x the measured times)" in captured.err


def test_the_runner_without_progress_prints_nothing(fake_workbook, capsys):
    reproduce.run("quick", out_dir=fake_workbook / "out", figures_dir=fake_workbook / "figs", progress=False)
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err == ""
