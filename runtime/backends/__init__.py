"""Backends that run a plan's segments other than node by node on pandas.

Belongs here: running a segment's relational tree (runtime/relational.py) on an engine,
and what such a run shares whatever the engine (its memory and thread budget). Each engine is
a subpackage imported only when a segment runs on it, so that a pandas-only run never loads
it. Does not belong here: choosing which segment runs where (runtime/plan) or the executor.
"""
