"""EarlyCurve on the job sets' curves (Fig. 11 and Fig. 8's top-k): prediction errors and selections.

Fig. 11(b): the relative error of the final metric predicted from theta of the steps by EarlyCurve
(Eqs. 4-7, :mod:`tt_core.spot.earlycurve`) and by the single-stage fit; Fig. 8(c): whether the true best
setting is among EarlyCurve's top-1 / top-3 at each theta. No market is involved.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from tt_core.spot import earlycurve as ec


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


def staged_boundaries(df: pd.DataFrame, theta: float = 0.7) -> pd.DataFrame:
    """The staged workload (the table of :func:`tt_core.spot.staged.generate`), per setting: the true decay
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
