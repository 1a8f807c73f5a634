"""Tuning from past runs: profiles of a plan's successful runs, and the choices read from them.

`profiles` reads and writes the small JSON file kept per pipeline in the result store's
folder (`<store>/profiles/<key>.json`), figures by node shape; `figures` sums a profile up
per node;
`choices` are pure functions from those figures (and the run's budget) to a backend per
segment, DuckDB's threads and memory, and `max_concurrency`, each with the figure it came
from, for `explain`. Nothing here knows the plan's classes or runs anything: the planner
(runtime/plan/tuned.py) asks, the executor (runtime/execution/profiling.py) records.
"""
