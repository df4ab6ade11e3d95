"""The report runner: failing notebooks are reported by name and do not stop the others."""

import json

import nbformat
import pytest

from tt_workbook.report import reproduce


def _nb(path, code):
    nb = nbformat.v4.new_notebook()
    params = nbformat.v4.new_code_cell("smoke = False\nfigures_dir = '.'\nprofile = 'quick'")
    params.metadata["tags"] = ["parameters"]
    nb.cells = [params, nbformat.v4.new_code_cell(code)]
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nbformat.write(nb, path)


def test_runner_reports_failures_and_writes_index(tmp_path, monkeypatch):
    nbdir = tmp_path / "nbs"
    nbdir.mkdir()
    _nb(nbdir / "a_ok.ipynb", "from pathlib import Path\nfrom tt_workbook.report.summary import comparison, save_comparison\n"
        "save_comparison(comparison([{'source': 's', 'item': 'n (count)', 'paper': 2, 'workbook': 1 + 1}]), 'a_ok', figures_dir)")
    _nb(nbdir / "b_fail.ipynb", "raise RuntimeError('deliberate failure')")
    _nb(nbdir / "c_ok.ipynb", "x = 1")
    monkeypatch.setattr(reproduce, "NOTEBOOK_DIR", nbdir)
    monkeypatch.setattr(reproduce, "NOTEBOOKS", [reproduce.NotebookEntry(s, s, "test") for s in ("a_ok", "b_fail", "c_ok")])
    index, results = reproduce.run("quick", out_dir=tmp_path / "out", figures_dir=tmp_path / "figs", progress=False)
    assert [r.ok for r in results] == [True, False, True]
    assert "RuntimeError: deliberate failure" in results[1].error
    page = index.read_text()
    assert "b_fail" in page and "FAILED" in page and "2 of 3 notebooks ran" in page and "n (count)" in page
    status = json.loads((tmp_path / "out" / "status.json").read_text())
    assert [s["ok"] for s in status] == [True, False, True]
    assert (tmp_path / "out" / "a_ok.html").is_file()
    with pytest.raises(ValueError, match="unknown profile 'slow'"):
        reproduce.run("slow", out_dir=tmp_path / "x")
    with pytest.raises(ValueError, match=r"no notebook matches \['zz'\]"):
        reproduce.available_notebooks(["zz"])


def test_forward_kernel_stderr_drops_only_the_tcp_warning(capsys):
    import os

    read_fd, write_fd = os.pipe()
    os.write(write_fd, b"[IPKernelApp] WARNING | Kernel is running over TCP without encryption. All communication...\n"
                       b"[IPKernelApp] WARNING | some other kernel warning\nTraceback (most recent call last)")
    os.close(write_fd)
    reproduce._forward_kernel_stderr(read_fd)
    err = capsys.readouterr().err
    assert "without encryption" not in err
    assert err == "[IPKernelApp] WARNING | some other kernel warning\nTraceback (most recent call last)"


def test_runner_silences_the_kernel_tcp_warning_only(tmp_path, monkeypatch, capfd):
    import threading

    nbdir = tmp_path / "nbs"
    nbdir.mkdir()
    _nb(nbdir / "a_err.ipynb", "import os\nos.write(2, b'kernel stderr line\\n')")
    monkeypatch.setattr(reproduce, "NOTEBOOK_DIR", nbdir)
    monkeypatch.setattr(reproduce, "NOTEBOOKS", [reproduce.NotebookEntry("a_err", "a_err", "test")])
    _, results = reproduce.run("quick", out_dir=tmp_path / "out", figures_dir=tmp_path / "figs", progress=False)
    assert [r.ok for r in results] == [True]
    for t in threading.enumerate():          # the forwarder ends when the (shut down) kernel closes its stderr
        if t.name == "kernel-stderr":
            t.join(timeout=30)
    err = capfd.readouterr().err
    assert "kernel stderr line" in err               # the kernel's own stderr still gets through
    assert "without encryption" not in err


def test_paper_profile_cells_are_not_cut_at_an_hour():
    """papermill's execution_timeout is per cell; the paper profile's grid cells (thesis ch. 7: 80 runs of
    100 tests in one `ensure_runs`) run longer than an hour on 2 cores, so that profile gets no limit."""
    from tt_workbook.report.reproduce import default_timeout

    assert default_timeout("paper") is None and default_timeout("quick") == 3600
    with pytest.raises(ValueError, match="known profiles"):
        default_timeout("papr")


def test_a_profile_run_in_parts_reports_every_part_once(tmp_path):
    """`tt reproduce --only ...` into a folder an earlier run wrote: the report keeps the earlier notebooks
    (whose executed copies are there), replaces a notebook run again, and drops one whose copy is gone."""
    e = {x.stem: x for x in reproduce.NOTEBOOKS}
    earlier = [{"notebook": "03_fig1_accuracy_vs_cost", "ok": True, "seconds": 100.0, "cpu_seconds": 190.0, "error": ""},
               {"notebook": "01_dataset_analysis", "ok": True, "seconds": 5.0, "cpu_seconds": 9.0, "error": ""},
               {"notebook": "02_table2_feasibility", "ok": True, "seconds": 3.0, "cpu_seconds": 4.0, "error": ""}]
    (tmp_path / "status.json").write_text(json.dumps(earlier))
    for stem in ("03_fig1_accuracy_vs_cost", "01_dataset_analysis"):   # 02's executed copy is gone
        (tmp_path / f"{stem}.ipynb").write_text("{}")
    now = [reproduce.NotebookResult(e["09_nephele_optimizer"], True, 50.0, "", 95.0),
           reproduce.NotebookResult(e["03_fig1_accuracy_vs_cost"], False, 7.0, "boom", 8.0)]
    merged = reproduce.merge_earlier(tmp_path, now)
    assert [(r.entry.stem, r.ok, r.seconds) for r in merged] == [
        ("01_dataset_analysis", True, 5.0), ("03_fig1_accuracy_vs_cost", False, 7.0), ("09_nephele_optimizer", True, 50.0)]
    assert reproduce.merge_earlier(tmp_path / "absent", now) == sorted(now, key=lambda r: r.entry.stem)


def test_a_killed_run_keeps_the_record_of_the_notebooks_it_finished(tmp_path, monkeypatch):
    """status.json is written after every notebook: a run stopped during the second notebook (here the
    executor raises KeyboardInterrupt, as Ctrl-C would) leaves the first one's entry, with its times."""
    import papermill as pm

    nbdir = tmp_path / "nbs"
    nbdir.mkdir()
    for s in ("a_ok", "b_killed"):
        _nb(nbdir / f"{s}.ipynb", "x = 1")
    monkeypatch.setattr(reproduce, "NOTEBOOK_DIR", nbdir)
    monkeypatch.setattr(reproduce, "NOTEBOOKS", [reproduce.NotebookEntry(s, s, "test") for s in ("a_ok", "b_killed")])
    real = pm.execute_notebook

    def execute(source, executed, **kw):
        if "b_killed" in str(source):
            raise KeyboardInterrupt
        return real(source, executed, **kw)

    monkeypatch.setattr(pm, "execute_notebook", execute)
    with pytest.raises(KeyboardInterrupt):
        reproduce.run("quick", out_dir=tmp_path / "out", figures_dir=tmp_path / "figs", progress=False)
    status = json.loads((tmp_path / "out" / "status.json").read_text())
    assert [(s["notebook"], s["ok"]) for s in status] == [("a_ok", True)] and status[0]["seconds"] > 0
