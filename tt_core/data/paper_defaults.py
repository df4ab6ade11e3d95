"""The papers' experimental defaults, each stated once, with where the paper states it.

Every default the library, the run store and the ``tt`` command take from the papers is read from
here (``tests/test_paper_defaults.py`` checks that none is typed again elsewhere). The papers' *results*
(the numbers a run is compared with) are in :mod:`tt_workbook.paper_values`.

TrimTuner: Mendes et al., "TrimTuner: Efficient Optimization of Machine Learning Jobs in the Cloud via
Sub-Sampling", MASCOTS 2020 (``/work/shared/papers/trimtuner_paper.md``). Thesis: "Nephele" and
"Fabulinus" (``thesis_nephele_fabulinus.txt``).
"""

from __future__ import annotations

__all__ = ["CEA_BETA", "TESTS_PER_RUN", "INITIAL_SAMPLES", "FIG3_FILTERS", "FIG4_BETAS",
           "THESIS_MIN_ACCURACY", "THESIS_MAX_TIME", "INITIAL_BUDGETS"]

#: The fraction of the untested configurations the CEA filter keeps (Alg. 1: the set D of the beta
#: configurations of largest CEA, §III-B): TrimTuner §IV "for both TrimTuner variants we use the CEA heuristic, setting the filtering
#: rate beta to 10%"; §IV-B: Table III and Fig. 3 at 10 %.
CEA_BETA = 0.1

#: Tests per run, initial design included: TrimTuner §IV "We set the maximum number of iterations to 44
#: for all optimizers".
TESTS_PER_RUN = 44

#: Initial samples: TrimTuner §IV "we bootstrap the models using 4 initial samples" (TrimTuner and
#: FABOLAS: one random configuration at 4 sub-sampled sizes; EIc, EIc/USD: 4 full-size configurations).
INITIAL_SAMPLES = 4

#: The filters of TrimTuner Fig. 3 (§IV-B), in the paper's order: CEA, DIRECT, CMA-ES and random, each
#: keeping beta = 10 %.
FIG3_FILTERS = ("cea", "direct", "cmaes", "random")

#: The filter fractions of TrimTuner Fig. 4 (§IV-B, "sensitivity study on the beta parameter for CEA"):
#: 1 %, 10 %, 20 %, 50 % and no filter (1.0).
FIG4_BETAS = (0.01, 0.1, 0.2, 0.5, 1.0)

#: The accuracy limit A_min of the thesis' cost-minimising runs (thesis §6.2): 85 %.
THESIS_MIN_ACCURACY = 0.85

#: The training-time limit T_max of the thesis' cost-minimising runs (thesis §6.2), in seconds.
THESIS_MAX_TIME = 300.0

#: The initial-sampling budget B_init per network, USD (thesis Table 6.1 and §6.3: CNN $5, RNN $1,
#: MLP $2).
INITIAL_BUDGETS = {"cnn": 5.0, "rnn": 1.0, "mlp": 2.0}
