"""How long a grid of runs will take, from measured per-run CPU seconds (never from a typed guess).

Each run to compute is estimated from, in order:

1. the run store: the median CPU seconds (``cpu_s`` in a stored run's metadata; ``wall_s`` for runs
   stored before CPU time was recorded) of the stored runs of the same benchmark and optimiser variant
   (other seeds), else of the same variant on any benchmark;
2. the benchmark table :data:`RUN_TIMES` (``run_times.csv`` beside this module): one run of each kind
   of the quick and paper profiles timed on the project's machine (``python -m
   tt_core.experiments.estimate --time``);
3. nothing: the run is counted as *not estimated* and the estimate says so.

:func:`estimate` sums them; :func:`describe` states the result in one line (CPU minutes, and wall
minutes on ``n_jobs`` workers if they stay busy), naming how many runs came from each source.
"""

from __future__ import annotations

import csv
import json
import os
import sys
import time
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from statistics import median

__all__ = ["RUN_TIMES", "stored_run_seconds", "benchmarked_seconds", "estimate", "Estimate", "describe",
           "profile_kinds", "time_kinds"]

#: Measured CPU seconds of one run of each kind (benchmark, optimiser variant), written by :func:`time_kinds`.
RUN_TIMES = Path(__file__).with_name("run_times.csv")


def stored_run_seconds(runs_dir: str | Path) -> list[tuple[str, str, float]]:
    """``(benchmark folder, variant folder, seconds)`` of every stored run under ``runs_dir``: its CPU
    seconds when recorded, else its wall seconds (unreadable files are skipped)."""
    import pyarrow.parquet as pq

    out = []
    root = Path(runs_dir)
    if not root.is_dir():
        return out
    for path in sorted(root.glob("*/*/seed*.parquet")):
        try:
            meta = json.loads((pq.read_schema(path).metadata or {}).get(b"tt_run", b"{}"))
            seconds = float(meta["cpu_s"] if "cpu_s" in meta else meta["wall_s"])
        except Exception:  # not a run of tt_core's runner, or unreadable: nothing to learn from it
            continue
        out.append((path.parent.parent.name, path.parent.name, seconds))
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


def estimate(specs, runs_dir: str | Path, table: dict | None = None) -> Estimate:
    """Expected CPU seconds of ``specs`` (see the module docstring); ``table`` replaces the benchmark table."""
    from tt_core.experiments.store import stored_status

    by_run, by_variant = defaultdict(list), defaultdict(list)
    for bench, variant, seconds in stored_run_seconds(runs_dir):
        by_run[(bench, variant)].append(seconds)
        by_variant[variant].append(seconds)
    table = benchmarked_seconds() if table is None else table
    out = Estimate()
    for s in specs:
        if stored_status(s, runs_dir) in ("valid", "stale"):
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
    return (f"{est.todo} runs to compute: about {est.cpu_s / 60:.1f} CPU-min{wall} by measured per-run times "
            f"({', '.join(sources)}){rest}")


def profile_kinds(profile: str) -> dict[str, list]:
    """The main run grids of the notebooks that compute runs, per notebook: ``{"03": specs, ...}``.

    03: Figs 1-2 (:func:`tt_core.experiments.store.profile_specs`); 05: Fig. 3's filters; 07: Fig. 4's
    betas; 09: the Nephele study (every optimiser until its budget is spent) and the lookahead study;
    16: thesis ch. 7 (:func:`tt_core.experiments.store.fabulinus_specs`). The notebooks' smaller side
    studies (TrimTuner-DT's variants, the authors' code, DIRECT/CMA-ES as in the authors' code, the
    alpha trace) are not included.
    """
    from tt_core.experiments import studies
    from tt_core.experiments.profiles import settings
    from tt_core.experiments.store import cost_grid, fabulinus_specs, profile_specs

    out = {"03": profile_specs(profile)}
    f3 = settings(profile, "fig3")
    out["05"] = [s for opt, p in f3["plan"].items() for s in studies.filter_study_specs(opt, p["seeds"], "rnn", p["iterations"])]
    f4 = settings(profile, "fig4")
    out["07"] = studies.beta_study_specs("trimtuner-dt", f4["seeds"], f4["networks"], f4["iterations"], f4["betas"])
    ne = settings(profile, "nephele")
    specs = [s for b in ("cnn", "rnn") for s in cost_grid([b], ["nephele", "lynceus", "cherrypick", "random"], ne["seeds"])]
    for b in ("cnn", "rnn"):
        specs += cost_grid([b], ["nephele"], ne["lookahead_seeds"], horizons=[0, 1, 2], budget=ne["lookahead_budgets"][b],
                           options={"max_paths": ne["lookahead_max_paths"]})
    out["09"] = specs
    out["16"] = fabulinus_specs(profile)
    return out


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


def main(argv: list[str] | None = None) -> int:
    import argparse

    p = argparse.ArgumentParser(prog="python -m tt_core.experiments.estimate",
                                description="Estimate the notebooks' run grids from measured per-run CPU times.")
    p.add_argument("--profile", default="quick", choices=["quick", "paper"])
    p.add_argument("--time", action="store_true", help="first time one run of each kind missing from the table")
    p.add_argument("--only", nargs="*", default=None, help="notebooks, e.g. 09 16")
    p.add_argument("--runs-dir", default=None, help="run store to read stored times from (default: none)")
    args = p.parse_args(argv)
    grids = {k: v for k, v in profile_kinds(args.profile).items() if not args.only or k in args.only}
    if args.time:
        for specs in grids.values():
            time_kinds(specs)
    runs_dir = args.runs_dir or Path(os.devnull)
    total = 0.0
    for nb, specs in grids.items():
        est = estimate(specs, runs_dir)
        total += est.cpu_s
        print(f"notebook {nb}: {describe(est)}")
    print(f"total: {total / 60:.1f} CPU-min")
    return 0


if __name__ == "__main__":
    sys.exit(main())
