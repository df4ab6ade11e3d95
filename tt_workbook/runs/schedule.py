"""Longest runs first: an order for a grid of runs so that parallel workers stay busy to the end.

With 2 workers, a grid whose longest run starts last finishes that run alone. :func:`longest_first`
orders the runs by their expected seconds, longest first (the classic longest-processing-time rule),
and :func:`expected_seconds` takes the expectation from what the run store measured: the median wall
time (``wall_s`` in a stored run's metadata) of the stored runs of the same benchmark and optimiser
variant (other seeds), else of the same optimiser variant on any benchmark, else of the same
optimiser, else a fixed guess per optimiser family. The guesses only order runs that nothing was
measured for; they are never shown as an estimate.
"""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path
from statistics import median

__all__ = ["stored_wall_seconds", "expected_seconds", "longest_first"]

#: Seconds used to order runs of which no run was stored (model-based optimisers with a GP first).
_GUESS_S = {"trimtuner-gp": 60.0, "fabolas": 60.0, "fabulinus": 60.0,
            "authors-dt": 20.0}  # the authors' code (not in the optimiser registry): one subprocess run
_GUESS_MODEL_BASED_S = 10.0
_GUESS_OTHER_S = 1.0


def stored_run_metadata(runs_dir: str | Path) -> list[tuple[str, str, dict]]:
    """``(benchmark folder, variant folder, metadata)`` of every stored run file under ``runs_dir`` (the
    run store's layout ``<benchmark>/<variant>/seed<k>.parquet``); files that are not readable runs of
    tt_core's runner are skipped. The one reader of stored runs' times (schedule and estimates)."""
    import pyarrow.parquet as pq

    out = []
    root = Path(runs_dir)
    if not root.is_dir():
        return out
    for path in sorted(root.glob("*/*/seed*.parquet")):
        try:
            meta = json.loads((pq.read_schema(path).metadata or {}).get(b"tt_run", b"{}"))
        except Exception:  # not a run of tt_core's runner, or unreadable: nothing to learn from it
            continue
        if isinstance(meta, dict):
            out.append((path.parent.parent.name, path.parent.name, meta))
    return out


def stored_wall_seconds(runs_dir: str | Path) -> list[tuple[str, str, str, float]]:
    """``(benchmark folder, variant folder, optimizer, wall_s)`` of every stored run under ``runs_dir``
    whose metadata records its wall time (files that cannot be read are skipped)."""
    out = []
    for bench, variant, meta in stored_run_metadata(runs_dir):
        try:
            out.append((bench, variant, str(meta["spec"]["optimizer"]), float(meta["wall_s"])))
        except (KeyError, TypeError, ValueError):
            continue
    return out


def expected_seconds(specs, runs_dir: str | Path) -> list[float]:
    """Expected wall seconds of each run of ``specs`` (see the module docstring), in the same order."""
    from tt_core.optimizers.registry import spec as optimizer_spec

    by_run, by_variant, by_optimizer = defaultdict(list), defaultdict(list), defaultdict(list)
    for bench, variant, optimizer, wall in stored_wall_seconds(runs_dir):
        by_run[(bench, variant)].append(wall)
        by_variant[variant].append(wall)
        by_optimizer[optimizer].append(wall)
    out = []
    for s in specs:
        for pool in (by_run.get((s.benchmark_label, s.variant)), by_variant.get(s.variant),
                     by_optimizer.get(s.optimizer)):
            if pool:
                out.append(float(median(pool)))
                break
        else:
            if s.optimizer in _GUESS_S:
                out.append(_GUESS_S[s.optimizer])
                continue
            family = optimizer_spec(s.optimizer).family
            out.append(_GUESS_MODEL_BASED_S if family == "model-based" else _GUESS_OTHER_S)
    return out


def longest_first(specs, runs_dir: str | Path) -> list:
    """``specs`` ordered by :func:`expected_seconds`, longest first (ties keep their order)."""
    specs = list(specs)
    expected = expected_seconds(specs, runs_dir)
    order = sorted(range(len(specs)), key=lambda i: -expected[i])
    return [specs[i] for i in order]
