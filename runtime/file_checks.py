"""File paths in node params checked against the file area before anything runs.

A path that leads out of the data root (or writes into a read-only shared folder) is then a
problem of its field at design time and when a run is validated, not a node failing mid-run.
Only the path is resolved here; whether the file exists is for the operator to say.
"""

from __future__ import annotations

from pydantic import BaseModel

from runtime.contract import Operator
from runtime.errors import Problem, UnsafePathError
from runtime.paths import FileArea


def path_problems(node_id: str, operator: Operator, params: BaseModel, area: FileArea):
    """A problem for each path field (`format: "path"`) of `params` that `area` refuses."""
    problems = []
    for name, field in type(params).model_fields.items():
        value = getattr(params, name)
        if (field.json_schema_extra or {}).get("format") != "path" or not isinstance(value, str):
            continue
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
