"""`join`'s semi and anti kinds and its `condition`: the columns they give, the checks before
anything runs (naming the node and the `condition` field, where in its text), the columns
each side must give for pruning, and filters moving past them."""

from __future__ import annotations

import pandas as pd
import pytest
from pydantic import ValidationError

from runtime.checks.inference import infer_schemas
from runtime.document.spec import load_document
from runtime.errors import ParamsError
from runtime.operators.combine import Join, JoinParams
from tests.runtime.operators.contract import (
    assert_schema_predicts,
    input_schemas,
    make_ctx,
)

ORDERS = pd.DataFrame(
    {
        "id": pd.array([10, 11, 12, 13], dtype="Int64"),
        "customer": pd.array([1, 2, 1, None], dtype="Int64"),
        "note": pd.array(["a", "b", "c", "d"], dtype="str"),
    }
)
CUSTOMERS = pd.DataFrame(
    {
        "customer": pd.array([1, 1, None], dtype="Int64"),
        "note": pd.array(["vip", "new", None], dtype="str"),
    }
)


def join(params: dict, left=ORDERS, right=CUSTOMERS) -> pd.DataFrame:
    operator = Join()
    inputs = {"left": left, "right": right}
    ctx = make_ctx(operator, params, ".")
    predicted = operator.output_schema(ctx, input_schemas(operator, inputs))["out"]
    out = operator.run(ctx, inputs)["out"]
    assert_schema_predicts(predicted, out)
    return out


def keys(**more) -> dict:
    return {"left_on": "customer", "right_on": "customer", **more}


def test_semi_gives_the_left_columns_and_rows_with_a_match_once_null_keys_matching():
    out = join(keys(how="semi"))
    assert list(out.columns) == ["id", "customer", "note"]
    assert out["id"].tolist() == [10, 12, 13]


def test_anti_gives_the_left_rows_without_a_match():
    assert join(keys(how="anti"))["id"].tolist() == [11]


def test_a_condition_reads_clashing_columns_by_their_suffixed_names():
    semi = join(keys(how="semi", condition="note_right = 'new' and note_left <> 'c'"))
    assert semi["id"].tolist() == [10]
    inner = join(keys(condition="note_right = 'vip'"))
    assert inner[["id", "note_left", "note_right"]].values.tolist() == [
        [10, "a", "vip"],
        [12, "c", "vip"],
    ]


def test_an_empty_side_gives_no_semi_rows_and_every_anti_row():
    assert join(keys(how="semi"), right=CUSTOMERS.iloc[:0]).empty
    assert join(keys(how="anti"), right=CUSTOMERS.iloc[:0])["id"].tolist() == [10, 11, 12, 13]
    assert join(keys(how="anti", condition="note_right = 'x'"), left=ORDERS.iloc[:0]).empty


def test_an_unknown_column_in_the_condition_is_a_problem_at_its_place_in_the_text():
    with pytest.raises(ParamsError, match="unknown column 'note'") as raised:
        join(keys(how="semi", condition="customer > 0 and note = 'a'"))
    assert raised.value.field == "condition"
    assert (raised.value.position.line, raised.value.position.column) == (1, 18)


def test_a_condition_that_is_not_true_or_false_is_refused():
    with pytest.raises(ParamsError, match="condition: must be true or false, but it gives a"):
        join(keys(how="inner", condition="id + 1"))


@pytest.mark.parametrize("how", ["right", "outer"])
def test_a_condition_on_a_right_or_outer_join_is_refused_naming_the_field(how):
    with pytest.raises(ValidationError, match="condition.*not " + how):
        JoinParams.model_validate(keys(how=how, condition="id > 1"))


def test_schema_inference_names_the_node_and_the_condition_field(tmp_path):
    document = load_document(
        {
            "name": "conditions",
            "nodes": [
                {"id": "o", "operator": "parquet_input", "params": {"path": "o.parquet"}},
                {"id": "c", "operator": "parquet_input", "params": {"path": "c.parquet"}},
                {"id": "j", "operator": "join", "params": keys(how="anti", condition="notes")},
            ],
            "edges": [
                {"source": "o", "target": "j", "target_port": "left"},
                {"source": "c", "target": "j", "target_port": "right"},
            ],
        }
    )
    ORDERS.to_parquet(tmp_path / "o.parquet")
    CUSTOMERS.to_parquet(tmp_path / "c.parquet")
    [problem] = infer_schemas(document, data_root=tmp_path).nodes["j"].problems
    assert (problem.node, problem.field) == ("j", "params.condition")
    assert "unknown column 'notes'" in problem.message and problem.position.column == 1


def test_the_editor_is_offered_the_joined_row_for_the_conditions_completion(tmp_path):
    document = load_document(
        {
            "name": "offered",
            "nodes": [
                {"id": "o", "operator": "parquet_input", "params": {"path": "o.parquet"}},
                {"id": "c", "operator": "parquet_input", "params": {"path": "c.parquet"}},
                {"id": "j", "operator": "join", "params": keys(how="semi", condition="nope")},
            ],
            "edges": [
                {"source": "o", "target": "j", "target_port": "left"},
                {"source": "c", "target": "j", "target_port": "right"},
            ],
        }
    )
    ORDERS.to_parquet(tmp_path / "o.parquet")
    CUSTOMERS.to_parquet(tmp_path / "c.parquet")
    node = infer_schemas(document, data_root=tmp_path).nodes["j"].to_json()
    assert [column["name"] for column in node["views"]["joined"]] == [
        "id", "customer", "note_left", "note_right"
    ]  # fmt: skip
    assert (
        Join.Params.model_json_schema()["properties"]["condition"]["anyOf"][0]["x-port"] == "joined"
    )


@pytest.mark.parametrize(
    ("params", "wanted", "left", "right"),
    [
        (keys(how="semi"), {"id"}, {"id", "customer"}, {"customer"}),
        (keys(how="anti", condition="note_right > 'a'"), None, None, {"customer", "note",
                                                                       "note_right"}),
        (keys(how="inner"), {"note_left"}, {"customer", "note", "note_left"},
         {"customer", "note", "note_left"}),
        (keys(how="left"), None, None, None),
    ],
)  # fmt: skip
def test_each_side_gives_the_keys_and_what_the_output_and_condition_read(
    params, wanted, left, right
):
    needed = Join().input_columns(JoinParams.model_validate(params), {"out": wanted})
    assert needed == {"left": left, "right": right}
