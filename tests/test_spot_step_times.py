"""Step times of the curves trained here (tt_spotsim.step_times): read from the shipped table, never
measured while the curves are trained, so the same seed gives the same SpotTune numbers beside a busy
core and with other BLAS kernels; cached curves made with other step times are recomputed; re-measuring
is an explicit command."""

from __future__ import annotations

import csv
import hashlib
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

from conftest import assert_one_line_error, tt_cli
from tt_core.data import entries
from tt_spotsim import curves as C, staged as ST, step_times as STT

#: What a subprocess runs: the quick curves (all, or told "simulate": LoR's and GBTR's) and the staged
#: workload into a fresh cache, then (told "simulate") `tt spot simulate` on those three workloads; prints
#: the step-time columns and the results.
SCRIPT = textwrap.dedent("""
    import contextlib, io, json, sys
    from pathlib import Path
    import tt_spotsim.curves as C
    from tt_spotsim import staged as ST
    from tt_workbook.cli import main
    root = Path(sys.argv[1])
    C.cache_root = lambda: root
    tables = C.generate(("lor", "gbtr") if sys.argv[2] == "simulate" else C.ALGORITHMS, "quick", 1, progress=False)
    tables["staged-digits"] = ST.generate(seed=1)
    out = {"seconds": {n: t["seconds"].tolist() for n, t in tables.items()}, "simulate": {}}
    for w in ("sklearn/lor", "sklearn/gbtr", "staged/staged-digits") if sys.argv[2] == "simulate" else ():
        buf = io.StringIO()
        with contextlib.redirect_stdout(buf):
            assert main(["spot", "simulate", "--workload", w, "--seed", "1", "--theta", "0.7", "--json"]) == 0
        r = json.loads(buf.getvalue())
        out["simulate"][w] = [r["cost"], r["jct_s"], r["steps_free"]]
    print(json.dumps(out))
""")


def shipped(workload: str, profile: str) -> dict:
    """``{(setting, step): seconds}`` of the shipped table, read with the csv module."""
    with open(STT.TABLE, newline="") as fh:
        rows = csv.DictReader(line for line in fh if not line.startswith("#"))
        return {(int(r["setting"]), int(r["step"])): float(r["seconds"]) for r in rows
                if r["workload"] == workload and r["profile"] == profile}


def run_generation(root: Path, coretype: str, busy: bool, what: str) -> dict:
    env = {**os.environ, "OPENBLAS_NUM_THREADS": "1", "OPENBLAS_CORETYPE": coretype}
    env.pop(STT.ENV, None)
    burner = subprocess.Popen([sys.executable, "-c", "while True: pass"]) if busy else None
    try:
        done = subprocess.run([sys.executable, "-c", SCRIPT, str(root), what], env=env, capture_output=True, text=True,
                              timeout=600, cwd=Path(__file__).resolve().parents[1])
    finally:
        if burner is not None:
            burner.kill()
            burner.wait()
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.fixture(scope="module")
def generations(tmp_path_factory):
    """The same seed generated three times: quiet, beside a CPU-burning process, and beside it with
    OpenBLAS' Prescott kernels instead of Haswell's (its curves only; that the losses and the simulation
    are the same under other kernels is tests/test_spot_curve_losses.py's)."""
    return {k: run_generation(tmp_path_factory.mktemp(k), core, busy, what)
            for k, core, busy, what in (("quiet", "Haswell", False, "simulate"), ("busy", "Haswell", True, "simulate"),
                                        ("busy-prescott", "Prescott", True, "curves"))}


def test_step_times_are_the_shipped_tables_beside_a_busy_core_and_other_blas_kernels(generations):
    assert sorted(generations["busy-prescott"]["seconds"]) == ["gbtr", "lir", "lor", "mlp", "staged-digits", "svm"]
    quiet = generations["quiet"]["seconds"]
    assert sorted(quiet) == ["gbtr", "lor", "staged-digits"]
    for key in ("busy", "busy-prescott"):                              # identical, not merely close
        assert {n: v for n, v in generations[key]["seconds"].items() if n in quiet} == quiet, key
    # and each generation's are the table's values, read independently of the code
    for key, gen in generations.items():
        for name, secs in gen["seconds"].items():
            workload, profile = (("staged/staged-digits", "default") if name == "staged-digits"
                                 else (f"sklearn/{name}", "quick"))
            table = shipped(workload, profile)
            steps = max(k for _, k in table)
            assert len(secs) == 12 * steps
            assert secs == [table[(s, k)] for s in range(12) for k in range(1, steps + 1)], (key, name)


def test_same_seed_same_simulation_beside_a_busy_core(generations):
    quiet, busy = generations["quiet"]["simulate"], generations["busy"]["simulate"]
    assert set(quiet) == {"sklearn/lor", "sklearn/gbtr", "staged/staged-digits"}
    assert busy == quiet                                             # cost, JCT and free steps, exactly
    assert all(cost > 0 and jct > 0 for cost, jct, _ in quiet.values())


def test_curves_cached_with_measured_step_times_are_recomputed(tmp_path):
    table = shipped("sklearn/lir", "quick")
    expect = [table[(s, k)] for s in range(12) for k in range(1, 25)]
    old = {"name": "lir", "size": C.SIZES["quick"], "grid": C.grid("lir"), "seed": 3, "v": 2}   # the settings before
    fake = None

    def measured():
        nonlocal fake
        fake = C.generate(["lir"], "quick", seed=3, root=tmp_path / "fresh", progress=False)["lir"].copy()
        fake["seconds"] = 0.5                                        # as if timed on a slow machine
        return fake

    # the file the old code wrote (its own name, from the old settings) is not read
    old_key = hashlib.sha256(json.dumps(old, sort_keys=True).encode()).hexdigest()[:12]
    old_path = tmp_path / f"lir-quick-seed3-{old_key}.csv"
    entries.Entry(old_path, old, C.data_identity("lir")).ensure(measured, C._write, lambda p: None)
    got = C.generate(["lir"], "quick", seed=3, root=tmp_path, progress=False)["lir"]
    assert got["seconds"].tolist() == expect
    assert old_path.exists() and C.cache_path("lir", "quick", 3, tmp_path) != old_path

    # the same file under the new name: its sidecar's settings lack the step-time table, so it is set aside
    new_path = C.cache_path("lir", "quick", 3, tmp_path)
    for end in ("", entries.SIDECAR_SUFFIX):
        new_path.with_name(new_path.name + end).write_bytes(old_path.with_name(old_path.name + end).read_bytes())
    with pytest.warns(UserWarning, match=r"moved to lir-quick-seed3-.*\.csv\.mismatch and recomputed"):
        again = C.generate(["lir"], "quick", seed=3, root=tmp_path, progress=False)["lir"]
    assert again["seconds"].tolist() == expect
    np.testing.assert_array_equal(again["metric"], fake["metric"])   # the losses are the same seeded ones


def test_staged_curves_take_the_tables_step_times(tmp_path):
    df = ST.generate(seed=1, root=tmp_path)
    table = shipped("staged/staged-digits", "default")
    assert df.sort_values(["setting", "step"])["seconds"].tolist() == [table[(s, k)] for s in range(12)
                                                                         for k in range(1, ST.EPOCHS + 1)]
    assert ST._settings(1, ST.EPOCHS)["step_times"]["sha256"] == hashlib.sha256(STT.TABLE.read_bytes()).hexdigest()


def test_measure_step_times_writes_a_table_that_is_used_only_when_named(tmp_path, capsys, monkeypatch):
    out = tmp_path / "mine.csv"
    code, err = tt_cli(capsys, "spot", "measure-step-times", "--out", str(out), "--workloads", "sklearn/lir",
                       "--profiles", "quick", "--repeats", "1")
    assert code == 0, err
    head = [ln for ln in out.read_text().splitlines() if ln.startswith("#")]
    cond = STT.conditions(out)
    assert {"cpu", "load", "versions", "measured", "repeats", "threads"} <= set(cond) and cond["repeats"] == "1"
    assert len(head) == len(cond)
    with open(out, newline="") as fh:
        rows = list(csv.DictReader(ln for ln in fh if not ln.startswith("#")))
    assert len(rows) == 12 * 24 and {r["workload"] for r in rows} == {"sklearn/lir"}
    mine = [float(r["seconds"]) for r in rows]
    # the shipped table is untouched, and the curves use it until the new one is named
    plain = C.generate(["lir"], "quick", seed=3, root=tmp_path, progress=False)["lir"]
    monkeypatch.setenv(STT.ENV, str(out))
    named = C.generate(["lir"], "quick", seed=3, root=tmp_path, progress=False)["lir"]
    assert named["seconds"].tolist() == mine and plain["seconds"].tolist() != mine
    np.testing.assert_array_equal(named["metric"], plain["metric"])
    assert len(list(tmp_path.glob("lir-quick-seed3-*.csv"))) == 2    # two step-time tables, two cache files
    with pytest.raises(ValueError, match=r"no step times for 'sklearn/svm' \(quick\).*measure-step-times"):
        C.generate(["svm"], "quick", seed=3, root=tmp_path, progress=False)


def test_bad_step_time_input_is_one_line(tmp_path, capsys, monkeypatch):
    (tmp_path / "folder").mkdir()
    code, err = tt_cli(capsys, "spot", "measure-step-times", "--out", str(tmp_path / "folder"))
    assert_one_line_error(code, err, "--out", "is a folder", "step_times.csv")
    code, err = tt_cli(capsys, "spot", "measure-step-times", "--out", str(tmp_path / "t.txt"))
    assert_one_line_error(code, err, "--out", "ending in .csv")
    code, err = tt_cli(capsys, "spot", "measure-step-times", "--out", str(tmp_path / "t.csv"), "--workloads", "sklearn/x")
    assert_one_line_error(code, err, "--workloads", "'sklearn/x'", "sklearn/lir")
    code, err = tt_cli(capsys, "spot", "measure-step-times", "--out", str(tmp_path / "t.csv"), "--repeats", "0")
    assert_one_line_error(code, err, "--repeats")
    assert not (tmp_path / "t.csv").exists()
    monkeypatch.setenv(STT.ENV, str(tmp_path / "missing.csv"))
    code, err = tt_cli(capsys, "spot", "simulate", "--workload", "sklearn/lir")
    assert_one_line_error(code, err, f"{STT.ENV}=", "does not exist", "measure-step-times")
