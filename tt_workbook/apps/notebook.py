"""The setup every workbook notebook starts with, in one call.

Each experiment notebook used to open with the same lines: the figure style, the pandas display options,
the figures folder, the profile's settings of its study and the ``setting | this run | paper`` table.
:func:`notebook_setup` does them and returns what the notebook needs::

    nb = notebook_setup(figures_dir, profile, "fig3", smoke, n_jobs=n_jobs)
    nb.out            # the figures folder (created)
    nb.settings       # tt_workbook.runs.profiles.settings(profile, "fig3", smoke)
    nb.n_jobs         # the study's own n_jobs when the profile sets one, else the notebook's parameter
    nb.settings_table # tt_workbook.runs.settings.settings_table(profile, "fig3", smoke), to display
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd


@dataclass(frozen=True)
class NotebookSetup:
    """What :func:`notebook_setup` prepared: the figures folder, the study's settings, the worker count and
    the settings table (None without a study)."""

    out: Path
    profile: str
    smoke: bool
    settings: dict = field(default_factory=dict)
    n_jobs: int = 1
    settings_table: pd.DataFrame | None = None

    @property
    def label(self) -> str:
        """``"quick profile"`` or ``"quick profile, smoke"``, for printed run counts and titles."""
        return f"{self.profile} profile" + (", smoke" if self.smoke else "")


def notebook_setup(figures_dir: str | Path, profile: str = "quick", study: str | None = None, smoke: bool = False,
                   *, n_jobs: int = 1, precision: int = 3, width: int | None = 160,
                   max_colwidth: int | None = None) -> NotebookSetup:
    """Apply the workbook's figure style and pandas display options, create ``figures_dir`` and read the
    profile's settings of ``study`` (:func:`tt_workbook.runs.profiles.settings`; none when ``study`` is
    None).

    ``n_jobs`` is the notebook's parameter; a study whose profile fixes its own ``n_jobs`` (not None)
    overrides it. ``precision``, ``width`` and ``max_colwidth`` are pandas' display options (None: left
    as they are). An unknown profile or study raises a ``ValueError`` naming the known ones.
    """
    from tt_workbook.runs import profiles
    from tt_workbook.plotting.style import use_style
    from tt_workbook.runs.settings import settings_table

    settings = profiles.settings(profile, study, smoke) if study is not None else {}
    use_style()
    pd.set_option("display.precision", precision)
    for option, value in (("display.width", width), ("display.max_colwidth", max_colwidth)):
        if value is not None:
            pd.set_option(option, value)
    out = Path(figures_dir)
    out.mkdir(parents=True, exist_ok=True)
    table = settings_table(profile, study, smoke) if study is not None and study in _TABLED else None
    return NotebookSetup(out=out, profile=profile, smoke=bool(smoke), settings=settings,
                         n_jobs=int(settings.get("n_jobs") or n_jobs), settings_table=table)


#: Studies :func:`tt_workbook.runs.settings.settings_table` describes.
_TABLED = ("fig1", "fig3", "fig4", "tables3_4", "nephele", "fabulinus")
