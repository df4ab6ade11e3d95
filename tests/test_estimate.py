"""Estimates of a grid's CPU time from measured per-run times: a hand-made store with known times."""

import json

import pyarrow as pa
import pyarrow.parquet as pq

from tt_workbook.runs.estimate import (benchmarked_seconds, cpu_text, describe, estimate, pace, stored_run_seconds,
                                          time_left, wall_text)
from tt_workbook.runs.store import RunSpec, read_run, run_one


def _store(runs, spec, **times):
    """A run file holding only the metadata the estimate reads (its spec does not match: never 'stored')."""
    path = spec.path(runs)
    path.parent.mkdir(parents=True, exist_ok=True)
    meta = {"spec": {"optimizer": spec.optimizer, "benchmark": spec.benchmark, "seed": spec.seed}, **times}
    pq.write_table(pa.table({"iteration": [1, 2]}).replace_schema_metadata({b"tt_run": json.dumps(meta).encode()}), path)


def test_estimate_sums_known_times_by_source(tmp_path):
    runs = tmp_path / "runs"
    _store(runs, RunSpec("rnn", "trimtuner-gp", 1), cpu_s=90.0, wall_s=500.0)
    _store(runs, RunSpec("rnn", "trimtuner-gp", 2), cpu_s=150.0, wall_s=600.0)
    _store(runs, RunSpec("rnn", "trimtuner-dt", 1), wall_s=4.0)  # stored before CPU time was recorded
    bad = runs / "rnn" / "eic" / "seed9.parquet"
    bad.parent.mkdir(parents=True)
    bad.write_text("not a parquet file")
    # CPU seconds win over wall seconds; the unreadable file is skipped
    assert sorted(s for *_, s in stored_run_seconds(runs)) == [4.0, 90.0, 150.0]
    table = {("cnn", "fabolas"): 66.0, ("rnn", "trimtuner-gp"): 1000.0}
    specs = [RunSpec("rnn", "trimtuner-gp", 3),   # same benchmark and variant: median(90, 150) = 120 (the store wins)
             RunSpec("cnn", "trimtuner-gp", 1),   # the variant on another benchmark: 120
             RunSpec("rnn", "trimtuner-dt", 2),   # wall time of the older run: 4
             RunSpec("cnn", "fabolas", 1),        # the benchmark table: 66
             RunSpec("rnn", "eic", 1)]            # nothing measured
    est = estimate(specs, runs, table=table)
    assert est.per_run == [120.0, 120.0, 4.0, 66.0, None]
    assert est.cpu_s == 310.0
    assert (est.todo, est.stored, est.benchmarked, est.unknown) == (5, 3, 1, 1)
    # 310 s = 5.17 CPU-min; on two busy workers 2.58 min. This machine's pace: the stored runs took
    # (500 + 600) / (90 + 150) = 4.58 wall s per CPU-s, clipped to 4; over the table's seconds of their kind,
    # (500 + 600) / (1000 + 1000) = 0.55. Wall: 4 * (120 + 120 + 4) + 0.55 * 66 = 1012.3 s, on 2 workers 8.4 min
    assert est.wall_s == 4 * 244 + 0.55 * 66 and est.paced_by == 2
    assert describe(est, n_jobs=2) == (
        "5 runs to compute: about 5.2 CPU-min (2.6 min on 2 busy workers) by measured per-run times "
        "(3 from this store's runs, 1 from the benchmark table); at this machine's pace so far (2 stored runs), "
        "about 8.4 min on 2 busy workers; 1 without a measured time, not counted")
    assert describe(estimate([RunSpec("rnn", "eic", 1)], runs, table={})) == (
        "1 runs to compute: no measured time for any of them (no estimate)")


def test_stored_runs_need_nothing_and_record_their_cpu_time(tmp_path):
    runs = tmp_path / "runs"
    spec = RunSpec("rnn", "random", 1, iterations=5)
    run_one(spec, runs)
    _, meta = read_run(spec.path(runs))
    assert meta["cpu_s"] >= 0.0 and "wall_s" in meta
    est = estimate([spec, RunSpec("rnn", "random", 2, iterations=5)], runs, table={}, stored=[spec])
    # seed 1 is stored (nothing to compute); seed 2 is estimated from seed 1's recorded CPU time
    assert est.todo == 1 and est.per_run == [0.0, meta["cpu_s"]] and est.stored == 1
    assert describe(estimate([spec], runs, table={}, stored=[spec])) == "every run is stored: nothing to compute"


def test_benchmark_table_reads_its_csv(tmp_path):
    path = tmp_path / "run_times.csv"
    path.write_text("benchmark,variant,cpu_s\nrnn,trimtuner-dt,9.5\ncnn,nephele,1.25\n")
    assert benchmarked_seconds(path) == {("rnn", "trimtuner-dt"): 9.5, ("cnn", "nephele"): 1.25}
    assert benchmarked_seconds(tmp_path / "missing.csv") == {}


def test_cpu_text_switches_to_minutes_at_two_minutes():
    assert (cpu_text(42.4), cpu_text(119.0), cpu_text(120.0), cpu_text(3 * 60 + 24)) == (
        "42 CPU-s", "119 CPU-s", "2.0 CPU-min", "3.4 CPU-min")


def test_the_estimate_at_this_machines_pace(tmp_path):
    """The issue's case: the shipped per-run times say 4 CPU-s; this machine took 2.5 s per shipped second."""
    runs = tmp_path / "runs"
    table = {("rnn", "random"): 2.0, ("cnn", "random"): 2.0, ("rnn", "eic"): 6.0}
    # two stored eic runs took 15 and 15 s of wall time for the table's 6 s each: 30 / 12 = 2.5
    _store(runs, RunSpec("rnn", "eic", 1), wall_s=15.0)
    _store(runs, RunSpec("rnn", "eic", 2), wall_s=15.0)
    est = estimate([RunSpec("rnn", "random", 1), RunSpec("cnn", "random", 1)], runs, table=table)
    assert (est.cpu_s, est.wall_s, est.paced_by) == (4.0, 10.0, 2)
    assert describe(est) == ("2 runs to compute: about 4 CPU-s by measured per-run times (2 from the benchmark "
                             "table); at this machine's pace so far (2 stored runs), about 10 s")
    # nothing stored: no pace, nothing claimed about this machine
    bare = estimate([RunSpec("rnn", "random", 1)], tmp_path / "empty", table=table)
    assert bare.wall_s is None and "pace" not in describe(bare)
    # a pace is needed for every source used: a run from the store with no CPU time recorded anywhere has none
    _store(runs, RunSpec("cnn", "fabolas", 1), wall_s=30.0)
    mixed = estimate([RunSpec("cnn", "fabolas", 2), RunSpec("rnn", "random", 1)], runs, table=table)
    assert mixed.per_run == [30.0, 2.0] and mixed.wall_s is None


def test_time_left_scales_what_is_left_by_the_pace_so_far():
    # 3 runs done, expected 4 + 4 + 2 = 10 CPU-s, took 25 s on one worker: pace 2.5; 8 CPU-s left -> 20 s
    assert time_left(8.0, 10.0, 25.0) == (2.5, 20.0)
    # two workers busy for 25 s did 10 expected CPU-s: 50 worker-s / 10 = pace 5, clipped to 4; 4 * 8 / 2 = 16 s
    assert time_left(8.0, 10.0, 25.0, workers=2) == (4.0, 16.0)
    # a fast machine: 10 expected in 5 s, pace 0.5, 8 left -> 4 s
    assert time_left(8.0, 10.0, 5.0) == (0.5, 4.0)
    # before a run is done: the prior pace of the store, else nothing
    assert time_left(8.0, 0.0, 0.0, workers=2, prior=1.5) == (1.5, 6.0)
    assert time_left(8.0, 0.0, 3.0) == (None, None)
    assert pace([1.0, 3.0], [0.5, 0.5]) == 0.25 and pace([1.0], [0.2], lo=0.1) == 0.2


def test_wall_text_switches_units():
    assert (wall_text(10.0), wall_text(119.4), wall_text(150.0), wall_text(7200.0)) == ("10 s", "119 s", "2.5 min", "2.0 h")
