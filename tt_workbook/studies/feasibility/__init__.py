"""TrimTuner Table II and thesis Table 7.1: the cost-feasible configurations (notebook 02)."""
