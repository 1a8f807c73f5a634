"""Running a small pipeline of built-in operators twice: on pandas (each operator's `run`, the
reference) and on DuckDB (their `lower` relations through `run_segment`), and comparing.

A pipeline is a list of `Step`s, parents first; frames named in `frames` enter it from
outside (as `Input` relations on DuckDB). Equality: the same columns and pandas dtypes, the
same rows as multisets (or in the same order when `ordered`), floats within a relative 1e-9.
An output step writes its file under a folder of each backend's (`write_both_ways`); the two
files must read back alike, with pandas' readers and with the input operators.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from pathlib import Path

import duckdb
import pandas as pd

from runtime.backends.duckdb import run_segment
from runtime.backends.duckdb.render import Renderer
from runtime.backends.duckdb.segment import frame_table
from runtime.io.paths import FileArea
from runtime.operators.context import NodeContext
from runtime.operators.registry import default_registry
from runtime.relational import Input
from runtime.tables.schema import schema_of


@dataclass
class Step:
    id: str
    operator: str
    params: dict = field(default_factory=dict)
    inputs: dict[str, str | list[str]] = field(default_factory=dict)
    """Input port → the step (or frame) it reads; a list for a `many` port."""


def run_pandas(steps: list[Step], frames: dict[str, pd.DataFrame], root: Path):
    """Every step's output frame, and its output schema as `output_schema` predicts it."""
    outputs = dict(frames)
    schemas = {name: schema_of(frame) for name, frame in frames.items()}
    for step in steps:
        operator = default_registry().get(step.operator)
        ctx = NodeContext(step.id, operator.Params.model_validate(step.params), data_root=root)
        inputs = _resolved(step, outputs)
        schemas[step.id] = operator.output_schema(ctx, _resolved(step, schemas))["out"]
        outputs[step.id] = operator.run(ctx, inputs)["out"]
    return outputs, schemas


def lower_all(steps: list[Step], frames: dict[str, pd.DataFrame], schemas: dict):
    """The segment's members: each step's relation over its parents' (frames as `Input`s)."""
    relations = {name: Input((name, "out")) for name in frames}
    members = {}
    for step in steps:
        operator = default_registry().get(step.operator)
        params = operator.Params.model_validate(step.params)
        lowered = operator.lower(params, _resolved(step, relations), _resolved(step, schemas))
        relations[step.id] = lowered["out"]
        members[step.id] = lowered
    return members


def explained(steps: list[Step], frames: dict[str, pd.DataFrame], root: Path) -> list[dict]:
    """Every operator of DuckDB's plan (`EXPLAIN (FORMAT JSON)`, each with its `name`,
    `extra_info` and `children`) of the last step's query as the renderer renders it."""
    _, schemas = run_pandas(steps, frames, root)
    members = lower_all(steps, frames, schemas)
    renderer = Renderer(FileArea.of(root), lambda source: frame_table(frames[source[0]]))
    [rendered] = renderer.render([members[steps[-1].id]["out"]])
    sql, params = renderer.query.exit_sql(rendered)
    with duckdb.connect() as connection:
        for name, table in renderer.query.tables.items():
            connection.register(name, table)
        [(_, plan)] = connection.execute(f"EXPLAIN (FORMAT JSON) {sql}", params).fetchall()
    found, pending = [], json.loads(plan)
    while pending:
        node = pending.pop()
        pending += node.get("children", [])
        found.append(node)
    return found


def run_duckdb(steps, frames, schemas, root: Path, exits: list[str], **options):
    members = lower_all(steps, frames, schemas)
    sources = {(name, "out"): frame for name, frame in frames.items()}
    result = run_segment(
        members,
        [(exit, "out") for exit in exits],
        sources,
        files=root,
        spill_dir=options.pop("spill_dir", root.parent / f"{root.name}-spill"),
        **options,
    )
    return {node: frame for (node, _), frame in result.frames.items()}, result


def assert_same(steps, frames, root: Path, exits: list[str] | None = None, ordered=()):
    """Both backends give the same exits (`ordered`: in the same row order too)."""
    exits = exits or [steps[-1].id]
    expected, schemas = run_pandas(steps, frames, root)
    actual, _ = run_duckdb(steps, frames, schemas, root, exits)
    for exit in exits:
        assert_frames_match(actual[exit], expected[exit], ordered=exit in ordered)
    return actual


def assert_frames_match(actual: pd.DataFrame, expected: pd.DataFrame, *, ordered: bool) -> None:
    assert list(actual.columns) == list(expected.columns)
    assert [str(d) for d in actual.dtypes] == [str(d) for d in expected.dtypes]
    actual_rows, expected_rows = _rows(actual), _rows(expected)
    if not ordered:
        actual_rows, expected_rows = sorted(actual_rows, key=_key), sorted(expected_rows, key=_key)
    assert len(actual_rows) == len(expected_rows)
    for got, wanted in zip(actual_rows, expected_rows, strict=True):
        assert all(_same(a, b) for a, b in zip(got, wanted, strict=True)), (got, wanted)


def write_both_ways(steps: list[Step], write: Step, frames, root: Path, **options):
    """`write` (an output step reading the last step, or a frame when there are no steps) run
    after `steps` on each backend, each under its own folder of `root` (`existing`: a file
    already at the output path); the two files written, pandas' first, and DuckDB's result."""
    existing = options.pop("existing", None)
    folders = {backend: root / backend for backend in ("pandas", "duckdb")}
    for folder in folders.values():
        _place(write, folder, existing)
    on_pandas = write_on_pandas(steps, write, frames, folders["pandas"])
    on_duckdb, result = write_on_duckdb(steps, write, frames, folders["duckdb"], **options)
    return on_pandas, on_duckdb, result


def write_on_pandas(steps: list[Step], write: Step, frames, folder: Path) -> Path:
    """The file the output step `write` writes under `folder` after `steps`, on pandas."""
    operator, params = _output(write)
    outputs, _ = run_pandas(steps, frames, folder)
    [source] = write.inputs.values()
    operator.run(NodeContext(write.id, params, data_root=folder), {"in": outputs[source]})
    return folder / params.path


def write_on_duckdb(steps: list[Step], write: Step, frames, folder: Path, **options):
    """The same on DuckDB: the steps and the write in one segment; the file and the result."""
    operator, params = _output(write)
    _, schemas = run_pandas(steps, frames, folder.parent / f"{folder.name}-schemas")
    members = lower_all(steps, frames, schemas)
    relations = {name: Input((name, "out")) for name in frames}
    relations.update({step: ports["out"] for step, ports in members.items()})
    [source] = write.inputs.values()
    members[write.id] = operator.lower(params, {"in": relations[source]}, {"in": schemas[source]})
    sources = {(name, "out"): frame for name, frame in frames.items()}
    spill = options.pop("spill_dir", folder.parent / f"{folder.name}-spill")
    result = run_segment(members, [], sources, files=folder, spill_dir=spill, **options)
    return folder / params.path, result


def _output(write: Step):
    operator = default_registry().get(write.operator)
    return operator, operator.Params.model_validate(write.params)


def _place(write: Step, folder: Path, existing: bytes | None) -> None:
    """The output's folder, and the file already at its path (if any)."""
    path = folder / _output(write)[1].path
    path.parent.mkdir(parents=True, exist_ok=True)
    if existing is not None:
        path.write_bytes(existing)


def _resolved(step: Step, values: dict):
    return {
        port: [values[name] for name in source] if isinstance(source, list) else values[source]
        for port, source in step.inputs.items()
    }


def _rows(frame: pd.DataFrame) -> list[tuple]:
    return [
        tuple(None if _missing(value) else value for value in row)
        for row in frame.itertuples(index=False, name=None)
    ]


def _missing(value) -> bool:
    return (
        value is None
        or value is pd.NA
        or value is pd.NaT
        or (isinstance(value, float) and math.isnan(value))
    )


def _key(row: tuple) -> tuple:
    """A sort key for rows of mixed values: nulls first, floats rounded (compared approximately)."""
    return tuple(
        (0, "")
        if value is None
        else (1, f"{value:.6g}" if isinstance(value, float) else repr(value))
        for value in row
    )


def _same(a, b) -> bool:
    if a is None or b is None:
        return a is None and b is None
    if isinstance(a, float) or isinstance(b, float):
        return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12)
    return a == b
