"""TrimTuner Tables III-IV: the time to recommend the next test (notebook 06)."""
