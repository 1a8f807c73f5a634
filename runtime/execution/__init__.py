"""Runs a prepared plan: the executor, its tasks, and everything a run reports while it runs.

Belongs here: scheduling tasks (one per node or segment) with retries, timeouts, cancellation
and parallel branches; node reports and results; the events, statuses and progress a run
emits; the executor's side of the result store (`recording`); previews of one node. Does not
belong here: deciding what runs where (`runtime.plan`), how a backend runs a segment
(`runtime.backends`), or reading back what a run stored (`runtime.results`).
"""
