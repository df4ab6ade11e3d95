"""Trajectory check of the compiled kernels: a fixed set of short runs replays exactly as before.

``tests/kernel_trajectories.json`` holds the runs below as computed by the numpy implementations
(EPMGP's batched sites, entropy search's values, before numba was used): every column except the
measured wall-clock ones (``overhead_s``, ``cumulative_wall``). The slow test replays the same runs
with the current code (compiled kernels when numba is installed) and requires every value to be
equal; where a tie between candidates were moved by the last bits of a kernel, the run would differ
from that iteration on and the test names it.

Regenerate the reference (only with the reference implementations, e.g. ``TT_NO_JIT=1`` on the old
code) with ``python tests/test_kernel_trajectories.py --write``.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from conftest import WALL_COLUMNS, first_difference as _first_difference, trajectory_rows

REFERENCE = Path(__file__).with_name("kernel_trajectories.json")
#: (benchmark, optimiser, seed): TrimTuner-GP and FABOLAS use EPMGP, entropy search and the GP's
#: likelihood over walkers; TrimTuner-DT uses EPMGP and entropy search on the tree ensemble.
RUNS = [(b, o, s) for b in ("rnn", "cnn") for o in ("trimtuner-gp", "fabolas", "trimtuner-dt") for s in (1, 2)]
ITERATIONS = 14


def replay_rows(benchmark: str, optimizer: str, seed: int) -> dict:
    """One short run as ``{column: list of values}`` (wall-clock columns left out)."""
    return trajectory_rows(benchmark, optimizer, seed, iterations=ITERATIONS)


def _key(run) -> str:
    return "/".join(map(str, run))


@pytest.mark.slow
@pytest.mark.parametrize("run", RUNS, ids=_key)
def test_trajectory_unchanged(run):
    ref = json.loads(REFERENCE.read_text())["runs"][_key(run)]
    diff = _first_difference(ref, replay_rows(*run))
    assert diff is None, f"{_key(run)} moved: {diff}"


def test_reference_file_shape():
    """The stored reference covers every run, with the columns of a run and no wall-clock column."""
    data = json.loads(REFERENCE.read_text())
    assert data["iterations"] == ITERATIONS
    assert sorted(data["runs"]) == sorted(_key(r) for r in RUNS)
    for rows in data["runs"].values():
        assert not set(WALL_COLUMNS) & set(rows)
        assert len(rows["iteration"]) == ITERATIONS
        assert {"config_id", "size", "incumbent", "incumbent_accuracy", "cumulative_cost"} <= set(rows)


if __name__ == "__main__":
    if sys.argv[1:] != ["--write"]:
        sys.exit("usage: python tests/test_kernel_trajectories.py --write")
    runs = {}
    for run in RUNS:
        runs[_key(run)] = replay_rows(*run)
        print(_key(run), "done", flush=True)
    REFERENCE.write_text(json.dumps({"iterations": ITERATIONS, "runs": runs}, separators=(",", ":")) + "\n")
