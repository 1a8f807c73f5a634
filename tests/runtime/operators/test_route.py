"""`route`: each row goes to the port of the condition it meets (the first, or all), the rest
to `otherwise`; its ports follow its conditions."""

from __future__ import annotations

import pandas as pd
import pytest

from runtime.errors import OperatorError
from runtime.operators.contract import OperatorParams
from runtime.operators.route import Route
from runtime.tables.schema import Column, Schema
from tests.runtime.operators.contract import OperatorContract, make_ctx

PEOPLE = pd.DataFrame(
    {
        "name": ["ana", "bo", "cy", "dee", "eve"],
        "age": pd.array([12, 30, None, 70, 45], dtype="Int64"),
        "country": ["FR", "DE", "FR", "US", None],
    }
)
TWO = [
    {"name": "adults", "condition": "age >= 18"},
    {"name": "french", "condition": "country = 'FR'"},
]


class TestRouteContract(OperatorContract):
    operator_cls = Route
    params = {"conditions": TWO}
    inputs = {"in": PEOPLE}
    bad_params = [
        ({}, r"params\.conditions: Conditions: required"),
        ({"conditions": []}, r"params\.conditions: Conditions: must not be empty"),
        (
            {"conditions": [{"name": "otherwise", "condition": "age > 1"}]},
            r"params\.conditions\.0\.name: Conditions, item 1, Port: 'otherwise' is the port",
        ),
        (
            {"conditions": [TWO[0], {"name": "adults", "condition": "age < 3"}]},
            r"params\.conditions: Conditions: two conditions are named 'adults'; give each",
        ),
        (
            {"conditions": [{"name": "a b", "condition": "age > 1"}]},
            r"params\.conditions\.0\.name: Conditions, item 1, Port: must start with a letter",
        ),
        (
            {"conditions": [{"name": "a", "condition": "__import__('os')"}]},
            r"params\.conditions\.0\.condition: Conditions, item 1, Condition: unknown function",
        ),
        (
            {"conditions": [TWO[0]], "mode": "some"},
            r"params\.mode: Rows go to: must be one of 'first' or 'all'",
        ),
    ]


def run(conditions, mode="first", frame=PEOPLE) -> dict[str, list]:
    operator = Route()
    params = {"conditions": conditions, "mode": mode}
    outputs = operator.run(make_ctx(operator, params, "."), {"in": frame})
    return {port: out["name"].tolist() for port, out in outputs.items()}


def test_first_mode_sends_each_row_to_the_first_condition_it_meets():
    assert run(TWO) == {
        "adults": ["bo", "dee", "eve"],
        "french": ["ana", "cy"],
        "otherwise": [],
    }


def test_all_mode_sends_a_row_to_every_condition_it_meets():
    assert run(TWO, mode="all") == {
        "adults": ["bo", "dee", "eve"],
        "french": ["ana", "cy"],
        "otherwise": [],
    }
    overlapping = [TWO[0], {"name": "old", "condition": "age > 40"}]
    assert run(overlapping, mode="all") == {
        "adults": ["bo", "dee", "eve"],
        "old": ["dee", "eve"],
        "otherwise": ["ana", "cy"],
    }
    assert run(overlapping)["old"] == []


def test_a_null_condition_counts_as_false_and_its_row_goes_to_otherwise():
    result = run([{"name": "known", "condition": "age > 0 and country != 'XX'"}])
    assert result == {"known": ["ana", "bo", "dee"], "otherwise": ["cy", "eve"]}


def test_an_empty_input_gives_an_empty_frame_on_every_port_with_the_input_columns():
    empty = PEOPLE.iloc[0:0]
    operator = Route()
    outputs = operator.run(make_ctx(operator, {"conditions": TWO}, "."), {"in": empty})
    assert set(outputs) == {"adults", "french", "otherwise"}
    assert all(list(frame.columns) == list(PEOPLE.columns) for frame in outputs.values())
    assert all(frame.empty for frame in outputs.values())


def test_unicode_port_and_column_names_route_rows():
    frame = pd.DataFrame({"âge": [5, 50], "name": ["petit", "grand"]})
    result = run([{"name": "âgés_été", "condition": "`âge` > 18"}], frame=frame)
    assert result == {"âgés_été": ["grand"], "otherwise": ["petit"]}


def test_its_ports_follow_its_conditions_in_order_then_otherwise():
    operator = Route()
    params = operator.Params.model_validate({"conditions": list(reversed(TWO))})
    assert [port.name for port in operator.ports(params).outputs] == [
        "french",
        "adults",
        "otherwise",
    ]
    assert [port.name for port in operator.ports(None).outputs] == ["otherwise"]
    assert operator.describe()["outputs_from"] == {
        "param": "conditions",
        "key": "name",
        "after": ["otherwise"],
    }


def test_every_port_has_the_input_schema():
    schema = Schema.of(Column("age", "integer"), Column("country", "string"))
    operator = Route()
    ctx = make_ctx(operator, {"conditions": TWO}, ".")
    assert operator.output_schema(ctx, {"in": schema}) == {
        "adults": schema,
        "french": schema,
        "otherwise": schema,
    }


def test_a_condition_naming_a_missing_column_names_its_field():
    operator = Route()
    conditions = [TWO[0], {"name": "b", "condition": "agee > 1"}]
    ctx = make_ctx(operator, {"conditions": conditions}, ".")
    schema = Schema.of(Column("age", "integer"))
    with pytest.raises(OperatorError, match=r"conditions\.1\.condition: unknown column 'agee'"):
        operator.output_schema(ctx, {"in": schema})


@pytest.mark.parametrize(
    "name",
    ["", "1st", "a.b", "a-b", "x" * 101, "a\nb", "${x}", "<script>", "a'b", "ot\u0000her"],
    ids=["empty", "digit", "dot", "dash", "long", "newline", "template", "html", "quote", "nul"],
)
def test_hostile_port_names_are_refused(name):
    with pytest.raises(ValueError, match="name"):
        Route.Params.model_validate({"conditions": [{"name": name, "condition": "age > 1"}]})


def test_more_conditions_than_the_limit_are_refused():
    many = [{"name": f"c{i}", "condition": "age > 1"} for i in range(101)]
    with pytest.raises(ValueError, match="at most 100"):
        Route.Params.model_validate({"conditions": many})


def test_declared_ports_serve_when_params_are_not_valid_yet():
    assert isinstance(Route.Params.model_validate({"conditions": TWO}), OperatorParams)
    assert [port.name for port in Route().ports(None).inputs] == ["in"]
