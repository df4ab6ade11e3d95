"""The benchmark table of per-run CPU times (:data:`tt_workbook.runs.estimate.RUN_TIMES`): one run of each kind
timed.

``tt plan --profile paper --time`` runs one run (the lowest seed) of each kind (benchmark, optimiser variant)
of the profile's plan (:mod:`tt_workbook.plan`) that the table lacks, adds its CPU seconds to the table
(:func:`time_kinds`), and prints each notebook's estimate (:func:`tt_workbook.runs.estimate.estimate`).
"""

from __future__ import annotations

import csv
import os
import time
from pathlib import Path

from tt_workbook.runs.estimate import RUN_TIMES, benchmarked_seconds

__all__ = ["time_kinds"]


def time_kinds(specs, path: str | Path = RUN_TIMES, say=print) -> dict[tuple[str, str], float]:
    """Run one spec (the lowest seed) of each (benchmark, variant) of ``specs`` not yet in the table at
    ``path``, one BLAS thread, and add its CPU seconds (``time.process_time``) to the table."""
    path = Path(path)
    known = benchmarked_seconds(path)
    first = {}
    for s in sorted(specs, key=lambda s: s.seed):
        first.setdefault((s.benchmark_label, s.variant), s)
    for key, s in first.items():
        if key in known:
            continue
        t0 = time.process_time()
        s.run()
        known[key] = round(time.process_time() - t0, 2)
        say(f"{key[0]} {key[1]} seed {s.seed}: {known[key]:.1f} CPU s (load {os.getloadavg()[0]:.1f})")
        with path.open("w", newline="") as f:  # after every run: an interrupted timing keeps what it measured
            w = csv.writer(f)
            w.writerow(["benchmark", "variant", "cpu_s"])
            w.writerows([[b, v, c] for (b, v), c in sorted(known.items())])
    return known

