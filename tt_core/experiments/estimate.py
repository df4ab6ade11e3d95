"""How long a grid of runs will take, from measured per-run CPU seconds (never from a typed guess).

Each run to compute is estimated from, in order:

1. the run store: the median CPU seconds (``cpu_s`` in a stored run's metadata; ``wall_s`` for runs
   stored before CPU time was recorded) of the stored runs of the same benchmark and optimiser variant
   (other seeds), else of the same variant on any benchmark;
2. the benchmark table :data:`RUN_TIMES` (``run_times.csv`` beside this module): one run of each kind
   of the quick and paper profiles timed on the project's machine (``python -m
   tt_core.experiments.run_times --time``, :mod:`tt_core.experiments.run_times`);
3. nothing: the run is counted as *not estimated* and the estimate says so.

:func:`estimate` sums them; :func:`describe` states the result in one line (CPU minutes, and wall
minutes on ``n_jobs`` workers if they stay busy), naming how many runs came from each source.
"""

from __future__ import annotations

import csv
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from statistics import median

__all__ = ["RUN_TIMES", "stored_run_seconds", "benchmarked_seconds", "estimate", "Estimate", "describe", "cpu_text"]

#: Measured CPU seconds of one run of each kind (benchmark, optimiser variant), written by :func:`tt_core.experiments.run_times.time_kinds`.
RUN_TIMES = Path(__file__).with_name("run_times.csv")


def stored_run_seconds(runs_dir: str | Path) -> list[tuple[str, str, float]]:
    """``(benchmark folder, variant folder, seconds)`` of every stored run under ``runs_dir``: its CPU
    seconds when recorded, else its wall seconds (unreadable files are skipped)."""
    from tt_core.experiments.schedule import stored_run_metadata

    out = []
    for bench, variant, meta in stored_run_metadata(runs_dir):
        try:
            out.append((bench, variant, float(meta["cpu_s"] if "cpu_s" in meta else meta["wall_s"])))
        except (KeyError, TypeError, ValueError):
            continue
    return out


def benchmarked_seconds(path: str | Path = RUN_TIMES) -> dict[tuple[str, str], float]:
    """``{(benchmark, variant): CPU seconds}`` of the benchmark table (empty when it does not exist)."""
    path = Path(path)
    if not path.is_file():
        return {}
    with path.open(newline="") as f:
        return {(r["benchmark"], r["variant"]): float(r["cpu_s"]) for r in csv.DictReader(f)}


@dataclass
class Estimate:
    """CPU seconds expected for the runs of a grid that are not stored yet."""

    cpu_s: float = 0.0
    #: runs to compute, and how many were estimated from the run store / the benchmark table / nothing
    todo: int = 0
    stored: int = 0
    benchmarked: int = 0
    unknown: int = 0
    per_run: list = field(default_factory=list)  # seconds (None: not estimated), in the order of the specs


def estimate(specs, runs_dir: str | Path, table: dict | None = None, stored=()) -> Estimate:
    """Expected CPU seconds of ``specs`` (see the module docstring); ``table`` replaces the benchmark table;
    the specs in ``stored`` are stored already (nothing to compute)."""
    stored = set(stored)
    by_run, by_variant = defaultdict(list), defaultdict(list)
    for bench, variant, seconds in stored_run_seconds(runs_dir):
        by_run[(bench, variant)].append(seconds)
        by_variant[variant].append(seconds)
    table = benchmarked_seconds() if table is None else table
    out = Estimate()
    for s in specs:
        if s in stored:
            out.per_run.append(0.0)
            continue
        out.todo += 1
        pool = by_run.get((s.benchmark_label, s.variant)) or by_variant.get(s.variant)
        if pool:
            seconds = float(median(pool))
            out.stored += 1
        elif (s.benchmark_label, s.variant) in table:
            seconds = table[(s.benchmark_label, s.variant)]
            out.benchmarked += 1
        else:
            out.per_run.append(None)
            out.unknown += 1
            continue
        out.per_run.append(seconds)
        out.cpu_s += seconds
    return out


def cpu_text(seconds: float) -> str:
    """``"42 CPU-s"`` under two minutes, else ``"3.4 CPU-min"``."""
    return f"{seconds:.0f} CPU-s" if seconds < 120 else f"{seconds / 60:.1f} CPU-min"


def describe(est: Estimate, n_jobs: int = 1) -> str:
    """One line: ``"12 runs to compute: about 3.4 CPU-min (1.7 min on 2 workers) from 4 stored runs' and 8
    benchmarked runs' measured times; 0 without a measurement"``."""
    if est.todo == 0:
        return "every run is stored: nothing to compute"
    known = est.todo - est.unknown
    if known == 0:
        return f"{est.todo} runs to compute: no measured time for any of them (no estimate)"
    workers = max(1, min(int(n_jobs), known))
    wall = f" ({est.cpu_s / 60 / workers:.1f} min on {workers} busy workers)" if workers > 1 else ""
    sources = [f"{n} {what}" for n, what in ((est.stored, "from this store's runs"),
                                             (est.benchmarked, "from the benchmark table")) if n]
    rest = f"; {est.unknown} without a measured time, not counted" if est.unknown else ""
    return (f"{est.todo} runs to compute: about {cpu_text(est.cpu_s)}{wall} by measured per-run times "
            f"({', '.join(sources)}){rest}")
