"""Expressions refuse, before building it, text larger than a value or a column may hold.

The attack: `replace` nested three times, each turning `a` into ten of them, multiplies a
name's size by a thousand; on a few thousand rows one preview took the server from 0.7 to
3.3 GB. Every path that evaluates an expression (schema inference, which folds constants,
previews and runs) goes through the same function code, and each is tested here.
"""

from __future__ import annotations

import pandas as pd
import pytest

from runtime.checks.inference import infer_schemas
from runtime.document.spec import load_document
from runtime.errors import NodeExecutionError
from runtime.execution.executor import execute
from runtime.execution.preview import preview
from runtime.expressions import ExpressionError, evaluate, infer_type, sizes
from runtime.expressions.sizes import MAX_VALUE_BYTES, size_text
from runtime.plan import build_plan
from runtime.tables.schema import Column, Schema

TENFOLD = "'a', 'aaaaaaaaaa'"
BOMB = f"replace(replace(replace(name, {TENFOLD}), {TENFOLD}), {TENFOLD})"
"""Each `a` of `name` becomes a thousand: 200 of them on 3,000 rows make 572 MiB."""
ROWS = 3000
NAMES = pd.DataFrame({"name": pd.Series(["a" * 200] * ROWS, dtype="str")})
TOO_LARGE = r"replace: the result would be 572\.2 MiB, more than the 256 MiB a column may hold"


def folded_bomb(levels: int) -> str:
    """Nested replaces of a constant: folded once, when the expression is compiled."""
    text = "'aaaaaaaaaa'"
    for _ in range(levels):
        text = f"replace({text}, {TENFOLD})"
    return text


def test_nested_replaces_are_refused_before_the_column_is_built():
    with pytest.raises(ExpressionError, match=TOO_LARGE):
        evaluate(BOMB, NAMES)


def test_a_result_within_the_limits_is_built_exactly():
    doubled = evaluate("replace(replace(name, 'a', 'aa'), 'a', 'aa')", NAMES.head(3))
    assert doubled.tolist() == ["a" * 800] * 3


@pytest.mark.parametrize(
    ("expression", "message"),
    [
        ("concat(name, name, name)", "concat: the result would be"),
        ("name + name + name", "'\\+': the result would be"),
        ("replace(name, '', 'xxxx')", "replace: the result would be"),
    ],
    ids=["concat", "plus", "empty old"],
)
def test_every_function_that_grows_text_is_bounded(expression, message, monkeypatch):
    monkeypatch.setattr(sizes, "MAX_COLUMN_BYTES", 2000)  # a column of 1,000 bytes may double
    frame = pd.DataFrame({"name": pd.Series(["a" * 10] * 100, dtype="str")})
    assert evaluate(expression.replace("name", "substr(name, 1, 2)"), frame).notna().all()
    with pytest.raises(ExpressionError, match=message):
        evaluate(expression, frame)


def test_one_value_may_not_pass_its_own_limit_even_on_one_row():
    with pytest.raises(ExpressionError, match=r"a value of the result would be 9\.5 MiB, more "):
        infer_type(folded_bomb(6), Schema(()))


def test_a_long_constant_repeated_on_every_row_is_bounded_too():
    text = "x" * 9000  # within an expression's length limit
    frame = pd.DataFrame({"id": range(30_000)})
    with pytest.raises(ExpressionError, match="on each of 30000 rows: the result would be 257"):
        evaluate(f"'{text}'", frame)


def test_sizes_are_worded_in_binary_units():
    assert [size_text(n) for n in (12, 2048, MAX_VALUE_BYTES, 3 << 30)] == [
        "12 bytes",
        "2 KiB",
        "1 MiB",
        "3 GiB",
    ]


@pytest.fixture
def names_csv(tmp_path):
    (tmp_path / "names.csv").write_text("name\n" + ("a" * 200 + "\n") * ROWS)
    return tmp_path


def bomb_document(node: dict) -> object:
    """`names.csv` read, then `node`, then written to `out.csv`."""
    return load_document(
        {
            "name": "bomb",
            "nodes": [
                {"id": "read", "operator": "csv_input", "params": {"path": "names.csv"}},
                node,
                {"id": "write", "operator": "csv_output", "params": {"path": "out.csv"}},
            ],
            "edges": [
                {"source": "read", "target": node["id"]},
                {"source": node["id"], "target": "write"},
            ],
        }
    )


def test_schema_inference_refuses_a_constant_that_folds_too_large(names_csv):
    mapping = {"target": "big", "expression": folded_bomb(6)}
    node = {"id": "grow", "operator": "transform", "params": {"mappings": [mapping]}}
    inferred = infer_schemas(bomb_document(node), data_root=names_csv)
    assert [problem.node for problem in inferred.problems] == ["grow"]
    assert "replace: a value of the result would be 9.5 MiB" in inferred.problems[0].message


def test_a_preview_refuses_the_nested_replace_bomb(names_csv):
    condition = {"condition": f"len({BOMB}) > 0"}  # a filter reads every row
    node = {"id": "grow", "operator": "filter", "params": condition}
    with pytest.raises(NodeExecutionError, match=TOO_LARGE):
        preview(bomb_document(node), "grow", data_root=names_csv)


def test_a_run_refuses_the_nested_replace_bomb(names_csv):
    mapping = {"target": "big", "expression": BOMB}
    node = {"id": "grow", "operator": "transform", "params": {"mappings": [mapping]}}
    result = execute(build_plan(bomb_document(node)), data_root=names_csv)
    assert result.nodes["grow"].status == "failed"
    assert "replace: the result would be 572.2 MiB" in result.nodes["grow"].error
    assert not (names_csv / "out.csv").exists()


def test_schema_checks_are_untouched_by_sizes():
    """Type checking alone builds no text: a bomb over a column type-checks."""
    assert infer_type(BOMB, Schema((Column("name", "string"),))) == ("string", True)
