"""Acquisition functions: one per module; each maps candidates ``X`` of shape (C, d+1) to values (C,)."""

from tt_core.acquisitions.entropy_search import EntropySearch, InformationGainPerCost, sample_representers
from tt_core.acquisitions.epmgp import log_pmin

__all__ = ["EntropySearch", "InformationGainPerCost", "sample_representers", "log_pmin"]
