"""The statuses of nodes and runs, and the named sets callers ask about.

One home for them: the executor, the event sinks, the editor's models and the browser (through
the operator catalog) read these, so no list of statuses is spelled twice. The values are the
strings stored in the database and sent in events; a member compares equal to its string.
"""

from __future__ import annotations

from enum import StrEnum, nonmember


class NodeStatus(StrEnum):
    """Where a node is in a run."""

    PENDING = "pending"
    QUEUED = "queued"
    RUNNING = "running"
    RETRYING = "retrying"
    SUCCEEDED = "succeeded"
    FAILED = "failed"
    SKIPPED = "skipped"
    CANCELLED = "cancelled"
    TIMED_OUT = "timed_out"
    INTERRUPTED = "interrupted"
    """The process running it died (the run watch says so)."""

    FINAL = nonmember(frozenset({SUCCEEDED, FAILED, SKIPPED, CANCELLED, TIMED_OUT, INTERRUPTED}))
    """Nothing will change it any more."""
    FAILURES = nonmember(frozenset({FAILED, TIMED_OUT}))
    """The node's own work went wrong: the run fails, and stop-on-error stops it."""
    ACTIVE = nonmember(frozenset({QUEUED, RUNNING, RETRYING}))
    """Taken by the executor and not final yet."""


class RunStatus(StrEnum):
    """Where a run is."""

    QUEUED = "queued"
    RUNNING = "running"
    SUCCEEDED = "succeeded"
    FAILED = "failed"
    CANCELLED = "cancelled"
    INTERRUPTED = "interrupted"

    ACTIVE = nonmember(frozenset({QUEUED, RUNNING}))
    """Waiting for a worker or executing: at most one per pipeline."""
    FINAL = nonmember(frozenset({SUCCEEDED, FAILED, CANCELLED, INTERRUPTED}))
    """Ended; its record no longer changes."""


def status_catalog() -> dict:
    """Every status and named set, as the browser reads them from the operator catalog."""
    return {
        "node": [str(status) for status in NodeStatus],
        "run": [str(status) for status in RunStatus],
        "sets": {"node": _named_sets(NodeStatus), "run": _named_sets(RunStatus)},
    }


def _named_sets(enum: type[StrEnum]) -> dict[str, list[str]]:
    """An enum's sets by name, each in the enum's order."""
    named = {name: value for name, value in vars(enum).items() if isinstance(value, frozenset)}
    return {
        name: [str(status) for status in enum if status in members]
        for name, members in named.items()
    }
