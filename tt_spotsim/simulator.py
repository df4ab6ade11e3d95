"""Discrete-event simulation of an HPT job set on spot instances: SpotTune (Alg. 1) and the paper's baselines.

Every hyper-parameter setting (job) runs on its own instance. Between events progress is computed, not
stepped: a job on type *i* completes a step every ``T_i`` seconds after its instance is ready.

SpotTune (§III-A, Alg. 1; its listing was lost in extraction, the text describes it)
--------------------------------------------------------------------------------
Each deployment of a job: the provisioner (Eqs. 1-2) picks the type and maximum price at the current
time; the instance is ready after the start-up delay plus, when resuming, the restore of the checkpoint.
Then the first of these events ends the deployment:

* **revocation notice**: the price rises above the maximum price (``rules.revocation == "price"``) or a
  capacity interruption arrives (``"hazard"``, exponential with the type's rate). The job checkpoints the
  steps completed by the notice; the instance is revoked ``notice_s`` (120 s) later; the next deployment
  is launched when the checkpoint is done. A checkpoint that does not fit in the notice loses the
  progress since the last checkpoint (the start of this deployment);
* **hourly re-deployment**: at the first step boundary after the instance has run an hour without
  revocation, SpotTune checkpoints, shuts the instance down and re-deploys (to keep the chance of a free
  first hour); under hourly billing (``aws-2017``) it stops instead at the last step boundary whose
  checkpoint ends within the hour, as a cost-aware user would (running past the hour would start, and
  pay, a second instance-hour);
* **completion** of the phase's target steps: checkpoint, shut down.

Phases: every job first runs ``ceil(theta x max_steps)`` steps (or until its curve plateaus, then it is
finished, §III-C); each job's instance is released when it gets there. When all have, EarlyCurve
predicts every job's final metric, the top-k settings are re-deployed from their checkpoints and
trained to ``max_steps`` (Alg. 1, lines 48-53). With ``theta = 1`` there is one phase, no prediction and
no plateau stop ("the EarlyCurve component does not work", §IV-B1).

JCT (reconstructed): the paper defines it as "the time span from the HPT job submission to selecting the
best model(s)" and its Fig. 8(b) has JCT "near-linear to theta": here ``jct_s`` ends when EarlyCurve
selects the top-k (the end of the first phase; with ``theta = 1`` when every job has finished), and
``completion_s`` when the top-k have also been trained to the end (their cost is always counted).

Baselines (§IV-A4): Single-Spot Tune (cheapest, r4.large) and (fastest, m4.4xlarge): every job on its own
instance of that type from submission, ``max_steps`` steps, a maximum price high enough never to be
revoked (also under ``aws-today``: the paper's assumption, kept), charged under the same billing rule.

Checkpoints (§IV-F): the paper measured 134.22 MB/s on m4.4xlarge (16 vCPUs) and 62.83 MB/s on a 1-vCPU
t2.micro; the speed on other types is interpolated linearly in log2(vCPUs) between them
(:func:`checkpoint_speed`, a reconstruction: the paper gives two points and says checkpointing is
CPU-bound). The restore takes as long as the checkpoint.

Costs: every deployment is billed by :func:`tt_spotsim.rules.bill` under the chosen rules; a job's
*free steps* are the steps kept from refunded instances (Fig. 9). PCR (§IV-B1) is ``1 / (JCT[h] x cost[USD])``.

Assumptions (not in the paper): start-up delay 60 s; predictor trained on the trace's first
``fit_days`` (9 days, as the paper trained RevPred on 04/26-05/04), submission at that point plus a
seeded offset in [0, 12) h; a notice arriving during a checkpoint that ends the deployment anyway is
ignored.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace

import numpy as np
import pandas as pd

from tt_spotsim import earlycurve as ec
from tt_spotsim.catalogue import CHEAPEST, FASTEST, SpotError, check_types, instance
from tt_spotsim.provisioner import Provisioner
from tt_spotsim.revocation import HazardPredictor, RevocationPredictor
from tt_spotsim.revpred import make_predictor
from tt_spotsim.rules import bill, rules as get_rules
from tt_spotsim.streams import spot_rng
from tt_core.data.io import shown

#: Checkpoint speed measured by the paper (§IV-F), MB/s: m4.4xlarge (16 vCPUs) and t2.micro (1 vCPU).
CHECKPOINT_MBPS_16 = 134.22
CHECKPOINT_MBPS_1 = 62.83
MAX_DEPLOYMENTS = 100_000


def checkpoint_speed(vcpus: int) -> float:
    """MB/s of a checkpoint to S3 on an instance with ``vcpus`` vCPUs (reconstructed, see the docstring)."""
    if vcpus < 1:
        raise SpotError(f"vcpus must be >= 1, got {vcpus}")
    frac = min(1.0, math.log2(vcpus) / 4.0)
    return CHECKPOINT_MBPS_1 + (CHECKPOINT_MBPS_16 - CHECKPOINT_MBPS_1) * frac


def max_model_gb(vcpus: int, notice_s: float = 120.0) -> float:
    """The largest model (GB, 1024 MB) that can be checkpointed within the notice (§IV-F)."""
    return checkpoint_speed(vcpus) * notice_s / 1024.0


@dataclass(frozen=True)
class Approach:
    """One of the compared approaches: ``kind`` "spottune" (with ``theta``) or "single" (on ``instance``)."""

    name: str
    kind: str
    theta: float = 1.0
    instance: str | None = None


def spottune(theta: float) -> Approach:
    return Approach(f"spottune-{ec.check_theta(theta):g}", "spottune", float(theta))


def single(name: str, label: str | None = None) -> Approach:
    instance(name)
    return Approach(label or f"single-{name}", "single", 1.0, name)


#: The four approaches of Fig. 7, in the paper's legend order.
FIG7_APPROACHES = (single(CHEAPEST, "single-cheapest"), single(FASTEST, "single-fastest"), spottune(1.0),
                   spottune(0.7))


def approach(name: str) -> Approach:
    """``spottune-<theta>``, ``single-cheapest``, ``single-fastest`` or ``single-<type>``."""
    known = {a.name: a for a in FIG7_APPROACHES}
    if name in known:
        return known[name]
    if name.startswith("spottune-"):
        try:
            theta = float(name.split("-", 1)[1])
        except ValueError:
            theta = None
        if theta is not None:
            return spottune(theta)
    if name.startswith("single-"):
        return single(name.split("-", 1)[1])
    raise SpotError(f"unknown approach {shown(name)}; known: {list(known)} or spottune-<theta> / single-<type>")


@dataclass(frozen=True)
class Settings:
    """Settings of a simulation (defaults: the paper's where it gives them, else the module's assumptions)."""

    rules: object = "paper"
    predictor: object = "logistic"
    bid: object = "algorithm2"
    k: int = 3
    startup_s: float = 60.0
    plateau: bool = True
    method: str = "earlycurve"
    fit_days: float = 9.0
    offset_hours: float = 12.0
    types: tuple | None = None
    start_s: float | None = None

    def checked(self) -> "Settings":
        get_rules(self.rules)
        if self.method not in ec.METHODS:
            raise SpotError(f"unknown curve-fitting method {shown(self.method)}; known: {list(ec.METHODS)}")
        if not (self.startup_s >= 0 and self.fit_days > 0 and self.offset_hours >= 0):
            raise SpotError("startup_s and offset_hours must be >= 0 and fit_days > 0")
        if not isinstance(self.k, (int, np.integer)) or self.k < 1:
            raise SpotError(f"k must be a whole number >= 1, got {shown(self.k)}")
        return self


@dataclass
class SimResult:
    """One approach on one job set: ``summary`` (the keys of ``tt spot simulate --json``), per-job rows and
    the timeline of every deployment."""

    summary: dict
    jobs: pd.DataFrame
    timeline: pd.DataFrame
    notes: list = field(default_factory=list)


_PREDICTORS: dict = {}


def clear_fitted_predictors() -> None:
    """Forget the fitted predictors kept by :func:`fitted_predictor` (a timing starts without them)."""
    _PREDICTORS.clear()


def fitted_predictor(trace, settings: Settings) -> RevocationPredictor:
    """The settings' predictor fitted on the trace's first ``fit_days`` (cached per trace and settings)."""
    r = get_rules(settings.rules)
    if r.revocation == "hazard":
        return HazardPredictor(r.hazard_per_hour).fit(trace)
    pred = settings.predictor
    until = settings.fit_days * 86400.0
    if until >= trace.duration_s:
        raise SpotError(f"fit_days={settings.fit_days:g} (--fit-days) leaves no time to simulate in a trace of "
                        f"{trace.duration_s / 86400:.3g} days; fit on fewer days or use a longer trace "
                        "(--market-days for a synthetic market)")
    if isinstance(pred, str):
        key = (id(trace), pred, until)
        if key not in _PREDICTORS:
            if len(_PREDICTORS) > 32:
                _PREDICTORS.clear()
            _PREDICTORS[key] = (trace, make_predictor(pred).fit(trace, until=until))
        return _PREDICTORS[key][1]
    if not isinstance(pred, RevocationPredictor):
        raise SpotError(f"predictor must be a name or have fit(trace, until) and probability(type, bid, t), got {shown(pred)}")
    return pred.fit(trace, until=until)


def submission_time(settings: Settings, seed: int) -> float:
    """Seconds into the trace at which the job set is submitted: ``start_s`` if given, else the end of the
    predictor's training period plus a seeded offset in ``[0, offset_hours)``."""
    if settings.start_s is not None:
        return float(settings.start_s)
    rng = spot_rng(seed, "submission")
    return settings.fit_days * 86400.0 + rng.uniform(0.0, settings.offset_hours * 3600.0)


class _Run:
    """The state of one approach's simulation: deployments, bills and accounting."""

    def __init__(self, job_set, trace, approach_: Approach, settings: Settings, seed: int, predictor=None):
        self.js, self.trace, self.ap, self.st, self.seed = job_set, trace, approach_, settings, int(seed)
        self.rules = get_rules(settings.rules)
        self.types = check_types(settings.types or job_set.types)
        missing = [t for t in self.types if t not in trace.types]
        if missing:
            raise SpotError(f"the price trace has no prices for {missing}; it has {trace.types}")
        self.rows: list[dict] = []
        if approach_.kind == "spottune":
            self.prov = Provisioner(trace, predictor, self.types, settings.bid,
                                    rng=spot_rng(self.seed, "provisioner-bids"))

    def _record(self, job, phase, name, bid, launch, ready, end, reason, run, kept, revoked, p_revoke=np.nan):
        b = bill(self.trace, name, launch, end, revoked, self.rules)
        self.rows.append({"job": job, "phase": phase, "type": name, "bid": bid, "launch": launch, "ready": ready,
                          "end": end, "reason": reason, "steps_run": int(run), "steps_kept": int(kept),
                          "steps_lost": int(run - kept), "usage": b.usage, "charged": b.charged,
                          "refunded": b.refunded, "free": b.free, "p_revoke": p_revoke})

    def single(self, j: int, job, t0: float) -> float:
        name = self.ap.instance
        T = job.seconds_per_step[name]
        ready = t0 + self.st.startup_s
        done = ready + job.max_steps * T
        end = done + job.model_mb / checkpoint_speed(instance(name).vcpus)
        self._record(j, 1, name, math.inf, t0, ready, end, "finished", job.max_steps, job.max_steps, False)
        return end

    def spot(self, j: int, job, phase: int, done: int, target: int, t: float) -> float:
        """Deploy job ``j`` from ``done`` to ``target`` steps starting at ``t``; returns its completion time."""
        rng = spot_rng(self.seed, "interruptions", j, phase)
        n = 0
        while done < target:
            n += 1
            if n > MAX_DEPLOYMENTS:
                raise SpotError(f"job {shown(job.name)} made no progress in {MAX_DEPLOYMENTS} deployments (steps too long "
                                "for the hourly re-deployment?)")
            choice = self.prov.choose(j, t)
            name = choice.type
            T = job.seconds_per_step[name]
            ckpt = job.model_mb / checkpoint_speed(instance(name).vcpus)
            launch = t
            ready = launch + self.st.startup_s + (ckpt if done > 0 else 0.0)
            finish = ready + (target - done) * T
            if self.rules.billing == "hourly":
                # a cost-aware user under hourly billing stops (checkpoint included) before a second
                # instance-hour starts: the last step boundary whose checkpoint ends by launch + 1 h
                steps_to_hour = max(1, math.floor((launch + 3600.0 - ckpt - ready) / T + 1e-9))
            else:
                steps_to_hour = max(1, math.ceil(max(0.0, launch + 3600.0 - ready) / T - 1e-9))
            t_hour = ready + steps_to_hour * T
            horizon = min(finish, t_hour)
            if self.rules.revocation == "price":
                tc = self.trace.first_above(name, choice.bid, launch, horizon)
            else:
                rate = self.rules.hazard(name)
                tc = launch + rng.exponential(3600.0 / rate) if rate > 0 else None
                if tc is not None and tc >= horizon:
                    tc = None
            p = choice.table[name]["p_revoke"]
            if tc is not None and tc < horizon:
                run = max(0, min(target - done, math.floor((tc - ready) / T + 1e-9))) if tc > ready else 0
                kept = run if ckpt <= self.rules.notice_s else 0
                self._record(j, phase, name, choice.bid, launch, ready, tc + self.rules.notice_s, "revoked", run, kept,
                             True, p)
                t = tc + min(ckpt, self.rules.notice_s)
            elif t_hour < finish:
                run = steps_to_hour
                self._record(j, phase, name, choice.bid, launch, ready, t_hour + ckpt, "hourly", run, run, False, p)
                t = t_hour + ckpt
            else:
                run = target - done
                self._record(j, phase, name, choice.bid, launch, ready, finish + ckpt, "finished", run, run, False, p)
                t = finish + ckpt
            if run > 0:
                self.prov.speeds.update(j, name, T)   # Alg. 1, line 36: the observed seconds per step
            done += self.rows[-1]["steps_kept"]
        return t


def simulate(job_set, trace, approach_="spottune-0.7", settings: Settings | None = None, seed: int = 1,
             predictor=None) -> SimResult:
    """Simulate one approach on one job set over a price trace.

    Parameters
    ----------
    job_set : JobSet
    trace : PriceTrace
    approach_ : Approach or str
        See :func:`approach`.
    settings : Settings
    seed : int
        Submission offset, hazard interruptions and Tributary bids (same seed, same result).
    predictor : fitted RevocationPredictor, optional
        Default: :func:`fitted_predictor` of the settings.
    """
    st = (settings or Settings()).checked()
    ap = approach(approach_) if isinstance(approach_, str) else approach_
    n = len(job_set)
    if st.k > n:
        raise SpotError(f"k={st.k} is larger than the job set {shown(job_set.name)} ({n} settings); choose k <= {n}")
    t0 = submission_time(st, seed)
    if ap.kind == "spottune" and predictor is None:
        predictor = fitted_predictor(trace, st)
    run = _Run(job_set, trace, ap, st, seed, predictor)
    K = np.array([j.max_steps for j in job_set.jobs])
    finals = np.array([j.final_metric for j in job_set.jobs])
    jobs = pd.DataFrame({"job": np.arange(n), "name": [j.name for j in job_set.jobs], "max_steps": K,
                         "true_final": finals})
    if ap.kind == "single":
        ends = np.array([run.single(i, job, t0) for i, job in enumerate(job_set.jobs)])
        predicted, selected, early = finals.copy(), ec.select_top_k(finals, st.k), np.zeros(n, bool)
        jct_end = ends.max()
        target = K.copy()
    else:
        theta = ap.theta
        n1 = np.array([ec.theta_steps(theta, k) for k in K]) if theta < 1 else K.copy()
        early = np.zeros(n, bool)
        if theta < 1 and st.plateau:
            for i, job in enumerate(job_set.jobs):
                p = ec.plateau_step(job.metric, job.max_steps)
                if p is not None and p < n1[i]:
                    n1[i], early[i] = p, True
        ends = np.array([run.spot(i, job, 1, 0, int(n1[i]), t0) for i, job in enumerate(job_set.jobs)])
        t1 = ends.max()
        target = n1.copy()
        if theta < 1:
            predicted = np.array([job.metric[n1[i] - 1] if early[i] else
                                  ec.predict_final(job.metric[:n1[i]], job.max_steps, st.method)
                                  for i, job in enumerate(job_set.jobs)])
            selected = ec.select_top_k(predicted, st.k)
            for i in selected:
                if not early[i] and n1[i] < K[i]:
                    ends[i] = run.spot(int(i), job_set.jobs[i], 2, int(n1[i]), int(K[i]), t1)
                    target[i] = K[i]
            jct_end = max(t1, ends.max())
        else:
            predicted, selected = finals.copy(), ec.select_top_k(finals, st.k)
            jct_end = t1
    tl = pd.DataFrame(run.rows)
    tl.insert(0, "approach", ap.name)
    best = job_set.true_best()
    order = np.argsort(predicted, kind="stable")
    per = tl.groupby("job")
    jobs["steps"] = per["steps_kept"].sum().reindex(jobs["job"]).to_numpy()
    jobs["steps_run"] = per["steps_run"].sum().reindex(jobs["job"]).to_numpy()
    jobs["steps_free"] = tl[tl["free"]].groupby("job")["steps_kept"].sum().reindex(jobs["job"]).fillna(0).to_numpy()
    jobs["charged"] = per["charged"].sum().reindex(jobs["job"]).to_numpy()
    jobs["refunded"] = per["refunded"].sum().reindex(jobs["job"]).to_numpy()
    jobs["deployments"] = per.size().reindex(jobs["job"]).to_numpy()
    jobs["completed_h"] = (ends - t0) / 3600.0
    jobs["predicted_final"] = predicted
    jobs["selected"] = np.isin(jobs["job"], selected)
    jobs["plateau_stop"] = early
    # conservation: every job's kept steps reach its target exactly once
    if not np.array_equal(jobs["steps"].to_numpy(), target):
        raise AssertionError(f"step accounting broken: kept {jobs['steps'].tolist()} vs targets {target.tolist()}")
    charged, refunded, usage = float(tl["charged"].sum()), float(tl["refunded"].sum()), float(tl["usage"].sum())
    jct = float((t1 if ap.kind == "spottune" else jct_end) - t0)
    steps_total = int(tl["steps_kept"].sum())
    summary = {
        "approach": ap.name, "job_set": job_set.name, "rules": get_rules(st.rules).name,
        "prices": trace.label, "synthetic_prices": bool(trace.synthetic), "seed": int(seed), "theta": ap.theta,
        "k": st.k, "cost": charged, "charged": charged, "refunded": refunded, "usage": usage,
        "jct_s": jct, "completion_s": float(jct_end - t0), "pcr": (3600.0 / (jct * charged)) if charged > 0 else None,
        "steps_total": steps_total, "steps_run": int(tl["steps_run"].sum()), "steps_lost": int(tl["steps_lost"].sum()),
        "steps_free": int(tl.loc[tl["free"], "steps_kept"].sum()),
        "free_step_share": float(tl.loc[tl["free"], "steps_kept"].sum() / steps_total) if steps_total else 0.0,
        "refunded_share": refunded / usage if usage > 0 else 0.0,
        "top1": bool(order[0] == best), "top3": bool(best in order[:3]), "best_found": bool(best in selected),
        "deployments": int(len(tl)), "revocations": int((tl["reason"] == "revoked").sum()),
        "submitted_h": t0 / 3600.0,
    }
    return SimResult(summary, jobs, tl)


def compare(job_set, trace, approaches=FIG7_APPROACHES, settings: Settings | None = None, seed: int = 1) -> list[SimResult]:
    """Several approaches on the same job set, market and seed (the predictor fitted once)."""
    st = (settings or Settings()).checked()
    aps = [approach(a) if isinstance(a, str) else a for a in approaches]
    pred = fitted_predictor(trace, st) if any(a.kind == "spottune" for a in aps) else None
    return [simulate(job_set, trace, a, st, seed, pred) for a in aps]


def with_settings(settings: Settings | None = None, **changes) -> Settings:
    return replace(settings or Settings(), **changes)
