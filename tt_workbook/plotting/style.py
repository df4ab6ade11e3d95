"""The workbook's one figure style: colours, labels, the seaborn theme and the log-axis helper.

* :data:`METHOD_STYLES` -- colour, line style, marker and label of every optimiser, so that a method
  looks the same in every figure; :func:`variant_style` for run variants;
* :data:`NETWORK_LABELS`, :data:`METRIC_LABELS` -- display names with units;
* :func:`use_style` -- the seaborn theme used by all notebooks;
* :func:`log_axis` -- readable plain-number (or dollar) labels on a log axis;
* :data:`LAPTOP_INCHES`, :func:`laptop_size`, :func:`legend_below`, :func:`legend_under`, :func:`legend_right` --
  figures that fit a laptop's screen with their legends outside the plotting areas.
"""

from __future__ import annotations

import matplotlib as mpl
import numpy as np
import seaborn as sns
from tt_core.data.io import shown

#: Style of each optimiser: matplotlib keyword arguments plus a display ``label``.
METHOD_STYLES: dict[str, dict] = {
    "trimtuner-dt": {"color": "#d62728", "linestyle": "-", "marker": "o", "label": "TrimTuner (DT)"},
    "trimtuner-gp": {"color": "#ff7f0e", "linestyle": "-", "marker": "s", "label": "TrimTuner (GP)"},
    "fabolas": {"color": "#1f77b4", "linestyle": "--", "marker": "^", "label": "FABOLAS"},
    "eic": {"color": "#2ca02c", "linestyle": "-.", "marker": "v", "label": "EIc"},
    "eic-usd": {"color": "#9467bd", "linestyle": "-.", "marker": "D", "label": "EIc/USD"},
    "random": {"color": "#7f7f7f", "linestyle": ":", "marker": "x", "label": "Random"},
    "fabulinus": {"color": "#bcbd22", "linestyle": "-", "marker": "o", "label": "Fabulinus"},
    "ei": {"color": "#000000", "linestyle": ":", "marker": "<", "label": "BO with EI"},
    "nephele": {"color": "#e377c2", "linestyle": "-", "marker": "P", "label": "Nephele"},
    "lynceus": {"color": "#8c564b", "linestyle": "--", "marker": "*", "label": "Lynceus"},
    "cherrypick": {"color": "#17becf", "linestyle": ":", "marker": "h", "label": "CherryPick"},
}

#: Display names of the benchmarks.
NETWORK_LABELS: dict[str, str] = {"cnn": "CNN", "rnn": "RNN (LSTM)", "mlp": "Multilayer perceptron"}
#: Axis labels (with units) of the measured quantities and factors.
METRIC_LABELS: dict[str, str] = {
    "accuracy": "Accuracy",
    "training_time": "Training time [s]",
    "cost": "Cost per training run [USD]",
    "size": "Training-set size [images]",
    "vm_flavor": "VM flavour",
    "n_workers": "Number of VMs",
    "n_cores": "Cluster size [vCPUs]",
    "learning_rate": "Learning rate",
    "batch_size": "Batch size",
    "sync": "Training mode",
}
#: Colours of the constraint statuses and of infeasible cells.
FEASIBLE_COLORS = {"feasible": "#2a9d8f", "time_ok": "#e9c46a", "accuracy_ok": "#457b9d"}
INFEASIBLE_GREY = "#d0d0d0"
FULL_INFEASIBLE_GREY = "#8d8d8d"
VM_ORDER = ("t2.small", "t2.medium", "t2.xlarge", "t2.2xlarge")


def number_format(x: float) -> str:
    """How a notebook's tables print a float: four significant digits, small numbers in scientific
    notation without padding (a learning rate of 0.00001 reads 1e-05, not 0.0000 or 1.0000e-05),
    large ones with thousands separators.

    Examples
    --------
    >>> [number_format(x) for x in (1e-05, 0.001, 0.75536, 12.5, 1234.5, 123456.7, 0.0, float("nan"))]
    ['1e-05', '0.001', '0.7554', '12.5', '1,234', '123,457', '0', 'nan']
    """
    if x != x or x in (float("inf"), float("-inf")):
        return str(x)
    if x == 0:
        return "0"
    if abs(x) >= 1000:
        return f"{x:,.0f}"
    if abs(x) < 1e-3:
        return f"{x:.3g}"
    return f"{x:.4g}"


def use_style(context: str = "notebook") -> None:
    """Apply the workbook's seaborn theme (white grid, readable fonts, tight saved figures) and its way
    of printing floats in tables (:func:`number_format`)."""
    import pandas as pd

    pd.set_option("display.float_format", number_format)
    sns.set_theme(context=context, style="whitegrid", palette="colorblind", font_scale=1.0)
    mpl.rcParams.update({
        "figure.dpi": 100, "savefig.dpi": 150, "savefig.bbox": "tight",
        "axes.titlesize": 12, "axes.titleweight": "bold", "axes.labelsize": 11,
        "xtick.labelsize": 9.5, "ytick.labelsize": 9.5, "legend.fontsize": 9.5, "legend.frameon": True,
        "figure.titlesize": 13, "figure.titleweight": "bold",
    })


#: The largest image a notebook shows on a laptop, in inches at ``figure.dpi`` = 100 (inline figures are shown
#: at that dpi, cropped to their content): a 1280 x 720 screen less JupyterLab's bars, padding excluded
#: (tests/test_figure_sizes.py holds every notebook figure, legends included, to 1280 x 650 px).
LAPTOP_INCHES = (12.0, 6.2)


def laptop_size(width: float, height: float, below: float = 0.0) -> tuple[float, float]:
    """``(width, height)`` of a figure in inches, capped at :data:`LAPTOP_INCHES`; ``below`` inches are kept
    free under the figure for a legend placed there (:func:`legend_below`).

    Examples
    --------
    >>> laptop_size(15, 4.2), laptop_size(10, 10.2), laptop_size(11.5, 8.2, below=0.5)
    ((12.0, 4.2), (10, 6.2), (11.5, 5.7))
    """
    w, h = LAPTOP_INCHES
    return min(width, w), min(height, round(h - below, 6))


def _handles(fig) -> dict:
    """``{label: handle}`` of every labelled artist of the figure's axes and legends, first one of each label."""
    out = {}
    for ax in fig.axes:
        for h, lab in zip(*ax.get_legend_handles_labels()):
            out.setdefault(lab, h)
    for leg in fig.legends:
        for h, t in zip(leg.legend_handles, leg.get_texts()):
            out.setdefault(t.get_text(), h)
    return out


def legend_below(fig, *, ncol: int = 4, fontsize: float = 8, extra: dict | None = None):
    """One legend for all the panels of ``fig``, under the figure (outside every plotting area, so it never
    hides a curve): each label once, in the order the panels draw them, then ``extra`` (``{label: handle}``);
    the panels' and the figure's earlier legends are removed. Call it after the layout (``tight_layout``);
    the notebook's inline image and :func:`tt_core.data.io.save_figure` include it. Returns the legend (None
    without a labelled artist)."""
    handles = _handles(fig)
    handles.update(extra or {})
    if not handles:
        return None
    for ax in fig.axes:
        if ax.get_legend() is not None:
            ax.get_legend().remove()
    for leg in list(fig.legends):
        leg.remove()
    return fig.legend(list(handles.values()), list(handles), loc="upper center", bbox_to_anchor=(0.5, 0.0),
                      ncol=max(1, min(ncol, len(handles))), fontsize=fontsize, frameon=False)


def legend_under(ax, *, offset: float = 0.6, ncol: int = 1, fontsize: float = 8, **kwargs):
    """The legend of one panel under it, ``offset`` inches below the plotting area (past its tick labels and
    axis label), so it stays off the data whatever the panel's height; a layout engine
    (``constrained_layout``, ``tight_layout``) makes room for it. Returns the legend."""
    from matplotlib.transforms import ScaledTranslation

    where = ax.transAxes + ScaledTranslation(0, -offset, ax.figure.dpi_scale_trans)
    return ax.legend(loc="upper center", bbox_to_anchor=(0.5, 0.0), bbox_transform=where, ncol=ncol,
                     fontsize=fontsize, **kwargs)


def legend_right(ax, *, fontsize: float = 8, **kwargs):
    """The legend of a panel beside it on the right, outside the plotting area. Returns the legend."""
    return ax.legend(loc="upper left", bbox_to_anchor=(1.02, 1.0), borderaxespad=0.0, fontsize=fontsize, **kwargs)


def method_style(method: str) -> dict:
    """The matplotlib style of an optimiser (see :data:`METHOD_STYLES`)."""
    try:
        return dict(METHOD_STYLES[method])
    except KeyError:
        raise ValueError(f"unknown method {shown(method)}; styled methods: {sorted(METHOD_STYLES)}") from None


def network_label(name: str) -> str:
    return NETWORK_LABELS.get(str(name).lower(), str(name))


def size_label(size: int, max_size: int) -> str:
    """``6000`` -> ``"6K (10%)"``."""
    pct = 100.0 * size / max_size
    txt = f"{size / 1000:g}K" if size >= 1000 else str(size)
    return f"{txt} ({pct:.3g}%)"


def size_fraction(size: int, max_size: int) -> str:
    """A training-set size as a fraction of the full size: ``"1/10"``, ``"1"`` at the full size."""
    from fractions import Fraction

    f = Fraction(int(size), int(max_size)).limit_denominator(100)
    return "1" if f == 1 else str(f)


def share_label(size: int, max_size: int) -> str:
    """``"s = 1/10"`` (share of the training set), ``"s = 1 (full)"`` at the full size."""
    frac = size_fraction(size, max_size)
    return f"s = {frac}" if frac != "1" else "s = 1 (full)"


def log_axis(ax, which: str = "x", money: bool = False, scale: bool = False) -> None:
    """Readable labels on a log axis: majors only, as plain numbers (``0.01``, ``$0.01``, ``100``).

    Call after plotting: an axis spanning more than three decades is labelled once per decade
    (1-2-5 labels would overlap there), a narrower one at 1, 2 and 5. ``money`` labels in dollars;
    ``scale`` also switches the axis to a log scale. The one log-axis helper of the workbook.
    """
    if scale:
        (ax.set_xscale if which == "x" else ax.set_yscale)("log")
    axis = ax.xaxis if which == "x" else ax.yaxis
    lo, hi = sorted(ax.get_xlim() if which == "x" else ax.get_ylim())
    decades = np.log10(hi / lo) if lo > 0 else np.inf
    fmt = (lambda v, _: f"${v:g}") if money else (lambda v, _: f"{v:g}")
    axis.set_major_locator(mpl.ticker.LogLocator(base=10, subs=(1.0,) if decades > 3 else (1.0, 2.0, 5.0)))
    axis.set_major_formatter(mpl.ticker.FuncFormatter(fmt))
    axis.set_minor_formatter(mpl.ticker.NullFormatter())


def variant_style(variant: str) -> dict:
    """Style of a run variant such as ``trimtuner-dt-direct-b0.2``: the longest optimiser name it starts
    with gives colour and line style; the label keeps the variant's extra parts."""
    names = sorted((m for m in METHOD_STYLES if variant == m or variant.startswith(m + "-")), key=len, reverse=True)
    if not names:
        return {"color": "0.4", "ls": "-", "label": variant}
    st = dict(METHOD_STYLES[names[0]])
    extra = variant[len(names[0]):].lstrip("-")
    st["label"] = f"{st.get('label', names[0])} ({extra})" if extra else st.get("label", names[0])
    return st
