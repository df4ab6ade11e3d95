"""TrimTuner Workbook core library: data, models, acquisitions, filters, optimisation loop."""

__version__ = "0.1.0"
