"""What follows a run's end besides its notifications: the triggers the run feeds see it
succeed, and the backfill it is an interval of moves on, rather than at the scheduler's next
tick.

They run on a thread of their own, never on the run's: the run's worker thread is done once the
run's end is written, so a worker service told to stop exits when its runs have ended, whatever
the follow-ups take (a backfill's next runs are checked, reading their inputs, before they are
queued). The thread is a daemon: a process that exits meanwhile loses nothing the scheduler's
tick does not do again. The followers are named, not imported, here: they start runs through
`editor.runs.actions`, which imports the launcher that calls `run_ended`.
"""

from __future__ import annotations

import logging
import threading

from django.db import close_old_connections, connection
from django.utils.module_loading import import_string

log = logging.getLogger(__name__)

FOLLOWERS = (
    "editor.triggers.watch.upstream_succeeded",
    "editor.backfills.advance.run_ended",
)
"""Called with the id of each run that ended, in turn; each never raises."""


def run_ended(run_id: int) -> threading.Thread:
    """A run's end is written: have its followers see it, on a thread of its own (returned)."""
    thread = threading.Thread(
        target=follow, args=(run_id,), name=f"pipewright-run-end-{run_id}", daemon=True
    )
    thread.start()
    return thread


def follow(run_id: int) -> None:
    """Call each of `FOLLOWERS` with `run_id`; one failing does not keep the next from it."""
    try:
        close_old_connections()
        for name in FOLLOWERS:
            try:
                import_string(name)(run_id)
            except Exception:
                log.exception("%s could not follow run %s", name, run_id)
    finally:
        connection.close()
