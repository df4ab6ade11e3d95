"""Longest-first order of a grid of runs from the wall times the run store recorded."""

import json

import pyarrow as pa
import pyarrow.parquet as pq

from tt_workbook.runs.schedule import expected_seconds, longest_first, stored_wall_seconds
from tt_workbook.runs.store import RunSpec


def _store(runs, spec, wall):
    path = spec.path(runs)
    path.parent.mkdir(parents=True, exist_ok=True)
    table = pa.table({"iteration": [1, 2]})
    meta = {"spec": {"optimizer": spec.optimizer, "benchmark": spec.benchmark, "seed": spec.seed}, "wall_s": wall}
    pq.write_table(table.replace_schema_metadata({b"tt_run": json.dumps(meta).encode()}), path)


def test_expected_seconds_from_the_store_then_guesses(tmp_path):
    runs = tmp_path / "runs"
    _store(runs, RunSpec("rnn", "trimtuner-gp", 1), 100.0)
    _store(runs, RunSpec("rnn", "trimtuner-gp", 2), 120.0)
    _store(runs, RunSpec("rnn", "trimtuner-dt", 1), 4.0)
    _store(runs, RunSpec("cnn", "trimtuner-dt", 1), 8.0)
    bad = runs / "rnn" / "eic" / "seed1.parquet"
    bad.parent.mkdir(parents=True)
    bad.write_text("not a parquet file")
    assert sorted(w for *_, w in stored_wall_seconds(runs)) == [4.0, 8.0, 100.0, 120.0]  # the bad file skipped
    specs = [RunSpec("rnn", "random", 1), RunSpec("rnn", "trimtuner-dt", 2), RunSpec("cnn", "trimtuner-gp", 1),
             RunSpec("rnn", "trimtuner-gp", 3), RunSpec("rnn", "fabolas", 1), RunSpec("rnn", "eic", 1)]
    # same benchmark and variant: median of 4 (rnn only); cnn TrimTuner-GP: the variant on any benchmark,
    # median(100, 120); rnn seed 3: median(100, 120); no stored run: the guesses (FABOLAS 60, model-based 10,
    # random 1)
    assert expected_seconds(specs, runs) == [1.0, 4.0, 110.0, 110.0, 60.0, 10.0]
    order = longest_first(specs, runs)
    assert [(s.benchmark, s.optimizer) for s in order] == [
        ("cnn", "trimtuner-gp"), ("rnn", "trimtuner-gp"), ("rnn", "fabolas"), ("rnn", "eic"),
        ("rnn", "trimtuner-dt"), ("rnn", "random")]


def test_no_store_uses_guesses_only(tmp_path):
    specs = [RunSpec("rnn", "random", 1), RunSpec("rnn", "trimtuner-gp", 1)]
    assert expected_seconds(specs, tmp_path / "missing") == [1.0, 60.0]
    assert longest_first(specs, tmp_path / "missing")[0].optimizer == "trimtuner-gp"


def test_runs_of_the_authors_code_are_ordered_without_the_registry(tmp_path):
    """authors-dt is not a registered optimiser: it gets its own guess (a 44-test run: a subprocess of
    about 15-20 s), between the GP methods' and the trees', not an 'unknown optimizer' error."""
    from tt_workbook.runs.schedule import expected_seconds
    from tt_workbook.runs.store import RunSpec

    specs = [RunSpec("rnn", "random", 1), RunSpec("rnn", "authors-dt", 1), RunSpec("rnn", "trimtuner-gp", 1)]
    assert expected_seconds(specs, tmp_path) == [1.0, 20.0, 60.0]
