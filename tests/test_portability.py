"""Same seed, same bytes on any machine: the reference runs replayed under emulated CPUs.

``tests/trajectories_all.json`` holds every registered optimiser on both networks (see
``test_trajectories_all``). Here seed 1 of each is replayed in two fresh processes that make the numerical
libraries take other code paths than the machine's own, as another CPU would:

* ``OPENBLAS_CORETYPE=Prescott`` (OpenBLAS' SSE3 kernels: other summation orders, no fused multiply-add),
  numpy's dispatched SIMD loops switched off (``NPY_DISABLE_CPU_FEATURES``), numba compiling for a generic
  x86-64 (``NUMBA_CPU_NAME=generic``), one BLAS thread;
* OpenBLAS' Haswell kernels where the CPU has AVX2 (else its own choice), two BLAS threads, and a busy core
  beside it.

Every column of every run (the wall-clock ones aside, which are timings) must equal the reference, which
was written on another machine. What may differ between machines is only the wall time.
"""

from __future__ import annotations

import json
import os
import platform
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import WALL_COLUMNS, trajectory_rows

HERE = Path(__file__).resolve().parent

SCRIPT = r"""
import json, sys
sys.path.insert(0, {here!r})
from threadpoolctl import threadpool_info
from test_trajectories_all import RUNS, run_rows, _key
from test_study_trajectories import replay_rows
keys = [k for k in RUNS if k[2] == 1]
out = {{_key(k): run_rows(*k) for k in keys}}
out.update({{"study:" + k: replay_rows(k) for k in {study!r}}})
out["_blas"] = [(i.get("internal_api"), i.get("architecture"), i.get("num_threads")) for i in threadpool_info()]
json.dump(out, sys.stdout)
"""


#: Runs of ``study_trajectories.json`` replayed too: Nephele's lookahead, whose fantasised tree refits split
#: on sums of log targets (numpy's SIMD ``log`` once moved the h = 2 run at its 152nd test).
STUDY_RUNS = ("rnn/nephele-horizon1-max_paths3-B1.5/1", "rnn/nephele-horizon2-max_paths3-B1.5/1")


def _dispatched_numpy_features() -> str:
    from numpy._core._multiarray_umath import __cpu_baseline__, __cpu_features__

    return " ".join(f for f, on in __cpu_features__.items() if on and f not in __cpu_baseline__)


def _settings() -> dict:
    from numpy._core._multiarray_umath import __cpu_features__

    burn = {"OPENBLAS_CORETYPE": "Haswell"} if __cpu_features__.get("AVX2") and __cpu_features__.get("FMA3") else {}
    return {
        "prescott, numpy SIMD off, numba generic, 1 thread": {
            "OPENBLAS_CORETYPE": "Prescott", "NPY_DISABLE_CPU_FEATURES": _dispatched_numpy_features(),
            "NUMBA_CPU_NAME": "generic", "OPENBLAS_NUM_THREADS": "1"},
        "haswell, 2 threads, busy core": {**burn, "OPENBLAS_NUM_THREADS": "2", "_busy": "1"},
    }


def _run(env_extra: dict) -> subprocess.Popen:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENBLAS_", "NPY_", "NUMBA_CPU", "OMP_"))}
    env.update({k: v for k, v in env_extra.items() if not k.startswith("_")})
    return subprocess.Popen([sys.executable, "-c", SCRIPT.format(here=str(HERE), study=STUDY_RUNS)], env=env,
                            cwd=HERE.parent,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _difference(key: str, ref: dict, new: dict):
    from conftest import first_difference
    from test_study_trajectories import first_difference as study_difference

    return (study_difference if key.startswith("study:") else first_difference)(ref, new)


@pytest.mark.slow
@pytest.mark.skipif(platform.machine() not in ("x86_64", "AMD64"), reason="the emulated CPUs are x86-64 kernels")
def test_reference_runs_identical_under_emulated_cpus():
    from threadpoolctl import threadpool_info

    ref = json.loads((HERE / "trajectories_all.json").read_text())["runs"]
    study = json.loads((HERE / "study_trajectories.json").read_text())["runs"]
    ref.update({"study:" + k: study[k] for k in STUDY_RUNS})
    own = {i.get("architecture") for i in threadpool_info() if i.get("internal_api") == "openblas"}
    settings = _settings()
    busy = None
    procs = {}
    try:
        for name, env in settings.items():
            if env.get("_busy"):
                busy = subprocess.Popen([sys.executable, "-c", "while True: pass"])
            procs[name] = _run(env)
        outs = {name: p.communicate(timeout=3000) for name, p in procs.items()}
    finally:
        if busy is not None:
            busy.kill()
            busy.wait()
        for p in procs.values():
            if p.poll() is None:
                p.kill()
    for name, (out, err) in outs.items():
        assert procs[name].returncode == 0, f"{name}: {err[-2000:]}"
        got = json.loads(out)
        blas = got.pop("_blas")
        if settings[name].get("OPENBLAS_CORETYPE") == "Prescott" and not os.environ.get("OPENBLAS_CORETYPE"):
            # (OpenBLAS names it by its own table; a suite already run under an emulation has no own kernel)
            taken = {arch for api, arch, _ in blas if api == "openblas"}
            assert taken and not taken & own, f"{name}: the emulation did not take: {blas} (own: {own})"
        assert len(got) == 24 + len(STUDY_RUNS)
        moved = {k: d for k, rows in got.items() if (d := _difference(k, ref[k], rows)) is not None}
        assert not moved, f"{name}: {len(moved)} of {len(got)} runs moved, e.g. {next(iter(moved.items()))}"


def test_only_wall_clock_columns_are_left_out():
    """The columns a machine may change are the wall-clock ones, and only those: a run's every other column
    is compared above."""
    from tt_workbook.runs.store import RunSpec

    df = RunSpec("rnn", "random", 1, iterations=5).run()
    assert set(df.columns) - set(trajectory_rows("rnn", "random", 1, iterations=5)) == set(WALL_COLUMNS)
    assert set(WALL_COLUMNS) == {"overhead_s", "cumulative_wall"}
