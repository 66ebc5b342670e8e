"""Benchmarks, evaluation tools and setup helpers, run as ``python scripts/NAME.py``.

A package only so that the import contracts (pyproject.toml) reach them; not shipped.
"""
