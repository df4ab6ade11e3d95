"""One plan of the notebooks' runs (:mod:`tt_workbook.plan`), ``tt plan`` and ``tt reproduce`` computing it first.

The counts are hand-counted from the profile table (:mod:`tt_workbook.runs.profiles`); the strict mode is checked
on a store; the Dask backend against the local one on the same tiny plan; and, slow, notebook 03 executed in smoke
mode with only its plan's runs stored and TT_PLAN_STRICT set (a run it asks for outside the plan fails it).
"""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from tt_workbook import plan
from tt_workbook.runs import store as ex

from conftest import tt_cli

#: Columns of a stored trajectory that measure this machine (wall-clock), not the run.
VOLATILE = ["overhead_s", "cumulative_wall"]


def test_smoke_plan_counts_by_hand():
    """Smoke settings, counted from the profile table:
    00: 3 optimisers x seeds {1, 2, 10} = 9 (5 tests). 03: Fig. 1 rnn x 3 optimisers x seed 1 = 3 (8 tests), variants
    4 x 1 at 6 tests (two of them the same run: options ()), authors' code rnn seed 1 = 1 -> 7 distinct.
    04: Fig. 1's 3 + the authors' 1, all read by 03 first. 05: 4 filters + 2 raw = 6 (CEA at 6 tests = 03's
    variant run). 07: 3 betas + authors' code at 0.01, 0.1 and no filter = 6 (beta 0.1 shared with 05).
    09: (4 optimisers x 2 seeds + 3 horizons x 1 seed) x 2 networks = 22. 16: 4 optimisers x 1 seed = 4."""
    nb = plan.notebook_runs("quick", smoke=True, only=["00", "03", "04", "05", "07", "09", "16"])
    rows, totals = plan.summary(nb, "/nonexistent-runs-store")
    counted = {r["notebook"]: (r["runs"], r["shared"]) for r in rows}
    assert counted == {"00": (9, 0), "03": (7, 0), "04": (4, 4), "05": (6, 1), "07": (6, 1), "09": (22, 0),
                       "16": (4, 0)}
    assert totals["runs"] == 9 + 7 + 0 + 5 + 5 + 22 + 4 == len(plan.unique_runs(nb)) == totals["to_compute"]


def test_quick_plan_counts_by_hand():
    """Quick: 00 30 (3 x 10 seeds); 03 24 + 12 variants (6 are Fig. 1's) + authors 4 + 6 ranges = 40;
    04 24 + 4 = 28, all in 03; 05 12 + 6 = 18; 07 30 + 20 authors + 20 residues (5 the empirical ones) = 65;
    09 80 + 18 = 98; 16 16. Distinct: 295 minus 9 (03 reads the tour's seeds 1-3) + 28 + 3 + 13 shared = 242."""
    nb = plan.notebook_runs("quick", only=["00", "03", "04", "05", "07", "09", "16"])
    rows, totals = plan.summary(nb, "/nonexistent-runs-store")
    assert {r["notebook"]: (r["runs"], r["shared"]) for r in rows} == {
        "00": (30, 0), "03": (40, 9), "04": (28, 28), "05": (18, 3), "07": (65, 13), "09": (98, 0), "16": (16, 0)}
    assert totals["runs"] == 242


def test_paper_plan_counts_of_the_thesis_studies():
    """Paper: 09 is (4 optimisers x 100 seeds + 3 horizons x 20 seeds) x 2 networks = 920; 16 is 4 x 10 x 2 = 80."""
    nb = plan.notebook_runs("paper", only=["09", "16"])
    assert {k: len(v) for k, v in nb.items()} == {"09": 920, "16": 80}


def test_list_scheduled_wall_by_hand():
    assert plan.list_scheduled_wall([5, 4, 3, 3, 3], 2) == 10.0   # 5+3 | 4+3+3 (longest first, on the first free)
    assert plan.list_scheduled_wall([3, 3, 2, 2, 2], 2) == 7.0    # 3+2+2 | 3+2
    assert plan.list_scheduled_wall([10, 1, 1], 4) == 10.0        # the longest run bounds any cluster
    assert plan.list_scheduled_wall([], 2) == 0.0


def test_strict_store_refuses_to_compute_and_names_the_run(tmp_path, monkeypatch):
    spec = ex.RunSpec("rnn", "random", 1, iterations=4)
    monkeypatch.setenv(ex.PLAN_STRICT, str(tmp_path))
    with pytest.raises(ex.StoreError, match=r"seed1\.parquet: run rnn random seed 1 \(random-it4\) is not in the plan"):
        ex.ensure_runs([spec], tmp_path, progress=False)
    assert not spec.path(tmp_path).exists()
    other = tmp_path / "other"  # another store (notebook 09's own, a test's) is not the plan's: computed as before
    other.mkdir()
    assert len(ex.ensure_runs([spec], other, progress=False)) == 4
    monkeypatch.setenv(ex.PLAN_STRICT, "1")  # not a folder: every store only reads
    with pytest.raises(ex.StoreError, match="not in the plan"):
        ex.run_grid([ex.RunSpec("rnn", "random", 2, iterations=4)], other, progress=False)
    assert len(ex.ensure_runs([spec], other, progress=False)) == 4  # a stored run is read


def test_tt_plan_lists_stored_runs_and_computes_nothing(tmp_path, capsys, monkeypatch):
    tiny = {"16": ex.grid(["rnn"], ["random"], [1, 2, 3], iterations=4)}
    monkeypatch.setattr(plan, "notebook_runs", lambda *a, **k: tiny)
    ex.run_grid(tiny["16"][:1], tmp_path, progress=False)
    before = sorted(p.name for p in tmp_path.rglob("*"))
    code = __import__("tt_workbook.cli", fromlist=["main"]).main(
        ["plan", "--profile", "quick", "--runs-dir", str(tmp_path), "--json"])
    out = json.loads(capsys.readouterr().out)
    assert code == 0 and sorted(p.name for p in tmp_path.rglob("*")) == before
    assert out["notebooks"][0] | {"cpu_s": None} == {"notebook": "16", "runs": 3, "optimizers": ["random"],
                                                     "benchmarks": ["rnn"], "stored": 1, "to_compute": 2, "shared": 0,
                                                     "cpu_s": None, "unestimated": 0}
    assert (out["totals"]["runs"], out["totals"]["stored"], out["totals"]["to_compute"]) == (3, 1, 2)
    # the two runs to compute are estimated from the stored run of the same kind (its CPU seconds)
    meta = ex.read_run(tiny["16"][0].path(tmp_path))[1]
    assert out["totals"]["cpu_s"] == pytest.approx(2 * meta["cpu_s"], abs=0.1)


@pytest.mark.parametrize("argv, message", [
    (["plan", "--profile", "slow"], "argument --profile: invalid choice: 'slow'"),
    (["plan", "--only", "zz"], "no notebook matches ['zz']"),
    (["plan", "--jobs", "0"], "--jobs"),
    (["reproduce", "--scheduler", "tcp://127.0.0.1:1"], "add --backend dask"),
])
def test_bad_options_are_one_line(capsys, argv, message):
    code, err = tt_cli(capsys, *argv)
    assert code == 2 and message in err and len(err.strip().splitlines()) == 1, err


def _reproduce_tiny(capsys, monkeypatch, runs_dir: Path, *options) -> list:
    """``tt reproduce --only 16 --runs-dir runs_dir OPTIONS`` with a tiny plan and no notebook: what the fake
    notebook runner saw of TT_PLAN_STRICT."""
    import os

    from tt_workbook.report import reproduce

    tiny = ex.grid(["rnn"], ["random", "eic-usd"], [3, 4], iterations=6)
    monkeypatch.setitem(plan.NOTEBOOK_RUNS, "16", lambda profile, smoke: tiny)
    seen = []
    monkeypatch.setattr(reproduce, "run", lambda **kw: (seen.append(os.environ.get(ex.PLAN_STRICT)), (Path("i"), []))[1])
    code, err = tt_cli(capsys, "reproduce", "--only", "16", "--runs-dir", str(runs_dir), *options)
    assert code == 0, err
    assert seen == [str(runs_dir.resolve())] and ex.PLAN_STRICT not in os.environ
    return tiny


def test_reproduce_computes_the_plan_first_in_one_pool(tmp_path, capsys, monkeypatch):
    tiny = _reproduce_tiny(capsys, monkeypatch, tmp_path / "runs", "--jobs", "1")
    assert all(ex.stored_status(s, tmp_path / "runs") == "valid" for s in tiny)


@pytest.mark.slow
def test_reproduce_on_a_dask_cluster_stores_the_same_trajectories(tmp_path, capsys, monkeypatch):
    """A LocalCluster of 2 worker processes (run_grid's, processes=True) against 1 local process, same plan."""
    pytest.importorskip("dask.distributed")
    monkeypatch.setattr("tt_workbook.runs.store.usable_cpus", lambda: 2)
    tiny = _reproduce_tiny(capsys, monkeypatch, tmp_path / "local", "--jobs", "1")
    _reproduce_tiny(capsys, monkeypatch, tmp_path / "dask", "--backend", "dask", "--jobs", "2")
    for spec in tiny:
        local, dask = (ex.read_run(spec.path(tmp_path / d))[0].drop(columns=VOLATILE) for d in ("local", "dask"))
        pd.testing.assert_frame_equal(local, dask)


@pytest.mark.slow
def test_notebook_03_reads_only_its_plan(tmp_path, capsys):
    """``tt reproduce --smoke --only 03`` into an empty store: the plan is computed, then the notebook runs with
    TT_PLAN_STRICT set, so any run it asked for outside the plan would fail it."""
    pytest.importorskip("papermill")
    runs = tmp_path / "runs"
    code, err = tt_cli(capsys, "reproduce", "--smoke", "--only", "03", "--runs-dir", str(runs), "--out",
                       str(tmp_path / "out"), "--figures", str(tmp_path / "figs"), "--jobs", "1")
    status = json.loads((tmp_path / "out" / "status.json").read_text())
    assert code == 0 and [s["ok"] for s in status] == [True], (err, status)
    specs = plan.notebook_runs("quick", smoke=True, only=["03"])["03"]
    stored = {p for p in runs.rglob("seed*.parquet")}
    assert stored == {s.path(runs) for s in specs if s.optimizer != "authors-dt" or s.path(runs).exists()}


@pytest.mark.slow
def test_a_run_missing_from_the_plan_fails_its_notebook(tmp_path, capsys, monkeypatch):
    """The same with notebook 03's plan lacking TrimTuner-DT's variants: the kernel must not compute them."""
    pytest.importorskip("papermill")
    from tt_workbook.studies.fig1_fig2 import plan as runs_plan

    monkeypatch.setitem(plan.NOTEBOOK_RUNS, "03", lambda profile, smoke: runs_plan.fig1_runs(profile, smoke))
    code, err = tt_cli(capsys, "reproduce", "--smoke", "--only", "03", "--runs-dir", str(tmp_path / "runs"), "--out",
                       str(tmp_path / "out"), "--figures", str(tmp_path / "figs"), "--jobs", "1")
    status = json.loads((tmp_path / "out" / "status.json").read_text())
    assert code == 1 and not status[0]["ok"] and "is not in the plan" in status[0]["error"], (err, status)
    assert "rnn/trimtuner-dt-it6/seed1.parquet: run rnn trimtuner-dt seed 1" in status[0]["error"]  # the first variant


def test_without_the_authors_code_its_runs_leave_the_plan_and_the_rest_is_computed(tmp_path, monkeypatch):
    """A machine without the authors' code (no ../shared, no `tt authors fetch`): the plan computes the other runs
    and says, in one line, how many of the authors' runs it left out and why; it does not stop."""
    from tt_workbook import plan as P
    from tt_workbook.runs.store import RunSpec

    empty = tmp_path / "no_code"
    empty.mkdir()
    monkeypatch.setenv("TT_AUTHORS_CODE", str(empty))  # an explicit folder without the code: refused, not searched past
    ours = RunSpec("rnn", "random", 1, iterations=4)
    theirs = RunSpec("rnn", "authors-dt", 1, iterations=5)
    said = []
    stats = P.compute({"03": [ours, theirs], "04": [theirs]}, tmp_path / "runs", n_jobs=1, progress=False,
                      say=said.append)
    assert stats["computed"] == 1
    assert ours.path(tmp_path / "runs").is_file() and not theirs.path(tmp_path / "runs").exists()
    assert len(said) == 1 and said[0].startswith("tt: plan: the 1 runs of the authors' code are left out: ")
    assert "TT_AUTHORS_CODE" in said[0]
