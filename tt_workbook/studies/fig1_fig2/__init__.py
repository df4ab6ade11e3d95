"""TrimTuner Figs. 1-2: accuracy vs optimisation cost and the savings (notebooks 03, 04)."""
