"""Comparing two runs: node by node (nodes.py), their stored results' columns (columns.py)
and an output's rows matched by keys (rows.py). Pure runtime: the editor gives it the runs'
records and a way to find their stored results."""

from runtime.comparison.nodes import RunRecord, compare_runs

__all__ = ["RunRecord", "compare_runs"]
