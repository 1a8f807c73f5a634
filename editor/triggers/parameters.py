"""Which of an event's fields fill which of the run's parameters, by declared names only, each
value checked against the type of the parameter's declared default."""

from __future__ import annotations

import re

from runtime import Problem

FILE_FIELDS = {"path": str, "name": str}
"""A file event's fields: the path under the workspace folder, and the file's name."""
UPSTREAM_FIELDS = {"run_id": int, "run_number": int, "pipeline_id": int}
"""An upstream event's fields: the succeeded run's id and number, and its pipeline's id."""
WEBHOOK_FIELD = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,63}$")
"""A webhook event's fields are the top-level keys of its JSON body with names like these."""


def _type_name(value) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    return "list" if isinstance(value, list) else "object"


def _accepts(default, value) -> bool:
    """Whether `value` fits a parameter declared with `default` (a number takes an integer;
    a parameter declared null or a list or an object takes any value)."""
    wanted, given = _type_name(default), _type_name(value)
    if wanted in ("null", "list", "object"):
        return True
    return given == wanted or (wanted == "number" and given == "integer")


def mapping_problems(kind: str, mapping: dict, declared: dict) -> list[Problem]:
    """What is wrong with a trigger's `mapping` (parameter → event field) for a pipeline
    declaring `declared` (name → default): unknown parameters, unknown fields, and a field
    whose type the parameter does not take."""
    known = {"file": FILE_FIELDS, "upstream": UPSTREAM_FIELDS}.get(kind)
    problems = []
    for name, field in mapping.items():
        where = f"parameters.{name}"
        if name not in declared:
            names = ", ".join(sorted(declared)) or "none"
            problems.append(
                Problem(f"unknown parameter '{name}'; the pipeline declares: {names}", field=where)
            )
        elif not isinstance(field, str) or not WEBHOOK_FIELD.match(field):
            problems.append(Problem("give the name of one of the event's fields", field=where))
        elif known is not None and field not in known:
            fields = ", ".join(known)
            problems.append(
                Problem(f"a {kind} event has no field '{field}'; it has: {fields}", field=where)
            )
        elif known is not None and not _accepts(declared[name], known[field]()):
            problems.append(_type_problem(name, declared[name], field, known[field]()))
    return problems


def _a(value) -> str:
    """`a string`, `an integer`: the value's JSON type with its article."""
    name = _type_name(value)
    return f"an {name}" if name[0] in "aeiou" else f"a {name}"


def _type_problem(name: str, default, field: str, value) -> Problem:
    return Problem(
        f"parameter '{name}' is declared {_a(default)}; the event's '{field}' is {_a(value)}",
        field=f"parameters.{name}",
    )


def fill(mapping: dict, fields: dict, declared: dict) -> tuple[dict, list[Problem]]:
    """The run's parameters from the event's `fields`, and the problems of the values (a field
    the event lacks, or of a type the parameter does not take); parameters not mapped keep
    their defaults."""
    values, problems = {}, []
    for name, field in mapping.items():
        if field not in fields:
            problems.append(Problem(f"the event has no field '{field}'", field=f"body.{field}"))
        elif name in declared and not _accepts(declared[name], fields[field]):
            problems.append(_type_problem(name, declared[name], field, fields[field]))
        else:
            values[name] = fields[field]
    return values, problems
