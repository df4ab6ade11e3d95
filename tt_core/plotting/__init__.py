"""Plotting: one style module (:mod:`.style`, with the one log-axis helper), the notebooks' figures
(:mod:`.figures`), the thesis' CNO curves (:mod:`.nephele`), its Figs 7.1-7.2 (:mod:`.fabulinus`) and the filter/beta studies (:mod:`.studies`)."""

from tt_core.plotting.figures import *  # noqa: F401,F403
from tt_core.plotting.style import *  # noqa: F401,F403
