"""SpotTune figures (paper Figs 1, 7, 8, 9, 10, 11 and the revocation statistics), in the workbook's style.

Every figure fed by synthetic prices says so in its title (:func:`price_label`).
"""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from tt_workbook.plotting.style import laptop_size, legend_below, legend_right, legend_under, log_axis, use_style
from tt_spotsim import earlycurve as ec
from tt_spotsim.catalogue import instance

#: Colour, hatch and label of each approach (Fig. 7's legend).
APPROACH_STYLES = {
    "single-cheapest": {"color": "#8c8c8c", "label": "Single-Spot Tune (cheapest)"},
    "single-fastest": {"color": "#4c72b0", "label": "Single-Spot Tune (fastest)"},
    "spottune-1": {"color": "#dd8452", "label": "SpotTune (θ=1.0)"},
    "spottune-0.7": {"color": "#c44e52", "label": "SpotTune (θ=0.7)"},
}
ORDER = list(APPROACH_STYLES)


def price_label(synthetic: bool) -> str:
    return "SYNTHETIC 2017-style prices" if synthetic else "AWS spot prices (2017 trace)"


def fig1_prices(trace, types=None, days: float | None = None):
    """Fig. 1: spot price over time of each type (dashed: its on-demand price)."""
    use_style()
    types = types or trace.types
    df = trace.frame()[types]
    if days is not None:
        df = df.iloc[: int(days * 1440)]
    fig, axes = plt.subplots(len(types), 1, figsize=laptop_size(10, 1.6 * len(types) + 0.6), sharex=True)
    axes = np.atleast_1d(axes)
    for ax, name in zip(axes, types):
        ax.plot(df.index, df[name], lw=0.7, color="#c44e52")
        ax.axhline(instance(name).on_demand, ls="--", lw=0.8, color="0.3")
        ax.set_ylabel(f"{name}\nUSD/h", fontsize=8)
        ax.set_yscale("log")
        log_axis(ax, "y", money=True)
    axes[0].set_title(f"Fig. 1: spot price over {len(df) / 1440:.0f} days ({price_label(trace.synthetic)}; dashed: on-demand)")
    fig.autofmt_xdate()
    return fig


def fig_revocation(stats: pd.DataFrame, synthetic: bool):
    """Probability of a revocation within the hour against the bid's margin above the price, per type."""
    use_style()
    fig, ax = plt.subplots(figsize=(6.5, 4))
    for name, g in stats.groupby("type", sort=False):
        ax.plot(g["margin"] * 100, g["p_revoked_within_hour"], marker="o", label=name)
    ax.set_xscale("symlog", linthresh=1)
    ax.set_xlabel("maximum price above the current price [%]")
    ax.set_ylabel("P(revoked within the hour)")
    ax.set_title(f"Revocation within an hour vs bid ({price_label(synthetic)})", fontsize=10)
    legend_right(ax)
    return fig


def fig7(per: pd.DataFrame, synthetic: bool):
    """Fig. 7: (a) cost, (b) JCT, (c) PCR per job set, each normalised to SpotTune (θ=0.7)."""
    use_style()
    sets = list(dict.fromkeys(per["job_set"]))
    fig, axes = plt.subplots(3, 1, figsize=laptop_size(max(8, 0.9 * len(sets) + 2), 9, below=0.4), sharex=True,
                             constrained_layout=True)
    width = 0.8 / len(ORDER)
    x = np.arange(len(sets))
    for ax, col, title in zip(axes, ("cost_norm", "jct_h_norm", "pcr_norm"),
                              ("(a) cost", "(b) job completion time", "(c) performance-cost rate")):
        for i, ap in enumerate(ORDER):
            v = per[per["approach"] == ap].set_index("job_set").reindex(sets)[col]
            ax.bar(x + (i - 1.5) * width, v, width, **APPROACH_STYLES[ap])
        ax.set_yscale("log")
        log_axis(ax, "y")
        ax.axhline(1, color="0.3", lw=0.8)
        ax.set_ylabel(f"{title.split(' ', 1)[1]}\n(÷ SpotTune θ=0.7)", fontsize=9)
        ax.set_title(title, loc="left", fontsize=10)
    axes[-1].set_xticks(x, sets, rotation=35, ha="right", fontsize=8)
    fig.suptitle(f"Fig. 7 on substituted workloads ({price_label(synthetic)})", fontsize=11)
    legend_below(fig)
    return fig


def fig8(theta: pd.DataFrame, synthetic: bool, intervals: pd.DataFrame | None = None):
    """Fig. 8: SpotTune at θ = 0.1..1.0: (a) cost and (b) JCT relative to θ = 1, (c) top-1 / top-3 accuracy.
    ``intervals`` (:func:`tt_workbook.studies.spottune.intervals.theta_intervals`): the mean over workloads with its seed
    interval drawn in black on (a) and (b)."""
    use_style()
    g = theta.assign(jct_h=theta["jct_s"] / 3600).groupby(["job_set", "theta"])[["cost", "jct_h", "top1", "top3"]].mean()
    g = g.reset_index()
    ref = g[g["theta"] == g["theta"].max()].set_index("job_set")
    fig, axes = plt.subplots(1, 3, figsize=laptop_size(13, 3.8), constrained_layout=True)
    for js, d in g.groupby("job_set", sort=False):
        axes[0].plot(d["theta"], d["cost"] / ref.loc[js, "cost"], marker=".", lw=1, label=js)
        axes[1].plot(d["theta"], d["jct_h"] / ref.loc[js, "jct_h"], marker=".", lw=1)
    acc = g.groupby("theta")[["top1", "top3"]].mean()
    axes[2].plot(acc.index, acc["top1"], marker="o", label="top-1")
    axes[2].plot(acc.index, acc["top3"], marker="s", label="top-3")
    if intervals is not None:
        for ax, q in zip(axes[:2], ("cost_vs_max_theta", "jct_vs_max_theta")):
            ax.errorbar(intervals["theta"], intervals[q], yerr=[intervals[q] - intervals[q + "_lo"],
                                                                 intervals[q + "_hi"] - intervals[q]],
                        color="black", lw=2, capsize=3, marker="o", ms=4, label="mean over workloads (95% seed interval)")
    axes[0].set_ylabel("cost ÷ cost at θ = 1")
    axes[1].set_ylabel("JCT ÷ JCT at θ = 1")
    axes[2].set_ylabel("share of job sets (and seeds)")
    for ax, t in zip(axes, ("(a) cost", "(b) JCT", "(c) EarlyCurve's accuracy")):
        ax.set_xlabel("θ")
        ax.set_title(t, loc="left", fontsize=10)
    axes[2].set_ylim(-0.05, 1.05)
    fig.suptitle(f"Fig. 8: sensitivity to θ ({price_label(synthetic)})", fontsize=11)
    # under the panels: inside (a) the job sets' legend hid the mean curve and its error bars
    legend_below(fig, ncol=5)
    return fig


def fig9(shares: pd.DataFrame, synthetic: bool, intervals: pd.DataFrame | None = None):
    """Fig. 9: share of steps run on refunded instances and share of the usage refunded; ``intervals``
    (:func:`tt_workbook.studies.spottune.intervals.statement_intervals`): the mean over workloads as a line, its seed interval
    as a band, per approach."""
    use_style()
    sets = list(dict.fromkeys(shares["job_set"]))
    aps = list(dict.fromkeys(shares["approach"]))
    fig, axes = plt.subplots(1, 2, figsize=(12, 3.8), sharey=True, constrained_layout=True)
    x = np.arange(len(sets))
    w = 0.8 / len(aps)
    for ax, col, t in zip(axes, ("free_step_share", "refunded_share"), ("(a) steps run for free", "(b) usage refunded")):
        for i, ap in enumerate(aps):
            v = shares[shares["approach"] == ap].set_index("job_set").reindex(sets)[col]
            ax.bar(x + (i - (len(aps) - 1) / 2) * w, v, w, **APPROACH_STYLES.get(ap, {"label": ap}))
            key = f"{col}_{ {'spottune-1': 'st1', 'spottune-0.7': 'st07'}.get(ap, '') }"
            if intervals is not None and key in set(intervals["key"]):
                r = intervals.set_index("key").loc[key]
                color = APPROACH_STYLES.get(ap, {}).get("color", "0.3")
                ax.axhline(r["value"], color=color, lw=1, ls="--")
                ax.axhspan(r["lo"], r["hi"], color=color, alpha=0.12, lw=0)
        ax.set_xticks(x, sets, rotation=35, ha="right", fontsize=8)
        ax.set_title(t, loc="left", fontsize=10)
        ax.set_ylim(0, 1)
    axes[0].set_ylabel("share")
    fig.suptitle(f"Fig. 9: what the first-hour refund contributes ({price_label(synthetic)})", fontsize=11)
    legend_below(fig)
    return fig


def fig11(job, errors: pd.DataFrame, theta: float):
    """Fig. 11: (a) one curve with EarlyCurve's and the single-stage fit from θ of its steps; (b) the relative
    error of the predicted final metric over every setting of a job set."""
    use_style()
    fig, axes = plt.subplots(1, 2, figsize=(12, 4), constrained_layout=True)
    k = ec.theta_steps(theta, job.max_steps)
    steps = np.arange(1, job.max_steps + 1)
    ax = axes[0]
    ax.plot(steps, job.metric, color="0.5", lw=1, label="measured")
    for method, color in (("earlycurve", "#c44e52"), ("single-stage", "#4c72b0")):
        fit = ec.METHODS[method](job.metric[:k])
        ax.plot(steps, fit.predict(steps), color=color, lw=1.5, label=f"{method} ({fit.n_stages} stage(s))")
    ax.axvline(k, ls=":", color="0.3")
    ax.set_xlabel("step")
    ax.set_ylabel("metric")
    ax.set_title(f"(a) {job.name} (θ = {theta:g})", loc="left", fontsize=10)
    legend_under(ax, ncol=3)
    ax = axes[1]
    x = np.arange(len(errors))
    ax.bar(x - 0.2, errors["earlycurve_error"] * 100, 0.4, color="#c44e52", label="EarlyCurve")
    ax.bar(x + 0.2, errors["single-stage_error"] * 100, 0.4, color="#4c72b0", label="single-stage (SLAQ/Optimus)")
    ax.set_xticks(x, [str(s) for s in errors["setting"]], fontsize=8)
    ax.set_xlabel("hyper-parameter setting")
    ax.set_ylabel("error of the predicted final metric [%]")
    ax.set_title(f"(b) {errors['job_set'].iloc[0]}", loc="left", fontsize=10)
    legend_under(ax, ncol=2)
    return fig


#: Colour and label of each revocation predictor (Fig. 10's legend).
PREDICTOR_STYLES = {
    "revpred": {"color": "#c44e52", "label": "RevPred"},
    "tributary": {"color": "#4c72b0", "label": "Tributary predict"},
    "logistic": {"color": "#8c8c8c", "label": "Logistic Regression"},
}


def fig10(scores: pd.DataFrame, synthetic: bool, bids: str = "random"):
    """Fig. 10 (a, b): accuracy and F1 per instance type of each predictor on the test days. An undefined
    score (F1 with no positive prediction and no positive label: NaN in ``scores``) gets no bar but an
    "n/a" at its place, never a bar of 0."""
    use_style()
    s = scores[scores["bids"] == bids]
    types = list(dict.fromkeys(s["type"]))
    preds = [p for p in PREDICTOR_STYLES if p in set(s["predictor"])]
    fig, axes = plt.subplots(1, 2, figsize=(12, 3.8), sharey=True)
    x = np.arange(len(types))
    w = 0.8 / max(1, len(preds))
    undefined = False
    for ax, col, title in zip(axes, ("accuracy", "f1"), ("(a) accuracy", "(b) F1 score")):
        for i, p in enumerate(preds):
            v = s[s["predictor"] == p].set_index("type").reindex(types)[col].to_numpy(float)
            xs = x + (i - (len(preds) - 1) / 2) * w
            ok = np.isfinite(v)
            ax.bar(xs[ok], v[ok], w, **PREDICTOR_STYLES[p])
            for xi in xs[~ok]:
                ax.text(xi, 0.02, "n/a", rotation=90, ha="center", va="bottom", fontsize=7, color="0.3")
            undefined |= bool((~ok).any())
        ax.set_xticks(x, types, rotation=25, ha="right", fontsize=8)
        ax.set_ylim(0, 1)
        ax.set_title(title, loc="left", fontsize=10)
    axes[0].set_ylabel("score on the test days")
    handles, labels = axes[0].get_legend_handles_labels()
    fig.legend(handles, labels, ncol=len(preds), fontsize=8, loc="upper center", bbox_to_anchor=(0.5, 0.93))
    fig.subplots_adjust(top=0.78)
    if undefined:
        fig.text(0.99, 0.01, "n/a: undefined (F1 with no positive prediction and no positive label)", ha="right",
                 va="bottom", fontsize=7, color="0.3")
    how = "random maximum prices" if bids == "random" else "Alg. 2 maximum prices"
    fig.suptitle(f"Fig. 10: revocation within the hour, {how} ({price_label(synthetic)})", fontsize=11)
    return fig


def fig10c(summary: pd.DataFrame, synthetic: bool, reference: str = "tributary"):
    """Fig. 10 (c): SpotTune's cost and PCR with each predictor, normalised to the ``reference`` predictor."""
    use_style()
    fig, ax = plt.subplots(figsize=(6, 3.6))
    preds = list(summary["predictor"])
    x = np.arange(2)
    w = 0.8 / max(1, len(preds))
    for i, p in enumerate(preds):
        r = summary[summary["predictor"] == p].iloc[0]
        ax.bar(x + (i - (len(preds) - 1) / 2) * w, [r["cost_norm"], r["pcr_norm"]], w,
               **PREDICTOR_STYLES.get(p, {"label": p}))
    ax.axhline(1, color="0.3", lw=0.8)
    ax.set_xticks(x, ["cost", "PCR"])
    ax.set_ylabel(f"÷ SpotTune with {PREDICTOR_STYLES.get(reference, {'label': reference})['label']}")
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    ax.set_title(f"(c) SpotTune with each predictor ({price_label(synthetic)})", fontsize=10)
    return fig


def fig_sensitivity(table: pd.DataFrame, paper: dict, synthetic: bool):
    """The unstated settings swept (:func:`tt_workbook.studies.spottune.sensitivity.sensitivity_table`): per quantity, SpotTune
    (θ = 1 and 0.7) at each bid rule and parallel fraction, with seed intervals; ``paper``: (approach,
    quantity) -> the paper's number, drawn as a dashed line in the approach's colour."""
    use_style()
    panels = [("cost_vs_cheapest", "cost ÷ cheapest"), ("cost_vs_fastest", "cost ÷ fastest"),
              ("jct_vs_cheapest", "JCT ÷ cheapest"), ("pcr_vs_cheapest", "PCR ÷ cheapest"),
              ("pcr_vs_fastest", "PCR ÷ fastest"), ("steps_free", "share of steps free")]
    settings = list(dict.fromkeys(zip(table["axis"], table["setting"])))
    x = np.arange(len(settings))
    fig, axes = plt.subplots(2, 3, figsize=laptop_size(15, 7.5, below=0.3), sharex=True, constrained_layout=True)
    for ax, (q, title) in zip(axes.ravel(), panels):
        for i, ap in enumerate(("spottune-1", "spottune-0.7")):
            t = table[table["approach"] == ap].set_index(["axis", "setting"]).reindex(settings)
            style = APPROACH_STYLES.get(ap, {})
            color = style.get("color")
            ax.errorbar(x + (i - 0.5) * 0.2, t[q], yerr=[t[q] - t[q + "_lo"], t[q + "_hi"] - t[q]], fmt="o", ms=4,
                        capsize=2, color=color, label=style.get("label", ap))
            if (ap, q) in paper:
                ax.axhline(paper[(ap, q)], color=color, ls="--", lw=1)
        if q != "steps_free":
            ax.set_yscale("log")
            log_axis(ax, "y")
            ax.axhline(1, color="0.3", lw=0.6)
        for i in range(1, len(settings)):
            if settings[i][0] != settings[i - 1][0]:
                ax.axvline(i - 0.5, color="0.6", lw=0.8)
        ax.set_title(title, loc="left", fontsize=10)
    prefix = {"bid": "bid ", "parallel fraction": "", "start-up": "start-up ", "model size": "model "}
    for ax in axes[-1]:
        ax.set_xticks(x, [prefix.get(a, "") + s for a, s in settings], rotation=40, ha="right", fontsize=8)
    fig.suptitle(f"The unstated settings swept, one at a time (the others at the profile's values): bid rule, parallel "
                 f"fraction, start-up time, model size;\ndots: mean over workloads, bars: 95% seed interval, dashed: "
                 f"the paper ({price_label(synthetic)})", fontsize=10)
    legend_below(fig)
    return fig


def fig4_lifetime(timeline: pd.DataFrame, title: str, synthetic: bool, t0_s: float | None = None):
    """Fig. 4-style lifetime of a job set's settings in one SpotTune simulation: one row per setting, one bar
    per deployment (colour: instance type; hatched: refunded, i.e. free; a cross: revoked)."""
    use_style()
    t0 = float(timeline["launch"].min()) if t0_s is None else float(t0_s)
    types = list(dict.fromkeys(timeline["type"]))
    colors = dict(zip(types, plt.rcParams["axes.prop_cycle"].by_key()["color"] * 3))
    jobs = sorted(timeline["job"].unique())
    fig, ax = plt.subplots(figsize=laptop_size(12, 0.35 * len(jobs) + 1.8, below=0.3), constrained_layout=True)
    for r in timeline.itertuples():
        y = jobs.index(r.job)
        ax.barh(y, (r.end - r.launch) / 3600, left=(r.launch - t0) / 3600, height=0.7, color=colors[r.type],
                hatch="///" if r.free else None, edgecolor="white", lw=0.3)
        if r.reason == "revoked":
            ax.plot((r.end - t0) / 3600, y, "x", color="black", ms=4)
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch

    handles = [Patch(facecolor=colors[t], label=t) for t in types]
    handles += [Patch(facecolor="white", hatch="///", edgecolor="0.4", label="refunded (free)"),
                Line2D([], [], marker="x", color="black", ls="none", label="revoked")]
    ax.set_yticks(range(len(jobs)), [f"setting {j}" for j in jobs], fontsize=7)
    ax.invert_yaxis()
    ax.set_xlabel("hours since submission")
    legend_under(ax, handles=handles, fontsize=7, ncol=len(handles), offset=0.55)
    ax.set_title(f"Fig. 4-style lifetime: {title} ({price_label(synthetic)})", fontsize=10, loc="left")
    return fig


def fig6_speed_price(job, trace=None):
    """Fig. 6-style speed against price: steps per hour of one job on each type (the speed model) against the
    on-demand price and, given a trace, the mean spot price."""
    use_style()
    fig, ax = plt.subplots(figsize=(6.5, 4))
    for name, sps in job.seconds_per_step.items():
        od = instance(name).on_demand
        ax.scatter(od, 3600 / sps, color="#4c72b0")
        ax.annotate(name, (od, 3600 / sps), fontsize=7, xytext=(3, 3), textcoords="offset points")
        if trace is not None and name in trace.types:
            ax.scatter(float(trace.series(name).mean()), 3600 / sps, color="#dd8452", marker="s", s=14)
    ax.scatter([], [], color="#4c72b0", label="on-demand price")
    if trace is not None:
        ax.scatter([], [], color="#dd8452", marker="s", label="mean spot price")
    ax.set_xlabel("price (USD/h)")
    ax.set_ylabel("steps per hour")
    legend_right(ax)
    ax.set_title(f"Fig. 6-style: speed vs price ({job.name}, speed model)", fontsize=10, loc="left")
    return fig


def fig12_overhead(summary: pd.DataFrame):
    """Fig. 12: checkpoint-restore time as a share of the training time, per model size (mean over workloads,
    and the largest job set's), with the paper's 10%."""
    use_style()
    fig, ax = plt.subplots(figsize=(6, 3.8))
    x = np.arange(len(summary))
    ax.bar(x - 0.2, 100 * summary["mean_overhead"], 0.4, label="mean over workloads", color="#c44e52")
    ax.bar(x + 0.2, 100 * summary["max_job_set_overhead"], 0.4, label="largest job set", color="#8c8c8c")
    ax.axhline(10, color="0.3", ls="--", lw=1, label="paper: < 10% on average")
    ax.set_xticks(x, [f"{mb:g} MB" for mb in summary["model_mb"]])
    ax.set_ylabel("checkpoint + restore, % of training time")
    legend_right(ax)
    ax.set_title("Fig. 12: checkpoint-restore overhead (simulated)", fontsize=10, loc="left")
    return fig


def fig5_stages(job, theta: float):
    """Fig. 5-style: one learning curve split into stages by Eq. 7 over the first θ of its steps: (a) the metric
    with the stage starts, (b) the change rate per step with the thresholds (a jump above α after
    ``CALM_STEPS`` steps below ε starts a stage)."""
    use_style()
    k = ec.theta_steps(theta, job.max_steps)
    part = job.metric[:k]
    starts = ec.stage_starts(part)
    fig, axes = plt.subplots(1, 2, figsize=(12, 3.8), constrained_layout=True)
    steps = np.arange(1, job.max_steps + 1)
    axes[0].plot(steps, job.metric, color="0.5", lw=1, label="metric")
    axes[0].axvline(k, color="0.3", ls=":", lw=1, label=f"θ = {theta:g}")
    d = ec.change_rates(part)
    axes[1].semilogy(np.arange(1, len(d) + 1), np.maximum(d, 1e-6), color="0.4", lw=1)
    axes[1].axhline(ec.ALPHA, color="#c44e52", ls="--", lw=1, label=f"α = {ec.ALPHA:g}")
    axes[1].axhline(ec.EPSILON, color="#4c72b0", ls="--", lw=1, label=f"ε = {ec.EPSILON:g}")
    for i, s in enumerate(starts[1:]):
        for ax in axes:
            ax.axvline(s + 1, color="#dd8452", lw=1.2, label="new stage (Eq. 7)" if i == 0 and ax is axes[0] else None)
    axes[0].set_xlabel("step")
    axes[0].set_ylabel("metric")
    axes[1].set_xlabel("step")
    axes[1].set_ylabel("change rate")
    legend_under(axes[0], ncol=3)
    legend_under(axes[1], ncol=2)
    axes[0].set_title(f"(a) {job.name}: {len(starts)} stage(s) in the first {k} steps", loc="left", fontsize=10)
    axes[1].set_title("(b) change rate and Eq. 7's thresholds", loc="left", fontsize=10)
    return fig


def fig_reliability(curve: pd.DataFrame, summary: pd.DataFrame, synthetic: bool, labels: dict | None = None):
    """Each revocation predictor's reliability curve in the loop (:func:`tt_workbook.studies.spottune.revpred_study.calibration`): per
    probability bin, the mean predicted probability of a revocation within the hour against the realised share
    revoked (marker area ~ deployments); the legend gives the overall predicted and realised rates. A calibrated
    predictor's points lie on the diagonal."""
    use_style()
    labels = labels or {}
    fig, ax = plt.subplots(figsize=(5, 5.2))
    tot = summary.set_index(summary.columns[0])
    for name, c in curve.groupby(curve.columns[0], sort=False):
        n = c["deployments"].to_numpy(float)
        r = tot.loc[name]
        line, = ax.plot(c["predicted"], c["realised"], lw=1,
                        label=f"{labels.get(name, name)}: predicted {r['predicted']:.2f}, realised {r['realised']:.2f} "
                              f"({int(r['deployments'])} deployments)")
        ax.scatter(c["predicted"], c["realised"], s=12 + 120 * n / max(n.max(), 1), color=line.get_color(), alpha=0.8)
    ax.plot([0, 1], [0, 1], color="0.6", lw=0.8, ls="--")
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1)
    ax.set_xlabel("predicted P(revoked within the hour)")
    ax.set_ylabel("realised share revoked")
    ax.set_title(f"Reliability of the predictors in the loop ({price_label(synthetic)})", fontsize=10)
    ax.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.14))
    return fig
