"""Inlining sub-pipelines: ports wired, parameters substituted, ids prefixed, and the refusals
(cycles naming their chain, nesting and size bounds, wrong ports and parameters)."""

from __future__ import annotations

import pytest

from runtime.document.spec import load_document
from runtime.errors import PipelineValidationError
from runtime.io.paths import FileArea
from runtime.plan import build_plan
from runtime.plan.explain import explain_json
from runtime.plan.inline import InnerPipeline, describe, inline
from runtime.plan.prepare import prepare


def clean_orders(minimum: int = 10) -> dict:
    """A pipeline declaring input `orders` and output `kept`: the orders above `${min}`."""
    return {
        "name": "Clean orders",
        "config": {"parameters": {"min": minimum}},
        "nodes": [
            {"id": "orders", "operator": "pipeline_input", "params": {"name": "orders"}},
            {"id": "big", "operator": "filter", "params": {"condition": "amount > ${min}"}},
            {"id": "kept", "operator": "pipeline_output", "params": {"name": "kept"}},
        ],
        "edges": [{"source": "orders", "target": "big"}, {"source": "big", "target": "kept"}],
    }


def using(reference: str, node_id: str = "clean", **params) -> dict:
    """A pipeline reading in.csv through the sub-pipeline `reference` into out.csv."""
    return {
        "name": "Outer",
        "config": {"parameters": {"threshold": 15}},
        "nodes": [
            {"id": "read", "operator": "csv_input", "params": {"path": "in.csv"}},
            {
                "id": node_id,
                "operator": "subpipeline",
                "params": {
                    "pipeline": reference,
                    "inputs": ["orders"],
                    "outputs": ["kept"],
                    **params,
                },
            },
            {"id": "write", "operator": "csv_output", "params": {"path": "out.csv"}},
        ],
        "edges": [
            {"source": "read", "target": node_id, "target_port": "orders"},
            {"source": node_id, "source_port": "kept", "target": "write"},
        ],
    }


def resolver(documents: dict[str, dict]):
    def resolve(params, within):
        if params.pipeline not in documents:
            raise LookupError(f"no pipeline '{params.pipeline}'")
        document = load_document(documents[params.pipeline])
        return InnerPipeline(params.pipeline, params.pipeline, document, revision=3)

    return resolve


def inlined(outer: dict, documents: dict[str, dict], **options):
    return inline(load_document(outer), resolver(documents), key="outer", **options)


def problems_of(outer: dict, documents: dict[str, dict], **options) -> list[str]:
    with pytest.raises(PipelineValidationError) as refused:
        inlined(outer, documents, **options)
    return [str(problem) for problem in refused.value.problems]


def test_inlining_prefixes_ids_wires_the_ports_and_substitutes_the_parameters():
    result = inlined(using("clean", parameters={"min": "${threshold}"}), {"clean": clean_orders()})
    document = result.document
    assert [node.id for node in document.nodes] == ["read", "clean__big", "write"]
    assert document.node("clean__big").params == {"condition": "amount > 15"}
    assert {(e.source, e.source_port, e.target, e.target_port) for e in document.edges} == {
        ("read", "out", "clean__big", "in"),
        ("clean__big", "out", "write", "in"),
    }
    assert result.subpipelines == {
        "clean": {
            "pipeline": "clean",
            "revision": 3,
            "nodes": ["clean__big"],
            "outputs": {"kept": ["clean__big", "out"]},
            "inputs": {"orders": {"from": ["read", "out"], "columns": []}},
        }
    }
    assert describe(result) == ["sub-pipeline clean ('clean' @ revision 3): clean__big"]


def test_the_inner_default_holds_when_the_node_gives_no_value():
    document = inlined(using("clean"), {"clean": clean_orders(minimum=7)}).document
    assert document.node("clean__big").params == {"condition": "amount > 7"}


def test_a_duckdb_segment_crosses_the_sub_pipeline_boundary(tmp_path):
    (tmp_path / "in.csv").write_text("amount\n5\n20\n30\n")
    document = inlined(using("clean"), {"clean": clean_orders()}).document
    plan = prepare(build_plan(document), backend="duckdb", data_root=FileArea.of(tmp_path))
    [segment] = explain_json(plan)["segments"]
    assert segment["nodes"] == ["read", "clean__big", "write"]


def test_nested_sub_pipelines_are_inlined_under_both_prefixes():
    middle = {
        "name": "Middle",
        "nodes": [
            {"id": "inp", "operator": "pipeline_input", "params": {"name": "orders"}},
            {"id": "deep", "operator": "subpipeline", "params": {
                "pipeline": "clean", "inputs": ["orders"], "outputs": ["kept"]}},
            {"id": "outp", "operator": "pipeline_output", "params": {"name": "kept"}},
        ],
        "edges": [
            {"source": "inp", "target": "deep", "target_port": "orders"},
            {"source": "deep", "source_port": "kept", "target": "outp"},
        ],
    }  # fmt: skip
    result = inlined(using("middle"), {"middle": middle, "clean": clean_orders()})
    assert [node.id for node in result.document.nodes] == ["read", "clean__deep__big", "write"]
    assert result.subpipelines["clean"]["nodes"] == ["clean__deep__big"]
    assert result.subpipelines["clean__deep"]["nodes"] == ["clean__deep__big"]
    assert result.subpipelines["clean"]["outputs"] == {"kept": ["clean__deep__big", "out"]}
    assert result.subpipelines["clean__deep"]["outputs"] == {"kept": ["clean__deep__big", "out"]}


def test_an_input_passed_straight_to_an_output_joins_the_outer_nodes():
    passing = {
        "name": "Pass",
        "nodes": [
            {"id": "i", "operator": "pipeline_input", "params": {"name": "orders"}},
            {"id": "o", "operator": "pipeline_output", "params": {"name": "kept"}},
        ],
        "edges": [{"source": "i", "target": "o"}],
    }
    result = inlined(using("pass"), {"pass": passing})
    assert [(e.source, e.target) for e in result.document.edges] == [("read", "write")]
    assert result.subpipelines["clean"]["outputs"] == {"kept": ["read", "out"]}


def test_a_cycle_of_references_is_refused_naming_the_chain():
    a, b = using("b", node_id="to_b"), using("a", node_id="to_a")
    for document, name in ((a, "A"), (b, "B")):
        document["name"] = name
        document["nodes"] += [
            {"id": "orders", "operator": "pipeline_input", "params": {"name": "orders"}},
            {"id": "kept", "operator": "pipeline_output", "params": {"name": "kept"}},
        ]
    [problem] = problems_of(a, {"a": a, "b": b})
    assert problem.startswith("to_b.params.pipeline: ")
    assert "sub-pipelines refer to each other in a cycle: b → a → b" in problem


def test_a_sub_pipeline_using_itself_is_a_cycle():
    looping = using("self", node_id="me")
    looping["nodes"] += clean_orders()["nodes"][::2]
    [problem] = problems_of(looping, {"self": looping})
    assert "cycle: self → self" in problem


def test_nesting_deeper_than_the_bound_is_refused_naming_the_chain():
    levels = {}
    for level in range(12):
        inner = using(f"p{level + 1}", node_id="n") if level < 11 else clean_orders()
        inner["name"] = f"p{level}"
        if level < 11:
            inner["nodes"] += clean_orders()["nodes"][::2]
        levels[f"p{level}"] = inner
    [problem] = problems_of(using("p0"), levels)
    assert problem.startswith(
        "clean.params.pipeline: sub-pipelines nest more than 10 levels deep: Outer → p0 → p1 → p2"
    )
    assert inlined(using("p3"), levels).document.node("clean__n__n__n__n__n__n__n__n__big")


def test_more_inlined_nodes_than_the_bound_is_refused():
    [problem] = problems_of(using("clean"), {"clean": clean_orders()}, max_nodes=2)
    assert problem == "nodes: with its sub-pipelines inlined the pipeline has more than 2 nodes"


def test_parameters_must_be_declared_and_of_their_default_type():
    problems = problems_of(
        using("clean", parameters={"min": "many", "max": 3}), {"clean": clean_orders()}
    )
    assert problems == [
        "clean.params.parameters.min: 'min' must be a whole number like its default 10, not 'many'",
        "clean.params.parameters.max: 'clean' has no parameter 'max' (it declares: min)",
    ]


def test_unknown_and_unconnected_ports_name_the_node_and_field():
    outer = using("clean")
    outer["edges"][0]["target_port"] = "order"
    problems = problems_of(outer, {"clean": clean_orders()})
    assert problems == [
        "clean.params.inputs: the sub-pipeline has no input 'order' (it has: orders)",
        "clean.params.inputs: input 'orders' of the sub-pipeline is not connected",
    ]


def test_an_unknown_pipeline_is_refused_at_the_node():
    assert problems_of(using("gone"), {}) == ["clean.params.pipeline: no pipeline 'gone'"]
