"""TrimTuner Figs. 3-4: the filters and the sensitivity to beta (notebooks 05, 07)."""
