"""The paper's own curves drawn over the workbook's (TrimTuner Figs. 1, 3, 4).

:func:`overlay_paper_curves` adds the paper's mean curves (:func:`tt_core.data.paper_figures.paper_curves`)
to a figure made by :func:`tt_core.plotting.figures.plot_metric_vs_cost` or
:func:`tt_core.plotting.studies.plot_study`: same colour as the workbook's curve of the same method or
level, thin dotted line with small markers, one legend entry "paper (read from the PDF)". With no paper
data (the file is absent) the figure is returned unchanged.
"""

from __future__ import annotations

from typing import Sequence

import pandas as pd

__all__ = ["overlay_paper_curves"]


def _color(variant: str):
    from tt_core.plotting.studies import _STUDY_COLORS
    from tt_core.plotting.style import variant_style

    return _STUDY_COLORS.get(variant) or variant_style(variant).get("color", "0.4")


def overlay_paper_curves(fig, paper: pd.DataFrame, panels: Sequence, *, panel: str | None = "benchmark",
                         only: Sequence[str] | None = None, label: str | None = None):
    """Draw the paper's curves on the axes of ``fig`` (one axis per entry of ``panels``, in order).

    Parameters
    ----------
    fig : matplotlib Figure
    paper : DataFrame
        :func:`tt_core.data.paper_figures.paper_curves` output (``benchmark, variant, x, y``).
    panels : sequence
        The value of ``panel`` shown on each axis (e.g. the benchmarks, in the figure's order).
    panel : str or None
        Column of ``paper`` matched against ``panels``; None draws all of ``paper`` on every axis (e.g.
        the paper's TrimTuner-GP Fig. 3 beside the workbook's TrimTuner-DT panel).
    only : sequence of str, optional
        Variants to draw (default: all).
    label : str, optional
        Legend text (default :data:`tt_core.data.paper_figures.LABEL`).
    """
    from matplotlib.lines import Line2D

    from tt_core.data.paper_figures import LABEL

    if paper is None or paper.empty:
        return fig
    label = label or f"{LABEL}: dotted"
    for ax, pv in zip(fig.axes, panels):
        pc = paper if panel is None else paper[paper[panel] == pv]
        if only is not None:
            pc = pc[pc["variant"].isin(list(only))]
        pc = pc[pc["x"] > 0]
        if pc.empty:
            continue
        for variant, c in pc.groupby("variant", sort=False):
            ax.plot(c["x"], c["y"], color=_color(str(variant)), ls=":", lw=1.4, marker="o", ms=2.5, alpha=0.9)
        handles, labels = ax.get_legend_handles_labels()
        handles.append(Line2D([], [], color="0.2", ls=":", lw=1.4, marker="o", ms=2.5))
        labels.append(label)
        ax.legend(handles, labels, fontsize=8, loc="lower right")
    return fig
