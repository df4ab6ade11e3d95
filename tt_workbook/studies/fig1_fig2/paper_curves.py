"""The paper's own curves drawn over the workbook's (TrimTuner Figs. 1, 3, 4).

:func:`overlay_paper_curves` adds the paper's mean curves (:func:`tt_workbook.studies.fig1_fig2.paper_figures.paper_curves`)
to a figure made by :func:`tt_workbook.plotting.figures.plot_metric_vs_cost` or
:func:`tt_workbook.studies.filters_beta.figures.plot_study`: same colour as the workbook's curve of the same method or
level, thin dotted line with small markers, one legend entry "paper (read from the PDF)". With no paper
data (the file is absent) the figure is returned unchanged.
"""

from __future__ import annotations

from typing import Sequence

import pandas as pd

__all__ = ["overlay_paper_curves", "plot_fig2_bars"]


def _color(variant: str):
    from tt_workbook.studies.filters_beta.figures import _STUDY_COLORS
    from tt_workbook.plotting.style import variant_style

    return _STUDY_COLORS.get(variant) or variant_style(variant).get("color", "0.4")


def overlay_paper_curves(fig, paper: pd.DataFrame, panels: Sequence, *, panel: str | None = "benchmark",
                         only: Sequence[str] | None = None, label: str | None = None):
    """Draw the paper's curves on the axes of ``fig`` (one axis per entry of ``panels``, in order).

    Parameters
    ----------
    fig : matplotlib Figure
    paper : DataFrame
        :func:`tt_workbook.studies.fig1_fig2.paper_figures.paper_curves` output (``benchmark, variant, x, y``).
    panels : sequence
        The value of ``panel`` shown on each axis (e.g. the benchmarks, in the figure's order).
    panel : str or None
        Column of ``paper`` matched against ``panels``; None draws all of ``paper`` on every axis (e.g.
        the paper's TrimTuner-GP Fig. 3 beside the workbook's TrimTuner-DT panel).
    only : sequence of str, optional
        Variants to draw (default: all).
    label : str, optional
        Legend text (default :data:`tt_workbook.studies.fig1_fig2.paper_figures.LABEL`).
    """
    from matplotlib.lines import Line2D

    from tt_workbook.studies.fig1_fig2.paper_figures import LABEL
    from tt_workbook.plotting.style import legend_below

    if paper is None or paper.empty:
        return fig
    label = label or f"{LABEL}: dotted"
    drawn = False
    for ax, pv in zip(fig.axes, panels):
        pc = paper if panel is None else paper[paper[panel] == pv]
        if only is not None:
            pc = pc[pc["variant"].isin(list(only))]
        pc = pc[pc["x"] > 0]
        if pc.empty:
            continue
        for variant, c in pc.groupby("variant", sort=False):
            ax.plot(c["x"], c["y"], color=_color(str(variant)), ls=":", lw=1.4, marker="o", ms=2.5, alpha=0.9)
        drawn = True
    if drawn:
        # one legend for all panels, below them (a legend inside a panel hid the curves' lower right)
        legend_below(fig, extra={label: Line2D([], [], color="0.2", ls=":", lw=1.4, marker="o", ms=2.5)})
    return fig


def plot_fig2_bars(ours: pd.DataFrame, bars: pd.DataFrame, readings: pd.DataFrame | None = None, *, suptitle: str = ""):
    """TrimTuner Fig. 2 as the paper draws it: per network, baseline / TrimTuner-DT of the time (left)
    and cost (right) at which the mean curves reach the target; the workbook's bars beside the paper's
    (read from the PDF). With ``readings`` (:func:`tt_workbook.studies.fig1_fig2.savings.savings_readings`), the
    mean-curve bars carry their bootstrap 95% interval.

    ``ours`` is :func:`tt_workbook.studies.fig1_fig2.savings.curve_savings` of the workbook's mean curves.
    """
    import matplotlib.pyplot as plt
    import numpy as np

    from tt_workbook.studies.fig1_fig2.paper_figures import LABEL
    from tt_workbook.plotting.style import network_label, variant_style

    fig, axes = plt.subplots(1, 2, figsize=(11, 4.2), squeeze=False)
    b = bars.set_index(["benchmark", "baseline"]) if len(bars) else None
    for ax, q in zip(axes[0], ("time", "cost")):
        keys = [(r["benchmark"], r["baseline"]) for _, r in ours.iterrows()]
        x = np.arange(len(keys))
        mine = ours[f"{q}_ratio"].to_numpy(float)
        err = None
        if readings is not None and len(readings):
            rd = readings[(readings["quantity"] == q) & (readings["reading"] == "mean curve")].set_index(
                ["benchmark", "baseline"])
            lo = np.array([rd.loc[k, "lo"] if k in rd.index else np.nan for k in keys])
            hi = np.array([rd.loc[k, "hi"] if k in rd.index else np.nan for k in keys])
            err = np.vstack([np.clip(mine - lo, 0, None), np.clip(hi - mine, 0, None)])
        colors = [variant_style(k[1]).get("color", "0.5") for k in keys]
        ax.bar(x - 0.2, np.nan_to_num(mine, nan=0.0, posinf=0.0), 0.4, color=colors, yerr=err, capsize=3,
               label="this workbook (mean curves, 95% bootstrap CI)")
        if b is not None:
            paper = [b.loc[k, q] if k in b.index else np.nan for k in keys]
            ax.bar(x + 0.2, paper, 0.4, color=colors, alpha=0.35, hatch="//", edgecolor="0.3", label=LABEL)
        for i, v in enumerate(mine):
            if not np.isfinite(v):
                ax.annotate("never" if np.isinf(v) or np.isnan(v) else "", (x[i] - 0.2, 1), ha="center",
                            va="bottom", fontsize=8, color="0.3")
        ax.axhline(1.0, color="0.3", lw=0.8)
        ax.set_yscale("log")
        # one word per line ("TrimTuner (GP)" -> "TrimTuner\n(GP)"), so neighbouring labels do not run together
        ax.set_xticks(x, [f"{network_label(k[0]).split()[0]}\n" + variant_style(k[1])["label"].replace(" ", "\n")
                          for k in keys], fontsize=8)
        ax.set_ylabel(f"{q} to target: baseline / TrimTuner-DT")
        ax.set_title(f"Fig. 2{'a' if q == 'time' else 'b'}: {q} savings")
        ax.grid(axis="x", visible=False)
    handles, labels = axes[0][0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=2, fontsize=9, frameon=False)  # below, off the bars
    if suptitle:
        fig.suptitle(suptitle)
    fig.tight_layout(rect=(0, 0.07, 1, 1))
    return fig
