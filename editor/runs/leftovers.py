"""What runs left behind when the process executing them died, removed by whichever process
reaps them.

A run's own supervisor removes its leftovers when the run's process dies under it
(`supervision`). When the supervisor dies too (a worker service killed, a machine lost), the
run is reaped later by another process (`watch`): that process removes the run's temporary
output files (`.<name>.<run id>.<random>.tmp`), its spill folder and, on MySQL and MariaDB, the
staging tables named after it (`runtime.operators.sql.staging`), at once, rather than leaving
them until the dead service starts again.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from pathlib import Path

from django.conf import settings

from editor.models import Run
from editor.workspaces.membership import engine_access
from runtime import PipewrightError, build_plan, load_document
from runtime.backends.spill import remove_stale_spill_folders
from runtime.io.paths import SCRATCH
from runtime.operators.atomic import remove_stale_temporaries
from runtime.operators.sql.staging import drop_staging_tables

log = logging.getLogger(__name__)


def remove_leftovers(run_ids: Iterable[int]) -> list[str]:
    """Delete the temporary files and spill folders of the runs `run_ids`, which have just
    ended, and drop their staging tables; what was removed. Other runs' files are kept. A
    failure is logged: it never stops the reaping it follows."""
    ended = {str(run_id) for run_id in run_ids}

    def reaped(run_id: str) -> bool:
        return run_id in ended

    root = Path(settings.PIPEWRIGHT_DATA_ROOT)
    removed: list[str] = []
    try:
        removed += [str(path) for path in remove_stale_temporaries(root, reaped)]
        removed += [str(path) for path in remove_stale_spill_folders(root / SCRATCH, reaped)]
        removed += drop_staging_tables_of(int(run_id) for run_id in ended)
    except Exception:  # a cleanup never takes the reaper down
        log.warning("could not remove what runs %s left", sorted(ended), exc_info=True)
    if removed:
        log.info("removed what the reaped runs %s left: %s", sorted(ended), removed)
    return removed


def drop_staging_tables_of(run_ids: Iterable[int]) -> list[str]:
    """Drop the staging tables the runs `run_ids` (ended) left; their names."""
    dropped: list[str] = []
    runs = Run.objects.filter(pk__in=list(run_ids))
    for run in runs.select_related("pipeline__workspace", "started_by"):
        dropped += _drop_staging_tables(run)
    return dropped


def _drop_staging_tables(run: Run) -> list[str]:
    """The staging tables the run's `sql_output` nodes left, dropped (none to look for: no
    connection made)."""
    if not any(node.get("operator") == "sql_output" for node in run.document.get("nodes", [])):
        return []
    access = engine_access(run.pipeline.workspace, run.started_by)
    try:
        plan = build_plan(
            load_document(run.document), run.parameters or {}, data_root=access["data_root"]
        )
    except PipewrightError:  # its operators are gone, say: nothing can be found of it
        return []
    return drop_staging_tables(plan, run.pk, **access)
