"""Pipeline parameters: `${name}` placeholders in node params, filled in before validation.

A run value beats the pipeline's default. A string that is exactly `${name}` takes the value
with its type; inside a longer string the value is written as text. Inside an expression field
the value becomes a literal of the expression language (a string is quoted), never raw text,
so a parameter cannot change what an expression means. Verbatim fields (SQL text) are never
touched: their values are bound by the database driver instead.
"""

from __future__ import annotations

import json
import re
import types
import typing
from typing import Any

from pydantic import BaseModel

from runtime.document.fields import EXPRESSION, VERBATIM, FieldKind, field_kind
from runtime.errors import Problem

PLACEHOLDER = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")


def resolve_values(defaults: dict[str, Any], overrides: dict[str, Any] | None) -> dict[str, Any]:
    """The values a run uses: its own values over the pipeline's defaults."""
    return {**defaults, **(overrides or {})}


def parse_cli_value(text: str) -> Any:
    """A `--param` value: JSON when it parses (numbers, true, null, lists), else the string."""
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return text


def parse_cli_pair(pair: str) -> tuple[str, Any]:
    """`("n", 5)` from a `--param n=5` option; ValueError if it is not NAME=VALUE."""
    name, separator, value = pair.partition("=")
    if not separator or not name:
        raise ValueError(f"--param expects NAME=VALUE, got '{pair}'")
    return name, parse_cli_value(value)


def substitute(
    params: dict, model: type[BaseModel], values: dict[str, Any], *, node: str
) -> tuple[dict, list[Problem]]:
    """Fill the placeholders in a node's raw params; return the new params and the problems."""
    problems: list[Problem] = []
    result = _substitute_object(params, model, values, node, "", problems)
    return result, problems


def _substitute_object(raw, model, values, node, prefix, problems):
    if not isinstance(raw, dict):
        return raw
    fields = model.model_fields if model else {}
    result = {}
    for key, value in raw.items():
        field = fields.get(key)
        kind = field_kind(field.metadata) if field else None
        nested = _nested_model(field.annotation) if field else None
        result[key] = _substitute_value(
            value, kind, nested, values, node, f"{prefix}{key}", problems
        )
    return result


def _substitute_value(value, kind, nested, values, node, path, problems):
    if kind is VERBATIM:
        return value
    if isinstance(value, str):
        return _substitute_text(value, kind, values, node, path, problems)
    if isinstance(value, list):
        return [
            _substitute_value(item, kind, nested, values, node, f"{path}[{index}]", problems)
            for index, item in enumerate(value)
        ]
    if isinstance(value, dict):
        if nested is not None:
            return _substitute_object(value, nested, values, node, f"{path}.", problems)
        return {
            key: _substitute_value(item, kind, None, values, node, f"{path}.{key}", problems)
            for key, item in value.items()
        }
    return value


def _substitute_text(text, kind: FieldKind | None, values, node, path, problems):
    if "${" not in text:
        return text
    missing = [name for name in PLACEHOLDER.findall(text) if name not in values]
    for name in missing:
        known = ", ".join(sorted(values)) or "none are declared"
        problems.append(
            Problem(
                f"unknown parameter '${{{name}}}'; declare it in the pipeline's parameters "
                f"(known: {known})",
                node=node,
                field=path,
                code="unknown_parameter",
            )
        )
    if missing:
        return text
    if kind is EXPRESSION:
        return _substitute_expression(text, values, node, path, problems)
    whole = PLACEHOLDER.fullmatch(text)
    if whole:
        return values[whole[1]]
    return PLACEHOLDER.sub(lambda match: placeholder_text(values[match[1]]), text)


def _substitute_expression(text, values, node, path, problems):
    from runtime.expressions import ExpressionError, literal

    try:
        return PLACEHOLDER.sub(lambda match: literal(values[match[1]]), text)
    except ExpressionError as error:
        problems.append(Problem(str(error), node=node, field=path, code="invalid_parameter"))
        return text


def placeholder_text(value) -> str:
    """A parameter's value as it reads inside a longer text: a string as is, else as JSON."""
    if isinstance(value, str):
        return value
    return json.dumps(value)


def _nested_model(annotation) -> type[BaseModel] | None:
    """The pydantic model inside `Model`, `list[Model]`, `Model | None` and the like."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    origin = typing.get_origin(annotation)
    if origin is None:
        return None
    if origin is typing.Annotated:
        return _nested_model(typing.get_args(annotation)[0])
    if origin in (list, tuple, typing.Union, types.UnionType):
        for arg in typing.get_args(annotation):
            model = _nested_model(arg)
            if model is not None:
                return model
    return None
