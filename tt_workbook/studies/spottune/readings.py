"""Figs 7 and 9 with each revocation predictor in the loop (RevPred the main reading) and their calibration.

The paper ran SpotTune with its own predictor, RevPred (§III-B). Notebook 13's main reading does the
same: the three predictors of Fig. 10 (RevPred, Tributary's, logistic regression) are fitted once on
Fig. 10's trace (:func:`tt_workbook.studies.spottune.revpred_study.fig10_predictors`: the LSTMs' weights are cached under
``data/spot_revpred/``, so notebook 15 reads the ones trained here instead of training them again) and
each is plugged into the provisioner for Fig. 7's four approaches, with Fig. 10(c)'s bid rule (random
maximum prices, as the paper says for inference). The LSTMs are trained on one market, so in this reading
the seeds vary the submission time on that one market, not the market (the logistic regression's own
reading in :func:`tt_workbook.studies.spottune.grids.simulate_grid` varies the market too; both are reported).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from tt_spotsim import simulator as S
from tt_workbook.studies.spottune.grids import claims, per_job_set
from tt_workbook.studies.spottune.intervals import N_BOOT
from tt_workbook.studies.spottune.revpred_study import (calibration, fig10_predictors, fig10c_grid, predictor_statements,
                                        revpred_market)

#: The predictors of the loop, the main reading (the paper's predictor) first.
LOOP_PREDICTORS = ("revpred", "tributary", "logistic")
MAIN_PREDICTOR = "revpred"
PREDICTOR_LABELS = {"revpred": "RevPred", "tributary": "Tributary's predictor", "logistic": "logistic regression"}


def reading_text(predictor: str, bid: str, n_job_sets: int, market: str) -> str:
    """The suffix that names a reading in a row's item: ``", RevPred in the loop (main reading), random
    maximum prices (Fig. 10(c)'s rule), 9 job sets, one synthetic market (seed 1) x 10 submission times"``."""
    bids = {"tributary": "random maximum prices (Fig. 10(c)'s rule)",
            "algorithm2": "Alg. 2 maximum prices"}.get(str(bid), f"maximum prices {bid}")
    main = " (main reading)" if predictor == MAIN_PREDICTOR else ""
    return f", {PREDICTOR_LABELS.get(predictor, predictor)} in the loop{main}, {bids}, {n_job_sets} job sets, {market}"


def predictor_loop(job_sets, spot_cfg: dict, rp_cfg: dict, prices="synthetic", seed: int = 1,
                   predictors=LOOP_PREDICTORS, progress: bool = False) -> dict:
    """Figs 7 and 9 with each predictor in the loop, on ``job_sets`` (notebook 13's).

    The predictors are fitted (or read from the weight cache) on Fig. 10's trace of ``seed``
    (:func:`tt_workbook.studies.spottune.revpred_study.revpred_market`, the ``revpred`` profile study ``rp_cfg``); every approach of
    Fig. 7 runs for every seed of ``spot_cfg`` (submission times) with each predictor, bids
    ``rp_cfg["fig10c_bid"]`` (:func:`tt_workbook.studies.spottune.revpred_study.fig10c_grid`; the baselines, which use no
    predictor, are simulated once per job set and seed).

    Returns ``{"trace", "predictors", "grid", "deployments", "market"}``: ``grid`` one row per simulation with a
    ``predictor`` column, ``deployments`` every SpotTune deployment (for :func:`tt_workbook.studies.spottune.revpred_study.calibration`),
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
    """Figs 7 and 9's numbers per predictor with seed intervals (:func:`tt_workbook.studies.spottune.revpred_study.predictor_statements`)."""
    return predictor_statements(grid, n_boot, rng if rng is not None else np.random.default_rng(0))


def loop_claims(grid: pd.DataFrame) -> pd.DataFrame:
    """The paper's ordering claims (:func:`tt_workbook.studies.spottune.grids.claims`) under each predictor in the loop:
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
    """Each predictor's calibration in the loop (:func:`tt_workbook.studies.spottune.revpred_study.calibration`), plus per predictor
    the gap ``predicted - realised`` and the realised rate's binomial standard error."""
    summary, curve = calibration(deployments)
    n = summary["deployments"].clip(lower=1)
    summary = summary.assign(gap=summary["predicted"] - summary["realised"],
                             realised_se=np.sqrt(summary["realised"] * (1 - summary["realised"]) / n))
    return summary, curve
