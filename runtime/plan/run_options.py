"""How one run treats the result store and which part of the pipeline it runs.

Given to `prepare` (and carried by a child process's `RunOrder`): `fresh` ignores stored
results (new ones are still stored), `up_to` runs a node and its ancestors only, `from_node`
runs a node and everything below it, reusing what is stored above it, and `left_out` names
nodes that do not run, nor anything below them (a run started despite their problems), and
`tuning` off reads no past runs' figures (runtime/plan/tuned.py: the run still records its own).
Passing no options at all (`None`) means the plan is not a run's (a preview's): no store is
read or written.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class RunOptions:
    """A run's choices about reuse and extent."""

    fresh: bool = False
    up_to: str | None = None
    from_node: str | None = None
    left_out: tuple[str, ...] = ()
    tuning: bool = True
