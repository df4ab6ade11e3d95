"""``tt plan``: every optimiser run a profile's notebooks read, per notebook, with its estimated CPU time."""

from __future__ import annotations

import json
import sys

from tt_workbook.cli.common import count, jsonable, profile_names, runs_dir_option


def add_parser(sub, only: str | None) -> None:
    pl = sub.add_parser("plan", help="list the runs a profile's notebooks read, and their estimated CPU time "
                                     "(computes nothing)",
                        examples="tt plan --profile quick\n"
                                 "  tt plan --profile paper --jobs 8 --json       # wall estimated on 8 workers\n"
                                 "  tt plan --profile paper --only 09 16         # some notebooks\n"
                                 "  tt plan --profile paper --time               # time one run of each kind the "
                                 "per-run table lacks")
    pl.add_argument("--profile", choices=list(profile_names(only)), default="quick",
                    help="quick or paper (default quick)")
    pl.add_argument("--only", nargs="+", help="notebook prefixes, e.g. 03 09")
    pl.add_argument("--smoke", action="store_true", help="the notebooks' smoke settings (CI)")
    pl.add_argument("--runs-dir", help="the run store whose runs count as stored (default: runs/)")
    pl.add_argument("--jobs", type=count("--jobs"), default=2,
                    help="workers the wall-time estimate assumes (default 2; any number: a cluster's)")
    pl.add_argument("--json", action="store_true", help="print the plan's summary as JSON")
    pl.add_argument("--time", action="store_true",
                    help="compute one run (the lowest seed) of each kind of the plan missing from the per-run table "
                         "tt_workbook/runs/run_times.csv, one at a time, and add its CPU seconds to it")
    pl.set_defaults(func=cmd_plan)


def cmd_plan(args) -> int:
    from tt_workbook import plan
    from tt_workbook.report.reproduce import available_notebooks

    runs_dir = runs_dir_option(args.runs_dir)
    if args.only:
        available_notebooks(args.only)  # an unknown prefix: one line naming the notebooks
    notebooks = plan.notebook_runs(args.profile, args.smoke, only=args.only, convert=False)
    if args.time:
        from tt_workbook.runs.run_times import time_kinds

        time_kinds(plan.unique_runs(notebooks), say=lambda line: print(line, file=sys.stderr, flush=True))
    rows, totals = plan.summary(notebooks, runs_dir, workers=args.jobs)
    if args.json:
        print(json.dumps(jsonable({"profile": args.profile, "smoke": args.smoke, "runs_dir": str(runs_dir),
                                   "notebooks": rows, "totals": totals}), indent=1))
    else:
        print(plan.format_summary(rows, totals, args.profile + (" (smoke)" if args.smoke else ""), runs_dir))
    return 0
