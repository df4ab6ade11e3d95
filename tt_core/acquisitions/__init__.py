"""Acquisition functions: one per module; each maps candidates ``X`` of shape (C, d+1) to values (C,)."""

from tt_core.acquisitions.entropy_search import EntropySearch, sample_representers
from tt_core.acquisitions.epmgp import log_pmin
from tt_core.acquisitions.per_cost import LogNormalMeanCost, MedianCost, PerUnitCost

__all__ = ["EntropySearch", "sample_representers", "log_pmin", "PerUnitCost", "MedianCost", "LogNormalMeanCost"]
