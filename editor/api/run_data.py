"""A run's node results: a page of rows and per-column statistics, for the editor's Data tab.

A stored port is read from its Parquet file by `runtime.results.pages` (DuckDB in a session
that reads only that file, with a memory and a time limit); at most `READERS` such reads run
at once in this web process, and a request that waits `READER_WAIT_S` for one answers 429. A
port the run did not store, or whose result the store evicted, is recomputed by a preview of
the run's own document and parameters, in a job's process (`editor.runs.jobs`, with its
limits): only its first `RECOMPUTED_ROWS` rows, paged here, and neither sorted, filtered nor
summarised (that needs the whole result); so is a stored one on request (`recompute`), to
see the columns the run did not keep. The preview starts from the run's nearest stored results
that the workspace's store still holds (`recomputed_from` names them) and reads input files
only above those. Every answer says its `source`; a stored one names the port's columns that
the run did not keep (`missing_columns`: nothing after the node read them), a recomputed one
the run options that keep it whole (`kept_by`: a run up to its node).
"""

from __future__ import annotations

import threading
from contextlib import contextmanager
from typing import Annotated

from ninja import Router
from pydantic import Field

from editor.api.schemas.contract import ObjectId, Offset, answers
from editor.api.schemas.run_data import DataPage, DataStats
from editor.errors import ActionError
from editor.runs import jobs
from editor.runs.results import (
    PortResult,
    changed_inputs,
    missing_columns,
    port_result,
    stored_results,
)
from editor.workspaces.membership import data_root, engine_access
from editor.workspaces.permissions import run_for
from runtime.execution.preview import MAX_LIMIT as RECOMPUTED_ROWS
from runtime.io.paths import SCRATCH
from runtime.results import pages
from runtime.results.pages import ResultQueryError, ResultTimeout

router = Router()
PageRows = Annotated[int, Field(ge=1, le=pages.MAX_LIMIT, description="Rows per page, 1 to 1,000.")]

READERS = 2
"""Stored results read at once in this web process (each with `result_pages.BUDGET`)."""
READER_WAIT_S = 5.0
_readers = threading.BoundedSemaphore(READERS)


@router.get(
    "/{int:run_id}/nodes/{node}/data",
    response=answers({200: DataPage}, 400, 404, 429),
    summary="A page of a node's result",
)
def node_data(
    request,
    run_id: ObjectId,
    node: str,
    port: str | None = None,
    offset: Offset = 0,
    limit: PageRows = 100,
    sort: str | None = None,
    filter: str | None = None,
    recompute: bool = False,
):
    """Rows `offset` … `offset + limit` (at most 1,000) of the node's result at `port`, sorted
    by `sort` (a column; `-column` descending) and kept where `filter` (an expression) holds;
    `recompute`: recomputed even when stored (its first rows, with the columns the run did not
    keep)."""
    result = port_result(run_for(request.user, run_id), node, port)
    if result.path is not None and not recompute:
        with _reader(result):
            found = _read(result, lambda: pages.page(
                result.path, offset, limit, sort, filter, spill_root=_spill_root()
            ))  # fmt: skip
        return {
            **_about(result, "stored"),
            **found.to_json(),
            "missing_columns": missing_columns(result),
        }
    _refuse_on_recomputed(result, sort=sort, filter=filter)
    rows, columns, start, read = [], [], [], None
    if offset < RECOMPUTED_ROWS:
        preview = jobs.preview(
            result.document, node, min(offset + limit, RECOMPUTED_ROWS),
            port=result.port, parameters=result.run.parameters,
            results=stored_results(result.run),
            **engine_access(result.run.pipeline.workspace, request.user),
        )  # fmt: skip
        rows, columns = preview["rows"][offset : offset + limit], preview["columns"]
        total, start, read = (
            preview["total_rows"],
            preview["read_from_store"],
            preview["inputs_read"],
        )
    else:
        total = None
    return {
        **_about(result, "recomputed"),
        "columns": [{"name": item["name"], "type": item["type"]} for item in columns],
        "rows": rows,
        "total_rows": total,
        "offset": offset,
        "limit": limit,
        "recomputed_rows": RECOMPUTED_ROWS,
        "recomputed_from": start,
        "changed_inputs": changed_inputs(result, request.user, read),
        "kept_by": {"up_to": result.node},
    }


@router.get(
    "/{int:run_id}/nodes/{node}/stats",
    response=answers({200: DataStats}, 400, 404, 429),
    summary="Per-column statistics of a node's result",
)
def node_stats(request, run_id: ObjectId, node: str, port: str | None = None,
               filter: str | None = None):  # fmt: skip
    """Each column's count, nulls, distinct values, min, max and a small histogram, over the
    rows of the stored result where `filter` holds."""
    result = port_result(run_for(request.user, run_id), node, port)
    if result.path is None:
        _refuse_on_recomputed(result, stats=True)
    with _reader(result):
        found = _read(result, lambda: pages.stats(result.path, filter, spill_root=_spill_root()))
    return {**_about(result, "stored"), "columns": [item.to_json() for item in found]}


def _about(result: PortResult, source: str) -> dict:
    return {
        "run": result.run.pk,
        "node": result.node,
        "port": result.port,
        "source": source,
        "cached": result.cached,
    }


def _refuse_on_recomputed(result: PortResult, *, sort=None, filter=None, stats=False) -> None:
    """Sorting, filtering and statistics need the whole result: a recomputed one has only its
    first rows."""
    if result.path is not None:
        why, advice = "is recomputed on request", "read the stored one to sort or filter it"
    else:
        why = (
            "was evicted from the result store" if result.recorded else "was not stored by the run"
        )
        # a run up to the node stores its result with every column, and serves it whole
        advice = f"run up to '{result.node}' (\"Run up to here\" in its panel) to keep it whole"
    for field, asked in (("sort", sort), ("filter", filter), ("stats", stats)):
        if asked:
            raise ActionError(
                422, "result_not_stored",
                f"the result of node '{result.node}' at port '{result.port}' {why}; only its "
                f"first {RECOMPUTED_ROWS:,} rows can be recomputed, unsorted and unfiltered, "
                f"and without statistics; {advice}",
                node=result.node, field=field,
            )  # fmt: skip


def _read(result: PortResult, read):
    """`read()`'s answer; its refusals as 400 (422 past the time limit) naming the field."""
    try:
        return read()
    except ResultTimeout as error:
        raise ActionError(422, "result_timeout", str(error), node=result.node) from error
    except ResultQueryError as error:
        raise ActionError(400, "invalid_request", str(error), node=result.node,
                          field=error.field) from error  # fmt: skip


@contextmanager
def _reader(result: PortResult):
    """One of the `READERS` slots for the block, or 429 after `READER_WAIT_S`."""
    if not _readers.acquire(timeout=READER_WAIT_S):
        raise ActionError(
            429, "results_busy",
            f"reading the result of node '{result.node}' waited {READER_WAIT_S:g} s: "
            f"{READERS} results are being read already; try again in a moment",
            node=result.node,
        )  # fmt: skip
    try:
        yield
    finally:
        _readers.release()


def _spill_root():
    """Where a large sort spills: the runs' scratch folder, outside every workspace."""
    folder = data_root() / SCRATCH
    folder.mkdir(parents=True, exist_ok=True)
    return folder
