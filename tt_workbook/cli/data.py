"""``tt data list|fetch`` (the measured benchmarks) and the analyses of one benchmark's table:
``tt feasibility`` (TrimTuner Table II, thesis Table 7.1) and ``tt subsampling-gain`` (thesis Table 6.2)."""

from __future__ import annotations

import json

from tt_workbook.cli.common import JSON_HELP, fraction, jsonable, positive, print_result, show_help
from tt_core.data.paper_defaults import THESIS_MAX_TIME, THESIS_MIN_ACCURACY


def add_parsers(sub, only: str | None) -> None:
    """``data``, ``feasibility`` and ``subsampling-gain`` (light: no heavy import at all)."""
    data = sub.add_parser("data", help="list or download the measured benchmarks")
    dsub = data.add_subparsers(dest="data_command", metavar="ACTION")
    dl = dsub.add_parser("list", help="show each benchmark and where it was found",
                         examples="tt data list\n  tt data list --json")
    dl.add_argument("--json", action="store_true", help=JSON_HELP)
    dl.set_defaults(func=cmd_data_list)
    df = dsub.add_parser("fetch", help="download benchmarks (sha256-checked) into the data/ cache",
                         examples="tt data fetch            # both public benchmarks (nothing downloaded if present)\n"
                                  "  tt data fetch rnn --force\n"
                                  "  TT_DATA_URL='file:///srv/mirror/{file}' tt data fetch   # from a mirror")
    df.add_argument("names", nargs="*", help="benchmarks (default: all public ones)")
    df.add_argument("--dest", help="folder to download into (default: the data/ cache)")
    df.add_argument("--force", action="store_true", help="download even if a valid copy exists")
    df.set_defaults(func=cmd_data_fetch)
    lc = dsub.add_parser("lcdb", help="convert one LCDB data set (the lcdb extra) into a benchmark CSV under data/lcdb/",
                         examples="tt data lcdb --openml-id 6\n  tt data lcdb --openml-id 390 --out my_data/")
    lc.add_argument("--openml-id", type=positive("--openml-id"), required=True,
                    help="an OpenML data set id of LCDB (its datasets.csv lists the 248)")
    lc.add_argument("--out", help="folder to write into (default: the data/lcdb/ cache)")
    lc.set_defaults(func=cmd_data_lcdb)
    data.set_defaults(func=show_help(data))

    fe = sub.add_parser("feasibility", help="TrimTuner Table II (or thesis Table 7.1) for one benchmark",
                        examples="tt feasibility --benchmark cnn --max-cost 0.10\n"
                                 "  tt feasibility --benchmark rnn --variant thesis --json")
    fe.add_argument("--benchmark", required=True, help="cnn, rnn or a CSV path")
    fe.add_argument("--max-cost", type=positive("--max-cost"), help="USD (default: the benchmark's)")
    fe.add_argument("--variant", choices=["trimtuner", "thesis"], default="trimtuner",
                    help="trimtuner: high accuracy = within 5%% of the best feasible; thesis: accuracy >= --min-accuracy")
    fe.add_argument("--min-accuracy", type=fraction("--min-accuracy"), help="--variant thesis only (default 0.85)")
    fe.add_argument("--json", action="store_true", help=JSON_HELP)
    fe.set_defaults(func=cmd_feasibility)

    sg = sub.add_parser("subsampling-gain", help="thesis Table 6.2 and Eq. 6.2 for one benchmark",
                        examples="tt subsampling-gain --benchmark cnn --min-accuracy 0.85 --max-time 300")
    sg.add_argument("--benchmark", required=True, help="cnn, rnn or a CSV path")
    sg.add_argument("--min-accuracy", type=fraction("--min-accuracy"), default=THESIS_MIN_ACCURACY,
                    help=f"accuracy a configuration needs (default {THESIS_MIN_ACCURACY:g}, thesis §6.2)")
    sg.add_argument("--max-time", type=positive("--max-time"), default=THESIS_MAX_TIME, help="seconds")
    sg.add_argument("--json", action="store_true", help=JSON_HELP)
    sg.set_defaults(func=cmd_subsampling_gain)


def cmd_data_list(args) -> int:
    import os

    from tt_core.data.benchmarks import NO_SHARED_ENV, data_dir_problem, list_benchmarks, search_dirs, shared_data_dir

    df = list_benchmarks()
    if args.json:
        print(json.dumps(jsonable(df.to_dict(orient="records")), indent=2))
        return 0
    dirs = ", ".join(f"{label} ({d})" for label, d in search_dirs())
    env = "" if os.environ.get("TT_DATA_DIR") else "TT_DATA_DIR (unset), "
    print(f"Search order: explicit path, {env}{dirs}")
    if data_dir_problem():
        print(f"Note: {data_dir_problem()}")
    if shared_data_dir() is None:
        print(f"Note: ../shared is left out ({NO_SHARED_ENV} is set)")
    for _, r in df.iterrows():
        print(f"\n{r['benchmark']:<4} {r['description']}\n     {r['status']}  {r['path']}\n     {r['note']}")
    return 0


def cmd_data_fetch(args) -> int:
    import functools
    import sys

    from tt_core.data.benchmarks import REGISTRY, fetch

    names = args.names or [n for n, s in REGISTRY.items() if s.public]
    say = functools.partial(print, file=sys.stderr, flush=True)  # what is downloaded, its size, progress
    for name in names:
        print(fetch_one(name, args.dest, args.force, functools.partial(fetch, say=say)))
    return 0


def cmd_data_lcdb(args) -> int:
    from tt_workbook.studies.outside_data import lcdb

    if args.openml_id != int(args.openml_id):
        raise ValueError(f"--openml-id {args.openml_id:g} must be a whole number (an OpenML data set id, e.g. 6)")
    path = lcdb.convert(int(args.openml_id), args.out)
    meta = lcdb.provenance(path)
    print(f"{path}: {len(meta['learners'])} learners x sizes {meta['sizes']} (lcdb {meta['lcdb_version']}, "
          f"sha256 {meta['sha256'][:16]}..., source sha256 {meta['source_sha256'][:16]}...)"
          + (f"; left out: {sorted(meta['dropped'])}" if meta["dropped"] else ""))
    return 0


def fetch_one(name: str, dest, force: bool, fetch) -> str:
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
    from tt_workbook.studies.feasibility.analysis import feasibility
    from tt_core.data.benchmarks import load_benchmark

    if args.variant == "trimtuner" and args.min_accuracy is not None:
        raise ValueError(f"--min-accuracy {args.min_accuracy:g} applies to --variant thesis only (the trimtuner "
                         "variant's high accuracy is within 5% of the best feasible); drop it or add --variant thesis")
    bench = load_benchmark(args.benchmark)
    kwargs = {"max_cost": args.max_cost, "variant": args.variant}
    if args.variant == "thesis":
        kwargs["min_accuracy"] = 0.85 if args.min_accuracy is None else args.min_accuracy
    print_result(feasibility(bench, **kwargs), args.json)
    return 0


def cmd_subsampling_gain(args) -> int:
    from tt_workbook.studies.nephele.subsampling import subsampling_gain
    from tt_core.data.benchmarks import load_benchmark

    bench = load_benchmark(args.benchmark)
    print_result(subsampling_gain(bench, min_accuracy=args.min_accuracy, max_time=args.max_time), args.json)
    return 0
