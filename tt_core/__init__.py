"""TrimTuner Workbook core library: data, models, acquisitions, filters, optimisers and the replay driver.

It imports nothing of the workbook's harness (:mod:`tt_workbook`) or of SpotTune's simulator
(:mod:`tt_spotsim`), and needs only the core install. Its packages are in layers, each importing only from
its own rank or those before it (a comma joins layers of the same rank; ``tests/test_layers.py`` checks it):
data < models, bo < acquisitions < optimizers, integrations < replay

Equation index
==============

Where each numbered equation and algorithm of the papers is implemented, as ``equation or algorithm
-> function``. Names are full dotted names; ``tests/test_index.py`` imports every one of them, so a
renamed or moved function fails the tests until this index is updated.

TrimTuner paper
---------------
P. Mendes, M. Casimiro, P. Romano and D. Garlan, "TrimTuner: Efficient Optimization of Machine Learning
Jobs in the Cloud via Sub-Sampling", MASCOTS 2020.

* Eq. 1, expected improvement (here minimising the loss ``ln(1 - accuracy)``) ->
  :func:`tt_core.acquisitions.ei.expected_improvement`, :class:`tt_core.acquisitions.ei.EI`; the §IV
  baselines built on it -> :class:`tt_core.acquisitions.ei.EIc` (CherryPick) and
  EIc per expected dollar (Lynceus), :class:`tt_core.acquisitions.per_cost.PerUnitCost` of EIc and
  :class:`tt_core.acquisitions.per_cost.LogNormalMeanCost`.
* Eq. 2, entropy search on the ``s = 1`` optimum ->
  :class:`tt_core.acquisitions.entropy_search.EntropySearch`, with ``p_opt`` by EPMGP
  (:func:`tt_core.acquisitions.epmgp.log_pmin`) on representer points
  (:func:`tt_core.acquisitions.entropy_search.sample_representers`).
* Eq. 3, FABOLAS' information gain per unit cost ->
  :class:`tt_core.acquisitions.per_cost.PerUnitCost` of entropy search and
  :class:`tt_core.acquisitions.per_cost.MedianCost`, on the FABOLAS GP
  :class:`tt_core.models.fabolas_gp.FabolasGP`.
* Eq. 4, the constrained problem of §III (maximise ``A(x, s=1)`` subject to ``q_i(x, s=1) >= 0``) ->
  :class:`tt_core.optimizers.base.Problem` with ``objective="accuracy"``; its constraints
  :class:`tt_core.bo.constraints.Constraint`, built by :func:`tt_core.optimizers.base.constraints_for`.
* Eq. 5, TrimTuner's acquisition ``alpha_T`` ->
  :class:`tt_core.acquisitions.trimtuner.TrimTunerAcquisition` (quadrature nodes
  :func:`tt_core.acquisitions.trimtuner.gauss_hermite_normal`; product of constraint probabilities
  :func:`tt_core.bo.constraints.probability_of_constraints`).
* Eq. 6, constrained expected accuracy (CEA) -> :func:`tt_core.bo.filters.cea_scores`.
* Eq. 7, Accuracy_C -> :func:`tt_core.replay.metrics.accuracy_c`.
* Alg. 1, TrimTuner -> :class:`tt_core.optimizers.model_based.ModelBasedOptimizer` (``trimtuner-dt``,
  ``trimtuner-gp`` of :func:`tt_core.optimizers.registry.make_optimizer`), driven by
  :func:`tt_core.replay.driver.run_optimization`. Lines 2-9, the sub-sampled initial design ->
  :func:`tt_core.bo.design.subsampled_snapshot`; the set T of untested pairs ->
  :class:`tt_core.data.space.CandidatePool`; line 12, the CEA filter ->
  :func:`tt_core.bo.filters.filter_candidates`; line 13 ->
  :meth:`tt_core.acquisitions.trimtuner.TrimTunerAcquisition.argmax`; line 19, the incumbent ->
  :func:`tt_core.bo.incumbent.find_incumbent` (:func:`tt_core.bo.incumbent.select_incumbent`).

Nephele / Fabulinus thesis
--------------------------
P. Mendes, "Leveraging Subsampling Techniques to Optimize Machine Learning Jobs in the Cloud", MSc
thesis, Instituto Superior Técnico, Universidade de Lisboa, 2019. Nephele (ch. 3) and Fabulinus (ch. 4)
are implemented; Fabulinus is TrimTuner-GP with the settings of ch. 4 (``fabulinus`` of
:func:`tt_core.optimizers.registry.make_optimizer`, :data:`tt_core.optimizers.registry.FABULINUS_SETTINGS`).

* Eq. 2.4, the Matérn 5/2 kernel -> :class:`tt_core.models.matern_gp.MaternGP` (the GP of the EIc and
  EIc/USD baselines); FABOLAS' kernel :func:`tt_core.models.fabolas_gp.fabolas_kernel` is a product of
  1-D Matérn 5/2 kernels.
* Eqs. 2.14-2.15, closed-form EI with ``Z`` of Eq. 2.15, for a cost to minimise with a log-normal
  prediction -> :func:`tt_core.acquisitions.ei.lognormal_expected_improvement`.
* Eqs. 2.16-2.17, constrained EI ``EIc = P(feasible) * EI`` ->
  :func:`tt_core.acquisitions.ei.constrained_cost_ei` (``P(feasible)`` with the time derived from the
  predicted cost, §3.2.1: :func:`tt_core.acquisitions.ei.probability_from_cost`).
* Eq. 3.1, minimise the cost subject to ``A_min``, ``T_max`` and the exploration budget ``B`` ->
  :class:`tt_core.optimizers.base.Problem` with ``objective="cost"`` and a ``budget``; its exact
  optimum on measured data -> :func:`tt_core.replay.metrics.optimum`.
* Eq. 3.2, the next pair ``argmax_{Gamma} R / C`` -> :class:`tt_core.optimizers.budgeted.Nephele`
  (``horizon=0``: ``R`` = EIc, ``C`` = :func:`tt_core.acquisitions.lookahead.expected_cost`).
* Eq. 3.3, Gauss-Hermite quadrature over ``N`` cost and ``M`` accuracy points of the lookahead ->
  :meth:`tt_core.acquisitions.lookahead.Lookahead.paths` (nodes
  :func:`tt_core.acquisitions.trimtuner.gauss_hermite_normal`).
* Eq. 4.1, maximise ``A(x, s=1)`` subject to ``C(x, s=1) <= C_max`` -> :class:`tt_core.optimizers.base.Problem`
  with ``objective="accuracy"`` (as TrimTuner's Eq. 4).
* Eqs. 4.2-4.3, FABOLAS' ``a_F`` -> :class:`tt_core.acquisitions.per_cost.PerUnitCost`
  (``C_overhead`` = 0).
* Eqs. 4.4-4.5, constrained entropy search ``ES_C = a_F * CEA(x_inc)`` ->
  :class:`tt_core.acquisitions.trimtuner.TrimTunerAcquisition` with ``factor="cea"`` (the fantasised
  incumbent's predicted accuracy times its probability of meeting the limit).
* Alg. 4, Fabulinus -> :class:`tt_core.optimizers.model_based.ModelBasedOptimizer` (``fabulinus``); lines
  4-6, the initial sampling (3% of the configurations at every sub-sampled size, §7.2) ->
  :func:`tt_core.bo.design.subsampled_configs` (:func:`tt_core.optimizers.registry.fabulinus_n_init`);
  line 12 and §4.2, the incumbent with ``P >= 0.99`` -> :func:`tt_core.bo.incumbent.find_incumbent`
  (``threshold``); sub-sampled tests only -> ``test_full_size=False``.
* Alg. 5, selection of the next configuration: the top-beta CEA set Gamma (§4.2.2) and the argmax of
  ES_C -> :func:`tt_core.bo.filters.filter_candidates`,
  :meth:`tt_core.acquisitions.trimtuner.TrimTunerAcquisition.argmax`.
* Eq. 6.1, CNO -> :func:`tt_core.replay.metrics.cno`.
* Eq. 6.2, production-cost reduction by sub-sampling -> :func:`tt_workbook.studies.nephele.subsampling.subsampling_gain`;
  over a grid of constraints (Fig. 6.8) -> :func:`tt_workbook.studies.nephele.subsampling.cost_reduction_grid`.
* Eq. 7.1, the thesis' Accuracy_C (0 when infeasible) -> :func:`tt_core.replay.metrics.accuracy_c_thesis`;
  the §7.1 baseline "BO with EI" -> :class:`tt_core.acquisitions.ei.EI` (``ei`` of the registry); Figs
  7.1-7.2 -> :func:`tt_workbook.studies.fabulinus.analysis.panel_curves`; §7.3's cost reductions and time ratios ->
  :func:`tt_workbook.studies.fabulinus.analysis.cost_reduction`, :func:`tt_workbook.studies.fabulinus.analysis.initial_cost_reduction`,
  :func:`tt_workbook.studies.fabulinus.analysis.time_ratio`.
* Alg. 2, Nephele -> :class:`tt_core.optimizers.budgeted.Nephele` on
  :class:`tt_core.optimizers.budgeted.BudgetedOptimizer` (budget stop, lines 24-26), driven by
  :func:`tt_core.replay.driver.run_optimization`. Lines 7-10, the LHS(T) sampler ->
  :func:`tt_core.bo.design.level_coordinates`, :func:`tt_core.bo.design.nearest_untested`; line 16,
  the incumbent -> :func:`tt_core.bo.incumbent.best_observed`. The baselines of §6.1 ->
  :class:`tt_core.optimizers.budgeted.Lynceus`, :class:`tt_core.optimizers.budgeted.CherryPick`.
* Alg. 3, selection of the next configuration -> :class:`tt_core.acquisitions.lookahead.Lookahead`;
  lines 2 and 31, the predicted-feasible sets Gamma / Omega ->
  :func:`tt_core.bo.constraints.predicted_feasible`; lines 10-29, EXPLOREPATHS ->
  :meth:`tt_core.acquisitions.lookahead.Lookahead.paths`.

SpotTune paper
--------------
Y. Li et al., "SpotTune: Leveraging Transient Resources for Cost-efficient Hyper-parameter Tuning in the
Public Cloud", ICDCS 2020; implemented as a seeded simulation in :mod:`tt_spotsim`. The paper's
equations and algorithm listings were lost in its text extraction: each entry below is a
*reconstruction* from the surrounding text, written out in the named module's docstring.

* Eq. 1, expected cost of the next hour ``(1 - p) * mean price`` ->
  :func:`tt_spotsim.provisioner.expected_hour_cost`.
* Eq. 2, step cost and the cheapest instance (``getBestInst``) -> :func:`tt_spotsim.provisioner.step_cost`,
  :meth:`tt_spotsim.provisioner.Provisioner.choose`; the seconds-per-step table initialised from vCPUs
  and updated online (Alg. 1, line 36) -> :class:`tt_spotsim.provisioner.SpeedTable`.
* Eq. 3, revocation probability from a class-weighted model's output -> :func:`tt_spotsim.revocation.calibrate`,
  used by :class:`tt_spotsim.revocation.LogisticPredictor` (the six features:
  :func:`tt_spotsim.revocation.features`) and by the LSTMs of §III-B,
  :class:`tt_spotsim.revpred.RevPredPredictor` and :class:`tt_spotsim.revpred.TributaryPredictor`
  (:meth:`tt_spotsim.revpred.LSTMPredictor.probabilities`; networks :func:`tt_spotsim.revpred.build_network`,
  samples :func:`tt_spotsim.revpred.windows`); the empirical predictor
  :class:`tt_spotsim.revocation.EmpiricalPredictor`.
* Eq. 4, the staged sub-linear curve -> :func:`tt_spotsim.earlycurve.stage_curve`,
  :func:`tt_spotsim.earlycurve.fit_earlycurve` (stages fitted by :func:`tt_spotsim.earlycurve.fit_stage`
  with ``scipy.optimize.least_squares`` and bounds); the single-stage baseline of SLAQ/Optimus ->
  :func:`tt_spotsim.earlycurve.fit_single_stage`.
* Eq. 5, the indicator of a stage -> :meth:`tt_spotsim.earlycurve.CurveFit.predict`.
* Eq. 6, the stages tile the observed steps -> :func:`tt_spotsim.earlycurve.fit_earlycurve` (its
  ``starts``, :class:`tt_spotsim.earlycurve.CurveFit`).
* Eq. 7, a new stage when the change rate jumps -> :func:`tt_spotsim.earlycurve.stage_starts`
  (:func:`tt_spotsim.earlycurve.change_rates`).
* Alg. 1, SpotTune's workflow (deployments, revocation notice, hourly re-deployment, early shutdown at
  ``theta x max`` steps and the top-k) -> :func:`tt_spotsim.simulator.simulate`; its baselines
  (§IV-A4) -> :func:`tt_spotsim.simulator.single`.
* Alg. 2, RevPred's training maximum price -> :func:`tt_spotsim.revocation.algorithm2_margins`, used by
  :func:`tt_spotsim.revpred.training_set` (Tributary's random maximum price instead:
  :func:`tt_spotsim.revocation.random_bids`).
"""

__version__ = "0.1.0"

#: Version of the numerics that make stored results (runs, study tables, checkpoints). A stored result is
#: reused only when it carries this version, and recomputed otherwise. Bump it with every change that moves
#: a reference trajectory (``tests/reference_versions.json`` records the references' sha256 per version, and
#: ``tests/test_results_version.py`` fails when they change without a bump). History in CHANGELOG.md.
RESULTS_VERSION = 2
