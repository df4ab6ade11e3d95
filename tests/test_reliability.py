"""Reliability (issue: every bad input and every OS fault ends in one clear line; results are never
double-counted or silently reused). Each case builds its own files and folders; permission errors are
simulated (the suite may run as root, which ignores file modes)."""

from __future__ import annotations

import errno
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from tt_workbook import runs as ex
from conftest import assert_one_line_error, tt_cli
from tt_workbook.cli import main
from tt_core.data.benchmarks import locate

HEADER = "lr,depth,size,accuracy,cost\n"


_tt, _one_line_error = tt_cli, assert_one_line_error  # shared with the other CLI test modules (conftest)


def _csv(tmp_path, name, text, encoding="utf-8") -> str:
    p = tmp_path / name
    p.write_bytes(text.encode(encoding) if isinstance(text, str) else text)
    return str(p)


def _trimtuner_csv(tmp_path, mutate) -> str:
    """A copy of the RNN measurements with one cell changed: ``mutate(df)``."""
    df = pd.read_csv(locate("rnn")[0], dtype=str, keep_default_na=False, encoding="utf-8-sig")
    mutate(df)
    p = tmp_path / "rnn_bad.csv"
    df.to_csv(p, index=False)
    return str(p)


# ------------------------------------------------------------------------------- 1. one line, not a traceback
def test_two_configuration_csv_with_more_tests_than_candidates(tmp_path, capsys):
    path = _csv(tmp_path, "two.csv", HEADER + "0.1,2,100,0.5,1\n0.2,2,100,0.6,1\n")
    _one_line_error(*_tt(capsys, "optimize", "--benchmark", path, "--optimizer", "eic", "--seed", "1",
                         "--iterations", "6", "--max-cost", "2"), "exceeds the 2 candidate tests")


def test_unreadable_csv(tmp_path, capsys, monkeypatch):
    path = _csv(tmp_path, "x.csv", HEADER + "0.1,2,100,0.5,1\n")

    def denied(*a, **k):
        raise PermissionError(errno.EACCES, "Permission denied", path)

    monkeypatch.setattr("tt_core.data.benchmarks.pd.read_csv", denied)
    _one_line_error(*_tt(capsys, "optimize", "--benchmark", path, "--optimizer", "random", "--seed", "1"),
                    "Permission denied", path, "permissions")


def test_read_only_runs_folder(tmp_path, capsys, monkeypatch):
    def denied(*a, dir=None, **k):
        raise PermissionError(errno.EACCES, "Permission denied", str(dir))

    monkeypatch.setattr("tt_core.data.io.tempfile.mkstemp", denied)
    _one_line_error(*_tt(capsys, "runs", "--benchmarks", "rnn", "--optimizers", "random", "--seeds", "1",
                         "--iterations", "4", "--runs-dir", str(tmp_path / "runs")), "Permission denied", "permissions")


def test_runs_dir_is_a_file(tmp_path, capsys):
    f = tmp_path / "afile"
    f.write_text("x")
    _one_line_error(*_tt(capsys, "runs", "--benchmarks", "rnn", "--optimizers", "random", "--seeds", "1",
                         "--runs-dir", str(f)), "is a file, not a folder")


def test_a_folder_where_a_result_file_belongs(tmp_path, capsys):
    spec = ex.RunSpec("rnn", "random", 1, iterations=4)
    spec.path(tmp_path).mkdir(parents=True)
    _one_line_error(*_tt(capsys, "runs", "--benchmarks", "rnn", "--optimizers", "random", "--seeds", "1",
                         "--iterations", "4", "--runs-dir", str(tmp_path)), "is a folder where the result file")


def test_unreachable_scheduler(tmp_path, capsys):
    pytest.importorskip("dask.distributed")
    _one_line_error(*_tt(capsys, "runs", "--benchmarks", "rnn", "--optimizers", "random", "--seeds", "1",
                         "--iterations", "4", "--runs-dir", str(tmp_path), "--backend", "dask",
                         "--scheduler", "tcp://127.0.0.1:1"), "cannot reach the Dask scheduler tcp://127.0.0.1:1")


def test_corrupt_parquet_in_runs_gives_one_line_in_the_report(tmp_path, capsys):
    spec = ex.RunSpec("rnn", "random", 1, iterations=4)
    spec.path(tmp_path).parent.mkdir(parents=True)
    spec.path(tmp_path).write_bytes(b"PAR1 not really")
    _one_line_error(*_tt(capsys, "runs", "--benchmarks", "rnn", "--optimizers", "random", "--seeds", "1",
                         "--iterations", "4", "--runs-dir", str(tmp_path), "--report"), "cannot be trusted (corrupt)")


# ------------------------------------------------------------------------------- 2. nothing silently accepted
@pytest.mark.parametrize("column, value, message", [
    ("n_workers", "1e19", "outside the plausible range"),
    ("batch_size", "1e308", "outside the plausible range"),
    ("training_time", "0", "must be > 0"),
    ("training_time", "1e308", "outside the plausible range"),
    ("training_time", "1e-300", "outside the plausible range"),
])
def test_implausible_trimtuner_values_name_file_line_column(tmp_path, capsys, column, value, message):
    def mutate(df):
        df.loc[3, column] = value

    path = _trimtuner_csv(tmp_path, mutate)
    _one_line_error(*_tt(capsys, "feasibility", "--benchmark", path), f"line 5, column {column!r}", message)


@pytest.mark.parametrize("row, column, message", [
    ("0.1,2,100,0.5,0", "cost", "must be > 0"),
    ("0.1,2,100,0.5,-1", "cost", "must be > 0"),
    ("0.1,2,100,0.5,1e308", "cost", "outside the plausible range"),
])
def test_generic_costs_are_checked_at_load(tmp_path, capsys, row, column, message):
    path = _csv(tmp_path, "g.csv", HEADER + "0.2,2,100,0.6,1\n" + row + "\n")
    _one_line_error(*_tt(capsys, "optimize", "--benchmark", path, "--optimizer", "random", "--seed", "1"),
                    f"line 3, column {column!r}", message)


def test_generic_zero_time_is_checked_at_load(tmp_path, capsys):
    path = _csv(tmp_path, "t.csv", "lr,size,accuracy,time\n0.1,100,0.5,1\n0.2,100,0.5,0\n")
    _one_line_error(*_tt(capsys, "optimize", "--benchmark", path, "--optimizer", "random", "--seed", "1"),
                    "line 3, column 'time'", "must be > 0")


# ------------------------------------------------------------------------------- 3. messages that point right
def test_unclosed_quote_names_its_line(tmp_path, capsys):
    path = _csv(tmp_path, "q.csv", HEADER + "0.1,2,100,0.5,1\n0.2,\"3,100,0.6,1\n0.3,4,100,0.7,1\n")
    _one_line_error(*_tt(capsys, "optimize", "--benchmark", path, "--optimizer", "random", "--seed", "1"),
                    "line 3", "quoted field is never closed")


def test_latin1_file_names_line_and_column(tmp_path, capsys):
    path = _csv(tmp_path, "l.csv", "lr,kind,size,accuracy,cost\n0.1,a,100,0.5,1\n0.2,caf\u00e9,100,0.6,1\n", "latin-1")
    _one_line_error(*_tt(capsys, "optimize", "--benchmark", path, "--optimizer", "random", "--seed", "1"),
                    "line 3, column 8", "not UTF-8")


@pytest.mark.parametrize("sep, word", [(";", "semicolons"), ("\t", "tabs")])
def test_other_delimiters_are_named(tmp_path, capsys, sep, word):
    path = _csv(tmp_path, "d.csv", HEADER.replace(",", sep) + "0.1,2,100,0.5,1\n".replace(",", sep))
    _one_line_error(*_tt(capsys, "optimize", "--benchmark", path, "--optimizer", "random", "--seed", "1"),
                    f"separated by {word}", "comma-separated")


def test_a_row_with_an_extra_field(tmp_path, capsys):
    path = _csv(tmp_path, "e.csv", HEADER + "0.1,2,100,0.5,1\n0.2,2,100,0.6,1,9\n")
    _one_line_error(*_tt(capsys, "optimize", "--benchmark", path, "--optimizer", "random", "--seed", "1"),
                    "line 3: 6 fields where the header has 5")


def test_negative_seed_names_the_option(capsys):
    with pytest.raises(SystemExit) as info:
        main(["optimize", "--benchmark", "rnn", "--optimizer", "random", "--seed", "-1"])
    assert info.value.code == 2 and "--seed must be a whole number >= 0" in capsys.readouterr().err


# ------------------------------------------------------------------------------- 4. no silent fallback
def test_missing_tt_data_dir_is_said_and_listed(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("TT_DATA_DIR", str(tmp_path / "nowhere"))
    assert main(["data", "list"]) == 0
    out = capsys.readouterr()
    assert "TT_DATA_DIR=" in out.err and "does not exist" in out.err
    assert "Note: TT_DATA_DIR=" in out.out


def test_data_differing_from_the_registry_warns(tmp_path, capsys, monkeypatch):
    d = tmp_path / "data"
    d.mkdir()
    text = Path(locate("rnn")[0]).read_text(encoding="utf-8-sig")
    (d / "rnn.csv").write_text(text.replace("14-06-2019 15:19", "14-06-2019 15:18", 1), encoding="utf-8")
    monkeypatch.setenv("TT_DATA_DIR", str(d))
    assert main(["feasibility", "--benchmark", "rnn", "--json"]) == 0
    err = capsys.readouterr().err
    assert "differs from the published rnn data" in err and "TT_DATA_DIR" in err


def test_options_a_method_ignores_are_refused(capsys):
    _one_line_error(*_tt(capsys, "optimize", "--benchmark", "rnn", "--optimizer", "random", "--seed", "1",
                         "--filter", "cea"), "'random' has no candidate filter")
    with pytest.raises(SystemExit) as info:
        main(["bench", "recommend", "--repeats", "0"])
    assert info.value.code == 2 and "--repeats must be a whole number >= 1" in capsys.readouterr().err


# ------------------------------------------------------------------------------- 5. run store trust
def _decisions(path) -> pd.DataFrame:
    traj, _ = ex.read_run(path)
    return traj[["iteration", "config_id", "size", "accuracy", "cost", "cumulative_cost", "incumbent",
                 "incumbent_accuracy"]]


def test_corrupt_result_is_set_aside_and_recomputed(tmp_path):
    spec = ex.RunSpec("rnn", "trimtuner-dt", 1, iterations=6)
    reference = _decisions(ex.run_one(spec, tmp_path / "ref"))
    path = spec.path(tmp_path / "runs")
    path.parent.mkdir(parents=True)
    path.write_bytes(b"not a parquet file")
    with pytest.warns(UserWarning, match="not a readable run file"):
        ex.run_grid([spec], tmp_path / "runs", progress=False)
    pd.testing.assert_frame_equal(_decisions(path), reference)
    assert (path.parent / (path.name + ".corrupt")).read_bytes() == b"not a parquet file"


def test_a_result_copied_to_another_seed_is_not_counted_as_that_seed(tmp_path):
    s1, s3 = ex.RunSpec("rnn", "random", 1, iterations=5), ex.RunSpec("rnn", "random", 3, iterations=5)
    ex.run_grid([s1], tmp_path, progress=False)
    shutil.copy(s1.path(tmp_path), s3.path(tmp_path))
    assert ex.stored_status(s3, tmp_path) == "mismatch"
    with pytest.raises(ValueError, match="cannot be trusted"):
        ex.load_runs([s1, s3], tmp_path)
    with pytest.warns(UserWarning, match="holds another run"):
        ex.run_grid([s1, s3], tmp_path, progress=False)
    traj, meta = ex.read_run(s3.path(tmp_path))
    assert meta["spec"]["seed"] == 3 and (traj["seed"] == 3).all()
    expected = _decisions(ex.run_one(s3, tmp_path / "fresh"))
    pd.testing.assert_frame_equal(_decisions(s3.path(tmp_path)), expected)


def test_runs_of_other_code_are_reused_and_of_another_results_version_recomputed(tmp_path, monkeypatch):
    """The code hash is only recorded: a run of the same results version is reused silently, even if other
    code made it; a run of another results version is set aside as ``.outdated`` and recomputed, never reused
    (its numbers come from other numerics), and ``load_runs`` refuses it until then."""
    import warnings

    import tt_core

    spec = ex.RunSpec("rnn", "random", 1, iterations=4)
    ex.run_grid([spec], tmp_path, progress=False)
    path = spec.path(tmp_path)
    stamp = path.stat().st_mtime_ns
    assert ex.read_run(path)[1]["results_version"] == tt_core.RESULTS_VERSION
    monkeypatch.setattr("tt_workbook.runs.store.code_hash", lambda: "other-code")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ex.run_grid([spec], tmp_path, progress=False)
    assert path.stat().st_mtime_ns == stamp  # reused as it is, no warning
    monkeypatch.setattr(tt_core, "RESULTS_VERSION", tt_core.RESULTS_VERSION + 1)
    assert ex.stored_status(spec, tmp_path) == "outdated"
    with pytest.raises(ex.StoreError, match="outdated"):
        ex.load_runs([spec], tmp_path)
    with pytest.warns(UserWarning, match=f"made by results version {tt_core.RESULTS_VERSION - 1}"):
        ex.run_grid([spec], tmp_path, progress=False)
    assert ex.read_run(path)[1]["results_version"] == tt_core.RESULTS_VERSION
    assert path.with_name(path.name + ".outdated").is_file()


def test_leftover_temporary_files_are_cleaned(tmp_path):
    spec = ex.RunSpec("rnn", "random", 1, iterations=4)
    folder = spec.path(tmp_path).parent
    folder.mkdir(parents=True)
    leftovers = [folder / ".seed1.abc123.parquet", folder / ".seed1.checkpoint.xyz.npz"]
    for f in leftovers:
        f.write_bytes(b"partial")
    ex.run_grid([spec], tmp_path, progress=False)
    assert not any(f.exists() for f in leftovers) and spec.path(tmp_path).is_file()


GRID = ["--benchmarks", "rnn", "--optimizers", "trimtuner-dt", "eic", "random", "--seeds", "1", "2",
        "--iterations", "8"]


def _tt_proc(*argv, **kw):
    return subprocess.Popen([sys.executable, "-m", "tt_workbook.cli", *argv], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, **kw)


@pytest.mark.slow
def test_two_grids_on_one_folder_compute_each_run_once(tmp_path):
    a = _tt_proc("runs", *GRID, "--runs-dir", str(tmp_path))
    b = _tt_proc("runs", *GRID, "--runs-dir", str(tmp_path))
    outs = [p.communicate(timeout=600) for p in (a, b)]
    assert a.returncode == 0 and b.returncode == 0, outs
    import re

    computed = [int(re.search(r"(\d+) computed now", o).group(1)) for o, _ in outs]
    assert sum(computed) == 6, outs  # 3 optimisers x 2 seeds, each computed exactly once
    assert len(list(tmp_path.glob("rnn/*/seed*.parquet"))) == 6


# ------------------------------------------------------------------------------- 7. permissions
@pytest.mark.parametrize("mask, mode", [(0o022, 0o644), (0o077, 0o600), (0o002, 0o664)])
def test_results_honour_the_umask(tmp_path, mask, mode):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from tt_core.data.io import save_figure, write_csv

    old = os.umask(mask)
    try:
        spec = ex.RunSpec("rnn", "random", 1, iterations=4)
        ex.run_grid([spec], tmp_path / str(mask), progress=False)
        csv = write_csv(pd.DataFrame({"a": [1]}), tmp_path / f"t{mask}.csv")
        fig = plt.figure()
        png = save_figure(fig, tmp_path / f"f{mask}.png")
        plt.close(fig)
    finally:
        os.umask(old)
    for f in (spec.path(tmp_path / str(mask)), csv, png):
        assert f.stat().st_mode & 0o777 == mode, f


# ------------------------------------------------------------------------------- 8. checkpoints
def _wait_for(predicate, timeout=120.0):
    t0 = time.time()
    while time.time() - t0 < timeout:
        if predicate():
            return True
        time.sleep(0.05)
    return False


@pytest.mark.slow
def test_a_killed_run_resumes_mid_run_with_the_identical_trajectory(tmp_path):
    from tt_workbook.runs import checkpoint

    spec = ex.RunSpec("rnn", "trimtuner-dt", 2, iterations=16)
    reference = _decisions(ex.run_one(spec, tmp_path / "ref"))
    runs = tmp_path / "runs"
    ckpt = ex.checkpoint_path(spec, runs)

    def rows_in_checkpoint():
        try:
            _, text, _ = checkpoint.read(ckpt)  # the replay's rows are the first field list named "rows"
            return text.count('"iteration"')
        except Exception:
            return 0

    # the child checkpoints after every test and pauses 0.5 s after each checkpoint, so that a checkpoint
    # with 8 or more tests is on disk for seconds however fast the machine (the store's own throttle,
    # once a second, could let a fast run finish before one with 8 tests appears)
    code = ("import time; from tt_workbook import runs as ex; from tt_workbook.runs import store as S; "
            "S.CHECKPOINT_INTERVAL_S = 0.0; S.CHECKPOINT_COST_RATIO = 0.0; save = S._save_checkpoint; "
            "S._save_checkpoint = lambda *a: (save(*a), time.sleep(0.5)); "
            f"ex.run_one(ex.RunSpec('rnn', 'trimtuner-dt', 2, iterations=16), {str(runs)!r})")
    proc = subprocess.Popen([sys.executable, "-c", code])
    try:
        assert _wait_for(lambda: rows_in_checkpoint() >= 8), "no checkpoint written"
    finally:
        proc.kill()
        proc.wait()
    assert not spec.path(runs).exists()
    done_before = rows_in_checkpoint()
    assert 8 <= done_before < 16
    path = ex.run_one(spec, runs)
    traj, meta = ex.read_run(path)
    assert meta["resumed"] and not ckpt.exists()
    pd.testing.assert_frame_equal(_decisions(path), reference)


# ------------------------------------------------------------------------------- 6 + fault injection
@pytest.mark.slow
def test_killing_a_grid_at_random_points_then_resuming_matches_an_uninterrupted_grid(tmp_path):
    """Kill `tt runs --jobs 2` (the process group, or the parent only) at random times, rerun, compare."""
    argv = ["runs", "--benchmarks", "rnn", "--optimizers", "trimtuner-dt", "eic", "random", "--seeds", "1", "2",
            "--iterations", "10", "--jobs", "2"]
    ref = tmp_path / "ref"
    assert main([*argv, "--runs-dir", str(ref)]) == 0
    runs = tmp_path / "runs"
    rng = np.random.default_rng(7)
    for k, how in enumerate(["group", "parent", "group", "parent", "term"]):
        proc = _tt_proc(*argv, "--runs-dir", str(runs), start_new_session=True)
        time.sleep(float(rng.uniform(1.5, 5.0)))
        if how == "group":
            os.killpg(proc.pid, signal.SIGKILL)
        elif how == "parent":
            proc.kill()
        else:
            proc.send_signal(signal.SIGTERM)
        try:
            proc.communicate(timeout=120)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            raise AssertionError(f"round {k} ({how}): the command's processes kept running 120 s after the kill")
        if how != "group":  # the workers stop with their parent (at their next test at the latest)
            assert _wait_for(lambda: _children_gone(proc.pid), timeout=60), f"workers outlived their parent ({how})"
        try:
            os.killpg(proc.pid, signal.SIGKILL)  # leave nothing behind for the next round
        except ProcessLookupError:
            pass
    assert main([*argv, "--runs-dir", str(runs)]) == 0
    specs = [s for o in ("trimtuner-dt", "eic", "random") for s in ex.grid(["rnn"], [o], [1, 2], iterations=10)]
    for s in specs:
        pd.testing.assert_frame_equal(_decisions(s.path(runs)), _decisions(s.path(ref)))
    assert not list(runs.rglob("*.checkpoint.npz")) and not list(runs.rglob(".seed*"))


def _children_gone(pgid: int) -> bool:
    """No process of the killed command's session runs tt_core any more."""
    out = subprocess.run(["ps", "-eo", "pid,sid,args"], capture_output=True, text=True).stdout
    for line in out.splitlines()[1:]:
        parts = line.split(None, 2)
        if len(parts) == 3 and parts[1] == str(pgid) and "python" in parts[2]:
            return False
    return True
