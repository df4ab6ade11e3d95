"""Fig. 12's checkpoint-restore overhead from the simulator's records, and §IV-A5's step-time check.

Fig. 12: the time checkpointing and restoring take relative to training, per job of a SpotTune
simulation, at several model sizes; §IV-A5: the coefficient of variation of the measured seconds per
step of the scikit-learn curves (the paper's online profiling assumes it below 0.1).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from tt_spotsim import curves as C, market as M, simulator as S
from tt_workbook.runs.study_tables import ensure_table
from tt_workbook.studies.spottune.grids import REFERENCE, cached_market, job_set_weights, sim_settings, spot_table_spec, study_job_sets


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
                   prices="synthetic", runs_dir=None) -> pd.DataFrame:
    """Fig. 12 at several model sizes: per (model size, job set, seed) the mean over jobs of
    :func:`checkpoint_overhead` in a SpotTune simulation (the profile's settings otherwise).

    ``runs_dir``: keep each (model size, seed)'s rows in the run store (study ``spot-overhead``,
    :func:`tt_workbook.studies.spottune.grids.spot_table_spec`), read back when the settings, prices and job sets are the
    same. None: simulate everything, store nothing."""
    st = sim_settings(cfg)
    rows, frames = [], []
    for mb in model_mb:
        sets = study_job_sets({**cfg, "model_mb": float(mb)})
        for seed in seeds:
            trace = cached_market(prices, seed, cfg["market_days"])

            def one(sets=sets, trace=trace, seed=seed, mb=mb) -> list:
                out = []
                for js in sets:
                    r = S.simulate(js, trace, approach, st, seed)
                    o = checkpoint_overhead(js, r.timeline, st.startup_s)
                    out.append({"model_mb": float(mb), "job_set": js.name, "seed": int(seed),
                                "overhead": float(o["overhead"].mean()), "restore_s": float(o["restore_s"].sum()),
                                "checkpoint_s": float(o["checkpoint_s"].sum()), "train_s": float(o["train_s"].sum())})
                return out

            if runs_dir is None:
                rows += one()
                continue
            spec = spot_table_spec("spot-overhead", sets, trace, st, approach=str(approach), model_mb=float(mb),
                                   market_days=float(cfg["market_days"]), prices=str(prices), seed=int(seed))
            frames.append(ensure_table(spec, lambda: pd.DataFrame(one()), runs_dir)[0])
    return pd.DataFrame(rows) if runs_dir is None else pd.concat(frames, ignore_index=True)


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


def step_time_cov(names, profile: str = "quick", seed: int = 1, limit: float = 0.1) -> pd.DataFrame:
    """§IV-A5's check of online profiling: per setting of each scikit-learn model, the coefficient of
    variation (sd / mean) of its measured seconds per step across steps (the ``seconds`` of
    :func:`tt_spotsim.curves.generate`: the shipped step-time table, measured once by ``tt spot
    measure-step-times``, :mod:`tt_spotsim.step_times`), and whether it is below ``limit`` (the
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
