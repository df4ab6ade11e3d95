"""Figs 7 and 9 with each revocation predictor in the loop (RevPred the main reading), their calibration,
and Fig. 8's shape claims with seed intervals.

The paper ran SpotTune with its own predictor, RevPred (§III-B). Notebook 13's main reading does the
same: the three predictors of Fig. 10 (RevPred, Tributary's, logistic regression) are fitted once on
Fig. 10's trace (:func:`tt_core.spot.studies.fig10_predictors`: the LSTMs' weights are cached under
``data/spot_revpred/``, so notebook 15 reads the ones trained here instead of training them again) and
each is plugged into the provisioner for Fig. 7's four approaches, with Fig. 10(c)'s bid rule (random
maximum prices, as the paper says for inference). The LSTMs are trained on one market, so in this reading
the seeds vary the submission time on that one market, not the market (the logistic regression's own
reading in :func:`tt_core.spot.studies.run_grid` varies the market too; both are reported).

Fig. 8's text (§IV-B2) makes three shape claims about the θ sweep: the cost is "generally proportional
to θ", "sometimes the higher θ yields lower cost instead" (SVM: θ = 0.8 cheaper than 0.7), and the JCT
"varies near-linear to θ". :func:`theta_shape_intervals` reads them on the means over workloads (the
correlation of cost with θ, the largest fall of a workload's cost from one θ to the next, the R² of a
straight line through the JCTs) with a percentile bootstrap over the seeds.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from tt_core.spot import simulator as S
from tt_core.spot.studies import (INTERVAL_LEVEL, INTERVAL_METHOD, N_BOOT, SHAPE_THRESHOLD, calibration, claims,
                                  fig10_predictors, fig10c_grid, job_set_weights, per_job_set, predictor_statements,
                                  revpred_market, workload_of)

#: The predictors of the loop, the main reading (the paper's predictor) first.
LOOP_PREDICTORS = ("revpred", "tributary", "logistic")
MAIN_PREDICTOR = "revpred"
PREDICTOR_LABELS = {"revpred": "RevPred", "tributary": "Tributary's predictor", "logistic": "logistic regression"}


def reading_text(predictor: str, bid: str, n_job_sets: int, n_seeds: int, market: str) -> str:
    """The suffix that names a reading in a row's item: ``", RevPred in the loop (main reading), random
    maximum prices, 9 job sets, one market (seed 1) x 10 submission times"``."""
    bids = {"tributary": "random maximum prices (Tributary's rule, as Fig. 10(c))",
            "algorithm2": "Alg. 2 maximum prices"}.get(str(bid), f"maximum prices {bid}")
    main = " (main reading)" if predictor == MAIN_PREDICTOR else ""
    return f", {PREDICTOR_LABELS.get(predictor, predictor)} in the loop{main}, {bids}, {n_job_sets} job sets, {market}"


def predictor_loop(job_sets, spot_cfg: dict, rp_cfg: dict, prices="synthetic", seed: int = 1,
                   predictors=LOOP_PREDICTORS, progress: bool = False) -> dict:
    """Figs 7 and 9 with each predictor in the loop, on ``job_sets`` (notebook 13's).

    The predictors are fitted (or read from the weight cache) on Fig. 10's trace of ``seed``
    (:func:`tt_core.spot.studies.revpred_market`, the ``revpred`` profile study ``rp_cfg``); every approach of
    Fig. 7 runs for every seed of ``spot_cfg`` (submission times) with each predictor, bids
    ``rp_cfg["fig10c_bid"]`` (:func:`tt_core.spot.studies.fig10c_grid`; the baselines, which use no
    predictor, are simulated once per job set and seed).

    Returns ``{"trace", "predictors", "grid", "deployments", "market"}``: ``grid`` one row per simulation with a
    ``predictor`` column, ``deployments`` every SpotTune deployment (for :func:`tt_core.spot.studies.calibration`),
    ``market`` the text naming the market and seeds."""
    trace = revpred_market(rp_cfg, prices, seed)
    fitted = fig10_predictors(trace, rp_cfg, names=tuple(predictors), progress=progress)
    deployments: list = []
    grid = fig10c_grid(job_sets, trace, fitted, spot_cfg["seeds"], rp_cfg, spot_cfg, progress=progress,
                       deployments=deployments, approaches=[a.name for a in S.FIG7_APPROACHES])
    kind = f"one synthetic market (seed {seed})" if trace.synthetic else "the 2017 trace"
    market = f"{kind} x {len(spot_cfg['seeds'])} submission times"
    return {"trace": trace, "predictors": fitted, "grid": grid, "market": market,
            "deployments": pd.concat(deployments, ignore_index=True) if deployments else pd.DataFrame()}


def loop_statements(grid: pd.DataFrame, n_boot: int = N_BOOT, rng: np.random.Generator | None = None) -> pd.DataFrame:
    """Figs 7 and 9's numbers per predictor with seed intervals (:func:`tt_core.spot.studies.predictor_statements`)."""
    return predictor_statements(grid, n_boot, rng if rng is not None else np.random.default_rng(0))


def loop_claims(grid: pd.DataFrame) -> pd.DataFrame:
    """The paper's ordering claims (:func:`tt_core.spot.studies.claims`) under each predictor in the loop:
    one row per predictor, one boolean column per claim."""
    rows = []
    for name, g in grid.groupby("predictor", sort=False):
        rows.append({"predictor": name, **claims(per_job_set(g.drop(columns="predictor")))})
    return pd.DataFrame(rows)


def predictor_range_text(table: pd.DataFrame, key: str, paper: bool = True) -> str:
    """Under which predictors in the loop claim ``key`` has the paper's truth value: ``"with RevPred in the loop:
    holds; Tributary's predictor: holds; logistic regression: does not"``."""
    if key not in table.columns:
        return ""
    parts = [f"{PREDICTOR_LABELS.get(p, p)}: {'holds' if bool(v) == paper else 'does not'}"
             for p, v in zip(table["predictor"], table[key])]
    return "by predictor in the loop (same market, bids and seeds): " + "; ".join(parts)


def loop_calibration(deployments: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Each predictor's calibration in the loop (:func:`tt_core.spot.studies.calibration`), plus per predictor
    the gap ``predicted - realised`` and the realised rate's binomial standard error."""
    summary, curve = calibration(deployments)
    n = summary["deployments"].clip(lower=1)
    summary = summary.assign(gap=summary["predicted"] - summary["realised"],
                             realised_se=np.sqrt(summary["realised"] * (1 - summary["realised"]) / n))
    return summary, curve


# ------------------------------------------------------------------------------------------------
# Fig. 8's shape claims with seed intervals
# ------------------------------------------------------------------------------------------------
def _theta_cubes(theta: pd.DataFrame):
    """(seeds, job sets, thetas) arrays of cost and JCT (h) from a :func:`tt_core.spot.studies.theta_sweep` grid."""
    g = theta.assign(jct_h=theta["jct_s"] / 3600.0)
    seeds = sorted({int(s) for s in g["seed"]})
    sets = list(dict.fromkeys(g["job_set"]))
    thetas = sorted({float(t) for t in g["theta"]})
    idx = pd.MultiIndex.from_product([seeds, sets], names=["seed", "job_set"])
    out = {}
    for col in ("cost", "jct_h"):
        t = g.pivot_table(index=["seed", "job_set"], columns="theta", values=col, aggfunc="mean").reindex(idx)
        t = t.reindex(columns=thetas)
        if t.isna().to_numpy().any():
            raise ValueError(f"the θ sweep lacks simulations of {col} for some (seed, job set, θ)")
        out[col] = t.to_numpy(float).reshape(len(seeds), len(sets), len(thetas))
    return seeds, sets, np.array(thetas), out


def _corr_rows(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Pearson correlation of ``x`` with each row of ``y``."""
    xc = x - x.mean()
    yc = y - y.mean(axis=-1, keepdims=True)
    return (yc @ xc) / np.sqrt((yc ** 2).sum(axis=-1) * (xc ** 2).sum())


def theta_shape_intervals(theta: pd.DataFrame, n_boot: int = N_BOOT, level: float = INTERVAL_LEVEL,
                          threshold: float = SHAPE_THRESHOLD, rng: np.random.Generator | None = None) -> dict:
    """Fig. 8's shape claims on a :func:`tt_core.spot.studies.theta_sweep` grid, with seed intervals.

    Per seed resample (percentile bootstrap over the seeds, the job sets fixed; the first "resample" is the
    plain mean): per job set the seed-mean cost and JCT relative to the largest θ, the mean over workloads
    (:func:`tt_core.spot.studies.job_set_weights`), then

    * ``cost_r``: the correlation of that mean cost with θ ("generally proportional": >= ``threshold``);
    * ``jct_r2``: the R² of a straight line through the mean JCT (``near-linear``: >= ``threshold``);
    * ``largest_fall``: per workload (mean of its job sets' relative costs) the cost change from each θ to
      the next, divided by the cost at the lower θ; the most negative over workloads and θ steps ("sometimes
      the higher θ yields lower cost": < 0), with the workload and θ pair of the point estimate.

    Returns ``{"values": {claim key: bool}, "table": DataFrame (quantity, value, lo, hi, share_holds),
    "text": {claim key: note}}``; ``share_holds``: the share of resamples in which the claim holds."""
    rng = rng if rng is not None else np.random.default_rng(0)
    seeds, sets, th, cubes = _theta_cubes(theta)
    n = len(seeds)
    counts = rng.multinomial(n, np.full(n, 1.0 / n), size=n_boot) / n if n_boot > 0 else np.zeros((0, n))
    weights = np.vstack([np.full((1, n), 1.0 / n), counts])                  # (1 + B, seeds)
    m = {k: np.tensordot(weights, v, axes=(1, 0)) for k, v in cubes.items()}  # (1 + B, sets, thetas)
    rel = {k: v / v[..., -1:] for k, v in m.items()}
    w = job_set_weights(sets)
    mean = {k: np.einsum("bjt,j->bt", v, w) for k, v in rel.items()}         # (1 + B, thetas)
    cost_r = _corr_rows(th, mean["cost"])
    jct_r2 = _corr_rows(th, mean["jct_h"]) ** 2
    wl = [workload_of(s) for s in sets]
    names = list(dict.fromkeys(wl))
    member = np.array([[1.0 if x == name else 0.0 for name in names] for x in wl])
    member /= member.sum(axis=0, keepdims=True)
    per_wl = np.einsum("bjt,jw->bwt", rel["cost"], member)                   # (1 + B, workloads, thetas)
    change = np.diff(per_wl, axis=-1) / per_wl[..., :-1]                      # (1 + B, workloads, steps)
    fall = change.reshape(change.shape[0], -1).min(axis=1)
    i_wl, i_step = np.unravel_index(int(np.argmin(change[0])), change.shape[1:])
    a = (1 - level) / 2
    q = (lambda v, x: float(np.quantile(v[1:], x))) if n_boot > 0 else (lambda v, x: float("nan"))
    share = (lambda ok: float(ok[1:].mean())) if n_boot > 0 else (lambda ok: float("nan"))
    stats = {"fig8_cost_rises": ("cost_r", cost_r, cost_r >= threshold),
             "fig8_jct_linear": ("jct_r2", jct_r2, jct_r2 >= threshold),
             "fig8_higher_theta_cheaper": ("largest_fall", fall, fall < 0)}
    method = INTERVAL_METHOD.format(n=n, b=n_boot)
    table = pd.DataFrame([{"claim": key, "quantity": qn, "value": float(v[0]), "lo": q(v, a), "hi": q(v, 1 - a),
                           "share_holds": share(ok), "seeds": n, "method": method}
                          for key, (qn, v, ok) in stats.items()])
    grid = ", ".join(f"{t:g}" for t in th)
    r = table.set_index("claim")
    iv = lambda k: f"[{r.loc[k, 'lo']:.3f}, {r.loc[k, 'hi']:.3f}]"            # noqa: E731
    held = lambda k: f"holds in {100 * r.loc[k, 'share_holds']:.0f}% of {n_boot} seed resamples"  # noqa: E731
    text = {
        "fig8_cost_rises": f"correlation of the mean cost ratio with θ {r.loc['fig8_cost_rises', 'value']:.3f} "
                           f"{iv('fig8_cost_rises')} over θ = {grid} (threshold {threshold:g}); {held('fig8_cost_rises')}",
        "fig8_jct_linear": f"R² of a straight line through the mean JCT ratios {r.loc['fig8_jct_linear', 'value']:.3f} "
                           f"{iv('fig8_jct_linear')} over θ = {grid} (threshold {threshold:g}); {held('fig8_jct_linear')}",
        "fig8_higher_theta_cheaper": f"largest fall of a workload's mean cost from one θ to the next "
                                     f"{100 * r.loc['fig8_higher_theta_cheaper', 'value']:+.1f}% "
                                     f"({names[i_wl]}, θ {th[i_step]:g} -> {th[i_step + 1]:g}; seed interval of the "
                                     f"largest fall {iv('fig8_higher_theta_cheaper')}); {held('fig8_higher_theta_cheaper')}",
    }
    values = {k: bool(ok[0]) for k, (_, _, ok) in stats.items()}
    return {"values": values, "table": table, "text": text}
