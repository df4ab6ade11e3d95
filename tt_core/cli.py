"""The ``tt`` command line: data, analyses, reproduction.

Run ``tt --help`` or ``tt COMMAND --help``. Errors are printed as one clear line (exit code 2),
never as a traceback.
"""

from __future__ import annotations

import argparse
import json
import math
import sys

from tt_core.data.io import shown


def _jsonable(obj):
    import numpy as np

    if isinstance(obj, dict):
        return {k: _jsonable(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_jsonable(v) for v in obj]
    if isinstance(obj, np.generic):
        obj = obj.item()
    if isinstance(obj, float) and not math.isfinite(obj):
        return None
    return obj


def _print_result(result: dict, as_json: bool) -> None:
    if as_json:
        print(json.dumps(_jsonable(result), indent=2))
        return
    width = max(len(k) for k in result)
    for k, v in _jsonable(result).items():
        if isinstance(v, float):
            v = f"{v:.6g}"
        print(f"{k:<{width}}  {v}")


def _positive(name):
    def parse(text):
        try:
            v = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{name} must be a number, got {shown(text)}") from None
        if not math.isfinite(v) or v <= 0:
            raise argparse.ArgumentTypeError(f"{name} must be a positive number, got {shown(text)}")
        return v
    return parse


def _within(name, lo, hi, unit, low_open=True):
    """An argparse type: a number in (lo, hi] (or [lo, hi]); the error names the option, the range and the unit."""
    def parse(text):
        v = _nonnegative(name)(text)
        if v > hi or v < lo or (low_open and v == lo):
            raise argparse.ArgumentTypeError(f"{name} must lie in {'(' if low_open else '['}{lo:g}, {hi:g}] {unit}, "
                                             f"got {shown(text)}")
        return v
    return parse


def _fraction(name):
    def parse(text):
        v = _positive(name)(text)
        if v > 1:
            raise argparse.ArgumentTypeError(f"{name} is a fraction in (0, 1], got {shown(text)}")
        return v
    return parse


# ------------------------------------------------------------------------------------------------
def cmd_data_list(args) -> int:
    from tt_core.data.benchmarks import list_benchmarks, search_dirs

    df = list_benchmarks()
    if args.json:
        print(json.dumps(_jsonable(df.to_dict(orient="records")), indent=2))
        return 0
    import os

    from tt_core.data.benchmarks import data_dir_problem

    dirs = ", ".join(f"{label} ({d})" for label, d in search_dirs())
    env = "" if os.environ.get("TT_DATA_DIR") else "TT_DATA_DIR (unset), "
    print(f"Search order: explicit path, {env}{dirs}")
    if data_dir_problem():
        print(f"Note: {data_dir_problem()}")
    for _, r in df.iterrows():
        print(f"\n{r['benchmark']:<4} {r['description']}\n     {r['status']}  {r['path']}\n     {r['note']}")
    return 0


def cmd_data_fetch(args) -> int:
    from tt_core.data.benchmarks import REGISTRY, fetch

    names = args.names or [n for n, s in REGISTRY.items() if s.public]
    for name in names:
        print(_fetch_one(name, args.dest, args.force, fetch))
    return 0


def _fetch_one(name: str, dest, force: bool, fetch) -> str:
    """One benchmark fetched, or found already present with its sha256 checked (nothing downloaded)."""
    from tt_core.data.benchmarks import REGISTRY, BenchmarkError, locate, sha256_of

    if not force and dest is None and name in REGISTRY:
        try:
            path, where = locate(name)
        except BenchmarkError:  # not found anywhere: download it
            path = None
        if path is not None and sha256_of(path) == REGISTRY[name].sha256:
            return f"{name}: already present (sha256 ok) at {path} ({where}); nothing downloaded"
    return f"{name}: {fetch(name, dest=dest, force=force)} (downloaded, sha256 verified)"


def cmd_feasibility(args) -> int:
    from tt_core.analysis.feasibility import feasibility
    from tt_core.data.benchmarks import load_benchmark

    if args.variant == "trimtuner" and args.min_accuracy is not None:
        raise ValueError(f"--min-accuracy {args.min_accuracy:g} applies to --variant thesis only (the trimtuner "
                         "variant's high accuracy is within 5% of the best feasible); drop it or add --variant thesis")
    bench = load_benchmark(args.benchmark)
    kwargs = {"max_cost": args.max_cost, "variant": args.variant}
    if args.variant == "thesis":
        kwargs["min_accuracy"] = 0.85 if args.min_accuracy is None else args.min_accuracy
    _print_result(feasibility(bench, **kwargs), args.json)
    return 0


def cmd_subsampling_gain(args) -> int:
    from tt_core.analysis.subsampling import subsampling_gain
    from tt_core.data.benchmarks import load_benchmark

    bench = load_benchmark(args.benchmark)
    _print_result(subsampling_gain(bench, min_accuracy=args.min_accuracy, max_time=args.max_time), args.json)
    return 0


def cmd_reproduce(args) -> int:
    from tt_core.reporting import reproduce

    index, results = reproduce.run(
        profile=args.profile, out_dir=args.out, figures_dir=args.figures, only=args.only, smoke=args.smoke,
        timeout=args.timeout if args.timeout is not None else reproduce.default_timeout(args.profile),
    )
    failed = [r for r in results if not r.ok]
    wall = sum(r.seconds for r in results)
    cpu = sum(r.cpu_seconds for r in results if r.cpu_seconds == r.cpu_seconds)
    for r in results:
        print(f"  {r.entry.stem:<40} {'ok' if r.ok else 'FAILED':<7} {r.seconds:7.1f} s wall {r.cpu_seconds:7.1f} s CPU")
    print(f"\n{len(results) - len(failed)}/{len(results)} notebooks ran in {wall / 60:.1f} min ({cpu / 60:.1f} min of CPU). "
          f"Report: {index}")
    for r in failed:
        print(f"  FAILED {r.entry.stem}: {r.error.splitlines()[0] if r.error else ''}")
    return 1 if failed else 0


def _method_options(args) -> dict:
    out = {}
    if getattr(args, "initial_budget", None) is not None:
        out["initial_budget"] = args.initial_budget
    if getattr(args, "horizon", None) is not None:
        out["horizon"] = args.horizon
    return out


def cmd_optimize(args) -> int:
    from tt_core.experiments.replay import run_optimization
    from tt_core.optimizers.registry import objective_of, spec

    budgeted = spec(args.optimizer).family == "budgeted"
    iterations = args.iterations if args.iterations is not None else (None if budgeted else 44)
    traj = run_optimization(
        args.benchmark, args.optimizer, seed=args.seed, iterations=iterations, beta=args.beta,
        filter=args.filter, max_cost=args.max_cost, max_time=args.max_time, min_accuracy=args.min_accuracy,
        budget=args.budget, objective=args.objective, progress=not args.json, **_method_options(args),
    )
    by_cost = objective_of(args.optimizer, args.objective) == "cost"
    score = ["cno", "cno_space"] if by_cost else ["accuracy_c", "accuracy_c_thesis"]
    if args.json:
        cols = ["iteration", "phase", "config_id", "size", "accuracy", "cost", "time", "cumulative_cost",
                "cumulative_time", "overhead_s", "incumbent", "incumbent_size", "incumbent_accuracy",
                "incumbent_cost", *score]
        print(json.dumps(_jsonable(traj[cols].to_dict(orient="records")), indent=1))
    else:
        import pandas as pd

        with pd.option_context("display.width", 160, "display.max_rows", 200):
            print(traj[["iteration", "phase", "config_id", "size", "accuracy", "cumulative_cost", "overhead_s",
                        "incumbent", "incumbent_size", "incumbent_accuracy", "incumbent_cost", score[0]]]
                  .to_string(index=False))
        print("\n" + _optimize_summary(traj, args))
    return 0


def _optimize_summary(traj, args) -> str:
    from tt_core.experiments.summaries import recommendation_sentence

    return recommendation_sentence(traj, args.benchmark, args.optimizer, max_cost=args.max_cost, max_time=args.max_time,
                                   min_accuracy=args.min_accuracy, budget=args.budget, objective=args.objective)


def _narrow_specs(specs, args) -> list:
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
    from tt_core import experiments as ex

    if args.study is not None and not args.profile:
        raise ValueError(f"--study {args.study} selects a profile's runs: add --profile (e.g. --profile quick), "
                         "or drop --study")
    if args.scheduler is not None and args.backend != "dask":
        raise ValueError(f"--scheduler {args.scheduler} is a Dask scheduler's address: add --backend dask, or drop "
                         "--scheduler")
    for flag in ("--benchmarks", "--optimizers", "--seeds"):
        values = getattr(args, flag[2:]) or []
        twice = [v for v in dict.fromkeys(values) if values.count(v) > 1]
        if twice:
            raise ValueError(f"{flag} {' '.join(map(str, values))}: {twice[0]} is given {values.count(twice[0])} "
                             "times (each run would be counted more than once); give each once")
    if not args.report and not (args.backend == "dask" and args.scheduler):  # a running cluster has its own workers
        ex.usable_jobs(args.jobs)  # --jobs 1000 > 2 CPUs: refused before any worker starts


def _check_grid(specs, runs_dir) -> None:
    """Every setting still to compute is built before the first run starts (:func:`ex.check_settings`)."""
    from tt_core import experiments as ex

    ex.check_settings([s for s in specs if ex.stored_status(s, runs_dir) not in ("valid", "stale")])


def cmd_runs(args) -> int:
    from tt_core import experiments as ex

    _check_runs_options(args)
    if args.runs_dir is not None and not args.runs_dir.strip():
        raise ValueError("--runs-dir is empty (it would mean the working directory); give a folder, e.g. runs/")
    if args.profile:
        args.study = args.study or "fig1"
        study_specs = ex.fabulinus_specs if args.study == "fabulinus" else ex.profile_specs
        specs = study_specs(args.profile, **({} if args.iterations is None else {"iterations": args.iterations}))
        specs = _narrow_specs(specs, args)
    else:
        if not (args.benchmarks and args.optimizers and args.seeds):
            raise ValueError("give --profile, or all of --benchmarks, --optimizers and --seeds")
        from tt_core.optimizers.registry import spec

        specs = []
        for name in args.optimizers:
            budgeted = name != "authors-dt" and spec(name).family == "budgeted"  # authors-dt: the authors' code
            iterations = args.iterations if args.iterations is not None else (None if budgeted else 44)
            specs += ex.grid(args.benchmarks, [name], args.seeds, iterations=iterations, budget=args.budget,
                             min_accuracy=args.min_accuracy, max_time=args.max_time, max_cost=args.max_cost,
                             objective=args.objective if name == "random" else None,
                             options=tuple(sorted(_method_options(args).items())) if budgeted else ())
    runs_dir = args.runs_dir or ex.DEFAULT_RUNS_DIR
    if not args.report:
        _check_grid(specs, runs_dir)
        stats: dict = {}
        paths = ex.run_grid(specs, runs_dir=runs_dir, n_jobs=args.jobs, backend=args.backend, scheduler=args.scheduler,
                            stats=stats, lock_timeout=args.lock_timeout)
        print(f"{len(paths)} runs stored under {runs_dir}: {stats['computed']} computed now, {stats['reused']} reused, "
              f"{stats['waited']} held by another process", file=sys.stderr if args.json else sys.stdout)
    table, totals = ex.wall_time_report(specs, runs_dir)
    if args.json:
        print(json.dumps(_jsonable({"optimizers": table.reset_index().to_dict(orient="records") if not table.empty else [],
                                    **totals}), indent=1))
    else:
        print(ex.format_wall_time_report(table, totals))
        print("\n" + _runs_summary(specs, runs_dir))
    return 0


def _runs_summary(specs, runs_dir) -> str:
    """The final Accuracy_C / CNO of the stored runs, per network and optimiser (those present)."""
    from tt_core import experiments as ex
    from tt_core.experiments.summaries import final_scores, runs_sentence

    present = [s for s in specs if ex.stored_status(s, runs_dir) in ("valid", "stale")]
    if not present:
        return "No stored runs of this grid yet."
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # a stale run was announced when the grid ran
        return runs_sentence(final_scores(ex.load_runs(present, runs_dir)))


def cmd_summary(args) -> int:
    from pathlib import Path

    from tt_core.data.benchmarks import PROJECT_DIR
    from tt_core.reporting.summary import collect, deduplicate, to_markdown

    if args.grep:
        import re

        try:
            re.compile(args.grep)
        except re.error as exc:
            raise ValueError(f"--grep {args.grep!r} is not a regular expression ({exc}); escape special "
                             "characters with a backslash, e.g. '\\['") from None
    if args.figures is not None and not Path(args.figures).is_dir():
        what = "is not a folder" if Path(args.figures).exists() else "does not exist"
        raise ValueError(f"--figures {args.figures} {what}; give the folder holding summary_*.csv (default figures/)")
    df = deduplicate(collect(args.figures or PROJECT_DIR / "figures"))
    if args.grep:
        df = df[df["item"].str.contains(args.grep, case=False, regex=True) | df["source"].str.contains(args.grep, case=False, regex=True)]
    if df.empty:
        raise ValueError("no paper-vs-workbook rows found; run `tt reproduce` (or a notebook) first")
    print(to_markdown(df) if args.markdown else df.to_string(index=False))
    from tt_core.reporting.summary import NO_CAUSE_YET, STATUSES

    counts = df["status"].value_counts()
    unexplained = int(((df["status"] == "differs") & (df["cause"] == NO_CAUSE_YET)).sum())
    print("\n" + ", ".join(f"{int(counts.get(s, 0))} {s}" for s in STATUSES)
          + f" ({unexplained} of the differing rows without a measured cause yet; duplicates counted once, as in the report)",
          file=sys.stderr)
    return 0


# ------------------------------------------------------------------------------------------------
# Command line: tt bench recommend
# ------------------------------------------------------------------------------------------------
def _add_bench_parser(subparsers) -> argparse.ArgumentParser:
    """Add ``bench recommend`` and ``bench acquisition`` to the ``tt`` sub-commands."""
    if _light("bench"):  # another command runs: `bench` is listed by name, without its heavy imports
        return _light_command(subparsers, "bench")
    from tt_core.experiments import bench as B
    from tt_core.experiments.profiles import settings as profile_settings

    QUICK = profile_settings("quick", "bench")
    bench = subparsers.add_parser("bench", help="benchmarks of the workbook's own computations")
    bsub = bench.add_subparsers(dest="bench_command", metavar="ACTION")
    rec = bsub.add_parser(
        "recommend", help="time one recommendation (refit + filter + acquisition) per optimiser and filter",
        description="Time one recommendation (model refit + filter + acquisition) of each setting after n "
                    "observations of a benchmark; print median, IQR, min and max; write every measurement "
                    "and the machine to a CSV. Settings: OPTIMIZER[:FILTER[:BETA]] (e.g. trimtuner-dt:cea:10%%, "
                    f"trimtuner-gp:none) or groups {sorted(B.SETTING_GROUPS)}.",
    )
    rec.add_argument("--benchmark", default="rnn", help="cnn, rnn or a CSV path (default rnn, as Table IV)")
    rec.add_argument("--settings", nargs="+", default=["table3"], help="settings or groups (default table3)")
    rec.add_argument("--n-obs", nargs="+", type=_count("--n-obs"), default=None,
                     help=f"observations (default {list(B.DEFAULT_N_OBS)})")
    rec.add_argument("--repeats", type=_count("--repeats"), default=None, help="timed recommendations per state (default 3)")
    rec.add_argument("--seeds", nargs="+", type=int, default=None, help="seeds of the states (default 1 2)")
    rec.add_argument("--policy", choices=["random", "own"], default="random",
                     help="observations: seeded random pairs after the initial design, or the optimiser's own")
    rec.add_argument("--out", default="figures/B.bench_recommend.csv", help="CSV of every measurement")
    rec.add_argument("--resume", action="store_true", help="keep the rows in --out and measure only missing ones")
    rec.add_argument("--blas-threads", type=int, default=1,
                     help="BLAS threads while measuring (default 1, as the runs use; 0: as configured)")
    rec.add_argument("--by-n-obs", action="store_true", help="one summary row per number of observations")
    rec.add_argument("--quick", action="store_true",
                     help=f"n_obs {QUICK['n_obs']}, seed {QUICK['seeds']}, {QUICK['repeats']} repeat "
                          "(explicit options win)")
    rec.set_defaults(func=cmd_bench_recommend)

    acq = bsub.add_parser(
        "acquisition", help="issue preset: one full recommendation with 44 observations, beta = 10%%, Table III methods",
        description="Time one full recommendation (refit + filter + acquisition) with 44 observations of the RNN "
                    "data at beta = 10%% for TrimTuner-DT, TrimTuner-GP, FABOLAS and EIc; print median/min/max over "
                    "repeats and the peak memory of the process.")
    acq.add_argument("--benchmark", default="rnn")
    acq.add_argument("--repeats", type=_count("--repeats"), default=3)
    acq.add_argument("--seeds", nargs="+", type=int, default=[1])
    acq.add_argument("--out", default="figures/bench_acquisition.csv")
    acq.set_defaults(func=cmd_bench_acquisition)
    bench.set_defaults(func=lambda a: (bench.print_help(), 0)[1])
    return rec


def cmd_bench_acquisition(args) -> int:
    """``tt bench acquisition``: the Table III methods at 44 observations, plus peak memory (RSS)."""
    import resource

    args.settings = ["trimtuner-dt:cea:10%", "trimtuner-gp:cea:10%", "fabolas", "eic"]
    args.n_obs, args.policy, args.resume, args.blas_threads = [44], "random", False, 1
    args.by_n_obs, args.quick = False, False
    rc = cmd_bench_recommend(args)
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0
    print(f"peak memory (max RSS of this process): {peak_mb:.0f} MB")
    return rc


def cmd_bench_recommend(args) -> int:
    from tt_core.experiments import bench as B
    from tt_core.experiments.profiles import settings as profile_settings

    preset = profile_settings("quick" if getattr(args, "quick", False) else "paper", "bench")
    n_obs = args.n_obs or preset["n_obs"]
    seeds = args.seeds or preset["seeds"]
    repeats = args.repeats if args.repeats is not None else preset["repeats"]
    settings = B.parse_settings(args.settings)
    if args.blas_threads is not None and args.blas_threads < 0:
        raise ValueError(f"--blas-threads must be >= 0 (0: as configured), got {args.blas_threads}")
    blas = args.blas_threads or None
    machine = B.machine_info()
    print(f"machine: {machine['cpu_model']}, {machine['n_cores']} cores ({machine['n_cores_usable']} usable), "
          f"BLAS {machine['blas']} x {blas or machine['blas_threads']} threads, "
          f"load {B._load():.2f}")
    print(f"benchmark {args.benchmark}: {len(settings)} settings x n_obs {list(n_obs)} x seeds {list(seeds)} x "
          f"{repeats} repeats", flush=True)
    df = B.bench_recommend(settings, n_obs=n_obs, repeats=repeats, seeds=seeds, benchmark=args.benchmark,
                         policy=args.policy, out=args.out, resume=args.resume, blas_threads=blas,
                         progress=True)
    labels = [s.label for s in settings]
    df = df[df["setting"].isin(labels)]
    by = ("benchmark", "setting", "n_obs") if args.by_n_obs else ("benchmark", "setting")
    print("\nseconds per recommendation (refit + filter + acquisition):")
    print(B.format_summary(B.summarize(df, by=by)))
    print(f"\n{len(df)} measurements written to {args.out}")
    return 0



def _profile_names() -> tuple[str, ...]:
    if _light("reproduce", "runs", "bench", "spot"):  # choices checked only for the command that runs
        return ()
    from tt_core.experiments.profiles import NAMES

    return NAMES


def _optimizer_names() -> list[str]:
    if _light("optimize"):  # only `tt optimize --help` lists them
        return []
    from tt_core.optimizers import available

    return available()


def _add_problem_options(p) -> None:
    p.add_argument("--min-accuracy", type=_fraction("--min-accuracy"),
                   help="accuracy limit (nephele, lynceus, cherrypick: default 0.85, thesis §6.2)")
    p.add_argument("--budget", type=_positive("--budget"),
                   help="exploration budget in USD (budgeted optimisers: default CNN 20, RNN 2.5)")
    p.add_argument("--initial-budget", type=_positive("--initial-budget"),
                   help="B_init in USD of nephele, lynceus, cherrypick (default: thesis Table 6.1, CNN 5, RNN 1)")
    p.add_argument("--horizon", type=_whole("--horizon", 0, MAX_HORIZON),
                   help=f"lookahead horizon of nephele and lynceus, 0 to {MAX_HORIZON} "
                        "(default 0; the thesis: 0, 1, 2)")
    p.add_argument("--objective", choices=["accuracy", "cost"],
                   help="random search only: maximise accuracy (default) or minimise cost")


#: Largest lookahead horizon ``tt`` accepts: :data:`tt_core.optimizers.budgeted.MAX_HORIZON` (typed here so
#: that building the parser imports no optimiser; tests/test_hostile_inputs.py checks that they agree).
MAX_HORIZON = 4


def _whole(name: str, minimum: int, maximum: int | None = None):
    """An argparse type: a whole number >= ``minimum`` (and <= ``maximum``; the error names the option)."""
    def parse(text):
        try:
            v = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{name} must be a whole number >= {minimum}, got {shown(text)}") from None
        if v < minimum:
            raise argparse.ArgumentTypeError(f"{name} must be a whole number >= {minimum}, got {shown(text)}")
        if maximum is not None and v > maximum:
            raise argparse.ArgumentTypeError(f"{name} must be at most {maximum}, got {shown(text)}")
        return v
    return parse


def _integer(name: str):
    """An argparse type: any whole number (the error names the option)."""
    def parse(text):
        try:
            return int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{name} must be a whole number, got {shown(text)}") from None
    return parse


def _nonnegative(name: str):
    def parse(text):
        try:
            v = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{name} must be a number, got {shown(text)}") from None
        if not math.isfinite(v) or v < 0:
            raise argparse.ArgumentTypeError(f"{name} must be a number >= 0, got {shown(text)}")
        return v
    return parse


def _count(name: str):
    return _whole(name, 1)


# ------------------------------------------------------------------------------------------------
class _Parser(argparse.ArgumentParser):
    """argparse with one-line errors: ``tt: error: <problem> (see 'tt optimize --help')``, exit code 2."""

    def error(self, message):
        self.exit(2, f"tt: error: {message} (see '{self.prog} --help')\n")


def build_parser() -> argparse.ArgumentParser:
    p = _Parser(prog="tt", description="TrimTuner Workbook command line")
    _add_version_and_examples(p)
    sub = p.add_subparsers(dest="command", metavar="COMMAND")

    data = sub.add_parser("data", help="list or download the measured benchmarks")
    dsub = data.add_subparsers(dest="data_command", metavar="ACTION")
    dl = dsub.add_parser("list", help="show each benchmark and where it was found")
    dl.add_argument("--json", action="store_true")
    dl.set_defaults(func=cmd_data_list)
    df = dsub.add_parser("fetch", help="download benchmarks (sha256-checked) into the data/ cache")
    df.add_argument("names", nargs="*", help="benchmarks (default: all public ones)")
    df.add_argument("--dest", help="folder to download into (default: the data/ cache)")
    df.add_argument("--force", action="store_true", help="download even if a valid copy exists")
    df.set_defaults(func=cmd_data_fetch)
    data.set_defaults(func=lambda a: (data.print_help(), 0)[1])

    fe = sub.add_parser("feasibility", help="TrimTuner Table II (or thesis Table 7.1) for one benchmark")
    fe.add_argument("--benchmark", required=True, help="cnn, rnn or a CSV path")
    fe.add_argument("--max-cost", type=_positive("--max-cost"), help="USD (default: the benchmark's)")
    fe.add_argument("--variant", choices=["trimtuner", "thesis"], default="trimtuner",
                    help="trimtuner: high accuracy = within 5%% of the best feasible; thesis: accuracy >= --min-accuracy")
    fe.add_argument("--min-accuracy", type=_fraction("--min-accuracy"), help="--variant thesis only (default 0.85)")
    fe.add_argument("--json", action="store_true")
    fe.set_defaults(func=cmd_feasibility)

    sg = sub.add_parser("subsampling-gain", help="thesis Table 6.2 and Eq. 6.2 for one benchmark")
    sg.add_argument("--benchmark", required=True, help="cnn, rnn or a CSV path")
    sg.add_argument("--min-accuracy", type=_fraction("--min-accuracy"), default=0.85)
    sg.add_argument("--max-time", type=_positive("--max-time"), default=300.0, help="seconds")
    sg.add_argument("--json", action="store_true")
    sg.set_defaults(func=cmd_subsampling_gain)

    rp = sub.add_parser("reproduce", help="run every notebook with papermill and write an HTML report")
    rp.add_argument("--profile", choices=list(_profile_names()), default="quick")
    rp.add_argument("--out", help="run folder (default reports/<profile>)")
    rp.add_argument("--figures", help="figures folder (default figures/)")
    rp.add_argument("--only", nargs="+", help="notebook prefixes, e.g. 02 08")
    rp.add_argument("--smoke", action="store_true", help="tiny settings (CI)")
    rp.add_argument("--timeout", type=_count("--timeout"),
                    help="seconds one notebook cell may run (default: 3600 in the quick profile, none in the paper "
                         "profile, whose grids run for hours in one cell)")
    rp.set_defaults(func=cmd_reproduce)

    op = sub.add_parser("optimize", help="run one optimiser on a benchmark and print its trajectory")
    op.add_argument("--benchmark", required=True, help="cnn, rnn or a CSV path")
    op.add_argument("--optimizer", required=True, help=f"one of {', '.join(_optimizer_names())}")
    op.add_argument("--seed", type=_whole("--seed", 0), required=True)
    op.add_argument("--iterations", type=_count("--iterations"),
                    help="tests in total, initial design included (default 44; nephele, lynceus, cherrypick: "
                         "until the budget is spent)")
    op.add_argument("--beta", type=_fraction("--beta"), help="filter fraction (model-based optimisers; default 0.1)")
    op.add_argument("--filter", help="override the filter: cea, random, none, direct, cmaes")
    op.add_argument("--max-cost", type=_positive("--max-cost"), help="USD (default: the benchmark's)")
    op.add_argument("--max-time", type=_positive("--max-time"), help="seconds")
    _add_problem_options(op)
    op.add_argument("--json", action="store_true")
    op.set_defaults(func=cmd_optimize)

    ru = sub.add_parser("runs", help="run a grid of benchmarks x optimisers x seeds (stored, resumable)")
    ru.add_argument("--profile", choices=list(_profile_names()))
    ru.add_argument("--study", choices=["fig1", "fabulinus"],
                    help="with --profile: TrimTuner Figs 1-2 (default) or thesis ch. 7 (Fabulinus, Figs 7.1-7.2)")
    ru.add_argument("--benchmarks", nargs="+")
    ru.add_argument("--optimizers", nargs="+")
    ru.add_argument("--seeds", nargs="+", type=_whole("--seed", 0))
    ru.add_argument("--iterations", type=_count("--iterations"),
                    help="tests per run (default 44; the budgeted optimisers run until the budget is spent)")
    ru.add_argument("--max-cost", type=_positive("--max-cost"), help="USD (default: the benchmark's)")
    ru.add_argument("--max-time", type=_positive("--max-time"), help="seconds")
    _add_problem_options(ru)
    ru.add_argument("--runs-dir", help="default: runs/")
    ru.add_argument("--jobs", type=_integer("--jobs"), default=1,
                    help="parallel workers, at most the CPUs (-1: all CPUs, -2: all but one)")
    ru.add_argument("--backend", choices=["loky", "sequential", "dask"], default="loky")
    ru.add_argument("--scheduler", help="dask scheduler address (default: a local cluster)")
    ru.add_argument("--lock-timeout", type=_positive("--lock-timeout"), metavar="SECONDS",
                    help="wait at most this long for a run another process is computing (default: until it ends)")
    ru.add_argument("--report", action="store_true",
                    help="run nothing: report how the stored runs' wall time splits by optimiser")
    ru.add_argument("--json", action="store_true", help="print the wall-time report as JSON")
    ru.set_defaults(func=cmd_runs)

    sm = sub.add_parser("summary", help="the paper-vs-workbook table collected from figures/summary_*.csv")
    sm.add_argument("--figures", help="figures folder (default figures/)")
    sm.add_argument("--grep", help="keep rows whose item or source matches this regular expression")
    sm.add_argument("--markdown", action="store_true")
    sm.set_defaults(func=cmd_summary)

    _add_bench_parser(sub)
    for extra in _EXTRA_COMMANDS:
        extra(sub)
    _add_option_help(p)
    return p


#: Hooks for commands added by later modules: functions (subparsers) -> None.
_EXTRA_COMMANDS: list = []


def main(argv: list[str] | None = None) -> int:
    parser = _parser_for(sys.argv[1:] if argv is None else argv)
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 0
    from tt_core.data.benchmarks import BenchmarkError  # after parsing: `tt --help` needs no pandas
    import signal
    import warnings

    def on_term(signum, frame):  # a TERM ends the command like Ctrl-C: workers are shut down with it
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGTERM, on_term)
    shown = warnings.showwarning
    warnings.showwarning = lambda message, category, *a, **k: print(f"tt: warning: {message}", file=sys.stderr)
    try:
        return int(args.func(args) or 0)
    except (BenchmarkError, ValueError) as exc:
        print(f"tt: error: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:
        print(f"tt: error: {_os_error(exc)}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        stored = " (finished runs are stored; run the same command again to resume)" if args.command == "runs" else ""
        print(f"tt: interrupted{stored}", file=sys.stderr)
        return 130
    except Exception as exc:  # pyarrow's errors for a corrupt file, and the like: one line, never a traceback
        if type(exc).__module__.startswith("pyarrow"):
            print(f"tt: error: {exc} (a corrupt results file? delete it and run again)", file=sys.stderr)
            return 2
        raise
    finally:
        signal.signal(signal.SIGTERM, previous)
        warnings.showwarning = shown


def _os_error(exc: OSError) -> str:
    """One line for an operating-system error: what failed, on which path, and what to do."""
    import errno

    where = f" {exc.filename}" if exc.filename else ""
    what = exc.strerror or str(exc)
    hint = {
        errno.EACCES: "check the permissions of the file or folder, or choose another",
        errno.EPERM: "check the permissions of the file or folder, or choose another",
        errno.EROFS: "the file system is read-only: choose another folder (e.g. --runs-dir)",
        errno.ENOSPC: "the disk is full: free some space",
        errno.ENOTDIR: "a file stands where a folder is needed: give a folder",
        errno.EISDIR: "a folder stands where a file is needed: move or delete it",
        errno.EEXIST: "a file stands where a folder is needed: give a folder",
        errno.ENOENT: "check the path",
    }.get(exc.errno, "check the path and try again")
    return f"{what}:{where} ({hint})"


# ------------------------------------------------------------------------------------------------
# Command line: tt spot (SpotTune simulation) and tt bench spot
# ------------------------------------------------------------------------------------------------
SPOT_KEYS = ("approach", "cost", "charged", "refunded", "jct_s", "completion_s", "pcr", "steps_total", "steps_free", "top1", "top3")


def cmd_spot_simulate(args) -> int:
    from tt_core.spot import grids as G, market as M, simulator as S

    js = G.resolve_job_set(args.workload, args.reference_hours, args.parallel_fraction, args.model_mb)
    trace = M.market(args.prices, seed=args.seed, days=args.market_days, resampling=args.resampling)
    from tt_core.spot.history import check_rules

    check_rules(trace, args.billing)            # a post-2017 history: aws-today rules only
    st = S.Settings(rules=args.billing, predictor=args.predictor, k=args.k, fit_days=args.fit_days)
    aps = [S.single("r4.large", "single-cheapest"), S.single("m4.4xlarge", "single-fastest"), S.spottune(1.0)]
    if args.theta < 1:
        aps.append(S.spottune(args.theta))
    results = S.compare(js, trace, aps, st, args.seed)
    main = results[-1].summary
    rows = [{k: r.summary[k] for k in SPOT_KEYS} for r in results]
    out = {**{k: main[k] for k in SPOT_KEYS}, "theta": args.theta, "workload": js.name, "billing": main["rules"],
           "prices": trace.label, "synthetic_prices": trace.synthetic, "seed": args.seed,
           "free_step_share": main["free_step_share"], "approaches": rows}
    if args.json:
        print(json.dumps(_jsonable(out), indent=2))
        return 0
    print(f"{js.name}: {len(js)} settings, {trace.label}, billing {main['rules']}, seed {args.seed}"
          + (" (SYNTHETIC prices)" if trace.synthetic else ""))
    print(f"{'approach':<16}{'cost $':>10}{'refunded $':>12}{'JCT h':>9}{'PCR':>9}{'steps':>8}{'free':>8}  top1 top3")
    for r in rows:
        pcr = f"{r['pcr']:.3f}" if r["pcr"] is not None else "-"
        print(f"{r['approach']:<16}{r['cost']:>10.3f}{r['refunded']:>12.3f}{r['jct_s'] / 3600:>9.2f}{pcr:>9}"
              f"{r['steps_total']:>8}{r['steps_free']:>8}  {str(r['top1']):<6}{r['top3']}")
    return 0


def cmd_spot_data_list(args) -> int:
    from tt_core.spot import curves as C, grids as G, market as M

    trace = M.trace_available()
    rows = [{"data": "2017 spot price trace (AWS Spot Pricing Market, us-east-1.csv)",
             "status": "found" if trace else "missing (not downloaded: license unstated; the synthetic market is used)",
             "path": str(trace or "")}]
    groups = G.workload_names()
    tt = [g for g in groups if not g.startswith("sklearn/")]
    rows.append({"data": f"TrimTuner learning curves: {len(tt)} job sets", "status": "found" if tt else "missing",
                 "path": ", ".join(tt[:3]) + (" ..." if len(tt) > 3 else "")})
    cached = sorted(p.name for p in C.cache_root().glob("*.csv")) if C.cache_root().is_dir() else []
    rows.append({"data": f"scikit-learn learning curves ({', '.join(C.ALGORITHMS)})",
                 "status": f"{len(cached)} cached file(s)" if cached else "not generated yet (tt spot curves)",
                 "path": str(C.cache_root())})
    if args.json:
        print(json.dumps({"data": rows, "workloads": groups}, indent=2))
        return 0
    for r in rows:
        print(f"{r['data']}\n    {r['status']}  {r['path']}")
    print("\nWorkloads for tt spot simulate --workload: " + ", ".join(groups) + ", or a job-set CSV path")
    return 0


def cmd_spot_curves(args) -> int:
    import time

    from tt_core.experiments import usable_jobs
    from tt_core.spot import curves as C

    usable_jobs(args.jobs)  # more workers than CPUs: refused before any starts
    c0 = time.process_time()
    tables = C.generate(args.algorithms or C.ALGORITHMS, args.profile, args.seed, progress=True, n_jobs=args.jobs,
                        force=args.force)
    for name, df in tables.items():
        print(f"{name}: {df['setting'].nunique()} settings x {int(df.groupby('setting').size().max())} steps -> "
              f"{C.cache_path(name, args.profile, args.seed)}")
    print(f"{time.process_time() - c0:.1f} s CPU in this process")
    return 0


def _nonneg(name):
    def parse(text):
        try:
            v = float(text)
        except ValueError:
            v = float("nan")
        if not (v >= 0 and math.isfinite(v)):
            raise argparse.ArgumentTypeError(f"{name} takes numbers >= 0, got {shown(text)}")
        return v
    return parse


def cmd_spot_sensitivity(args) -> int:
    """``tt spot sensitivity``: SpotTune (θ 1 and 0.7) vs both single-spot baselines as the bid rule and the
    parallel fraction change one at a time; means over workloads with seed intervals."""
    import json

    from tt_core.data.io import write_csv
    from tt_core.experiments.profiles import settings as profile_settings
    from tt_core.spot import sensitivity as SEN

    bids = [SEN.check_bid(b) for b in (args.bids or SEN.SENSITIVITY_BIDS)]
    fractions = args.fractions or list(SEN.SENSITIVITY_FRACTIONS)
    cfg = profile_settings(args.profile, "spottune")
    seeds = list(range(1, args.seeds + 1)) if args.seeds else cfg["seeds"]
    sweep = SEN.sensitivity(cfg, seeds, bids, fractions, prices=args.prices, progress=not args.json,
                          startups=SEN.SENSITIVITY_STARTUPS if args.startups is None else args.startups,
                          model_sizes=SEN.SENSITIVITY_MODEL_MB if args.model_mb is None else args.model_mb)
    table = SEN.sensitivity_table(sweep, rng=__import__("numpy").random.default_rng(args.seed))
    if args.out:
        write_csv(table, args.out)
    if args.json:
        print(json.dumps({"table": table.to_dict("records"), "paper": SEN.paper_on_sweep(table).to_dict("records")},
                         default=float))
        return 0
    cols = ["axis", "setting", "approach", "cost_vs_cheapest", "cost_vs_fastest", "jct_vs_cheapest", "jct_vs_fastest",
            "pcr_vs_cheapest", "pcr_vs_fastest", "steps_free"]
    print(table[cols].round(3).to_string(index=False))
    print(f"\n{table['method'].iloc[0]}; means over workloads. Where the paper's numbers fall:")
    print(SEN.paper_on_sweep(table).to_string(index=False))
    for key in ("st07_cheapest", "st1_cheaper_than_cheapest", "jct_between_baselines", "pcr_st07_highest",
                "pcr_st1_above_singles"):
        print(f"{key}: {SEN.holds_text(table, key)}")
    return 0


def cmd_bench_spot(args) -> int:
    from tt_core.experiments.profiles import settings as profile_settings
    from tt_core.spot import timing as TM

    cfg = profile_settings(args.profile, "spottune")
    res = TM.bench_fig7(cfg, prices=args.prices, repeats=args.repeats)
    print(f"Fig. 7 grid, {args.profile} profile: {res['job_sets']} job sets x {res['seeds']} seeds x 4 approaches = "
          f"{res['simulations']} simulations")
    print(f"{res['cpu_s']:.1f} s CPU, {res['wall_s']:.1f} s wall (median of {args.repeats}); "
          f"{res['cpu_s_per_simulation'] * 1000:.0f} ms CPU per simulation")
    return 0


def cmd_spot_predictors(args) -> int:
    """``tt spot predictors``: Fig. 10 (a, b) on the command line: fit on the first days, score on the next
    (a real trace: the paper's calendar split, train 2017-04-26 to 05-04, test 05-05 to 05-07)."""
    from tt_core.experiments.profiles import settings as profile_settings
    from tt_core.spot import market as M, revpred as RP, revpred_study as RS

    cfg = profile_settings(args.profile, "revpred")
    train_cfg = {}
    if args.delta is not None:
        lo, hi = args.delta
        if not (0 < lo < hi and math.isfinite(hi)):
            raise ValueError(f"--delta LO HI needs 0 < LO < HI (USD per hour, finite), got {lo:g} {hi:g}")
        train_cfg["delta"] = [lo, hi]
    fit_days, test_days = args.fit_days or 9.0, args.test_days or 3.0
    cfg.update({"fit_days": fit_days, "test_days": test_days, "seed": args.seed, "types": args.types})
    if args.epochs is not None:
        cfg["epochs"] = args.epochs
    trace = M.market(args.prices, seed=args.seed, days=cfg["market_days"], resampling=args.resampling)
    RP.check_history(trace.n_minutes)
    if not trace.synthetic and (args.fit_days or args.test_days):
        raise ValueError("--fit-days and --test-days apply to synthetic prices; a real trace is split as the paper "
                         "(train 2017-04-26 to 2017-05-04, test 2017-05-05 to 2017-05-07, UTC)")
    trace = RS.fig10_trace(trace)
    if args.types:
        trace = trace.subset(args.types)
    if trace.synthetic and (fit_days + test_days) * 86400 > trace.duration_s:
        raise ValueError(f"--fit-days {fit_days:g} + --test-days {test_days:g} exceed the trace "
                         f"({trace.duration_s / 86400:.2f} days): choose fewer days")
    fit_end, test_end = RS.fig10_split(trace, cfg)
    # --delta changes the training maximum prices only; the test ones keep the profile's range
    preds = RS.fig10_predictors(trace, {**cfg, **train_cfg}, names=args.predictors)
    scores = RS.fig10_scores(trace, preds, cfg, bids=(args.bids,))
    fits = RS.fit_table(preds)
    train_delta = list(train_cfg.get("delta", cfg["delta"]))
    if args.json:
        print(json.dumps(_jsonable({"prices": trace.label, "synthetic_prices": trace.synthetic, "bids": args.bids,
                                    "fit_minutes": int(fit_end // 60), "test_minutes": int((test_end - fit_end) // 60),
                                    "train_delta": train_delta, "test_delta": list(cfg["delta"]),
                                    "scores": scores.to_dict("records"), "fits": fits.to_dict("records")}), indent=2))
        return 0
    when = (f"fit on the first {fit_days:g} days, tested on the next {test_days:g}" if trace.synthetic else
            f"fit from {trace.start:%Y-%m-%d %H:%M} to 2017-05-05 00:00, tested to 2017-05-08 00:00 UTC (the paper's split)")
    print(f"{trace.label}: {when} ({args.bids} maximum prices; Tributary trained with deltas in "
          f"[{train_delta[0]:g}, {train_delta[1]:g}] USD/h)" + (" (SYNTHETIC prices)" if trace.synthetic else ""))
    print(scores[["type", "predictor", "samples", "positive_rate", "accuracy", "f1"]].to_string(index=False,
                                                                                             float_format="%.3f"))
    if len(fits):
        print(f"LSTM training: {fits['cpu_s'].sum():.1f} s CPU ({int(fits['cached'].sum())} of {len(fits)} networks "
              "from the weight cache)")
    return 0


def cmd_bench_revpred(args) -> int:
    from tt_core.experiments.profiles import settings as profile_settings
    from tt_core.spot import timing as TM

    cfg = profile_settings(args.profile, "revpred")
    df = TM.bench_revpred(cfg, prices=args.prices, name=args.type)
    print(f"RevPred / Tributary LSTMs, {args.profile} profile ({cfg['hidden']} units, {cfg['epochs']} epochs, "
          f"a sample every {cfg['stride']} minute(s), {cfg['threads']} thread(s)), type {df['type'].iloc[0]}:")
    for r in df.itertuples():
        print(f"  {r.model:<10} train {r.train_cpu_s:6.1f} s CPU for {r.samples} windows x {r.epochs} epochs = "
              f"{r.train_cpu_s_per_1000_windows_epoch:.3f} s per 1000 windows per epoch; inference "
              f"{r.infer_cpu_s_per_1000_windows:.3f} s per 1000 windows (batched), {r.single_query_cpu_ms:.2f} ms "
              "per single query")
    return 0


def _add_spot_parser(sub) -> None:
    if _light("spot"):
        return _light_command(sub, "spot")
    from tt_core.spot import curves as C
    from tt_core.spot.rules import RULES

    sp = sub.add_parser("spot", help="SpotTune: simulate hyper-parameter tuning on spot instances")
    ssub = sp.add_subparsers(dest="spot_command", metavar="ACTION")
    si = ssub.add_parser("simulate", help="SpotTune vs the Single-Spot baselines on one job set",
                         description="Simulate SpotTune (theta and 1.0) and Single-Spot Tune (cheapest r4.large, "
                                     "fastest m4.4xlarge) on one job set over a price trace.")
    si.add_argument("--workload", required=True,
                    help="a TrimTuner group (cnn/t2.small-x8), sklearn/<algorithm>, or a job-set CSV "
                         "(setting, step, metric, seconds); see `tt spot data list`")
    si.add_argument("--prices", default="synthetic",
                    help="synthetic (seeded 2017-style market), synthetic-today, synthetic-persistent (with memory), real (the located 2017 trace), a path to it, or a post-2017 history .tsv (aws-spot-price-history format, with --billing aws-today)")
    si.add_argument("--billing", choices=list(RULES), default="paper")
    si.add_argument("--theta", type=_fraction("--theta"), default=0.7, help="early-shutdown fraction in (0, 1]")
    si.add_argument("--k", type=_count("--k"), default=3, help="settings trained to the end (top-k)")
    si.add_argument("--seed", type=_whole("--seed", 0), default=1)
    si.add_argument("--predictor", choices=["logistic", "empirical", "revpred", "tributary"], default="logistic",
                    help="revocation predictor (revpred, tributary: LSTMs with default settings, weights cached)")
    si.add_argument("--reference-hours", type=_within("--reference-hours", 1 / 60, 24 * 365, "hours"),
                    help="median job's hours on r4.large (default 4 for the substituted workloads; a job-set CSV "
                         "keeps its own step times unless given)")
    si.add_argument("--parallel-fraction", type=_fraction("--parallel-fraction"), default=0.9,
                    help="Amdahl's parallel fraction of the speed model, in (0, 1]")
    si.add_argument("--model-mb", type=_within("--model-mb", 0, 1e6, "MB", low_open=False), default=100.0,
                    help="model size for checkpoints (MB)")
    si.add_argument("--market-days", type=_positive("--market-days"), default=30.0, help="length of a synthetic market")
    si.add_argument("--fit-days", type=_positive("--fit-days"), default=9.0, help="days of prices the predictor learns from")
    si.add_argument("--resampling", choices=["ffill", "interpolate"], default="ffill", help="for a real trace")
    si.add_argument("--json", action="store_true")
    si.set_defaults(func=cmd_spot_simulate)
    dl = ssub.add_parser("data", help="price trace, learning curves and workloads: where they are")
    dsub = dl.add_subparsers(dest="spot_data_command", metavar="ACTION")
    dll = dsub.add_parser("list", help="what SpotTune data were found")
    dll.add_argument("--json", action="store_true")
    dll.set_defaults(func=cmd_spot_data_list)
    dl.set_defaults(func=lambda a: (dl.print_help(), 0)[1])
    cu = ssub.add_parser("curves", help="train the scikit-learn models and cache their learning curves")
    cu.add_argument("--algorithms", nargs="+", choices=list(C.ALGORITHMS))
    cu.add_argument("--profile", choices=list(C.SIZES), default="quick", help="quick: seconds; full: minutes")
    cu.add_argument("--seed", type=_whole("--seed", 0), default=1)
    cu.add_argument("--jobs", type=_count("--jobs"), default=1, help="parallel workers, at most the CPUs")
    cu.add_argument("--force", action="store_true", help="train again even if cached")
    cu.set_defaults(func=cmd_spot_curves)
    pr = ssub.add_parser("predictors", help="Fig. 10 (a, b): accuracy and F1 of the revocation predictors",
                         description="Fit RevPred, Tributary's predictor and the logistic regression on the first "
                                     "--fit-days of a price trace and score them on the next --test-days (a "
                                     "real trace: the paper's split, train 2017-04-26 to 05-04, test 05-05 to "
                                     "05-07, UTC).")
    pr.add_argument("--prices", default="synthetic", help="synthetic, real (the located 2017 trace) or a path")
    pr.add_argument("--seed", type=_whole("--seed", 0), default=1, help="market, weights and maximum prices")
    pr.add_argument("--predictors", nargs="+", choices=["revpred", "tributary", "logistic", "empirical"],
                    default=["revpred", "tributary", "logistic"])
    pr.add_argument("--profile", choices=list(_profile_names()), default="quick", help="the LSTMs' training settings")
    pr.add_argument("--epochs", type=_count("--epochs"), help="override the profile's epochs")
    pr.add_argument("--types", nargs="+", help="instance types (default: all in the trace)")
    pr.add_argument("--fit-days", type=_positive("--fit-days"),
                    help="synthetic prices: days to fit on (default 9; a real trace: the paper's dates)")
    pr.add_argument("--test-days", type=_positive("--test-days"),
                    help="synthetic prices: days to test on after them (default 3)")
    pr.add_argument("--delta", nargs=2, type=float, metavar=("LO", "HI"),
                    help="Tributary's training maximum price: present price + a delta uniform in [LO, HI] USD/h, "
                         "0 < LO < HI (default: the profile's, the paper's 0.00001 0.2); test prices keep the profile's")
    pr.add_argument("--bids", choices=["random", "algorithm2"], default="random",
                    help="test maximum prices: random delta (the paper's inference) or Alg. 2")
    pr.add_argument("--resampling", choices=["ffill", "interpolate"], default="ffill", help="for a real trace")
    pr.add_argument("--json", action="store_true")
    pr.set_defaults(func=cmd_spot_predictors)
    se = ssub.add_parser("sensitivity", help="the unstated settings swept: bid rule, parallel fraction, start-up, "
                                             "model size",
                         description="SpotTune (theta 1 and 0.7) against both single-spot baselines as one setting "
                                     "changes at a time, the others at the profile's values: the bid rule, Amdahl's "
                                     "parallel fraction, the start-up time and the model size. Cost, JCT and PCR "
                                     "ratios and the share of free steps, means over workloads with 95% seed "
                                     "intervals.")
    se.add_argument("--profile", choices=list(_profile_names()), default="quick", help="job sets, seeds, settings")
    se.add_argument("--prices", default="synthetic", help="synthetic, real (the located 2017 trace) or a path")
    se.add_argument("--seeds", type=_count("--seeds"), help="number of market seeds (default: the profile's)")
    se.add_argument("--bids", nargs="+", metavar="BID",
                    help="bid rules: relative margins >= 0 (0.05 = 5%% above the price), algorithm2, tributary "
                         "(default: 0 0.05 algorithm2 0.25 tributary)")
    se.add_argument("--fractions", nargs="+", type=_fraction("--fractions"), metavar="F",
                    help="parallel fractions in (0, 1] (default: 0.5 0.7 0.9 0.95)")
    se.add_argument("--startups", nargs="*", type=_nonneg("--startups"), metavar="S",
                    help="start-up times in seconds (default: 0 60 300; none: leave the axis out)")
    se.add_argument("--model-mb", nargs="*", type=_nonneg("--model-mb"), metavar="MB",
                    help="model sizes in MB (default: 100 1024 5120; none: leave the axis out)")
    se.add_argument("--seed", type=_whole("--seed", 0), default=0, help="the bootstrap's random stream")
    se.add_argument("--out", help="write the table to this CSV")
    se.add_argument("--json", action="store_true")
    se.set_defaults(func=cmd_spot_sensitivity)
    sp.set_defaults(func=lambda a: (sp.print_help(), 0)[1])


def _add_bench_spot(sub) -> None:
    if _light("bench"):  # `bench` is a name-only stub
        return
    bench = sub.choices["bench"]
    bsub = next(a for a in bench._actions if isinstance(a, argparse._SubParsersAction))
    bs = bsub.add_parser("spot", help="simulation time of a whole SpotTune Fig. 7 grid (CPU and wall seconds)")
    bs.add_argument("--profile", choices=list(_profile_names()), default="quick")
    bs.add_argument("--prices", default="synthetic")
    bs.add_argument("--repeats", type=_count("--repeats"), default=1)
    bs.set_defaults(func=cmd_bench_spot)
    br = bsub.add_parser("revpred", help="CPU time of the LSTMs: training and inference per 1000 windows")
    br.add_argument("--profile", choices=list(_profile_names()), default="quick")
    br.add_argument("--prices", default="synthetic")
    br.add_argument("--type", help="instance type (default: the trace's first)")
    br.set_defaults(func=cmd_bench_revpred)


_EXTRA_COMMANDS += [_add_spot_parser, _add_bench_spot]
_EXTRA_COMMANDS.append(lambda sub: __import__("tt_core.reporting.docs", fromlist=["add_parser"]).add_parser(sub))


# ------------------------------------------------------------------------------------------------
# Help: version, examples, every option explained; a light parser for `tt --help` / `tt --version`
# ------------------------------------------------------------------------------------------------
#: While a parser is built for one command (``tt data list``) or for none (``tt --help``, ``tt --version``):
#: that command's name ("" for none); the other commands' options that need heavy imports (pandas, scipy,
#: the optimisers) are left out or listed by name only (:func:`_light_command`). None: build everything.
_ONLY: str | None = None


def _light(*commands: str) -> bool:
    """Whether the parser being built can leave out what only ``commands`` need."""
    return _ONLY is not None and _ONLY not in commands

#: The help line of the commands the light parser adds by name only (tests check it equals the full one).
_LIGHT_HELP = {"bench": "benchmarks of the workbook's own computations",
               "spot": "SpotTune: simulate hyper-parameter tuning on spot instances",
               "authors": "run the TrimTuner authors' public code (their TrimTuner-DT) as an oracle"}


def _light_command(sub, name: str):
    return sub.add_parser(name, help=_LIGHT_HELP[name])


def _parser_for(argv: list[str]) -> argparse.ArgumentParser:
    """The parser for this command line: complete for the command named (the first word that is not an
    option), the other commands listed by name and help; with no command (``tt --help``, ``tt --version``)
    start-up imports neither pandas, scipy nor scikit-learn."""
    global _ONLY
    _ONLY = next((a for a in argv if not a.startswith("-")), "")
    try:
        return build_parser()
    finally:
        _ONLY = None


def _version() -> str:
    try:
        from importlib.metadata import version

        return version("tt-core")
    except Exception:  # not installed (PYTHONPATH): the package's own
        from tt_core import __version__

        return __version__


_TOP_EXAMPLES = """examples:
  tt data list                                             # where the measurements were found
  tt optimize --benchmark rnn --optimizer trimtuner-dt --seed 2
  tt runs --benchmarks rnn --optimizers eic random --seeds 1 2 3 --jobs 2
  tt reproduce --profile quick                             # every notebook -> reports/quick/index.html
  tt summary --grep "Table II"                             # paper-vs-workbook rows

Run `tt COMMAND --help` for a command's options and examples. Terms: docs/glossary.md."""

#: Examples shown under each command's --help.
_EXAMPLES = {
    "data list": "tt data list\n  tt data list --json",
    "data fetch": "tt data fetch            # both public benchmarks (nothing downloaded if present)\n"
                  "  tt data fetch rnn --force",
    "feasibility": "tt feasibility --benchmark cnn --max-cost 0.10\n"
                   "  tt feasibility --benchmark rnn --variant thesis --json",
    "subsampling-gain": "tt subsampling-gain --benchmark cnn --min-accuracy 0.85 --max-time 300",
    "reproduce": "tt reproduce --profile quick\n  tt reproduce --profile paper --only 03 05   # in parts, same folder",
    "optimize": "tt optimize --benchmark rnn --optimizer trimtuner-dt --seed 2\n"
                "  tt optimize --benchmark cnn --optimizer eic --seed 1 --max-cost 0.05 --iterations 20\n"
                "  tt optimize --benchmark rnn --optimizer nephele --seed 1 --min-accuracy 0.85 --max-time 300 --budget 2.5",
    "runs": "tt runs --benchmarks rnn --optimizers eic nephele --seeds 1 2 3 --jobs 2\n"
            "  tt runs --profile quick --jobs 2\n"
            "  tt runs --profile paper --study fabulinus --benchmarks rnn --seeds 1 2\n"
            "  tt runs --profile paper --report            # wall time and scores of stored runs only",
    "summary": "tt summary\n  tt summary --grep 'Fig. 3' --markdown",
    "bench recommend": "tt bench recommend --quick\n  tt bench recommend --settings trimtuner-dt:cea:10% trimtuner-gp",
    "spot simulate": "tt spot simulate --workload cnn/t2.small-x8 --prices synthetic --billing paper --theta 0.7 --seed 1",
    "spot predictors": "tt spot predictors --prices synthetic --seed 1",
}

#: Help of options defined without one: (command, option) -> text.
_OPTION_HELP = {
    "--json": "print machine-readable JSON instead of a table",
    "--markdown": "print the rows as a GitHub markdown table",
    ("feasibility", "--min-accuracy"): "thesis variant: the accuracy a configuration needs (default 0.85)",
    ("subsampling-gain", "--min-accuracy"): "accuracy a configuration needs (default 0.85, thesis §6.2)",
    ("reproduce", "--profile"): "quick (minutes, fewer seeds) or paper (the papers' settings, hours); default quick",
    ("optimize", "--seed"): "seed of every random choice of the run (same seed, same run)",
    ("runs", "--profile"): "run a profile's grid (quick or paper); narrow it with --benchmarks/--optimizers/--seeds",
    ("runs", "--benchmarks"): "networks (cnn, rnn) or CSV paths",
    ("runs", "--optimizers"): "optimiser names (see `tt optimize --help`)",
    ("runs", "--seeds"): "seeds, one run per seed",
    ("runs", "--backend"): "how runs are spread: loky processes (default), sequential, or a dask cluster",
    ("bench acquisition", "--benchmark"): "cnn, rnn or a CSV path (default rnn)",
    ("bench acquisition", "--repeats"): "timed recommendations per state (default 3)",
    ("bench acquisition", "--seeds"): "seeds of the states (default 1)",
    ("bench acquisition", "--out"): "CSV of every measurement",
    ("bench spot", "--profile"): "the grid's settings (default quick)",
    ("bench spot", "--prices"): "synthetic (default), real or a path",
    ("bench spot", "--repeats"): "timed repetitions; the median is printed (default 1)",
    ("bench revpred", "--profile"): "the LSTMs' training settings (default quick)",
    ("bench revpred", "--prices"): "synthetic (default), real or a path",
    ("spot simulate", "--billing"): "billing and revocation rules: paper, aws-2017 or aws-today (default paper)",
    ("spot simulate", "--seed"): "seed of the prices, revocations and model (default 1)",
    ("spot curves", "--algorithms"): "scikit-learn models to train (default: all)",
    ("spot curves", "--seed"): "seed of the training (default 1)",
    ("spot predictors", "--predictors"): "which predictors to fit and score (default revpred tributary logistic)",
}


def _add_version_and_examples(p: argparse.ArgumentParser) -> None:
    p.formatter_class = argparse.RawDescriptionHelpFormatter
    p.epilog = _TOP_EXAMPLES
    p.add_argument("--version", action="version", version=f"tt (TrimTuner Workbook) {_version()}")


def _add_option_help(p: argparse.ArgumentParser, path: tuple[str, ...] = ()) -> None:
    """Fill in the help of options defined without one (:data:`_OPTION_HELP`) and each command's
    examples (:data:`_EXAMPLES`), recursively."""
    command = " ".join(path)
    if command in _EXAMPLES and not p.epilog:
        p.formatter_class = argparse.RawDescriptionHelpFormatter
        p.epilog = "examples:\n  " + _EXAMPLES[command]
    for action in p._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, child in action.choices.items():
                _add_option_help(child, path + (name,))
        elif not action.help and action.option_strings:
            opt = max(action.option_strings, key=len)
            action.help = _OPTION_HELP.get((command, opt)) or _OPTION_HELP.get(opt)



# ------------------------------------------------------------------------------------------------
# Command line: tt authors run (the TrimTuner authors' public code, run as an oracle)
# ------------------------------------------------------------------------------------------------
def cmd_authors_run(args) -> int:
    from tt_core.experiments import authors as A

    res = A.run_authors(args.benchmark, args.seed, beta=args.beta, filter=args.filter, residue=args.residue,
                        iterations=args.iterations, dh_seed=args.dh_seed, verbose=args.verbose)
    res["summary"] = A.summary(res)
    if args.store:
        from tt_core.experiments.authors_store import store_run

        res["stored"] = str(store_run(res, args.runs_dir))
    if args.json:
        print(json.dumps(_jsonable(res), indent=2))
        return 0
    s = res["summary"]
    print(f"authors' TrimTuner-DT ({res['code']}), {res['benchmark']}, seed {res['seed']}, filter {res['filter']} "
          f"beta {res['beta']:g}, dH residue {res['residue']}: {len(res['tests'])} tests in {res['wall_s']:.1f} s")
    for k, t in enumerate(res["tests"], start=1):
        print(f"  {k:>3} x={t['x']} size {t['size']:>5}  accuracy {t['accuracy']:.4f}  cost ${t['cost']:.5f}")
    print(f"BO tests: mean size fraction {s['mean_size_fraction']:.3f}, {100 * s['share_at_1_60']:.0f}% at 1/60, "
          f"${s['cost_per_bo_test']:.4f} per test; final Accuracy_C {s['final_accuracy_c']:.3f}; dH constant across "
          f"candidates in every step: {s['dh_constant_in_every_step']}" + (f"; stored {res['stored']}"
                                                                            if args.store else ""))
    return 0


def _add_authors_parser(sub) -> None:
    if _light("authors"):  # tt --help: listed by name, without importing the oracle (numpy, pandas)
        _light_command(sub, "authors")
        return
    from tt_core.experiments import authors as A

    au = sub.add_parser("authors", help=_LIGHT_HELP["authors"])
    asub = au.add_subparsers(dest="authors_command", metavar="ACTION")
    ar = asub.add_parser("run", help="one run of their TrimTuner-DT, unmodified, in .venv-authors",
                         description="Runs the authors' decision-tree TrimTuner (../shared/authors_code) in its own "
                                     "pinned environment (.venv-authors, created on first use). Their tree model makes "
                                     "the entropy-search value dH the same for every candidate; --residue says what "
                                     "that value is: exact (their code as is, minutes per BO step), zero, pos, neg, "
                                     "empirical (drawn from the values of an exact run).")
    ar.add_argument("--benchmark", required=True, help="rnn or cnn")
    ar.add_argument("--seed", type=_whole("--seed", 1), required=True, help="the authors' seed (1 to 1000000)")
    ar.add_argument("--beta", type=float, default=0.1, help="fraction kept by the CEA filter (default 0.1)")
    ar.add_argument("--filter", default="cea", help="cea (default) or nofilter")
    ar.add_argument("--residue", default="empirical", help=f"one of {', '.join(A.RESIDUES)} (default empirical)")
    ar.add_argument("--iterations", type=_count("--iterations"), default=44, help="tests in total (default 44)")
    ar.add_argument("--dh-seed", type=_whole("--dh-seed", 0), default=0,
                    help="empirical only: 0 (default) draws as the reference runs did")
    ar.add_argument("--store", action="store_true", help="also store the run in the run store as optimiser authors-dt")
    ar.add_argument("--runs-dir", help="with --store (default: runs/)")
    ar.add_argument("--verbose", action="store_true", help="show the authors' own output")
    ar.add_argument("--json", action="store_true")
    ar.set_defaults(func=cmd_authors_run)
    au.set_defaults(func=lambda a: (au.print_help(), 0)[1])


_EXTRA_COMMANDS += [_add_authors_parser]

if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
