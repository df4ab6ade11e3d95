"""Plotting: one style, one log-axis helper, the figures of the notebooks."""

from tt_core.plotting.figures import *  # noqa: F401,F403
