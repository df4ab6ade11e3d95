"""The benchmark table of per-run CPU times (:data:`tt_workbook.runs.estimate.RUN_TIMES`) and the
notebooks' estimates from it.

``python -m tt_workbook.runs.run_times --profile paper --time`` runs one run (the lowest seed) of
each kind (benchmark, optimiser variant) of the notebooks' main grids that the table lacks, adds its
CPU seconds to the table, and prints each notebook's estimate (:func:`tt_workbook.runs.estimate.estimate`).
"""

from __future__ import annotations

import csv
import os
import sys
import time
from pathlib import Path

from tt_workbook.runs.estimate import RUN_TIMES, benchmarked_seconds, describe, estimate

__all__ = ["profile_kinds", "time_kinds", "main"]


def profile_kinds(profile: str) -> dict[str, list]:
    """The main run grids of the notebooks that compute runs, per notebook: ``{"03": specs, ...}``.

    03: Figs 1-2 (:func:`tt_workbook.runs.store.profile_specs`); 05: Fig. 3's filters; 07: Fig. 4's
    betas; 09: the Nephele study (every optimiser until its budget is spent) and the lookahead study;
    16: thesis ch. 7 (:func:`tt_workbook.runs.store.fabulinus_specs`). The notebooks' smaller side
    studies (TrimTuner-DT's variants, the authors' code, DIRECT/CMA-ES as in the authors' code, the
    alpha trace) are not included.
    """
    from tt_workbook.studies.filters_beta import specs as studies
    from tt_workbook.runs.profiles import settings
    from tt_workbook.runs.store import cost_grid, fabulinus_specs, profile_specs

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

    p = argparse.ArgumentParser(prog="python -m tt_workbook.runs.run_times",
                                description="Estimate the notebooks' run grids from measured per-run CPU times.")
    p.add_argument("--profile", default="quick", choices=["quick", "paper"])
    p.add_argument("--time", action="store_true", help="first time one run of each kind missing from the table")
    p.add_argument("--only", nargs="*", default=None, help="notebooks, e.g. 09 16")
    p.add_argument("--runs-dir", default=None, help="run store to read stored times from (default: none)")
    p.add_argument("--table", default=str(RUN_TIMES), help="the benchmark table to add to and read (default: the shipped one)")
    args = p.parse_args(argv)
    grids = {k: v for k, v in profile_kinds(args.profile).items() if not args.only or k in args.only}
    if args.time:
        for specs in grids.values():
            time_kinds(specs, args.table)
    from tt_workbook.runs.store import stored_status

    runs_dir = args.runs_dir or Path(os.devnull)
    total = 0.0
    for nb, specs in grids.items():
        est = estimate(specs, runs_dir, table=benchmarked_seconds(args.table), stored=[s for s in specs if args.runs_dir
                                               and stored_status(s, runs_dir) == "valid"])
        total += est.cpu_s
        print(f"notebook {nb}: {describe(est)}")
    print(f"total: {total / 60:.1f} CPU-min")
    return 0


if __name__ == "__main__":
    sys.exit(main())
