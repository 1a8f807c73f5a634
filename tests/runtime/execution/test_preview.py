"""Previews run only what a node needs, push row limits when safe and never write."""

from __future__ import annotations

import pytest

from runtime.document.spec import load_document
from runtime.errors import NodeExecutionError, PipelineValidationError
from runtime.execution.preview import preview


@pytest.fixture
def doc(tmp_path):
    rows = "\n".join(f"{i},{'FR' if i % 2 else 'DE'}" for i in range(1, 201))
    (tmp_path / "in.csv").write_text("id,country\n" + rows + "\n")
    return load_document(
        {
            "name": "t",
            "nodes": [
                {"id": "read", "operator": "csv_input", "params": {"path": "in.csv"}},
                {"id": "fr", "operator": "filter", "params": {"condition": "country = 'FR'"}},
                {"id": "write", "operator": "csv_output", "params": {"path": "out.csv"}},
                {"id": "other", "operator": "csv_input", "params": {"path": "missing.csv"}},
                {"id": "broken", "operator": "no_such_operator"},
            ],
            "edges": [{"source": "read", "target": "fr"}, {"source": "fr", "target": "write"}],
        }
    )


def test_a_preview_returns_the_first_rows_and_schema(doc, tmp_path):
    shown = preview(doc, "fr", limit=3, data_root=tmp_path)
    assert shown.rows == [[1, "FR"], [3, "FR"], [5, "FR"]]
    assert shown.schema.names == ["id", "country"]
    assert shown.total_rows == 100  # a filter needs all input rows, so the total is known


def test_a_preview_of_an_input_reads_only_the_head(doc, tmp_path):
    shown = preview(doc, "read", limit=5, data_root=tmp_path)
    assert [row[0] for row in shown.rows] == [1, 2, 3, 4, 5]
    assert shown.total_rows is None


def test_a_preview_of_an_output_shows_what_it_would_write_and_writes_nothing(doc, tmp_path):
    shown = preview(doc, "write", limit=2, data_root=tmp_path)
    assert shown.rows == [[1, "FR"], [3, "FR"]]
    assert not (tmp_path / "out.csv").exists()


def test_unrelated_broken_nodes_do_not_stop_a_preview(doc, tmp_path):
    assert preview(doc, "read", limit=1, data_root=tmp_path).rows == [[1, "FR"]]


def test_a_failing_ancestor_is_reported_by_node(doc, tmp_path):
    with pytest.raises(NodeExecutionError, match=r"node 'other' failed: input file 'missing\.csv'"):
        preview(doc, "other", data_root=tmp_path)


def test_an_unknown_node_or_a_silly_limit_is_refused(doc):
    with pytest.raises(PipelineValidationError, match="there is no node 'nope'"):
        preview(doc, "nope")
    with pytest.raises(PipelineValidationError, match="limit must be between 1 and 10000"):
        preview(doc, "read", limit=0)
