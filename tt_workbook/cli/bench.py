"""``tt bench``: benchmarks of the workbook's own computations: one recommendation's time per optimiser
and filter (TrimTuner Tables III-IV), a SpotTune Fig. 7 grid's simulation time, the LSTMs' CPU time."""

from __future__ import annotations

import json

from tt_workbook.cli.common import JSON_HELP, check_out_file, count, light, profile_names, show_help, whole
from tt_core.data.paper_defaults import TESTS_PER_RUN

HELP = "benchmarks of the workbook's own computations"


def add_parser(sub, only: str | None) -> None:
    """``bench recommend|acquisition|spot|revpred``; for another command, ``bench`` by name only."""
    if light(only, "bench"):  # another command runs: `bench` is listed by name, without its heavy imports
        sub.add_parser("bench", help=HELP)
        return
    from tt_workbook import bench as B
    from tt_workbook.runs.profiles import settings as profile_settings

    quick = profile_settings("quick", "bench")
    profiles = list(profile_names(only))
    bench = sub.add_parser("bench", help=HELP)
    bsub = bench.add_subparsers(dest="bench_command", metavar="ACTION")
    rec = bsub.add_parser(
        "recommend", help="time one recommendation (refit + filter + acquisition) per optimiser and filter",
        description="Time one recommendation (model refit + filter + acquisition) of each setting after n "
                    "observations of a benchmark; print median, IQR, min and max; write every measurement "
                    "and the machine to a CSV. Settings: OPTIMIZER[:FILTER[:BETA]] (e.g. trimtuner-dt:cea:10%%, "
                    f"trimtuner-gp:none) or groups {sorted(B.SETTING_GROUPS)}.",
        examples="tt bench recommend --quick\n  tt bench recommend --settings trimtuner-dt:cea:10% trimtuner-gp",
    )
    rec.add_argument("--benchmark", default="rnn", help="cnn, rnn or a CSV path (default rnn, as Table IV)")
    rec.add_argument("--settings", nargs="+", default=["table3"], help="settings or groups (default table3)")
    rec.add_argument("--n-obs", nargs="+", type=count("--n-obs"), default=None,
                     help=f"observations (default {list(B.DEFAULT_N_OBS)})")
    rec.add_argument("--repeats", type=count("--repeats"), default=None, help="timed recommendations per state (default 3)")
    rec.add_argument("--seeds", nargs="+", type=int, default=None, help="seeds of the states (default 1 2)")
    rec.add_argument("--policy", choices=["random", "own"], default="random",
                     help="observations: seeded random pairs after the initial design, or the optimiser's own")
    rec.add_argument("--out", default="figures/B.bench_recommend.csv", help="CSV of every measurement")
    rec.add_argument("--resume", action="store_true", help="keep the rows in --out and measure only missing ones")
    rec.add_argument("--blas-threads", type=int, default=1,
                     help="BLAS threads while measuring (default 1, as the runs use; 0: as configured)")
    rec.add_argument("--warmup", type=int, default=1,
                     help="untimed recommendations before the timed ones at each state (default 1, discarded)")
    rec.add_argument("--by-n-obs", action="store_true", help="one summary row per number of observations")
    rec.add_argument("--quick", action="store_true",
                     help=f"n_obs {quick['n_obs']}, seed {quick['seeds']}, {quick['repeats']} repeats "
                          "(explicit options win)")
    rec.set_defaults(func=cmd_bench_recommend)

    acq = bsub.add_parser(
        "acquisition", help="issue preset: one full recommendation with 44 observations, beta = 10%%, Table III methods",
        description="Time one full recommendation (refit + filter + acquisition) with 44 observations of the RNN "
                    "data at beta = 10%% for TrimTuner-DT, TrimTuner-GP, FABOLAS and EIc; print median/min/max over "
                    "repeats and the peak memory of the process.")
    acq.add_argument("--benchmark", default="rnn", help="cnn, rnn or a CSV path (default rnn)")
    acq.add_argument("--repeats", type=count("--repeats"), default=3, help="timed recommendations per state (default 3)")
    acq.add_argument("--seeds", nargs="+", type=int, default=[1], help="seeds of the states (default 1)")
    acq.add_argument("--out", default="figures/bench_acquisition.csv", help="CSV of every measurement")
    acq.set_defaults(func=cmd_bench_acquisition)

    bs = bsub.add_parser("spot", help="simulation time of a whole SpotTune Fig. 7 grid (CPU and wall seconds)")
    bs.add_argument("--profile", choices=profiles, default="quick", help="the grid's settings (default quick)")
    bs.add_argument("--prices", default="synthetic", help="synthetic (default), real or a path")
    bs.add_argument("--repeats", type=count("--repeats"), default=1,
                    help="timed repetitions; the median is printed (default 1)")
    bs.set_defaults(func=cmd_bench_spot)
    br = bsub.add_parser("revpred", help="CPU time of the LSTMs: training and inference per 1000 windows")
    br.add_argument("--profile", choices=profiles, default="quick",
                    help="the LSTMs' training settings (default quick)")
    br.add_argument("--prices", default="synthetic", help="synthetic (default), real or a path")
    br.add_argument("--type", help="instance type (default: the trace's first)")
    br.set_defaults(func=cmd_bench_revpred)
    ba = bsub.add_parser("authors", help="CPU time of one run of the authors' TrimTuner-DT (tt authors run)")
    ba.add_argument("--benchmark", default="rnn", help="rnn (default) or cnn")
    ba.add_argument("--seed", type=whole("--seed", 1), default=1, help="the authors' seed (default 1)")
    ba.add_argument("--residue", default="empirical", help="dH residue model (default empirical)")
    ba.add_argument("--iterations", type=count("--iterations"), default=TESTS_PER_RUN,
                    help=f"tests in total (default {TESTS_PER_RUN})")
    ba.add_argument("--json", action="store_true", help=JSON_HELP)
    ba.set_defaults(func=cmd_bench_authors)
    bench.set_defaults(func=show_help(bench))


def cmd_bench_acquisition(args) -> int:
    """``tt bench acquisition``: the Table III methods at 44 observations, plus peak memory (RSS)."""
    import resource

    args.settings = ["trimtuner-dt:cea:10%", "trimtuner-gp:cea:10%", "fabolas", "eic"]
    args.n_obs, args.policy, args.resume, args.blas_threads = [TESTS_PER_RUN], "random", False, 1
    args.by_n_obs, args.quick, args.warmup = False, False, 1
    rc = cmd_bench_recommend(args)
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0
    print(f"peak memory (max RSS of this process): {peak_mb:.0f} MB")
    return rc


def cmd_bench_recommend(args) -> int:
    from tt_workbook import bench as B
    from tt_workbook.runs.profiles import settings as profile_settings

    check_out_file(args.out, "--out", example="bench_recommend.csv")  # before any measurement, creating nothing
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
          f"load {B.load_average():.2f}")
    print(f"benchmark {args.benchmark}: {len(settings)} settings x n_obs {list(n_obs)} x seeds {list(seeds)} x "
          f"{repeats} repeats", flush=True)
    warmup = getattr(args, "warmup", 1)
    df = B.bench_recommend(settings, n_obs=n_obs, repeats=repeats, seeds=seeds, benchmark=args.benchmark,
                           policy=args.policy, out=args.out, resume=args.resume, blas_threads=blas,
                           progress=True, warmup=warmup)
    labels = [s.label for s in settings]
    df = df[df["setting"].isin(labels)]
    by = ("benchmark", "setting", "n_obs") if args.by_n_obs else ("benchmark", "setting")
    print(f"\nwall seconds per recommendation (refit + filter + acquisition; {repeats} timed after {warmup} "
          "discarded warm-up per state):")
    print(B.format_summary(B.summarize(df, by=by)))
    print("\nCPU seconds of the process per recommendation (beside the wall seconds: CPU below wall means it waited "
          "for a core):")
    print(B.format_summary(B.summarize(df, by=by, value="cpu_s")))
    print(f"\nload average (1 min) during the measurements: {df['load_1min'].min():.2f} to {df['load_1min'].max():.2f} "
          f"on {machine['n_cores']} cores")
    print(f"\n{len(df)} measurements written to {args.out}")
    return 0


def cmd_bench_spot(args) -> int:
    from tt_workbook.runs.profiles import settings as profile_settings
    from tt_workbook.studies.spottune import timing as TM

    cfg = profile_settings(args.profile, "spottune")
    res = TM.bench_fig7(cfg, prices=args.prices, repeats=args.repeats)
    print(f"Fig. 7 grid, {args.profile} profile: {res['job_sets']} job sets x {res['seeds']} seeds x 4 approaches = "
          f"{res['simulations']} simulations")
    print(f"{res['cpu_s']:.1f} s CPU, {res['wall_s']:.1f} s wall (median of {args.repeats}); "
          f"{res['cpu_s_per_simulation'] * 1000:.0f} ms CPU per simulation")
    return 0


def cmd_bench_revpred(args) -> int:
    from tt_workbook.runs.profiles import settings as profile_settings
    from tt_workbook.studies.spottune import timing as TM

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


def cmd_bench_authors(args) -> int:
    from tt_workbook.bench import bench_authors

    r = bench_authors(args.benchmark, args.seed, args.residue, args.iterations)
    if args.json:
        print(json.dumps(r))
        return 0
    print(f"authors' TrimTuner-DT, {r['benchmark']} seed {r['seed']}, residue {r['residue']}, {r['tests']} tests: "
          f"{r['cpu_s']:.1f} s CPU (tt and the harness), {r['wall_s']:.1f} s wall; BO tests' mean size fraction "
          f"{r['mean_size_fraction']:.3f}")
    return 0
