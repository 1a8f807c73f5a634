"""Column lineage across pipelines: a column read from a file another pipeline writes goes on
in that pipeline, from its output, recursively, bounded, cycles stopped and said."""

from __future__ import annotations

from runtime.checks.lineage import column_lineage
from runtime.checks.lineage_across import LinkedPipeline, upstream_hops
from runtime.document.spec import load_document
from tests.runtime.checks.pipelines_in_a_row import doubled, in_a_row


def document(name, reads, writes, *middle):
    return LinkedPipeline(name, name, load_document(in_a_row(name, reads, writes, *middle)))


def traced(tmp_path, pipeline, selector, upstreams, **options):
    def lineage_of(each):
        return column_lineage(each.document, data_root=tmp_path)

    lineage = lineage_of(pipeline)
    path = lineage.path(lineage.find(selector))
    return upstream_hops(pipeline, path, upstreams, lineage_of, **options)


def test_a_column_read_from_a_file_another_pipeline_writes_goes_on_in_that_pipeline(tmp_path):
    (tmp_path / "sales.csv").write_text("id,amount\n1,10\n")
    (tmp_path / "out.csv").write_text("id,amount,total\n1,10,20\n")
    a = document("A", "sales.csv", "out.csv", doubled())
    b = document("B", "out.csv", "final.csv")
    found = traced(tmp_path, b, "final.csv:total", [a])
    assert found.stops == []
    [hop] = found.hops
    assert (hop.pipeline, hop.reader, hop.input, hop.via) == ("A", "B", "read", "out.csv")
    assert (hop.output, hop.column, hop.depth) == ("write", "total", 1)
    assert hop.path.nodes == ["write", "double", "read"]
    assert hop.path.origins == [("read", "amount")]
    assert hop.to_json()["path"]["column"] == {"node": "write", "port": "in", "column": "total"}


def test_a_pipeline_writing_another_file_is_no_hop(tmp_path):
    (tmp_path / "sales.csv").write_text("id,amount\n1,10\n")
    (tmp_path / "out.csv").write_text("id,amount\n1,10\n")
    a = document("A", "sales.csv", "elsewhere.csv")
    b = document("B", "out.csv", "final.csv")
    assert traced(tmp_path, b, "final.csv:amount", [a]).hops == []


def test_a_cycle_of_pipelines_is_stopped_and_said(tmp_path):
    (tmp_path / "a.csv").write_text("id,amount\n1,10\n")
    (tmp_path / "b.csv").write_text("id,amount\n1,10\n")
    a = document("A", "b.csv", "a.csv")
    b = document("B", "a.csv", "b.csv")
    found = traced(tmp_path, a, "a.csv:amount", [b])
    assert [(hop.pipeline, hop.depth) for hop in found.hops] == [("B", 1)]
    assert found.stops == ["cycle of pipelines A → B → A: not followed further"]


def test_a_chain_is_followed_to_its_start_and_no_deeper_than_the_bound(tmp_path):
    (tmp_path / "f0.csv").write_text("id,amount\n1,10\n")
    chain = []
    for i in range(1, 6):
        (tmp_path / f"f{i}.csv").write_text("id,amount\n1,10\n")
        chain.append(document(f"P{i}", f"f{i - 1}.csv", f"f{i}.csv"))
    last = document("Last", "f5.csv", "end.csv")
    found = traced(tmp_path, last, "end.csv:amount", chain)
    assert [hop.pipeline for hop in found.hops] == ["P5", "P4", "P3", "P2", "P1"]
    assert found.stops == []
    bounded = traced(tmp_path, last, "end.csv:amount", chain, max_depth=3)
    assert [hop.pipeline for hop in bounded.hops] == ["P5", "P4", "P3"]
    assert bounded.stops == ["Last → P5 → P4 → P3 → P2: deeper than 3 pipelines, not followed"]


def test_an_upstream_output_without_the_column_is_said(tmp_path):
    (tmp_path / "sales.csv").write_text("id,amount\n1,10\n")
    (tmp_path / "out.csv").write_text("id,amount,extra\n1,10,x\n")
    a = document("A", "sales.csv", "out.csv")
    b = document("B", "out.csv", "final.csv")
    found = traced(tmp_path, b, "final.csv:extra", [a])
    assert found.hops == []
    assert found.stops == ["A > write has no known column 'extra'"]


def test_a_stop_reached_by_several_columns_is_said_once(tmp_path):
    (tmp_path / "a.csv").write_text("id,amount\n1,10\n")
    (tmp_path / "b.csv").write_text("id,amount,total\n1,10,20\n")
    both = {"mappings": [{"target": "both", "expression": "amount + id"}]}
    a = document("A", "b.csv", "a.csv", {"id": "sum", "operator": "transform", "params": both})
    b = document("B", "a.csv", "b.csv")
    found = traced(tmp_path, a, "a.csv:both", [b])
    assert [hop.column for hop in found.hops] == ["amount", "id"]
    assert found.stops == ["cycle of pipelines A → B → A: not followed further"]
