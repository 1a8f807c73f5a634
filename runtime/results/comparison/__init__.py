"""Comparing two runs: a run's record (records.py), node by node (nodes.py), their stored
results' columns (columns.py) and an output's rows matched by keys (rows.py, on DuckDB).
Pure runtime: the editor gives it the runs' records with their kept result files."""
