"""File paths in node params checked against the file area before anything runs.

A path that leads out of the data root (or writes into a read-only shared folder) is then a
problem of its field at design time and when a run is validated, not a node failing mid-run.
Only the path is resolved here; whether the file exists is for the operator to say.
"""

from __future__ import annotations

from collections.abc import Iterator

from pydantic import BaseModel
from pydantic.fields import FieldInfo

from runtime.errors import Problem, UnsafePathError
from runtime.operator import Operator
from runtime.paths import FileArea


def path_fields(params: BaseModel) -> Iterator[tuple[str, FieldInfo, str]]:
    """Each path field (`format: "path"`) of `params` that holds a path: name, field, value."""
    for name, field in type(params).model_fields.items():
        value = getattr(params, name)
        if (field.json_schema_extra or {}).get("format") == "path" and isinstance(value, str):
            yield name, field, value


def input_bytes(operator: Operator, params: BaseModel, area: FileArea) -> int:
    """How many bytes an input node's files hold (0 for other nodes and missing files)."""
    if operator.kind != "input":
        return 0
    total = 0
    for _, _, value in path_fields(params):
        try:
            total += area.resolve(value).stat().st_size
        except (OSError, UnsafePathError):
            continue  # the node itself reports a missing or refused file
    return total


def path_problems(node_id: str, operator: Operator, params: BaseModel, area: FileArea):
    """A problem for each path field (`format: "path"`) of `params` that `area` refuses."""
    problems = []
    for name, field, value in path_fields(params):
        try:
            area.resolve(value, write=operator.kind == "output")
        except UnsafePathError as error:
            title = field.title or name
            problems.append(
                Problem(
                    f"{title}: {error}",
                    node=node_id,
                    field=f"params.{name}",
                    code="unsafe_path",
                    field_title=title,
                )
            )
    return problems
