"""Observation history and the model targets of the observations.

Every optimiser records its tests in one :class:`History` (one row per test: configuration, size,
measured accuracy/cost/time, the phase, what was charged and whether the result is used) and models
``ln(1 - accuracy)`` (TrimTuner paper Sec. III-A, following FABOLAS) and ``ln cost`` / ``ln time``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

#: ``1 - accuracy`` is clipped here before the log (an accuracy of exactly 1).
LOSS_FLOOR = 1e-6
#: Costs and times are clipped here before the log (a free run).
COST_FLOOR = 1e-12

COLUMNS = ["config_id", "size", "accuracy", "cost", "time", "phase", "charged_cost", "charged_time", "used",
           "feasible"]


@dataclass
class History:
    """Observations so far, one row each (columns :data:`COLUMNS`)."""

    rows: list[dict] = field(default_factory=list)

    def add(self, **row) -> None:
        self.rows.append(row)

    def frame(self) -> pd.DataFrame:
        return pd.DataFrame(self.rows, columns=COLUMNS)

    def __len__(self) -> int:
        return len(self.rows)

    def used(self) -> list[dict]:
        """The rows whose result is used (an aborted last run is not, thesis Alg. 2 lines 24-26)."""
        return [r for r in self.rows if r["used"]]


def loss_target(accuracy) -> np.ndarray:
    """Model target of the accuracy: ``ln(1 - accuracy)`` (paper Sec. III-A, FABOLAS), with the same bits on
    any CPU (:func:`tt_core.models.portable.log_array`)."""
    from tt_core.models.portable import log_array

    return log_array(np.clip(1.0 - np.asarray(accuracy, float), LOSS_FLOOR, None))


def accuracy_from_loss(mean_loss) -> np.ndarray:
    """Inverse of :func:`loss_target`: ``1 - exp(loss)``."""
    return 1.0 - np.exp(np.asarray(mean_loss, float))


def log_positive(values) -> np.ndarray:
    """``ln`` of a cost or time, clipped at :data:`COST_FLOOR` (a free run), with the same bits on any CPU."""
    from tt_core.models.portable import log_array

    return log_array(np.clip(np.asarray(values, float), COST_FLOOR, None))
