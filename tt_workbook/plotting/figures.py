"""Figure styles and plotting functions of the workbook (one place owns colours and labels).

* :data:`METHOD_STYLES` -- colour, line style, marker and label of every optimiser, so that a method
  looks the same in every figure;
* :data:`NETWORK_LABELS`, :data:`METRIC_LABELS` -- display names with units;
* :func:`use_style` -- the seaborn theme used by all notebooks;
* plotting functions for the data analysis (notebook 01) and the sub-sampling analysis of the thesis
  (notebook 08: Fig. 6.7, 6.8, 6.9, Tables 6.3-6.4 as heatmaps).

Every function returns the matplotlib Figure; save it with :func:`tt_core.data.io.save_figure`.
"""

from __future__ import annotations

import matplotlib as mpl
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import seaborn as sns
from matplotlib.colors import ListedColormap
from matplotlib.patches import Patch, Rectangle

from tt_workbook.plotting.style import (  # noqa: F401  (re-exported: the style is used with the figures)
    FEASIBLE_COLORS,
    FULL_INFEASIBLE_GREY,
    INFEASIBLE_GREY,
    METHOD_STYLES,
    METRIC_LABELS,
    NETWORK_LABELS,
    VM_ORDER,
    laptop_size,
    legend_below,
    legend_right,
    legend_under,
    log_axis,
    method_style,
    network_label,
    size_label,
    use_style,
    variant_style,
)

def _edges(values: np.ndarray, log: bool) -> np.ndarray:
    v = np.log10(values) if log else np.asarray(values, float)
    if v.size == 1:
        half = 0.5 if not log else 0.1
        e = np.array([v[0] - half, v[0] + half])
    else:
        mid = (v[1:] + v[:-1]) / 2
        e = np.concatenate([[v[0] - (mid[0] - v[0])], mid, [v[-1] + (v[-1] - mid[-1])]])
    return 10 ** e if log else e


# ---------------------------------------------------------------------------------------------
# Thesis §6.3: Fig. 6.7, 6.8, 6.9 and Tables 6.3-6.4
# ---------------------------------------------------------------------------------------------

def plot_cost_reduction_grid(reduction: pd.DataFrame, status: pd.DataFrame | None = None, *, ax=None,
                             title: str | None = None, mark: tuple[float, float] | None = None):
    """Heatmap of Eq. 6.2 (in %) over (T_max, A_min): x = time limit (log), y = accuracy limit.

    Cells without a feasible full-size configuration are grey: light grey when nothing is feasible
    at any size, dark grey when only sub-sampled runs are feasible (``status`` code 1). ``mark``
    draws the thesis' operating point (A_min, T_max). Returns the QuadMesh (for a colour bar).
    """
    ax = ax or plt.gca()
    acc = reduction.index.to_numpy(float)
    tim = reduction.columns.to_numpy(float)
    log_x = tim.min() > 0 and tim.size > 1 and tim.max() / tim.min() > 20
    xe, ye = _edges(tim, log_x), _edges(acc, False)
    if status is not None:
        grey = np.where(status.to_numpy() == 1, 1.0, 0.0)
        grey = np.ma.masked_where(status.to_numpy() >= 2, grey)
        ax.pcolormesh(xe, ye, grey, cmap=ListedColormap([INFEASIBLE_GREY, FULL_INFEASIBLE_GREY]),
                      vmin=0, vmax=1, shading="flat")
    else:
        ax.set_facecolor(INFEASIBLE_GREY)
    values = np.ma.masked_invalid(100.0 * reduction.to_numpy(float))
    mesh = ax.pcolormesh(xe, ye, values, cmap="viridis", vmin=0, vmax=100, shading="flat")
    if log_x:
        ax.set_xscale("log")
        log_axis(ax, "x")
    ax.set_xlim(xe[0], xe[-1])
    ax.set_ylim(ye[0], ye[-1])
    ax.grid(False)
    ax.set_xlabel(r"Time limit $T_{max}$ [s]")
    ax.set_ylabel(r"Accuracy limit $A_{min}$")
    ax.yaxis.set_major_formatter(mpl.ticker.PercentFormatter(1.0, decimals=0))
    if mark is not None:
        ax.plot(mark[1], mark[0], marker="*", markersize=14, color="#e63946", markeredgecolor="white",
                linestyle="none", label=fr"thesis: $A_{{min}}$={mark[0]:.0%}, $T_{{max}}$={mark[1]:g} s")
    if title:
        ax.set_title(title)
    return mesh


def plot_cost_reduction_grids(grids: dict, *, mark: tuple[float, float] | None = (0.85, 300.0),
                              suptitle: str = "Cost reduction by sub-sampling (thesis Eq. 6.2, Fig. 6.8)"):
    """One Eq. 6.2 heatmap per network with a shared colour bar.

    Parameters
    ----------
    grids : dict
        ``{network: (reduction, status)}`` from :func:`tt_workbook.studies.nephele.subsampling.cost_reduction_grid`
        and :func:`~tt_workbook.studies.nephele.subsampling.feasibility_grid` (``status`` may be None).
    """
    n = len(grids)
    fig, axes = plt.subplots(1, n, figsize=(5.4 * n + 1.2, 4.6), squeeze=False, constrained_layout=True)
    mesh = None
    for ax, (name, (red, status)) in zip(axes[0], grids.items()):
        mesh = plot_cost_reduction_grid(red, status, ax=ax, title=network_label(name), mark=mark)
    for ax in axes[0][1:]:
        ax.set_ylabel("")
    cbar = fig.colorbar(mesh, ax=axes[0].tolist(), shrink=0.9, pad=0.02)
    cbar.set_label("Cost reduction vs. full data set [%]")
    handles = [Patch(color=INFEASIBLE_GREY, label="infeasible at every size"),
               Patch(color=FULL_INFEASIBLE_GREY, label="feasible only with sub-sampling (Eq. 6.2 undefined)")]
    if mark is not None:
        handles.append(axes[0][0].get_legend_handles_labels()[0][0])
    fig.legend(handles=handles, loc="lower center", bbox_to_anchor=(0.5, -0.12), ncol=len(handles), frameon=False)
    fig.suptitle(suptitle)
    return fig


def plot_feasible_per_size(per_size: dict, *, constraints: str = "",
                           suptitle: str = "Configurations meeting the constraints per training-set size (thesis Fig. 6.9)"):
    """Grouped bars per size: feasible (both constraints), meeting the time limit, meeting the accuracy limit.

    Parameters
    ----------
    per_size : dict
        ``{network: DataFrame}`` from :func:`tt_workbook.studies.nephele.subsampling.feasible_per_size`.
    constraints : str
        Text for the subtitle, e.g. ``"A_min = 85%, T_max = 300 s"``.
    """
    n = len(per_size)
    fig, axes = plt.subplots(1, n, figsize=(5.6 * n, 4.2), squeeze=False, sharey=True, constrained_layout=True)
    series = [("feasible", "both constraints (feasible)"), ("time_ok", "time limit met"),
              ("accuracy_ok", "accuracy limit met")]
    width = 0.26
    for ax, (name, df) in zip(axes[0], per_size.items()):
        x = np.arange(len(df))
        max_size = int(df["size"].max())
        for k, (col, label) in enumerate(series):
            bars = ax.bar(x + (k - 1) * width, df[col], width, color=FEASIBLE_COLORS[col], label=label)
            ax.bar_label(bars, fontsize=7.5, padding=1)
        ax.set_xticks(x, [size_label(int(s), max_size) for s in df["size"]], rotation=0)
        ax.set_xlabel("Training-set size [images (% of full)]")
        ax.set_title(network_label(name))
        total = int(df["n_configs"].iloc[0])
        ax.axhline(total, color="black", lw=0.8, ls=":")
        ax.set_ylim(0, total * 1.1)
    axes[0][0].set_ylabel("Number of configurations")
    handles, labels = axes[0][0].get_legend_handles_labels()
    handles.append(mpl.lines.Line2D([], [], color="black", lw=0.8, ls=":"))
    labels.append("all configurations")
    fig.legend(handles, labels, loc="lower center", bbox_to_anchor=(0.5, -0.1), ncol=4, frameon=False)
    fig.suptitle(suptitle + (f"\n{constraints}" if constraints else ""))
    return fig


def plot_crosstabs(crosstabs: dict, *, paper: dict | None = None, title: str = ""):
    """Heatmaps of constraint status at each sub-sampled size vs at the full size (Tables 6.3-6.4).

    Parameters
    ----------
    crosstabs : dict
        ``{size: 4x4 counts}`` from :func:`tt_workbook.studies.nephele.subsampling.constraint_crosstab`.
    paper : dict, optional
        ``{size: 4x4 nested tuples}`` reference counts (:data:`tt_workbook.paper_values.TABLE_6_3`);
        cells where the workbook differs are outlined in red with the paper's value.
    """
    n = len(crosstabs)
    fig, axes = plt.subplots(1, n, figsize=laptop_size(3.9 * n + 0.8, 4.3), squeeze=False, constrained_layout=True)
    vmax = max(int(ct.to_numpy().max()) for ct in crosstabs.values())
    for k, (ax, (size, ct)) in enumerate(zip(axes[0], crosstabs.items())):
        counts = ct.to_numpy()
        total = counts.sum()
        annot = np.array([[f"{v}\n{100 * v / total:.1f}%" if v else "0" for v in row] for row in counts])
        sns.heatmap(ct, annot=annot, fmt="", cmap="Blues", vmin=0, vmax=vmax, cbar=k == n - 1, ax=ax,
                    linewidths=0.5, linecolor="white", annot_kws={"fontsize": 8.5},
                    cbar_kws={"label": "Number of configurations"} if k == n - 1 else None)
        ref = (paper or {}).get(size)
        if ref is not None:
            ref = np.asarray(ref)
            for i, j in zip(*np.nonzero(ref != counts)):
                ax.add_patch(Rectangle((j, i), 1, 1, fill=False, edgecolor="#e63946", lw=2.5))
                ax.text(j + 0.5, i + 0.92, f"paper {ref[i, j]}", ha="center", va="bottom", fontsize=7, color="#e63946")
        ax.set_title(f"{size} vs full size")
        ax.set_xlabel(f"status at {size} images")
        ax.set_ylabel("status at the full size" if k == 0 else "")
        ax.tick_params(axis="x", rotation=35)
        ax.tick_params(axis="y", rotation=0)
        if k:
            ax.set_yticklabels([])
    if title:
        fig.suptitle(title)
    return fig


def plot_time_sorted(tables: dict, min_accuracy: float, max_time: float,
                     suptitle: str = "Points meeting the accuracy limit, sorted by training time (thesis Fig. 6.7)"):
    """For each network, the (configuration, size) points with ``accuracy >= min_accuracy``
    sorted by training time (log scale), with the time limit drawn."""
    fig, ax = plt.subplots(figsize=(7.5, 4.3), constrained_layout=True)
    palette = sns.color_palette("colorblind")
    for k, (name, table) in enumerate(tables.items()):
        t = np.sort(table.loc[table["accuracy"] >= min_accuracy, "training_time"].to_numpy(float))
        ax.plot(np.arange(1, t.size + 1), t, color=palette[k], lw=2,
                label=f"{network_label(name)} ({(t <= max_time).sum()} of {t.size} within the limit)")
    ax.axhline(max_time, color="#e63946", ls="--", lw=1.2, label=fr"$T_{{max}}$ = {max_time:g} s")
    ax.set_yscale("log")
    log_axis(ax, "y")
    ax.set_xlabel(fr"Rank of the point (accuracy $\geq$ {min_accuracy:.0%})")
    ax.set_ylabel(METRIC_LABELS["training_time"])
    legend_under(ax, fontsize=9)
    ax.set_title(suptitle)
    return fig


# ---------------------------------------------------------------------------------------------
# Data analysis (notebook 01)
# ---------------------------------------------------------------------------------------------

def plot_metrics_vs_size(tables: dict, metrics=("accuracy", "training_time", "cost"),
                         suptitle: str = "Accuracy, training time and cost vs training-set size"):
    """Box plots of each metric per size (rows: networks, columns: metrics; time and cost on log axes)."""
    names = list(tables)
    fig, axes = plt.subplots(len(names), len(metrics), figsize=laptop_size(4.6 * len(metrics), 3.4 * len(names)),
                             squeeze=False, constrained_layout=True)
    for r, name in enumerate(names):
        t = tables[name]
        max_size = int(t["size"].max())
        order = sorted(t["size"].unique())
        for c, m in enumerate(metrics):
            ax = axes[r][c]
            sns.boxplot(data=t, x="size", y=m, order=order, ax=ax, color=sns.color_palette("colorblind")[r],
                        fliersize=2, linewidth=0.9, log_scale=(m != "accuracy"))
            if m != "accuracy":
                log_axis(ax, "y", money=(m == "cost"))
            ax.set_xticks(range(len(order)), [size_label(int(s), max_size).replace(" ", "\n") for s in order])
            ax.set_xlabel(METRIC_LABELS["size"] if r == len(names) - 1 else "")
            ax.set_ylabel(METRIC_LABELS[m])
            ax.set_title(f"{network_label(name)}: {METRIC_LABELS[m].split(' [')[0].lower()}")
    fig.suptitle(suptitle)
    return fig


def plot_factor_effects(table: pd.DataFrame, factors=("vm_flavor", "n_cores", "learning_rate", "batch_size", "sync"),
                        metrics=("accuracy", "training_time", "cost"), *, title: str = ""):
    """Box plots of each metric per level of each factor (rows: metrics, columns: factors).

    ``table`` is one size of a benchmark (e.g. ``Benchmark.full_size()`` with
    :func:`tt_workbook.studies.dataset.analysis.with_cores`).
    """
    fig, axes = plt.subplots(len(metrics), len(factors), figsize=laptop_size(3.3 * len(factors), 2.9 * len(metrics)),
                             squeeze=False, sharey="row", constrained_layout=True)
    for r, m in enumerate(metrics):
        for c, f in enumerate(factors):
            ax = axes[r][c]
            levels = sorted(table[f].unique(), key=lambda v: VM_ORDER.index(v) if v in VM_ORDER else v) \
                if f == "vm_flavor" else sorted(table[f].unique())
            sns.boxplot(data=table, x=f, y=m, order=levels, ax=ax, color=sns.color_palette("pastel")[c],
                        fliersize=2, linewidth=0.9, log_scale=(m != "accuracy"))
            if m != "accuracy":
                log_axis(ax, "y", money=(m == "cost"))
            labels = [f"{v:g}" if isinstance(v, (float, np.floating)) else str(v) for v in levels]
            ax.set_xticks(range(len(levels)), labels, rotation=30 if f == "vm_flavor" else 0)
            ax.set_xlabel(METRIC_LABELS.get(f, f) if r == len(metrics) - 1 else "")
            ax.set_ylabel(METRIC_LABELS[m] if c == 0 else "")
    if title:
        fig.suptitle(title)
    return fig


def plot_learning_curves(curves: dict, *, suptitle: str = "Learning curves (accuracy during training, full data set)"):
    """Accuracy samples during training for a few configurations per network.

    Parameters
    ----------
    curves : dict
        ``{network: long DataFrame}`` from :func:`tt_workbook.studies.dataset.analysis.learning_curves`.
    """
    n = len(curves)
    fig, axes = plt.subplots(1, n, figsize=laptop_size(6 * n, 4.2), squeeze=False, sharey=True, constrained_layout=True)
    for ax, (name, df) in zip(axes[0], curves.items()):
        for k, (cid, g) in enumerate(df.groupby("config_id", sort=False)):
            r = g.iloc[0]
            label = f"{r['vm_flavor']} x{r['n_workers']}, lr {r['learning_rate']:g}, b {r['batch_size']}, {r['sync']}" \
                if "vm_flavor" in g else f"config {cid}"
            ax.plot(g["step"], g["accuracy"], lw=1.6, color=sns.color_palette("colorblind")[k % 10], label=label)
        ax.set_xscale("log")
        log_axis(ax, "x")
        ax.set_xlabel("Accuracy sample number during training")
        ax.set_title(network_label(name))
        legend_under(ax, fontsize=7.5, ncol=2)
    axes[0][0].set_ylabel(METRIC_LABELS["accuracy"])
    axes[0][0].yaxis.set_major_formatter(mpl.ticker.PercentFormatter(1.0, decimals=0))
    fig.suptitle(suptitle)
    return fig


def plot_rank_agreement(agreements: dict, *, statistics=("spearman", "kendall"),
                        suptitle: str = "Do small training sets rank configurations like the full one?"):
    """Rank agreement between each size and the full size, per metric (colour: network; line
    style: statistic).

    Parameters
    ----------
    agreements : dict
        ``{network: DataFrame}`` from :func:`tt_workbook.studies.dataset.analysis.rank_agreement`.
    statistics : sequence of {"spearman", "kendall", "top_overlap"}
    """
    names = {"spearman": ("Spearman's rho", "-"), "kendall": ("Kendall's tau-b", "--"),
             "top_overlap": ("top-10% overlap", ":")}
    if isinstance(statistics, str):
        statistics = (statistics,)
    bad = [st for st in statistics if st not in names]
    if bad:
        raise ValueError(f"statistics must be among {sorted(names)}, got {bad}")
    metrics = list(dict.fromkeys(next(iter(agreements.values()))["metric"]))
    fig, axes = plt.subplots(1, len(metrics), figsize=laptop_size(4.6 * len(metrics), 3.9), squeeze=False, sharey=True,
                             constrained_layout=True)
    for c, m in enumerate(metrics):
        ax = axes[0][c]
        for k, (name, df) in enumerate(agreements.items()):
            d = df[df["metric"] == m]
            for st in statistics:
                ax.plot(d["size"], d[st], marker="o", ms=4, lw=1.8, ls=names[st][1],
                        color=sns.color_palette("colorblind")[k], label=f"{network_label(name)}: {names[st][0]}")
            sizes = d["size"].to_numpy()
        ax.set_xscale("log")
        ax.set_xticks(sizes, [f"{v / 1000:g}K" for v in sizes])
        ax.xaxis.set_minor_formatter(mpl.ticker.NullFormatter())
        ax.set_xlabel(METRIC_LABELS["size"])
        ax.set_title(METRIC_LABELS[m].split(" [")[0])
        ax.set_ylim(min(0.0, ax.get_ylim()[0]), 1.02)
    axes[0][0].set_ylabel("Agreement with the full-size ranking")
    handles, labels = axes[0][0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", bbox_to_anchor=(0.5, -0.12), ncol=len(labels), frameon=False)
    fig.suptitle(suptitle)
    return fig


def plot_cost_accuracy(panels: dict, *, suptitle: str = "Full-data-set configurations: cost vs accuracy (TrimTuner Table II)"):
    """Scatter of cost (log) vs accuracy of the full-size configurations, one panel per network,
    with the cost limit and the high-accuracy threshold drawn and the Table II classes coloured.

    Parameters
    ----------
    panels : dict
        ``{network: (full_size_table, result)}``; ``result`` from
        :func:`tt_workbook.studies.feasibility.analysis.feasibility` (needs ``max_cost`` and
        ``accuracy_threshold``).
    """
    n = len(panels)
    fig, axes = plt.subplots(1, n, figsize=laptop_size(5.6 * n, 4.4), squeeze=False, constrained_layout=True)
    colors = {"infeasible": "#bdbdbd", "feasible": "#457b9d", "high": "#e76f51"}
    for ax, (name, (full, res)) in zip(axes[0], panels.items()):
        cost, acc = full["cost"].to_numpy(float), full["accuracy"].to_numpy(float)
        feas = cost <= res["max_cost"]
        thr = res.get("accuracy_threshold")
        high = feas & (acc >= thr) if thr is not None else np.zeros_like(feas)
        for mask, key, label in ((~feas, "infeasible", f"cost > limit ({(~feas).sum()})"),
                                 (feas & ~high, "feasible", f"feasible ({feas.sum()}) ..."),
                                 (high, "high", f"... with high accuracy ({high.sum()})")):
            ax.scatter(cost[mask], acc[mask], s=16, alpha=0.8, color=colors[key], label=label, edgecolor="none")
        ax.axvline(res["max_cost"], color="black", ls="--", lw=1, label=f"cost limit ${res['max_cost']:g}")
        if thr is not None:
            ax.axhline(thr, color=colors["high"], ls=":", lw=1.2, label=f"accuracy threshold {thr:.1%}")
        ax.set_xscale("log")
        log_axis(ax, "x", money=True)
        ax.set_xlabel(METRIC_LABELS["cost"])
        ax.set_ylabel(METRIC_LABELS["accuracy"])
        ax.yaxis.set_major_formatter(mpl.ticker.PercentFormatter(1.0, decimals=0))
        ax.set_title(network_label(name))
        legend_under(ax, ncol=2)
    fig.suptitle(suptitle)
    return fig


def plot_metric_vs_cost(curves: pd.DataFrame, init_end: pd.DataFrame | None = None, *, x: str = "cumulative_cost",
                        reference: dict | None = None, ylabel: str = "Accuracy$_C$ of the incumbent",
                        xlabel: str = "optimisation cost [USD]", suptitle: str = "", ylim=(0.0, 1.02)):
    """Mean curve with 95% band per variant, one panel per benchmark (TrimTuner Figs 1, 3, 4).

    Parameters
    ----------
    curves : DataFrame
        Output of :func:`tt_workbook.studies.fig1_fig2.trajectories.curves_on_grid` (``benchmark, variant, x, mean, lo, hi``).
    init_end : DataFrame, optional
        ``benchmark, variant, cost`` where the initial design ends; the curve is dashed before it.
    reference : dict, optional
        ``benchmark -> value`` drawn as a dotted horizontal line (e.g. the best feasible accuracy).
    """
    benches = list(dict.fromkeys(curves["benchmark"]))
    fig, axes = plt.subplots(1, len(benches), figsize=laptop_size(6.2 * len(benches), 4.4, below=0.5), squeeze=False)
    for ax, bench in zip(axes[0], benches):
        cb = curves[curves["benchmark"] == bench]
        for variant, cv in cb.groupby("variant", sort=False):
            st = variant_style(variant)
            label = st["label"]
            cut = -np.inf
            if init_end is not None:
                ie = init_end[(init_end["benchmark"] == bench) & (init_end["variant"] == variant)]
                if len(ie):
                    cut = float(ie["cost"].median())
            pre, post = cv[cv[x] <= cut], cv[cv[x] >= cut]
            color = st.get("color")
            if len(pre):
                ax.plot(pre[x], pre["mean"], color=color, ls="--", lw=1.6)
            ax.plot(post[x], post["mean"], color=color, ls=st.get("ls", "-"), lw=2, label=label)
            ax.fill_between(cv[x], cv["lo"], cv["hi"], color=color, alpha=0.15, lw=0)
        if reference and bench in reference:
            ax.axhline(reference[bench], color="0.3", ls=":", lw=1, label="best feasible accuracy")
        ax.set_xscale("log")
        ax.set_ylim(*ylim)
        ax.set_xlabel(xlabel)
        ax.set_ylabel(ylabel)
        ax.set_title(network_label(bench))
        log_axis(ax, "x", money=x.endswith("cost"))
    if suptitle:
        fig.suptitle(suptitle)
    fig.tight_layout()
    legend_below(fig)
    return fig


def plot_time_to_target(ttt: pd.DataFrame, *, value: str = "cost", ylabel: str = "optimisation cost to target [USD]",
                        suptitle: str = ""):
    """Per benchmark and method: the cost (or time) each run needed to reach the target (TrimTuner Fig. 2)."""
    benches = list(dict.fromkeys(ttt["benchmark"]))
    fig, axes = plt.subplots(1, len(benches), figsize=laptop_size(5.5 * len(benches), 4.0), squeeze=False)
    for ax, bench in zip(axes[0], benches):
        tb = ttt[ttt["benchmark"] == bench]
        variants = list(dict.fromkeys(tb["variant"]))
        for i, v in enumerate(variants):
            vals = tb[tb["variant"] == v][value].dropna()
            st = variant_style(v)
            ax.scatter(np.full(len(vals), i) + np.linspace(-0.12, 0.12, max(len(vals), 1))[: len(vals)], vals,
                       color=st.get("color"), s=28, zorder=3)
            if len(vals):
                ax.hlines(vals.median(), i - 0.3, i + 0.3, color=st.get("color"), lw=2.5)
            missing = int(tb[tb["variant"] == v][value].isna().sum())
            if missing:
                ax.annotate(f"{missing} not reached", (i, 1), xycoords=("data", "axes fraction"),
                            ha="center", va="top", fontsize=8, color="0.3")
        ax.set_xticks(range(len(variants)), [variant_style(v)["label"] for v in variants], rotation=20)
        ax.set_yscale("log")
        ax.set_ylabel(ylabel)
        ax.set_title(network_label(bench))
    if suptitle:
        fig.suptitle(suptitle)
    fig.tight_layout()
    return fig
