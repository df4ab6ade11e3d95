"""The run store's public listing (tt_workbook.runs.store.list_runs), on a hand-made folder."""

from __future__ import annotations

from tt_workbook.runs.store import RunSpec, list_runs


def test_lists_run_files_by_benchmark_variant_and_seed_number(tmp_path):
    names = ["rnn/trimtuner-dt/seed10.parquet", "rnn/trimtuner-dt/seed2.parquet", "rnn/trimtuner-dt/seed1.parquet",
             "rnn/eic/seed3.parquet", "cnn/trimtuner-dt/seed1.parquet",
             # not runs: a checkpoint-like name, another file, a seed without a number, a file too shallow
             "rnn/trimtuner-dt/seed1.ckpt", "rnn/trimtuner-dt/notes.parquet", "rnn/trimtuner-dt/seedx.parquet",
             "rnn/seed4.parquet"]
    for n in names:
        (tmp_path / n).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / n).write_bytes(b"")
    rel = lambda paths: [str(p.relative_to(tmp_path)) for p in paths]  # noqa: E731
    assert rel(list_runs(tmp_path)) == ["cnn/trimtuner-dt/seed1.parquet", "rnn/eic/seed3.parquet",
                                        "rnn/trimtuner-dt/seed1.parquet", "rnn/trimtuner-dt/seed2.parquet",
                                        "rnn/trimtuner-dt/seed10.parquet"]
    spec = RunSpec("rnn", "trimtuner-dt", 1)
    assert rel(list_runs(tmp_path, spec.benchmark_label, spec.variant)) == [
        "rnn/trimtuner-dt/seed1.parquet", "rnn/trimtuner-dt/seed2.parquet", "rnn/trimtuner-dt/seed10.parquet"]
    assert rel(list_runs(tmp_path, "cnn")) == ["cnn/trimtuner-dt/seed1.parquet"]
    assert list_runs(tmp_path / "absent") == [] and list_runs(tmp_path, "rnn", "fabolas") == []
