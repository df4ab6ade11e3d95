"""Figures of the Nephele evaluation (thesis Figs. 6.10-6.13) from :func:`tt_workbook.studies.nephele.analysis.iteration_curves` tables.

Every function returns the matplotlib Figure; save it with :func:`tt_core.data.io.save_figure`.
"""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from tt_workbook.plotting.style import laptop_size, legend_below, log_axis, method_style, network_label

__all__ = ["plot_cno_curves", "plot_lookahead_curves", "HORIZON_LINESTYLES"]

#: Line style of each lookahead horizon (Nephele's colour throughout).
HORIZON_LINESTYLES = {0: "-", 1: "--", 2: ":", 3: "-."}

_AXES = (("cost", "Exploration cost [USD]"), ("time", "Exploration time [min]"),
         ("iteration", "Number of explorations"))


def _finite_rows(c: pd.DataFrame, x: str, value: str) -> pd.DataFrame:
    """The rows of ``c`` whose ``x`` and ``value`` are finite (a filter of rows, not a check)."""
    return c[np.isfinite(c[value]) & np.isfinite(c[x])]


def plot_cno_curves(curves: pd.DataFrame, benchmark: str, *, optimizers=None, value: str = "cno", q: float = 90,
                    targets=(), floor: float | None = None, title: str | None = None):
    """Thesis Figs. 6.10-6.12: CNO of the incumbent vs exploration cost, time and number of explorations.

    Parameters
    ----------
    curves : pandas.DataFrame
        :func:`tt_workbook.studies.nephele.analysis.iteration_curves` output (horizon-0 rows are plotted).
    benchmark : str
    optimizers : list of str, optional
        Order of the curves (default: all in ``curves``).
    value : {"cno", "cno_space"}
    q : float
        The percentile the curves hold (for the labels).
    targets : iterable of float
        Horizontal reference lines (e.g. the thesis' CNO = 10).
    floor : float, optional
        The lowest CNO reachable without sub-sampling (drawn as a dotted line).
    """
    c = curves[(curves["benchmark"] == benchmark) & (curves["horizon"] == 0)]
    optimizers = list(optimizers) if optimizers is not None else list(dict.fromkeys(c["optimizer"]))
    fig, axes = plt.subplots(1, 3, figsize=laptop_size(15, 4.2, below=0.5), sharey=True)
    for ax, (x, label) in zip(axes, _AXES):
        for opt in optimizers:
            d = _finite_rows(c[c["optimizer"] == opt], x, value)
            if d.empty:
                continue
            style = method_style(opt)
            xs = d[x] / 60.0 if x == "time" else d[x]
            ax.step(xs, d[value], where="post", color=style["color"], linestyle=style["linestyle"],
                    label=style["label"], lw=1.8)
        for t in targets:
            ax.axhline(t, color="0.4", lw=0.8, ls="--")
        if floor is not None:
            ax.axhline(floor, color="0.4", lw=0.8, ls=":")
        ax.axhline(1.0, color="k", lw=0.8)
        ax.set_yscale("log")
        log_axis(ax, "y")
        if x != "iteration":
            ax.set_xscale("log")
            log_axis(ax, "x")
        ax.set_xlabel(label + (f" ({q:g}th pct.)" if x != "iteration" else ""))
    axes[0].set_ylabel(f"CNO of the incumbent ({q:g}th pct.)")
    norm = "optimum at any size" if value == "cno" else "optimum of each optimiser's own space"
    fig.suptitle(title or f"{network_label(benchmark)}: optimisation process (CNO vs {norm})")
    fig.tight_layout()
    legend_below(fig, ncol=6)
    return fig


def plot_lookahead_curves(curves: pd.DataFrame, benchmarks, *, optimizer: str = "nephele", value: str = "cno",
                          q: float = 90, x: str = "cost"):
    """Thesis Fig. 6.13: Nephele's CNO vs exploration cost for each lookahead horizon, one panel per network."""
    benchmarks = list(benchmarks)
    fig, axes = plt.subplots(1, len(benchmarks), figsize=laptop_size(6 * len(benchmarks), 4.2, below=0.5), squeeze=False)
    style = method_style(optimizer)
    xlabel = dict(_AXES)[x]
    for ax, bench in zip(axes[0], benchmarks):
        c = curves[(curves["benchmark"] == bench) & (curves["optimizer"] == optimizer)]
        for h, d in c.groupby("horizon"):
            d = _finite_rows(d, x, value)
            if d.empty:
                continue
            xs = d[x] / 60.0 if x == "time" else d[x]
            ax.step(xs, d[value], where="post", color=style["color"], alpha=1.0 - 0.25 * int(h),
                    linestyle=HORIZON_LINESTYLES.get(int(h), "-"), lw=1.8, label=f"h = {int(h)}")
        ax.axhline(1.0, color="k", lw=0.8)
        ax.set_yscale("log")
        log_axis(ax, "y")
        if x != "iteration":
            ax.set_xscale("log")
            log_axis(ax, "x")
        ax.set_title(network_label(bench))
        ax.set_xlabel(f"{xlabel} ({q:g}th pct.)" if x != "iteration" else xlabel)
        ax.set_ylabel(f"CNO ({q:g}th pct.)")
    fig.suptitle(f"{method_style(optimizer)['label']} with lookahead horizons (thesis Fig. 6.13)")
    fig.tight_layout()
    legend_below(fig)
    return fig
