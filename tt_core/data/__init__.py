"""Data layer: benchmarks (find, fetch, validate, load), cost model and prices, configuration space,
objectives (replay and callable), atomic file writing. Imports nothing else from ``tt_core``."""
