"""The explorer's four live panels (matplotlib), drawn from the state of an
:class:`~tt_workbook.apps.explorer.controller.ExplorerController`.

Drawing never changes the run (see
:meth:`~tt_workbook.apps.explorer.controller.ExplorerController.top_candidates`). Accuracy problems
show Accuracy_C (TrimTuner Eq. 7) against the cost limit; cost problems (Nephele, Lynceus,
CherryPick) show the CNO (thesis Eq. 6.1) against the accuracy bound and the exploration budget.

The figure is sized for a laptop: :data:`FIGSIZE` at :data:`DPI` is :data:`FIGSIZE` x :data:`DPI`
pixels (840 x 420), which fits beside JupyterLab's file browser at 1280 x 720 under the widget's
controls; shown at that size, its smallest text (:data:`TEXT_PT` points) is
``TEXT_PT * DPI / 72`` = 10.4 pixels high. Legends and notes sit outside the plotting areas.
"""

from __future__ import annotations

import textwrap

import numpy as np

from tt_workbook.plotting.style import share_label

size_label = share_label  # "s = 1/10", "s = 1 (full)"

__all__ = ["DPI", "FIGSIZE", "TEXT_PT", "TITLE_PT", "figure", "log_ticks", "panel_candidates", "panel_incumbent",
           "panel_points", "panel_progress", "smallest_text"]

#: Resolution of the figure (dots per inch): one point is ``DPI / 72`` pixels at the natural size.
DPI = 100
#: Size of the figure in inches: 840 x 420 pixels at :data:`DPI`.
FIGSIZE = (8.4, 4.2)
#: Size of every text but the titles (points): 10.4 pixels at :data:`DPI`.
TEXT_PT = 7.5
#: Size of the panels' titles (points, bold).
TITLE_PT = 8.0


def log_ticks(ax, which: str = "x", money: bool = False) -> None:
    """Readable log-axis labels as plain numbers, no minor labels (call after plotting: majors at 1, 2, 5
    x 10^k over at most 2 decades, else at powers of 10)."""
    import matplotlib.ticker as mt

    axis = ax.xaxis if which == "x" else ax.yaxis
    lo, hi = ax.get_xlim() if which == "x" else ax.get_ylim()
    dense = lo > 0 and hi > lo and np.log10(hi / lo) <= 2.0
    axis.set_major_locator(mt.LogLocator(base=10, subs=(1.0, 2.0, 5.0) if dense else (1.0,)))
    axis.set_major_formatter(mt.FuncFormatter((lambda v, _: f"${v:g}") if money else (lambda v, _: f"{v:g}")))
    axis.set_minor_formatter(mt.NullFormatter())


def _size_colors(benchmark) -> dict[int, tuple]:
    import matplotlib.pyplot as plt

    cmap = plt.get_cmap("viridis")
    sizes = benchmark.sizes
    return {sz: cmap(i / max(1, len(sizes) - 1)) for i, sz in enumerate(sizes)}


def _limits_text(ctl) -> str:
    lim = ctl.limits
    parts = []
    if lim.get("max_cost") is not None:
        parts.append(f"cost <= ${lim['max_cost']:g}")
    if lim.get("min_accuracy") is not None:
        parts.append(f"accuracy >= {lim['min_accuracy']:g}")
    if lim.get("max_time") is not None:
        parts.append(f"time <= {lim['max_time']:g} s")
    if lim.get("budget") is not None:
        parts.append(f"budget ${lim['budget']:g}")
    return ", ".join(parts)


def _outside_legend(ax, handles=None, labels=None, title=None) -> None:
    """A legend to the right of the plotting area (it hides no data)."""
    if handles is None:
        handles, labels = ax.get_legend_handles_labels()
    if handles:
        ax.legend(handles, labels, loc="upper left", bbox_to_anchor=(1.02, 1.0), borderaxespad=0.0,
                        fontsize=TEXT_PT, title=title, title_fontsize=TEXT_PT, handlelength=1.3,
                        labelspacing=0.35, borderpad=0.3, frameon=False, alignment="left")


def smallest_text(fig, draw: bool = True) -> float:
    """The smallest font size (points) of the visible, non-empty texts of a figure, tick labels included
    (``draw``: draw the figure first, so that its ticks exist)."""
    from matplotlib.text import Text

    if draw:
        fig.canvas.draw()
    sizes = [t.get_fontsize() for t in fig.findobj(Text) if t.get_visible() and t.get_text().strip()
             and t.get_window_extent().width > 0]
    return float(min(sizes)) if sizes else float("nan")


def figure(ctl, k: int = 8, figsize: tuple[float, float] = FIGSIZE, title: bool = True, dpi: float = DPI):
    """The four live panels of a controller as a matplotlib Figure.

    1. tested (configuration, size) points, cost vs accuracy, coloured by size, over all full-size
       configurations (grey) with the limits and the incumbent's true point;
    2. the incumbent per test: true vs predicted accuracy and cost;
    3. Accuracy_C (accuracy problems) or CNO (cost problems) vs cumulative optimisation cost, against
       the other optimisers' curves;
    4. the ``k`` best untested candidates by CEA, with their acquisition values (model-based only).

    ``figsize`` in inches at ``dpi``; text is :data:`TEXT_PT` points (titles :data:`TITLE_PT`) whatever
    the notebook's style. ``title``: a heading with the settings, the test and the incumbent (the
    widget draws none: its status line, updated with the panels, is the heading).
    """
    import matplotlib as mpl
    import matplotlib.pyplot as plt

    rc = {"font.size": TEXT_PT, "axes.titlesize": TITLE_PT, "axes.titleweight": "bold", "axes.labelsize": TEXT_PT,
          "xtick.labelsize": TEXT_PT, "ytick.labelsize": TEXT_PT, "legend.fontsize": TEXT_PT,
          "legend.title_fontsize": TEXT_PT, "figure.titlesize": TITLE_PT + 0.5, "figure.titleweight": "bold",
          "axes.titlepad": 4.0, "axes.labelpad": 2.0, "xtick.major.pad": 2.0, "ytick.major.pad": 2.0}
    with mpl.rc_context(rc):
        fig = plt.figure(figsize=figsize, dpi=dpi, layout="constrained")
        fig.get_layout_engine().set(w_pad=0.02, h_pad=0.02, wspace=0.03, hspace=0.03)
        (ax_points, ax_inc), (ax_progress, ax_cand) = fig.subplots(2, 2, width_ratios=(1.2, 1.0))
        panel_points(ctl, ax_points)
        panel_incumbent(ctl, ax_inc)
        panel_progress(ctl, ax_progress)
        panel_candidates(ctl, ax_cand, k)
        if title:
            fig.suptitle(heading(ctl))
    for ax in fig.axes:  # tick labels are made when drawn, maybe outside this rc context
        ax.tick_params(labelsize=TEXT_PT)
    return fig


def heading(ctl) -> str:
    """The figure's heading: benchmark, optimiser, goal, limits, seed, test; then the incumbent."""
    st = ctl.state()
    s = ctl.settings
    method = s["optimizer"]
    if st["family"] == "model-based":
        own = "own filter" if s.get("filter") is None else "filter"
        method += (f" ({'own: ' if s.get('filter') is None else ''}no filter)" if st["filter_used"] == "none" else
                   f" ({own} {st['filter_used']}, beta {st['beta_used']:g})")
    tests = f"test {st['iteration']}" + ("" if st["max_tests"] is None else f"/{st['max_tests']}")
    if st["budget"] is not None:
        tests += f" (spent ${st['spent']:.3f} of ${st['budget']:g})"
    if st["incumbent"] is None:
        inc = "no feasible test yet" if st["objective"] == "cost" else "no incumbent yet"
    else:
        where = "" if st["incumbent_size"] == ctl.benchmark.max_size else \
            f" at {size_label(st['incumbent_size'], ctl.benchmark.max_size)}"
        inc = (f"incumbent #{st['incumbent']}{where}: accuracy {st['incumbent_accuracy']:.3f}, cost "
               f"${st['incumbent_cost']:.4f}, " + (f"Accuracy_C {st['accuracy_c']:.3f}" if st["objective"] == "accuracy"
                                                  else f"CNO {st['cno']:.3f}"))
    goal = "max accuracy" if st["objective"] == "accuracy" else "min cost"
    return (f"{ctl.benchmark.name.upper()} | {method}, {goal} | {_limits_text(ctl)} | seed {s['seed']} | "
            f"{tests}\n{inc}")


def panel_points(ctl, ax) -> None:
    """Tested points (cost vs accuracy, coloured by size) over the full-size configurations; the legend
    beside the plotting area."""
    bench = ctl.benchmark
    lim = ctl.limits
    full = bench.full_size()
    ax.scatter(full["cost"], full["accuracy"], s=7, color="0.8", label="all configs (s = 1)", zorder=1)
    traj = ctl.trajectory
    colors = _size_colors(bench)
    for size in bench.sizes:
        rows = traj[traj["size"] == size]
        if len(rows):
            ax.scatter(rows["cost"], rows["accuracy"], s=26, color=colors[size], edgecolor="k", linewidth=0.4,
                       label=f"tested, {size_label(size, bench.max_size).replace(' (full)', '')}", zorder=3)
    if len(traj):
        last = traj.iloc[-1]
        ax.scatter([last["cost"]], [last["accuracy"]], s=100, facecolor="none", edgecolor="#d62728",
                   linewidth=1.6, label="latest test", zorder=4)
        if last["incumbent"] >= 0:
            ax.scatter([last["incumbent_cost"]], [last["incumbent_accuracy"]], marker="*", s=180,
                       color="#ffbf00", edgecolor="k", linewidth=0.7, label="incumbent (true, s = 1)", zorder=5)
    if lim.get("max_cost") is not None:
        ax.axvline(lim["max_cost"], color="#d62728", linestyle="--", linewidth=1.1,
                   label=f"max cost ${lim['max_cost']:g}")
    if lim.get("min_accuracy") is not None:
        ax.axhline(lim["min_accuracy"], color="#d62728", linestyle="--", linewidth=1.1,
                   label=f"min accuracy {lim['min_accuracy']:g}")
    ax.set_xscale("log")
    log_ticks(ax, "x", money=True)
    ax.set_xlabel("Cost of the training run [USD]")
    ax.set_ylabel("Accuracy")
    ax.set_title("Tested points, coloured by training-set size")
    _outside_legend(ax)


def panel_incumbent(ctl, ax) -> None:
    """The incumbent per test: true (solid) vs predicted (dashed) accuracy and cost; the legend in one
    row between the title and the plotting area."""
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch
    from matplotlib.transforms import ScaledTranslation

    traj = ctl.trajectory
    lim = ctl.limits
    acc_c, cost_c = "#1f77b4", "#ff7f0e"
    predicted = len(traj) and (traj["predicted_accuracy"].notna().any() or traj["predicted_cost"].notna().any())
    ax.set_title("Incumbent per test: true (solid) vs predicted (dashed)" if predicted else
                 "Incumbent per test: true values" + ("" if not len(traj) else " (no model predictions)"))
    ax.set_ylabel("Accuracy of the incumbent", color=acc_c)
    ax2 = ax.twinx()
    ax2.set_ylabel("Cost of the incumbent [USD]", color=cost_c)
    ax2.grid(False)
    keys = []
    if len(traj):
        it = traj["iteration"]
        ax.step(it, traj["incumbent_accuracy"], where="post", color=acc_c)
        ax2.step(it, traj["incumbent_cost"], where="post", color=cost_c)
        if traj["predicted_accuracy"].notna().any():
            ax.plot(it, traj["predicted_accuracy"], "--o", ms=2.5, color=acc_c, alpha=0.8)
        if traj["predicted_cost"].notna().any():
            ax2.plot(it, traj["predicted_cost"], "--o", ms=2.5, color=cost_c, alpha=0.8)
        n_init = int((traj["phase"] == "init").sum())
        if n_init:
            ax.axvspan(0.5, n_init + 0.5, color="0.93", zorder=0)
            keys.append(Patch(color="0.88", label="initial design"))
    if lim.get("max_cost") is not None:
        ax2.axhline(lim["max_cost"], color=cost_c, linestyle=":", linewidth=1.2)
        keys.append(Line2D([], [], color=cost_c, linestyle=":", label="max cost"))
    if lim.get("min_accuracy") is not None:
        ax.axhline(lim["min_accuracy"], color=acc_c, linestyle=":", linewidth=1.2)
        keys.append(Line2D([], [], color=acc_c, linestyle=":", label="min accuracy"))
    if traj["incumbent_cost"].notna().any() or lim.get("max_cost") is not None:
        ax2.set_yscale("log")
        log_ticks(ax2, "y", money=True)
    ax.set_xlim(0.5, max(ctl.max_tests or 0, len(traj), 1) + 0.5)
    if keys:  # one row under the tick labels (the x axis is named in the title)
        import matplotlib as mpl

        drop = mpl.rcParams["xtick.major.size"] + mpl.rcParams["xtick.major.pad"] + 1.6 * TEXT_PT  # points
        below = ax.transAxes + ScaledTranslation(0, -drop / 72, ax.figure.dpi_scale_trans)
        ax.legend(handles=keys, loc="upper center", bbox_to_anchor=(0.5, 0.0), bbox_transform=below,
                  ncol=len(keys), fontsize=TEXT_PT, handlelength=1.6, columnspacing=0.9, borderaxespad=0.0,
                  borderpad=0.0, frameon=False)


def panel_progress(ctl, ax) -> None:
    """This run's metric vs cumulative optimisation cost, against the other optimisers' curves; the
    legend, titled by where the curves come from, beside the plotting area."""
    from tt_workbook.plotting.figures import METHOD_STYLES

    metric = ctl.metric
    curves, _note = ctl.baseline_curves()
    for name, c in curves.groupby("optimizer", sort=True):
        style = METHOD_STYLES.get(name, {"color": "0.5", "linestyle": "-", "label": name})
        ax.step(c["cumulative_cost"], c["mean"], where="post", color=style["color"],
                linestyle=style["linestyle"], linewidth=1.3, alpha=0.85,
                label=f"{style['label']} (n={int(c['n_runs'].iloc[0])})")
        if (c["hi"] > c["lo"]).any():  # 95% CI of the mean (Accuracy_C clipped to its range [0, 1])
            lo, hi = (c["lo"].clip(0, 1), c["hi"].clip(0, 1)) if metric == "accuracy_c" else (c["lo"], c["hi"])
            ax.fill_between(c["cumulative_cost"], lo, hi, step="post", color=style["color"], alpha=0.07)
    traj = ctl.trajectory.dropna(subset=[metric])
    traj = traj[traj["cumulative_cost"] > 0]
    if len(traj):
        style = METHOD_STYLES.get(ctl.settings["optimizer"], {"label": ctl.settings["optimizer"]})
        ax.step(traj["cumulative_cost"], traj[metric], where="post", color="k", linewidth=2.2,
                label=f"this run: {style['label']}")
        ax.plot(traj["cumulative_cost"].iloc[-1], traj[metric].iloc[-1], "o", color="k", ms=4)
    budget = ctl.limits.get("budget")
    if budget is not None:
        ax.axvline(budget, color="0.3", linestyle="--", linewidth=1.0, label=f"budget ${budget:g}")
    ax.set_xscale("log")
    log_ticks(ax, "x", money=True)
    ax.set_xlabel("Cumulative optimisation cost [USD]")
    if metric == "accuracy_c":
        ax.set_ylim(0, 1.02)
        ax.set_ylabel("Accuracy_C (Eq. 7)")
        ax.set_title("Accuracy_C of the incumbent vs optimisation cost")
    else:
        ax.axhline(1.0, color="0.5", linestyle=":", linewidth=1.0)
        ax.set_ylabel("CNO (thesis Eq. 6.1)")
        ax.set_title("CNO of the incumbent (1 = optimum) vs optimisation cost")
        if len(traj) or len(curves):
            ax.set_yscale("log")
            log_ticks(ax, "y")
    _outside_legend(ax, title=textwrap.fill(progress_source(ctl, curves), 26))


def progress_source(ctl, curves) -> str:
    """Where panel 3's other curves come from, in a few words (its legend's title).

    Examples
    --------
    >>> import pandas as pd
    >>> progress_source(None, pd.DataFrame({"source": ["stored"]}))
    'stored runs, mean over seeds, 95% CI'
    """
    sources = set(curves["source"]) if len(curves) and "source" in curves else set()
    if "stored" in sources:
        return "stored runs, mean over seeds, 95% CI"
    seed = f" (seed {ctl.settings['seed']})" if ctl is not None else ""
    if sources:
        return f"no stored runs for these limits (tt runs stores them): random search computed now{seed}"
    return "no stored runs for these limits (tt runs stores them)"


def panel_candidates(ctl, ax, k: int) -> None:
    """The ``k`` best untested candidates by CEA (Eq. 6) as bars, with their acquisition values and
    P(feasible) as labels on the right, outside the plotting area."""
    bench = ctl.benchmark
    top = ctl.top_candidates(k)
    st = ctl.state()
    ax.set_title(candidates_title(ctl.settings["optimizer"], st["family"], st.get("filter_used"), k))
    if top.empty:
        ax.text(0.5, 0.5, textwrap.fill(top.attrs.get("note", "no candidates"), 50), ha="center", va="center",
                transform=ax.transAxes)
        ax.set_axis_off()
        return
    colors = _size_colors(bench)
    y = np.arange(len(top))[::-1]
    ax.barh(y, top["cea"], color=[colors[int(sz)] for sz in top["size"]], edgecolor="k", linewidth=0.4)
    labels = [f"{int(r.cea_rank)}{'=' if r.cea_tied else '.'} #{int(r.config_id)}, "
              f"{size_label(int(r.size), bench.max_size).replace(' (full)', '')}" for r in top.itertuples()]
    ax.set_yticks(y, labels)
    ax.set_ylim(-0.6, len(top) - 0.4)
    xmax = float(top["cea"].max()) if np.isfinite(top["cea"].max()) and top["cea"].max() > 0 else 1.0
    ax.set_xlim(0, xmax * 1.08)
    ax.grid(False, axis="y")
    best_acq = np.nanargmax(top["acquisition"].to_numpy()) if top["acquisition"].notna().any() else None
    right = ax.twinx()
    right.grid(False)
    right.set_ylim(ax.get_ylim())
    right.set_yticks(y, [(f"{r.acquisition:.3g}" if np.isfinite(r.acquisition) else "n/a")
                         + f" | {r.p_feasible:.2f}" for r in top.itertuples()])
    for i, tick in enumerate(right.get_yticklabels()):
        tick.set_fontweight("bold" if best_acq == i else "normal")
    right.set_ylabel("acquisition | P(feasible)")
    ties = "; n= : tied" if top["cea_tied"].any() else ""
    ax.set_xlabel("CEA = predicted accuracy x P(limits hold)" + ties)
    if st["filter_used"] == "cea":
        kept = int(top["in_filter"].sum())
        ax.set_xlabel(f"CEA = predicted accuracy x P(limits hold){ties}\nthe {st['beta_used']:.0%} CEA filter "
                      f"keeps {kept} of these {len(top)}; bold: best acquisition")


def candidates_title(optimizer: str, family: str, filter_used, k: int) -> str:
    """Panel 4's title: the optimiser's own ranking when it filters by CEA, else what the panel shows
    instead (CEA computed from its models for comparison) or why it is empty.

    Examples
    --------
    >>> candidates_title("trimtuner-dt", "model-based", "cea", 6)
    'Top 6 untested candidates by CEA (Eq. 6)'
    >>> candidates_title("eic", "model-based", "none", 6)
    'Top 6 by CEA (Eq. 6), for comparison: eic filters with none'
    >>> candidates_title("nephele", "budgeted", None, 6)
    'Candidates: nephele has no CEA ranking'
    """
    if family != "model-based":
        return f"Candidates: {optimizer} has no CEA ranking"
    if filter_used == "cea":
        return f"Top {k} untested candidates by CEA (Eq. 6)"
    return f"Top {k} by CEA (Eq. 6), for comparison: {optimizer} filters with {filter_used}"
