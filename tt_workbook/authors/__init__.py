"""The TrimTuner authors' public code run as an oracle: fetched and verified (:mod:`.fetch`, :mod:`.manifest`),
run in a subprocess (:mod:`.harness`, :mod:`.oracle`), its runs kept in the run store (:mod:`.stored`)."""
