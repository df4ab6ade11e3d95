"""Plotting shared by the studies: one style module (:mod:`.style`, with the one log-axis helper), the shared
figures (:mod:`.figures`), the headline seed bands (:mod:`.seed_bands`) and the authors' code beside the
workbook (:mod:`.authors_code`). A study's own figures are in its folder (:mod:`tt_workbook.studies`)."""

from tt_workbook.plotting.figures import *  # noqa: F401,F403
from tt_workbook.plotting.style import *  # noqa: F401,F403
