"""Replaying an optimiser on measured data: the driver (:mod:`.driver`) and the papers' metrics (:mod:`.metrics`)."""
