"""Interactive explorer of one optimisation run, step by step (notebook ``10_explorer``).

* :mod:`.controller`: :class:`ExplorerController`, the state and actions (no widgets): one test per
  :meth:`~ExplorerController.step` through the replay driver
  (:class:`tt_core.replay.driver.Replay`), for every registered optimiser;
* :mod:`.panels`: the four matplotlib panels drawn from a controller;
* :mod:`.widget`: the ipywidgets UI (:func:`build_widget`, :class:`ExplorerUI`, :func:`has_frontend`).
"""

from tt_workbook.apps.explorer.controller import (
    COST_TRAJECTORY_COLUMNS,
    SETTINGS,
    TRAJECTORY_COLUMNS,
    ExplorerController,
    size_label,
    stored_curves,
)
from tt_workbook.apps.explorer.widget import ExplorerUI, build_widget, has_frontend

__all__ = ["COST_TRAJECTORY_COLUMNS", "ExplorerController", "ExplorerUI", "SETTINGS", "TRAJECTORY_COLUMNS",
           "build_widget", "has_frontend", "size_label", "stored_curves"]
