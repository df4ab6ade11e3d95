"""Notebook 03's look at the authors' public code beside the workbook: dH of their entropy search per BO step
(one number per step: minimum and maximum over the kept candidates coincide) and the sizes each tests after the
initial design.

:func:`plot_authors_code` draws what the notebook reads (the exact run's steps, the runs' tests); it computes no
number the summary uses. Legends sit under the panels, outside the data, and the figure fits a laptop
(:func:`tt_workbook.plotting.style.laptop_size`).
"""

from __future__ import annotations

import matplotlib.pyplot as plt
import pandas as pd

from tt_workbook.plotting.style import laptop_size, legend_under

__all__ = ["plot_authors_code"]


def plot_authors_code(steps: list[dict] | None, runs: dict[str, pd.DataFrame], sizes, full_size: int):
    """Two panels: dH per BO step of the authors' exact run (left) and the share of BO tests at each size (right).

    Parameters
    ----------
    steps : list of dict or None
        The exact run's steps (``dh_minmax_per_estimator``: one ``(min, max)`` pair per estimator); None when the
        run is not found (the panel says so).
    runs : dict
        ``{label: trajectories}`` with ``phase`` and ``size`` columns; the tests of phase ``"bo"`` are counted,
        one bar group per size, one bar per label.
    sizes : iterable of int
        The sizes on the x axis (a size no run tested has zero bars).
    full_size : int
        The full data set's size; the ticks read ``1/(full_size / size)``.

    Returns
    -------
    matplotlib.figure.Figure
    """
    fig, (a1, a2) = plt.subplots(1, 2, figsize=laptop_size(11, 4.2), constrained_layout=True)
    if steps is not None:
        for k, st in enumerate(steps, start=1):
            lo = [m[0] for m in st["dh_minmax_per_estimator"]]
            hi = [m[1] for m in st["dh_minmax_per_estimator"]]
            a1.scatter([k] * len(lo), lo, marker="_", s=200, color="C0", label="min over candidates" if k == 1 else None)
            a1.scatter([k] * len(hi), hi, marker="|", s=80, color="C3", label="max over candidates" if k == 1 else None)
        a1.set(xlabel="BO step", ylabel="dH per estimator")
        legend_under(a1, ncol=2)
    else:
        a1.text(0.5, 0.5, "exact run not found", ha="center", transform=a1.transAxes)
    sizes = list(sizes)
    for i, (label, frame) in enumerate(runs.items()):
        bo = frame[frame["phase"] == "bo"]
        share = bo["size"].value_counts(normalize=True).reindex(sizes, fill_value=0.0)
        a2.bar([j + 0.4 * i for j in range(len(sizes))], share.to_numpy(), width=0.4, label=label)
    a2.set_xticks([j + 0.2 for j in range(len(sizes))], [f"1/{full_size / v:.3g}" for v in sizes])
    a2.set(xlabel="size fraction of a BO test", ylabel="share of BO tests")
    # titles lifted past the left panel's axis multiplier (dH is ~1e-15)
    a1.set_title("authors' code: dH is one number per step", pad=14)
    a2.set_title("sizes tested", pad=14)
    legend_under(a2, ncol=2)
    return fig
