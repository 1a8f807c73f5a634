"""File paths in node params checked against the file area before anything runs.

A path that leads out of the data root (or writes into a read-only shared folder) is then a
problem of its field at design time and when a run is validated, not a node failing mid-run.
Only the path is resolved here, and whether one file exists is for the operator to say; but
an input's folder or pattern that names no file (or too many) is a problem of its field too.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import PurePosixPath

from pydantic import BaseModel
from pydantic.fields import FieldInfo

from runtime.document.fields import file_endings
from runtime.errors import OperatorError, Problem, UnsafePathError
from runtime.io.file_patterns import InputFile, input_files, is_pattern
from runtime.io.paths import FileArea
from runtime.operators.contract import Operator


def path_fields(params: BaseModel) -> Iterator[tuple[str, FieldInfo, str]]:
    """Each path field (`format: "path"`) of `params` that holds a path: name, field, value."""
    for name, field in type(params).model_fields.items():
        value = getattr(params, name)
        if (field.json_schema_extra or {}).get("format") == "path" and isinstance(value, str):
            yield name, field, value


def named_files(field: FieldInfo, value: str, area: FileArea) -> list[InputFile]:
    """The files a path field's `value` names: one, or those of a folder or a pattern when the
    field allows it; raises as `input_files` does."""
    endings = file_endings(field.metadata)
    if endings is None:
        return [InputFile(value, area.resolve(value))]
    return input_files(area, value, endings)


def input_bytes(operator: Operator, params: BaseModel, area: FileArea) -> int:
    """How many bytes an input node's files hold (0 for other nodes and missing files)."""
    if operator.kind != "input":
        return 0
    total = 0
    for _, field, value in path_fields(params):
        try:
            total += sum(file.location.stat().st_size for file in named_files(field, value, area))
        except (OSError, OperatorError):
            continue  # the node itself reports a missing or refused file
    return total


def path_problems(node_id: str, operator: Operator, params: BaseModel, area: FileArea):
    """A problem for each path field (`format: "path"`) of `params` that `area` refuses, and
    for each folder or pattern of an input that names no file or too many."""
    problems = []
    for name, field, value in path_fields(params):
        try:
            _check(field, value, area, write=operator.kind == "output")
        except OperatorError as error:
            title = field.title or name
            problems.append(
                Problem(
                    f"{title}: {error}",
                    node=node_id,
                    field=f"params.{name}",
                    code="unsafe_path" if isinstance(error, UnsafePathError) else "input_files",
                    field_title=title,
                )
            )
    return problems


def _check(field: FieldInfo, value: str, area: FileArea, *, write: bool) -> None:
    if write:
        _refuse_hidden(value)
    several = file_endings(field.metadata) is not None
    if several and (is_pattern(value) or area.resolve(value).is_dir()):
        named_files(field, value, area)
    else:
        area.resolve(value, write=write)


def _refuse_hidden(path: str) -> None:
    """Refuse an output whose file or folder name starts with '.': file listings hide such
    names (`.pipewright` is the system's), so it could never be listed, downloaded or deleted."""
    parts = PurePosixPath(path.replace("\\", "/")).parts
    if any(part.startswith(".") and part != ".." for part in parts):
        raise UnsafePathError(
            f"path '{path}' names a file or folder that starts with '.', which the Files page "
            "hides; give it a name that does not start with '.'"
        )
