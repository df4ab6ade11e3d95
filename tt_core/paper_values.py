"""Numbers *reported in the papers*, typed from their text: REFERENCE DATA ONLY.

Nothing in the workbook computes a result from these values. They are shown beside the values the
code computes from the measurements (the "paper" column of the comparison tables, see
:mod:`tt_core.summary`) so that a reader can see where the reproduction agrees and where it does not.
Each constant names its source:

* ``TrimTuner``: /work/shared/papers/trimtuner_paper.md (Mendes et al., "TrimTuner: Efficient
  Optimization of Machine Learning Jobs in the Cloud via Sub-Sampling", MASCOTS 2020);
* ``thesis``: /work/shared/papers/thesis_nephele_fabulinus.txt (the Nephele/Fabulinus MSc thesis).

Percentages are kept as printed (so with the paper's own number of decimals, which varies);
:func:`reported_tolerance` turns that into the tolerance "agrees to the printed precision".
Typos of the papers are kept as printed and flagged in a comment.
"""

from __future__ import annotations

from decimal import Decimal

#: The networks of the papers, in the papers' order; the MLP's data are not public.
NETWORKS = ("cnn", "rnn", "mlp")

# ---------------------------------------------------------------------------------------------
# TrimTuner paper
# ---------------------------------------------------------------------------------------------

#: TrimTuner, Table I (and §IV "Data-sets": "a search space of 1440 configurations (288
#: configurations for each data-set size)"). Cluster sizes are numbers of VMs per VM type.
TABLE_I = {
    "learning_rate": (1e-3, 1e-4, 1e-5),
    "batch_size": (16, 256),
    "sync": ("sync", "async"),
    "size_pct": (1.67, 10, 25, 50, 100),
    "vm_counts": {
        "t2.small": (8, 16, 32, 48, 64, 80),
        "t2.medium": (4, 8, 16, 24, 32, 40),
        "t2.xlarge": (2, 4, 8, 12, 16, 20),
        "t2.2xlarge": (1, 2, 4, 6, 8, 10),
    },
    "vcpus": {"t2.small": 1, "t2.medium": 2, "t2.xlarge": 4, "t2.2xlarge": 8},
    "n_configs": 288,       # §IV text
    "n_points": 1440,       # §IV text: 288 x 5 data-set sizes
}

#: TrimTuner, Table II: full data-set (s = 1) configurations that satisfy the cost constraint, and
#: those whose accuracy is within 5% of the best feasible one. Percent of the 288 configurations.
#: Note: 161/288 = 55.90%, printed 55.8% (MLP row; the thesis' Table 7.1 repeats 55.8%).
TABLE_II = {
    "rnn": {"max_cost": 0.02, "feasible": 178, "feasible_pct": 61.8, "high_accuracy": 28, "high_accuracy_pct": 9.72},
    "mlp": {"max_cost": 0.06, "feasible": 161, "feasible_pct": 55.8, "high_accuracy": 29, "high_accuracy_pct": 10.07},
    "cnn": {"max_cost": 0.10, "feasible": 111, "feasible_pct": 38.5, "high_accuracy": 39, "high_accuracy_pct": 13.54},
}

# ---------------------------------------------------------------------------------------------
# Thesis (Nephele / Fabulinus)
# ---------------------------------------------------------------------------------------------

#: Thesis §6.2 / §6.3: the QoS constraints of the Nephele evaluation.
NEPHELE_CONSTRAINTS = {"min_accuracy": 0.85, "max_time": 300.0}

#: Thesis, Table 6.2 "Feasible Configurations" (A_min = 85%, T_max = 300 s). ``all_sizes`` counts
#: feasible (configuration, size) points among all 1440; ``full_size`` among the 288 at s = 1.
TABLE_6_2 = {
    "cnn": {"feasible_all_sizes": 208, "feasible_full_size": 61,
            "feasible_all_sizes_pct": 14.44, "feasible_full_size_pct": 21.18},
    "rnn": {"feasible_all_sizes": 264, "feasible_full_size": 104,
            "feasible_all_sizes_pct": 18.33, "feasible_full_size_pct": 36.1},
    "mlp": {"feasible_all_sizes": 110, "feasible_full_size": 58,
            "feasible_all_sizes_pct": 7.64, "feasible_full_size_pct": 20.14},   # printed "7,64%"
}

#: Order of the rows and columns of Tables 6.3-6.5 as printed: (time constraint met?, accuracy
#: constraint met?) = Time/Acc, not-Time/Acc, Time/not-Acc, not-Time/not-Acc.
CROSSTAB_ORDER = ("Time/Acc", "notTime/Acc", "Time/notAcc", "notTime/notAcc")

#: Thesis, Table 6.3 (CNN), sub-tables (a)-(d): counts of configurations; key = the sub-sampled
#: size; rows = status at the full size (60K), columns = status at the sub-sampled size, both in
#: :data:`CROSSTAB_ORDER`. (The printed cells also give the percentage of the 288 configurations.)
TABLE_6_3 = {
    1000: ((0, 0, 61, 0),
           (12, 0, 105, 0),
           (0, 0, 50, 0),
           (0, 0, 60, 0)),
    6000: ((5, 0, 56, 0),
           (43, 28, 40, 6),
           (0, 0, 50, 0),
           (0, 3, 27, 30)),
    15000: ((20, 0, 41, 0),
            (25, 73, 13, 6),
            (0, 0, 50, 0),
            (0, 6, 16, 38)),
    30000: ((35, 0, 26, 0),
            (7, 97, 9, 4),
            (0, 0, 50, 0),
            (0, 6, 16, 38)),
}

#: Thesis, Table 6.4 (RNN), sub-tables (a)-(d); same layout as :data:`TABLE_6_3`.
TABLE_6_4 = {
    1000: ((0, 0, 104, 0),
           (0, 0, 6, 0),
           (0, 0, 175, 0),
           (0, 0, 3, 0)),
    6000: ((10, 0, 94, 0),
           (3, 0, 3, 0),
           (0, 0, 175, 0),
           (0, 0, 3, 0)),
    15000: ((55, 0, 49, 0),
            (5, 0, 1, 0),
            (0, 0, 175, 0),
            (0, 0, 3, 0)),
    30000: ((83, 0, 21, 0),
            (4, 2, 0, 0),
            (0, 0, 175, 0),
            (0, 0, 2, 1)),
}

#: Thesis, Table 6.5 (Multilayer NN; data not public), same layout. In sub-table (c) the second
#: row is printed with the label Time/not-Acc (a typo: it is the not-Time/Acc row).
TABLE_6_5 = {
    1000: ((0, 0, 58, 0),
           (0, 0, 22, 0),
           (0, 0, 178, 0),
           (0, 0, 30, 0)),
    6000: ((0, 0, 58, 0),
           (1, 0, 21, 0),
           (0, 0, 178, 0),
           (0, 0, 30, 0)),
    15000: ((11, 0, 47, 0),
            (7, 0, 15, 0),
            (0, 0, 178, 0),
            (0, 0, 30, 0)),
    30000: ((26, 0, 32, 0),
            (6, 3, 12, 1),
            (0, 0, 178, 0),
            (1, 0, 25, 4)),
}

#: The crosstab tables by network.
CROSSTABS = {"cnn": TABLE_6_3, "rnn": TABLE_6_4, "mlp": TABLE_6_5}
CROSSTAB_TABLE_NAMES = {"cnn": "Table 6.3", "rnn": "Table 6.4", "mlp": "Table 6.5"}

#: Thesis §6.3.1-6.3.3 text: where the cost-optimal feasible configuration lies with sub-sampling
#: and the production-cost reduction of Eq. 6.2 (A_min = 85%, T_max = 300 s).
#: ``cost_ratio`` = C(x*, s=1) / C(x*, all s) ("the additional cost to pay is 4.1 times higher").
SECTION_6_3 = {
    "cnn": {"optimum_size": 6000, "cost_ratio": 4.1, "cost_reduction_pct": 75.5,
            # "reductions of 98.33% in the dataset size, while still allowing both constraints"
            "dataset_size_reduction_pct": 98.33,
            # "95.83% of the configurations also do not comply with the accuracy constraint" at 1000
            "accuracy_violated_at_1000_pct": 95.83},
    "rnn": {"optimum_size": 15000, "cost_ratio": 2.1, "cost_reduction_pct": 52.3},
    # §6.3.3: "the optimal configuration ... is in the full dataset (s = 1)": no reduction
    "mlp": {"optimum_size": 60000, "cost_reduction_pct": 0.0},
}

#: Thesis, Table 7.1 "Feasible configurations given a cost constraint" (full data set; "high
#: accuracy" = accuracy above 85%). Percent of the 288 configurations at s = 1.
#: Text of §7.2 adds: CNN "37.85% of the configurations have high accuracy but do not meet the
#: constraint"; for the MLP the text says 27.28% where the table prints 27.78% (80/288 = 27.78%).
TABLE_7_1 = {
    "cnn": {"max_cost": 0.10, "feasible": 111, "feasible_pct": 38.54,
            "high_accuracy_unconstrained": 178, "high_accuracy_unconstrained_pct": 61.8,
            "high_accuracy": 69, "high_accuracy_pct": 23.96},
    "rnn": {"max_cost": 0.02, "feasible": 178, "feasible_pct": 61.8,
            "high_accuracy_unconstrained": 110, "high_accuracy_unconstrained_pct": 38.19,
            "high_accuracy": 42, "high_accuracy_pct": 14.58},
    "mlp": {"max_cost": 0.06, "feasible": 161, "feasible_pct": 55.8,
            "high_accuracy_unconstrained": 80, "high_accuracy_unconstrained_pct": 27.78,
            "high_accuracy": 25, "high_accuracy_pct": 8.68},
}
#: Thesis §7.2 text, CNN: share of configurations with high accuracy that violate the cost limit.
SECTION_7_2_CNN_HIGH_ACCURACY_INFEASIBLE_PCT = 37.85

#: Thesis §7.2: the accuracy threshold of "high accuracy" in Table 7.1.
THESIS_HIGH_ACCURACY = 0.85


def reported_tolerance(value: float) -> float:
    """Half a unit of the last printed digit of a paper's value (``38.5`` -> 0.05, ``9.72`` -> 0.005).

    A computed value "agrees to the printed precision" when it lies within this distance, i.e. when
    rounding it as the paper did gives the paper's number.
    """
    exponent = Decimal(repr(float(value))).normalize().as_tuple().exponent
    decimals = max(0, -int(exponent))
    return 0.5 * 10.0 ** (-decimals)
