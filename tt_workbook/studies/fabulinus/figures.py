"""Thesis Figs 7.1-7.2: Accuracy_C of Fabulinus, FABOLAS, BO with EIc and BO with EI, four panels."""

from __future__ import annotations

import matplotlib.pyplot as plt
import pandas as pd

from tt_workbook.plotting.style import laptop_size, legend_below, log_axis, method_style, network_label

#: Panel -> (column of :func:`tt_workbook.studies.fabulinus.analysis.initial_end`, axis label, log scale), as the thesis.
PANELS = {
    "a": ("cumulative_cost", "(a) exploration cost [USD]", True),
    "b": ("cumulative_time", "(b) exploration time [s]", True),
    "c": ("iteration", "(c) number of explorations", False),
    "d": ("cumulative_wall", "(d) time: exploration + overhead [s]", True),
}


def plot_fabulinus_panels(curves: pd.DataFrame, benchmark: str, init_end: pd.DataFrame | None = None, *,
                          reference: float | None = None, title: str = ""):
    """One network's figure: Accuracy_C (thesis Eq. 7.1) against the four abscissae of Figs 7.1-7.3.

    Parameters
    ----------
    curves : DataFrame
        :func:`tt_workbook.studies.fabulinus.analysis.panel_curves` (``panel, benchmark, optimizer, x, mean, lo, hi``).
    benchmark : str
    init_end : DataFrame, optional
        :func:`tt_workbook.studies.fabulinus.analysis.initial_end`; a circle marks where the initial sampling ends
        (median over runs of the abscissa, mean Accuracy_C), as in the thesis.
    reference : float, optional
        Best feasible full-size accuracy, drawn dotted.
    """
    cb = curves[curves["benchmark"] == benchmark]
    fig, axes = plt.subplots(2, 2, figsize=laptop_size(11.5, 8.2, below=0.5))
    for ax, (panel, (col, label, log)) in zip(axes.ravel(), PANELS.items()):
        cp = cb[cb["panel"] == panel]
        for opt, co in cp.groupby("optimizer", sort=False):
            st = method_style(opt)
            ax.plot(co["x"], co["mean"], color=st["color"], ls=st["linestyle"], lw=2, label=st["label"])
            ax.fill_between(co["x"], co["lo"], co["hi"], color=st["color"], alpha=0.13, lw=0)
            if init_end is not None:
                ie = init_end[(init_end["benchmark"] == benchmark) & (init_end["optimizer"] == opt)]
                if len(ie) and col in ie:
                    ax.plot([ie[col].median()], [ie["accuracy_c_thesis"].mean()], "o", ms=8, mfc="none",
                            mec=st["color"], mew=2)
        if reference is not None:
            ax.axhline(reference, color="0.3", ls=":", lw=1, label="best feasible accuracy")
        if log:
            ax.set_xscale("log")
            log_axis(ax, "x", money=col.endswith("cost"))
        ax.set_ylim(-0.02, 1.02)
        ax.set_xlabel(label)
        ax.set_ylabel("Accuracy$_C$ (Eq. 7.1)")
    fig.suptitle(title or f"{network_label(benchmark)}: optimisation process (thesis Figs 7.1-7.2; o = end of "
                          "the initial sampling)")
    fig.tight_layout()
    legend_below(fig, ncol=5)
    return fig
