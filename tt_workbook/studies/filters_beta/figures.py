"""Plots of the filter and beta studies (TrimTuner Figs 3-4)."""

from __future__ import annotations

from typing import Sequence

import numpy as np
import pandas as pd

__all__ = ["plot_study"]

_STUDY_COLORS = {
    "CEA": "#d62728", "DIRECT": "#1f77b4", "CMA-ES": "#2ca02c", "Random": "#7f7f7f",
    "beta 1%": "#9467bd", "beta 10%": "#d62728", "beta 20%": "#ff7f0e", "beta 50%": "#2ca02c",
    "no filter": "#1f77b4",
}


def plot_study(curves: pd.DataFrame, *, init_end: pd.DataFrame | None = None, reference: dict | None = None,
               x: str = "cumulative_cost", suptitle: str = "", ylim=(0.0, 1.02), order: Sequence[str] | None = None,
               panel: str = "benchmark"):
    """Mean Accuracy_C curve with 95% band per study level (filter or beta), one panel per ``panel`` value.

    ``curves`` is :func:`tt_workbook.studies.fig1_fig2.trajectories.curves_on_grid` of :func:`tt_workbook.studies.filters_beta.analysis.label_runs` output
    (optionally with an extra column named by ``panel``, e.g. ``optimizer``).
    """
    import matplotlib.pyplot as plt

    from tt_workbook.plotting.style import laptop_size, legend_below, log_axis, network_label, variant_style

    panels = list(dict.fromkeys(curves[panel]))
    fig, axes = plt.subplots(1, len(panels), figsize=laptop_size(6.2 * len(panels), 4.4, below=0.5), squeeze=False)
    for ax, pv in zip(axes[0], panels):
        cp = curves[curves[panel] == pv]
        levels = list(dict.fromkeys(cp["variant"]))
        if order:
            levels = [v for v in order if v in levels] + [v for v in levels if v not in order]
        for level in levels:
            cv = cp[cp["variant"] == level]
            color = _STUDY_COLORS.get(level, "0.4")
            bench = cv["benchmark"].iloc[0]
            cut = -np.inf
            if init_end is not None:  # before the earliest end of the initial design all seeds are in it
                ie = init_end[(init_end["benchmark"] == bench)]
                if len(ie):
                    cut = float(ie["cost"].min())
            pre, post = cv[cv[x] <= cut], cv[cv[x] >= cut]
            if len(pre):
                ax.plot(pre[x], pre["mean"], color=color, ls="--", lw=1.4)
            ax.plot(post[x], post["mean"], color=color, lw=2, label=level)
            ax.fill_between(cv[x], cv["lo"], cv["hi"], color=color, alpha=0.13, lw=0)
        bench = cp["benchmark"].iloc[0]
        if reference and bench in reference:
            ax.axhline(reference[bench], color="0.3", ls=":", lw=1, label="best feasible accuracy")
        ax.set_xscale("log")
        ax.set_ylim(*ylim)
        ax.set_xlabel("optimisation cost [USD]")
        ax.set_ylabel("Accuracy$_C$ of the incumbent")
        title = network_label(pv) if panel == "benchmark" else variant_style(str(pv))["label"]
        if panel != "benchmark":
            title += f" - {network_label(bench)}"
        ax.set_title(title)
        log_axis(ax, "x", money=x.endswith("cost"))
    if suptitle:
        fig.suptitle(suptitle)
    fig.tight_layout()
    legend_below(fig)
    return fig


