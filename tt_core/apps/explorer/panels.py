"""The explorer's four live panels (matplotlib), drawn from the state of an
:class:`~tt_core.apps.explorer.controller.ExplorerController`.

Drawing never changes the run (see
:meth:`~tt_core.apps.explorer.controller.ExplorerController.top_candidates`). Accuracy problems
show Accuracy_C (TrimTuner Eq. 7) against the cost limit; cost problems (Nephele, Lynceus,
CherryPick) show the CNO (thesis Eq. 6.1) against the accuracy bound and the exploration budget.
"""

from __future__ import annotations

import textwrap

import numpy as np

from tt_core.plotting.style import share_label


size_label = share_label  # "s = 1/10", "s = 1 (full)"

__all__ = ["figure", "log_ticks", "panel_candidates", "panel_incumbent", "panel_points", "panel_progress"]


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


def figure(ctl, k: int = 8, figsize: tuple[float, float] = (14, 10)):
    """The four live panels of a controller as a matplotlib Figure.

    1. tested (configuration, size) points, cost vs accuracy, coloured by size, over all full-size
       configurations (grey) with the limits and the incumbent's true point;
    2. the incumbent per test: true vs predicted accuracy and cost;
    3. Accuracy_C (accuracy problems) or CNO (cost problems) vs cumulative optimisation cost, against
       the other optimisers' curves;
    4. the ``k`` best untested candidates by CEA, with their acquisition values (model-based only).

    ``figsize`` in inches: the widget draws a compact (11, 7.4) figure at 100 dpi, legible on a laptop.
    """
    import matplotlib.pyplot as plt

    fig = plt.figure(figsize=figsize, layout="constrained")
    top, bottom = fig.subfigures(2, 1)  # rows laid out independently (long candidate labels below)
    ax_points, ax_inc = top.subplots(1, 2)
    ax_progress, ax_cand = bottom.subplots(1, 2)
    panel_points(ctl, ax_points)
    panel_incumbent(ctl, ax_inc)
    panel_progress(ctl, ax_progress)
    panel_candidates(ctl, ax_cand, k)
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
    fig.suptitle(f"{ctl.benchmark.name.upper()} | {method}, {goal} | {_limits_text(ctl)} | seed {s['seed']} | "
                 f"{tests}\n{inc}")
    return fig


def panel_points(ctl, ax) -> None:
    """Tested points (cost vs accuracy, coloured by size) over the full-size configurations."""
    bench = ctl.benchmark
    lim = ctl.limits
    full = bench.full_size()
    ax.scatter(full["cost"], full["accuracy"], s=10, color="0.82", label="all configurations (s = 1)", zorder=1)
    traj = ctl.trajectory
    colors = _size_colors(bench)
    for size in bench.sizes:
        rows = traj[traj["size"] == size]
        if len(rows):
            ax.scatter(rows["cost"], rows["accuracy"], s=42, color=colors[size], edgecolor="k", linewidth=0.4,
                       label=f"tested at {size_label(size, bench.max_size)}", zorder=3)
    if len(traj):
        last = traj.iloc[-1]
        ax.scatter([last["cost"]], [last["accuracy"]], s=160, facecolor="none", edgecolor="#d62728",
                   linewidth=1.8, label="latest test", zorder=4)
        if last["incumbent"] >= 0:
            where = size_label(int(last["incumbent_size"]), bench.max_size)
            ax.scatter([last["incumbent_cost"]], [last["incumbent_accuracy"]], marker="*", s=300,
                       color="#ffbf00", edgecolor="k", linewidth=0.8, label=f"incumbent (true, {where})", zorder=5)
    if lim.get("max_cost") is not None:
        ax.axvline(lim["max_cost"], color="#d62728", linestyle="--", linewidth=1.2,
                   label=f"max cost ${lim['max_cost']:g}")
    if lim.get("min_accuracy") is not None:
        ax.axhline(lim["min_accuracy"], color="#d62728", linestyle="--", linewidth=1.2,
                   label=f"min accuracy {lim['min_accuracy']:g}")
    ax.set_xscale("log")
    log_ticks(ax, "x", money=True)
    ax.set_xlabel("Cost of the training run [USD]")
    ax.set_ylabel("Accuracy")
    ax.set_title("Tested points, coloured by training-set size")
    ax.legend(fontsize=8, loc="best", framealpha=0.85)


def panel_incumbent(ctl, ax) -> None:
    """The incumbent per test: true (solid) vs predicted (dashed) accuracy and cost."""
    traj = ctl.trajectory
    lim = ctl.limits
    acc_c, cost_c = "#1f77b4", "#ff7f0e"
    predicted = len(traj) and (traj["predicted_accuracy"].notna().any() or traj["predicted_cost"].notna().any())
    ax.set_title("Incumbent: true (solid) vs predicted (dashed)" if predicted else
                 "Incumbent: true accuracy and cost" + ("" if not len(traj) else " (no model predictions)"))
    ax.set_xlabel("Test")
    ax.set_ylabel("Accuracy of the incumbent", color=acc_c)
    ax2 = ax.twinx()
    ax2.set_ylabel("Cost of the incumbent [USD]", color=cost_c)
    ax2.grid(False)
    if len(traj):
        it = traj["iteration"]
        ax.step(it, traj["incumbent_accuracy"], where="post", color=acc_c, label="accuracy (true)")
        ax2.step(it, traj["incumbent_cost"], where="post", color=cost_c, label="cost (true)")
        if traj["predicted_accuracy"].notna().any():
            ax.plot(it, traj["predicted_accuracy"], "--o", ms=3, color=acc_c, alpha=0.8,
                    label="accuracy (predicted)")
        if traj["predicted_cost"].notna().any():
            ax2.plot(it, traj["predicted_cost"], "--o", ms=3, color=cost_c, alpha=0.8, label="cost (predicted)")
        n_init = int((traj["phase"] == "init").sum())
        if n_init:
            ax.axvspan(0.5, n_init + 0.5, color="0.93", zorder=0)
            ax.text(0.6, 0.02, "initial design", transform=ax.get_xaxis_transform(), fontsize=8, color="0.4")
    if lim.get("max_cost") is not None:
        ax2.axhline(lim["max_cost"], color=cost_c, linestyle=":", linewidth=1.2, label="max cost")
    if lim.get("min_accuracy") is not None:
        ax.axhline(lim["min_accuracy"], color=acc_c, linestyle=":", linewidth=1.2, label="min accuracy")
    if traj["incumbent_cost"].notna().any() or lim.get("max_cost") is not None:
        ax2.set_yscale("log")
        log_ticks(ax2, "y", money=True)
    ax.set_xlim(0.5, max(ctl.max_tests or 0, len(traj), 1) + 0.5)
    h1, l1 = ax.get_legend_handles_labels()
    h2, l2 = ax2.get_legend_handles_labels()
    if h1 or h2:
        ax.legend(h1 + h2, l1 + l2, fontsize=8.5, loc="lower right")


def panel_progress(ctl, ax) -> None:
    """This run's metric vs cumulative optimisation cost, against the other optimisers' curves."""
    from tt_core.plotting.figures import METHOD_STYLES

    metric = ctl.metric
    curves, note = ctl.baseline_curves()
    for name, c in curves.groupby("optimizer", sort=True):
        style = METHOD_STYLES.get(name, {"color": "0.5", "linestyle": "-", "label": name})
        label = f"{style['label']} ({c['source'].iloc[0]}, n={int(c['n_runs'].iloc[0])})"
        ax.step(c["cumulative_cost"], c["mean"], where="post", color=style["color"],
                linestyle=style["linestyle"], linewidth=1.4, alpha=0.85, label=label)
        if (c["hi"] > c["lo"]).any():  # 95% CI of the mean (Accuracy_C clipped to its range [0, 1])
            lo, hi = (c["lo"].clip(0, 1), c["hi"].clip(0, 1)) if metric == "accuracy_c" else (c["lo"], c["hi"])
            ax.fill_between(c["cumulative_cost"], lo, hi, step="post", color=style["color"], alpha=0.07)
    traj = ctl.trajectory.dropna(subset=[metric])
    traj = traj[traj["cumulative_cost"] > 0]
    if len(traj):
        style = METHOD_STYLES.get(ctl.settings["optimizer"], {"label": ctl.settings["optimizer"]})
        ax.step(traj["cumulative_cost"], traj[metric], where="post", color="k", linewidth=2.4,
                label=f"this run: {style['label']}")
        ax.plot(traj["cumulative_cost"].iloc[-1], traj[metric].iloc[-1], "o", color="k")
    budget = ctl.limits.get("budget")
    if budget is not None:
        ax.axvline(budget, color="0.3", linestyle="--", linewidth=1.0, label=f"budget ${budget:g}")
    ax.set_xscale("log")
    log_ticks(ax, "x", money=True)
    ax.set_xlabel("Cumulative optimisation cost [USD]")
    if metric == "accuracy_c":
        ax.set_ylim(0, 1.02)
        ax.set_ylabel("Accuracy_C of the incumbent (Eq. 7)")
        ax.set_title("Accuracy_C vs optimisation cost")
    else:
        ax.axhline(1.0, color="0.5", linestyle=":", linewidth=1.0)
        ax.set_ylabel("CNO of the incumbent (thesis Eq. 6.1; 1 = optimum)")
        ax.set_title("CNO vs optimisation cost (lower is better)")
        if len(traj) or len(curves):
            ax.set_yscale("log")
            log_ticks(ax, "y")
    ax.text(0.99, 0.02 if metric == "accuracy_c" else 0.98, textwrap.fill(note, 60), transform=ax.transAxes,
            fontsize=8, color="0.3", ha="right", va="bottom" if metric == "accuracy_c" else "top",
            bbox={"facecolor": "white", "alpha": 0.8, "edgecolor": "none"})
    if ax.get_legend_handles_labels()[0]:
        ax.legend(fontsize=8.5, loc="upper left" if metric == "accuracy_c" else "lower left")


def panel_candidates(ctl, ax, k: int) -> None:
    """The ``k`` best untested candidates by CEA (Eq. 6) with their acquisition values."""
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
    labels = [f"{int(r.cea_rank)}{'=' if r.cea_tied else '.'} #{int(r.config_id)} at "
              f"{size_label(int(r.size), bench.max_size)}" for r in top.itertuples()]
    ax.set_yticks(y, labels, fontsize=9)
    xmax = float(top["cea"].max()) if np.isfinite(top["cea"].max()) and top["cea"].max() > 0 else 1.0
    ax.set_xlim(0, xmax * 1.55)
    best_acq = np.nanargmax(top["acquisition"].to_numpy()) if top["acquisition"].notna().any() else None
    for i, r in enumerate(top.itertuples()):
        txt = f"acq {r.acquisition:.3g}" if np.isfinite(r.acquisition) else "acq n/a"
        txt += f" | P(feasible) {r.p_feasible:.2f}"
        ax.text(r.cea + xmax * 0.02, y[i], txt, va="center", fontsize=8.5,
                fontweight="bold" if best_acq == i else "normal")
    ties = "; n= : tied CEA" if top["cea_tied"].any() else ""
    ax.set_xlabel("CEA = predicted accuracy x P(constraints hold)" + ties)
    if st["filter_used"] == "cea":
        kept = int(top["in_filter"].sum())
        ax.set_xlabel(f"CEA = predicted accuracy x P(constraints hold)\nCEA keeps the best {st['beta_used']:.0%} "
                      f"of {st['n_untested']} untested ({kept} of these {len(top)}); bold: best acquisition{ties}")


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
