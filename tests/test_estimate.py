"""Estimates of a grid's CPU time from measured per-run times: a hand-made store with known times."""

import json

import pyarrow as pa
import pyarrow.parquet as pq

from tt_core.experiments.estimate import benchmarked_seconds, cpu_text, describe, estimate, stored_run_seconds
from tt_core.experiments.store import RunSpec, read_run, run_one


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
    # 310 s = 5.17 CPU-min; on two busy workers 2.58 min
    assert describe(est, n_jobs=2) == (
        "5 runs to compute: about 5.2 CPU-min (2.6 min on 2 busy workers) by measured per-run times "
        "(3 from this store's runs, 1 from the benchmark table); 1 without a measured time, not counted")
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
