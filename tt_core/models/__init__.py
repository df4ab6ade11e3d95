"""Surrogate models: the shared contract (:mod:`.base`) and the FABOLAS GP (:mod:`.fabolas_gp`)."""

from tt_core.models.base import JointPosterior, Surrogate, check_X, check_y
from tt_core.models.fabolas_gp import FabolasGP

__all__ = ["JointPosterior", "Surrogate", "check_X", "check_y", "FabolasGP"]
