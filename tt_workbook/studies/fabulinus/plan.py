"""The optimiser runs notebook 16 (thesis ch. 7) reads, at a profile (:mod:`tt_workbook.runs.profiles`)."""

from __future__ import annotations

from tt_workbook.runs.store import fabulinus_specs

__all__ = ["notebook_16_runs"]


def notebook_16_runs(profile: str, smoke: bool = False) -> list:
    """Fabulinus, FABOLAS, EIc and EI on the study ``fabulinus``' networks and seeds
    (:func:`tt_workbook.runs.store.fabulinus_specs`)."""
    return fabulinus_specs(profile, smoke=smoke)
