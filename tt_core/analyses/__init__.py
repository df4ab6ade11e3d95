"""Deterministic analyses: exact functions of the measurements, compared with the papers' tables.

* :mod:`.feasibility` -- TrimTuner Table II and thesis Table 7.1 (cost-feasible configurations);
* :mod:`.subsampling` -- thesis §6.3: Table 6.2, Eq. 6.2 (Fig. 6.8), Fig. 6.9, Tables 6.3-6.4;
* :mod:`.dataset` -- what is in a benchmark (notebook 01).

The function ``feasibility`` is not re-exported here, so that ``tt_core.analyses.feasibility``
always names the module: use ``from tt_core.analyses.feasibility import feasibility``.
"""

from .dataset import (
    learning_curves,
    qualitative_facts,
    rank_agreement,
    representative_configs,
    search_space,
    summary_by_factor,
    summary_by_size,
    with_cores,
)
from .feasibility import feasibility_table, table2, table7_1
from .subsampling import (
    STATUS_LABELS,
    STATUSES,
    constraint_crosstab,
    cost_reduction_grid,
    crosstab_comparison,
    feasibility_grid,
    feasible_per_size,
    format_crosstab,
    size_facts,
    subsampling_gain,
    subsampling_table,
    table6_2,
)

__all__ = [
    "STATUSES", "STATUS_LABELS", "constraint_crosstab", "cost_reduction_grid", "crosstab_comparison",
    "feasibility_grid", "feasibility_table", "feasible_per_size", "format_crosstab",
    "learning_curves", "qualitative_facts", "rank_agreement", "representative_configs", "search_space",
    "size_facts", "subsampling_gain", "subsampling_table", "summary_by_factor", "summary_by_size", "table2", "table6_2", "table7_1",
    "with_cores",
]
