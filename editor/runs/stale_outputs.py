"""At server start: delete the temporary output files, spill folders and unwritten-event files
(`editor.runs.unwritten_events`) of runs that ended without cleaning up.

A run killed while writing (the server stopped, the machine lost power) leaves its
`.<name>.<run id>.<random>.tmp` beside the target. Once the runs of dead processes are marked
`interrupted`, the temporaries of every run in a final state go; those of a run still queued
or running (in another server process, say) stay, and those of a run the database does not
know (the CLI's, another installation's) go only once they are a day old. (Runs reaped while
the server runs have theirs removed at once, by `leftovers`.)
"""

from __future__ import annotations

import logging
import threading
from pathlib import Path

from django.conf import settings
from django.db import close_old_connections

from editor.models import Run
from editor.runs.leftovers import drop_staging_tables_of
from editor.runs.unwritten_events import remove_left_behind
from editor.runs.watch import reap_interrupted_runs
from runtime import RunStatus
from runtime.backends.spill import remove_stale_spill_folders
from runtime.io.paths import SCRATCH
from runtime.operators.atomic import remove_stale_temporaries

log = logging.getLogger(__name__)


def start_removing() -> None:
    """At server start: remove stale temporaries on a background thread (a big data root)."""
    threading.Thread(target=_remove_logged, name="pipewright-stale-outputs", daemon=True).start()


def remove_stale_outputs() -> list[Path]:
    """Mark abandoned runs interrupted, then delete the temporaries and spill folders of
    ended runs (and drop the staging tables of those just reaped)."""
    drop_staging_tables_of(reap_interrupted_runs())
    root = Path(settings.PIPEWRIGHT_DATA_ROOT)
    removed = remove_stale_temporaries(root, run_has_ended)
    removed += remove_left_behind(run_has_ended)
    return removed + remove_stale_spill_folders(root / SCRATCH, run_has_ended)


def run_has_ended(run_id: str) -> bool | None:
    """True if the run is in a final state, False if it is active, None if there is no such run."""
    if not run_id.isdecimal():
        return None
    status = Run.objects.filter(pk=int(run_id)).values_list("status", flat=True).first()
    return None if status is None else status not in RunStatus.ACTIVE


def _remove_logged() -> None:
    try:
        close_old_connections()
        removed = remove_stale_outputs()
    except Exception:  # never take the server down for a cleanup
        log.warning("could not remove stale temporary output files", exc_info=True)
        return
    if removed:
        log.info("removed %d temporary output files of ended runs", len(removed))
