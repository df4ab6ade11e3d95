"""Notebook 17's figure: each of TrimTuner's claims tested on outside data sets, one panel per claim, one row per
data set (value and interval, with the line where the claim changes sign or ratio).

:func:`plot_claims` draws :func:`tt_workbook.studies.outside_data.analysis.claims` rows; it computes nothing. The panels share
the data-set axis (one row each, in the table's order), the figure's height grows with the data sets up to a
laptop's screen (:func:`tt_workbook.plotting.style.laptop_size`), and long claim names wrap.
"""

from __future__ import annotations

import textwrap

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from tt_workbook.plotting.style import laptop_size

__all__ = ["plot_claims"]


def plot_claims(table: pd.DataFrame, *, title: str = "", ylabel: str = "OpenML data set"):
    """One panel per claim: each data set's value with its interval (``lo``, ``hi``) and the claim's reference.

    Parameters
    ----------
    table : DataFrame
        Columns ``claim, openml_id, value, lo, hi``; the claims in the order they first appear. A claim starting with
        ``"Fig. 2"`` is a ratio (log axis, reference 1), the others a difference (reference 0).
    title, ylabel : str

    Returns
    -------
    matplotlib.figure.Figure
    """
    claims = list(dict.fromkeys(table["claim"]))
    ids = list(dict.fromkeys(table["openml_id"]))
    row = {oid: i for i, oid in enumerate(ids)}
    fig, axes = plt.subplots(1, len(claims), figsize=laptop_size(max(4.0, 2.0 * len(claims)), 2.8 + 0.14 * len(ids)),
                             squeeze=False, sharey=True, constrained_layout=True)
    for ax, claim in zip(axes[0], claims):
        t = table[table["claim"] == claim].reset_index(drop=True)
        ys = np.array([row[o] for o in t["openml_id"]])
        ax.errorbar(t["value"], ys, xerr=[t["value"] - t["lo"], t["hi"] - t["value"]], fmt="o")
        ax.axvline(1.0 if claim.startswith("Fig. 2") else 0.0, linestyle=":")
        ax.set_title(textwrap.fill(claim, 24, break_on_hyphens=False), fontsize=8)
        if claim.startswith("Fig. 2"):
            ax.set_xscale("log")
    axes[0][0].set_yticks(np.arange(len(ids)), [str(i) for i in ids])
    axes[0][0].set_ylim(-0.5, len(ids) - 0.5)
    axes[0][0].set_ylabel(ylabel)
    if title:
        fig.suptitle(title)
    return fig
