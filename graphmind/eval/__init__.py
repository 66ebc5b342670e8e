"""Evaluation: benchmark adapters, per-question records, metrics and reports."""
