"""Trajectory check of every registered optimiser: a fixed set of short runs replays exactly as before.

``tests/trajectories_all.json`` holds, as computed by the code before the optimisers were assembled from
parts (issue "one of each": parts, one public step record, thin notebooks), every registered optimiser on
both networks with seeds 1 and 2, plus TrimTuner-DT with the authors' code's incumbent, initial-design and
tie rules (their trees are no longer reconstructed: ``tt authors run`` runs their code; that variant's
reference was recomputed with the same pre-refactor code): every column except the measured wall-clock ones. The slow test replays the same runs with the current code and
requires every value to be equal, naming the first iteration and column that moved.

Horizons: 14 tests for the accuracy-maximising optimisers (as ``test_kernel_trajectories``), 44 for
Fabulinus (its initial design alone is 36 tests), and the whole exploration budget (the thesis' default
per network) for the budgeted, cost-minimising ones (their Latin-hypercube initial sampling alone can
exceed 100 tests).

Regenerate the reference (only from code known to be right) with
``python tests/test_trajectories_all.py --write``.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from conftest import WALL_COLUMNS, first_difference, trajectory_rows

REFERENCE = Path(__file__).with_name("trajectories_all.json")
#: Registered optimisers at the time the reference was written (the test fails if one is added or removed
#: without a reference, so that the check keeps covering all of them).
OPTIMIZERS = ("cherrypick", "ei", "eic", "eic-usd", "fabolas", "fabulinus", "lynceus", "nephele", "random",
              "trimtuner-dt", "trimtuner-gp")
#: Extra named variants: ``name -> (optimiser, options)``.
VARIANTS = {"trimtuner-dt+authors-rules": ("trimtuner-dt", (("incumbent_rule", "tested-cea"), ("snapshot_init", False),
                                                            ("random_ties", False)))}
#: Run horizon per optimiser (None: until the exploration budget is spent); others take ``ITERATIONS``.
ITERATIONS = 14
HORIZONS = {"fabulinus": 44, "nephele": None, "lynceus": None, "cherrypick": None}
RUNS = [(b, o, s) for b in ("rnn", "cnn") for o in (*OPTIMIZERS, *VARIANTS) for s in (1, 2)]


def _key(run) -> str:
    return "/".join(map(str, run))


def run_rows(benchmark: str, name: str, seed: int) -> dict:
    """The run ``name`` (an optimiser or a :data:`VARIANTS` entry) as ``{column: values}``."""
    optimizer, options = VARIANTS.get(name, (name, ()))
    return trajectory_rows(benchmark, optimizer, seed, iterations=HORIZONS.get(optimizer, ITERATIONS),
                           options=options)


@pytest.mark.slow
@pytest.mark.parametrize("run", RUNS, ids=_key)
def test_trajectory_unchanged(run):
    ref = json.loads(REFERENCE.read_text())["runs"][_key(run)]
    diff = first_difference(ref, run_rows(*run))
    assert diff is None, f"{_key(run)} moved: {diff}"


def test_reference_covers_every_optimizer():
    """The reference holds every registered optimiser x both networks x seeds 1, 2, with the columns of a run
    and no wall-clock column; the budgeted runs spent their budget (they stop on it, not on a count)."""
    from tt_core.optimizers.registry import available

    assert tuple(available()) == OPTIMIZERS
    data = json.loads(REFERENCE.read_text())
    assert sorted(data["runs"]) == sorted(_key(r) for r in RUNS)
    for key, rows in data["runs"].items():
        name = key.split("/")[1]
        assert not set(WALL_COLUMNS) & set(rows)
        assert {"config_id", "size", "incumbent", "incumbent_accuracy", "cumulative_cost"} <= set(rows)
        horizon = HORIZONS.get(VARIANTS.get(name, (name,))[0], ITERATIONS)
        if horizon is None:
            assert rows["cumulative_cost"][-1] >= rows["budget"][-1] > 0, key
            assert "bo" in rows["phase"], key
        else:
            assert len(rows["iteration"]) == horizon, key


if __name__ == "__main__":
    if sys.argv[1:] != ["--write"]:
        sys.exit("usage: python tests/test_trajectories_all.py --write")
    runs = {}
    for run in RUNS:
        runs[_key(run)] = run_rows(*run)
        print(_key(run), len(runs[_key(run)]["iteration"]), "rows", flush=True)
    REFERENCE.write_text(json.dumps({"iterations": ITERATIONS, "horizons": HORIZONS, "runs": runs},
                                    separators=(",", ":")) + "\n")
