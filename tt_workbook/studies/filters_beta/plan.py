"""The optimiser runs notebooks 05 (Fig. 3) and 07 (Fig. 4) read, at a profile (:mod:`tt_workbook.runs.profiles`).

Each function returns the exact run list a notebook cell passes to ``ensure_runs``, in its order
(:mod:`tt_workbook.plan` gathers them into one plan).
"""

from __future__ import annotations

from tt_workbook.authors.stored import authors_specs
from tt_workbook.runs.profiles import settings
from tt_workbook.studies.filters_beta import specs as studies
from tt_workbook.studies.unstated import RESIDUES

__all__ = ["fig3_runs", "fig3_raw_runs", "notebook_05_runs", "fig4_runs", "authors_runs_07", "residue_runs_07",
           "notebook_07_runs"]


def fig3_runs(profile: str, smoke: bool = False) -> list:
    """Fig. 3: each optimiser of the study ``fig3``'s plan with each filter on the RNN."""
    plan = settings(profile, "fig3", smoke)["plan"]
    return [s for opt, p in plan.items() for s in studies.filter_study_specs(opt, p["seeds"], "rnn", p["iterations"])]


def fig3_raw_runs(profile: str, smoke: bool = False) -> list:
    """DIRECT and CMA-ES as in the authors' code (over the raw parameter box), same optimisers and seeds."""
    plan = settings(profile, "fig3", smoke)["plan"]
    return [s for opt, p in plan.items()
            for s in studies.filter_study_specs(opt, p["seeds"], "rnn", p["iterations"], filters=studies.FIG3_RAW_FILTERS)]


def notebook_05_runs(profile: str, smoke: bool = False) -> list:
    """Every run notebook 05 reads."""
    return fig3_runs(profile, smoke) + fig3_raw_runs(profile, smoke)


def fig4_runs(profile: str, smoke: bool = False) -> list:
    """Fig. 4: TrimTuner-DT with CEA at each beta of the study ``fig4`` (1.0: no filter)."""
    f4 = settings(profile, "fig4", smoke)
    return studies.beta_study_specs("trimtuner-dt", f4["seeds"], f4["networks"], f4["iterations"], f4["betas"])


def _filters(betas) -> tuple:
    return ("cea", "nofilter") if any(b >= 1 for b in betas) else ("cea",)


def authors_runs_07(profile: str, smoke: bool = False) -> list:
    """The authors' code (empirical residue) at Fig. 4's betas, on its networks the study ``authors`` runs."""
    f4, aus = settings(profile, "fig4", smoke), settings(profile, "authors", smoke)
    return [s for n in f4["networks"] if n in aus["benchmarks"] for s in
            authors_specs([n], aus["seeds"], betas=[b for b in f4["betas"] if b < 1], iterations=f4["iterations"],
                          filters=_filters(f4["betas"]))]


def residue_runs_07(profile: str, smoke: bool = False) -> list:
    """The authors' code under every residue model on the RNN and the range seeds (none without them)."""
    f4, aus = settings(profile, "fig4", smoke), settings(profile, "authors", smoke)
    if not (aus["range_seeds"] and "rnn" in f4["networks"] and "rnn" in aus["benchmarks"]):
        return []
    return authors_specs(["rnn"], aus["range_seeds"], residues=RESIDUES, betas=[b for b in f4["betas"] if b < 1],
                         iterations=f4["iterations"], filters=_filters(f4["betas"]))


def notebook_07_runs(profile: str, smoke: bool = False) -> list:
    """Every run notebook 07 reads."""
    return fig4_runs(profile, smoke) + authors_runs_07(profile, smoke) + residue_runs_07(profile, smoke)
