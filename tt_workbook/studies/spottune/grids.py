"""SpotTune's grids of simulations (Figs 7-9) and their per-job-set tables.

Everything here is computed from simulations (:mod:`tt_spotsim.simulator`) on the workbook's
substituted workloads and prices; nothing here knows the paper's numbers (those live in
:mod:`tt_workbook.studies.spottune.rows`). Aggregation rules (the paper says "averagely speaking" without a formula):

* each (job set, seed) is one simulation; per job set, costs, JCTs and PCRs are averaged over seeds;
* a ratio or saving "on average" is the mean over *workloads* of the per-job-set ratio: the 48 TrimTuner
  groups are two workloads (CNN and RNN: the same 12 settings on different clusters), each scikit-learn
  model one (:func:`job_set_weights`); "up to" is the largest workload mean;
* every Fig. 7-9 number has a seed interval (:func:`tt_workbook.studies.spottune.intervals.statement_intervals`: a
  percentile bootstrap over the seeds, the job sets fixed);
* PCR is normalised per job set to SpotTune (theta = 0.7), as in Fig. 7(c).

The job sets of a profile, the market of a seed, the grid of simulations (:func:`simulate_grid`: Fig. 7's
four approaches, Fig. 8's theta sweep, the billing-rules variants), the per-job-set tables of Fig. 7 and 9
and the direction claims of §IV-B; also the workload names the command line resolves.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict

import numpy as np
import pandas as pd

from tt_core.data.io import shown
from tt_workbook.runs.study_tables import TableSpec, ensure_table
from tt_spotsim import curves as C, market as M, traces as T, simulator as S, workloads as W


REFERENCE = "spottune-0.7"
APPROACH_LABELS = {"single-cheapest": "Single-Spot Tune (cheapest)", "single-fastest": "Single-Spot Tune (fastest)",
                   "spottune-1": "SpotTune (θ=1.0)", "spottune-0.7": "SpotTune (θ=0.7)"}


def sim_settings(cfg: dict, **changes) -> S.Settings:
    """The simulator's settings from a profile's ``spottune`` study."""
    st = S.Settings(rules=cfg["rules"], predictor=cfg["predictor"], bid=cfg["bid"], k=cfg["k"],
                    fit_days=cfg["fit_days"])
    return S.with_settings(st, **changes) if changes else st


def study_job_sets(cfg: dict, progress: bool = False) -> list:
    """The profile's job sets: TrimTuner groups (``None``: all 48), generated scikit-learn curves and (with
    ``staged``) the step-decay workload of :mod:`tt_spotsim.staged`. Each workload has its own speed
    model (:func:`tt_spotsim.workloads.speed_model_for`): ``parallel_fraction`` for the multi-threaded
    ones, 0 for the single-threaded ones."""
    f = cfg["parallel_fraction"]
    sets = []
    groups = cfg["trimtuner"]
    for bench in ("cnn", "rnn"):
        mine = None if groups is None else [g for g in groups if g.startswith(bench + "/")]
        if mine == []:
            continue
        sets += W.trimtuner_job_sets(bench, reference_hours=cfg["reference_hours"], speed=W.speed_model_for(bench, f),
                                     model_mb=cfg["model_mb"], groups=mine)
    if cfg["sklearn"]:
        sets += C.job_sets(cfg["sklearn"], cfg["curves"], seed=1, reference_hours=cfg["reference_hours"],
                           parallel_fraction=f, model_mb=cfg["model_mb"], progress=progress)
    if cfg.get("staged", False):
        from tt_spotsim import staged as ST

        sets.append(ST.job_set(seed=1, reference_hours=cfg["reference_hours"], model_mb=cfg["model_mb"]))
    return sets


_MARKETS: dict = {}
_GENERATED = ("synthetic", "synthetic-today", "synthetic-persistent")


def _file_stamp(prices) -> tuple | None:
    """``(resolved path, size, modification time in ns)`` of a price file; None for a generated market."""
    if str(prices) in _GENERATED:
        return None
    path = T.locate_trace(None if str(prices) == "real" else prices)
    st = path.stat()
    return str(path.resolve()), st.st_size, st.st_mtime_ns


def cached_market(prices, seed: int, days: float) -> T.PriceTrace:
    """:func:`tt_spotsim.market.market`, kept for the process (a few markets: the grids of one notebook share
    them, and with them the fitted predictors of :func:`tt_spotsim.simulator.fitted_predictor`). A price
    file is keyed by its path, size and modification time too, so an edited file is read again."""
    key = (str(prices), int(seed), float(days), _file_stamp(prices))
    if key not in _MARKETS:
        if len(_MARKETS) >= 16:
            _MARKETS.clear()
        _MARKETS[key] = M.market(prices, seed=seed, days=days)
    return _MARKETS[key]


def study_market(cfg: dict, seed: int, prices="synthetic") -> T.PriceTrace:
    """The price trace of one seed: a synthetic market of ``market_days`` days, or the user's trace."""
    return cached_market(prices, seed, cfg["market_days"])


def simulate_grid(job_sets, seeds, approaches=S.FIG7_APPROACHES, settings: S.Settings | None = None, market_days=30.0,
                  prices="synthetic", progress: bool = False, runs_dir=None) -> pd.DataFrame:
    """Every approach on every job set for every seed (one market per seed): one row per simulation with
    the summary keys of :func:`tt_spotsim.simulator.simulate`.

    ``runs_dir``: keep each seed's simulations in the run store under this folder
    (:func:`tt_workbook.runs.study_tables.ensure_table`, :func:`grid_table_spec`): a seed already simulated with
    the same settings, job sets and prices is read back, not simulated again, and a grid killed half-way
    resumes with the seeds it finished. None: simulate everything, store nothing."""
    from tqdm.auto import tqdm

    rows, frames = [], []
    bar = tqdm(total=len(seeds) * len(job_sets), desc="SpotTune simulations", disable=not progress)
    for seed in seeds:
        trace = cached_market(prices, seed, market_days)
        if runs_dir is None:
            for js in job_sets:
                for r in S.compare(js, trace, approaches, settings, seed):
                    rows.append(r.summary)
                bar.update()
            continue

        def one_seed(trace=trace, seed=seed) -> pd.DataFrame:
            out = []
            for js in job_sets:
                out += [r.summary for r in S.compare(js, trace, approaches, settings, seed)]
                bar.update()
            return pd.DataFrame(out)

        spec = grid_table_spec(job_sets, seed, approaches, settings, market_days, prices, trace)
        table, what = ensure_table(spec, one_seed, runs_dir)
        if what == "reused":
            bar.update(len(job_sets))
        frames.append(table)
    bar.close()
    return pd.DataFrame(rows) if runs_dir is None else pd.concat(frames, ignore_index=True)


def trace_sha256(trace) -> str:
    """sha256 of a price trace's values: its start, types and every minute's price (not its label, so a
    moved file with the same prices is the same trace, and an edited one another)."""
    h = hashlib.sha256(json.dumps([str(trace.start), list(trace.types)]).encode())
    for name in trace.types:
        h.update(np.ascontiguousarray(trace.series(name), dtype=float).tobytes())
    return h.hexdigest()


def job_sets_sha256(job_sets) -> str:
    """sha256 of what a simulation reads from job sets: names, each job's curve, step times and model size."""
    h = hashlib.sha256()
    for js in job_sets:
        h.update(json.dumps([js.name, js.metric_name, len(js.jobs)]).encode())
        for job in js.jobs:
            h.update(json.dumps([job.name, sorted(job.seconds_per_step.items()), job.model_mb]).encode())
            h.update(np.ascontiguousarray(job.metric, dtype=float).tobytes())
    return h.hexdigest()


def spot_table_spec(study: str, job_sets, trace, settings: S.Settings | None, **more) -> TableSpec:
    """A run-store entry of SpotTune simulations: the settings (job set names, simulator settings and
    ``more``, e.g. approaches, market days, prices, seed) and the data identity, the sha256 of the price
    trace's values and of the job sets (:func:`trace_sha256`, :func:`job_sets_sha256`), name the file
    (:attr:`tt_workbook.runs.study_tables.TableSpec.key`). So job sets of the same names built otherwise
    (the sensitivity sweep's parallel fractions and model sizes), an edited price file or an edited curve
    are other entries, kept beside the first, and each is read back when its inputs come again."""
    st = asdict(settings if settings is not None else S.Settings())
    for k in ("rules", "predictor", "bid"):
        if not isinstance(st[k], (str, int, float)):
            raise W.SpotError(f"simulations whose simulator setting {k} is an object ({type(st[k]).__name__}) cannot "
                              "be kept in the run store; give its name, or simulate without runs_dir")
    return TableSpec(study, {"job_sets": [js.name for js in job_sets], "settings": st, **more},
                     {"prices_sha256": trace_sha256(trace), "job_sets_sha256": job_sets_sha256(job_sets)})


def grid_table_spec(job_sets, seed: int, approaches, settings: S.Settings | None, market_days: float, prices,
                    trace) -> TableSpec:
    """The run-store entry of one seed of a grid (:func:`spot_table_spec`, study ``spot-grid``)."""
    aps = [asdict(S.approach(a) if isinstance(a, str) else a) for a in approaches]
    return spot_table_spec("spot-grid", job_sets, trace, settings, approaches=aps, market_days=float(market_days),
                           prices=str(prices), seed=int(seed))


def prices_label(trace) -> str:
    """The label of a price trace for the tables it feeds: ``"synthetic 2017-style market (seed 1)"`` (the
    style and seed from the generator's source) or the real trace's label (with its file name)."""
    src = str(trace.source)
    if trace.synthetic and src.startswith("synthetic ") and " (" in src:
        head, rest = src.split(" (", 1)
        return f"{head} market ({rest}"
    return trace.label


def grid_prices_label(grid: pd.DataFrame) -> str:
    """The prices of a grid of simulations (its ``prices`` and ``seed`` columns): the trace's label, with
    the seeds of a synthetic market (``"synthetic 2017-style market (seeds 1, 2, 3)"``)."""
    if "prices" not in grid.columns or grid.empty:
        return "not recorded"
    parts = []
    for label, g in grid.groupby("prices", sort=False):
        synthetic = bool(g["synthetic_prices"].any()) if "synthetic_prices" in g.columns else "synthetic" in str(label)
        if synthetic and "seed" in g.columns:
            seeds = sorted({int(x) for x in g["seed"]})
            label = f"{label} (seed{'s' if len(seeds) > 1 else ''} {', '.join(map(str, seeds))})"
        parts.append(str(label))
    return "; ".join(parts)


def per_job_set(grid: pd.DataFrame, reference: str = REFERENCE) -> pd.DataFrame:
    """Fig. 7: per (job set, approach), seed-mean cost, JCT (h) and PCR, and each normalised to ``reference``
    (cost / JCT relative to it; PCR relative to it, the reference = 1); ``prices``: :func:`grid_prices_label`."""
    g = grid.assign(jct_h=grid["jct_s"] / 3600.0)
    mean = g.groupby(["job_set", "approach"], sort=False)[["cost", "jct_h", "refunded", "usage", "free_step_share",
                                                          "refunded_share", "top1", "top3", "steps_total"]].mean()
    mean["pcr"] = 1.0 / (mean["jct_h"] * mean["cost"])
    ref = mean.xs(reference, level="approach")
    out = mean.reset_index()
    for col in ("cost", "jct_h", "pcr"):
        out[f"{col}_norm"] = out[col] / out["job_set"].map(ref[col])
    out["prices"] = grid_prices_label(grid)
    return out


def jct_readings(grid: pd.DataFrame, reference: str = REFERENCE) -> pd.DataFrame:
    """§IV-B1's JCT and PCR ratios (mean over job sets, as :func:`tt_workbook.studies.spottune.intervals.paper_statements`) under
    both readings of JCT, from the same simulations: ending at the top-k selection (``jct_s``, the simulator's) and when the
    top-k have been trained to the end (``completion_s``). The baselines' two readings coincide."""
    keys = ("jct_fastest_over_st07", "jct_cheapest_over_st07", "pcr_st07_over_cheapest", "pcr_st07_over_fastest")
    rows = []
    for ends, col in (("selection", "jct_s"), ("top-k trained", "completion_s")):
        r = ratio_table(per_job_set(grid.assign(jct_s=grid[col]), reference))
        rows.append({"jct_ends": ends, "column": col, **{k: float(r[k].mean()) for k in keys}})
    return pd.DataFrame(rows)


def ratio_table(per: pd.DataFrame) -> pd.DataFrame:
    """Per job set, the ratios the paper quotes (see :func:`tt_workbook.studies.spottune.intervals.paper_statements`)."""
    w = per.pivot(index="job_set", columns="approach", values=["cost", "jct_h", "pcr"])
    a, b, c, d = "spottune-1", "spottune-0.7", "single-cheapest", "single-fastest"
    return pd.DataFrame({
        "saving_st1_vs_cheapest": 1 - w["cost"][a] / w["cost"][c],
        "saving_st1_vs_fastest": 1 - w["cost"][a] / w["cost"][d],
        "saving_st07_vs_st1": 1 - w["cost"][b] / w["cost"][a],
        "saving_st07_vs_cheapest": 1 - w["cost"][b] / w["cost"][c],
        "saving_st07_vs_fastest": 1 - w["cost"][b] / w["cost"][d],
        "jct_fastest_over_st07": w["jct_h"][d] / w["jct_h"][b],
        "jct_cheapest_over_st07": w["jct_h"][c] / w["jct_h"][b],
        "pcr_st1_over_cheapest": w["pcr"][a] / w["pcr"][c],
        "pcr_st1_over_fastest": w["pcr"][a] / w["pcr"][d],
        "pcr_st07_over_cheapest": w["pcr"][b] / w["pcr"][c],
        "pcr_st07_over_fastest": w["pcr"][b] / w["pcr"][d],
    })


def workload_of(job_set: str) -> str:
    """The workload a job set belongs to: the TrimTuner groups are two workloads (the CNN's and the RNN's 24
    groups each run the same 12 settings on different clusters); every other job set is its own."""
    head = str(job_set).split("/", 1)[0]
    return {"cnn": "TrimTuner CNN", "rnn": "TrimTuner RNN"}.get(head, str(job_set))


def job_set_weights(names) -> np.ndarray:
    """Weights of job sets in a mean "over workloads": each workload weighs the same, split evenly among its
    job sets (weights sum to 1)."""
    wl = [workload_of(n) for n in names]
    size = pd.Series(wl).value_counts()
    return np.array([1.0 / (len(size) * size[w]) for w in wl])


def refund_shares(grid: pd.DataFrame, approaches=("spottune-1", "spottune-0.7")) -> pd.DataFrame:
    """Fig. 9: share of steps run on refunded instances and share of the usage refunded, per job set."""
    g = grid[grid["approach"].isin(approaches)]
    out = g.groupby(["job_set", "approach"], sort=False)[["free_step_share", "refunded_share"]].mean().reset_index()
    out["prices"] = grid_prices_label(grid)
    return out


def theta_sweep(job_sets, seeds, thetas, settings: S.Settings | None = None, market_days=30.0, prices="synthetic",
                progress: bool = False, runs_dir=None) -> pd.DataFrame:
    """Fig. 8: SpotTune at each theta: cost, JCT, top-1 and top-3 per job set and seed (``runs_dir``: as
    :func:`simulate_grid`)."""
    aps = [S.spottune(t) for t in thetas]
    return simulate_grid(job_sets, seeds, aps, settings, market_days, prices, progress, runs_dir)


def resolve_job_set(spec: str, reference_hours: float | None = None,
                    parallel_fraction: float = W.DEFAULT_PARALLEL_FRACTION, model_mb: float = W.DEFAULT_MODEL_MB,
                    curves_profile: str = "quick", seed: int = 1):
    """A job set by name: a TrimTuner group (``cnn/t2.small-x8``), ``sklearn/<algorithm>`` (generated and
    cached), or the path of a job-set CSV (:func:`tt_spotsim.workloads.read_job_csv`).

    ``reference_hours``: the median job's hours on r4.large; default 4 h for the substituted workloads,
    and no rescaling of a user's own step times."""
    from pathlib import Path

    if Path(spec).suffix.lower() == ".csv" or Path(spec).exists():
        return W.read_job_csv(spec, W.SpeedModel(parallel_fraction), reference_hours, model_mb)
    reference_hours = W.DEFAULT_REFERENCE_HOURS if reference_hours is None else reference_hours
    if spec.startswith(("cnn/", "rnn/")):
        return W.trimtuner_job_sets(spec.split("/")[0], reference_hours=reference_hours,
                                    speed=W.speed_model_for(spec, parallel_fraction), model_mb=model_mb, groups=[spec])[0]
    if spec.startswith("sklearn/"):
        return C.job_sets([spec.split("/", 1)[1]], curves_profile, seed, reference_hours, None, model_mb,
                          parallel_fraction=parallel_fraction)[0]
    if spec == "staged/staged-digits":
        from tt_spotsim import staged as ST

        return ST.job_set(seed=seed, reference_hours=reference_hours, model_mb=model_mb)
    raise W.SpotError(f"unknown workload {shown(spec)}; give a TrimTuner group such as cnn/t2.small-x8 (see `tt spot data "
                      f"list`), sklearn/<{'|'.join(C.ALGORITHMS)}>, staged/staged-digits, or a job-set CSV path")


def workload_names() -> list[str]:
    """Every named workload: the TrimTuner groups whose data are found, and the scikit-learn algorithms."""
    names = []
    for bench in ("cnn", "rnn"):
        try:
            names += [s.name for s in W.trimtuner_job_sets(bench)]
        except ValueError:
            pass
    return names + [f"sklearn/{a}" for a in C.ALGORITHMS] + ["staged/staged-digits"]


def claims(per: pd.DataFrame, topk: pd.DataFrame | None = None, errors: pd.DataFrame | None = None) -> dict:
    """The workbook's truth values of the paper's direction/ordering claims (keys of
    :data:`tt_workbook.studies.spottune.rows.CLAIMS`); each is computed from the seed means per job set; "on average" is
    the mean over workloads (:func:`job_set_weights`), "on every workload" every workload's mean."""
    w = per.pivot(index="job_set", columns="approach", values=["cost", "jct_h", "pcr"])
    wt = pd.Series(job_set_weights(list(w.index)), index=w.index)
    avg = lambda s: float((s * wt).sum())                                          # noqa: E731
    by_workload = w["cost"].groupby(w.index.map(workload_of)).mean()
    out = {
        "st07_cheapest": bool((by_workload.idxmin(axis=1) == REFERENCE).all()),
        "st1_cheaper_than_cheapest": bool(avg(w["cost"]["spottune-1"]) < avg(w["cost"]["single-cheapest"])),
        "jct_between_baselines": bool(avg(w["jct_h"]["single-fastest"]) < avg(w["jct_h"][REFERENCE])
                                      < avg(w["jct_h"]["single-cheapest"])),
        "pcr_st07_highest": bool(max(w["pcr"].columns, key=lambda a: avg(w["pcr"][a])) == REFERENCE),
        # as the paper's 2.65x / 3.36x: the mean over workloads of the per-job-set PCR ratio, above 1 for both
        "pcr_st1_above_singles": bool(avg(w["pcr"]["spottune-1"] / w["pcr"]["single-cheapest"]) > 1
                                      and avg(w["pcr"]["spottune-1"] / w["pcr"]["single-fastest"]) > 1),
    }
    if topk is not None:
        high = topk[topk["theta"] >= 0.7 - 1e-9]
        out["top3_at_07"] = bool(high["top3"].all())
    if errors is not None:
        out["earlycurve_better"] = bool(errors["earlycurve_error"].mean() < errors["single-stage_error"].mean())
    return out


def rules_comparison(job_sets, seeds, cfg: dict, variants=(("paper", "synthetic"), ("aws-2017", "synthetic"),
                                                            ("aws-today", "synthetic-today")),
                     grids: dict | None = None, runs_dir=None) -> pd.DataFrame:
    """Would SpotTune still save money under other rules? Mean over workloads of SpotTune's cost and JCT
    relative to Single-Spot (cheapest), and its free-step share, per (rules, market) variant. ``grids``:
    already computed Fig. 7 grids by rules name (reused); ``runs_dir``: as :func:`simulate_grid`."""
    rows = []
    grids = grids or {}
    for rule, prices in variants:
        grid = grids.get(rule)
        if grid is None:
            grid = simulate_grid(job_sets, seeds, S.FIG7_APPROACHES, sim_settings(cfg, rules=rule), cfg["market_days"],
                                 prices, runs_dir=runs_dir)
        per = per_job_set(grid)
        w = per.pivot(index="job_set", columns="approach", values=["cost", "jct_h", "free_step_share"])
        wt = pd.Series(job_set_weights(list(w.index)), index=w.index)       # means over workloads
        for ap in ("spottune-1", REFERENCE):
            rows.append({"rules": rule, "market": prices, "approach": ap,
                         "cost_vs_cheapest": float((w["cost"][ap] / w["cost"]["single-cheapest"] * wt).sum()),
                         "cost_vs_fastest": float((w["cost"][ap] / w["cost"]["single-fastest"] * wt).sum()),
                         "jct_vs_cheapest": float((w["jct_h"][ap] / w["jct_h"]["single-cheapest"] * wt).sum()),
                         "free_step_share": float((w["free_step_share"][ap] * wt).sum())})
    return pd.DataFrame(rows)
