"""Pydantic's errors as `Problem`s, in the words and field titles the editor's forms show.

This is the one place that reads pydantic errors: the document loader, the params check, the
API's request bodies and its query errors all call `validation_problems`. Each problem keeps
the dotted path the editor locates fields by (`params.group_by.0`) and says in its message the
field as titled in the JSON Schema, list items numbered from 1 ("Group by, item 1: must not
be empty"), with a short phrase instead of pydantic's own text ("String should have at least
1 character"). The errors of a union's branches at one field become one problem.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterable
from typing import Any

from pydantic import BaseModel

from runtime.errors import Problem, TextPosition

_KINDS = {
    "string": "text",
    "integer": "a whole number",
    "number": "a number",
    "boolean": "true or false",
    "null": "empty",
    "array": "a list",
    "object": "an object",
}

_WORDS: dict[str, Callable[[dict], str]] = {
    "missing": lambda ctx: "required",
    "extra_forbidden": lambda ctx: "unknown field; remove it or check its spelling",
    "string_type": lambda ctx: "must be text",
    "string_too_short": lambda ctx: _at_least(ctx["min_length"], "character"),
    "string_too_long": lambda ctx: f"must be at most {_count(ctx['max_length'], 'character')}",
    "string_pattern_mismatch": lambda ctx: f"must match the pattern {ctx['pattern']}",
    "too_short": lambda ctx: _at_least(ctx["min_length"], "item"),
    "too_long": lambda ctx: (
        f"must have at most {_count(ctx['max_length'], 'item')}, not {ctx['actual_length']}"
    ),
    "int_type": lambda ctx: "must be a whole number",
    "int_parsing": lambda ctx: "must be a whole number",
    "int_from_float": lambda ctx: "must be a whole number",
    "float_type": lambda ctx: "must be a number",
    "float_parsing": lambda ctx: "must be a number",
    "finite_number": lambda ctx: "must be a finite number",
    "bool_type": lambda ctx: "must be true or false",
    "bool_parsing": lambda ctx: "must be true or false",
    "list_type": lambda ctx: "must be a list",
    "dict_type": lambda ctx: "must be an object",
    "model_type": lambda ctx: "must be an object",
    "model_attributes_type": lambda ctx: "must be an object",
    "literal_error": lambda ctx: f"must be one of {ctx['expected']}",
    "enum": lambda ctx: f"must be one of {ctx['expected']}",
    "greater_than": lambda ctx: f"must be greater than {_number(ctx['gt'])}",
    "greater_than_equal": lambda ctx: f"must be at least {_number(ctx['ge'])}",
    "less_than": lambda ctx: f"must be less than {_number(ctx['lt'])}",
    "less_than_equal": lambda ctx: f"must be at most {_number(ctx['le'])}",
    "union_tag_invalid": lambda ctx: (
        f"{ctx['discriminator']} must be one of {ctx['expected_tags']}"
    ),
    "union_tag_not_found": lambda ctx: f"{ctx['discriminator']} is required",
    "value_error": lambda ctx: str(ctx["error"]),
    "assertion_error": lambda ctx: str(ctx["error"]),
}
"""Pydantic error types in words; any other type keeps pydantic's message."""


def validation_problems(
    errors: Iterable[dict],
    model: type[BaseModel] | None = None,
    *,
    node: str | None = None,
    prefix: str = "",
    code: str = "invalid",
    words: dict[str, str] | None = None,
) -> list[Problem]:
    """One problem per field in pydantic's `errors` (as `ValidationError.errors()` lists them).

    `model` gives the titles (else they come from the field names); `prefix` is put before
    each field path (`params`); `words` overrides the phrase for some error types.
    """
    schema = _schema(model) if model is not None else {}
    found: dict[str, tuple[str, list[str], list[TextPosition]]] = {}
    for item in errors:
        path, title = _locate(schema, list(item["loc"]))
        field = ".".join([prefix, *path] if prefix else path)
        phrase = (words or {}).get(item.get("type")) or _phrase(item)
        title, phrases, positions = found.setdefault(field, (title, [], []))
        phrases.append(phrase)
        positions.extend(_positions(item))
    return [
        Problem(
            f"{title}: {_joined(phrases)}" if title else _joined(phrases),
            node=node,
            field=field or None,
            code=code,
            field_title=title or None,
            position=positions[0] if positions else None,
        )
        for field, (title, phrases, positions) in found.items()
    ]


def _positions(item: dict) -> list[TextPosition]:
    """Where in the field's text the error is, when its validator said (an expression's)."""
    position = getattr((item.get("ctx") or {}).get("error"), "position", None)
    return [position] if isinstance(position, TextPosition) else []


def field_title(model: type[BaseModel], field: str) -> str:
    """The title of `model`'s field at `field` (`mappings[1].expression`, `group_by.0`)."""
    parts = [int(part) if part.isdigit() else part for part in re.split(r"[.\[\]]+", field)]
    return _locate(_schema(model), [part for part in parts if part != ""])[1]


def _phrase(item: dict) -> str:
    wording = _WORDS.get(item.get("type"))
    ctx = item.get("ctx") or {}
    try:
        return wording(ctx) if wording else str(item["msg"])
    except KeyError:
        return str(item["msg"])


def _joined(phrases: list[str]) -> str:
    """The phrases of one field: a union's `must be X`, `must be Y` read `must be X or Y`."""
    unique = list(dict.fromkeys(phrases))
    if len(unique) > 1 and all(phrase.startswith("must be ") for phrase in unique):
        kinds = [phrase.removeprefix("must be ") for phrase in unique]
        return f"must be {', '.join(kinds[:-1])} or {kinds[-1]}"
    return unique[0]


def _at_least(minimum: int, noun: str) -> str:
    return "must not be empty" if minimum == 1 else f"must have at least {_count(minimum, noun)}"


def _number(value) -> str:
    """`0.0` as `0`, `2.5` as `2.5`."""
    return str(int(value)) if isinstance(value, float) and value.is_integer() else str(value)


def _count(number: int, noun: str) -> str:
    return f"{number} {noun}" if number == 1 else f"{number} {noun}s"


def _locate(root: dict, location: list) -> tuple[list[str], str]:
    """The dotted path parts of a pydantic location and the field's title as a form shows it."""
    path: list[str] = []
    titles: list[str] = []
    schema: dict | None = root
    for part in location:
        options = _options(root, schema)
        if isinstance(part, int):
            path.append(str(part))
            titles.append(f"item {part + 1}")
            schema = next((option["items"] for option in options if "items" in option), None)
        elif (branch := _tagged(root, options, part)) is not None:
            path.append(part)  # the tag of a tagged union's branch: in the path, not the title
            schema = branch
        elif part == "[key]":
            path.append(part)
            titles[-1:] = [f"the name '{titles[-1]}'" if titles else "a name"]
            schema = None
        elif (found := _property(options, part)) is not None:
            path.append(part)
            titles.append(found.get("title") or _titled(part))
            schema = found
        elif len(options) > 1 or any("anyOf" in option for option in options):
            continue  # the tag of a union's branch: not a field the user sees
        else:  # a key of a free-form object, or a field the model does not know: as written
            path.append(str(part))
            titles.append(str(part))
            schema = _values(options)
    return path, ", ".join(titles)


def _options(root: dict, schema: dict | None) -> list[dict]:
    """`schema` with its `$ref` followed and its `anyOf` branches listed, nulls left out."""
    if not schema:
        return []
    if "$ref" in schema:
        schema = root.get("$defs", {}).get(schema["$ref"].rsplit("/", 1)[-1], {})
    branches = schema.get("anyOf") or schema.get("allOf")
    if branches:
        return [
            option
            for branch in branches
            if branch.get("type") != "null"
            for option in _options(root, branch)
        ]
    return [schema]


def _tagged(root: dict, options: list[dict], tag) -> dict | None:
    """The branch of a tagged union (`oneOf` with a discriminator) that `tag` names."""
    for option in options:
        target = option.get("discriminator", {}).get("mapping", {}).get(tag)
        if target:
            return {"$ref": target}
    return None


def _property(options: list[dict], name) -> dict | None:
    for option in options:
        if name in option.get("properties", {}):
            return option["properties"][name]
    return None


def _values(options: list[dict]) -> dict | None:
    """The schema of a free-form object's values."""
    for option in options:
        values = option.get("additionalProperties") or next(
            iter(option.get("patternProperties", {}).values()), None
        )
        if isinstance(values, dict):
            return values
    return None


def _titled(name: str) -> str:
    """A title for a field without one: `group_by` → `Group by`."""
    return name.replace("_", " ").capitalize()


@functools.cache
def _schema(model: type[BaseModel]) -> dict[str, Any]:
    return model.model_json_schema()
