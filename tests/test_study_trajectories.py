"""Trajectory check of the thesis studies' runs (notebooks 09 and 16): a fixed set replays exactly as before.

``tests/study_trajectories.json`` holds the runs below as computed before the repeated work in the
Nephele study (Nephele, Lynceus, CherryPick, Nephele's lookahead) and in Fabulinus' study (Fabulinus,
FABOLAS, BO with EIc and EI on the thesis' setup) was removed: every column except the measured
wall-clock ones (``overhead_s``, ``cumulative_wall``). The slow test replays the same runs with the
current code and requires every value to be equal, naming the first one that moved.

Regenerate the reference (only from code whose trajectories are known to be right) with
``python tests/test_study_trajectories.py --write``.
"""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path

import pytest

REFERENCE = Path(__file__).with_name("study_trajectories.json")
#: Measured wall-clock columns: they change from run to run and are not compared.
WALL_COLUMNS = ("overhead_s", "cumulative_wall")


def _specs() -> dict:
    """``{key: RunSpec}`` of the fixed set (built lazily: RunSpec checks its optimiser)."""
    from tt_workbook.runs.profiles import FABULINUS_OPTIONS
    from tt_workbook.runs.store import RunSpec, cost_grid

    out = {}
    # the Nephele study as notebook 09 runs it: until the budget is spent (default budgets)
    for s in cost_grid(["rnn", "cnn"], ["nephele", "lynceus", "cherrypick"], [1, 2]):
        out[f"{s.benchmark}/{s.variant}/{s.seed}"] = s
    # the lookahead study: Nephele at h = 1 and 2 from the top pairs of Gamma, the quick profile's budgets
    for s in cost_grid(["rnn"], ["nephele"], [1], horizons=(1, 2), budget=1.5, options={"max_paths": 3}):
        out[f"{s.benchmark}/{s.variant}/{s.seed}"] = s
    for s in cost_grid(["cnn"], ["nephele"], [1], horizons=(1,), budget=7.0, options={"max_paths": 3}):
        out[f"{s.benchmark}/{s.variant}/{s.seed}"] = s
    # Fabulinus' study (thesis ch. 7 setup): 9 initial configurations, then BO tests
    for bench, seed, its in (("rnn", 1, 44), ("cnn", 2, 40)):
        for o in ("fabulinus", "fabolas", "eic", "ei"):
            n = its if o in ("fabulinus", "fabolas") else 24
            s = RunSpec(bench, o, seed, iterations=n, options=tuple(sorted(FABULINUS_OPTIONS[o].items())))
            out[f"{s.benchmark}/{s.variant}/{s.seed}"] = s
    return out


def replay_rows(key: str) -> dict:
    """One run of the fixed set as ``{column: list of values}`` (wall-clock columns left out)."""
    from threadpoolctl import threadpool_limits

    with threadpool_limits(limits=1, user_api="blas"):
        df = _specs()[key].run()
    out = {}
    for col in df.columns:
        if col in WALL_COLUMNS:
            continue
        out[col] = [v.item() if hasattr(v, "item") else v for v in df[col].tolist()]
    return out


def _same(a, b) -> bool:
    if a == b:
        return True
    return isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b)


def first_difference(ref: dict, new: dict) -> str | None:
    """The first (row, column) where ``new`` differs from ``ref``, or None when they are identical."""
    if sorted(ref) != sorted(new):
        return f"columns differ: {sorted(set(ref) ^ set(new))}"
    n_ref, n_new = len(ref["iteration"]), len(new["iteration"])
    for i in range(min(n_ref, n_new)):
        for col in ref:
            if not _same(ref[col][i], new[col][i]):
                return f"iteration {ref['iteration'][i]}: {col} {ref[col][i]!r} -> {new[col][i]!r}"
    if n_ref != n_new:
        return f"{n_ref} rows -> {n_new}"
    return None


def _keys() -> list[str]:
    return sorted(json.loads(REFERENCE.read_text())["runs"]) if REFERENCE.exists() else []


@pytest.mark.slow
@pytest.mark.parametrize("key", _keys())
def test_study_trajectory_unchanged(key):
    ref = json.loads(REFERENCE.read_text())["runs"][key]
    diff = first_difference(ref, replay_rows(key))
    assert diff is None, f"{key} moved: {diff}"


def test_reference_covers_the_fixed_set():
    """The stored reference holds every run of the set, with a run's columns and no wall-clock column."""
    data = json.loads(REFERENCE.read_text())
    assert sorted(data["runs"]) == sorted(_specs())
    for rows in data["runs"].values():
        assert not set(WALL_COLUMNS) & set(rows)
        assert {"config_id", "size", "incumbent", "cumulative_cost"} <= set(rows)
        assert len(rows["iteration"]) > 10


def test_first_difference_names_the_cell():
    """The comparison itself: identical rows pass (NaN equals NaN), a changed cell and a shorter run are named."""
    ref = {"iteration": [1, 2], "cost": [0.5, float("nan")]}
    assert first_difference(ref, {"iteration": [1, 2], "cost": [0.5, float("nan")]}) is None
    assert first_difference(ref, {"iteration": [1, 2], "cost": [0.5, 0.25]}) == "iteration 2: cost nan -> 0.25"
    assert first_difference(ref, {"iteration": [1], "cost": [0.5]}) == "2 rows -> 1"


if __name__ == "__main__":
    if sys.argv[1:] != ["--write"]:
        sys.exit("usage: python tests/test_study_trajectories.py --write")
    import time

    runs = {}
    for key in sorted(_specs()):
        t = time.process_time()
        runs[key] = replay_rows(key)
        print(key, len(runs[key]["iteration"]), "rows", f"{time.process_time() - t:.1f} CPU s", flush=True)
    REFERENCE.write_text(json.dumps({"runs": runs}, separators=(",", ":")) + "\n")
