"""The one profile table: what each study runs in the ``smoke``, ``quick`` and ``paper`` profiles.

Every grid, timing study and notebook reads its settings here (``settings(profile, study)``), so a
profile means the same thing everywhere and a notebook can print its settings beside the paper's.

Studies
-------
``fig1``      TrimTuner Figs 1-2: benchmarks x optimisers x seeds, 44 tests each.
``fig2``      TrimTuner Fig. 2's readings (notebook 04): the seeds the bootstrap intervals of
              :func:`tt_workbook.studies.fig1_fig2.savings.savings_readings` use for the cheap optimisers (the issue asks
              for at least 20; Fig. 2 itself, read off the mean curves, stays on Fig. 1's runs).
``fig3``      TrimTuner Fig. 3: filters at beta 10 % per optimiser (seeds, iterations).
``fig4``      TrimTuner Fig. 4: TrimTuner-DT with CEA at each beta.
``variants``  TrimTuner-DT on the RNN with each "as in the authors' code" setting
              (:mod:`tt_workbook.studies.fig1_fig2.variants`); ``combined``: also all of them at once.
``alpha_trace`` TrimTuner-DT on the RNN, its acquisition traced per size at each beta
              (:mod:`tt_workbook.studies.fig1_fig2.alpha_trace`, notebook 03).

The ``paper`` profile is the paper's setup (TrimTuner §IV): Figs 1-2 run all six optimisers on both
public networks, 10 runs of 44 tests with 4 initial samples; Fig. 3 runs TrimTuner-GP on the RNN at
beta = 10 % with CEA, DIRECT, CMA-ES and random, 10 runs; Fig. 4 runs TrimTuner-DT on the RNN at the
paper's betas (1 %, 10 %, 20 %, 50 %, no filter), 10 runs. The ``quick`` profile cuts seeds, optimisers
and uses TrimTuner-DT for Fig. 3 (a GP run with DIRECT or CMA-ES costs minutes); every notebook prints
its settings beside the paper's (:func:`tt_workbook.runs.settings.settings_table`).
``fabulinus`` Thesis ch. 7, Figs 7.1-7.2: Fabulinus vs FABOLAS vs BO with EIc vs BO with EI, each run with
              the same initial configurations (3% of the configurations, random; at every sub-sampled
              size for Fabulinus and FABOLAS, at full size for EIc and EI) and a fixed number of tests
              (thesis: 100, 10 runs). The quick profile cuts runs and tests (a GP test at 100
              observations costs several CPU seconds here).
``lcdb``      Outside data (notebook 17): TrimTuner's claims on LCDB learning curves
              (:mod:`tt_workbook.studies.outside_data.analysis`): ``datasets`` of the eligible data sets spread over
              their cost range (None: all of them), ``seeds`` per optimiser arm.
``tables3_4`` TrimTuner Tables III-IV: recommendation-time plans (``tt bench recommend``).
``nephele``   Thesis Figs 6.10-6.13 and Table 6.1: seeds, budgets, lookahead settings.
``bench``     ``tt bench recommend --quick``.
``spottune``  SpotTune Figs 7-9 and 11 (notebooks 12-14, ``tt bench spot``): job sets, seeds, theta grid,
              market length and the simulation settings (:class:`tt_spotsim.simulator.Settings`).
``revpred``   SpotTune Fig. 10 (notebook 15, ``tt spot predictors``, ``tt bench revpred``): the LSTMs' training
              settings (:class:`tt_spotsim.revpred.NetSettings`: units, epochs, sample stride), the
              train/test split, the test stride, and Fig. 10(c)'s job sets and seeds.

Per-benchmark settings of the thesis' cost-minimising runs: :data:`INITIAL_BUDGETS` (thesis
Table 6.1) and :data:`EXPLORATION_BUDGETS` (this workbook's choice: the thesis gives no number).
"""

from __future__ import annotations

import copy
from tt_core.data.io import shown
from tt_core.data.paper_defaults import CEA_BETA, FIG4_BETAS, INITIAL_BUDGETS, TESTS_PER_RUN  # noqa: F401 (INITIAL_BUDGETS re-exported)
from tt_core.replay.driver import EXPLORATION_BUDGETS  # noqa: F401 (re-exported: the budgeted runs' default)


_TABLE4_DT = "table4-dt"

#: Thesis ch. 7: the four optimisers of Figs 7.1-7.3, in the thesis' order.
FABULINUS_OPTIMIZERS = ["fabulinus", "fabolas", "eic", "ei"]
#: Thesis §7.2: initial configurations, "3% of the search space size, randomly selected" (288 -> 9;
#: :func:`tt_core.optimizers.registry.fabulinus_n_init`), for every optimiser alike.
FABULINUS_N_INIT = 9
#: Per-optimiser options that put the baselines on the thesis' setup (Fabulinus' own are its registry
#: defaults). FABOLAS: same random initial configurations at every sub-sampled size, each test charged in
#: full, sub-sampled tests only ("Algorithm 4 is the same used by Fabolas" except the cloud parameters
#: and the constraint, §4.2). EIc and EI: the same configurations at full size.
FABULINUS_OPTIONS = {
    "fabulinus": {},
    "fabolas": {"init_design": "random", "n_init": FABULINUS_N_INIT, "snapshot_init": False, "test_full_size": False},
    "eic": {"init_design": "random", "n_init": FABULINUS_N_INIT},
    "ei": {"init_design": "random", "n_init": FABULINUS_N_INIT},
}

#: SpotTune settings shared by every profile (the paper's where it gives them: theta 0.7 and 1.0, the
#: refund rule, RevPred trained on the first 9 days; the rest are the simulator's documented assumptions).
_SPOT_COMMON = {"rules": "paper", "predictor": "logistic", "bid": "algorithm2", "k": 3, "fit_days": 9.0,
                "staged": False, "market_days": 30.0, "reference_hours": 4.0, "parallel_fraction": 0.9,
                "model_mb": 100.0,
                "thetas": [round(0.1 * i, 1) for i in range(1, 11)], "fig11_theta": 0.7}
#: SpotTune Fig. 10 settings shared by every profile: the paper's split of its 13-day trace (train
#: 04/26-05/04, test 05/05-05/07), Tributary's delta range, and Fig. 10(c) run as SpotTune (theta = 0.7)
#: with the inference maximum price drawn at random as the paper says ("tributary" bids).
_REVPRED_COMMON = {"market_days": 13.0, "fit_days": 9.0, "test_days": 3.0, "delta": [0.00001, 0.2],
                   "label_deltas": [[0.00001, 0.2], [0.00001, 0.02], [0.00001, 0.002]], "batch_size": 128,
                   "threads": 1, "seed": 1, "fig10c_approach": "spottune-0.7", "fig10c_bid": "tributary"}
#: All 24 (VM type, cluster size) groups of each TrimTuner network.
_ALL_GROUPS = None
_TABLE4_GP = "table4-gp"

PROFILES: dict[str, dict[str, dict]] = {
    "smoke": {
        "fig1": {"benchmarks": ["rnn"], "optimizers": ["trimtuner-dt", "eic", "random"], "seeds": [1],
                 "iterations": 8},
        "fig2": {"readings_seeds": [], "readings_optimizers": []},
        "fig3": {"plan": {"trimtuner-dt": {"seeds": [1], "iterations": 6}}, "n_jobs": 1},
        "fig4": {"seeds": [1], "iterations": 6, "networks": ["rnn"], "betas": [0.01, CEA_BETA, 1.0], "n_jobs": 1},
        "variants": {"seeds": [1], "iterations": 6, "combined": False},
        # the authors' public code (tt authors run): empirical dH residue on `seeds`, pos/zero/neg on `range_seeds`
        "authors": {"benchmarks": ["rnn"], "seeds": [1], "range_seeds": [], "iterations": 8},
        "alpha_trace": {"seeds": [1], "iterations": 6, "betas": [CEA_BETA]},
        # timings: >= 3 timed repeats per state after a discarded warm-up (recommendation_time.MIN_REPEATS)
        "tables3_4": {"plans": [{"benchmark": "rnn", "settings": ["eic", "eic-usd", _TABLE4_DT],
                                 "n_obs": [8, 20], "seeds": [1], "repeats": 3}]},
        "nephele": {"seeds": [1, 2], "budgets": {"cnn": 6.5, "rnn": 1.4}, "lookahead_seeds": [1],
                    "lookahead_budgets": {"cnn": 5.2, "rnn": 1.02}, "lookahead_max_paths": 3,
                    "timing_states": 1, "timing_full_gamma": False, "seed_draws": 2},
        "bench": {"n_obs": [20], "seeds": [1], "repeats": 3},
        # one configuration in the initial design (4 sub-sampled tests or 1 full-size test), 7 tests
        "fabulinus": {"benchmarks": ["rnn"], "optimizers": FABULINUS_OPTIMIZERS, "seeds": [1], "iterations": 7,
                      "n_init": 1},
        "lcdb": {"datasets": 1, "seeds": [1]},
        "spottune": {**_SPOT_COMMON, "trimtuner": ["rnn/t2.xlarge-x4"], "sklearn": [], "curves": "quick",
                     "seeds": [1], "thetas": [0.5, 0.7, 1.0], "market_days": 20.0, "theta_seeds": [1]},
        "revpred": {**_REVPRED_COMMON, "types": ["r4.large", "m4.4xlarge"], "hidden": 8, "epochs": 1, "lr": 1e-2,
                    "stride": 30, "test_stride": 30, "trimtuner": ["rnn/t2.xlarge-x4"], "sklearn": [],
                    "curves": "quick", "seeds": [1]},
    },
    "quick": {
        "fig1": {"benchmarks": ["cnn", "rnn"], "optimizers": ["trimtuner-dt", "eic", "eic-usd", "random"],
                 "seeds": [1, 2, 3], "iterations": TESTS_PER_RUN},
        "fig2": {"readings_seeds": [], "readings_optimizers": []},
        "fig3": {"plan": {"trimtuner-dt": {"seeds": [1, 2, 3], "iterations": TESTS_PER_RUN}}, "n_jobs": None},
        "fig4": {"seeds": [1, 2, 3], "iterations": TESTS_PER_RUN, "networks": ["rnn", "cnn"],
                 "betas": list(FIG4_BETAS), "n_jobs": None},
        "variants": {"seeds": [1, 2, 3], "iterations": TESTS_PER_RUN, "combined": False},
        "authors": {"benchmarks": ["cnn", "rnn"], "seeds": [1, 2], "range_seeds": [1], "iterations": TESTS_PER_RUN},
        # about 1 CPU minute (a traced DT run: 20-40 s)
        "alpha_trace": {"seeds": [1], "iterations": TESTS_PER_RUN, "betas": [CEA_BETA, 1.0]},
        # timings: 3 timed repeats per optimiser state after a discarded warm-up, at states over a whole run
        # (about 1 CPU minute, most of it the GP settings)
        "tables3_4": {"plans": [
            {"benchmark": "rnn", "settings": ["eic", "eic-usd", _TABLE4_DT], "n_obs": [8, 20, 44], "seeds": [1, 2],
             "repeats": 3},
            {"benchmark": "rnn", "settings": ["fabolas", _TABLE4_GP], "n_obs": [8, 20, 44], "seeds": [1], "repeats": 3},
        ]},
        "nephele": {"seeds": list(range(1, 11)), "budgets": None, "lookahead_seeds": [1, 2, 3],
                    "lookahead_budgets": {"cnn": 7.0, "rnn": 1.5}, "lookahead_max_paths": 3,
                    "timing_states": 1, "timing_full_gamma": True, "seed_draws": 30},
        "bench": {"n_obs": [20], "seeds": [1], "repeats": 3},
        # 2 runs of 50 tests (Fabulinus, FABOLAS: 36 initial + 14 BO tests); how long: `python -m
        # tt_workbook.runs.run_times --only 16` (measured per-run times), and `tt runs` says it before it starts
        "fabulinus": {"benchmarks": ["cnn", "rnn"], "optimizers": FABULINUS_OPTIMIZERS, "seeds": [1, 2],
                      "iterations": 50, "n_init": FABULINUS_N_INIT},
        # 3 LCDB data sets x 5 seeds x 7 arms of about 1 s each (notebook 17)
        "lcdb": {"datasets": 3, "seeds": [1, 2, 3, 4, 5]},
        "spottune": {**_SPOT_COMMON, "trimtuner": ["cnn/t2.small-x8", "cnn/t2.2xlarge-x4", "rnn/t2.medium-x8",
                                                   "rnn/t2.xlarge-x4"],
                     "sklearn": ["lor", "svm", "gbtr", "lir", "mlp"], "staged": True, "curves": "quick",
                     "seeds": list(range(1, 11)),
                     "theta_seeds": list(range(1, 11)), "thetas": [0.1, 0.3, 0.5, 0.7, 0.9, 1.0]},
        "revpred": {**_REVPRED_COMMON, "types": None, "hidden": 16, "epochs": 6, "lr": 3e-3, "stride": 3,
                    "test_stride": 5, "trimtuner": ["cnn/t2.small-x8", "rnn/t2.medium-x8"], "sklearn": [],
                    "curves": "quick", "seeds": list(range(1, 11))},
    },
    "paper": {
        "fig1": {"benchmarks": ["cnn", "rnn"],
                 "optimizers": ["trimtuner-dt", "trimtuner-gp", "fabolas", "eic", "eic-usd", "random"],
                 "seeds": list(range(1, 11)), "iterations": TESTS_PER_RUN},
        # Fig. 2's readings with 30 seeds of the cheap optimisers (about 15 CPU minutes; the GP ones stay at 10)
        "fig2": {"readings_seeds": list(range(1, 31)), "readings_optimizers": ["trimtuner-dt", "eic", "eic-usd", "random"]},
        # Fig. 3 as the paper ran it: TrimTuner-GP on the RNN, beta 10%, CEA vs DIRECT vs CMA-ES vs random
        "fig3": {"plan": {"trimtuner-gp": {"seeds": list(range(1, 11)), "iterations": TESTS_PER_RUN}}, "n_jobs": None},
        # Fig. 4 as the paper ran it: TrimTuner-DT on the RNN at the paper's betas (1.0 = no filter)
        "fig4": {"seeds": list(range(1, 11)), "iterations": TESTS_PER_RUN, "networks": ["rnn"],
                 "betas": list(FIG4_BETAS), "n_jobs": None},
        "variants": {"seeds": list(range(1, 11)), "iterations": TESTS_PER_RUN, "combined": True},
        "authors": {"benchmarks": ["cnn", "rnn"], "seeds": list(range(1, 11)), "range_seeds": list(range(1, 11)),
                    "iterations": TESTS_PER_RUN},
        # about 5-6 CPU minutes
        "alpha_trace": {"seeds": [1, 2, 3, 4, 5], "iterations": TESTS_PER_RUN, "betas": [CEA_BETA, 1.0]},
        "tables3_4": {"plans": [
            {"benchmark": b, "settings": ["table3"] + (["table4"] if b == "rnn" else []), "n_obs": [8, 20, 44],
             "seeds": [1, 2, 3], "repeats": 3} for b in ("rnn", "cnn")]},
        "nephele": {"seeds": list(range(1, 101)), "budgets": None, "lookahead_seeds": list(range(1, 21)),
                    "lookahead_budgets": {"cnn": 10.0, "rnn": 2.5}, "lookahead_max_paths": 10,
                    "timing_states": 5, "timing_full_gamma": True, "seed_draws": 30},
        "bench": {"n_obs": [8, 20, 44], "seeds": [1, 2], "repeats": 3},
        # thesis §7.2: 10 runs, 100 iterations, 3% initial configurations, both public networks
        "fabulinus": {"benchmarks": ["cnn", "rnn"], "optimizers": FABULINUS_OPTIMIZERS, "seeds": list(range(1, 11)),
                      "iterations": 100, "n_init": FABULINUS_N_INIT},
        # every eligible LCDB data set (67 of 248 in lcdb 0.1.0) x 10 seeds x 7 arms (notebook 17)
        "lcdb": {"datasets": None, "seeds": list(range(1, 11))},
        "spottune": {**_SPOT_COMMON, "trimtuner": _ALL_GROUPS, "sklearn": ["lor", "svm", "gbtr", "lir", "mlp"],
                     "staged": True, "curves": "full", "seeds": list(range(1, 31)), "theta_seeds": list(range(1, 31))},
        # every minute of the fit period a sample, every test minute scored; Fig. 10(c) on Fig. 7's job sets
        "revpred": {**_REVPRED_COMMON, "types": None, "hidden": 32, "epochs": 20, "lr": 1e-3, "stride": 1,
                    "test_stride": 1, "trimtuner": _ALL_GROUPS, "sklearn": ["lor", "svm", "gbtr", "lir", "mlp"],
                    "curves": "full", "seeds": list(range(1, 31))},
    },
}

#: Profiles a user asks for (smoke is the test suite's, reached with ``smoke=True``).
NAMES = ("quick", "paper")


def check_profile(profile: str) -> str:
    """``profile`` itself, or a ValueError listing the known profiles."""
    if profile not in PROFILES:
        raise ValueError(f"unknown profile {shown(profile)}; known profiles: {list(NAMES)}")
    return profile


def settings(profile: str, study: str, smoke: bool = False) -> dict:
    """A copy of the settings of ``study`` in ``profile`` (``smoke=True``: the smoke settings)."""
    name = "smoke" if smoke else check_profile(profile)
    table = PROFILES[name]
    if study not in table:
        raise ValueError(f"unknown study {shown(study)}; known studies: {sorted(table)}")
    out = copy.deepcopy(table[study])
    if study == "nephele":
        out["budgets"] = out["budgets"] or dict(EXPLORATION_BUDGETS)
    out["name"] = name
    return out
