"""How long a grid of runs will take, from measured per-run CPU seconds (never from a typed guess).

Each run to compute is estimated from, in order:

1. the run store: the median CPU seconds (``cpu_s`` in a stored run's metadata; ``wall_s`` for runs
   stored before CPU time was recorded) of the stored runs of the same benchmark and optimiser variant
   (other seeds), else of the same variant on any benchmark;
2. the benchmark table :data:`RUN_TIMES` (``run_times.csv`` beside this module): one run of each kind
   of the quick and paper profiles timed on the project's machine (``python -m
   tt_workbook.runs.run_times --time``, :mod:`tt_workbook.runs.run_times`);
3. nothing: the run is counted as *not estimated* and the estimate says so.

:func:`estimate` sums them; :func:`describe` states the result in one line (CPU minutes, and wall
minutes on ``n_jobs`` workers if they stay busy), naming how many runs came from each source.

Measured CPU seconds are not the wall time a run takes *here*: this machine may be slower, or loaded (other
processes share its cores), and a worker process starts and compiles first. So the estimate also scales by
this machine's **pace**, the wall seconds it took per expected second, measured on its own runs:

* before a grid starts, from the run store (:func:`estimate`): the stored runs' wall seconds over their own
  CPU seconds (for runs estimated from the store) and over the benchmark table's seconds of their kind (for
  runs estimated from the table);
* while it runs, from the runs finished so far (:func:`pace`, :func:`time_left`): the wall seconds elapsed
  over the expected seconds of the runs done, clipped to ``[PACE_MIN, PACE_MAX]``.

The messages name both: ``"about 4 CPU-s by the measured per-run times; at this machine's pace so far, about
10 s"``.
"""

from __future__ import annotations

import csv
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from statistics import median

__all__ = ["RUN_TIMES", "PACE_MIN", "PACE_MAX", "stored_run_seconds", "stored_run_times", "benchmarked_seconds",
           "estimate", "Estimate", "describe", "cpu_text", "wall_text", "pace", "time_left"]

#: Measured CPU seconds of one run of each kind (benchmark, optimiser variant), written by :func:`tt_workbook.runs.run_times.time_kinds`.
RUN_TIMES = Path(__file__).with_name("run_times.csv")
#: A pace (wall seconds here per expected second) is clipped to this range: a run whose results were stored
#: meanwhile, or one stuck behind a sleeping laptop, says little about the next ones.
PACE_MIN, PACE_MAX = 0.25, 4.0


def stored_run_seconds(runs_dir: str | Path) -> list[tuple[str, str, float]]:
    """``(benchmark folder, variant folder, seconds)`` of every stored run under ``runs_dir``: its CPU
    seconds when recorded, else its wall seconds (unreadable files are skipped)."""
    from tt_workbook.runs.schedule import stored_run_metadata

    out = []
    for bench, variant, meta in stored_run_metadata(runs_dir):
        try:
            out.append((bench, variant, float(meta["cpu_s"] if "cpu_s" in meta else meta["wall_s"])))
        except (KeyError, TypeError, ValueError):
            continue
    return out


def stored_run_times(runs_dir: str | Path) -> list[tuple[str, str, float | None, float | None]]:
    """``(benchmark folder, variant folder, CPU seconds, wall seconds)`` of every stored run under ``runs_dir``
    (None where the run did not record one; unreadable files are skipped)."""
    from tt_workbook.runs.schedule import stored_run_metadata

    def number(meta, key):
        try:
            v = float(meta[key])
        except (KeyError, TypeError, ValueError):
            return None
        return v if v >= 0 and v == v and v != float("inf") else None

    return [(bench, variant, number(meta, "cpu_s"), number(meta, "wall_s"))
            for bench, variant, meta in stored_run_metadata(runs_dir)]


def pace(expected: list[float] | tuple, taken: list[float] | tuple, lo: float = PACE_MIN,
         hi: float = PACE_MAX) -> float | None:
    """Wall seconds taken here per expected second: ``sum(taken) / sum(expected)`` clipped to ``[lo, hi]``;
    None when nothing expected to take time is measured yet.

    Examples
    --------
    >>> pace([4.0, 6.0], [10.0, 15.0]), pace([10.0], [100.0]), pace([], []), pace([0.0], [3.0])
    (2.5, 4.0, None, None)
    """
    done = float(sum(expected))
    if done <= 0:
        return None
    return min(max(float(sum(taken)) / done, lo), hi)


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
    #: wall seconds at this machine's pace (the stored runs' wall over expected seconds, per source); None
    #: when no stored run measured that pace for every source used
    wall_s: float | None = None
    #: how many stored runs the pace rests on
    paced_by: int = 0


def estimate(specs, runs_dir: str | Path, table: dict | None = None, stored=()) -> Estimate:
    """Expected CPU seconds of ``specs`` (see the module docstring); ``table`` replaces the benchmark table;
    the specs in ``stored`` are stored already (nothing to compute)."""
    stored = set(stored)
    by_run, by_variant = defaultdict(list), defaultdict(list)
    for bench, variant, seconds in stored_run_seconds(runs_dir):
        by_run[(bench, variant)].append(seconds)
        by_variant[variant].append(seconds)
    table = benchmarked_seconds() if table is None else table
    # this machine's pace, per source: wall over CPU seconds of the stored runs that recorded both; wall seconds
    # of the stored runs of a kind in the table over the table's seconds
    times = stored_run_times(runs_dir)
    measured = {"store": {i: cpu for i, (_, _, cpu, wall) in enumerate(times) if cpu is not None and wall is not None},
                "table": {i: table[(b, v)] for i, (b, v, _, wall) in enumerate(times) if wall is not None and (b, v) in table}}
    paces = {k: pace(list(m.values()), [times[i][3] for i in m]) for k, m in measured.items()}
    wall, used = 0.0, set()
    out = Estimate()
    for s in specs:
        if s in stored:
            out.per_run.append(0.0)
            continue
        out.todo += 1
        pool = by_run.get((s.benchmark_label, s.variant)) or by_variant.get(s.variant)
        if pool:
            seconds, source = float(median(pool)), "store"
            out.stored += 1
        elif (s.benchmark_label, s.variant) in table:
            seconds, source = table[(s.benchmark_label, s.variant)], "table"
            out.benchmarked += 1
        else:
            out.per_run.append(None)
            out.unknown += 1
            continue
        out.per_run.append(seconds)
        out.cpu_s += seconds
        if wall is not None:
            wall = None if paces[source] is None else wall + paces[source] * seconds
            used.add(source)
    if out.todo > out.unknown and wall is not None:
        out.wall_s = wall
        out.paced_by = len(set().union(*(measured[k] for k in used)))
    return out


def cpu_text(seconds: float) -> str:
    """``"42 CPU-s"`` under two minutes, else ``"3.4 CPU-min"``."""
    return f"{seconds:.0f} CPU-s" if seconds < 120 else f"{seconds / 60:.1f} CPU-min"


def wall_text(seconds: float) -> str:
    """``"42 s"`` under two minutes, ``"3.4 min"`` under two hours, else ``"2.5 h"``."""
    return f"{seconds:.0f} s" if seconds < 120 else f"{seconds / 60:.1f} min" if seconds < 7200 else \
        f"{seconds / 3600:.1f} h"


def time_left(expected_left: float, expected_done: float, elapsed: float, workers: int = 1,
              prior: float | None = None) -> tuple[float | None, float | None]:
    """``(pace, wall seconds left)`` of a grid whose finished runs were expected to take ``expected_done``
    CPU seconds and took ``elapsed`` wall seconds on ``workers`` busy workers; ``expected_left``: the CPU
    seconds still expected. The pace is :func:`pace` of the runs done (``elapsed * workers`` wall seconds of
    worker time for ``expected_done``); before any is done, ``prior`` (:attr:`Estimate.wall_s` over
    :attr:`Estimate.cpu_s`); ``(None, None)`` without either.

    Examples
    --------
    >>> time_left(6.0, 4.0, 10.0)               # 10 s for 4 expected: 2.5 s per CPU-s, 2.5 * 6 left
    (2.5, 15.0)
    >>> time_left(60.0, 20.0, 30.0, workers=2)  # 2 workers x 30 s for 20 expected: pace 3, 3 * 60 / 2
    (3.0, 90.0)
    >>> time_left(6.0, 0.0, 0.0, prior=2.0), time_left(6.0, 0.0, 0.0)
    ((2.0, 12.0), (None, None))
    """
    workers = max(1, int(workers))
    p = pace([expected_done], [elapsed * workers]) if elapsed > 0 else None
    p = prior if p is None else p
    if p is None:
        return None, None
    return p, p * expected_left / workers


def describe(est: Estimate, n_jobs: int = 1) -> str:
    """One line: ``"12 runs to compute: about 3.4 CPU-min (1.7 min on 2 busy workers) by measured per-run times
    (4 from this store's runs, 8 from the benchmark table); at this machine's pace so far (9 stored runs),
    about 5.1 min"``."""
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
    here = ""
    if est.wall_s is not None:
        runs = f"{est.paced_by} stored run" + ("s" if est.paced_by != 1 else "")
        here = f"; at this machine's pace so far ({runs}), about {wall_text(est.wall_s / workers)}" + (
            f" on {workers} busy workers" if workers > 1 else "")
    return (f"{est.todo} runs to compute: about {cpu_text(est.cpu_s)}{wall} by measured per-run times "
            f"({', '.join(sources)}){here}{rest}")
