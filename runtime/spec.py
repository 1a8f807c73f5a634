"""The pipeline document: the one format for export, import, the API body and run snapshots.

Pydantic models define it and publish its JSON Schema. `load_document` turns JSON into a
`Pipeline` (migrating older format versions, refusing newer ones) with problems that name the
node and field; `dump_document` is the only serialiser, stable so that git diffs stay small.
What a node's `params` mean is the operator's business (see `runtime.graph`), not this module's.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from runtime import json_text
from runtime.errors import PipelineValidationError, Problem

FORMAT = "pipewright.pipeline"
FORMAT_VERSION = 1
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

MIGRATIONS: dict[int, Callable[[dict], dict]] = {}
"""`MIGRATIONS[n]` turns a format-`n` document (a dict) into a format-`n + 1` one."""

JsonValue = Any
LogLevel = Literal["debug", "info", "warning", "error"]


NodeId = Annotated[str, Field(pattern=NODE_ID_PATTERN, max_length=NODE_ID_MAX_LENGTH)]
PortName = Annotated[str, Field(max_length=PORT_MAX_LENGTH)]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)


class Position(_Strict):
    """Where the node sits on the editor's canvas."""

    x: float = 0.0
    y: float = 0.0


class Node(_Strict):
    """One operator instance in the graph."""

    id: NodeId
    operator: Annotated[str, Field(min_length=1, max_length=OPERATOR_MAX_LENGTH)]
    label: Annotated[str, Field(max_length=LABEL_MAX_LENGTH)] = ""
    params: dict[str, JsonValue] = Field(default_factory=dict)
    position: Position = Field(default_factory=Position)
    retries: Annotated[int | None, Field(ge=0, le=100)] = None
    timeout_s: Annotated[float | None, Field(gt=0)] = None


class Edge(_Strict):
    """Data flows from an output port of `source` to an input port of `target`."""

    source: Annotated[str, Field(max_length=NODE_ID_MAX_LENGTH)]
    source_port: PortName = "out"
    target: Annotated[str, Field(max_length=NODE_ID_MAX_LENGTH)]
    target_port: PortName = "in"

    def sort_key(self) -> tuple[str, str, str, str]:
        return (self.source, self.source_port, self.target, self.target_port)


class Config(_Strict):
    """How a pipeline runs; machine-independent, so exports do not depend on the machine."""

    max_concurrency: Annotated[int | None, Field(ge=1, le=1024)] = None
    stop_on_error: bool = True
    retries: Annotated[int, Field(ge=0, le=100)] = 0
    retry_delay_s: Annotated[float, Field(ge=0)] = 1.0
    timeout_s: Annotated[float | None, Field(gt=0)] = None
    log_level: LogLevel = "info"
    parameters: dict[Annotated[str, Field(pattern=r"^[A-Za-z_][A-Za-z0-9_]*$")], JsonValue] = Field(
        default_factory=dict
    )


class Pipeline(_Strict):
    """A whole pipeline document."""

    format: Literal["pipewright.pipeline"] = FORMAT
    version: Literal[1] = FORMAT_VERSION
    name: Annotated[str, Field(min_length=1, max_length=NAME_MAX_LENGTH)]
    description: str = ""
    config: Config = Field(default_factory=Config)
    nodes: list[Node] = Field(default_factory=list, max_length=MAX_NODES)
    edges: list[Edge] = Field(default_factory=list, max_length=MAX_EDGES)

    def node(self, node_id: str) -> Node | None:
        return next((node for node in self.nodes if node.id == node_id), None)


def json_schema() -> dict:
    """The JSON Schema of the pipeline document."""
    schema = Pipeline.model_json_schema()
    schema["$id"] = "https://pipewright.dev/schema/pipeline-v1.json"
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
        return Pipeline.model_validate(data)
    except ValidationError as error:
        raise PipelineValidationError(problems_from_validation(error, data)) from error


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
    """Turn pydantic's errors into problems located at a node id and a dotted field."""
    problems = []
    nodes = data.get("nodes") if isinstance(data.get("nodes"), list) else []
    for item in error.errors():
        location = list(item["loc"])
        node = None
        if len(location) >= 2 and location[0] == "nodes" and isinstance(location[1], int):
            raw = nodes[location[1]] if location[1] < len(nodes) else None
            node_id = raw.get("id") if isinstance(raw, dict) else None
            node = node_id if isinstance(node_id, str) and node_id else f"nodes[{location[1]}]"
            location = location[2:]
        field = ".".join(str(part) for part in location) or None
        problems.append(Problem(_message(item), node=node, field=field))
    return problems


def _message(item: dict) -> str:
    if item["type"] == "extra_forbidden":
        return "unknown field; remove it or check its spelling"
    if item["type"] == "missing":
        return "required field is missing"
    if item["type"] == "string_pattern_mismatch" and item["loc"][-1] == "id":
        return "a node id starts with a letter or _ and holds only letters, digits, _ and -"
    return str(item["msg"])


def to_json_dict(pipeline: Pipeline) -> dict:
    """The document as plain JSON data, nodes sorted by id and edges by their four ends."""
    data = pipeline.model_dump(mode="json")
    data["nodes"] = sorted(data["nodes"], key=lambda node: node["id"])
    data["edges"] = [
        edge.model_dump(mode="json") for edge in sorted(pipeline.edges, key=Edge.sort_key)
    ]
    return data


def dump_document(pipeline: Pipeline) -> str:
    """Serialise a document: the same pipeline always gives the same bytes."""
    return json.dumps(to_json_dict(pipeline), indent=2, sort_keys=True, ensure_ascii=False) + "\n"
