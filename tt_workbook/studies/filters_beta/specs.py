"""Run specifications of TrimTuner's filter and beta studies (paper Sec. IV-B: Fig. 3 and Fig. 4)."""

from __future__ import annotations

from typing import Sequence

from tt_core.data.paper_defaults import CEA_BETA, FIG3_FILTERS, FIG4_BETAS, TESTS_PER_RUN
from tt_workbook.bench import Setting
from tt_workbook.runs.store import RunSpec

__all__ = ["FIG3_FILTERS", "FIG3_RAW_FILTERS", "FIG4_BETAS", "filter_study_specs", "beta_study_specs"]

#: DIRECT and CMA-ES as in the authors' code: over the raw parameter box, one rounded point
#: (:mod:`tt_core.bo.filters`, ``"direct-raw"``).
FIG3_RAW_FILTERS = ("direct-raw", "cmaes-raw")
def filter_study_specs(optimizer: str, seeds: Sequence[int], benchmark: str = "rnn", iterations: int = TESTS_PER_RUN,
                       filters: Sequence[str] = FIG3_FILTERS, beta: float = CEA_BETA) -> list:
    """Runs of Fig. 3: one optimiser with each filter at the same beta. CEA at beta 10% is the
    optimiser's default, so it reuses the default runs (same stored file as Fig. 1's)."""
    for f in filters:
        Setting(optimizer, f, beta)  # validates names
    return [RunSpec(benchmark, optimizer, int(s), iterations=iterations, beta=beta,
                    filter=None if (f == "cea" and optimizer.startswith("trimtuner")) else f)
            for f in filters for s in seeds]


def beta_study_specs(optimizer: str, seeds: Sequence[int], benchmarks: Sequence[str] = ("rnn",),
                     iterations: int = TESTS_PER_RUN, betas: Sequence[float] = FIG4_BETAS) -> list:
    """Runs of Fig. 4: CEA at each beta (1.0 = no filter)."""
    specs = []
    for b in benchmarks:
        for beta in betas:
            Setting(optimizer, "cea" if beta < 1 else "none", beta)
            for s in seeds:
                if beta >= 1.0:
                    specs.append(RunSpec(b, optimizer, int(s), iterations=iterations, beta=CEA_BETA, filter="none"))
                else:
                    specs.append(RunSpec(b, optimizer, int(s), iterations=iterations, beta=float(beta)))
    return specs


