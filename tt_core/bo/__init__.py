"""Bayesian-optimisation parts shared by every optimiser: constraints (probability of feasibility, CEA,
predicted-feasible set), incumbent rules, observation history and loss targets, initial designs, filters."""
