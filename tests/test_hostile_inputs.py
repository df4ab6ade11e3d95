"""Hostile and careless inputs (the sweep of a fresh clone): each case ends in one line ``tt: error: ...``
naming the problem and the fix with exit code 2, or behaves correctly. Sections follow the sweep:
--jobs, tracebacks, silently accepted input, silently ignored options, misleading messages, smaller ones."""

from __future__ import annotations

import errno
import json
import os
import subprocess
import sys
import warnings

import pandas as pd
import pytest

from tt_workbook import runs as ex
from conftest import assert_one_line_error, tt_cli
from tt_workbook.cli import main
from tt_core.data.benchmarks import load_benchmark, locate

HEADER = "lr,depth,size,accuracy,cost\n"
RUN1 = ["--optimizers", "random", "--seeds", "1", "--iterations", "4"]


_tt, _one_line_error = tt_cli, assert_one_line_error  # shared with the other CLI test modules (conftest)


def _csv(tmp_path, name, text) -> str:
    p = tmp_path / name
    p.write_bytes(text.encode("utf-8") if isinstance(text, str) else text)
    return str(p)


def _trimtuner_csv(tmp_path, mutate, name="rnn_bad.csv") -> str:
    """A copy of the RNN measurements changed by ``mutate(df)`` (returns the frame to write)."""
    df = pd.read_csv(locate("rnn")[0], dtype=str, keep_default_na=False, encoding="utf-8-sig")
    p = tmp_path / name
    mutate(df).to_csv(p, index=False)
    return str(p)


@pytest.fixture
def two_cpus(monkeypatch):
    """The bounds of --jobs on a machine with 2 usable CPUs, whatever runs the tests."""
    monkeypatch.setattr("tt_workbook.runs.store.usable_cpus", lambda: 2)


# ------------------------------------------------------------------------------- 3. --jobs
@pytest.mark.parametrize("jobs, workers", [(1, 1), (2, 2), (-1, 2), (-2, 1), (-3, 1), (-100, 1)])
def test_jobs_resolve_as_joblib_defines_them(two_cpus, jobs, workers):
    # joblib: n_jobs < 0 means max(cpus + 1 + n_jobs, 1); 2 CPUs: -1 -> 2, -2 -> 1, below -> 1
    assert ex.usable_jobs(jobs) == workers


@pytest.mark.parametrize("jobs, message", [
    ("1000", "--jobs 1000 > 2 CPUs; use <= 2"),
    ("3", "--jobs 3 > 2 CPUs; use <= 2"),
    ("0", "--jobs 0 means no worker; use 1 to 2"),
])
def test_jobs_beyond_the_cpus_are_refused_before_anything_runs(tmp_path, capsys, two_cpus, jobs, message):
    _one_line_error(*_tt(capsys, "runs", "--benchmarks", "rnn", *RUN1, "--runs-dir", str(tmp_path), "--jobs", jobs),
                    message)
    assert not any(tmp_path.iterdir())  # no folder, no lock, no worker


def test_jobs_are_not_bounded_by_local_cpus_for_a_running_dask_cluster(tmp_path, capsys, two_cpus):
    pytest.importorskip("dask.distributed")
    _one_line_error(*_tt(capsys, "runs", "--benchmarks", "rnn", *RUN1, "--runs-dir", str(tmp_path), "--jobs", "1000",
                         "--backend", "dask", "--scheduler", "tcp://127.0.0.1:1"),
                    "cannot reach the Dask scheduler tcp://127.0.0.1:1")  # the cluster's own workers, not --jobs


def test_jobs_that_joblib_maps_to_one_worker_compute_in_the_grid_process(tmp_path, capsys, two_cpus):
    # --jobs -2 on 2 CPUs is one worker: it used to exit 70 with no message and nothing computed
    code = main(["runs", "--benchmarks", "rnn", "--optimizers", "random", "--seeds", "1", "2", "--iterations", "4",
                 "--runs-dir", str(tmp_path), "--jobs", "-2"])
    out = capsys.readouterr().out
    assert code == 0 and "2 computed now, 0 reused" in out
    assert all(s.path(tmp_path).is_file() for s in ex.grid(["rnn"], ["random"], [1, 2], iterations=4))


def test_a_library_grid_asking_more_workers_than_cpus_is_bounded_and_says_so(tmp_path, two_cpus):
    spec = ex.RunSpec("rnn", "random", 1, iterations=4)
    stats: dict = {}
    with pytest.warns(UserWarning, match=r"n_jobs=4 > 2 CPUs: using 2 workers"):
        ex.run_grid([spec], tmp_path, n_jobs=4, progress=False, stats=stats)
    assert stats["computed"] == 1 and spec.path(tmp_path).is_file()


def test_the_parent_watchdog_never_stops_the_grid_process():
    ex.store._watch_parent(os.getpid())  # joblib runs the initializer in the parent when it maps to one worker
    assert ex.store._WATCHDOG is None  # reached: the process is alive and no watchdog thread watches itself


def test_spot_curves_jobs_are_bounded(capsys, two_cpus):
    _one_line_error(*_tt(capsys, "spot", "curves", "--jobs", "99"), "--jobs 99 > 2 CPUs; use <= 2")


# ------------------------------------------------------------------------------- 4. no traceback
def test_min_accuracy_alone_is_refused_before_the_run(capsys):
    _one_line_error(*_tt(capsys, "optimize", "--benchmark", "rnn", "--optimizer", "random", "--seed", "1",
                         "--iterations", "4", "--min-accuracy", "0.5"), "--min-accuracy", "--max-cost", "--max-time")


def test_min_accuracy_with_a_cost_limit_still_runs(capsys):
    assert main(["optimize", "--benchmark", "rnn", "--optimizer", "random", "--seed", "1", "--iterations", "4",
                 "--min-accuracy", "0.5", "--max-cost", "0.02", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert len(rows) == 4 and all(r["accuracy_c"] is not None for r in rows)


def test_a_field_longer_than_the_csv_limit_names_its_line(tmp_path, capsys):
    path = _csv(tmp_path, "big.csv", HEADER + "0.1,2,100,0.5,1\n0.2,\"" + "x" * 140_000 + "\",100,0.6,1\n")
    _one_line_error(*_tt(capsys, "feasibility", "--benchmark", path, "--max-cost", "5"), f"{path}, line 3",
                    "field larger than field limit")


def test_grep_that_is_no_regular_expression(capsys):
    _one_line_error(*_tt(capsys, "summary", "--grep", "["), "--grep '[' is not a regular expression",
                    "unterminated character set", "escape")


# ------------------------------------------------------------------------------- 5. nothing silently accepted
def test_a_cost_limit_on_a_file_without_costs(tmp_path, capsys):
    path = _csv(tmp_path, "t.csv", "lr,size,accuracy,time\n0.1,100,0.5,1\n0.2,100,0.6,2\n0.1,50,0.4,0.5\n0.2,50,0.5,1\n")
    _one_line_error(*_tt(capsys, "optimize", "--benchmark", path, "--optimizer", "random", "--seed", "1",
                         "--iterations", "2", "--max-cost", "2"), "--max-cost 2", "has no cost column", "--max-time")


def test_a_time_limit_on_a_file_without_costs_is_scored(tmp_path, capsys):
    path = _csv(tmp_path, "t.csv", "lr,size,accuracy,time\n0.1,100,0.5,1\n0.2,100,0.6,2\n0.1,50,0.4,0.5\n0.2,50,0.5,1\n")
    assert main(["optimize", "--benchmark", path, "--optimizer", "random", "--seed", "1", "--iterations", "2",
                 "--max-time", "1.5", "--json"]) == 0
    last = json.loads(capsys.readouterr().out)[-1]
    # both full-size configurations tested; the only one within 1.5 s is lr 0.1 at 0.5 accuracy
    assert last["incumbent_accuracy"] == 0.5 and last["accuracy_c"] == 0.5


def test_a_repeated_header_name(tmp_path, capsys):
    path = _csv(tmp_path, "dup.csv", "vm,vm,size,accuracy,cost\na,1,100,0.5,1\nb,2,100,0.6,1\n")
    _one_line_error(*_tt(capsys, "feasibility", "--benchmark", path, "--max-cost", "5"),
                    f"{path}, line 1: column 'vm' appears 2 times in the header (columns [1, 2])")


def test_two_time_columns(tmp_path, capsys):
    path = _csv(tmp_path, "tt.csv", "lr,size,accuracy,cost,time,training_time\n0.1,100,0.5,1,1,5\n0.2,100,0.6,1,2,6\n")
    _one_line_error(*_tt(capsys, "feasibility", "--benchmark", path, "--max-cost", "5"),
                    f"{path}, line 1: both 'time' and 'training_time'")


@pytest.mark.parametrize("curve, bad", [("0.1 5 0.3", "5"), ("0.1 0.2 77", "77"), ("-0.1 0.2", "-0.1")])
def test_learning_curve_values_outside_0_1(tmp_path, capsys, curve, bad):
    def mutate(df):
        df.loc[2, "intermediate_acc_values"] = curve
        return df

    path = _trimtuner_csv(tmp_path, mutate)
    _one_line_error(*_tt(capsys, "feasibility", "--benchmark", path),
                    f"{path}, line 4, column 'intermediate_acc_values': value {bad} must lie in [0, 1]")


def test_a_trimtuner_file_without_its_full_size(tmp_path, capsys):
    path = _trimtuner_csv(tmp_path, lambda df: df[df["training_set_size"].str.strip() != "60000"])
    _one_line_error(*_tt(capsys, "feasibility", "--benchmark", path, "--max-cost", "1"),
                    "column 'training_set_size': the largest size is 30000, not the full training set", "60000")


def test_a_byte_order_mark_left_in_the_header(tmp_path, capsys):
    # one BOM is the encoding's (removed), a second one pandas removes too; a third would stay in 'lr'
    path = _csv(tmp_path, "bom.csv", "\ufeff\ufeff\ufeff" + HEADER + "0.1,2,100,0.5,1\n0.2,2,100,0.6,1\n")
    _one_line_error(*_tt(capsys, "feasibility", "--benchmark", path, "--max-cost", "5"),
                    f"{path}, line 1: a second byte-order mark")
    two = _csv(tmp_path, "bom2.csv", "\ufeff\ufeff" + HEADER + "0.1,2,100,0.5,1\n0.2,2,100,0.6,1\n")
    assert load_benchmark(two).config_columns == ("lr", "depth")


# ------------------------------------------------------------------------------- 6. no option silently ignored
def test_study_without_profile(tmp_path, capsys):
    _one_line_error(*_tt(capsys, "runs", "--benchmarks", "rnn", *RUN1, "--runs-dir", str(tmp_path),
                         "--study", "fabulinus"), "--study fabulinus", "add --profile")


def test_scheduler_without_the_dask_backend(tmp_path, capsys):
    _one_line_error(*_tt(capsys, "runs", "--benchmarks", "rnn", *RUN1, "--runs-dir", str(tmp_path),
                         "--scheduler", "tcp://127.0.0.1:1"), "--scheduler tcp://127.0.0.1:1", "--backend dask")


def test_min_accuracy_with_the_trimtuner_variant(capsys):
    _one_line_error(*_tt(capsys, "feasibility", "--benchmark", "rnn", "--variant", "trimtuner", "--min-accuracy",
                         "0.5"), "--min-accuracy 0.5 applies to --variant thesis only")


def test_thesis_variant_keeps_its_default_accuracy(capsys):
    assert main(["feasibility", "--benchmark", "rnn", "--variant", "thesis", "--json"]) == 0
    default = json.loads(capsys.readouterr().out)
    assert main(["feasibility", "--benchmark", "rnn", "--variant", "thesis", "--min-accuracy", "0.85", "--json"]) == 0
    assert default == json.loads(capsys.readouterr().out)


@pytest.mark.parametrize("flag, values", [("--seeds", ["1", "1"]), ("--optimizers", ["random", "random"]),
                                          ("--benchmarks", ["rnn", "rnn"])])
def test_a_run_given_twice_is_refused(tmp_path, capsys, flag, values):
    argv = {"--benchmarks": ["rnn"], "--optimizers": ["random"], "--seeds": ["1"]}
    argv[flag] = values
    _one_line_error(*_tt(capsys, "runs", *[x for k, v in argv.items() for x in (k, *v)], "--iterations", "4",
                         "--runs-dir", str(tmp_path)), f"{flag} {' '.join(values)}: {values[0]} is given 2 times")
    assert not any(tmp_path.iterdir())


# ------------------------------------------------------------------------------- 7. messages that point right
def test_a_reserved_column_name(tmp_path, capsys):
    path = _csv(tmp_path, "s.csv", "s,size,accuracy,cost\n1,100,0.5,1\n2,100,0.6,1\n")
    _one_line_error(*_tt(capsys, "feasibility", "--benchmark", path, "--max-cost", "5"),
                    f"{path}, line 1: column name(s) ['s'] are reserved", "rename")


def test_a_generic_file_with_an_acc_column(tmp_path, capsys):
    path = _csv(tmp_path, "acc.csv", "lr,size,acc,cost\n1,100,0.5,1\n2,100,0.6,1\n")
    _one_line_error(*_tt(capsys, "feasibility", "--benchmark", path, "--max-cost", "5"),
                    "missing column(s) ['accuracy']", "rename 'acc' to 'accuracy'")


def test_a_horizon_beyond_any_feasible_lookahead(capsys):
    _one_line_error(*_tt(capsys, "optimize", "--benchmark", "rnn", "--optimizer", "nephele", "--seed", "1",
                         "--horizon", "1000"), "--horizon must be at most 4, got '1000'")


@pytest.mark.parametrize("option, value, message", [
    ("--model-mb", "-5", "--model-mb must be a number >= 0"),
    ("--model-mb", "1e300", "--model-mb must lie in [0, 1e+06] MB"),
    ("--reference-hours", "1e300", "--reference-hours must lie in"),
    ("--reference-hours", "1e-300", "--reference-hours must lie in"),
    ("--parallel-fraction", "1.5", "--parallel-fraction is a fraction in (0, 1]"),
])
def test_spot_options_are_named(capsys, option, value, message):
    _one_line_error(*_tt(capsys, "spot", "simulate", "--workload", "cnn/t2.small-x8", option, value), message)


def test_out_errors_name_the_file_asked_for(tmp_path, capsys):
    folder = tmp_path / "out.csv"
    folder.mkdir()
    code, err = _tt(capsys, "bench", "recommend", "--out", str(folder), "--settings", "random", "--n-obs", "10",
                    "--repeats", "1", "--seeds", "1")
    _one_line_error(code, err, f"--out {folder} is a folder: give the path of a file")  # before measuring (issue 34)
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".out.")]  # no temporary file left or named


def test_summary_of_a_missing_figures_folder(tmp_path, capsys):
    _one_line_error(*_tt(capsys, "summary", "--figures", str(tmp_path / "nowhere")),
                    f"--figures {tmp_path / 'nowhere'} does not exist")


def test_a_market_shorter_than_the_fit_names_the_options(capsys):
    _one_line_error(*_tt(capsys, "spot", "simulate", "--workload", "cnn/t2.small-x8", "--market-days", "0.01"),
                    "fit_days=9 (--fit-days) leaves no time", "--market-days")


def test_bench_n_obs_names_the_option(capsys):
    _one_line_error(*_tt(capsys, "bench", "recommend", "--n-obs", "0"), "--n-obs must be a whole number >= 1")


def test_a_folder_and_a_fifo_are_not_called_missing(tmp_path, capsys):
    _one_line_error(*_tt(capsys, "feasibility", "--benchmark", str(tmp_path)), "is a folder, not a CSV file")
    fifo = tmp_path / "pipe.csv"
    os.mkfifo(fifo)
    _one_line_error(*_tt(capsys, "feasibility", "--benchmark", str(fifo)), "is not a regular file (a FIFO")


def test_spot_files_that_are_folders_or_fifos_are_not_called_missing(tmp_path, capsys):
    fifo = tmp_path / "jobs.csv"
    os.mkfifo(fifo)
    _one_line_error(*_tt(capsys, "spot", "simulate", "--workload", str(fifo)),
                    f"job set file '{fifo}' is not a regular file (a FIFO")
    _one_line_error(*_tt(capsys, "spot", "simulate", "--workload", str(tmp_path)),
                    f"job set file '{tmp_path}' is a folder, not a file")
    _one_line_error(*_tt(capsys, "spot", "simulate", "--workload", "cnn/t2.small-x8", "--prices", str(tmp_path)),
                    f"price trace '{tmp_path}' is a folder, not a file")


def test_empty_names_are_not_the_working_directory(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    _one_line_error(*_tt(capsys, "optimize", "--benchmark", "", "--optimizer", "random", "--seed", "1"),
                    "the benchmark name is empty")
    _one_line_error(*_tt(capsys, "runs", "--benchmarks", "rnn", *RUN1, "--runs-dir", ""), "--runs-dir is empty")
    assert list(tmp_path.iterdir()) == []


# ------------------------------------------------------------------------------- 8. smaller
def test_an_interrupted_optimize_does_not_promise_stored_runs(capsys, monkeypatch):
    def interrupted(*a, **k):
        raise KeyboardInterrupt

    monkeypatch.setattr("tt_core.replay.driver.run_optimization", interrupted)
    code, err = _tt(capsys, "optimize", "--benchmark", "rnn", "--optimizer", "random", "--seed", "1")
    assert code == 130 and err.strip() == "tt: interrupted"


def test_an_interrupted_grid_says_how_to_resume(tmp_path, capsys, monkeypatch):
    def interrupted(*a, **k):
        raise KeyboardInterrupt

    monkeypatch.setattr("tt_workbook.runs.run_grid", interrupted)
    code, err = _tt(capsys, "runs", "--benchmarks", "rnn", *RUN1, "--runs-dir", str(tmp_path))
    assert code == 130 and "run the same command again to resume" in err


def test_a_benchmark_named_dotdot_creates_nothing_above_the_runs_folder(tmp_path, capsys):
    runs = tmp_path / "runs"
    _one_line_error(*_tt(capsys, "runs", "--benchmarks", "..", *RUN1, "--runs-dir", str(runs)),
                    "'..' is a folder, not a CSV file")
    assert list(tmp_path.iterdir()) == []


def test_a_grid_checks_every_setting_before_the_first_run(tmp_path, capsys):
    # random would run first; nephele's initial budget exceeds its budget (thesis Alg. 2 needs B_init < B)
    _one_line_error(*_tt(capsys, "runs", "--benchmarks", "rnn", "--optimizers", "random", "nephele", "--seeds", "1",
                         "--iterations", "4", "--initial-budget", "50", "--budget", "1", "--runs-dir", str(tmp_path)),
                    "rnn/nephele-initial_budget50.0-B1-it4", "must be smaller than budget")
    assert not list(tmp_path.rglob("*.parquet"))


def test_a_lock_held_by_a_live_process_names_it_and_times_out(tmp_path, capsys):
    spec = ex.RunSpec("rnn", "random", 1, iterations=4)
    lock = str(spec.path(tmp_path)) + ".lock"
    spec.path(tmp_path).parent.mkdir(parents=True)
    holder = subprocess.Popen([sys.executable, "-c", "import sys, time; from filelock import FileLock; "
                               f"held = FileLock({lock!r}); held.acquire(); print('held', flush=True); time.sleep(120)"],
                              stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "held"
        code, err = _tt(capsys, "runs", "--benchmarks", "rnn", *RUN1, "--runs-dir", str(tmp_path),
                        "--lock-timeout", "1")
    finally:
        holder.kill()
        holder.wait()
    _one_line_error(code, err, f"{lock}: still held by process {holder.pid}", "after 1 s")
    if os.path.exists("/proc/locks"):
        assert f"tt: warning: {spec.path(tmp_path)} is being computed by process {holder.pid}" in err
    assert main(["runs", "--benchmarks", "rnn", *RUN1, "--runs-dir", str(tmp_path), "--lock-timeout", "5"]) == 0
    assert "1 computed now" in capsys.readouterr().out  # the holder is gone: the run is computed


def test_a_full_disk_names_the_result_file(tmp_path, capsys, monkeypatch):
    def full(*a, **k):
        raise OSError(errno.ENOSPC, "Error writing bytes to file. Detail: [errno 28] No space left on device")

    monkeypatch.setattr("pyarrow.parquet.write_table", full)
    spec = ex.RunSpec("rnn", "random", 1, iterations=4)
    _one_line_error(*_tt(capsys, "runs", "--benchmarks", "rnn", *RUN1, "--runs-dir", str(tmp_path)),
                    f"No space left on device: {spec.path(tmp_path)} (the disk is full")


def test_a_large_csv_is_announced_with_its_size(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr("tt_core.data.benchmarks.LARGE_CSV_MB", 0.000_01)
    path = _csv(tmp_path, "g.csv", HEADER + "0.1,2,100,0.5,1\n0.2,2,100,0.6,1\n")
    assert main(["feasibility", "--benchmark", path, "--max-cost", "5"]) == 0
    assert f"tt: warning: {path}: reading a 0 MB CSV" in capsys.readouterr().err


# ------------------------------------------------------------------------------- 2. names are not paths
def test_a_bare_benchmark_name_never_means_a_file_in_the_working_directory(tmp_path, monkeypatch, capsys):
    fake = _trimtuner_csv(tmp_path, lambda df: df.assign(acc="0.5"), name="rnn")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr("tt_core.data.benchmarks._CWD_WARNED", set())  # warned once per process
    with pytest.warns(UserWarning, match=r"the file rnn in the working directory is not used \(give \./rnn"):
        registered = load_benchmark("rnn")
    assert registered.source == str(locate("rnn")[0]) and registered.table["accuracy"].nunique() > 1
    local = load_benchmark("./rnn")
    assert local.source == "rnn" and os.path.samefile(local.source, fake) and (local.table["accuracy"] == 0.5).all()
    (tmp_path / "cnn").mkdir()  # a folder named like a benchmark (e.g. inside runs/) is no file: no warning
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert load_benchmark("cnn").source == str(locate("cnn")[0])


def test_the_horizon_bound_is_the_optimisers_own_and_holds_from_python_too():
    from tt_workbook import cli
    from tt_core.replay.driver import run_optimization
    from tt_core.optimizers.budgeted import MAX_HORIZON

    assert cli.optimize.MAX_HORIZON == MAX_HORIZON == 4
    with pytest.raises(ValueError, match="horizon must be an int from 0 .* to 4, got 1000"):
        run_optimization("rnn", "nephele", seed=1, iterations=None, horizon=1000)


def test_run_grid_checks_every_setting_before_the_first_run(tmp_path):
    from tt_workbook import runs as ex

    good = ex.RunSpec("rnn", "random", 1, iterations=4)
    bad = ex.RunSpec("rnn", "nephele", 1, iterations=None, options=(("horizon", 99),))
    with pytest.raises(ValueError, match="nephele-horizon99: horizon must be"):
        ex.run_grid([good, bad], tmp_path, progress=False)
    assert not good.path(tmp_path).exists()  # nothing computed before the bad setting was found
