"""Thesis ch. 7 (Fabulinus): Figs 7.1-7.3 (notebook 16)."""
