"""The optimiser runs notebook 09 (thesis Figs 6.10-6.13) reads, at a profile (:mod:`tt_workbook.runs.profiles`).

The defaults are the notebook's parameters; it passes its own, so a notebook run with other ones plans
those (:mod:`tt_workbook.plan` uses the defaults).
"""

from __future__ import annotations

from tt_workbook.runs.profiles import settings
from tt_workbook.runs.store import cost_grid

__all__ = ["BENCHMARKS", "OPTIMIZERS", "HORIZONS", "nephele_runs", "lookahead_runs", "notebook_09_runs"]

BENCHMARKS = ("cnn", "rnn")
OPTIMIZERS = ("nephele", "lynceus", "cherrypick", "random")
HORIZONS = (0, 1, 2)


def nephele_runs(profile: str, smoke: bool = False, benchmarks=BENCHMARKS, optimizers=OPTIMIZERS,
                 seeds=None) -> list:
    """Every optimiser until its budget is spent (smoke: the study's small budgets), per benchmark."""
    ne = settings(profile, "nephele", smoke)
    return [s for b in benchmarks
            for s in cost_grid([b], list(optimizers), seeds or ne["seeds"], budget=ne["budgets"][b] if smoke else None)]


def lookahead_runs(profile: str, smoke: bool = False, benchmarks=BENCHMARKS, lookahead_seeds=None,
                   horizons=HORIZONS) -> list:
    """Nephele at each lookahead horizon, with the study's lookahead budgets and ``max_paths``."""
    ne = settings(profile, "nephele", smoke)
    specs = []
    for b in benchmarks:
        specs += cost_grid([b], ["nephele"], lookahead_seeds or ne["lookahead_seeds"], horizons=list(horizons),
                           budget=ne["lookahead_budgets"][b], options={"max_paths": ne["lookahead_max_paths"]})
    return specs


def notebook_09_runs(profile: str, smoke: bool = False, **parameters) -> list:
    """Every run notebook 09 reads (``parameters``: its ``benchmarks``, ``optimizers``, ``seeds``,
    ``lookahead_seeds``, ``horizons``)."""
    main = {k: parameters[k] for k in ("benchmarks", "optimizers", "seeds") if k in parameters}
    look = {k: parameters[k] for k in ("benchmarks", "lookahead_seeds", "horizons") if k in parameters}
    return nephele_runs(profile, smoke, **main) + lookahead_runs(profile, smoke, **look)
