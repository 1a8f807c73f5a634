"""Pinning a node's output: from a run's stored result, from rows edited by hand, or from an
uploaded CSV or Parquet sample; and unpinning.

Every way ends the same: a Parquet file in the pipeline's pins folder
(`<data root>/.pipewright/pins/<pipeline id>/`, never reachable by a file operator), refused
with 413 `pin_too_large` past `PIPEWRIGHT_MAX_PIN_BYTES` before any row is saved, and the
`Pin` row saying where it came from. A run started from the editor reads the pipeline's pins
(`run_pins`); the runtime's pin pass does the rest (runtime/plan/pins.py).
"""

from __future__ import annotations

import shutil
import time
import uuid
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
from django.conf import settings
from django.db import transaction
from django.utils import timezone

from editor.errors import ActionError
from editor.models import Pin, Pipeline, Run
from editor.pipelines.documents import to_document
from editor.runs.results import port_result
from editor.workspaces.membership import data_root, system_folder
from runtime import default_registry
from runtime.execution.statuses import RunStatus
from runtime.io.paths import SYSTEM

PINS = Path(SYSTEM, "pins")
CHUNK = 2**20
EXPANSION = 8
"""How many times its size a Parquet upload may hold once uncompressed: past that, it is
refused before it is read (a small file of a billion identical values)."""
LEFT_BEHIND_AFTER_S = 60
"""A file of the pins folder that no pin holds and no run ever read is taken as left behind
once this old; a younger one may be a pin being made (its row not yet committed)."""


def pins_folder() -> Path:
    """`<data root>/.pipewright/pins/`, inside the private system folder."""
    system_folder()
    folder = data_root() / PINS
    folder.mkdir(exist_ok=True)
    return folder


def pipeline_folder(pipeline_id: int) -> Path:
    return data_root() / PINS / str(pipeline_id)


def run_pins(pipeline: Pipeline, document) -> dict[str, str]:
    """The pipeline's pins of the nodes `document` (a run's snapshot) has: node → pin file,
    relative to the pins folder (what `Run.pins` records)."""
    known = {node.id for node in document.nodes}
    return {pin.node_id: pin.file for pin in pipeline.pins.all() if pin.node_id in known}


def pin_paths(pins: Mapping[str, str]) -> dict[str, str]:
    """The absolute files of `pins` (node → file, as `run_pins` gives), for `RunOptions.pins`."""
    return {node: str(data_root() / PINS / file) for node, file in pins.items()}


def pin_from_run(pipeline: Pipeline, user, node: str, run: Run) -> Pin:
    """Pin `node` to what `run` (of this pipeline) stored of its output; 409 `not_stored` when
    the run did not store it (inside a fused segment, or evicted since)."""
    _pinnable(pipeline, node)
    if run.pipeline_id != pipeline.pk:
        raise ActionError(400, "invalid_request", "the run is not of this pipeline", field="run")
    result = port_result(run, node, None)
    if result.path is None or not result.path.is_file():
        raise ActionError(
            409, "not_stored", f"run #{run.number} did not store the output of '{node}': run "
            "up to this node, then pin it", node=node,
        )  # fmt: skip
    _refuse_size(result.path.stat().st_size)
    with _new_file(pipeline) as target:
        shutil.copyfile(result.path, target)
        return _keep(pipeline, user, node, target, f"run #{run.number}")


def pin_from_rows(pipeline: Pipeline, user, node: str, rows: list[dict]) -> Pin:
    """Pin `node` to rows given as JSON objects (the Data tab's edited rows)."""
    _pinnable(pipeline, node)
    try:
        table = pa.Table.from_pylist(rows)
    except (pa.ArrowException, TypeError, ValueError) as error:
        raise ActionError(
            400, "invalid_rows", f"the rows do not make a table: {error}", field="rows"
        ) from error
    with _new_file(pipeline) as target:
        pq.write_table(table, target)
        return _keep(pipeline, user, node, target, "rows edited by hand")


def pin_from_upload(pipeline: Pipeline, user, node: str, upload) -> Pin:
    """Pin `node` to an uploaded `.csv` or `.parquet` file's rows."""
    _pinnable(pipeline, node)
    _refuse_size(upload.size)
    name = Path(upload.name or "").name
    suffix = Path(name).suffix.lower()
    if suffix not in (".csv", ".parquet"):
        raise ActionError(400, "invalid_file", "upload a .csv or .parquet file", field="file")
    with _new_file(pipeline) as target:
        sent = target.with_suffix(suffix + ".upload")
        try:
            with sent.open("wb") as out:
                for chunk in upload.chunks(CHUNK):
                    out.write(chunk)
            _as_parquet(sent, suffix, target)
        finally:
            sent.unlink(missing_ok=True)
        return _keep(pipeline, user, node, target, f"file {name[:200]}")


def unpin(pipeline: Pipeline, node: str) -> None:
    """Remove the pin of `node` (404 `no_pin` when it has none); its file goes once this
    commits (`editor.signals`)."""
    deleted, _ = Pin.objects.filter(pipeline=pipeline, node_id=node).delete()
    if not deleted:
        raise ActionError(404, "no_pin", f"node '{node}' is not pinned", node=node)


def _pinnable(pipeline: Pipeline, node: str) -> None:
    """400 unless the saved pipeline has `node` and it passes rows on (not an output)."""
    spec = to_document(pipeline).node(node)
    if spec is None:
        raise ActionError(400, "invalid_request", f"the pipeline has no node '{node}'",
                          node=node, field="node")  # fmt: skip
    operator = default_registry().get(spec.operator)
    if operator is not None and operator.kind == "output":
        raise ActionError(400, "invalid_request", f"'{node}' writes rows out: it has no output "
                          "to pin", node=node, field="node")  # fmt: skip


def _refuse_size(size: int) -> None:
    limit = settings.PIPEWRIGHT_MAX_PIN_BYTES
    if size > limit:
        raise ActionError(
            413, "pin_too_large", f"the pin would be {size:,} bytes; the limit is {limit:,} "
            "(PIPEWRIGHT_MAX_PIN_MB)",
        )  # fmt: skip


@contextmanager
def _new_file(pipeline: Pipeline) -> Iterator[Path]:
    """A fresh file name in the pipeline's pins folder, removed if the pin is not made."""
    folder = pins_folder() / str(pipeline.pk)
    folder.mkdir(exist_ok=True)
    path = folder / f"{uuid.uuid4().hex}.parquet"
    try:
        yield path
    except BaseException:
        path.unlink(missing_ok=True)
        raise


def _as_parquet(sent: Path, suffix: str, target: Path) -> None:
    """The uploaded file as Parquet at `target`, or a 400 saying it cannot be read."""
    import pyarrow.csv as pacsv

    try:
        if suffix == ".csv":
            pq.write_table(pacsv.read_csv(sent), target)
            return
        metadata = pq.read_metadata(sent)
        unpacked = sum(
            metadata.row_group(i).total_byte_size for i in range(metadata.num_row_groups)
        )
        if unpacked > EXPANSION * settings.PIPEWRIGHT_MAX_PIN_BYTES:
            raise ActionError(413, "pin_too_large", f"the file holds {unpacked:,} bytes "
                              "uncompressed: too many for a pin")  # fmt: skip
        shutil.copyfile(sent, target)
    except (pa.ArrowException, OSError) as error:
        raise ActionError(
            400, "invalid_file", f"the file cannot be read as {suffix[1:]}: {error}", field="file"
        ) from error


def _keep(pipeline: Pipeline, user, node: str, target: Path, source: str) -> Pin:
    """The pin of `node` to the Parquet file `target` (it replaces an older one), or 413 when
    the file is over the limit (and it is removed)."""
    size = target.stat().st_size
    try:
        _refuse_size(size)
        metadata = pq.read_metadata(target)
    except (ActionError, pa.ArrowException, OSError):
        target.unlink(missing_ok=True)
        raise
    with transaction.atomic():
        old = Pin.objects.select_for_update().filter(pipeline=pipeline, node_id=node).first()
        fields = {
            "file": target.relative_to(pins_folder()).as_posix(),
            "source": source,
            "rows": metadata.num_rows,
            "columns": metadata.schema.to_arrow_schema().names,
            "size_bytes": size,
            "created_by": user,
            "created_at": timezone.now(),
        }
        pin, _ = Pin.objects.update_or_create(pipeline=pipeline, node_id=node, defaults=fields)
        if old is not None and old.file != pin.file:
            transaction.on_commit(lambda: release(pipeline.pk, old.file))
    return pin


def release(pipeline_id: int, file: str) -> None:
    """`file` (relative to the pins folder) is no pin's any more: delete it, unless a queued or
    running run of the pipeline reads it (`Run.pins`); such a file goes at a later release
    that finds no run reading it, with any other file of the pipeline's left so."""
    folder = pipeline_folder(pipeline_id)
    runs = Run.objects.filter(pipeline_id=pipeline_id).exclude(pins={})
    reading = _files_of(runs.filter(status__in=RunStatus.ACTIVE))
    held = reading | set(Pin.objects.filter(pipeline_id=pipeline_id).values_list("file", flat=True))
    ended_runs_read = _files_of(runs.exclude(status__in=RunStatus.ACTIVE)) | {file}
    settled = time.time() - LEFT_BEHIND_AFTER_S
    for path in folder.glob("*.parquet") if folder.is_dir() else ():
        name = path.relative_to(folder.parent).as_posix()
        if name not in held and (name in ended_runs_read or path.stat().st_mtime < settled):
            path.unlink(missing_ok=True)


def _files_of(runs) -> set[str]:
    """The pin files `runs` record (`Run.pins`: node → file)."""
    return {name for pins in runs.values_list("pins", flat=True) for name in (pins or {}).values()}
