"""Deterministic analyses: exact functions of the measurements.

* :mod:`.feasibility` -- TrimTuner Table II and thesis Table 7.1 (cost-feasible configurations);
* :mod:`.subsampling` -- thesis §6.3: Table 6.2, Eq. 6.2 (Fig. 6.8), Fig. 6.9, Tables 6.3-6.4;
* :mod:`.dataset` -- what is in a benchmark (notebook 01);
* :mod:`.trajectories`, :mod:`.nephele` -- aggregating optimiser runs.

Nothing here knows the papers' numbers: the paper-vs-workbook tables and comparison rows
(``table2``, ``table7_1``, ``table6_2``, ``crosstab_comparison``, ``*_comparison_rows``) live in
:mod:`tt_core.reporting` (:mod:`tt_core.reporting.feasibility`, :mod:`tt_core.reporting.subsampling`,
:mod:`tt_core.reporting.dataset`), one layer up.

The function ``feasibility`` is not re-exported here, so that ``tt_core.analysis.feasibility``
always names the module: use ``from tt_core.analysis.feasibility import feasibility``.
"""

from tt_core.analysis.dataset import (
    T2_VCPUS,
    learning_curves,
    qualitative_facts,
    rank_agreement,
    representative_configs,
    search_space,
    summary_by_factor,
    summary_by_size,
    with_cores,
)
from tt_core.analysis.feasibility import THESIS_HIGH_ACCURACY, feasibility_table
from tt_core.analysis.subsampling import (
    STATUS_LABELS,
    STATUSES,
    THESIS_MAX_TIME,
    THESIS_MIN_ACCURACY,
    constraint_crosstab,
    cost_reduction_grid,
    feasibility_grid,
    feasible_per_size,
    format_crosstab,
    size_facts,
    subsampling_gain,
    subsampling_table,
)

__all__ = [
    "STATUSES", "STATUS_LABELS", "T2_VCPUS", "THESIS_HIGH_ACCURACY", "THESIS_MAX_TIME", "THESIS_MIN_ACCURACY",
    "constraint_crosstab", "cost_reduction_grid", "feasibility_grid", "feasibility_table", "feasible_per_size",
    "format_crosstab", "learning_curves", "qualitative_facts", "rank_agreement", "representative_configs",
    "search_space", "size_facts", "subsampling_gain", "subsampling_table", "summary_by_factor", "summary_by_size",
    "with_cores",
]
