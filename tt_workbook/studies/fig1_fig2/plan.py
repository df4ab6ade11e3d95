"""The optimiser runs notebooks 03 (Fig. 1) and 04 (Fig. 2) read, at a profile (:mod:`tt_workbook.runs.profiles`).

Each function returns the exact :class:`~tt_workbook.runs.store.RunSpec` list a notebook cell passes to
``ensure_runs``, in its order; the notebooks call them, and :mod:`tt_workbook.plan` gathers them into one
plan that ``tt reproduce`` computes before any notebook runs. Runs of the authors' code (``authors-dt``)
are listed whether or not its environment can be built (the notebooks skip them when it cannot).
"""

from __future__ import annotations

from tt_core.data.paper_defaults import TESTS_PER_RUN
from tt_workbook.authors.stored import authors_specs
from tt_workbook.runs.profiles import settings
from tt_workbook.runs.store import grid, profile_specs
from tt_workbook.studies.fig1_fig2 import variants

__all__ = ["fig1_runs", "variant_runs", "authors_runs_03", "notebook_03_runs", "fig2_runs", "authors_runs_04",
           "readings_runs", "notebook_04_runs"]

#: Fig. 2's optimisers (notebook 04 leaves out FABOLAS, which ignores the cost limit).
FIG2_OPTIMIZERS = ("trimtuner-dt", "trimtuner-gp", "eic", "eic-usd", "random")


def fig1_runs(profile: str, smoke: bool = False) -> list:
    """Fig. 1's grid: the profile's benchmarks x optimisers x seeds (:func:`tt_workbook.runs.store.profile_specs`)."""
    return profile_specs(profile, smoke=smoke)


def variant_runs(profile: str, smoke: bool = False) -> dict:
    """``label -> runs`` of TrimTuner-DT with each "as in the authors' code" setting (study ``variants``)."""
    vs = settings(profile, "variants", smoke)
    labels = [v for v in variants.VARIANTS if vs["combined"] or not v.startswith("all ")]
    return variants.variant_specs(vs["seeds"], iterations=vs["iterations"], labels=labels)


def authors_runs_03(profile: str, smoke: bool = False) -> list:
    """The authors' code on the study ``authors``' benchmarks: empirical residue on its seeds, then pos/zero/neg
    on its range seeds."""
    aus = settings(profile, "authors", smoke)
    return (authors_specs(aus["benchmarks"], aus["seeds"], iterations=aus["iterations"])
            + authors_specs(aus["benchmarks"], aus["range_seeds"], residues=("pos", "zero", "neg"),
                            iterations=aus["iterations"]))


def notebook_03_runs(profile: str, smoke: bool = False) -> list:
    """Every run notebook 03 reads: Fig. 1's grid, the variants, the authors' code."""
    return (fig1_runs(profile, smoke) + [s for sp in variant_runs(profile, smoke).values() for s in sp]
            + authors_runs_03(profile, smoke))


def fig2_runs(profile: str, smoke: bool = False) -> list:
    """Fig. 1's runs of the optimisers Fig. 2 compares (all of them in smoke mode)."""
    specs = fig1_runs(profile, smoke)
    return specs if smoke else [s for s in specs if s.optimizer in FIG2_OPTIMIZERS]


def _fig2_benchmarks(profile: str, smoke: bool) -> list:
    return list(dict.fromkeys(s.benchmark for s in fig2_runs(profile, smoke)))


def authors_runs_04(profile: str, smoke: bool = False) -> list:
    """The authors' code (empirical residue) on the benchmarks Fig. 2 reads."""
    aus = settings(profile, "authors", smoke)
    benches = _fig2_benchmarks(profile, smoke)
    return authors_specs([b for b in aus["benchmarks"] if b in benches], aus["seeds"], iterations=aus["iterations"])


def readings_runs(profile: str, smoke: bool = False) -> list:
    """The extra seeds of the cheap optimisers for Fig. 2's bootstrap readings (study ``fig2``; none in quick)."""
    more = settings(profile, "fig2", smoke)
    specs = fig2_runs(profile, smoke)
    return [s for s in grid(_fig2_benchmarks(profile, smoke), more["readings_optimizers"], more["readings_seeds"],
                            iterations=TESTS_PER_RUN) if s not in specs]


def notebook_04_runs(profile: str, smoke: bool = False) -> list:
    """Every run notebook 04 reads: Fig. 2's share of Fig. 1's runs, the authors' code, the readings' seeds."""
    return fig2_runs(profile, smoke) + authors_runs_04(profile, smoke) + readings_runs(profile, smoke)
