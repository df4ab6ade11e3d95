"""The headline multi-seed figure: each optimiser's incumbent over optimisation cost, median and band over seeds.

:func:`plot_seed_bands` draws the output of :func:`tt_workbook.studies.fig1_fig2.trajectories.seed_band` (one panel), each
optimiser in its :data:`tt_workbook.plotting.style.METHOD_STYLES` colour, optionally with one seed's own curve as a
thin line beside the band it belongs to (the tour's step 5, the report's and the README's first figure).
"""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from tt_workbook.plotting.style import log_axis, method_style

__all__ = ["plot_seed_bands"]


def plot_seed_bands(band: pd.DataFrame, *, runs: pd.DataFrame | None = None, highlight: pd.DataFrame | None = None,
                    highlight_label: str = "one seed (thin lines)",
                    key: str = "optimizer", x: str = "cumulative_cost", y: str = "accuracy_c",
                    target: float | None = None, title: str = "", band_label: str = "10-90% of the seeds",
                    ylabel: str = "Accuracy$_C$ of the incumbent (Eq. 7)",
                    xlabel: str = "Cumulative optimisation cost [USD] (log)", figsize=(9.0, 5.2)):
    """Median line and shaded band per optimiser; one seed's step curve as a thin line.

    Parameters
    ----------
    band : DataFrame
        :func:`tt_workbook.studies.fig1_fig2.trajectories.seed_band` output with ``key``, ``x``, ``median``, ``lo``, ``hi``.
    runs : DataFrame, optional
        The band's trajectories (``key``, ``seed``, ``x``, ``y``): each optimiser's median final ``y`` and ``x`` over
        seeds go into the legend.
    highlight : DataFrame, optional
        One run per optimiser (``key``, ``x``, ``y``), drawn as a thin step line in the optimiser's colour.
    highlight_label : str
        The legend's entry for the thin lines.
    target : float, optional
        A horizontal reference (e.g. 90% of the best feasible accuracy).
    title, band_label, ylabel, xlabel : str
    figsize : (float, float)
        Inches; the legend sits below the axes, outside the data.

    Returns
    -------
    matplotlib.figure.Figure
    """
    fig, ax = plt.subplots(figsize=figsize, constrained_layout=True)
    for name, b in band.groupby(key, sort=False):
        st = method_style(str(name))
        label = st.get("label", str(name))
        if runs is not None:
            finals = runs[runs[key] == name].sort_values(x, kind="stable").groupby("seed").tail(1)
            label += f": median {np.median(finals[y]):.3f} after ${np.median(finals[x]):.2f}"
        ok = b["median"].notna()
        ax.fill_between(b.loc[ok, x], b.loc[ok, "lo"], b.loc[ok, "hi"], step="post", color=st["color"], alpha=0.18,
                        lw=0)
        ax.step(b.loc[ok, x], b.loc[ok, "median"], where="post", color=st["color"], lw=2.2, label=label)
        if highlight is not None:
            one = highlight[(highlight[key] == name) & (highlight[x] > 0)].sort_values(x, kind="stable")
            ax.step(one[x], one[y], where="post", color=st["color"], lw=0.9, alpha=0.9)
    if highlight is not None:
        ax.plot([], [], color="0.3", lw=0.9, label=highlight_label)
    ax.fill_between([], [], [], color="0.5", alpha=0.18, lw=0, label=band_label)
    if target is not None:
        ax.axhline(target, color="0.3", ls="--", lw=1, label="90% of the best feasible accuracy")
    log_axis(ax, "x", money=True, scale=True)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    if title:
        ax.set_title(title, fontsize=11)
    fig.legend(*ax.get_legend_handles_labels(), loc="outside lower center", ncol=2, fontsize=9, frameon=False)
    return fig
