"""Checkpoints and stored results are data only and name their data (nothing under runs/ can run code;
a result made from other data is never reused).

The known answers: a resumed run equals the same run computed without interruption (every column but
the wall times), for every registered optimiser; a crafted pickle or a checkpoint naming a function
outside tt_core leaves a marker file uncreated."""

from __future__ import annotations

import json
import pickle
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from tt_workbook import runs as ex
from tt_workbook.runs import checkpoint
from tt_workbook.runs import store
from tt_core.optimizers import available

TIMES = ("overhead_s", "cumulative_wall")

#: Tests of each optimiser's run (enough to pass its initial design) and the step the checkpoint is taken at.
RUNS = {"trimtuner-dt": (12, 7), "trimtuner-gp": (9, 6), "fabolas": (9, 6), "eic": (8, 5), "eic-usd": (8, 5),
        "ei": (8, 5), "random": (8, 3), "fabulinus": (40, 37), "nephele": (None, 12), "lynceus": (None, 12),
        "cherrypick": (None, 12)}
SLOW = {"trimtuner-gp", "fabolas", "fabulinus"}


def _spec(opt: str, seed: int = 2, benchmark: str = "rnn") -> ex.RunSpec:
    return ex.RunSpec(benchmark, opt, seed, iterations=RUNS[opt][0])


def _same(a: pd.DataFrame, b: pd.DataFrame) -> None:
    """``a`` (a stored trajectory: the spec's columns added) equals ``b`` in every column of ``b`` but the times."""
    cols = [c for c in b.columns if c not in TIMES]
    pd.testing.assert_frame_equal(a[cols].reset_index(drop=True), b[cols].reset_index(drop=True))


def test_every_registered_optimiser_is_covered():
    assert set(RUNS) == set(available())


@pytest.mark.parametrize("opt", [pytest.param(o, marks=pytest.mark.slow) if o in SLOW else o for o in RUNS])
def test_a_run_resumed_from_its_checkpoint_file_equals_the_uninterrupted_run(opt, tmp_path):
    spec = _spec(opt)
    reference = spec.run()
    part = spec.replay()
    for _ in range(RUNS[opt][1]):
        part.step()
    ckpt = store.checkpoint_path(spec, tmp_path)
    store._save_checkpoint(spec, ckpt, part, 12.5)
    with np.load(ckpt, allow_pickle=False) as z:  # plain arrays and one JSON text
        assert all(z[k].dtype != object for k in z.files)
    path = ex.run_one(spec, tmp_path)
    traj, meta = ex.read_run(path)
    assert meta["resumed"] and meta["wall_s"] >= 12.5 and not ckpt.exists()
    assert traj["iteration"].tolist() == list(range(1, len(reference) + 1))
    _same(traj, reference)


def _payload_pickle(path: Path, marker: Path) -> None:
    class Payload:
        def __reduce__(self):
            return (Path.touch, (marker,))

    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(pickle.dumps({"spec": {}, "code": store.code_hash(), "replay": Payload(), "wall_s": 0.0}))


@pytest.mark.parametrize("where", ["npz", "pkl"])
def test_a_crafted_pickle_where_a_checkpoint_belongs_runs_nothing(where, tmp_path):
    spec = _spec("random")
    ckpt = store.checkpoint_path(spec, tmp_path / "runs")
    marker = tmp_path / "pwned"
    _payload_pickle(ckpt if where == "npz" else ckpt.with_suffix(".pkl"), marker)
    with pytest.warns(UserWarning, match="never loaded|not a readable checkpoint"):
        path = ex.run_one(spec, tmp_path / "runs")
    assert not marker.exists()
    _same(ex.read_run(path)[0], spec.run())


def _crafted_checkpoint(spec, ckpt: Path, root: dict, arrays=None) -> None:
    header = {**store._checkpoint_header(spec), "wall_s": 0.0}
    blob = json.dumps({"header": header, "state": json.dumps({"format": checkpoint.FORMAT, "root": root})}).encode()
    ckpt.parent.mkdir(parents=True, exist_ok=True)
    with open(ckpt, "wb") as fh:
        np.savez(fh, __state__=np.frombuffer(blob, dtype=np.uint8), **(arrays or {}))


@pytest.mark.parametrize("root", [
    {"t": "object", "i": 0, "module": "os", "class": "system", "fields": []},
    {"t": "object", "i": 0, "module": "tt_core.replay.driver", "class": "Replay",
     "fields": [["measure", {"t": "method", "i": 1, "self": {"t": "fresh", "i": 2, "fp": None}, "name": "touch"}]]},
    {"t": "object", "i": 0, "module": "tt_core.replay.driver", "class": "Replay",
     "fields": [["__class__", {"t": "fresh", "i": 1, "fp": None}]]},
    {"t": "object", "i": 0, "module": "tt_core.replay.driver", "class": "np.os.system", "fields": []},
])
def test_a_checkpoint_naming_code_outside_tt_core_is_refused(root, tmp_path):
    spec = _spec("random")
    ckpt = store.checkpoint_path(spec, tmp_path / "runs")
    _crafted_checkpoint(spec, ckpt, root)
    with pytest.warns(UserWarning, match="checkpoint not used"):
        path = ex.run_one(spec, tmp_path / "runs")
    _same(ex.read_run(path)[0], spec.run())


def test_an_object_array_in_a_checkpoint_is_refused(tmp_path):
    spec = _spec("random")
    ckpt = store.checkpoint_path(spec, tmp_path / "runs")
    ckpt.parent.mkdir(parents=True)
    with open(ckpt, "wb") as fh:
        np.savez(fh, __state__=np.array([{"a": 1}], dtype=object))
    with pytest.raises(checkpoint.CheckpointError, match="not a readable checkpoint"):
        checkpoint.read(ckpt)


def test_a_checkpoint_of_another_run_or_other_data_is_not_used(tmp_path):
    spec, other = _spec("random", seed=2), _spec("random", seed=3)
    part = other.replay()
    for _ in range(3):
        part.step()
    ckpt = store.checkpoint_path(spec, tmp_path)
    store._save_checkpoint(other, ckpt, part, 0.0)
    with pytest.warns(UserWarning, match="for another run"):
        assert store._load_checkpoint(spec, ckpt) == (None, 0.0)
    header, text, arrays = checkpoint.read(ckpt)
    store._save_checkpoint(spec, ckpt, part, 0.0)
    header, text, arrays = checkpoint.read(ckpt)
    header["data"]["sha256"] = "0" * 64
    blob = json.dumps({"header": header, "state": text}).encode()
    with open(ckpt, "wb") as fh:
        np.savez(fh, __state__=np.frombuffer(blob, dtype=np.uint8), **arrays)
    with pytest.warns(UserWarning, match="other data"):
        assert store._load_checkpoint(spec, ckpt) == (None, 0.0)


def test_a_state_made_from_other_inputs_is_refused():
    """A part of the state taken from a fresh replay (the benchmark's table) must be the same table."""
    spec = _spec("random")
    part = spec.replay()
    part.step()
    fresh = spec.replay()
    fresh.measure.benchmark.table.loc[0, "accuracy"] = 0.123456  # a fresh replay of other data
    with pytest.raises(checkpoint.CheckpointError, match="other inputs"):
        checkpoint.roundtrip(part, fresh)


def test_generators_resume_their_streams_and_shared_objects_stay_shared():
    rng = np.random.default_rng(np.random.SeedSequence(42))
    rng.normal(size=3)
    arr = np.arange(4.0)
    state = {"a": rng, "b": rng, "x": arr, "y": [arr, (1, 2.5, float("nan"))], "s": {3, 4}, "k": {(1, 2): np.int64(7)}}
    back = checkpoint.roundtrip(state, None)
    assert back["a"] is back["b"] and back["y"][0] is back["x"]
    np.testing.assert_array_equal(back["a"].normal(size=5), rng.normal(size=5))
    # the seed sequence too (scipy's QMC engines spawn from it)
    assert back["a"].bit_generator.seed_seq.entropy == 42
    assert np.isnan(back["y"][1][2]) and back["s"] == {3, 4} and back["k"][(1, 2)] == 7


# ------------------------------------------------------------------------------------------ stored results
def _csv_copy(tmp_path: Path, name: str, folder: str = "a", edit=None) -> str:
    from tt_core.data.benchmarks import locate

    df = pd.read_csv(locate("rnn")[0], dtype=str, keep_default_na=False, encoding="utf-8-sig")
    if edit is not None:
        edit(df)
    p = tmp_path / folder / name
    p.parent.mkdir(parents=True, exist_ok=True)
    df.to_csv(p, index=False)
    return str(p)


def _bump_accuracy(df):
    col = "acc" if "acc" in df.columns else "accuracy"
    df[col] = (df[col].astype(float) * 0.9).map(repr)


def test_a_result_of_an_edited_csv_is_recomputed_not_reused(tmp_path):
    csv = _csv_copy(tmp_path, "mine.csv")
    spec = ex.RunSpec(csv, "random", 1, iterations=6, max_cost=0.02)
    runs = tmp_path / "runs"
    stats = {}
    ex.run_grid([spec], runs, progress=False, stats=stats)
    assert stats["computed"] == 1
    before = ex.read_run(spec.path(runs))[0]
    _csv_copy(tmp_path, "mine.csv", edit=_bump_accuracy)
    store._source_of.cache_clear()
    with pytest.warns(UserWarning, match="other data"):
        ex.run_grid([spec], runs, progress=False, stats=stats)
    assert stats["computed"] == 1 and stats["reused"] == 0
    after, meta = ex.read_run(spec.path(runs))
    assert meta["data"]["sha256"] == store.data_identity(csv)["sha256"]
    np.testing.assert_allclose(after["accuracy"], 0.9 * before["accuracy"], rtol=1e-12)
    assert spec.path(runs).with_name("seed1.parquet.mismatch").is_file()


def test_two_csvs_of_the_same_name_never_share_a_result_or_overwrite_set_aside_copies(tmp_path):
    """Both store under runs/job/ (the file's stem); each finds the other's result there, sets it aside
    (``.mismatch``, ``.mismatch.1``: never overwritten) and computes its own from its own data."""
    a = _csv_copy(tmp_path, "job.csv", "a")
    b = _csv_copy(tmp_path, "job.csv", "b", edit=_bump_accuracy)
    runs = tmp_path / "runs"
    sa, sb = (ex.RunSpec(x, "random", 1, iterations=6, max_cost=0.02) for x in (a, b))
    acc = {}
    for k, spec in enumerate((sa, sb, sa)):
        stats = {}
        if k:
            with pytest.warns(UserWarning, match="other data|another run"):
                ex.run_grid([spec], runs, progress=False, stats=stats)
        else:
            ex.run_grid([spec], runs, progress=False, stats=stats)
        assert stats["computed"] == 1
        traj, meta = ex.read_run(spec.path(runs))
        assert meta["data"]["path"] == str(Path(spec.benchmark).resolve())
        acc.setdefault(spec.benchmark, []).append(traj["accuracy"].to_numpy())
    np.testing.assert_allclose(acc[b][0], 0.9 * acc[a][0], rtol=1e-12)
    np.testing.assert_array_equal(acc[a][0], acc[a][1])
    folder = sa.path(runs).parent
    assert sorted(p.name for p in folder.glob("seed1.parquet.mis*")) == ["seed1.parquet.mismatch",
                                                                      "seed1.parquet.mismatch.1"]


def test_a_result_with_edited_values_but_intact_metadata_is_set_aside(tmp_path):
    import pyarrow.parquet as pq

    spec = ex.RunSpec("rnn", "random", 1, iterations=6)
    runs = tmp_path / "runs"
    path = ex.run_one(spec, runs)
    table = pq.read_table(path)
    df = table.to_pandas()
    df.loc[5, "incumbent_accuracy"] = 0.999  # a better result, metadata untouched
    import pyarrow as pa

    forged = pa.Table.from_pandas(df, preserve_index=False).replace_schema_metadata(table.schema.metadata)
    pq.write_table(forged, path)
    assert ex.stored_status(spec, runs) == "corrupt"
    with pytest.raises(ex.StoreError, match="checksum"):
        ex.read_run(path)
    for k in range(2):  # set aside twice: the second copy does not overwrite the first
        pq.write_table(forged, path)
        with pytest.warns(UserWarning, match="checksum"):
            ex.run_one(spec, runs)
    assert path.with_name("seed1.parquet.corrupt").is_file() and path.with_name("seed1.parquet.corrupt.1").is_file()
    _same(ex.read_run(path)[0], spec.run())


def test_nothing_in_tt_core_can_load_code_from_disk():
    """No pickle, joblib.load, allow_pickle=True, read_pickle, or torch.load without weights_only."""
    import re

    root = Path(ex.__file__).resolve().parents[1]
    bad = []
    for f in sorted(root.rglob("*.py")):
        text = f.read_text()
        for pat in (r"\bimport pickle\b", r"\bpickle\.load", r"joblib\.load\(", r"allow_pickle\s*=\s*True",
                    r"read_pickle\(", r"\bdill\b", r"cloudpickle\.load"):
            if re.search(pat, text):
                bad.append(f"{f.name}: {pat}")
        for m in re.finditer(r"torch\.load\(([^)]*)\)", text):
            if "weights_only=True" not in m.group(1):
                bad.append(f"{f.name}: torch.load without weights_only=True")
    assert not bad, bad


def test_a_file_named_like_a_registered_benchmark_gets_its_own_folder(tmp_path):
    registered = ex.RunSpec("rnn", "random", 1, iterations=6)
    for path in ("./rnn", "data/rnn.csv", str(tmp_path / "RNN.csv")):
        spec = ex.RunSpec(path, "random", 1, iterations=6, max_cost=0.02)
        assert spec.path(tmp_path).parent.parent != registered.path(tmp_path).parent.parent
    assert ex.RunSpec("x/job.csv", "random", 1, iterations=6).benchmark_label == "job"
