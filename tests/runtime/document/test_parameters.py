"""Pipeline parameters: `${name}` filled in before validation, safely inside expressions."""

from __future__ import annotations

import pytest
from pydantic import BaseModel

from runtime.document.fields import Expression, VerbatimText
from runtime.document.parameters import parse_cli_value
from runtime.document.spec import load_document
from runtime.errors import PipelineValidationError
from runtime.operators.contract import Operator, OperatorParams
from runtime.operators.registry import Registry
from runtime.plan import build_plan


class Mapping(BaseModel):
    target: str
    expression: Expression


class ProbeParams(OperatorParams):
    path: str = ""
    limit: int = 0
    enabled: bool = False
    condition: Expression = "true"
    query: VerbatimText = ""
    mappings: list[Mapping] = []
    extra: dict = {}


class Probe(Operator):
    name, kind, title, inputs = "probe", "input", "Probe", ()
    Params = ProbeParams


def params_after(params: dict, defaults: dict, run_values: dict | None = None) -> ProbeParams:
    doc = load_document(
        {
            "name": "p",
            "config": {"parameters": defaults},
            "nodes": [{"id": "probe", "operator": "probe", "params": params}],
        }
    )
    return build_plan(doc, run_values, registry=Registry([Probe])).nodes["probe"].params


def test_a_whole_placeholder_keeps_the_value_type():
    params = params_after({"limit": "${n}", "enabled": "${on}"}, {"n": 5, "on": True})
    assert params.limit == 5 and params.enabled is True


def test_a_placeholder_inside_text_is_written_as_text():
    params = params_after({"path": "exports/${day}/users-${n}.csv"}, {"day": "2026-11-30", "n": 3})
    assert params.path == "exports/2026-11-30/users-3.csv"


def test_a_run_value_beats_the_pipeline_default():
    assert params_after({"limit": "${n}"}, {"n": 5}, {"n": 9}).limit == 9


def test_inside_an_expression_a_string_parameter_becomes_a_quoted_literal():
    hostile = "FR') or (1 = 1"
    params = params_after({"condition": "country = ${c}"}, {"c": hostile})
    assert params.condition == "country = 'FR\\') or (1 = 1'"


def test_inside_an_expression_numbers_and_null_become_literals():
    params = params_after(
        {"condition": "age > ${min} and x is not ${nothing}"}, {"min": 18, "nothing": None}
    )
    assert params.condition == "age > 18 and x is not null"


def test_expressions_nested_in_lists_of_models_are_substituted_as_literals():
    params = params_after(
        {"mappings": [{"target": "${col}", "expression": "concat(name, ${suffix})"}]},
        {"col": "label", "suffix": "-x"},
    )
    assert params.mappings[0].target == "label"
    assert params.mappings[0].expression == "concat(name, '-x')"


def test_sql_text_is_never_substituted():
    params = params_after({"query": "select * from t where a = '${a}'"}, {"a": "1"})
    assert params.query == "select * from t where a = '${a}'"


def test_an_unknown_placeholder_names_the_node_and_field():
    with pytest.raises(PipelineValidationError) as raised:
        params_after({"mappings": [{"target": "t", "expression": "${nope} + 1"}]}, {"n": 1})
    assert [str(p) for p in raised.value.problems] == [
        "probe.mappings[0].expression: unknown parameter '${nope}'; declare it in the "
        "pipeline's parameters (known: n)"
    ]


def test_a_run_value_for_an_undeclared_parameter_is_refused():
    with pytest.raises(
        PipelineValidationError, match=r"parameters\.typo: unknown parameter 'typo'"
    ):
        params_after({}, {"n": 1}, {"typo": 2})


def test_a_list_value_cannot_become_an_expression_literal():
    with pytest.raises(PipelineValidationError, match=r"probe\.condition: "):
        params_after({"condition": "x = ${v}"}, {"v": [1, 2]})


def test_substituted_values_are_validated_like_typed_params():
    with pytest.raises(PipelineValidationError, match=r"^probe: Limit: must be a whole number$"):
        params_after({"limit": "${n}"}, {"n": "many"})


@pytest.mark.parametrize(
    ("text", "value"),
    [("42", 42), ("2.5", 2.5), ("true", True), ("null", None), ('"x"', "x"), ("FR", "FR"),
     ("[1, 2]", [1, 2]), ("2026-11-30", "2026-11-30")],
)  # fmt: skip
def test_cli_values_parse_as_json_else_stay_strings(text, value):
    assert parse_cli_value(text) == value
