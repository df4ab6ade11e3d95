"""EarlyCurve on the job sets' curves (Fig. 11 and Fig. 8's top-k): prediction errors and selections.

Fig. 11(b): the relative error of the final metric predicted from theta of the steps by EarlyCurve
(Eqs. 4-7, :mod:`tt_spotsim.earlycurve`) and by the single-stage fit; Fig. 8(c): whether the true best
setting is among EarlyCurve's top-1 / top-3 at each theta. No market is involved.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from tt_spotsim import earlycurve as ec


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


def selection_prediction(job, theta: float, method: str = "earlycurve") -> tuple[float, bool]:
    """``(predicted final metric, plateau-stopped)`` of one setting at ``theta``, as the simulator ranks it: at
    ``theta >= 1`` its true final metric; a setting whose curve plateaus before ``theta x max steps``
    (:func:`tt_spotsim.earlycurve.plateau_step`) is stopped there and ranked by its metric at that step;
    any other by ``method``'s extrapolation of its first ``theta`` of the steps."""
    if theta >= 1:
        return float(job.final_metric), False
    n1 = ec.theta_steps(theta, job.max_steps)
    p = ec.plateau_step(job.metric, job.max_steps)
    if p is not None and p < n1:
        return float(job.metric[p - 1]), True
    return float(ec.predict_final(job.metric[:n1], job.max_steps, method)), False


def topk_misses(job_sets, thetas, k: int = 3, min_theta: float = 0.7) -> pd.DataFrame:
    """Why the true best setting falls outside EarlyCurve's predicted top ``k`` (:func:`topk_claim`) at each
    ``theta >= min_theta``: one row per miss with the true best's rank by EarlyCurve's prediction, by the
    single-stage fit's, and by the metric observed at ``theta x max steps`` (the last value seen), whether it was
    plateau-stopped, its predicted and true final metric (``best_error``: relative), the settings Eq. 7 splits into
    stages in the job set, and the predicted top ``k`` with their true finals (``outrank``: the largest relative
    error by which one of them was predicted below its true final)."""
    rows = []
    for js in job_sets:
        best = js.true_best()
        for theta in thetas:
            if theta < min_theta - 1e-9:
                continue
            ranked = [selection_prediction(job, theta) for job in js.jobs]
            pred = np.array([r[0] for r in ranked])
            order = np.argsort(pred, kind="stable")
            if best in order[:k]:
                continue
            single = np.array([selection_prediction(job, theta, "single-stage")[0] for job in js.jobs])
            seen = np.array([float(job.metric[ec.theta_steps(theta, job.max_steps) - 1]) for job in js.jobs])
            finals = np.array([job.final_metric for job in js.jobs])
            split = sum(len(ec.stage_starts(job.metric[:ec.theta_steps(theta, job.max_steps)])) > 1 for job in js.jobs)
            top = order[:k]
            rank = lambda v: int(np.flatnonzero(np.argsort(v, kind="stable") == best)[0]) + 1    # noqa: E731
            rows.append({"job_set": js.name, "theta": float(theta), "settings": len(js.jobs), "split_settings": int(split),
                         "best": int(best), "rank_earlycurve": rank(pred), "rank_single_stage": rank(single),
                         "rank_seen": rank(seen), "best_plateau_stop": bool(ranked[best][1]),
                         "best_predicted": float(pred[best]), "best_final": float(finals[best]),
                         "best_error": float((pred[best] - finals[best]) / finals[best]),
                         "top": " ".join(str(int(i)) for i in top),
                         "top_finals": " ".join(f"{finals[i]:.6g}" for i in top),
                         "outrank": float(max((finals[i] - pred[i]) / finals[i] for i in top))})
    return pd.DataFrame(rows, columns=["job_set", "theta", "settings", "split_settings", "best", "rank_earlycurve",
                                       "rank_single_stage", "rank_seen", "best_plateau_stop", "best_predicted",
                                       "best_final", "best_error", "top", "top_finals", "outrank"])


def top3_cause(misses: pd.DataFrame, evidence: str = "spottune_topk_misses.csv", k: int = 3) -> str:
    """The measured mechanism of the top-``k`` misses of :func:`topk_misses` ("" when there is none): per miss,
    how the true best was ranked and why (plateau stop, extrapolation), and whether the stage split changes it."""
    if misses is None or len(misses) == 0:
        return ""
    parts = []
    for r in misses.itertuples():
        how = (f"its curve plateaued before θ x max steps, so it is ranked by its metric at the plateau step, "
               f"{r.best_predicted:.4g}, {100 * r.best_error:+.1f}% off its final {r.best_final:.4g}"
               if r.best_plateau_stop else
               f"its fit extrapolates {r.best_predicted:.4g}, {100 * r.best_error:+.1f}% off its final {r.best_final:.4g}")
        ahead = (f"the fits of the predicted top {k} fall up to {100 * r.outrank:.1f}% below their own finals"
                 if r.outrank > 0 else f"the predicted top {k} are ranked at or above their own finals")
        parts.append(f"{r.job_set} at θ = {r.theta:g}: the true best is ranked {r.rank_earlycurve} of {r.settings} because "
                     f"{how}, while {ahead}; by the metric seen at θ it ranks {r.rank_seen}")
    split = int(misses["split_settings"].sum())
    same = bool((misses["rank_single_stage"] == misses["rank_earlycurve"]).all())
    stage = ("Eq. 7 splits none of these curves into stages (EarlyCurve is then the single-stage fit)" if split == 0
             else f"Eq. 7 splits {split} of these curves into stages (summed over the misses)")
    stage += (", and the single-stage fit ranks the true best the same: the stage split does not decide these misses"
              if same else "; the single-stage fit ranks the true best " + ", ".join(
                  f"{r.rank_single_stage} ({r.job_set}, θ = {r.theta:g})" for r in misses.itertuples()))
    return "; ".join(parts) + f"; {stage} ({evidence})"


def phase1_work(job_sets, thetas, reference: str = "r4.large") -> pd.DataFrame:
    """SpotTune's first phase ends (and, in the simulator's reading, its JCT with it) when the slowest setting has run
    ``ceil(theta x max steps)`` steps or stopped at its plateau (:func:`tt_spotsim.earlycurve.plateau_step`); at
    ``theta = 1`` every setting runs all its steps, with no plateau stop. Per job set and theta: that phase's work,
    the largest over settings of steps x seconds per step on ``reference`` (the market, revocations and instance
    choice left out), relative to the work at ``theta = 1`` (``work``), the same without the plateau stop
    (``work_no_plateau``), and the settings stopped at their plateau (``plateau_stopped`` of ``settings``)."""
    rows = []
    for js in job_sets:
        K = np.array([j.max_steps for j in js.jobs])
        sec = np.array([j.seconds_per_step[reference] for j in js.jobs], float)
        plateau = [ec.plateau_step(j.metric, j.max_steps) for j in js.jobs]
        full = float((K * sec).max())
        for theta in thetas:
            if theta >= 1:
                n1 = capped = K
            else:
                n1 = np.array([ec.theta_steps(theta, k) for k in K])
                capped = np.array([p if p is not None and p < n else n for p, n in zip(plateau, n1)])
            rows.append({"job_set": js.name, "theta": float(theta), "settings": len(K),
                         "plateau_stopped": int((capped < n1).sum()), "work": float((capped * sec).max()) / full,
                         "work_no_plateau": float((n1 * sec).max()) / full})
    return pd.DataFrame(rows, columns=["job_set", "theta", "settings", "plateau_stopped", "work", "work_no_plateau"])


def topk_claim(job_sets, thetas, k: int = 3, method: str = "earlycurve") -> pd.DataFrame:
    """Top-1 / top-3 hit of EarlyCurve's ranking at each theta on each job set (no market involved: the
    selection depends only on the curves). The plateau stop is applied as in the simulator."""
    rows = []
    for js in job_sets:
        best = js.true_best()
        for theta in thetas:
            pred = [selection_prediction(job, theta, method)[0] for job in js.jobs]
            order = np.argsort(pred, kind="stable")
            rows.append({"job_set": js.name, "theta": theta, "top1": bool(order[0] == best),
                         "top3": bool(best in order[:3]), "best_found": bool(best in order[:k])})
    return pd.DataFrame(rows)


def staged_boundaries(df: pd.DataFrame, theta: float = 0.7) -> pd.DataFrame:
    """The staged workload (the table of :func:`tt_spotsim.staged.generate`), per setting: the true decay
    epoch, the stage starts Eq. 7 finds on the whole curve, and the relative error of EarlyCurve's and the
    single-stage fit's final metric predicted from the first ``theta`` of the curve."""
    rows = []
    for i, g in df.groupby("setting", sort=True):
        m = g.sort_values("step")["metric"].to_numpy(float)
        n = ec.theta_steps(theta, len(m))
        true = float(m[-1])
        row = {"setting": int(i), "eta0": float(g["eta0"].iloc[0]), "decay_epoch": int(g["decay_epoch"].iloc[0]),
               "decay_factor": float(g["decay_factor"].iloc[0]), "stage_starts": ec.stage_starts(m)[1:],
               "steps_seen": n, "true_final": true}
        for method in ec.METHODS:
            pred = ec.predict_final(m[:n], len(m), method)
            row[f"{method}_error"] = abs(pred - true) / abs(true)
        rows.append(row)
    return pd.DataFrame(rows)
