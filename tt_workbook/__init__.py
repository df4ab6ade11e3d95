"""The workbook's harness: the run store, the authors' code as an oracle, one folder per paper study, the report,
the apps and the ``tt`` command. The library it drives is :mod:`tt_core`; SpotTune's simulator is :mod:`tt_spotsim`."""
