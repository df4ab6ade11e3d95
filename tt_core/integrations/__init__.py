"""Adapters that run the workbook's optimisers inside other tools' loops (Optuna: :mod:`tt_core.integrations.optuna`).

Each adapter imports its tool lazily, so the package works without it; tests/test_layers.py places the modules
in the library's layers.
"""
