"""The ``tt`` command line: data, analyses, reproduction.

Run ``tt --help`` or ``tt COMMAND --help``. Errors are printed as one clear line (exit code 2),
never as a traceback.
"""

from __future__ import annotations

import argparse
import json
import math
import sys

import numpy as np


def _jsonable(obj):
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
            raise argparse.ArgumentTypeError(f"{name} must be a number, got {text!r}") from None
        if not math.isfinite(v) or v <= 0:
            raise argparse.ArgumentTypeError(f"{name} must be a positive number, got {text!r}")
        return v
    return parse


def _fraction(name):
    def parse(text):
        v = _positive(name)(text)
        if v > 1:
            raise argparse.ArgumentTypeError(f"{name} is a fraction in (0, 1], got {text!r}")
        return v
    return parse


# ------------------------------------------------------------------------------------------------
def cmd_data_list(args) -> int:
    from .benchmarks import list_benchmarks, search_dirs

    df = list_benchmarks()
    if args.json:
        print(json.dumps(_jsonable(df.to_dict(orient="records")), indent=2))
        return 0
    import os

    dirs = ", ".join(f"{label} ({d})" for label, d in search_dirs())
    env = "" if os.environ.get("TT_DATA_DIR") else "TT_DATA_DIR (unset), "
    print(f"Search order: explicit path, {env}{dirs}")
    for _, r in df.iterrows():
        print(f"\n{r['benchmark']:<4} {r['description']}\n     {r['status']}  {r['path']}\n     {r['note']}")
    return 0


def cmd_data_fetch(args) -> int:
    from .benchmarks import REGISTRY, fetch

    names = args.names or [n for n, s in REGISTRY.items() if s.public]
    for name in names:
        path = fetch(name, dest=args.dest, force=args.force)
        print(f"{name}: {path} (sha256 verified)")
    return 0


def cmd_feasibility(args) -> int:
    from .analyses.feasibility import feasibility
    from .benchmarks import load_benchmark

    bench = load_benchmark(args.benchmark)
    kwargs = {"max_cost": args.max_cost, "variant": args.variant}
    if args.variant == "thesis":
        kwargs["min_accuracy"] = args.min_accuracy
    _print_result(feasibility(bench, **kwargs), args.json)
    return 0


def cmd_subsampling_gain(args) -> int:
    from .analyses.subsampling import subsampling_gain
    from .benchmarks import load_benchmark

    bench = load_benchmark(args.benchmark)
    _print_result(subsampling_gain(bench, min_accuracy=args.min_accuracy, max_time=args.max_time), args.json)
    return 0


def cmd_reproduce(args) -> int:
    from . import reproduce

    index, results = reproduce.run(
        profile=args.profile, out_dir=args.out, figures_dir=args.figures, only=args.only, smoke=args.smoke,
    )
    failed = [r for r in results if not r.ok]
    print(f"\n{len(results) - len(failed)}/{len(results)} notebooks ran. Report: {index}")
    for r in failed:
        print(f"  FAILED {r.entry.stem}: {r.error.splitlines()[0] if r.error else ''}")
    return 1 if failed else 0


def cmd_optimize(args) -> int:
    from .loop import run_optimization

    traj = run_optimization(
        args.benchmark, args.optimizer, seed=args.seed, iterations=args.iterations, beta=args.beta,
        filter=args.filter, max_cost=args.max_cost, max_time=args.max_time, progress=not args.json,
    )
    if args.json:
        cols = ["iteration", "phase", "config_id", "size", "accuracy", "cost", "time", "cumulative_cost",
                "cumulative_time", "overhead_s", "incumbent", "incumbent_accuracy", "incumbent_cost",
                "accuracy_c", "accuracy_c_thesis"]
        print(json.dumps(_jsonable(traj[cols].to_dict(orient="records")), indent=1))
    else:
        import pandas as pd

        with pd.option_context("display.width", 160, "display.max_rows", 200):
            print(traj[["iteration", "phase", "config_id", "size", "accuracy", "cumulative_cost", "overhead_s",
                        "incumbent", "incumbent_accuracy", "incumbent_cost", "accuracy_c"]].to_string(index=False))
    return 0


def cmd_runs(args) -> int:
    from . import experiments as ex

    if args.profile:
        specs = ex.profile_specs(args.profile, iterations=args.iterations)
    else:
        if not (args.benchmarks and args.optimizers and args.seeds):
            raise ValueError("give --profile, or all of --benchmarks, --optimizers and --seeds")
        specs = ex.grid(args.benchmarks, args.optimizers, args.seeds, iterations=args.iterations)
    runs_dir = args.runs_dir or ex.DEFAULT_RUNS_DIR
    if not args.report:
        paths = ex.run_grid(specs, runs_dir=runs_dir, n_jobs=args.jobs, backend=args.backend, scheduler=args.scheduler)
        print(f"{len(paths)} runs stored under {runs_dir}")
    table, totals = ex.wall_time_report(specs, runs_dir)
    if args.json:
        print(json.dumps(_jsonable({"optimizers": table.reset_index().to_dict(orient="records") if not table.empty else [],
                                    **totals}), indent=1))
    else:
        print(ex.format_wall_time_report(table, totals))
    return 0


def cmd_summary(args) -> int:
    from .benchmarks import PROJECT_DIR
    from .summary import collect, to_markdown

    df = collect(args.figures or PROJECT_DIR / "figures")
    if args.grep:
        df = df[df["item"].str.contains(args.grep, case=False, regex=True) | df["source"].str.contains(args.grep, case=False, regex=True)]
    if df.empty:
        raise ValueError("no paper-vs-workbook rows found; run `tt reproduce` (or a notebook) first")
    print(to_markdown(df) if args.markdown else df.to_string(index=False))
    n = df["agrees"].astype(str)
    print(f"\n{(n == 'True').sum()} agree, {(n == 'False').sum()} differ, {(~n.isin(['True', 'False'])).sum()} reference only",
          file=sys.stderr)
    return 0


# ------------------------------------------------------------------------------------------------
def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="tt", description="TrimTuner Workbook command line")
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
    fe.add_argument("--min-accuracy", type=_fraction("--min-accuracy"), default=0.85)
    fe.add_argument("--json", action="store_true")
    fe.set_defaults(func=cmd_feasibility)

    sg = sub.add_parser("subsampling-gain", help="thesis Table 6.2 and Eq. 6.2 for one benchmark")
    sg.add_argument("--benchmark", required=True, help="cnn, rnn or a CSV path")
    sg.add_argument("--min-accuracy", type=_fraction("--min-accuracy"), default=0.85)
    sg.add_argument("--max-time", type=_positive("--max-time"), default=300.0, help="seconds")
    sg.add_argument("--json", action="store_true")
    sg.set_defaults(func=cmd_subsampling_gain)

    rp = sub.add_parser("reproduce", help="run every notebook with papermill and write an HTML report")
    rp.add_argument("--profile", choices=["quick", "paper"], default="quick")
    rp.add_argument("--out", help="run folder (default reports/<profile>)")
    rp.add_argument("--figures", help="figures folder (default figures/)")
    rp.add_argument("--only", nargs="+", help="notebook prefixes, e.g. 02 08")
    rp.add_argument("--smoke", action="store_true", help="tiny settings (CI)")
    rp.set_defaults(func=cmd_reproduce)

    op = sub.add_parser("optimize", help="run one optimiser on a benchmark and print its trajectory")
    op.add_argument("--benchmark", required=True, help="cnn, rnn or a CSV path")
    op.add_argument("--optimizer", required=True, help="trimtuner-dt, trimtuner-gp, fabolas, eic, eic-usd, random")
    op.add_argument("--seed", type=int, required=True)
    op.add_argument("--iterations", type=int, default=44, help="tests in total, initial design included")
    op.add_argument("--beta", type=_fraction("--beta"), default=0.1)
    op.add_argument("--filter", help="override the filter: cea, random, none, direct, cmaes")
    op.add_argument("--max-cost", type=_positive("--max-cost"), help="USD (default: the benchmark's)")
    op.add_argument("--max-time", type=_positive("--max-time"), help="seconds")
    op.add_argument("--json", action="store_true")
    op.set_defaults(func=cmd_optimize)

    ru = sub.add_parser("runs", help="run a grid of benchmarks x optimisers x seeds (stored, resumable)")
    ru.add_argument("--profile", choices=["quick", "paper"])
    ru.add_argument("--benchmarks", nargs="+")
    ru.add_argument("--optimizers", nargs="+")
    ru.add_argument("--seeds", nargs="+", type=int)
    ru.add_argument("--iterations", type=int, default=44)
    ru.add_argument("--runs-dir", help="default: runs/")
    ru.add_argument("--jobs", type=int, default=1, help="parallel workers (-1: all cores)")
    ru.add_argument("--backend", choices=["loky", "sequential", "dask"], default="loky")
    ru.add_argument("--scheduler", help="dask scheduler address (default: a local cluster)")
    ru.add_argument("--report", action="store_true",
                    help="run nothing: report how the stored runs' wall time splits by optimiser")
    ru.add_argument("--json", action="store_true", help="print the wall-time report as JSON")
    ru.set_defaults(func=cmd_runs)

    sm = sub.add_parser("summary", help="the paper-vs-workbook table collected from figures/summary_*.csv")
    sm.add_argument("--figures", help="figures folder (default figures/)")
    sm.add_argument("--grep", help="keep rows whose item or source matches this regular expression")
    sm.add_argument("--markdown", action="store_true")
    sm.set_defaults(func=cmd_summary)

    from .bench import add_bench_parser

    add_bench_parser(sub)
    for extra in _EXTRA_COMMANDS:
        extra(sub)
    return p


#: Hooks for commands added by later modules: functions (subparsers) -> None.
_EXTRA_COMMANDS: list = []


def main(argv: list[str] | None = None) -> int:
    from .benchmarks import BenchmarkError

    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 0
    try:
        return int(args.func(args) or 0)
    except (BenchmarkError, ValueError) as exc:
        print(f"tt: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("tt: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
