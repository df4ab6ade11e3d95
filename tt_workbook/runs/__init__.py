"""Experiments: the replay driver, the run store, profiles, metrics, timing harnesses."""

from tt_workbook.runs.store import *  # noqa: F401,F403
