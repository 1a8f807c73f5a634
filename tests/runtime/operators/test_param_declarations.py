"""What every built-in operator declares for the editor besides its params: which params name
columns or hold expressions (and of which input port), and the one-line summary of its cards."""

from __future__ import annotations

import re
from typing import Annotated

import pytest

from runtime.operators import BUILTIN_OPERATORS
from runtime.operators.column_params import ColumnOf, ExpressionOver, column_names
from runtime.operators.contract import Operator, OperatorParams
from runtime.operators.registry import default_registry

COLUMN_PARAMS = {
    "aggregate": {"group_by[]": "in", "aggregations[].column": "in"},
    "broadcast": {"columns[]": "value"},
    "cast": {"types{}": "in"},
    "deduplicate": {"columns[]": "in"},
    "drop_nulls": {"columns[]": "in"},
    "fill_nulls": {"values{}": "in"},
    "for_each": {"group_by[]": "*"},
    "join": {"left_on[]": "left", "right_on[]": "right"},
    "pivot": {"index[]": "in", "column": "in", "value": "in"},
    "select": {"columns[]": "in", "rename{}": "in"},
    "sort": {"by[].column": "in"},
    "sql_output": {"keys[]": "in"},
    "unpivot": {"index[]": "in", "columns[]": "in"},
    "validate": {"rules[].column": "in", "rules[].columns[]": "in"},
    "window": {"partition_by[]": "in", "order_by[].column": "in", "functions[].column": "in"},
}
"""Every param that names columns of an input, as `field[]` (a list's items), `field{}` (a
mapping's keys) and `field[].part` (a part of each item), with the port it reads."""

VIEWS = {"join": {"joined"}}
"""The rows an operator's expressions read that are no input port's (`Operator.views`)."""

FIRST_INPUT = {"for_each": {"*"}}
"""Operators whose input ports come from their params: `*` names the first of them (the
editor's column picker reads that port's columns)."""

EXPRESSION_PARAMS = {
    "aggregate": {"aggregations[].expression": "in", "aggregations[].where": "in"},
    "filter": {"condition": "in"},
    "join": {"condition": "joined"},
    "route": {"conditions[].condition": "in"},
    "transform": {"mappings[].expression": "in"},
}


def _marked(schema: dict, root: dict, path: str, found: dict[str, dict]) -> None:
    """Collects the schemas carrying an `x-port` below `schema`, by their path."""
    if "$ref" in schema:
        schema = root["$defs"][schema["$ref"].rsplit("/", 1)[-1]]
    if "x-port" in schema:
        found[path] = schema
    for branch in schema.get("anyOf", []) + schema.get("oneOf", []):
        _marked(branch, root, path, found)
    for name, child in schema.get("properties", {}).items():
        _marked(child, root, f"{path}.{name}" if path else name, found)
    if isinstance(schema.get("items"), dict):
        _marked(schema["items"], root, f"{path}[]", found)
    if isinstance(schema.get("propertyNames"), dict):
        _marked(schema["propertyNames"], root, f"{path}{{}}", found)


def _declared(entry: dict, format_name: str) -> dict[str, str]:
    found: dict[str, dict] = {}
    _marked(entry["params_schema"], entry["params_schema"], "", found)
    return {
        path: schema["x-port"] for path, schema in found.items() if schema["format"] == format_name
    }


CATALOG = {entry["name"]: entry for entry in default_registry().catalog()}


@pytest.mark.parametrize("name", sorted(BUILTIN_OPERATORS))
def test_every_param_naming_columns_declares_the_port_it_reads(name):
    assert _declared(CATALOG[name], "column") == COLUMN_PARAMS.get(name, {})


@pytest.mark.parametrize("name", sorted(BUILTIN_OPERATORS))
def test_every_expression_param_declares_the_port_it_reads(name):
    assert _declared(CATALOG[name], "expression") == EXPRESSION_PARAMS.get(name, {})


@pytest.mark.parametrize("name", sorted(BUILTIN_OPERATORS))
def test_every_declared_port_is_an_input_port_of_its_operator(name):
    ports = {port["name"] for port in CATALOG[name]["inputs"]} | VIEWS.get(name, set())
    ports |= FIRST_INPUT.get(name, set())
    declared = {**_declared(CATALOG[name], "column"), **_declared(CATALOG[name], "expression")}
    assert set(declared.values()) <= ports


def test_a_plugin_marks_its_own_column_and_expression_params():
    from runtime.document.fields import Expression

    class Params(OperatorParams):
        keys: column_names("lookup") = []
        key: Annotated[str, ColumnOf("lookup")] = "id"
        test: Annotated[Expression, ExpressionOver("main")] = "true"

    properties = Params.model_json_schema()["properties"]
    assert properties["keys"]["items"]["format"] == "column"
    assert properties["keys"]["items"]["x-port"] == "lookup"
    assert (properties["key"]["format"], properties["key"]["x-port"]) == ("column", "lookup")
    assert (properties["test"]["format"], properties["test"]["x-port"]) == ("expression", "main")
    assert Params(keys=["a"], key="b", test="a > 1").keys == ["a"]


PLACEHOLDER = re.compile(r"\{([a-z_]+)(?:\.([a-z_]+))?\}")


@pytest.mark.parametrize("name", sorted(BUILTIN_OPERATORS))
def test_every_operator_declares_a_summary_of_its_own_params(name):
    entry = CATALOG[name]
    assert entry["summary"].strip()
    schema = entry["params_schema"]
    for field, part in PLACEHOLDER.findall(entry["summary"]):
        assert field in schema.get("properties", {}), f"{name}: no param {field}"
        if part:
            assert part in re.findall(r'"([a-z_]+)": \{', str(schema).replace("'", '"'))


def test_an_operator_without_a_summary_serves_an_empty_one():
    class Bare(Operator):
        name = "bare"
        kind = "process"
        title = "Bare"

    assert Bare().describe()["summary"] == ""
