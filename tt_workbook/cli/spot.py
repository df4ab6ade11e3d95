"""``tt spot``: SpotTune (simulated hyper-parameter tuning on spot instances): ``simulate``, ``data list``,
``curves``, ``measure-step-times``, ``train-losses``, ``train-weights``, ``predictors`` (Fig. 10) and ``sensitivity`` (the unstated settings swept). ``tt bench spot``
and ``tt bench revpred`` time it (:mod:`tt_workbook.cli.bench`)."""

from __future__ import annotations

import json
import math

from tt_workbook.cli.common import (JSON_HELP, check_out_file, count, fraction, jsonable, light, numbers_at_least_zero, positive,
                                profile_names, show_help, shown, whole, within)

HELP = "SpotTune: simulate hyper-parameter tuning on spot instances"

SPOT_KEYS = ("approach", "cost", "charged", "refunded", "jct_s", "completion_s", "pcr", "steps_total", "steps_free", "top1", "top3")


def add_parser(sub, only: str | None) -> None:
    """``spot simulate|data list|curves|predictors|sensitivity``; for another command, ``spot`` by name only."""
    if light(only, "spot"):
        sub.add_parser("spot", help=HELP)
        return
    from tt_spotsim import curves as C, market as M, traces as T
    from tt_spotsim.rules import RULES

    sp = sub.add_parser("spot", help=HELP)
    ssub = sp.add_subparsers(dest="spot_command", metavar="ACTION")
    si = ssub.add_parser("simulate", help="SpotTune vs the Single-Spot baselines on one job set",
                         description="Simulate SpotTune (theta and 1.0) and Single-Spot Tune (cheapest r4.large, "
                                     "fastest m4.4xlarge) on one job set over a price trace.",
                         examples="tt spot simulate --workload cnn/t2.small-x8 --prices synthetic --billing paper "
                                  "--theta 0.7 --seed 1")
    si.add_argument("--workload", required=True, type=_nonempty("--workload", "cnn/t2.small-x8"),
                    help="a TrimTuner group (cnn/t2.small-x8), sklearn/<algorithm>, or a job-set CSV "
                         "(setting, step, metric, seconds); see `tt spot data list`")
    si.add_argument("--prices", default="synthetic", type=_nonempty("--prices", "synthetic"),
                    help="synthetic (seeded 2017-style market), synthetic-today, synthetic-persistent (with memory), real (the located 2017 trace), a path to it, or a post-2017 history .tsv (aws-spot-price-history format, with --billing aws-today)")
    si.add_argument("--billing", choices=list(RULES), default="paper",
                    help="billing and revocation rules: paper, aws-2017 or aws-today (default paper)")
    si.add_argument("--theta", type=fraction("--theta"), default=0.7, help="early-shutdown fraction in (0, 1]")
    si.add_argument("--k", type=count("--k"), default=3, help="settings trained to the end (top-k)")
    si.add_argument("--seed", type=whole("--seed", 0), default=1,
                    help="seed of the prices, revocations and model (default 1)")
    si.add_argument("--predictor", choices=["logistic", "empirical", "revpred", "tributary"], default="logistic",
                    help="revocation predictor (revpred, tributary: LSTMs with default settings, weights cached)")
    si.add_argument("--reference-hours", type=within("--reference-hours", 1 / 60, 24 * 365, "hours"),
                    help="median job's hours on r4.large (default 4 for the substituted workloads; a job-set CSV "
                         "keeps its own step times unless given)")
    si.add_argument("--parallel-fraction", type=fraction("--parallel-fraction"), default=0.9,
                    help="Amdahl's parallel fraction of the speed model, in (0, 1]")
    si.add_argument("--model-mb", type=within("--model-mb", 0, 1e6, "MB", low_open=False), default=100.0,
                    help="model size for checkpoints (MB)")
    si.add_argument("--market-days", type=_market_days(M.MAX_MARKET_DAYS),
                    help="length of a synthetic market, from one minute (1/1440) to "
                         f"{M.MAX_MARKET_DAYS} days (default {DEFAULT_MARKET_DAYS:g}); a price file has its own")
    si.add_argument("--fit-days", type=positive("--fit-days"), default=9.0, help="days of prices the predictor learns from")
    si.add_argument("--resampling", choices=list(T.RESAMPLING),
                    help=f"for a price file: how records go on the minute grid (default {T.DEFAULT_RESAMPLING})")
    si.add_argument("--json", action="store_true", help=JSON_HELP)
    si.set_defaults(func=cmd_spot_simulate)
    dl = ssub.add_parser("data", help="price trace, learning curves and workloads: where they are")
    dsub = dl.add_subparsers(dest="spot_data_command", metavar="ACTION")
    dll = dsub.add_parser("list", help="what SpotTune data were found")
    dll.add_argument("--json", action="store_true", help=JSON_HELP)
    dll.set_defaults(func=cmd_spot_data_list)
    dl.set_defaults(func=show_help(dl))
    cu = ssub.add_parser("curves", help="train the scikit-learn models and cache their learning curves")
    cu.add_argument("--algorithms", nargs="+", choices=list(C.ALGORITHMS),
                    help="scikit-learn models to train (default: all)")
    cu.add_argument("--profile", choices=list(C.SIZES), default="quick", help="quick: seconds; full: minutes")
    cu.add_argument("--seed", type=whole("--seed", 0), default=1, help="seed of the training (default 1)")
    cu.add_argument("--jobs", type=count("--jobs"), default=1, help="parallel workers, at most the CPUs")
    cu.add_argument("--force", action="store_true", help="train again even if cached")
    cu.set_defaults(func=cmd_spot_curves)
    ms = ssub.add_parser("measure-step-times", help="time every training step again and write a new step-time table",
                         description="Train every setting of the scikit-learn curves (quick and full) and of the staged "
                                     "workload --repeats times with BLAS on one thread, and write the CPU seconds of "
                                     "each step (median over the repeats) with the machine's conditions to --out. The "
                                     "simulation never measures step times itself: it reads the shipped table "
                                     "(tt_spotsim/step_times.csv), or the one named by TT_SPOT_STEP_TIMES. Best on "
                                     "an idle machine; the quick profile takes seconds per repeat, the full one minutes.",
                         examples="tt spot measure-step-times --out step_times.csv\n"
                                  "  tt spot curves --force   # with TT_SPOT_STEP_TIMES=step_times.csv in the environment")
    ms.add_argument("--out", required=True, help="the new table (CSV); the shipped one is not changed unless named")
    ms.add_argument("--profiles", nargs="+", choices=list(C.SIZES), help="curve profiles to time (default: all)")
    ms.add_argument("--workloads", nargs="+", metavar="WORKLOAD",
                    help="sklearn/<algorithm> or staged/staged-digits (default: all)")
    ms.add_argument("--repeats", type=count("--repeats"), default=3, help="timings per step, median kept (default 3)")
    ms.set_defaults(func=cmd_spot_measure_step_times)
    tl = ssub.add_parser("train-losses", help="train every curve again and write a new table of its losses per step",
                         description="Train every setting of the scikit-learn curves (quick and full) and of the "
                                     "staged workload at each --seeds with BLAS on one thread, and write the loss "
                                     "after each step (float64, exact) with the training's conditions (CPU, BLAS "
                                     "kernels, versions) to --out. The simulation never trains the curves of seed 1 "
                                     "itself (their losses depend on the CPU's BLAS kernels): it reads the shipped "
                                     "table (tt_spotsim/curve_losses.csv), or the one named by TT_SPOT_CURVE_LOSSES; "
                                     "seeds the table lacks are trained at run time.",
                         examples="tt spot train-losses --out curve_losses.csv\n"
                                  "  tt spot curves --force   # with TT_SPOT_CURVE_LOSSES=curve_losses.csv in the environment")
    tl.add_argument("--out", required=True, help="the new table (CSV); the shipped one is not changed unless named")
    tl.add_argument("--profiles", nargs="+", choices=list(C.SIZES), help="curve profiles to train (default: all)")
    tl.add_argument("--workloads", nargs="+", metavar="WORKLOAD",
                    help="sklearn/<algorithm> or staged/staged-digits (default: all)")
    tl.add_argument("--seeds", nargs="+", type=whole("--seeds", 0), metavar="SEED",
                    help="seeds of the training (default: 1, the one the studies and tt spot simulate use)")
    tl.set_defaults(func=cmd_spot_train_losses)
    tw = ssub.add_parser("train-weights", help="train Fig. 10's LSTMs again and write new weights",
                         description="Train RevPred's and Tributary's LSTMs (every instance type) of --profile on the "
                                     "synthetic market of --seed, never from a cache, and write their state_dicts to "
                                     "--out (.pt) with a manifest beside it (.json: sha256, CPU, PyTorch and its CPU "
                                     "capability). Notebooks 13 and 15 and `tt spot predictors` never train these "
                                     "networks themselves (their weights depend on the CPU's kernels): they read the "
                                     "shipped ones (tt_spotsim/revpred_weights.pt), or the ones named by "
                                     "TT_SPOT_REVPRED_WEIGHTS; other settings and markets are trained at run time.",
                         examples="tt spot train-weights --out my_weights.pt\n"
                                  "  tt spot predictors   # with TT_SPOT_REVPRED_WEIGHTS=my_weights.pt in the environment")
    tw.add_argument("--out", required=True, help="the new weights (.pt); the shipped ones are not changed unless named")
    tw.add_argument("--profile", choices=list(profile_names(only)), default="quick", help="the LSTMs' training settings")
    tw.add_argument("--seed", type=whole("--seed", 0), default=1, help="the synthetic market's seed (default 1)")
    tw.add_argument("--smoke", action="store_true", help="the profile's smoke settings (tiny networks, two types)")
    tw.set_defaults(func=cmd_spot_train_weights)
    pr = ssub.add_parser("predictors", help="Fig. 10 (a, b): accuracy and F1 of the revocation predictors",
                         description="Fit RevPred, Tributary's predictor and the logistic regression on the first "
                                     "--fit-days of a price trace and score them on the next --test-days (a "
                                     "real trace: the paper's split, train 2017-04-26 to 05-04, test 05-05 to "
                                     "05-07, UTC).",
                         examples="tt spot predictors --prices synthetic --seed 1")
    pr.add_argument("--prices", default="synthetic", type=_nonempty("--prices", "synthetic"),
                    help="synthetic, real (the located 2017 trace) or a path")
    pr.add_argument("--seed", type=whole("--seed", 0), default=1, help="market, weights and maximum prices")
    pr.add_argument("--predictors", nargs="+", choices=["revpred", "tributary", "logistic", "empirical"],
                    default=["revpred", "tributary", "logistic"],
                    help="which predictors to fit and score (default revpred tributary logistic)")
    pr.add_argument("--profile", choices=list(profile_names(only)), default="quick", help="the LSTMs' training settings")
    pr.add_argument("--epochs", type=count("--epochs"), help="override the profile's epochs")
    pr.add_argument("--types", nargs="+", help="instance types (default: all in the trace)")
    pr.add_argument("--fit-days", type=positive("--fit-days"),
                    help="synthetic prices: days to fit on (default 9; a real trace: the paper's dates)")
    pr.add_argument("--test-days", type=positive("--test-days"),
                    help="synthetic prices: days to test on after them (default 3)")
    pr.add_argument("--delta", nargs=2, type=float, metavar=("LO", "HI"),
                    help="Tributary's training maximum price: present price + a delta uniform in [LO, HI] USD/h, "
                         "0 < LO < HI (default: the profile's, the paper's 0.00001 0.2); test prices keep the profile's")
    pr.add_argument("--bids", choices=["random", "algorithm2"], default="random",
                    help="test maximum prices: random delta (the paper's inference) or Alg. 2")
    pr.add_argument("--resampling", choices=list(T.RESAMPLING),
                    help=f"for a price file: how records go on the minute grid (default {T.DEFAULT_RESAMPLING})")
    pr.add_argument("--json", action="store_true", help=JSON_HELP)
    pr.set_defaults(func=cmd_spot_predictors)
    se = ssub.add_parser("sensitivity", help="the unstated settings swept: bid rule, parallel fraction, start-up, "
                                             "model size",
                         description="SpotTune (theta 1 and 0.7) against both single-spot baselines as one setting "
                                     "changes at a time, the others at the profile's values: the bid rule, Amdahl's "
                                     "parallel fraction, the start-up time and the model size. Cost, JCT and PCR "
                                     "ratios and the share of free steps, means over workloads with 95% seed "
                                     "intervals.")
    se.add_argument("--profile", choices=list(profile_names(only)), default="quick", help="job sets, seeds, settings")
    se.add_argument("--prices", default="synthetic", type=_nonempty("--prices", "synthetic"),
                    help="synthetic, real (the located 2017 trace) or a path")
    se.add_argument("--seeds", type=count("--seeds"), help="number of market seeds (default: the profile's)")
    se.add_argument("--bids", nargs="+", metavar="BID",
                    help="bid rules: relative margins >= 0 (0.05 = 5%% above the price), algorithm2, tributary "
                         "(default: 0 0.05 algorithm2 0.25 tributary)")
    se.add_argument("--fractions", nargs="+", type=fraction("--fractions"), metavar="F",
                    help="parallel fractions in (0, 1] (default: 0.5 0.7 0.9 0.95)")
    se.add_argument("--startups", nargs="*", type=numbers_at_least_zero("--startups"), metavar="S",
                    help="start-up times in seconds (default: 0 60 300; none: leave the axis out)")
    se.add_argument("--model-mb", nargs="*", type=numbers_at_least_zero("--model-mb"), metavar="MB",
                    help="model sizes in MB (default: 100 1024 5120; none: leave the axis out)")
    se.add_argument("--seed", type=whole("--seed", 0), default=0, help="the bootstrap's random stream")
    se.add_argument("--out", help="write the table to this CSV")
    se.add_argument("--json", action="store_true", help=JSON_HELP)
    se.set_defaults(func=cmd_spot_sensitivity)
    sp.set_defaults(func=show_help(sp))


#: The length of ``tt spot simulate``'s synthetic market (days) when ``--market-days`` is not given.
DEFAULT_MARKET_DAYS = 30.0


def _nonempty(option: str, example: str):
    """Text that is not empty (an empty ``--prices ""`` would otherwise name the working directory)."""
    import argparse

    def parse(text):
        if not text.strip():
            raise argparse.ArgumentTypeError(f"{option} is empty; give a value, e.g. {option} {example}")
        return text
    return parse


def _market_days(most: float):
    """``--market-days``: from one minute (1/1440 day) to ``most`` days."""
    import argparse

    def parse(text):
        v = positive("--market-days")(text)
        if not 1 / 1440 <= v <= most:
            raise argparse.ArgumentTypeError(f"--market-days must lie between one minute (1/1440 = 0.000694 days) and "
                                             f"{most:g} days (MAX_MARKET_DAYS), got {shown(text)}")
        return v
    return parse


def _market_options(args) -> tuple[float, str]:
    """``--market-days`` and ``--resampling`` for the chosen ``--prices``: each refused where it does not apply
    (a synthetic market is generated on the minute grid; a price file has its own length)."""
    from tt_spotsim import market as M, traces as T

    synthetic = str(args.prices) in M.SYNTHETIC
    if synthetic and args.resampling is not None:
        raise ValueError(f"--resampling {args.resampling} applies to a price file (a trace or history); synthetic "
                         "prices are generated on the minute grid: leave --resampling out")
    if not synthetic and getattr(args, "market_days", None) is not None:
        raise ValueError(f"--market-days {args.market_days:g} sets the length of a synthetic market; the price file "
                         f"{args.prices} has its own (at most {T.MAX_TRACE_DAYS} days): leave --market-days out")
    days = DEFAULT_MARKET_DAYS if getattr(args, "market_days", None) is None else args.market_days
    return days, args.resampling or T.DEFAULT_RESAMPLING


def cmd_spot_simulate(args) -> int:
    from tt_workbook.studies.spottune import grids as G
    from tt_spotsim import market as M, simulator as S

    days, resampling = _market_options(args)
    js = G.resolve_job_set(args.workload, args.reference_hours, args.parallel_fraction, args.model_mb)
    trace = M.market(args.prices, seed=args.seed, days=days, resampling=resampling)
    from tt_spotsim.history import check_rules

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
        print(json.dumps(jsonable(out), indent=2))
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
    from tt_spotsim import curves as C, traces as T
    from tt_workbook.studies.spottune import grids as G

    trace = T.trace_available()
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
    from tt_spotsim import step_times as STT

    table = STT.table_path()
    cond = STT.conditions(table)
    rows.append({"data": "step times of the scikit-learn and staged curves (measured once; tt spot measure-step-times)",
                 "status": f"measured {cond.get('measured', '?')} on {cond.get('cpu', '?')}, {cond.get('repeats', '?')} "
                           f"repeats" + ("" if table == STT.TABLE else f" ({STT.ENV})"),
                 "path": str(table)})
    from tt_spotsim import curve_losses as CL

    table = CL.table_path()
    cond = STT.conditions(table)
    rows.append({"data": "losses of the scikit-learn and staged curves (trained once; tt spot train-losses)",
                 "status": f"trained {cond.get('trained', '?')} on {cond.get('cpu', '?')}, seeds {cond.get('seeds', '?')}"
                           + ("" if table == CL.TABLE else f" ({CL.ENV})"),
                 "path": str(table)})
    from tt_spotsim import revpred as RP

    weights = RP.weights_path()
    try:
        man = json.loads(RP.manifest_path(weights).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        man = {}
    rows.append({"data": "Fig. 10's LSTM weights, quick profile (trained once; tt spot train-weights)",
                 "status": (f"trained {man.get('trained', '?')} on {man.get('cpu', '?')}, {man.get('networks', '?')} "
                            f"networks" if man else "manifest missing") + ("" if weights == RP.WEIGHTS else f" ({RP.WEIGHTS_ENV})"),
                 "path": str(weights)})
    if args.json:
        print(json.dumps({"data": rows, "workloads": groups}, indent=2))
        return 0
    for r in rows:
        print(f"{r['data']}\n    {r['status']}  {r['path']}")
    print("\nWorkloads for tt spot simulate --workload: " + ", ".join(groups) + ", or a job-set CSV path")
    return 0


def cmd_spot_curves(args) -> int:
    import time

    from tt_workbook.runs import usable_jobs
    from tt_spotsim import curves as C

    usable_jobs(args.jobs)  # more workers than CPUs: refused before any starts
    c0 = time.process_time()
    tables = C.generate(args.algorithms or C.ALGORITHMS, args.profile, args.seed, progress=True, n_jobs=args.jobs,
                        force=args.force)
    for name, df in tables.items():
        print(f"{name}: {df['setting'].nunique()} settings x {int(df.groupby('setting').size().max())} steps -> "
              f"{C.cache_path(name, args.profile, args.seed)}")
    print(f"{time.process_time() - c0:.1f} s CPU in this process")
    return 0


def cmd_spot_measure_step_times(args) -> int:
    from tt_spotsim import measuring, step_times as STT

    out = _table_out(args.out, "step_times.csv")
    which = _table_workloads(args)
    table, cond = measuring.measure_step_times(which, repeats=args.repeats)
    STT.write(table, cond, out)
    for w, p in which:
        t = table[(table["workload"] == w) & (table["profile"] == p)]
        print(f"{w} ({p}): {t['setting'].nunique()} settings x {int(t['step'].max())} steps, median "
              f"{t['seconds'].median() * 1e3:.3f} ms per step")
    print(f"{len(table)} rows -> {out} ({cond['load']}); use it with {STT.ENV}={out}")
    return 0


def _table_out(out: str, example: str):
    """``--out`` of a table command as a Path, or ValueError naming the fix."""
    from pathlib import Path

    path = Path(out)
    if path.is_dir():
        raise ValueError(f"--out {out} is a folder: give the path of a CSV file, e.g. {path / example}")
    if path.suffix.lower() != ".csv":
        raise ValueError(f"--out {out}: the table is a CSV file; give a name ending in .csv")
    return path


def _table_workloads(args):
    """The ``(workload, profile)`` pairs picked by ``--workloads`` and ``--profiles``."""
    from tt_spotsim import measuring, step_times as STT

    known = measuring.workloads()
    names = {w for w, _ in known}
    bad = [w for w in args.workloads or () if w not in names]
    if bad:
        raise ValueError(f"--workloads: unknown {bad[0]!r}; known: {' '.join(sorted(names))}")
    return [(w, p) for w, p in known if (not args.workloads or w in args.workloads)
            and (p == STT.STAGED_PROFILE or not args.profiles or p in args.profiles)]


def cmd_spot_train_losses(args) -> int:
    from tt_spotsim import curve_losses as CL, measuring

    out = _table_out(args.out, "curve_losses.csv")
    which = _table_workloads(args)
    seeds = sorted(set(args.seeds or CL.SEEDS))
    table, cond = measuring.train_losses(which, seeds=seeds)
    CL.write(table, cond, out)
    for (w, p), t in table.groupby(["workload", "profile"], sort=False):
        last = t[t["step"] == t["step"].max()]["metric"]
        print(f"{w} ({p}): {t['setting'].nunique()} settings x {int(t['step'].max())} steps x {t['seed'].nunique()} "
              f"seed(s), final loss median {last.median():.4g}")
    print(f"{len(table)} rows -> {out} ({cond['versions'].split('BLAS: ')[-1]}); use it with {CL.ENV}={out}")
    return 0


def cmd_spot_train_weights(args) -> int:
    from pathlib import Path

    from tt_spotsim import revpred as RP
    from tt_workbook.studies.spottune import revpred_study as RS

    out = Path(args.out)
    if out.is_dir():
        raise ValueError(f"--out {args.out} is a folder: give the path of a .pt file, e.g. {out / 'revpred_weights.pt'}")
    if out.suffix.lower() != ".pt":
        raise ValueError(f"--out {args.out}: the weights are a PyTorch file; give a name ending in .pt")
    man = RS.train_weights(out, args.profile, args.seed, args.smoke)
    print(f"{man['networks']} networks, {man['bytes'] / 1e3:.0f} kB -> {out} (manifest {RP.manifest_path(out).name}, "
          f"{man['torch']}); use them with {RP.WEIGHTS_ENV}={out}")
    return 0


def cmd_spot_sensitivity(args) -> int:
    """``tt spot sensitivity``: SpotTune (θ 1 and 0.7) vs both single-spot baselines as the bid rule and the
    parallel fraction change one at a time; means over workloads with seed intervals."""
    import numpy as np

    from tt_core.data.io import write_csv
    from tt_workbook.runs.profiles import settings as profile_settings
    from tt_workbook.studies.spottune import sensitivity as SEN

    check_out_file(args.out, "--out", suffix=".csv", example="sensitivity.csv")  # before the sweep, creating nothing
    bids = [SEN.check_bid(b) for b in (args.bids or SEN.SENSITIVITY_BIDS)]
    fractions = args.fractions or list(SEN.SENSITIVITY_FRACTIONS)
    cfg = profile_settings(args.profile, "spottune")
    seeds = list(range(1, args.seeds + 1)) if args.seeds else cfg["seeds"]
    sweep = SEN.sensitivity(cfg, seeds, bids, fractions, prices=args.prices, progress=not args.json,
                          startups=SEN.SENSITIVITY_STARTUPS if args.startups is None else args.startups,
                          model_sizes=SEN.SENSITIVITY_MODEL_MB if args.model_mb is None else args.model_mb)
    table = SEN.sensitivity_table(sweep, rng=np.random.default_rng(args.seed))
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


def cmd_spot_predictors(args) -> int:
    """``tt spot predictors``: Fig. 10 (a, b) on the command line: fit on the first days, score on the next
    (a real trace: the paper's calendar split, train 2017-04-26 to 05-04, test 05-05 to 05-07)."""
    from tt_workbook.runs.profiles import settings as profile_settings
    from tt_spotsim import market as M, revpred as RP
    from tt_workbook.studies.spottune import revpred_study as RS

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
    args.market_days = None                   # not an option of this command: the profile's length
    _, resampling = _market_options(args)
    trace = M.market(args.prices, seed=args.seed, days=cfg["market_days"], resampling=resampling)
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
        print(json.dumps(jsonable({"prices": trace.label, "synthetic_prices": trace.synthetic, "bids": args.bids,
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
