"""TrimTuner's claims tested on data nobody here measured: LCDB learning curves (notebook 17)."""
