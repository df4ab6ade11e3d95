"""SpotTune (Li et al., ICDCS 2020) as a seeded simulation, on the workbook's shared layers.

SpotTune tunes hyper-parameters on revocable AWS spot instances: each hyper-parameter setting trains
on its own instance; a provisioner picks the instance type with the lowest *expected step cost*
(Eqs. 1-2, from a revocation probability, Eq. 3, and the last hour's price), an instance that runs an
hour without revocation is checkpointed and re-deployed (to keep the chance of a free, refunded first
hour), and EarlyCurve (Eqs. 4-7) predicts each setting's final metric after ``theta x max`` steps so
that only the top-k settings finish. No code or data of the authors is public: this is a simulation on
substituted price traces (a seeded synthetic 2017-style market unless the user supplies the public
trace) and substituted learning curves (the TrimTuner measurements, scikit-learn models trained here).

The paper's equations were lost in its text extraction; each module's docstring writes the
reconstruction it implements and every result that depends on one says so.

Modules, by layer (``tests/test_layers.py`` maps each to its layer):

* data: :mod:`.catalogue` (Table III), :mod:`.rules` (billing and revocation rules as data, and the
  bill of one instance), :mod:`.traces` (price traces: the user's file, resampling, the 2017 trace),
  :mod:`.history` (post-2017 price histories), :mod:`.market` (the synthetic market), :mod:`.workloads`
  (HPT job sets: TrimTuner curves, speed model), :mod:`.curves` (scikit-learn learning curves, generated
  and cached), :mod:`.staged` (a workload with learning-rate stages), :mod:`.step_times` and
  :mod:`.curve_losses` (the shipped tables, found by :mod:`.shipped`), :mod:`.streams` (named random streams);
* models: :mod:`.revocation` (revocation-probability predictors, Eq. 3, Alg. 2), :mod:`.revpred`
  (RevPred's LSTM), :mod:`.earlycurve` (Eqs. 4-7 and the single-stage baseline);
* :mod:`.provisioner` (Eqs. 1-2), then :mod:`.simulator` (the discrete-event simulation, SpotTune and
  the baselines), then :mod:`.measuring` (making the shipped tables, by an explicit command only).

The paper's figures made with it (grids, intervals, Figs 7-12, the rows beside the paper's numbers) are
a study of the workbook: :mod:`tt_workbook.studies.spottune`.
"""
