"""Data tests checked before a run: kinds, ports, referred nodes and columns, each a problem
naming the node and the check's field."""

from __future__ import annotations

import pytest

from runtime.checks.analysis import validate
from runtime.checks.inference import infer_schemas
from runtime.document.spec import dump_document, load_document
from runtime.errors import PipelineValidationError


def document(expect: list[dict]) -> dict:
    return {
        "name": "p",
        "nodes": [
            {"id": "orders", "operator": "csv_input", "params": {"path": "orders.csv"}},
            {"id": "paid", "operator": "filter", "params": {"condition": "amount > 0"},
             "expect": expect},
            {"id": "write", "operator": "csv_output", "params": {"path": "out.csv"}},
        ],
        "edges": [{"source": "orders", "target": "paid"}, {"source": "paid", "target": "write"}],
    }  # fmt: skip


def problems_of(expect, tmp_path=None):
    if tmp_path is None:
        return [(p.node, p.field, p.message) for p in validate(load_document(document(expect)))]
    (tmp_path / "orders.csv").write_text("id,amount\n1,5\n")
    inferred = infer_schemas(load_document(document(expect)), data_root=tmp_path)
    return [(p.node, p.field, p.message) for p in inferred.problems]


def test_an_unknown_check_kind_names_the_node_and_the_check_field():
    with pytest.raises(PipelineValidationError) as caught:
        load_document(document([{"check": "positive", "column": "amount"}]))
    (problem,) = caught.value.problems
    assert (problem.node, problem.field) == ("paid", "expect.0.check")
    assert "'not_null', 'unique'" in problem.message


def test_a_field_of_a_check_is_named_as_the_document_writes_it():
    with pytest.raises(PipelineValidationError) as caught:
        load_document(document([{"check": "in_range", "column": "amount"}]))
    assert [(p.node, p.field) for p in caught.value.problems] == [("paid", "expect.0")]
    with pytest.raises(PipelineValidationError) as caught:
        load_document(document([{"check": "matches", "column": "x", "pattern": "(?=a)"}]))
    assert caught.value.problems[0].field == "expect.0.pattern"


def test_a_check_on_a_column_the_port_lacks_is_a_problem_at_its_field(tmp_path):
    found = problems_of(
        [{"check": "not_null", "column": "amout"}, {"check": "unique", "columns": ["id", "x"]}],
        tmp_path,
    )
    assert found == [
        ("paid", "expect.0.column", "checks name column 'amout', which paid.out lacks; it has "
         "id, amount"),
        ("paid", "expect.1.columns.1", "checks name column 'x', which paid.out lacks; it has "
         "id, amount"),
    ]  # fmt: skip


def test_a_reference_to_a_node_below_or_missing_or_a_port_it_lacks_is_a_problem():
    refer = {"check": "references", "column": "id", "to_column": "id"}
    found = problems_of(
        [{**refer, "node": "write"}, {**refer, "node": "nowhere"}, {**refer, "node": "orders",
         "to_port": "valid"}, {"check": "row_count", "min": 1, "port": "invalid"}]
    )  # fmt: skip
    assert [(node, field) for node, field, _ in found] == [
        ("paid", "expect.0.node"),
        ("paid", "expect.1.node"),
        ("paid", "expect.2.to_port"),
        ("paid", "expect.3.port"),
    ]


def test_a_node_without_checks_exports_as_before_and_checks_round_trip():
    plain = load_document(document([]))
    assert '"expect"' not in dump_document(plain)
    checked = load_document(document([{"check": "not_null", "column": "id"}]))
    again = load_document(dump_document(checked))
    assert again.node("paid").expect == checked.node("paid").expect
