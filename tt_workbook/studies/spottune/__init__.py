"""SpotTune (ICDCS 2020) Figs 7-12 on the simulator of :mod:`tt_spotsim` (notebooks 12-15)."""
