"""Numbers *reported in the papers*, typed from their text: REFERENCE DATA ONLY.

Nothing in the workbook computes a result from these values. They are shown beside the values the
code computes from the measurements (the "paper" column of the comparison tables, see
:mod:`tt_workbook.report.summary`) so that a reader can see where the reproduction agrees and where it does not.
Each constant names its source:

* ``TrimTuner``: P. Mendes, M. Casimiro, P. Romano and D. Garlan, "TrimTuner: Efficient Optimization
  of Machine Learning Jobs in the Cloud via Sub-Sampling", MASCOTS 2020;
* ``thesis``: P. Mendes, "Leveraging Subsampling Techniques to Optimize Machine Learning Jobs in the
  Cloud", MSc thesis, Instituto Superior Técnico, Universidade de Lisboa, 2019 (Nephele and Fabulinus).

Percentages are kept as printed (so with the paper's own number of decimals, which varies);
:func:`reported_tolerance` turns that into the tolerance "agrees to the printed precision".
Typos of the papers are kept as printed and flagged in a comment.
"""

from __future__ import annotations

from decimal import Decimal

from tt_core.data.paper_defaults import FIG4_BETAS

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


#: Thesis §7.2, settings of the Fabulinus evaluation: "a number of configurations that corresponds to
#: 3% of the search space size, randomly selected"; "the maximum number of iterations ... set to 100";
#: "each optimizer was run ten times"; cost limits CNN $0.1, RNN $0.02, MLP $0.06.
SECTION_7_2 = {"initial_share": 0.03, "iterations": 100, "runs": 10, "max_cost": {"cnn": 0.1, "rnn": 0.02, "mlp": 0.06}}

#: Thesis §7.3 (Figs 7.1-7.3) and the chapter summary, per network. ``cost_reduction_pct``: "Fabulinus
#: reduces the cost of the optimization process in X%, Y% and Z% comparing with Fabolas, BO using EIc and
#: EI"; ``initial_cost_reduction_pct``: "reduces the cost of the initial sampling phase by approximately
#: 3%" (CNN), "almost 9%" (RNN), "22.2% when compared with standard BO without subsampling" (MLP);
#: ``total_time_ratio``: total time (exploration + overhead) of Fabulinus / the baseline's ("Fabulinus
#: consumes 1.06 more time than BO using the EIc"; RNN "4.71, 6.46, and 12.4 times higher than ... Fabolas,
#: BO with EIc and EI"; MLP "2.52 more time than Fabolas, 1.69 more time than BO with EIc and 2.79% more
#: time than BO with EI", the last printed as a percentage, read here as 2.79x). Statements: CNN "unlike
#: Fabolas that always outputs configurations that do not respect the constraint"; RNN "Fabulinus and BO
#: with EIc always recommend configurations that have high accuracy and ensures the cost constraint ...
#: The incumbent configuration predicted by Fabolas never respects the constraints"; MLP "there is a
#: configuration recommended by Fabulinus that does not meet the constraint".
SECTION_7_3 = {
    "cnn": {"cost_reduction_pct": {"fabolas": 35.52, "eic": 58.34, "ei": 88.24}, "initial_cost_reduction_pct": 3.0,
            "total_time_ratio": {"eic": 1.06}, "fabolas_never_feasible": True},
    "rnn": {"cost_reduction_pct": {"fabolas": 40.0, "eic": 80.0, "ei": 79.7}, "initial_cost_reduction_pct": 9.0,
            "total_time_ratio": {"fabolas": 4.71, "eic": 6.46, "ei": 12.4}, "fabolas_never_feasible": True,
            "fabulinus_eic_always_good": True},
    "mlp": {"cost_reduction_pct": {"fabolas": 32.26, "eic": 83.93, "ei": 86.6}, "initial_cost_reduction_pct": 22.2,
            "total_time_ratio": {"fabolas": 2.52, "eic": 1.69, "ei": 2.79}, "fabulinus_always_feasible": False},
}
#: Thesis §7.3.1 and ch. 7 summary / ch. 8: recommendation overhead of Fabulinus, minutes: "approximately
#: 6 minutes" when the model starts to be used, "more than 12 minutes on average" after 100 tests.
FABULINUS_OVERHEAD_MIN = {"first": 6.0, "last": 12.0}
#: Thesis ch. 8: "Fabulinus can reduce the optimization cost by a factor up to 6.6x when compared to classic
#: BO-techniques that do not use subsampling". (1 / (1 - 0.8393) = 6.22 and 1 / (1 - 0.866) = 7.46 are the
#: nearest factors implied by §7.3's percentages.)
FABULINUS_UP_TO_FACTOR = 6.6


def reported_tolerance(value: float) -> float:
    """Half a unit of the last printed digit of a paper's value (``38.5`` -> 0.05, ``9.72`` -> 0.005).

    A computed value "agrees to the printed precision" when it lies within this distance, i.e. when
    rounding it as the paper did gives the paper's number.
    """
    exponent = Decimal(repr(float(value))).normalize().as_tuple().exponent
    decimals = max(0, -int(exponent))
    return 0.5 * 10.0 ** (-decimals)

# ---------------------------------------------------------------------------------------------
# Thesis §6.2 (Table 6.1), §6.4 and §6.5: the Nephele optimiser against its baselines
# ---------------------------------------------------------------------------------------------

#: Thesis Table 6.1: initial-sampling budget (USD) and the number of configurations it bought on
#: average, with sub-sampling (``all_sizes``: Nephele) and at the full size (``full_size``: Lynceus,
#: CherryPick), with the percentage of the respective search space (1440 or 288 points).
TABLE_6_1 = {
    "cnn": {"initial_budget": 5.0, "samples_all_sizes": 20, "pct_all_sizes": 1.4,
            "samples_full_size": 8, "pct_full_size": 2.8},
    "rnn": {"initial_budget": 1.0, "samples_all_sizes": 117, "pct_all_sizes": 8.13,
            "samples_full_size": 44, "pct_full_size": 15.3},
    "mlp": {"initial_budget": 2.0, "samples_all_sizes": 100, "pct_all_sizes": 6.9,
            "samples_full_size": 32, "pct_full_size": 11.1},
}

#: Thesis §6.2: settings of the Nephele evaluation. The exploration budget B is not given ("set to a
#: value that could allow the optimizers to find the optimum").
NEPHELE_SETUP = {"n_trees": 5, "discount": 0.9, "gh_cost_points": 3, "gh_accuracy_points": 1,
                 "seeds": 100, "percentile": 90, "horizon": 0}

#: Thesis §6.4 text (Figs. 6.10-6.11) and the chapter summary. ``*_ratio`` = exploration cost an
#: optimiser spends to reach the given CNO, divided by Nephele's.
SECTION_6_4 = {
    "cnn": {
        "target_cno": 10, "lynceus_ratio": 1.75, "cherrypick_ratio": 2.13,
        # "at the end of the initial sampling phase, the CNO of Nephele is approximately half of the
        # value achieved by Lynceus and CherryPick when they end their respective initial sampling"
        "init_end_cno_ratio": 0.5,
        # "Using the random selection ..., the cost of the incumbent is around ten times higher compared
        # with when Nephele finds the optimum"
        "random_cno": 10,
        # summary: "spending $10 to explore, Nephele can find configurations three times cheaper"
        "spend_for_cheaper": 10.0, "cheaper_factor_vs_lynceus": 3.0,
        # summary: "when Nephele finds the optimum, ... a reduction of 75% of the cost in production
        # when compared to Lynceus"
        "production_cost_reduction_pct": 75,
    },
    "rnn": {
        "target_cno": 2, "lynceus_ratio": 1.2, "cherrypick_ratio": 3.67,
        # "Using the same initial budget, Nephele can explore 2.66 more configurations" (117/44)
        "initial_samples_ratio": 2.66,
        # "In the best case, Nephele can recommend configurations that have a deployment cost 3 and 3.5
        # times lower comparing with Lynceus and CherryPick"
        "best_case_cheaper_vs_lynceus": 3.0, "best_case_cheaper_vs_cherrypick": 3.5,
        # summary: "an optimal configuration approximately two times cheaper comparing to the other two"
        "optimum_cheaper_factor": 2.0,
    },
}

#: Thesis §6.5 text (Fig. 6.13): lookahead horizons h = 0, 1, 2 with N = 3, M = 1.
SECTION_6_5 = {
    # CNN: "The total optimization time ... is 2.34 and 3.83 times higher when using a horizon of one and
    # two comparing without lookahead"; "Using a horizon of two is always the worst"; "without using
    # lookahead can reduce the cost in production by approximately 57%" (best case)
    "cnn": {"total_time_ratio_h1": 2.34, "total_time_ratio_h2": 3.83, "h2_worst": True,
            "h0_production_cost_reduction_pct": 57},
    # RNN: "using a horizon of two, the optimizer spends approximately 1.3 times more to find the optimum";
    # "The cost spent to find the optimum using a horizon of zero and one is similar"
    "rnn": {"h2_cost_to_optimum_ratio": 1.3, "h1_similar_to_h0": True},
    # MLP (data not public): "using a horizon of zero, the total time is almost half of the time consumed
    # when it is used a horizon of 1. Using a horizon of 2, the total optimization time is three times higher"
    "mlp": {"total_time_ratio_h1": 2.0, "total_time_ratio_h2": 3.0},
}

# ---------------------------------------------------------------------------------------------
# TrimTuner §IV-B: recommendation time (Tables III-IV) and the filter / beta studies (Figs 3-4)
# ---------------------------------------------------------------------------------------------

#: TrimTuner, Table III "Average time to recommend a configuration (average of the three data-sets)",
#: minutes (mean, standard deviation); both TrimTuner variants with CEA at beta = 10%. EIc and EIc/USD
#: share one row ("EIc (or EIc/USD)"). Measured on a 32-core VM (Intel Xeon Gold 6138, Python 3.6).
TABLE_III_MIN = {
    "trimtuner-gp": (18.65, 2.31),
    "trimtuner-dt": (1.36, 0.28),
    "fabolas": (13.96, 1.88),
    "eic": (1.17, 0.07),
    "eic-usd": (1.17, 0.07),
}
#: §IV-A text after Table III: "the DT-based implementation of TrimTuner achieves a 13x speed up compared
#: to the GP variant"; FABOLAS "takes approximately one order of magnitude longer" than EIc and the GP
#: variant of TrimTuner "approximately 30% longer" than FABOLAS.
TABLE_III_TEXT = {"gp_over_dt": 13.0, "fabolas_over_eic": 10.0, "gp_over_fabolas": 1.3}

#: TrimTuner, Table IV "Average time to recommend the next configuration with different heuristics and
#: filtering levels (RNN, TrimTuner)", minutes; key (filter, beta), beta 1.0 = no filter.
TABLE_IV_MIN = {
    ("none", 1.0): {"trimtuner-gp": 125.76, "trimtuner-dt": 3.69},
    ("cea", 0.01): {"trimtuner-gp": 5.94, "trimtuner-dt": 1.07},
    ("cea", 0.1): {"trimtuner-gp": 16.85, "trimtuner-dt": 1.72},
    ("cea", 0.2): {"trimtuner-gp": 28.65, "trimtuner-dt": 2.05},
    ("direct", 0.1): {"trimtuner-gp": 36.18, "trimtuner-dt": 2.63},
    ("cmaes", 0.1): {"trimtuner-gp": 30.87, "trimtuner-dt": 2.26},
    ("random", 0.1): {"trimtuner-gp": 16.53, "trimtuner-dt": 1.62},
}
#: §IV-B text on Table IV: CEA at 10% "takes roughly as long as with Random"; CEA is "more computationally
#: efficient than Direct and CMAES (by up to approximately 2x)"; without a filter a GP recommendation takes
#: "about two hours", a DT one "approximately 4 minutes".
TABLE_IV_TEXT = {"cea_vs_direct_cmaes_up_to": 2.0, "no_filter_gp_min": 120.0, "no_filter_dt_min": 4.0}

#: TrimTuner Fig. 3 (RNN, TrimTuner-GP, beta = 10%): optimisation cost to recommend a feasible
#: configuration with at least 90% of the optimum's accuracy; CEA saves 3.62x vs CMA-ES and 7x vs DIRECT
#: ("CEA achieves a 3.62x and a 7x savings when compared to CMAES and Direct"). Random is plotted, no
#: number given.
FIG3 = {"fraction": 0.9, "savings_vs": {"cmaes": 3.62, "direct": 7.0}}

#: TrimTuner Fig. 4 (RNN, TrimTuner-DT, CEA; the initial design is omitted): "the best results are
#: achieved when the no filtering heuristic is employed"; "the smaller the number of configurations that
#: the heuristic can select, the worse the performance"; "we do not observe a significant degradation for
#: values of beta as low as 10%". Betas shown: 1%, 10%, 20%, 50% and no filter.
FIG4 = {"betas": FIG4_BETAS, "best": "none", "no_significant_degradation_down_to": 0.1}

# ---------------------------------------------------------------------------------------------
# The papers' experimental setups (what each figure was run with), for the settings tables
# ---------------------------------------------------------------------------------------------

#: TrimTuner §IV "Experimental setup and evaluation" and §IV-B, per study of
#: :mod:`tt_workbook.runs.profiles`: setting -> the paper's value (as text). "runs": "The reported
#: results are the average of 10 independent runs"; "initial": "we bootstrap the models using 4 initial
#: samples"; "iterations": "We set the maximum number of iterations to 44"; beta: "setting the
#: filtering rate beta to 10%". Thesis §6.2 for Nephele.
PAPER_SETUP = {
    "fig1": {"optimisers": "trimtuner-dt, trimtuner-gp, fabolas, eic, eic-usd, random",
             "networks": "rnn, mlp (not public), cnn", "runs per optimiser": "10", "tests per run": "44",
             "initial samples": "4 (TrimTuner, FABOLAS: 1 random config at 4 sizes; EIc: 4 LHS full-size)",
             "beta (TrimTuner)": "10%", "filter (TrimTuner)": "CEA",
             "cost limit": "rnn $0.02, cnn $0.10, mlp $0.06", "Fig. 2 target": "90% of the optimum",
             # §III: the initial design "has a cost equivalent to testing a single configuration using only
             # 50% of the data"; the authors' code (and Figs. 3-4) charge each initial test in full
             "initial design charged": "one run snapshotted at each size (§III; the authors' code and "
                                       "Figs. 3-4: each test in full)",
             "incumbent rule": "max predicted accuracy among predicted-feasible full-size configs (Alg. 1 "
                               "line 19; the authors' code: max CEA among tested configs)"},
    "fig3": {"optimisers": "trimtuner-gp", "networks": "rnn", "runs per filter": "10", "tests per run": "44",
             "filters": "CEA, DIRECT, CMA-ES, random", "beta": "10%", "Fig. 3 target": "90% of the optimum"},
    "fig4": {"optimisers": "trimtuner-dt", "networks": "rnn", "runs per beta": "10", "tests per run": "44",
             "betas": "1%, 10%, 20%, 50%, no filter"},
    "tables3_4": {"machine": "32-core VM, Intel Xeon Gold 6138, Python 3.6",
                  "networks": "average of rnn, mlp, cnn (Table III); rnn (Table IV)",
                  "observations per recommendation": "not stated (averaged over the runs)",
                  "time measured": "wall minutes, mean (sd) per recommendation"},
    # thesis §7.1-7.2 and ch. 4 (Fabulinus); "not stated" where the thesis leaves a setting open
    "fabulinus": {"optimisers": "fabulinus, fabolas, eic, ei", "networks": "cnn, rnn, mlp (not public)",
                  "runs per optimiser": "10", "tests per run": "100",
                  "initial samples": "3% of the configurations, random (Fabulinus: each at every sub-sampled size)",
                  "cost limit": "cnn $0.1, rnn $0.02, mlp $0.06",
                  "initial design charged": "not stated",
                  "beta (Fabulinus CEA filter)": "not stated (top beta by CEA, §4.2.2)",
                  "incumbent rule (Fabulinus)": "max predicted accuracy with P(cost <= C_max) >= 0.99 (§4.2)",
                  "C_overhead of Eq. 4.3": "not stated",
                  "statistic of the curves": "not stated"},
    "nephele": {"runs": "100 (percentiles over runs)", "initial budget B_init": "cnn $5, rnn $1, mlp $2",
                "exploration budget B": "not given", "lookahead horizons": "0, 1, 2 (Fig. 6.13)"},
}
