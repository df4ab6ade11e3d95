"""Thesis ch. 6 (Nephele): sub-sampling (notebook 08) and the cost-minimising optimiser (notebook 09)."""
