"""Optimisers: one ask/tell contract (:mod:`.base`), the model-based (:mod:`.model_based`) and budgeted
(:mod:`.budgeted`) families, and one registry (:mod:`.registry`)."""

from tt_core.optimizers.base import Exhausted, Optimizer, Problem, Recommendation, constraints_for
from tt_core.optimizers.registry import REGISTRY, available, make_optimizer, make_problem

__all__ = ["Exhausted", "Optimizer", "Problem", "Recommendation", "REGISTRY", "available", "constraints_for",
           "make_optimizer", "make_problem"]
