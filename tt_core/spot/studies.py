"""SpotTune studies: the grids behind Figs 7-11, revocation statistics, and their timing.

Everything here is computed from simulations (:mod:`tt_core.spot.simulator`) on the workbook's
substituted workloads and prices; nothing here knows the paper's numbers (those live in
:mod:`tt_core.spot.report`). Aggregation rules (the paper says "averagely speaking" without a formula):

* each (job set, seed) is one simulation; per job set, costs, JCTs and PCRs are averaged over seeds;
* a ratio or saving "on average" is the mean over *workloads* of the per-job-set ratio: the 48 TrimTuner
  groups are two workloads (CNN and RNN: the same 12 settings on different clusters), each scikit-learn
  model one (:func:`job_set_weights`); "up to" is the largest workload mean;
* every Fig. 7-9 number has a seed interval (:func:`statement_intervals`: a percentile bootstrap over
  the seeds, the job sets fixed);
* PCR is normalised per job set to SpotTune (theta = 0.7), as in Fig. 7(c).
"""

from __future__ import annotations

import time

import numpy as np
import pandas as pd

from tt_core.spot import curves as C, earlycurve as ec, market as M, revpred as RP, simulator as S, workloads as W
from tt_core.spot.revocation import evaluate, forward_max, make_predictor
from tt_core.data.io import shown

REFERENCE = "spottune-0.7"
APPROACH_LABELS = {"single-cheapest": "Single-Spot Tune (cheapest)", "single-fastest": "Single-Spot Tune (fastest)",
                   "spottune-1": "SpotTune (θ=1.0)", "spottune-0.7": "SpotTune (θ=0.7)"}


def sim_settings(cfg: dict, **changes) -> S.Settings:
    """The simulator's settings from a profile's ``spottune`` study."""
    st = S.Settings(rules=cfg["rules"], predictor=cfg["predictor"], bid=cfg["bid"], k=cfg["k"],
                    fit_days=cfg["fit_days"])
    return S.with_settings(st, **changes) if changes else st


def study_job_sets(cfg: dict, progress: bool = False) -> list:
    """The profile's job sets: TrimTuner groups (``None``: all 48) and generated scikit-learn curves."""
    speed = W.SpeedModel(cfg["parallel_fraction"])
    sets = []
    groups = cfg["trimtuner"]
    for bench in ("cnn", "rnn"):
        mine = None if groups is None else [g for g in groups if g.startswith(bench + "/")]
        if mine == []:
            continue
        sets += W.trimtuner_job_sets(bench, reference_hours=cfg["reference_hours"], speed=speed,
                                     model_mb=cfg["model_mb"], groups=mine)
    if cfg["sklearn"]:
        sets += C.job_sets(cfg["sklearn"], cfg["curves"], seed=1, reference_hours=cfg["reference_hours"], speed=speed,
                           model_mb=cfg["model_mb"], progress=progress)
    return sets


_MARKETS: dict = {}


def cached_market(prices, seed: int, days: float) -> M.PriceTrace:
    """:func:`tt_core.spot.market.market`, kept for the process (a few markets: the grids of one notebook share
    them, and with them the fitted predictors of :func:`tt_core.spot.simulator.fitted_predictor`)."""
    key = (str(prices), int(seed), float(days))
    if key not in _MARKETS:
        if len(_MARKETS) >= 16:
            _MARKETS.clear()
        _MARKETS[key] = M.market(prices, seed=seed, days=days)
    return _MARKETS[key]


def study_market(cfg: dict, seed: int, prices="synthetic") -> M.PriceTrace:
    """The price trace of one seed: a synthetic market of ``market_days`` days, or the user's trace."""
    return cached_market(prices, seed, cfg["market_days"])


def run_grid(job_sets, seeds, approaches=S.FIG7_APPROACHES, settings: S.Settings | None = None, market_days=30.0,
             prices="synthetic", progress: bool = False) -> pd.DataFrame:
    """Every approach on every job set for every seed (one market per seed): one row per simulation with
    the summary keys of :func:`tt_core.spot.simulator.simulate`."""
    from tqdm.auto import tqdm

    rows = []
    bar = tqdm(total=len(seeds) * len(job_sets), desc="SpotTune simulations", disable=not progress)
    for seed in seeds:
        trace = cached_market(prices, seed, market_days)
        for js in job_sets:
            for r in S.compare(js, trace, approaches, settings, seed):
                rows.append(r.summary)
            bar.update()
    bar.close()
    return pd.DataFrame(rows)


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
    """§IV-B1's JCT and PCR ratios (mean over job sets, as :func:`paper_statements`) under both readings of
    JCT, from the same simulations: ending at the top-k selection (``jct_s``, the simulator's) and when the
    top-k have been trained to the end (``completion_s``). The baselines' two readings coincide."""
    keys = ("jct_fastest_over_st07", "jct_cheapest_over_st07", "pcr_st07_over_cheapest", "pcr_st07_over_fastest")
    rows = []
    for ends, col in (("selection", "jct_s"), ("top-k trained", "completion_s")):
        r = ratio_table(per_job_set(grid.assign(jct_s=grid[col]), reference))
        rows.append({"jct_ends": ends, "column": col, **{k: float(r[k].mean()) for k in keys}})
    return pd.DataFrame(rows)


def ratio_table(per: pd.DataFrame) -> pd.DataFrame:
    """Per job set, the ratios the paper quotes (see :func:`paper_statements`)."""
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


# ------------------------------------------------------------------------------------------------
# Workloads, weights and seed intervals
# ------------------------------------------------------------------------------------------------
#: Seed intervals: a percentile bootstrap over the seeds (markets and submission times), the job sets fixed.
INTERVAL_LEVEL = 0.95
N_BOOT = 2000
INTERVAL_METHOD = "95% percentile bootstrap over seeds ({n} seeds, {b} resamples)"


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


def _membership(names) -> tuple[list, np.ndarray]:
    """Workloads and the (job sets x workloads) matrix of within-workload mean weights."""
    wl = [workload_of(n) for n in names]
    order = list(dict.fromkeys(wl))
    m = np.zeros((len(names), len(order)))
    for j, w in enumerate(wl):
        m[j, order.index(w)] = 1.0
    return order, m / m.sum(axis=0, keepdims=True)


def _cubes(grid: pd.DataFrame, approaches, cols) -> tuple[list, list, dict]:
    """Per column, an array (seeds, job sets, approaches) of the grid's values; every cell must be present."""
    g = grid.assign(jct_h=grid["jct_s"] / 3600.0)
    seeds = sorted({int(x) for x in g["seed"]})
    sets = list(dict.fromkeys(g["job_set"]))
    out = {}
    for col in cols:
        t = g.pivot_table(index=["seed", "job_set"], columns="approach", values=col, aggfunc="mean")
        t = t.reindex(pd.MultiIndex.from_product([seeds, sets], names=["seed", "job_set"]))
        missing = [a for a in approaches if a not in t.columns]
        if missing or t[list(approaches)].isna().to_numpy().any():
            raise ValueError(f"the grid lacks simulations ({missing or 'some (seed, job set, approach)'}) for {col}")
        out[col] = t[list(approaches)].to_numpy(float).reshape(len(seeds), len(sets), len(approaches))
    return seeds, sets, out


def _boot_weights(n: int, n_boot: int, rng: np.random.Generator) -> np.ndarray:
    """(1 + n_boot, n) weights over ``n`` seeds: the plain mean first, then bootstrap resamples (counts / n);
    every column of a grid is resampled with the same rows, so ratios keep their seeds paired."""
    counts = rng.multinomial(n, np.full(n, 1.0 / n), size=n_boot) / n if n_boot > 0 else np.zeros((0, n))
    return np.vstack([np.full((1, n), 1.0 / n), counts])


def _resample_means(cube: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """Seed means of ``cube`` (seeds, ...) under each row of :func:`_boot_weights`."""
    return np.tensordot(weights, cube, axes=(1, 0))


_FIG7_ORDER = ("single-cheapest", "single-fastest", "spottune-1", REFERENCE)


def _fig79_values(m: dict, w: np.ndarray, member: np.ndarray) -> dict:
    """The statements from seed-mean arrays ``m[col]`` of shape (..., job sets, approaches in _FIG7_ORDER)."""
    c, j = m["cost"], m["jct_h"]
    pcr = 1.0 / (c * j)
    C, D, A, B = range(4)
    mean = lambda r: r @ w                      # noqa: E731  weighted mean over job sets (workloads equal)
    up_to = lambda r: (r @ member).max(axis=-1)  # noqa: E731  maximum over workloads of the workload mean
    return {
        "saving_st1_vs_cheapest": mean(1 - c[..., A] / c[..., C]),
        "saving_st1_vs_fastest": mean(1 - c[..., A] / c[..., D]),
        "saving_st07_vs_st1": mean(1 - c[..., B] / c[..., A]),
        "saving_st07_vs_cheapest_max": up_to(1 - c[..., B] / c[..., C]),
        "saving_st07_vs_fastest_max": up_to(1 - c[..., B] / c[..., D]),
        "jct_fastest_over_st07": mean(j[..., D] / j[..., B]),
        "jct_cheapest_over_st07": mean(j[..., C] / j[..., B]),
        "pcr_st1_over_cheapest": mean(pcr[..., A] / pcr[..., C]),
        "pcr_st1_over_fastest": mean(pcr[..., A] / pcr[..., D]),
        "pcr_st07_over_cheapest": mean(pcr[..., B] / pcr[..., C]),
        "pcr_st07_over_fastest": mean(pcr[..., B] / pcr[..., D]),
        "free_step_share_st07": mean(m["free_step_share"][..., B]),
        "free_step_share_st1": mean(m["free_step_share"][..., A]),
        "refunded_share_st07": mean(m["refunded_share"][..., B]),
        "refunded_share_st1": mean(m["refunded_share"][..., A]),
        "cost_st1_over_cheapest": mean(c[..., A] / c[..., C]),
        "jct_st1_over_cheapest": mean(j[..., A] / j[..., C]),
        "st07_cheapest_of_all": mean((c.argmin(axis=-1) == B).astype(float)),
    }


def statement_intervals(grid: pd.DataFrame, n_boot: int = N_BOOT, level: float = INTERVAL_LEVEL,
                        rng: np.random.Generator | None = None) -> pd.DataFrame:
    """Figs 7 and 9's numbers with seed intervals: one row per statement (``key``, ``value``: the point
    estimate of :func:`paper_statements`, ``lo``/``hi``: the percentile bootstrap over seeds, ``seeds``,
    ``workloads``, ``method``). Means are over workloads (:func:`job_set_weights`), "max" statements the
    largest workload mean. ``rng``: the bootstrap's stream (default ``numpy.random.default_rng(0)``)."""
    rng = rng if rng is not None else np.random.default_rng(0)
    seeds, sets, cubes = _cubes(grid, _FIG7_ORDER, ("cost", "jct_h", "free_step_share", "refunded_share"))
    w = job_set_weights(sets)
    workloads, member = _membership(sets)
    weights = _boot_weights(len(seeds), n_boot, rng)
    vals = _fig79_values({k: _resample_means(v, weights) for k, v in cubes.items()}, w, member)
    a = (1 - level) / 2
    method = INTERVAL_METHOD.format(n=len(seeds), b=n_boot)
    q = (lambda v, x: float(np.quantile(v[1:], x))) if n_boot > 0 else (lambda v, x: float("nan"))
    return pd.DataFrame([{"key": k, "value": float(v[0]), "lo": q(v, a),
                          "hi": q(v, 1 - a), "seeds": len(seeds), "job_sets": len(sets),
                          "workloads": len(workloads), "method": method} for k, v in vals.items()])


def theta_intervals(theta: pd.DataFrame, n_boot: int = N_BOOT, level: float = INTERVAL_LEVEL,
                    rng: np.random.Generator | None = None) -> pd.DataFrame:
    """Fig. 8's numbers with seed intervals, from :func:`theta_sweep`: per theta, cost and JCT relative to the
    largest theta (per job set, seed means, then the mean over workloads) and the top-1 / top-3 shares
    (mean over workloads); ``value`` plus ``lo``/``hi`` (percentile bootstrap over seeds) per quantity."""
    rng = rng if rng is not None else np.random.default_rng(0)
    thetas = sorted({float(t) for t in theta["theta"]})
    names = [theta.loc[theta["theta"] == t, "approach"].iloc[0] for t in thetas]
    seeds, sets, cubes = _cubes(theta, names, ("cost", "jct_h", "top1", "top3"))
    weights = _boot_weights(len(seeds), n_boot, rng)
    m = {k: _resample_means(v.astype(float), weights) for k, v in cubes.items()}
    w = job_set_weights(sets)
    a = (1 - level) / 2
    qs = {"cost_vs_max_theta": m["cost"] / m["cost"][..., -1:], "jct_vs_max_theta": m["jct_h"] / m["jct_h"][..., -1:],
          "top1": m["top1"], "top3": m["top3"]}
    rows = []
    for i, t in enumerate(thetas):
        row = {"theta": t}
        for q, arr in qs.items():
            v = np.tensordot(arr[..., i], w, axes=(1, 0))            # (1 + B,)
            row[q] = float(v[0])
            row[q + "_lo"] = float(np.quantile(v[1:], a)) if n_boot else float("nan")
            row[q + "_hi"] = float(np.quantile(v[1:], 1 - a)) if n_boot else float("nan")
        rows.append(row)
    return pd.DataFrame(rows).assign(method=INTERVAL_METHOD.format(n=len(seeds), b=n_boot))


#: Fig. 8's shape claims, as read here: "proportional" and "near-linear" mean a correlation (cost) and an
#: R² of a straight line (JCT) of at least this, over the θ grid, on the means over workloads.
SHAPE_THRESHOLD = 0.9


def theta_shape(table: pd.DataFrame, threshold: float = SHAPE_THRESHOLD) -> tuple[dict, dict]:
    """Fig. 8's shape claims from :func:`theta_intervals`: ``({"fig8_cost_rises", "fig8_jct_linear"} -> bool,
    the same keys -> the measured correlation / R² as text)``."""
    th = table["theta"].to_numpy(float)
    r_cost = float(np.corrcoef(th, table["cost_vs_max_theta"])[0, 1])
    r_jct = float(np.corrcoef(th, table["jct_vs_max_theta"])[0, 1])
    values = {"fig8_cost_rises": r_cost >= threshold, "fig8_jct_linear": r_jct ** 2 >= threshold}
    grid = ", ".join(f"{t:g}" for t in th)
    text = {"fig8_cost_rises": f"correlation of the mean cost ratio with θ {r_cost:.3f} over θ = {grid}",
            "fig8_jct_linear": f"R² of a straight line through the mean JCT ratios {r_jct ** 2:.3f} over θ = {grid}"}
    return values, text


def paper_statements(per: pd.DataFrame, grid: pd.DataFrame) -> dict:
    """The workbook's values of the paper's §IV-B/IV-C statements: per job set the seed means, then the
    mean over workloads of the per-job-set ratios (the 48 TrimTuner groups count as two workloads), "max":
    the largest workload mean (:func:`statement_intervals` adds the seed intervals). ``per`` is unused
    (kept for callers that have it)."""
    t = statement_intervals(grid, n_boot=0)
    return dict(zip(t["key"], t["value"].astype(float)))


def refund_shares(grid: pd.DataFrame, approaches=("spottune-1", "spottune-0.7")) -> pd.DataFrame:
    """Fig. 9: share of steps run on refunded instances and share of the usage refunded, per job set."""
    g = grid[grid["approach"].isin(approaches)]
    out = g.groupby(["job_set", "approach"], sort=False)[["free_step_share", "refunded_share"]].mean().reset_index()
    out["prices"] = grid_prices_label(grid)
    return out


def theta_sweep(job_sets, seeds, thetas, settings: S.Settings | None = None, market_days=30.0, prices="synthetic",
                progress: bool = False) -> pd.DataFrame:
    """Fig. 8: SpotTune at each theta: cost, JCT, top-1 and top-3 per job set and seed."""
    aps = [S.spottune(t) for t in thetas]
    return run_grid(job_sets, seeds, aps, settings, market_days, prices, progress)


def prediction_errors(job_set, theta: float = 0.7) -> pd.DataFrame:
    """Fig. 11(b): per setting, the relative error of the final metric predicted from ``theta`` of the steps
    by EarlyCurve and by the single-stage fit, and the number of stages Eq. 7 found."""
    rows = []
    for i, job in enumerate(job_set.jobs):
        k = ec.theta_steps(theta, job.max_steps)
        part = job.metric[:k]
        true = job.final_metric
        row = {"job_set": job_set.name, "setting": i, "name": job.name, "steps_seen": k, "max_steps": job.max_steps,
               "stages": len(ec.stage_starts(part)), "true_final": true}
        for method in ec.METHODS:
            pred = ec.predict_final(part, job.max_steps, method)
            row[f"{method}_pred"] = pred
            row[f"{method}_error"] = abs(pred - true) / abs(true) if true else np.nan
        rows.append(row)
    return pd.DataFrame(rows)


#: A job set "has stages" (Fig. 11's claim can be tested on it) when Eq. 7 splits at least this share of its
#: curves into more than one stage (the paper's Fig. 11: ResNet with step-decay learning rates).
STAGED_SHARE = 0.5


def earlycurve_claim(errors: pd.DataFrame, min_share: float = STAGED_SHARE) -> tuple[bool | None, str]:
    """Fig. 11(b)'s claim (EarlyCurve's mean error below the single-stage fit's) on the job sets with stages.

    Returns ``(value, why)``: ``value`` None when no job set of ``errors`` (:func:`prediction_errors`) has
    at least ``min_share`` of its curves split into stages (on a one-stage curve the two fits are the same
    fit, so the claim cannot be compared), ``why`` saying which job sets it was computed on or why not."""
    per = errors.assign(staged=errors["stages"] > 1).groupby("job_set")["staged"].mean()
    keep = sorted(per[per >= min_share].index)
    n_staged = int((errors["stages"] > 1).sum())
    if not keep:
        return None, (f"no workload with learning-rate stages: Eq. 7 split {n_staged} of {len(errors)} curves into "
                      f"stages, no job set has {100 * min_share:g}% or more staged (on a one-stage curve EarlyCurve "
                      "and the single-stage fit are the same fit)")
    e = errors[errors["job_set"].isin(keep)]
    return bool(e["earlycurve_error"].mean() < e["single-stage_error"].mean()), \
        f"computed on the {len(keep)} job set(s) with stages: {', '.join(keep)}"


def topk_claim(job_sets, thetas, k: int = 3, method: str = "earlycurve") -> pd.DataFrame:
    """Top-1 / top-3 hit of EarlyCurve's ranking at each theta on each job set (no market involved: the
    selection depends only on the curves). The plateau stop is applied as in the simulator."""
    rows = []
    for js in job_sets:
        best = js.true_best()
        for theta in thetas:
            pred = []
            for job in js.jobs:
                n1 = ec.theta_steps(theta, job.max_steps)
                if theta >= 1:
                    pred.append(job.final_metric)
                    continue
                p = ec.plateau_step(job.metric, job.max_steps)
                if p is not None and p < n1:
                    pred.append(float(job.metric[p - 1]))
                else:
                    pred.append(ec.predict_final(job.metric[:n1], job.max_steps, method))
            order = np.argsort(pred, kind="stable")
            rows.append({"job_set": js.name, "theta": theta, "top1": bool(order[0] == best),
                         "top3": bool(best in order[:3]), "best_found": bool(best in order[:k])})
    return pd.DataFrame(rows)


def revocation_stats(trace, margins=(0.0, 0.01, 0.05, 0.1, 0.25, 0.5, 1.0), start: float = 0.0,
                     end: float | None = None) -> pd.DataFrame:
    """Per type and relative bid margin: the fraction of minutes from which a bid that much above the price
    is crossed within the hour, and the trace's price statistics (``prices``: :func:`prices_label`)."""
    rows = []
    lo = int(start // 60)
    for name in trace.types:
        p = trace.series(name)
        hi = len(p) if end is None else int(end // 60)
        fm = forward_max(p)[lo:hi]
        cur = p[lo:hi]
        ok = ~np.isnan(fm)
        rise = fm[ok] / cur[ok] - 1.0
        od = M.instance(name).on_demand
        for m in margins:
            rows.append({"type": name, "margin": m, "p_revoked_within_hour": float((rise > m).mean()),
                         "mean_price": float(cur.mean()), "mean_fraction_of_on_demand": float(cur.mean() / od),
                         "minutes_above_on_demand_per_day": float((cur > od).mean() * 1440),
                         "price_changes_per_hour": float((np.diff(cur) != 0).mean() * 60),
                         "prices": prices_label(trace)})
    return pd.DataFrame(rows)


def predictor_scores(trace, fit_days: float = 9.0, test_days: float = 3.0, names=("empirical", "logistic")) -> pd.DataFrame:
    """Fig. 10-style accuracy and F1 of the predictors: trained on the first ``fit_days``, tested on the next
    ``test_days`` (the paper: 04/26-05/04, then 05/05-05/07); ``prices``: :func:`prices_label`."""
    out = []
    for n in names:
        pred = make_predictor(n).fit(trace, until=fit_days * 86400)
        out.append(evaluate(pred, trace, fit_days * 86400, (fit_days + test_days) * 86400))
    return pd.concat(out, ignore_index=True).assign(prices=prices_label(trace))


# ------------------------------------------------------------------------------------------------
# Fig. 10: RevPred, Tributary's predictor and logistic regression
# ------------------------------------------------------------------------------------------------
#: Fig. 10's predictors, in the paper's legend order.
FIG10_PREDICTORS = ("revpred", "tributary", "logistic")


#: The paper's calendar split of Fig. 10 on the real 2017 trace (UTC): train 04/26-05/04, i.e. until
#: 05-05 00:00; test 05/05-05/07, i.e. from 05-05 00:00 until 05-08 00:00.
PAPER_TRAIN_FROM = pd.Timestamp("2017-04-26 00:00", tz="UTC")
PAPER_TEST_FROM = pd.Timestamp("2017-05-05 00:00", tz="UTC")
PAPER_TEST_END = pd.Timestamp("2017-05-08 00:00", tz="UTC")


def _paper_dates_error(trace) -> M.SpotError:
    end = trace.start + pd.Timedelta(minutes=trace.n_minutes)
    return M.SpotError(f"the price trace ({trace.source}) covers {trace.start:%Y-%m-%d %H:%M} to {end:%Y-%m-%d %H:%M} "
                       "UTC; Fig. 10 on a real trace uses the paper's split, train 2017-04-26 to 2017-05-04 and test "
                       "2017-05-05 to 2017-05-07 (UTC), so the trace must start on 2017-04-26 and reach "
                       "2017-05-08 00:00: use the 2017 trace (or the synthetic market)")


def fig10_trace(trace) -> M.PriceTrace:
    """Fig. 10's trace: a synthetic one as it is; a real one from 2017-04-26 00:00 UTC (earlier minutes
    dropped), with a SpotError (one line naming the dates) unless it covers the paper's split
    (:func:`fig10_split`)."""
    if trace.synthetic:
        return trace
    if trace.start < PAPER_TRAIN_FROM:
        k = int((PAPER_TRAIN_FROM - trace.start) // pd.Timedelta(minutes=1))
        if k >= trace.n_minutes:
            raise _paper_dates_error(trace)
        trace = M.PriceTrace(trace.start + pd.Timedelta(minutes=k), {n: trace.series(n)[k:].copy() for n in trace.types},
                             trace.source, trace.synthetic, trace.resampling)
    fig10_split(trace, {})
    return trace


def fig10_split(trace, cfg: dict) -> tuple[float, float]:
    """Fig. 10's split, in seconds from the trace's start: ``(fit_end, test_end)``; the predictors are
    fitted on ``[0, fit_end)`` and tested on ``[fit_end, test_end)``.

    * synthetic trace: the first ``cfg["fit_days"]`` days, then the next ``cfg["test_days"]``;
    * real trace: the paper's calendar split (UTC), train from the trace's start (which must lie on
      2017-04-26, see :func:`fig10_trace`) to 2017-05-05 00:00, test from 2017-05-05 00:00 to
      2017-05-08 00:00 (the last test minute needs its hour after it in the trace, as every test minute).
      A trace not covering these dates is a SpotError naming them.
    """
    if trace.synthetic:
        return cfg["fit_days"] * 86400.0, (cfg["fit_days"] + cfg["test_days"]) * 86400.0
    end = trace.start + pd.Timedelta(minutes=trace.n_minutes)
    if not (PAPER_TRAIN_FROM <= trace.start < PAPER_TRAIN_FROM + pd.Timedelta(days=1) and end >= PAPER_TEST_END):
        raise _paper_dates_error(trace)
    return ((PAPER_TEST_FROM - trace.start).total_seconds(), (PAPER_TEST_END - trace.start).total_seconds())


def revpred_market(cfg: dict, prices="synthetic", seed: int = 1) -> M.PriceTrace:
    """Fig. 10's trace: ``market_days`` of the synthetic market (or the user's trace, from 2017-04-26,
    :func:`fig10_trace`), the profile's types."""
    trace = fig10_trace(cached_market(prices, seed, cfg["market_days"]))
    if cfg.get("types"):
        trace = trace.subset(cfg["types"])
    need = fig10_split(trace, cfg)[1]
    if trace.duration_s < need:
        raise M.SpotError(f"the price trace covers {trace.duration_s / 86400:.2f} days; Fig. 10 trains on "
                          f"{cfg['fit_days']:g} and tests on {cfg['test_days']:g} days: use a longer trace")
    return trace


def label_rates(trace, cfg: dict) -> pd.DataFrame:
    """How often the training label is positive per type under each choice of the training maximum price:
    Alg. 2 (RevPred) and a random delta in each of ``cfg["label_deltas"]`` (Tributary: the first), on the
    fit period of :func:`fig10_split`."""
    end = int(fig10_split(trace, cfg)[0] // 60)
    rows = []
    for i, name in enumerate(trace.types):
        choices = [("Alg. 2 (RevPred)", "algorithm2", None)]
        choices += [(f"random delta in [{lo:g}, {hi:g}]" + (" (Tributary)" if j == 0 else ""), "random", (lo, hi))
                    for j, (lo, hi) in enumerate(cfg["label_deltas"])]
        for label, how, delta in choices:
            data = RP.training_set(trace, name, end, how, 1, np.random.default_rng([cfg["seed"], i, 29]),
                                   delta or tuple(cfg["delta"]))
            margin = data["bids"] - trace.series(name)[data["minutes"]]
            rows.append({"type": name, "max_price": label, "samples": len(data["labels"]),
                         "positive_rate": data["P"], "median_delta_usd": float(np.median(margin)),
                         "median_delta_of_price": float(np.median(margin / trace.series(name)[data["minutes"]]))})
    return pd.DataFrame(rows)


def fig10_predictors(trace, cfg: dict, names=FIG10_PREDICTORS, progress: bool = False) -> dict:
    """Each predictor fitted on the fit period of :func:`fig10_split` (the trace's first ``fit_days``, or
    until 2017-05-05 on a real trace; the LSTMs with the profile's :class:`~tt_core.spot.revpred.NetSettings`,
    trained or read from the weight cache)."""
    from tqdm.auto import tqdm

    settings = RP.settings_from(cfg)
    until = fig10_split(trace, cfg)[0]
    out = {}
    for n in tqdm(names, desc="fitting predictors", disable=not progress):
        out[n] = RP.make_predictor(n, settings).fit(trace, until=until)
    return out


def fit_table(predictors: dict) -> pd.DataFrame:
    """Per LSTM predictor and type: training samples, positive fraction, CPU seconds, cached or trained."""
    rows = [{"predictor": n, "type": t, **{k: v for k, v in info.items() if k not in ("path", "weight_positive",
                                                                                     "weight_negative")}}
            for n, p in predictors.items() for t, info in getattr(p, "fit_info", {}).items()]
    return pd.DataFrame(rows)


def fig10_scores(trace, predictors: dict, cfg: dict, bids=("random", "algorithm2")) -> pd.DataFrame:
    """Fig. 10(a, b): accuracy and F1 per type and predictor on the test days after the fit period
    (:func:`fig10_split`), at random maximum prices (the paper's inference rule, seeded) and at Alg. 2
    ones (for comparison)."""
    start, end = fig10_split(trace, cfg)
    out = [evaluate(p, trace, start, end, cfg["test_stride"], bids=b, seed=cfg["seed"], delta=tuple(cfg["delta"]))
           for b in bids for p in predictors.values()]
    return pd.concat(out, ignore_index=True)


def fig10_gains(scores: pd.DataFrame, bids: str = "random", over: str = "tributary") -> dict:
    """RevPred's gains over ``over``: relative gain of the mean over types of accuracy and of F1
    (``mean(RevPred) / mean(other) - 1``, the reading of the paper's "+20.32%"; F1 undefined for a type
    where neither predicts nor has a positive sample is left out), and the same as points."""
    s = scores[scores["bids"] == bids]
    m = s.groupby("predictor")[["accuracy", "f1"]].mean()
    out = {}
    for col in ("accuracy", "f1"):
        a, b = float(m.loc["revpred", col]), float(m.loc[over, col])
        out[f"{col}_gain"] = a / b - 1 if b > 0 else float("nan")
        out[f"{col}_points"] = a - b
        out[f"{col}_revpred"], out[f"{col}_{over}"] = a, b
    return out


def fig10c_job_sets(cfg: dict, spot_cfg: dict, progress: bool = False) -> list:
    """Fig. 10(c)'s job sets: the ``revpred`` study's TrimTuner groups and scikit-learn curves, built as
    Fig. 7's (:func:`study_job_sets`, with the ``spottune`` study's time scale and speed model)."""
    return study_job_sets({**spot_cfg, "trimtuner": cfg["trimtuner"], "sklearn": cfg["sklearn"],
                           "curves": cfg["curves"]}, progress)


def fig10c_grid(job_sets, trace, predictors: dict, seeds, cfg: dict, spot_cfg: dict, progress: bool = False,
                deployments: list | None = None, approaches=None) -> pd.DataFrame:
    """Fig. 10(c): SpotTune (``cfg["fig10c_approach"]``) on every job set and seed with each fitted predictor
    plugged into the provisioner, bids ``cfg["fig10c_bid"]``; one row per simulation (plus ``predictor``).

    ``approaches``: names of approaches to run instead (e.g. Fig. 7's four, for Figs 7 and 9 with each
    predictor in the loop); a single-spot baseline uses no predictor, so it is simulated once per (job set,
    seed) and its row repeated under every predictor's name. ``deployments``: a list to which each SpotTune
    simulation's timeline is appended (with ``predictor``, ``seed`` and ``job_set``), for :func:`calibration`."""
    from tqdm.auto import tqdm

    st = sim_settings(spot_cfg, bid=cfg["fig10c_bid"], fit_days=fig10_split(trace, cfg)[0] / 86400,
                      types=tuple(trace.types))
    aps = [S.approach(a) for a in (approaches or [cfg["fig10c_approach"]])]
    rows = []
    bar = tqdm(total=len(seeds) * len(job_sets) * len(predictors) * len(aps), desc="Fig. 10(c) simulations",
               disable=not progress)
    for seed in seeds:
        for js in job_sets:
            for ap in aps:
                if ap.kind == "single":
                    r = S.simulate(js, trace, ap, st, seed)
                    rows += [{**r.summary, "predictor": name} for name in predictors]
                    bar.update(len(predictors))
                    continue
                for name, pred in predictors.items():
                    r = S.simulate(js, trace, ap, S.with_settings(st, predictor=name), seed, predictor=pred)
                    rows.append({**r.summary, "predictor": name})
                    if deployments is not None:
                        deployments.append(r.timeline.assign(predictor=name, seed=seed, job_set=js.name))
                    bar.update()
    bar.close()
    return pd.DataFrame(rows)


def predictor_statements(grid: pd.DataFrame, n_boot: int = N_BOOT, rng: np.random.Generator | None = None) -> pd.DataFrame:
    """Figs 7 and 9's numbers per predictor in the loop (a :func:`fig10c_grid` with Fig. 7's four approaches):
    :func:`statement_intervals` of each predictor's simulations, with a ``predictor`` column."""
    rng = rng if rng is not None else np.random.default_rng(0)
    return pd.concat([statement_intervals(g, n_boot, rng=rng).assign(predictor=name)
                      for name, g in grid.groupby("predictor", sort=False)], ignore_index=True)


def fig10c_summary(grid: pd.DataFrame, reference: str = "tributary") -> pd.DataFrame:
    """Per predictor: seed-mean cost, JCT and PCR per job set normalised to ``reference``, averaged over
    job sets (the aggregation rule of this module's docstring)."""
    g = grid.assign(jct_h=grid["jct_s"] / 3600.0)
    mean = g.groupby(["job_set", "predictor"], sort=False)[["cost", "jct_h", "revocations", "free_step_share"]].mean()
    mean["pcr"] = 1.0 / (mean["jct_h"] * mean["cost"])
    ref = mean.xs(reference, level="predictor")
    per = mean.reset_index()
    for col in ("cost", "jct_h", "pcr"):
        per[f"{col}_norm"] = per[col] / per["job_set"].map(ref[col])
    order = list(dict.fromkeys(grid["predictor"]))
    out = per.groupby("predictor", sort=False)[["cost", "jct_h", "pcr", "cost_norm", "jct_h_norm", "pcr_norm",
                                                "revocations", "free_step_share"]].mean()
    return out.reindex(order).reset_index()


def revpred_settings_table(cfg: dict, prices_label: str, n_job_sets: int, synthetic: bool = True) -> pd.DataFrame:
    """Fig. 10's settings beside the paper's (for notebook 15; ``synthetic``: the trace's, which decides
    the split, :func:`fig10_split`)."""
    split = (f"first {cfg['fit_days']:g} days / next {cfg['test_days']:g} days" if synthetic else
             "trace start (2017-04-26) to 2017-05-04 / 2017-05-05 to 2017-05-07 (UTC)")
    rows = [
        ("prices", prices_label, "AWS Spot Pricing Market, us-east-1, 2017-04-26 to 05-08, interpolated"),
        ("instance types", ", ".join(cfg["types"]) if cfg.get("types") else "the six of Table III", "the six of Table III"),
        ("train / test", split, "04/26-05/04 / 05/05-05/07"),
        ("training samples", f"one every {cfg['stride']} minute(s)", "every minute"),
        ("test samples", f"one every {cfg['test_stride']} minute(s)", "every minute (not stated)"),
        ("history / present", f"{RP.HISTORY} records x 6 features / 6 features + maximum price",
         "59 records x 6 features / 6 features + maximum price"),
        ("training maximum price", f"RevPred Alg. 2; Tributary present + U{list(cfg['delta'])} USD/h",
         "RevPred Alg. 2; Tributary present + U[0.00001, 0.2]"),
        ("inference maximum price", f"present + U{list(cfg['delta'])} USD/h (seeded)", "random, as Tributary"),
        ("RevPred network", f"3-layer LSTM ({cfg['hidden']} units) + 3 FC layers ({cfg['hidden']} units) -> 1 sigmoid",
         "3-tier LSTM + 3 FC layers (sizes not stated)"),
        ("Tributary network", f"1-layer LSTM ({cfg['hidden']} units) over 60 records -> 1 sigmoid",
         "LSTM (re-implemented by the authors; not stated)"),
        ("training", f"Adam lr {cfg['lr']:g}, {cfg['epochs']} epochs, batch {cfg['batch_size']}, class weights N/P, "
                     f"seed {cfg['seed']}, {cfg['threads']} CPU thread(s)", "class weights N/P (optimiser not stated)"),
        ("probability", "Eq. 3 reconstructed: o P / (o P + (1 - o) N)", "Eq. 3 (lost in extraction)"),
        ("Fig. 10(c)", f"{cfg['fig10c_approach']} on {n_job_sets} job sets x seeds {cfg['seeds']}, bids "
                       f"{cfg['fig10c_bid']}", "SpotTune with each predictor (workloads of Fig. 7)"),
    ]
    return pd.DataFrame(rows, columns=["setting", "this workbook", "paper"])


def bench_revpred(cfg: dict, prices="synthetic", seed: int = 1, name: str | None = None,
                  n_infer: int = 2000) -> pd.DataFrame:
    """CPU seconds of training and inference per 1000 windows for each LSTM (one type, the profile's
    settings, no weight cache): training per 1000 windows per epoch, batched inference, and one
    provisioner-style query (a single window)."""
    import time

    trace = revpred_market(cfg, prices, seed)
    name = name or trace.types[0]
    one = trace.subset([name])
    settings = RP.settings_from(cfg)
    until = fig10_split(one, cfg)[0]
    rows = []
    for kind in RP.KINDS:
        pred = RP.LSTMPredictor(kind, settings, cache=False).fit(one, until=until)
        info = pred.fit_info[name]
        lo = int(until // 60)
        minutes = np.arange(lo, lo + n_infer) % (one.n_minutes - 60)
        p = one.series(name)
        c0 = time.process_time()
        pred.probabilities(name, p[minutes] + 0.01, minutes)
        infer = time.process_time() - c0
        c0 = time.process_time()
        for m in minutes[:200]:
            pred.probability(name, float(p[m]) + 0.01, 60.0 * m)
        single = (time.process_time() - c0) / 200
        rows.append({"model": kind, "type": name, "samples": info["samples"], "epochs": settings.epochs,
                     "hidden": settings.hidden, "threads": settings.threads, "train_cpu_s": info["cpu_s"],
                     "train_cpu_s_per_1000_windows_epoch": info["cpu_s"] / (info["samples"] * settings.epochs) * 1000,
                     "infer_cpu_s_per_1000_windows": infer / n_infer * 1000,
                     "single_query_cpu_ms": single * 1000})
    return pd.DataFrame(rows)


def bench_fig7(cfg: dict, prices="synthetic", repeats: int = 1) -> dict:
    """CPU and wall seconds of a whole Fig. 7 grid of the profile (markets, predictor fits, simulations).
    The job sets are built first (and the curve cache filled) outside the timing."""
    sets = study_job_sets(cfg)
    st = sim_settings(cfg)
    cpu, wall = [], []
    for _ in range(repeats):
        S._PREDICTORS.clear()
        c0, w0 = time.process_time(), time.perf_counter()
        grid = run_grid(sets, cfg["seeds"], S.FIG7_APPROACHES, st, cfg["market_days"], prices)
        cpu.append(time.process_time() - c0)
        wall.append(time.perf_counter() - w0)
    return {"profile": cfg.get("name", ""), "job_sets": len(sets), "seeds": len(cfg["seeds"]),
            "simulations": int(len(grid)), "cpu_s": float(np.median(cpu)), "wall_s": float(np.median(wall)),
            "cpu_s_per_simulation": float(np.median(cpu) / len(grid))}


def resolve_job_set(spec: str, reference_hours: float | None = None,
                    parallel_fraction: float = W.DEFAULT_PARALLEL_FRACTION, model_mb: float = W.DEFAULT_MODEL_MB,
                    curves_profile: str = "quick", seed: int = 1):
    """A job set by name: a TrimTuner group (``cnn/t2.small-x8``), ``sklearn/<algorithm>`` (generated and
    cached), or the path of a job-set CSV (:func:`tt_core.spot.workloads.read_job_csv`).

    ``reference_hours``: the median job's hours on r4.large; default 4 h for the substituted workloads,
    and no rescaling of a user's own step times."""
    from pathlib import Path

    speed = W.SpeedModel(parallel_fraction)
    if Path(spec).suffix.lower() == ".csv" or Path(spec).exists():
        return W.read_job_csv(spec, speed, reference_hours, model_mb)
    reference_hours = W.DEFAULT_REFERENCE_HOURS if reference_hours is None else reference_hours
    if spec.startswith(("cnn/", "rnn/")):
        return W.trimtuner_job_sets(spec.split("/")[0], reference_hours=reference_hours, speed=speed,
                                    model_mb=model_mb, groups=[spec])[0]
    if spec.startswith("sklearn/"):
        return C.job_sets([spec.split("/", 1)[1]], curves_profile, seed, reference_hours, speed, model_mb)[0]
    raise W.SpotError(f"unknown workload {shown(spec)}; give a TrimTuner group such as cnn/t2.small-x8 (see `tt spot data "
                      f"list`), sklearn/<{'|'.join(C.ALGORITHMS)}>, or a job-set CSV path")


def workload_names() -> list[str]:
    """Every named workload: the TrimTuner groups whose data are found, and the scikit-learn algorithms."""
    names = []
    for bench in ("cnn", "rnn"):
        try:
            names += [s.name for s in W.trimtuner_job_sets(bench)]
        except ValueError:
            pass
    return names + [f"sklearn/{a}" for a in C.ALGORITHMS]


def claims(per: pd.DataFrame, topk: pd.DataFrame | None = None, errors: pd.DataFrame | None = None) -> dict:
    """The workbook's truth values of the paper's direction/ordering claims (keys of
    :data:`tt_core.spot.report.CLAIMS`); each is computed from the seed means per job set; "on average" is
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


def settings_table(cfg: dict, n_job_sets: int, prices_label: str) -> pd.DataFrame:
    """The profile's settings beside the paper's (for the notebooks)."""
    rows = [
        ("workloads", f"{n_job_sets} job sets: TrimTuner curves {cfg['trimtuner'] or 'all 48 groups'}, "
                      f"scikit-learn {cfg['sklearn']} ({cfg['curves']})",
         "6 benchmarks (LoR, SVM, GBTR, LiR, AlexNet, ResNet), Table II"),
        ("prices", prices_label, "AWS Spot Pricing Market, us-east-1, 2017-04-26 to 05-08"),
        ("billing and revocation", cfg["rules"], "per second; revoked above the maximum price; first hour refunded"),
        ("revocation predictor", cfg["predictor"], "RevPred (LSTM)"),
        ("predictor trained on", f"first {cfg['fit_days']:g} days", "04/26-05/04 (9 days)"),
        ("maximum price", cfg["bid"], "not stated (aggressive bidding, §II-A)"),
        ("theta", "0.7 and 1.0 (Fig. 7); " + ", ".join(f"{t:g}" for t in cfg["thetas"]) + " (Fig. 8)",
         "0.7 and 1.0; 0.1 to 1.0"),
        ("k (top-k trained to the end)", cfg["k"], "not stated"),
        ("seeds (markets, submission times)", cfg["seeds"], "one trace"),
        ("time scale", f"median job {cfg['reference_hours']:g} h on r4.large", "measured step times (not published)"),
        ("speed model", f"Amdahl, parallel fraction {cfg['parallel_fraction']:g}, ECU per vCPU",
         "measured per instance (Fig. 6, not published)"),
        ("model size", f"{cfg['model_mb']:g} MB", "per benchmark (not stated)"),
    ]
    return pd.DataFrame(rows, columns=["setting", "this workbook", "paper"])


def rules_comparison(job_sets, seeds, cfg: dict, variants=(("paper", "synthetic"), ("aws-2017", "synthetic"),
                                                            ("aws-today", "synthetic-today")),
                     grids: dict | None = None) -> pd.DataFrame:
    """Would SpotTune still save money under other rules? Mean over workloads of SpotTune's cost and JCT
    relative to Single-Spot (cheapest), and its free-step share, per (rules, market) variant. ``grids``:
    already computed Fig. 7 grids by rules name (reused)."""
    rows = []
    grids = grids or {}
    for rule, prices in variants:
        grid = grids.get(rule)
        if grid is None:
            grid = run_grid(job_sets, seeds, S.FIG7_APPROACHES, sim_settings(cfg, rules=rule), cfg["market_days"],
                            prices)
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


# ------------------------------------------------------------------------------------------------
# The settings the paper does not state, swept
# ------------------------------------------------------------------------------------------------
#: Bid rules of the sweep: the current price plus a relative margin (0, 5%, 25%), Alg. 2's margin (the
#: default) and Tributary's random margin (as Fig. 10(c) and the paper's inference).
SENSITIVITY_BIDS = (0.0, 0.05, "algorithm2", 0.25, "tributary")
#: Amdahl's parallel fractions of the sweep (the default 0.9 is an assumption, see the speed model).
SENSITIVITY_FRACTIONS = (0.5, 0.7, 0.9, 0.95)
#: Start-up times (s; the simulator assumes 60) and model sizes (MB; the profiles assume 100) of the sweep.
SENSITIVITY_STARTUPS = (0.0, 60.0, 300.0)
SENSITIVITY_MODEL_MB = (100.0, 1024.0, 5120.0)
#: The sweep's quantities: (SpotTune approach, baseline) -> ratio keys.
_SWEEP_APPROACHES = ("spottune-1", REFERENCE)
_SWEEP_BASELINES = ("single-cheapest", "single-fastest")


def bid_label(bid) -> str:
    """``0.05 -> "+5%"``, ``"algorithm2" -> "Alg. 2 margin"``, ``"tributary" -> "random (Tributary)"``."""
    if bid == "algorithm2":
        return "Alg. 2 margin"
    if bid == "tributary":
        return "random (Tributary)"
    return f"+{100 * float(bid):g}%"


def check_bid(bid):
    """A bid rule as the provisioner takes it: "algorithm2", "tributary" or a relative margin >= 0 (a number or
    its text); anything else is a SpotError naming the choices."""
    if bid in ("algorithm2", "tributary"):
        return bid
    try:
        m = float(bid)
    except (TypeError, ValueError):
        m = float("nan")
    if not (m >= 0 and np.isfinite(m)):
        raise W.SpotError(f"bid rule must be 'algorithm2', 'tributary' or a relative margin >= 0 (0.05 = 5% above the "
                          f"price), got {shown(bid)}")
    return m


def sensitivity(cfg: dict, seeds=None, bids=SENSITIVITY_BIDS, fractions=SENSITIVITY_FRACTIONS, prices="synthetic",
                base_grid: pd.DataFrame | None = None, progress: bool = False, startups=SENSITIVITY_STARTUPS,
                model_sizes=SENSITIVITY_MODEL_MB) -> pd.DataFrame:
    """SpotTune (theta 1 and 0.7) against both single-spot baselines as one unstated setting changes at a time,
    the others at the profile's values: the bid rule, Amdahl's parallel fraction, the start-up time (s) and
    the model size (MB, the checkpoints' and restores' time).

    One simulation per (setting, job set, seed, approach); simulations that do not depend on the changed
    setting are shared (the baselines never bid; the profile's own setting is simulated once).
    ``base_grid``: the Fig. 7 grid at the profile's own settings (reused). Returns the grid rows plus
    ``axis``, ``setting``, ``bid``, ``parallel_fraction``, ``startup_s`` and ``model_mb``, ordered by axis."""
    seeds = list(cfg["seeds"] if seeds is None else seeds)
    bids = [check_bid(b) for b in bids]
    fractions = [float(f) for f in fractions]
    for f in fractions:
        if not 0 < f <= 1:
            raise W.SpotError(f"parallel fraction must lie in (0, 1], got {shown(f)}")
    startups, model_sizes = [float(x) for x in startups], [float(x) for x in model_sizes]
    for name, vals in (("start-up time", startups), ("model size", model_sizes)):
        if any(not (np.isfinite(v) and v >= 0) for v in vals):
            raise W.SpotError(f"{name} must be >= 0, got {vals}")
    f0, b0, m0 = float(cfg["parallel_fraction"]), check_bid(cfg["bid"]), float(cfg["model_mb"])
    s0 = float(sim_settings(cfg).startup_s)
    variants = ([("bid", bid_label(b), f0, b, s0, m0) for b in bids]
                + [("parallel fraction", f"f = {f:g}", f, b0, s0, m0) for f in sorted(fractions)]
                + [("start-up", f"{x:g} s", f0, b0, x, m0) for x in sorted(startups)]
                + [("model size", f"{x:g} MB", f0, b0, s0, x) for x in sorted(model_sizes)])
    spot_aps = [S.spottune(1.0), S.spottune(0.7)]
    singles = [a for a in S.FIG7_APPROACHES if a.kind == "single"]
    base = None
    if base_grid is not None and set(base_grid["seed"]) >= set(seeds):
        base = base_grid[base_grid["seed"].isin(seeds)]
    sets_cache, singles_cache, spot_cache = {}, {}, {}
    out = []
    for axis, label, f, b, su, mb in variants:
        jkey = (f, mb)
        if jkey not in sets_cache:
            sets_cache[jkey] = study_job_sets({**cfg, "parallel_fraction": f, "model_mb": mb})
        st = sim_settings(cfg, bid=b, startup_s=su)
        own = (f, b, su, mb) == (f0, b0, s0, m0)
        if (f, mb, su) not in singles_cache:
            singles_cache[(f, mb, su)] = (base[base["approach"].isin([a.name for a in singles])] if own and base is not None
                                          else run_grid(sets_cache[jkey], seeds, singles, st, cfg["market_days"], prices,
                                                        progress))
        if (f, b, su, mb) not in spot_cache:
            spot_cache[(f, b, su, mb)] = (base[base["approach"].isin([a.name for a in spot_aps])] if own and base is not None
                                          else run_grid(sets_cache[jkey], seeds, spot_aps, st, cfg["market_days"], prices,
                                                        progress))
        out.append(pd.concat([singles_cache[(f, mb, su)], spot_cache[(f, b, su, mb)]], ignore_index=True).assign(
            axis=axis, setting=label, bid=bid_label(b), parallel_fraction=f, startup_s=su, model_mb=mb))
    return pd.concat(out, ignore_index=True)


def sensitivity_table(sweep: pd.DataFrame, n_boot: int = N_BOOT, level: float = INTERVAL_LEVEL,
                      rng: np.random.Generator | None = None) -> pd.DataFrame:
    """Per (axis, setting, SpotTune approach): cost, JCT and PCR relative to each baseline and the share of steps
    run on refunded instances, each the mean over workloads of the per-job-set ratio of seed means, with a seed
    interval (``_lo``/``_hi``, percentile bootstrap), and the paper's claims' truth values (:func:`claims`)."""
    rng = rng if rng is not None else np.random.default_rng(0)
    a = (1 - level) / 2
    rows = []
    order = list(_SWEEP_BASELINES) + list(_SWEEP_APPROACHES)
    for (axis, setting), g in sweep.groupby(["axis", "setting"], sort=False):
        seeds, sets, cubes = _cubes(g, order, ("cost", "jct_h", "free_step_share"))
        weights = _boot_weights(len(seeds), n_boot, rng)
        m = {k: _resample_means(v, weights) for k, v in cubes.items()}
        m["pcr"] = 1.0 / (m["cost"] * m["jct_h"])
        w = job_set_weights(sets)
        truth = claims(per_job_set(g))
        for i, ap in enumerate(_SWEEP_APPROACHES):
            k = 2 + i
            row = {"axis": axis, "setting": setting, "approach": ap, "bid": g["bid"].iloc[0],
                   "parallel_fraction": float(g["parallel_fraction"].iloc[0]), "seeds": len(seeds),
                   **{k: float(g[k].iloc[0]) for k in ("startup_s", "model_mb") if k in g.columns}}
            qs = {"steps_free": m["free_step_share"][..., k]}
            for j, base in enumerate(_SWEEP_BASELINES):
                short = base.split("-")[1]
                for col in ("cost", "jct_h", "pcr"):
                    qs[f"{col.split('_')[0]}_vs_{short}"] = m[col][..., k] / m[col][..., j]
            for q, arr in qs.items():
                v = arr @ w
                row[q] = float(v[0])
                row[q + "_lo"] = float(np.quantile(v[1:], a)) if n_boot else float("nan")
                row[q + "_hi"] = float(np.quantile(v[1:], 1 - a)) if n_boot else float("nan")
            rows.append({**row, **{f"claim_{c}": bool(t) for c, t in truth.items()}})
    return pd.DataFrame(rows).assign(method=INTERVAL_METHOD.format(n=rows[0]["seeds"] if rows else 0, b=n_boot))


#: The paper's numbers on the sweep's scales (§IV-B1, §IV-C): (approach, quantity) -> value; the cost and JCT
#: ratios are 1 - saving and the inverse of the paper's "x faster" ratios; θ=0.7's cost ratios multiply its
#: saving over θ=1 (57.16%) with θ=1's.
PAPER_ON_SWEEP = {
    ("spottune-1", "cost_vs_cheapest"): 1 - 0.415, ("spottune-1", "cost_vs_fastest"): 1 - 0.8604,
    ("spottune-0.7", "cost_vs_cheapest"): (1 - 0.415) * (1 - 0.5716),
    ("spottune-0.7", "cost_vs_fastest"): (1 - 0.8604) * (1 - 0.5716),
    ("spottune-0.7", "jct_vs_cheapest"): 1 / 2.14, ("spottune-0.7", "jct_vs_fastest"): 1 / 0.6459,
    ("spottune-1", "pcr_vs_cheapest"): 2.65, ("spottune-1", "pcr_vs_fastest"): 3.36,
    ("spottune-0.7", "pcr_vs_cheapest"): 13.11, ("spottune-0.7", "pcr_vs_fastest"): 16.61,
    ("spottune-0.7", "steps_free"): 0.775,
}


def paper_on_sweep(table: pd.DataFrame) -> pd.DataFrame:
    """Where the paper's numbers fall on the sweep: per (approach, quantity), the paper's value, the sweep's
    range, and the settings whose seed interval contains it (or the nearest setting when none does)."""
    rows = []
    for (ap, q), paper in PAPER_ON_SWEEP.items():
        t = table[table["approach"] == ap]
        inside = t[(t[q + "_lo"] <= paper) & (paper <= t[q + "_hi"])]
        near = t.iloc[int(np.argmin(np.abs(np.log(t[q].to_numpy()) - np.log(paper))))] if len(t) else None
        rows.append({"approach": ap, "quantity": q, "paper": round(paper, 4),
                     "sweep_min": float(t[q].min()), "sweep_max": float(t[q].max()),
                     "within_interval_at": ", ".join(f"{r.axis}: {r.setting}" for r in inside.itertuples()) or "none",
                     "nearest": "" if near is None else f"{near['axis']}: {near['setting']} ({near[q]:.3g})"})
    return pd.DataFrame(rows)


def holds_text(table: pd.DataFrame, key: str, paper: bool = True) -> str:
    """The settings range in which claim ``key`` (a :func:`claims` key) has the paper's truth value ``paper``,
    per axis of a :func:`sensitivity_table`: ``"holds for bid: +0%, +5%; parallel fraction: f = 0.9, f = 0.95;
    not for bid: +25%, ..."``."""
    col = f"claim_{key}"
    if col not in table.columns:
        return ""
    t = table.drop_duplicates(["axis", "setting"])
    yes = {ax: [s for s, v in zip(g["setting"], g[col]) if bool(v) == paper] for ax, g in t.groupby("axis", sort=False)}
    no = {ax: [s for s, v in zip(g["setting"], g[col]) if bool(v) != paper] for ax, g in t.groupby("axis", sort=False)}
    fmt = lambda d: "; ".join(f"{ax}: {', '.join(v)}" for ax, v in d.items() if v) or "none"  # noqa: E731
    return f"sweep ({t['seeds'].iloc[0]} seeds, one setting changed at a time): holds for {fmt(yes)}; not for {fmt(no)}"


#: Probability bins of the reliability curve.
CALIBRATION_BINS = (0.0, 0.1, 0.2, 0.4, 0.6, 0.8, 1.0)


def calibration(deployments: pd.DataFrame, by: str = "predictor", bins=CALIBRATION_BINS) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Each predictor's calibration inside the simulation: the probability of a revocation within the hour it
    gave the provisioner for the chosen type (``p_revoke``) against what happened. Only deployments exposed
    for the whole hour count (revoked, or re-deployed after the hour); those that finished earlier are left
    out (their exposure was shorter than the predicted hour).

    Returns ``(summary, curve)``: per ``by`` value the deployments, the mean predicted and the realised
    revocation rate; and the reliability curve (per probability bin: deployments, mean predicted, realised)."""
    d = deployments[deployments["reason"].isin(["revoked", "hourly"]) & deployments["p_revoke"].notna()]
    d = d.assign(revoked=(d["reason"] == "revoked").astype(float))
    summary = d.groupby(by, sort=False).agg(deployments=("revoked", "size"), predicted=("p_revoke", "mean"),
                                           realised=("revoked", "mean")).reset_index()
    d = d.assign(bin=pd.cut(d["p_revoke"].clip(0, 1), list(bins), include_lowest=True))
    curve = d.groupby([by, "bin"], sort=False, observed=True).agg(deployments=("revoked", "size"),
                                                                  predicted=("p_revoke", "mean"),
                                                                  realised=("revoked", "mean")).reset_index()
    order = {k: i for i, k in enumerate(summary[by])}
    curve = curve.assign(_p=curve[by].map(order), _l=[b.left for b in curve["bin"]]) \
        .sort_values(["_p", "_l"], kind="stable").drop(columns=["_p", "_l"]).reset_index(drop=True)
    curve["bin"] = curve["bin"].astype(str)
    return summary, curve


# ------------------------------------------------------------------------------------------------
# Fig. 12: checkpoint-restore overhead, from the simulator's records
# ------------------------------------------------------------------------------------------------
#: Model sizes (MB) of the overhead study: the workbook's assumed 100 MB, 1 GB and 5 GB.
OVERHEAD_MODEL_MB = (100.0, 1024.0, 5120.0)


def checkpoint_overhead(job_set, timeline: pd.DataFrame, startup_s: float) -> pd.DataFrame:
    """Per job of one SpotTune simulation: seconds spent restoring (a resumed deployment's ready time minus
    launch and start-up) and checkpointing (model size / the type's checkpoint speed, for every deployment
    that kept steps), against the seconds of training (steps run x seconds per step); ``overhead`` is their
    ratio (Fig. 12's "time fraction checkpoint-restore takes compared with the training time")."""
    rows = []
    for j, d in timeline.groupby("job"):
        job = job_set.jobs[int(j)]
        restore = float((d["ready"] - d["launch"] - startup_s).clip(lower=0).sum())
        ckpt = float(sum(job.model_mb / S.checkpoint_speed(M.instance(t).vcpus)
                         for t, kept in zip(d["type"], d["steps_kept"]) if kept > 0))
        train = float(sum(n * job.seconds_per_step[t] for t, n in zip(d["type"], d["steps_run"])))
        rows.append({"job": int(j), "restore_s": restore, "checkpoint_s": ckpt, "train_s": train,
                     "overhead": (restore + ckpt) / train if train > 0 else np.nan})
    return pd.DataFrame(rows)


def overhead_study(cfg: dict, seeds, model_mb=OVERHEAD_MODEL_MB, approach: str = REFERENCE,
                   prices="synthetic") -> pd.DataFrame:
    """Fig. 12 at several model sizes: per (model size, job set, seed) the mean over jobs of
    :func:`checkpoint_overhead` in a SpotTune simulation (the profile's settings otherwise)."""
    st = sim_settings(cfg)
    rows = []
    for mb in model_mb:
        sets = study_job_sets({**cfg, "model_mb": float(mb)})
        for seed in seeds:
            trace = cached_market(prices, seed, cfg["market_days"])
            for js in sets:
                r = S.simulate(js, trace, approach, st, seed)
                o = checkpoint_overhead(js, r.timeline, st.startup_s)
                rows.append({"model_mb": float(mb), "job_set": js.name, "seed": int(seed),
                             "overhead": float(o["overhead"].mean()), "restore_s": float(o["restore_s"].sum()),
                             "checkpoint_s": float(o["checkpoint_s"].sum()), "train_s": float(o["train_s"].sum())})
    return pd.DataFrame(rows)


def overhead_summary(study: pd.DataFrame) -> pd.DataFrame:
    """Per model size: the mean over workloads (of the seed-mean per job set) and the largest job set's overhead."""
    per = study.groupby(["model_mb", "job_set"], sort=False)["overhead"].mean().reset_index()
    out = []
    for mb, g in per.groupby("model_mb", sort=False):
        w = job_set_weights(list(g["job_set"]))
        out.append({"model_mb": mb, "mean_overhead": float((g["overhead"].to_numpy() * w).sum()),
                    "max_job_set_overhead": float(g["overhead"].max()),
                    "max_job_set": str(g.loc[g["overhead"].idxmax(), "job_set"]),
                    "seeds": int(study["seed"].nunique())})
    return pd.DataFrame(out)



# ------------------------------------------------------------------------------------------------
# Does the past hour carry information? (the persistent vs the memoryless synthetic market)
# ------------------------------------------------------------------------------------------------
#: Inputs of the two models of :func:`history_value`: the present minute only, and with the past hour.
PRESENT_FEATURES = ("price", "workday", "hour_of_day")
HISTORY_FEATURES = ("mean_price_hour", "changes_hour", "minutes_since_change")


def history_value(trace, fit_days: float = 9.0, test_days: float = 3.0, stride: int = 5) -> pd.DataFrame:
    """Per type, the test log loss of two logistic regressions of "revoked within the hour" at Alg. 2
    maximum prices: one on the present minute (price, calendar, the bid's relative margin), one with the
    past hour's features added (Fig. 10's features); fitted on the first ``fit_days``, scored on the next
    ``test_days``. ``gain`` = present-only log loss - with-history log loss (> 0: the past hour helps)."""
    from sklearn.linear_model import LogisticRegression
    from sklearn.metrics import log_loss

    from tt_core.spot.revocation import algorithm2_margins, features

    fit_end, test_end = int(fit_days * 1440), int((fit_days + test_days) * 1440)
    if test_end + 60 > trace.n_minutes:
        raise W.SpotError(f"the trace has {trace.n_minutes / 1440:.1f} days; fitting {fit_days:g} and testing "
                          f"{test_days:g} need {fit_days + test_days:g} days and an hour")
    rows = []
    for name in trace.types:
        p = trace.series(name)
        F = features(trace, name)
        scale = float(p[:fit_end].mean())
        F["price"] = F["price"] / scale
        F["mean_price_hour"] = F["mean_price_hour"] / scale
        out = {"type": name, "prices": prices_label(trace)}
        sets = {"fit": np.arange(60, fit_end - 60, stride), "test": np.arange(fit_end, test_end, stride)}
        ys, bids = {}, {}
        for k, m in sets.items():
            bids[k] = p[m] + algorithm2_margins(p, m)
            ys[k] = (forward_max(p)[m] > bids[k]).astype(int)
        for label, cols in (("present", PRESENT_FEATURES), ("history", PRESENT_FEATURES + HISTORY_FEATURES)):
            X = {k: np.column_stack([F.loc[m, list(cols)].to_numpy(float), bids[k] / p[m] - 1.0])
                 for k, m in sets.items()}
            mu, sd = X["fit"].mean(axis=0), X["fit"].std(axis=0)
            sd[sd == 0] = 1.0
            if len(set(ys["fit"])) < 2:
                prob = np.full(len(ys["test"]), float(ys["fit"].mean()))
            else:
                model = LogisticRegression(max_iter=1000).fit((X["fit"] - mu) / sd, ys["fit"])
                prob = model.predict_proba((X["test"] - mu) / sd)[:, 1]
            out[f"log_loss_{label}"] = float(log_loss(ys["test"], np.clip(prob, 1e-6, 1 - 1e-6), labels=[0, 1]))
        out["positive_rate"] = float(ys["test"].mean())
        out["gain"] = out["log_loss_present"] - out["log_loss_history"]
        rows.append(out)
    return pd.DataFrame(rows)


def step_time_cov(names, profile: str = "quick", seed: int = 1, limit: float = 0.1) -> pd.DataFrame:
    """§IV-A5's check of online profiling: per setting of each scikit-learn model, the coefficient of
    variation (sd / mean) of its measured seconds per step across steps (the curves of
    :func:`tt_core.spot.curves.generate`, trained here, cached), and whether it is below ``limit`` (the
    paper: "less than 0.1"). The first step is left out (it includes set-up). Gradient boosting is left out:
    its step time is the whole fit's CPU time divided by the trees (not measured per step)."""
    tables = C.generate([n for n in names if n != "gbtr"], profile, seed, progress=False)
    rows = []
    for name, t in tables.items():
        for setting, g in t.groupby("setting"):
            s = g.sort_values("step")["seconds"].to_numpy(float)[1:]
            cov = float(s.std() / s.mean()) if len(s) > 1 and s.mean() > 0 else float("nan")
            rows.append({"algorithm": name, "setting": int(setting), "steps": len(s) + 1,
                         "mean_s_per_step": float(s.mean()), "cov": cov, "below_limit": bool(cov < limit)})
    return pd.DataFrame(rows)
