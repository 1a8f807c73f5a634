"""The pipeline document: the one format for export, import, the API body and run snapshots.

Pydantic models define it and publish its JSON Schema. `load_document` turns JSON into a
`Pipeline` (migrating older format versions, refusing newer ones) with problems that name the
node and field; `dump_document` is the only serialiser, stable so that git diffs stay small.
What a node's `params` mean is the operator's business (see `runtime.checks.analysis`), not
this module's.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Callable
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from runtime.document import json_text
from runtime.document.backend_names import Backend
from runtime.document.canvas_items import canvas_item_problems
from runtime.document.expectations import CHECK_KINDS, MAX_CHECKS, Check
from runtime.document.problems import validation_problems
from runtime.errors import PipelineValidationError, Problem

FORMAT = "pipewright.pipeline"
FORMAT_VERSION = 2
NODE_ID_PATTERN = r"^[A-Za-z_][A-Za-z0-9_-]*$"

# What every database backend stores: the editor's model columns use these same lengths.
NAME_MAX_LENGTH = 200
NODE_ID_MAX_LENGTH = 100
OPERATOR_MAX_LENGTH = 100
LABEL_MAX_LENGTH = 200
PORT_MAX_LENGTH = 100
# Far beyond any pipeline a person draws, and small enough to validate and save in a moment.
MAX_NODES = 5_000
MAX_EDGES = 10_000
NOTE_TEXT_MAX_LENGTH = 10_000
MAX_NOTES = 1_000
MAX_GROUPS = 1_000
MAX_SIZE = 100_000
"""The largest width or height of a note or group on the canvas, in pixels."""


def _from_version_1(data: dict) -> dict:
    """Version 2 only added fields with defaults (`config.backend`, `config.cache`, `notes`,
    `groups`, a note's `color`), so a version-1 document reads as a version-2 one as it is."""
    return dict(data)


MIGRATIONS: dict[int, Callable[[dict], dict]] = {1: _from_version_1}
"""`MIGRATIONS[n]` turns a format-`n` document (a dict) into a format-`n + 1` one."""

JsonValue = Any
LogLevel = Literal["debug", "info", "warning", "error"]
NoteColor = Literal["yellow", "blue", "green", "pink", "grey"]


Source = tuple[str, str]
"""An output port of a node, as an edge starts from it: (node id, port name)."""
NodeId = Annotated[str, Field(pattern=NODE_ID_PATTERN, max_length=NODE_ID_MAX_LENGTH)]
NodeReference = Annotated[str, Field(max_length=NODE_ID_MAX_LENGTH)]
"""A node id as an edge or a group names it: an unknown one is reported as such, not as a
malformed id."""
PortName = Annotated[str, Field(max_length=PORT_MAX_LENGTH)]
Size = Annotated[float, Field(gt=0, le=MAX_SIZE)]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)


class Position(_Strict):
    """Where the node sits on the editor's canvas."""

    x: float = Field(0.0, title="x")
    y: float = Field(0.0, title="y")


class Node(_Strict):
    """One operator instance in the graph."""

    id: NodeId = Field(title="Id")
    operator: Annotated[str, Field(min_length=1, max_length=OPERATOR_MAX_LENGTH)] = Field(
        title="Operator"
    )
    label: Annotated[str, Field(max_length=LABEL_MAX_LENGTH)] = Field("", title="Label")
    params: dict[str, JsonValue] = Field(default_factory=dict, title="Settings")
    position: Position = Field(default_factory=Position, title="Position")
    retries: Annotated[int | None, Field(ge=0, le=100)] = Field(None, title="Retries")
    timeout_s: Annotated[float | None, Field(gt=0)] = Field(None, title="Timeout (s)")
    expect: list[Check] = Field(
        default_factory=list,
        max_length=MAX_CHECKS,
        title="Checks",
        description="Data tests on the node's output ports (docs/data-tests.md).",
    )


class Edge(_Strict):
    """Data flows from an output port of `source` to an input port of `target`."""

    source: NodeReference = Field(title="Source")
    source_port: PortName = Field("out", title="Source port")
    target: NodeReference = Field(title="Target")
    target_port: PortName = Field("in", title="Target port")

    def sort_key(self) -> tuple[str, str, str, str]:
        return (self.source, self.source_port, self.target, self.target_port)


class Config(_Strict):
    """How a pipeline runs; machine-independent, so exports do not depend on the machine."""

    max_concurrency: Annotated[int | None, Field(ge=1, le=1024)] = Field(None, title="Concurrency")
    stop_on_error: bool = Field(True, title="Stop on error")
    retries: Annotated[int, Field(ge=0, le=100)] = Field(0, title="Retries")
    retry_delay_s: Annotated[float, Field(ge=0)] = Field(1.0, title="Retry delay (s)")
    timeout_s: Annotated[float | None, Field(gt=0)] = Field(None, title="Timeout (s)")
    log_level: LogLevel = Field("info", title="Log level")
    parameters: dict[Annotated[str, Field(pattern=r"^[A-Za-z_][A-Za-z0-9_]*$")], JsonValue] = Field(
        default_factory=dict, title="Parameters"
    )
    backend: Backend = Field(
        "auto",
        title="Backend",
        description="auto: the planner chooses for each segment; duckdb: every node that can "
        "run on DuckDB does; pandas: everything runs on pandas.",
    )
    cache: bool = Field(
        True,
        title="Reuse results",
        description="Reuse the stored results of nodes that did not change since a run.",
    )


class Note(_Strict):
    """A sticky note on the canvas (markdown); the runtime ignores it."""

    id: NodeId = Field(title="Id")
    text: Annotated[str, Field(max_length=NOTE_TEXT_MAX_LENGTH)] = Field("", title="Text")
    position: Position = Field(default_factory=Position, title="Position")
    width: Size | None = Field(None, title="Width")
    height: Size | None = Field(None, title="Height")
    color: NoteColor = Field("yellow", title="Colour")


class Group(_Strict):
    """A labelled frame around some nodes, which moves them with it; the runtime ignores it."""

    id: NodeId = Field(title="Id")
    label: Annotated[str, Field(max_length=LABEL_MAX_LENGTH)] = Field("", title="Label")
    position: Position = Field(default_factory=Position, title="Position")
    width: Size = Field(400.0, title="Width")
    height: Size = Field(300.0, title="Height")
    nodes: list[NodeReference] = Field(default_factory=list, max_length=MAX_NODES, title="Nodes")


class Pipeline(_Strict):
    """A whole pipeline document."""

    format: Literal["pipewright.pipeline"] = Field(FORMAT, title="Format")
    version: Literal[2] = Field(FORMAT_VERSION, title="Version")
    name: Annotated[str, Field(min_length=1, max_length=NAME_MAX_LENGTH)] = Field(title="Name")
    description: str = Field("", title="Description")
    config: Config = Field(default_factory=Config, title="Settings")
    nodes: list[Node] = Field(default_factory=list, max_length=MAX_NODES, title="Nodes")
    edges: list[Edge] = Field(default_factory=list, max_length=MAX_EDGES, title="Edges")
    notes: list[Note] = Field(default_factory=list, max_length=MAX_NOTES, title="Notes")
    groups: list[Group] = Field(default_factory=list, max_length=MAX_GROUPS, title="Groups")

    def node(self, node_id: str) -> Node | None:
        return next((node for node in self.nodes if node.id == node_id), None)


def json_schema() -> dict:
    """The JSON Schema of the pipeline document."""
    schema = Pipeline.model_json_schema()
    schema["$id"] = "https://pipewright.dev/schema/pipeline-v2.json"
    return schema


def load_document(data: str | bytes | dict) -> Pipeline:
    """Parse and validate a document; raise `PipelineValidationError` naming node and field."""
    try:
        if isinstance(data, str | bytes):
            data = json_text.loads(data)
        else:
            json_text.check(data)
    except json_text.JsonTextError as error:
        raise PipelineValidationError([Problem(error.reason, field=error.field)]) from error
    if not isinstance(data, dict):
        raise PipelineValidationError([Problem("a pipeline document must be a JSON object")])
    data = migrate(data)
    try:
        pipeline = Pipeline.model_validate(data)
    except ValidationError as error:
        problems = problems_from_validation(error, data)
        raise PipelineValidationError(problems, outline(data)) from error
    if problems := canvas_item_problems(pipeline):
        raise PipelineValidationError(problems, pipeline)
    return pipeline


def outline(data: dict) -> Pipeline:
    """The graph of a document that does not validate, as far as it does: each node with a
    valid id and operator, and each valid edge that joins no node left out."""
    nodes, left_out = [], set()
    for raw in _items(data, "nodes"):
        try:
            nodes.append(
                Node.model_validate({"id": raw.get("id"), "operator": raw.get("operator")})
            )
        except ValidationError:
            left_out.add(str(raw.get("id")))
    edges = []
    for raw in _items(data, "edges"):
        try:
            edge = Edge.model_validate(raw)
        except ValidationError:
            continue
        if edge.source not in left_out and edge.target not in left_out:
            edges.append(edge)
    return Pipeline.model_construct(name=str(data.get("name")), nodes=nodes, edges=edges)


def _items(data: dict, key: str) -> list[dict]:
    items = data.get(key)
    return [item for item in items if isinstance(item, dict)] if isinstance(items, list) else []


def migrate(data: dict) -> dict:
    """Bring an older format version up to the current one; refuse newer ones."""
    if data.get("format", FORMAT) != FORMAT:
        raise PipelineValidationError(
            [
                Problem(
                    f"not a Pipewright pipeline (format is {data.get('format')!r})", field="format"
                )
            ]
        )
    version = data.get("version", FORMAT_VERSION)
    known = isinstance(version, int) and not isinstance(version, bool)
    if not known or (version < FORMAT_VERSION and version not in MIGRATIONS):
        raise PipelineValidationError(
            [
                Problem(
                    f"unknown format version {version!r}; "
                    f"this Pipewright reads version {FORMAT_VERSION}",
                    field="version",
                )
            ]
        )
    if version > FORMAT_VERSION:
        raise PipelineValidationError(
            [
                Problem(
                    f"this document has format version {version}, but this Pipewright reads up "
                    f"to version {FORMAT_VERSION}; upgrade Pipewright to open it",
                    field="version",
                )
            ]
        )
    while version < FORMAT_VERSION:
        data = {**MIGRATIONS[version](data), "version": version + 1}
        version += 1
    return data


def problems_from_validation(error: ValidationError, data: dict) -> list[Problem]:
    """Pydantic's errors as problems, each at a node id (when in a node) and a dotted field.

    `error` may come from any model of the document: the admin checks a node or the settings
    on their own.
    """
    model = _MODELS.get(error.title, Pipeline)
    nodes = data.get("nodes") if isinstance(data.get("nodes"), list) else []
    located = [
        _in_node(item, nodes) if model is Pipeline else (None, item) for item in error.errors()
    ]
    return [
        problem
        for node, group in itertools.groupby(located, key=lambda pair: pair[0])
        for problem in validation_problems(
            [item for _, item in group],
            Node if node else model,
            node=node,
            words=_NODE_WORDS if node or model is Node else None,
        )
    ]


_MODELS = {model.__name__: model for model in (Pipeline, Config, Node, Edge, Position, Note, Group)}

_NODE_WORDS = {
    "string_pattern_mismatch": "must start with a letter or _ and hold only letters, digits, "
    "_ and -"
}
"""Within a node only its id has a pattern."""


def _in_node(item: dict, nodes: list) -> tuple[str | None, dict]:
    """The node an error is in (its id, else `nodes[i]`) and the error located in that node."""
    location = item["loc"]
    if len(location) < 2 or location[0] != "nodes" or not isinstance(location[1], int):
        return None, item
    raw = nodes[location[1]] if location[1] < len(nodes) else None
    node_id = raw.get("id") if isinstance(raw, dict) else None
    node = node_id if isinstance(node_id, str) and node_id else f"nodes[{location[1]}]"
    return node, {**item, "loc": _check_location(location[2:], item["type"])}


def _check_location(location: tuple, error_type: str) -> tuple:
    """Within a node's `expect`, a check's field as the document writes it (`expect.0.pattern`,
    not pydantic's `expect.0.matches.pattern`), and a kind it does not know at `check`."""
    if len(location) < 2 or location[0] != "expect":
        return location
    if len(location) == 2 and error_type.startswith("union_tag"):
        return (*location, "check")
    if len(location) > 2 and location[2] in CHECK_KINDS:
        return (*location[:2], *location[3:])
    return location


def to_json_dict(pipeline: Pipeline) -> dict:
    """The document as plain JSON data: nodes, notes and groups sorted by id (a group's nodes
    too), edges by their four ends."""
    data = pipeline.model_dump(mode="json")
    data["nodes"] = sorted(
        (_without_empty_checks(node) for node in data["nodes"]), key=lambda node: node["id"]
    )
    data["edges"] = [
        edge.model_dump(mode="json") for edge in sorted(pipeline.edges, key=Edge.sort_key)
    ]
    data["notes"] = sorted(data["notes"], key=lambda note: note["id"])
    data["groups"] = sorted(
        ({**group, "nodes": sorted(group["nodes"])} for group in data["groups"]),
        key=lambda group: group["id"],
    )
    return data


def _without_empty_checks(node: dict) -> dict:
    """A node without checks exports as it did before checks existed (small diffs)."""
    return {key: value for key, value in node.items() if key != "expect" or value}


def dump_document(pipeline: Pipeline) -> str:
    """Serialise a document: the same pipeline always gives the same bytes."""
    return json.dumps(to_json_dict(pipeline), indent=2, sort_keys=True, ensure_ascii=False) + "\n"
