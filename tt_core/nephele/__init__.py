"""Nephele: budget-driven, cost-minimising Bayesian optimisation with sub-sampling (thesis ch. 3 and 6.4-6.5).

Problem (thesis Eq. 3.1)::

    minimise_{x, s}  C(x, s)   s.t.  A(x, s) >= A_min,  T(x, s) <= T_max,  sum_{(x_k, s_k) in S} C(x_k, s_k) <= B

Optimisers (ask/tell, :mod:`tt_core.nephele.optimizer`; factories in :data:`NEPHELE_OPTIMIZERS`):

==============  =========  ===================  =================================================
name            sizes      initial sampling     then
==============  =========  ===================  =================================================
``nephele``     all        LHS until B_init     Gamma (random pick if empty), argmax R/C, lookahead h
``lynceus``     full only  LHS until B_init     the same
``cherrypick``  full only  LHS until B_init     argmax EIc (Eq. 2.17), no Gamma
``random``      all        none                 uniform over untested pairs
==============  =========  ===================  =================================================

Every optimiser stops when its budget is spent (Alg. 2) and recommends the cheapest observed point
meeting both constraints. Evaluation (thesis §6.1): CNO (Eq. 6.1, :func:`tt_core.metrics.cno`) of the
incumbent against exploration cost, time and number of explorations, the 90th percentile over seeds
(:mod:`tt_core.nephele.analysis`).

Deviations from the thesis (and why)
------------------------------------
* **Models.** Bagged ensembles of 5 trees as in §6.2, built with
  :class:`tt_core.models.trees.ExtraTreesEnsemble` (one tree per bootstrap member). The trees imitate
  Weka's RandomTree (best split among ``floor(log2 D) + 1`` random attributes, no pruning) via
  ``splitter="best"``. They model ``ln(1 - accuracy)`` and ``ln cost`` (the workbook's convention; costs
  span three orders of magnitude) rather than accuracy and cost directly. Consequently the cost
  prediction is log-normal: EI is the exact log-normal ``E[max(0, c* - C)]`` in USD, the cost in the
  reward/cost ratio is the log-normal mean, and Gamma's "predicted mean values" are the back-transformed
  ensemble means of the log targets.
* **Time from cost** (§3.2.1 prints ``T = C * P``; dimensionally ``T = C / P`` with ``P`` the price per
  second of the configuration's cluster): ``ln T = ln C - ln P``, so the time constraint reuses the cost
  model.
* **Initial sampling.** "LHS(T)" on a discrete space: successive Latin-hypercube designs of
  ``lhs_batch`` (10) points over the configuration dimensions (and the size for Nephele), in coordinates
  where every level of a dimension gets an equal stratum (so each of the 5 sizes is equally likely),
  each point mapped to the nearest untested pair, until ``B_init`` is spent (the run that crosses
  ``B_init`` is kept, Alg. 2 lines 7-10). The thesis does not say how it sized or mapped its design.
* **Ties.** Trees predict piecewise constants, so many pairs tie; ties go to a seeded random priority
  drawn once per recommendation (the thesis does not say).
* **Budget stop.** Alg. 2 aborts the running job when the budget is exhausted (lines 24-26). By default
  (``finish_last_run=True``) the run that crosses ``B`` completes and is charged in full, so a run
  overspends by at most its last exploration; ``finish_last_run=False`` aborts it instead (charged the
  remaining budget, result discarded). Loops stop when ``spent >= B`` (the thesis' ``beta >= 0`` test
  would allow one more run at ``beta == 0`` exactly).
* **EIc before any feasible observation** is the probability of feasibility alone (there is no incumbent
  to improve on); the thesis does not say.
* **Baselines.** Lynceus is Nephele's own selection at the full size (as the thesis' comparison implies:
  same models, same Gamma, same lookahead); the original Lynceus' Gamma (cost below the budget with
  99 % probability) is not used. CherryPick is ``argmax EIc`` over untested full-size configurations with
  the same LHS initial sampling and budget stop (§6.1: "extended to incorporate a budget"). Random search
  samples the same space as Nephele (all sizes) and skips the initial sampling.
* **Lookahead speed knob.** ``max_paths`` (not in the thesis, default off) limits the lookahead to the
  pairs of Gamma with the highest one-step ``EIc / C``; the notebook's lookahead study uses it because a
  Python refit of the ensembles per Gauss-Hermite node makes the full Gamma slow (reported there).
* **Exploration budget B.** The thesis gives no value; :data:`EXPLORATION_BUDGETS` is this workbook's
  choice (see :mod:`tt_core.nephele.runner`).
* **CNO normaliser.** ``cno`` divides by the optimum over all sizes (a common yardstick for all
  optimisers; Lynceus and CherryPick cannot go below C(x*, s=1)/C(x*) then); ``cno_space`` divides by the
  optimum of the optimiser's own search space. The thesis does not say which it plots.
"""

from .analysis import (
    cost_to_reach,
    cost_to_reach_per_run,
    curve_at_cost,
    iteration_curves,
    lookahead_table,
    percentile,
    initial_sampling_table,
)
from .optimizer import (
    BudgetedOptimizer,
    BudgetExhausted,
    CherryPick,
    Lynceus,
    Nephele,
    RandomSearch,
    constrained_ei,
    feasible_set_mask,
    latin_hypercube,
    lognormal_expected_improvement,
)
from .runner import (
    DEFAULT_MAX_TIME,
    DEFAULT_MIN_ACCURACY,
    EXPLORATION_BUDGETS,
    INITIAL_BUDGETS,
    NEPHELE_OPTIMIZERS,
    NepheleRun,
    load_nephele_runs,
    make_nephele_optimizer,
    nephele_grid,
    optimum,
    price_per_second,
    read_nephele_run,
    run_nephele,
    run_nephele_grid,
    run_nephele_one,
    time_recommendations,
    with_options,
)
from .analysis import reach_ratios
