"""``tt runs``: a grid of benchmarks x optimisers x seeds through the run store (stored, resumable), and
the wall-time report of the stored runs."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from tt_workbook.cli.common import MAX_SEED, check_out_folder, count, integer, jsonable, positive, profile_names, runs_dir_option, whole
from tt_workbook.cli.optimize import add_problem_options, method_options
from tt_core.data.paper_defaults import TESTS_PER_RUN

#: A grid with more runs to compute than this stops after printing its estimate, unless --max-runs allows them
#: (the paper profile's largest grid computes 120 runs).
MAX_RUNS = 1000


def add_parser(sub, only: str | None) -> None:
    ru = sub.add_parser("runs", help="run a grid of benchmarks x optimisers x seeds (stored, resumable)",
                        examples="tt runs --benchmarks rnn --optimizers eic nephele --seeds 1 2 3 --jobs 2\n"
                                 "  tt runs --profile quick --jobs 2\n"
                                 "  tt runs --profile paper --study fabulinus --benchmarks rnn --seeds 1 2\n"
                                 "  tt runs --profile paper --report            # wall time and scores of stored "
                                 "runs only")
    ru.add_argument("--profile", choices=list(profile_names(only)),
                    help="run a profile's grid (quick or paper); narrow it with --benchmarks/--optimizers/--seeds")
    ru.add_argument("--study", choices=["fig1", "fabulinus"],
                    help="with --profile: TrimTuner Figs 1-2 (default) or thesis ch. 7 (Fabulinus, Figs 7.1-7.2)")
    ru.add_argument("--benchmarks", nargs="+", help="networks (cnn, rnn) or CSV paths")
    ru.add_argument("--optimizers", nargs="+", help="optimiser names (see `tt optimize --help`)")
    ru.add_argument("--seeds", nargs="+", type=whole("--seeds", 0, MAX_SEED),
                    help=f"seeds, one run per seed (0 to {MAX_SEED})")
    ru.add_argument("--iterations", type=count("--iterations"),
                    help=f"tests per run (default {TESTS_PER_RUN}; the budgeted optimisers run until the budget is spent)")
    ru.add_argument("--max-cost", type=positive("--max-cost"), help="USD (default: the benchmark's)")
    ru.add_argument("--max-time", type=positive("--max-time"), help="seconds")
    add_problem_options(ru)
    ru.add_argument("--runs-dir", help="default: runs/")
    ru.add_argument("--jobs", type=integer("--jobs"), default=1,
                    help="parallel workers, at most the CPUs (-1: all CPUs, -2: all but one)")
    ru.add_argument("--backend", choices=["loky", "sequential", "dask"], default="loky",
                    help="how runs are spread: loky processes (default), sequential, or a dask cluster")
    ru.add_argument("--scheduler", help="dask scheduler address (default: a local cluster)")
    ru.add_argument("--lock-timeout", type=positive("--lock-timeout"), metavar="SECONDS",
                    help="wait at most this long for a run another process is computing (default: until it ends)")
    ru.add_argument("--max-runs", type=count("--max-runs"), metavar="N",
                    help=f"compute at most N runs (default {MAX_RUNS}); a larger grid prints its estimate and stops: "
                         "give its number of runs to confirm it")
    ru.add_argument("--report", action="store_true",
                    help="run nothing: report how the stored runs' wall time splits by optimiser")
    ru.add_argument("--json", action="store_true", help="print the wall-time report as JSON")
    ru.set_defaults(func=cmd_runs)


def narrow_specs(specs, args) -> list:
    """The profile's runs narrowed to ``--benchmarks``, ``--optimizers`` and ``--seeds`` where given; a
    value the profile does not run is a ValueError listing the ones it does (never silently ignored)."""
    for flag, attr in (("--benchmarks", "benchmark"), ("--optimizers", "optimizer"), ("--seeds", "seed")):
        wanted = getattr(args, flag[2:])
        if not wanted:
            continue
        known = list(dict.fromkeys(getattr(s, attr) for s in specs))
        unknown = [w for w in wanted if w not in known]
        if unknown:
            raise ValueError(f"{flag} {' '.join(map(str, unknown))}: not in profile {args.profile!r} "
                             f"(study {args.study}), which runs {flag} {' '.join(map(str, known))}")
        specs = [s for s in specs if getattr(s, attr) in wanted]
    return specs


def _check_runs_options(args) -> None:
    """Options ``tt runs`` would otherwise ignore or repeat: refused with one line before anything runs."""
    from tt_workbook import runs as ex

    if args.study is not None and not args.profile:
        raise ValueError(f"--study {args.study} selects a profile's runs: add --profile (e.g. --profile quick), "
                         "or drop --study")
    if args.max_runs is not None and args.report:
        raise ValueError(f"--max-runs {args.max_runs} bounds the runs a grid computes; --report computes none: drop "
                         "--max-runs")
    if args.scheduler is not None and args.backend != "dask":
        raise ValueError(f"--scheduler {args.scheduler} is a Dask scheduler's address: add --backend dask, or drop "
                         "--scheduler")
    from collections import Counter

    for flag in ("--benchmarks", "--optimizers", "--seeds"):
        values = getattr(args, flag[2:]) or []
        times = Counter(values)  # (list.count per value took minutes for 100000 seeds)
        twice = [v for v, n in times.items() if n > 1]
        if twice:
            given = " ".join(map(str, values[:10])) + (f" ... ({len(values)} values)" if len(values) > 10 else "")
            raise ValueError(f"{flag} {given}: {twice[0]} is given {times[twice[0]]} times (each run would be counted "
                             "more than once); give each once")
    if not args.report and not (args.backend == "dask" and args.scheduler):  # a running cluster has its own workers
        ex.usable_jobs(args.jobs)  # --jobs 1000 > 2 CPUs: refused before any worker starts


def _check_grid(specs, runs_dir, max_runs: int | None = None, n_jobs: int = 1) -> None:
    """A grid with more runs to compute than ``max_runs`` (default :data:`MAX_RUNS`) prints its estimate
    (:mod:`tt_workbook.runs.estimate`) and stops with one line naming the bound and how to confirm; every
    setting still to compute is built before the first run starts (:func:`tt_workbook.runs.check_settings`)."""
    from tt_workbook import runs as ex

    todo = [s for s in specs if ex.stored_status(s, runs_dir) != "valid"]
    bound = MAX_RUNS if max_runs is None else max_runs
    if len(todo) > bound:
        from tt_workbook.runs.estimate import describe, estimate

        print(f"tt: {describe(estimate(todo, runs_dir), n_jobs)}", file=sys.stderr)
        raise ValueError(f"{len(todo)} runs to compute, more than --max-runs {bound}"
                         + (" (the default)" if max_runs is None else "")
                         + f": give --max-runs {len(todo)} to compute them all, or fewer --seeds, --benchmarks or "
                           "--optimizers")
    ex.check_settings(todo)
    from dataclasses import replace

    for spec in dict.fromkeys(replace(s, seed=0) for s in todo):  # each setting's tests against its initial design
        check = getattr(spec.replay(), "check_iterations", None)   # (the run store would be created before the run
        if check is not None and spec.iterations is not None:      # found out: nothing is created before a refusal)
            try:
                check(spec.iterations)
            except ValueError as exc:
                raise ValueError(f"--iterations {spec.iterations}: {spec.benchmark}/{spec.variant}: {exc}") from None


def cmd_runs(args) -> int:
    from tt_workbook import runs as ex

    _check_runs_options(args)
    runs_dir_option(args.runs_dir, check_folder=False)  # an empty one refused now; a folder under a file, below
    if args.profile:
        args.study = args.study or "fig1"
        study_specs = ex.fabulinus_specs if args.study == "fabulinus" else ex.profile_specs
        specs = study_specs(args.profile, **({} if args.iterations is None else {"iterations": args.iterations}))
        specs = narrow_specs(specs, args)
    else:
        if not (args.benchmarks and args.optimizers and args.seeds):
            raise ValueError("give --profile, or all of --benchmarks, --optimizers and --seeds")
        from tt_core.optimizers.registry import spec

        specs = []
        for name in args.optimizers:
            budgeted = name not in ex.EXTERNAL_RUNNERS and spec(name).family == "budgeted"
            iterations = args.iterations if args.iterations is not None else (None if budgeted else TESTS_PER_RUN)
            specs += ex.grid(args.benchmarks, [name], args.seeds, iterations=iterations, budget=args.budget,
                             min_accuracy=args.min_accuracy, max_time=args.max_time, max_cost=args.max_cost,
                             objective=args.objective if name == "random" else None,
                             options=tuple(sorted(method_options(args).items())) if budgeted else ())
    runs_dir = args.runs_dir or ex.DEFAULT_RUNS_DIR
    if not args.report:
        if args.runs_dir is not None and not Path(args.runs_dir).exists():  # under a file: refused before any run
            check_out_folder(args.runs_dir, "--runs-dir", example="runs")
        jobs = 1 if args.backend == "sequential" or (args.backend == "dask" and args.scheduler) else \
            ex.usable_jobs(args.jobs)
        _check_grid(specs, runs_dir, args.max_runs, jobs)
        stats: dict = {}
        paths = ex.run_grid(specs, runs_dir=runs_dir, n_jobs=args.jobs, backend=args.backend, scheduler=args.scheduler,
                            stats=stats, lock_timeout=args.lock_timeout)
        print(f"{len(paths)} runs stored under {runs_dir}: {stats['computed']} computed now, {stats['reused']} reused, "
              f"{stats['waited']} held by another process", file=sys.stderr if args.json else sys.stdout)
    table, totals = ex.wall_time_report(specs, runs_dir)
    if args.json:
        print(json.dumps(jsonable({"optimizers": table.reset_index().to_dict(orient="records") if not table.empty else [],
                                   **totals}), indent=1))
    else:
        print(ex.format_wall_time_report(table, totals))
        print("\n" + _runs_summary(specs, runs_dir))
    return 0


def _runs_summary(specs, runs_dir) -> str:
    """The final Accuracy_C / CNO of the stored runs, per network and optimiser (those present)."""
    import warnings

    from tt_workbook import runs as ex
    from tt_workbook.runs.summaries import final_scores, runs_sentence

    present = [s for s in specs if ex.stored_status(s, runs_dir) == "valid"]
    if not present:
        return "No stored runs of this grid yet."
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # set-aside files were announced when the grid ran
        return runs_sentence(final_scores(ex.load_runs(present, runs_dir)))
