"""The TrimTuner paper's own figure data (Figs. 1-4): reference curves, never results.

``trimtuner_figures.json`` holds the numbers drawn in Figs. 1-4 of the TrimTuner paper, read from the
vector drawing of the authors' PDF (see ``SOURCE.md`` beside it): the mean Accuracy_C curves per method
and network (Fig. 1), the Fig. 2 bar heights, and the mean curves of Figs. 3 and 4. The workbook draws
them beside its own curves, labelled "paper (read from the PDF)", and uses them to check how the paper
computed Fig. 2 (:mod:`tt_workbook.studies.fig1_fig2.savings`).

The file is found like the benchmark CSVs (:mod:`tt_core.data.benchmarks`): an explicit path,
``$TT_DATA_DIR``, the ``data/`` cache of the workbook, then ``../shared/data/paper_figures/`` beside the
workbook (each folder is searched for the file itself and for ``paper_figures/<file>``). A user without
the file gets ``None`` / empty tables: the notebooks then show the workbook's curves alone.

Cost axes of Figs. 3-4
----------------------
The x values of Figs. 3 and 4 are shifted by :data:`FIG34_X_SHIFT` = +$0.00754 relative to Fig. 1:
Fig. 1 charges TrimTuner's sub-sampled initial design as one training run snapshotted at each size
(the 4th initial point of TrimTuner-GP lies at $0.00918, the cost of the 1/2-size test alone), Figs. 3-4
charge each initial test in full (Fig. 3's 4th point lies at $0.01674, the sum of the four tests, as
FABOLAS' initial design in Fig. 1). The difference, the cost of the three smaller tests, is $0.00756.
``paper_curves(..., align_to_fig1=True)`` subtracts the shift, which puts Figs. 3-4 on the cost axis of
Fig. 1 and of this workbook's default runs (``snapshot_init=True``); Fig. 3's first three initial points
(charged in full, so not moved by a constant) are then left out.
"""

from __future__ import annotations

import json
import os
import warnings
from pathlib import Path

import pandas as pd
from tt_core.data.io import shown

#: Name of the data file.
FILE = "trimtuner_figures.json"
#: x shift of Figs. 3-4 relative to Fig. 1 (USD): see the module docstring.
FIG34_X_SHIFT = 0.00754
#: Label of the paper's curves in the workbook's figures.
LABEL = "paper (read from the PDF)"

#: Fig. 1 legend names -> registered optimiser names.
FIG1_METHODS = {"TT-GP": "trimtuner-gp", "TT-DT": "trimtuner-dt", "EIc/USD": "eic-usd", "EIc": "eic",
                "FABOLAS": "fabolas", "Random": "random"}
#: Fig. 3 series -> the filter labels of :func:`tt_workbook.studies.filters_beta.analysis.label_runs`.
FIG3_VARIANTS = {"CEA 10%": "CEA", "DIRECT 10%": "DIRECT", "CMA-ES 10%": "CMA-ES"}
#: Fig. 4 series -> the beta labels of :func:`tt_workbook.studies.filters_beta.analysis.label_runs`.
FIG4_VARIANTS = {"CEA 1%": "beta 1%", "CEA 10%": "beta 10%", "CEA 20%": "beta 20%", "no filter": "no filter"}
_KEYS = {"fig1": "fig1_accuracy_c_vs_cost", "fig3": "fig3_filters_rnn_trimtuner_gp",
         "fig4": "fig4_beta_rnn_trimtuner_dt"}
CURVE_COLUMNS = ["figure", "benchmark", "optimizer", "variant", "x", "y", "initial", "x_paper"]


class PaperFiguresError(ValueError):
    """The figure-data file exists but cannot be read (the message names the file and the problem)."""


def search_paths() -> list[tuple[str, Path]]:
    """Candidate locations of :data:`FILE`, in search order, with a label for each."""
    from tt_core.data.benchmarks import cache_dir, shared_data_dir

    dirs: list[tuple[str, Path]] = []
    if os.environ.get("TT_DATA_DIR"):
        dirs.append(("TT_DATA_DIR", Path(os.environ["TT_DATA_DIR"]).expanduser()))
    dirs.append(("cache", cache_dir()))
    if shared_data_dir() is not None:  # None: $TT_DATA_NO_SHARED hides ../shared (a bare machine)
        dirs.append(("shared", shared_data_dir()))
    return [(label, d / sub / FILE) for label, d in dirs for sub in (".", "paper_figures")]


def locate(path: str | os.PathLike | None = None) -> Path | None:
    """The figure-data file: ``path`` if given (an error if it is not a file), else the first found, else None."""
    if path is not None:
        p = Path(path).expanduser()
        if p.is_dir():
            p = p / FILE
        if not p.is_file():
            raise PaperFiguresError(f"{p}: no such file; pass the path of {FILE} (see ../shared/data/paper_figures/)")
        return p
    for _, candidate in search_paths():
        if candidate.is_file():
            return candidate
    return None


def load(path: str | os.PathLike | None = None) -> dict | None:
    """The raw figure data (a dict), or None when no file is found.

    A file given explicitly that cannot be read raises :class:`PaperFiguresError`; a file found in a
    search folder that cannot be read is skipped with a warning (the notebooks go on without it).
    """
    p = locate(path)
    if p is None:
        return None
    try:
        data = json.loads(p.read_text())
        for key in _KEYS.values():
            if not isinstance(data.get(key, {}).get("series"), dict):
                raise KeyError(f"{key}.series")
    except (OSError, ValueError, KeyError, AttributeError) as exc:
        msg = f"{p}: not a readable TrimTuner figure-data file ({type(exc).__name__}: {exc})"
        if path is not None:
            raise PaperFiguresError(msg) from None
        warnings.warn(msg + "; the paper's curves are not shown", stacklevel=2)
        return None
    return data


def paper_curves(figure: str = "fig1", path: str | os.PathLike | None = None, *, align_to_fig1: bool = True,
                 include_unidentified: bool = False) -> pd.DataFrame:
    """The paper's mean curves of one figure as a long table (empty when the file is absent).

    Parameters
    ----------
    figure : {"fig1", "fig3", "fig4"}
    path : path, optional
        The data file (default: searched, see :func:`locate`).
    align_to_fig1 : bool, default True
        Figs. 3-4 only: subtract :data:`FIG34_X_SHIFT` from x (``x_paper`` keeps the drawn value).
    include_unidentified : bool
        Keep the black series of Figs. 3-4 whose legend entry could not be identified (variant
        ``"unidentified"``; its first points are marker outlines, not a curve).

    Returns
    -------
    DataFrame with :data:`CURVE_COLUMNS`: ``benchmark`` (``rnn``, ``cnn``, ``mlp``), ``optimizer``
    (registered name), ``variant`` (Fig. 1: the optimiser; Figs. 3-4: the labels of
    :func:`tt_workbook.studies.filters_beta.analysis.label_runs`), ``x`` (mean cumulative cost, USD), ``y`` (mean
    Accuracy_C over the paper's 10 runs), ``initial`` (the point belongs to the initial design).
    """
    if figure not in _KEYS:
        raise ValueError(f"unknown figure {shown(figure)}; known: {sorted(_KEYS)}")
    data = load(path)
    if data is None:
        return pd.DataFrame(columns=CURVE_COLUMNS)
    series = data[_KEYS[figure]]["series"]
    rows = []
    if figure == "fig1":
        for net, methods in series.items():
            for name, points in methods.items():
                opt = FIG1_METHODS.get(name, name)
                rows += [(figure, net.lower(), opt, opt, float(x), float(y), bool(init), float(x))
                         for x, y, init in points]
    else:
        names = FIG3_VARIANTS if figure == "fig3" else FIG4_VARIANTS
        opt = "trimtuner-gp" if figure == "fig3" else "trimtuner-dt"
        shift = FIG34_X_SHIFT if align_to_fig1 else 0.0
        for name, points in series.items():
            variant = names.get(name, "unidentified" if name.startswith("black") else name)
            if variant == "unidentified" and not include_unidentified:
                continue
            # Fig. 3's first four points (identical in every series) are the initial design, charged in
            # full; after the shift only the 4th lies where Fig. 1 puts it, so the first three are dropped
            # when aligning. Fig. 4 omits the initial design.
            skip = 3 if (figure == "fig3" and align_to_fig1) else 0
            rows += [(figure, "rnn", opt, variant, float(x) - shift, float(y), figure == "fig3" and i < 4, float(x))
                     for i, (x, y) in enumerate(points) if i >= skip or variant == "unidentified"]
    return pd.DataFrame(rows, columns=CURVE_COLUMNS)


def paper_fig2_bars(path: str | os.PathLike | None = None) -> pd.DataFrame:
    """The Fig. 2 bar heights (baseline / TrimTuner-DT), one row per network and baseline, columns
    ``benchmark, baseline, time, cost`` (empty when the file is absent)."""
    data = load(path)
    cols = ["benchmark", "baseline", "time", "cost"]
    if data is None:
        return pd.DataFrame(columns=cols)
    bars = data["fig2_savings_vs_trimtuner_dt"]
    rows = [(net, base, float(bars["time"][net][base]), float(bars["cost"][net][base]))
            for net in bars["cost"] for base in bars["cost"][net]]
    return pd.DataFrame(rows, columns=cols)
