"""Fig. 10: RevPred, Tributary's predictor and logistic regression, scored and plugged into SpotTune.

Fig. 10(a, b): accuracy and F1 per instance type on the test days after the fit period (the paper's
calendar split on the real 2017 trace, :func:`fig10_split`); Fig. 10(c): SpotTune with each predictor in
the provisioner (Eqs. 1-3), and Figs 7 and 9's numbers per predictor; the calibration of each predictor
inside the simulation; whether the past hour carries information (the features of Fig. 10's networks).
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd

from tt_spotsim import market as M, traces as T, revpred as RP, simulator as S, workloads as W
from tt_workbook.studies.spottune.grids import prices_label, sim_settings, study_job_sets, cached_market
from tt_workbook.studies.spottune.intervals import N_BOOT, statement_intervals
from tt_spotsim.revocation import evaluate, forward_max
from tt_spotsim.streams import spot_rng


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


def fig10_trace(trace) -> T.PriceTrace:
    """Fig. 10's trace: a synthetic one as it is; a real one from 2017-04-26 00:00 UTC (earlier minutes
    dropped), with a SpotError (one line naming the dates) unless it covers the paper's split
    (:func:`fig10_split`)."""
    if trace.synthetic:
        return trace
    if trace.start < PAPER_TRAIN_FROM:
        k = int((PAPER_TRAIN_FROM - trace.start) // pd.Timedelta(minutes=1))
        if k >= trace.n_minutes:
            raise _paper_dates_error(trace)
        trace = T.PriceTrace(trace.start + pd.Timedelta(minutes=k), {n: trace.series(n)[k:].copy() for n in trace.types},
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


def revpred_market(cfg: dict, prices="synthetic", seed: int = 1) -> T.PriceTrace:
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
            data = RP.training_set(trace, name, end, how, 1, spot_rng(cfg["seed"], "label-rates", i),
                                   delta or tuple(cfg["delta"]))
            margin = data["bids"] - trace.series(name)[data["minutes"]]
            rows.append({"type": name, "max_price": label, "samples": len(data["labels"]),
                         "positive_rate": data["P"], "median_delta_usd": float(np.median(margin)),
                         "median_delta_of_price": float(np.median(margin / trace.series(name)[data["minutes"]]))})
    return pd.DataFrame(rows)


def fig10_predictors(trace, cfg: dict, names=FIG10_PREDICTORS, progress: bool = False) -> dict:
    """Each predictor fitted on the fit period of :func:`fig10_split` (the trace's first ``fit_days``, or
    until 2017-05-05 on a real trace; the LSTMs with the profile's :class:`~tt_spotsim.revpred.NetSettings`,
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
                           "curves": cfg["curves"], "staged": cfg.get("staged", False)}, progress)


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

    from tt_spotsim.revocation import algorithm2_margins, features

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


def train_weights(out, profile: str = "quick", seed: int = 1, smoke: bool = False) -> dict:
    """Train Fig. 10's LSTMs (RevPred and Tributary's, every type) of ``profile`` on the synthetic market of
    ``seed`` (:func:`revpred_market`; ``smoke``: the profile's smoke settings),
    never from a cache or shipped weights, and write them to ``out`` (``.pt``) with a manifest beside it
    (``.json``: sha256, conditions). Returns the manifest."""
    import datetime
    import os
    import platform

    from tt_core.data import entries
    from tt_workbook.runs import profiles
    from tt_core.data.io import cpu_model

    torch = RP.torch_module()
    out = Path(out)
    cfg = profiles.settings(profile, "revpred", smoke)
    trace = revpred_market(cfg, "synthetic", seed)
    settings = RP.settings_from(cfg)
    until = fig10_split(trace, cfg)[0]
    nets = {}
    for kind in RP.KINDS:
        p = RP.PREDICTORS[kind](settings, cache=False)
        p.use_shipped = False
        p.fit(trace, until=until)
        end = min(trace.n_minutes, int(until // 60))
        for name in trace.types:
            meta = p.meta(trace, name, end)
            info = {k: v for k, v in p.fit_info[name].items() if k not in ("cached", "path", "source")}
            model = p.network(name)
            nets[RP.shipped_key(meta)] = {"meta": meta, "info": info, "state": None if model is None else model.state_dict()}
    env = {k: os.environ[k] for k in ("ATEN_CPU_CAPABILITY", "ONEDNN_MAX_CPU_ISA") if os.environ.get(k)}
    cap = getattr(getattr(torch.backends, "cpu", None), "get_cpu_capability", lambda: "?")()
    with entries.atomic_path(out) as tmp:
        torch.save({"format": RP.FORMAT, "networks": nets}, tmp)
    manifest = {
        "what": f"Fig. 10's LSTM weights (RevPred, Tributary's; every type), profile {profile}, synthetic market "
                f"seed {seed}, fitted on its first {cfg['fit_days']:g} days" + (" (smoke settings)" if smoke else ""),
        "sha256": entries.file_sha256(out), "bytes": out.stat().st_size, "networks": len(nets),
        "trained": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%MZ"),
        "command": "tt spot train-weights", "profile": profile, "smoke": bool(smoke), "seed": seed,
        "cpu": f"{cpu_model()} ({os.cpu_count()} logical CPUs), {platform.machine()}",
        "torch": f"{torch.__version__}, CPU capability {cap}, {settings.threads} thread(s)",
        "environment": " ".join(f"{k}={v}" for k, v in env.items()) or "no CPU-kernel override",
        "versions": f"python {platform.python_version()}, numpy {np.__version__}",
    }
    with entries.atomic_path(RP.manifest_path(out)) as tmp:
        Path(tmp).write_text(json.dumps(manifest, indent=1) + "\n", encoding="utf-8")
    return manifest
