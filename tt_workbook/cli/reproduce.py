"""``tt reproduce``: the plan's runs computed in one pool, then every notebook run with papermill, and the HTML
report."""

from __future__ import annotations

import os
import sys

from tt_workbook.cli.common import check_out_folder, count, integer, profile_names, runs_dir_option


def add_parser(sub, only: str | None) -> None:
    rp = sub.add_parser("reproduce", help="compute the notebooks' runs, run every notebook with papermill and write "
                                          "an HTML report",
                        examples="tt reproduce --profile quick\n"
                                 "  tt reproduce --profile paper --only 03 05   # in parts, same folder\n"
                                 "  tt reproduce --profile paper --backend dask --scheduler tcp://HOST:8786\n"
                                 "  tt reproduce --profile quick --backend dask --jobs 2   # a local Dask cluster")
    rp.add_argument("--profile", choices=list(profile_names(only)), default="quick",
                    help="quick (minutes, fewer seeds) or paper (the papers' settings, hours); default quick")
    rp.add_argument("--out", help="run folder (default reports/<profile>)")
    rp.add_argument("--figures", help="figures folder (default figures/)")
    rp.add_argument("--only", nargs="+", help="notebook prefixes, e.g. 02 08 (only their runs are computed)")
    rp.add_argument("--smoke", action="store_true", help="tiny settings (CI)")
    rp.add_argument("--timeout", type=count("--timeout"),
                    help="seconds one notebook cell may run (default: 3600 in the quick profile, none in the paper "
                         "profile, whose grids run for hours in one cell)")
    rp.add_argument("--runs-dir", help="the run store the plan is computed into and the notebooks read (default runs/)")
    rp.add_argument("--jobs", type=integer("--jobs"), default=None,
                    help="workers computing the plan, at most the CPUs (-1: all; default 2, or 1 on one CPU); with "
                         "--backend dask and no --scheduler, the local cluster's workers")
    rp.add_argument("--backend", choices=["loky", "dask"], default="loky",
                    help="how the plan's runs are spread: loky processes here (default) or a Dask cluster")
    rp.add_argument("--scheduler", help="a running Dask scheduler's address (default: a local cluster); its workers "
                                        "must see the same --runs-dir and find the data (TT_DATA_DIR)")
    rp.set_defaults(func=cmd_reproduce)


def cmd_reproduce(args) -> int:
    from tt_workbook.report import reproduce

    check_out_folder(args.out, "--out", example=f"reports/{args.profile}")   # before any notebook runs
    check_out_folder(args.figures, "--figures", example="figures")
    runs_dir = _runs_dir(args)
    n_jobs = _jobs(args)
    reproduce.available_notebooks(args.only)  # an unknown --only: one line, before any run is computed
    plan_time = _compute_plan(args, runs_dir, n_jobs)
    previous = os.environ.get(_strict())
    os.environ[_strict()] = str(runs_dir.resolve())  # the notebooks' kernels inherit it: they only read the store
    try:
        index, results = reproduce.run(
            profile=args.profile, out_dir=args.out, figures_dir=args.figures, only=args.only, smoke=args.smoke,
            timeout=args.timeout if args.timeout is not None else reproduce.default_timeout(args.profile),
            runs_dir=args.runs_dir, plan_time=plan_time,
        )
    finally:
        if previous is None:
            os.environ.pop(_strict(), None)
        else:
            os.environ[_strict()] = previous
    failed = [r for r in results if not r.ok]
    wall = sum(r.seconds for r in results)
    cpu = sum(r.cpu_seconds for r in results if r.cpu_seconds == r.cpu_seconds)
    for r in results:
        print(f"  {r.entry.stem:<40} {'ok' if r.ok else 'FAILED':<7} {r.seconds:7.1f} s wall {r.cpu_seconds:7.1f} s CPU")
    plan_wall, plan_cpu = plan_time
    print(f"\n{len(results) - len(failed)}/{len(results)} notebooks ran in {wall / 60:.1f} min ({cpu / 60:.1f} min of CPU), "
          f"after the plan's runs in {plan_wall / 60:.1f} min ({plan_cpu / 60:.1f} min of CPU): "
          f"{(wall + plan_wall) / 60:.1f} min in all. Report: {index}")
    for r in failed:
        print(f"  FAILED {r.entry.stem}: {r.error.splitlines()[0] if r.error else ''}")
    return 1 if failed else 0


def _strict() -> str:
    from tt_workbook.runs.store import PLAN_STRICT

    return PLAN_STRICT


def _runs_dir(args):
    from pathlib import Path

    return Path(runs_dir_option(args.runs_dir))


def _jobs(args) -> int:
    """The plan's workers: ``--jobs`` checked against the CPUs (a running Dask cluster has its own workers)."""
    from tt_workbook.runs.store import usable_cpus, usable_jobs

    if args.scheduler is not None and args.backend != "dask":
        raise ValueError(f"--scheduler {args.scheduler} is a Dask scheduler's address: add --backend dask, or drop "
                         "--scheduler")
    if args.backend == "dask" and args.scheduler:
        if args.jobs is not None:
            raise ValueError(f"--jobs {args.jobs}: a running Dask cluster (--scheduler) uses its own workers; drop --jobs")
        return 1
    return usable_jobs(args.jobs) if args.jobs is not None else min(2, usable_cpus())


def _compute_plan(args, runs_dir, n_jobs: int) -> tuple[float, float]:
    """Every run the selected notebooks read, computed into ``runs_dir`` in one pool before any notebook runs;
    returns its wall and CPU seconds (this process and its workers, which are shut down here so that their CPU
    time is not counted in the first notebook's)."""
    import resource
    import time

    from tt_workbook import plan

    t0 = time.perf_counter()
    c0 = _cpu(resource)
    notebooks = plan.notebook_runs(args.profile, args.smoke, only=args.only)
    specs = plan.unique_runs(notebooks)
    if not specs:
        return time.perf_counter() - t0, _cpu(resource) - c0
    where = (f"the Dask cluster at {args.scheduler}" if args.scheduler else
             f"{n_jobs} {'local Dask' if args.backend == 'dask' else 'loky'} worker{'s' if n_jobs != 1 else ''}")
    print(f"tt: plan: {len(specs)} runs for notebooks {', '.join(notebooks)}, computed first on {where} "
          f"into {runs_dir}", file=sys.stderr, flush=True)
    stats = plan.compute(notebooks, runs_dir, n_jobs=n_jobs, backend=args.backend, scheduler=args.scheduler)
    if args.backend == "loky":
        from joblib.externals.loky import get_reusable_executor

        get_reusable_executor().shutdown(wait=True)
    wall, cpu = time.perf_counter() - t0, _cpu(resource) - c0
    print(f"tt: plan: {stats['computed']} computed now, {stats['reused']} stored already, in {wall / 60:.1f} min "
          f"({cpu / 60:.1f} min of CPU)", file=sys.stderr, flush=True)
    return wall, cpu


def _cpu(resource) -> float:
    """CPU seconds of this process and of its children that have ended."""
    own, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime
