"""The contract every operator honours, as a mixin run against each one.

A test class sets `operator_cls`, valid `params`, sample `inputs` (port → DataFrame, a list
for a `many` port), optionally `files` to place under the data root, and `bad_params` (params
→ the message a user reads). The mixin checks that the params schema is complete enough to
draw a form, that `output_schema` predicts what `run` produces, and that bad params are
refused by validation with a clear message naming the field.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import ClassVar

import pandas as pd
import pytest

from runtime.document.spec import load_document
from runtime.errors import PipelineValidationError
from runtime.operators.context import NodeContext
from runtime.operators.contract import Operator
from runtime.operators.registry import Registry
from runtime.plan import build_plan
from runtime.tables.schema import Schema, schema_of


def make_ctx(operator: Operator, params: dict, data_root: Path, **options) -> NodeContext:
    """A context as the executor builds it, for calling an operator directly."""
    return NodeContext(
        "node", operator.Params.model_validate(params), data_root=data_root, **options
    )


def input_schemas(operator: Operator, inputs: dict) -> dict:
    schemas = {}
    for port in operator.inputs:
        value = inputs.get(port.name)
        if isinstance(value, list):
            schemas[port.name] = [schema_of(frame) for frame in value]
        else:
            schemas[port.name] = None if value is None else schema_of(value)
    return schemas


def assert_schema_predicts(predicted: Schema, frame: pd.DataFrame) -> None:
    actual = schema_of(frame)
    assert predicted.names == actual.names
    for column in actual.columns:
        expected = predicted.get(column.name)
        assert expected.type == column.type, (
            f"column {column.name}: {expected.type} != {column.type}"
        )
        if column.nullable:
            assert expected.nullable, (
                f"column {column.name} holds nulls but is declared not nullable"
            )


class OperatorContract:
    operator_cls: ClassVar[type[Operator] | None] = None
    params: ClassVar[dict] = {}
    inputs: ClassVar[dict] = {}
    files: ClassVar[dict[str, str | bytes]] = {}
    bad_params: ClassVar[list[tuple[dict, str]]] = []

    @pytest.fixture
    def data_root(self, tmp_path) -> Path:
        for name, content in self.files.items():
            path = tmp_path / name
            path.parent.mkdir(parents=True, exist_ok=True)
            if isinstance(content, bytes):
                path.write_bytes(content)
            else:
                path.write_text(content, encoding="utf-8")
        return tmp_path

    @property
    def operator(self) -> Operator:
        return self.operator_cls()

    def test_catalog_entry_is_complete(self):
        entry = self.operator.describe()
        assert re.fullmatch(r"[a-z][a-z0-9_]*", entry["name"])
        assert entry["kind"] in ("input", "process", "output")
        assert entry["title"] and entry["description"]
        if entry["kind"] == "input":
            assert entry["inputs"] == []
        if entry["kind"] == "output":
            assert entry["outputs"] == []

    def test_every_param_has_a_title_description_and_default_or_is_required(self):
        schema = self.operator.Params.model_json_schema()
        required = set(schema.get("required", []))
        for name, field in schema.get("properties", {}).items():
            assert field.get("title"), f"{name} has no title"
            assert field.get("description"), f"{name} has no description"
            assert name in required or "default" in field, f"{name} has no default"

    def test_output_schema_predicts_what_run_produces(self, data_root):
        operator = self.operator
        ctx = make_ctx(operator, self.params, data_root)
        predicted = operator.output_schema(ctx, input_schemas(operator, self.inputs))
        outputs = operator.run(make_ctx(operator, self.params, data_root), dict(self.inputs))
        ports = operator.ports(ctx.params).outputs
        assert set(predicted) == {port.name for port in ports} == set(outputs)
        for port, frame in outputs.items():
            assert_schema_predicts(predicted[port], frame)

    def test_bad_params_are_refused_with_a_message_naming_the_field(self):
        for params, message in self.bad_params:
            doc = load_document(
                {
                    "name": "t",
                    "nodes": [{"id": "node", "operator": self.operator.name, "params": params}],
                }
            )
            with pytest.raises(PipelineValidationError) as raised:
                build_plan(doc, registry=Registry([self.operator_cls]))
            lines = [
                f"{problem.location()}: {problem.message}"
                for problem in raised.value.problems
                if (problem.field or "").startswith("params")
            ]
            assert any(re.search(message, line) for line in lines), (message, lines)
