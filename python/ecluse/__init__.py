"""Ecluse's pure-Python side: the energy model of seed 002 §3 and its extensions, the profiler,
the advisor and the validation of predictions against run reports (`docs/model.md`)."""

__version__ = "0.1.0"
