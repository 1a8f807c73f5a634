"""`for_each` over groups and chunks: the body, inlined and checked when the pipeline is planned,
runs once per group (or chunk) of the input's rows with the key as its parameter, the results
stacked in key order; the bound fails the node naming the count, problems name node and field
before anything runs, and each iteration reports progress."""

from __future__ import annotations

import pandas as pd
import pytest

from runtime.checks.inference import infer_schemas
from runtime.compile.errors import CompileRefused
from runtime.compile.script import compile_script
from runtime.document.spec import load_document
from runtime.errors import PipelineValidationError
from runtime.execution.events import ListSink
from runtime.execution.executor import execute
from runtime.operators.subpipelines import ForEach, ForEachParams
from runtime.plan.build import build_plan
from runtime.plan.inline import InnerPipeline, describe, inline
from tests.loop_documents import ORDERS, SUM_BIG, by_country, many_countries


def looping(rows: str = "orders.csv", **params) -> dict:
    return by_country("sum_big.json", rows=rows, **params)


@pytest.fixture
def root(tmp_path):
    (tmp_path / "orders.csv").write_text(ORDERS)
    return tmp_path


def resolve(inner: dict = SUM_BIG):
    return lambda params, within: InnerPipeline("sum_big", "sum_big.json", load_document(inner))


def inlined(outer: dict, inner: dict = SUM_BIG):
    return inline(load_document(outer), resolve(inner), key="outer")


def refusals(outer: dict, inner: dict = SUM_BIG) -> list[str]:
    """Each problem of `outer` as `node.field: message`."""
    with pytest.raises(PipelineValidationError) as refused:
        inlined(outer, inner)
    return [f"{p.node}.{p.field}: {p.message}" for p in refused.value.problems]


def run(outer: dict, root, sinks=()):
    return execute(build_plan(inlined(outer).document), data_root=root, sinks=sinks)


def test_orders_summed_per_country_are_stacked_in_key_order_with_the_key_column(root):
    result = run(looping(), root)
    assert result.ok, result.error
    written = pd.read_csv(root / "totals.csv")
    assert written.to_dict("records") == [
        {"seen": "DE", "total": 55, "country": "DE"},
        {"seen": "FR", "total": 40, "country": "FR"},
    ]  # IT's only order (2) is not above min: its iteration gives no row
    assert result.nodes["each"].metrics()["iterations"] == 3


def test_each_iteration_reports_its_share_and_count_of_the_iterations(root):
    events = ListSink()
    assert run(looping(), root, [events]).ok
    progress = [e for e in events.events if e["type"] == "node_progress" and e["node"] == "each"]
    assert progress[0]["share"] == pytest.approx(1 / 3)
    assert progress[-1]["share"] == 1.0 and progress[-1]["iterations"] == [3, 3]


def test_more_groups_than_the_bound_fails_the_node_naming_the_count_and_the_bound(root):
    (root / "many.csv").write_text(many_countries(1001))
    result = run(looping(rows="many.csv"), root)
    assert result.status == "failed"
    assert result.nodes["each"].error == (
        "the input makes 1,001 groups of country, more than the 1,000 iterations "
        "this loop allows (max_iterations); raise it (at most 1,000) or make fewer"
    )
    assert not (root / "totals.csv").exists()


def test_chunks_run_with_their_number_as_the_parameter(root):
    inner = {**SUM_BIG, "config": {"parameters": {"min": 0, "country": 0}}}
    outer = looping(over="chunks", group_by=[], chunk_rows=4, parameter="country",
                    key_column="chunk")  # fmt: skip
    plan = build_plan(inlined(outer, inner).document)
    result = execute(plan, data_root=root)
    assert result.ok, result.error
    written = pd.read_csv(root / "totals.csv")
    assert written.to_dict("records") == [
        {"seen": 0, "total": 45, "chunk": 0},  # orders 1-4 above 4: 10, 5 and 30
        {"seen": 1, "total": 50, "chunk": 1},
    ]
    assert result.nodes["each"].extra == {"over": "chunks", "iterations": 2}


def test_a_group_column_the_input_lacks_is_named_with_a_suggestion_before_running(root):
    inferred = infer_schemas(inlined(looping(group_by=["contry"])).document, data_root=root)
    [problem] = inferred.problems
    assert (problem.node, problem.field) == ("each", "params.group_by")
    assert problem.message == "Group by: unknown column 'contry'; did you mean 'country'?"


def test_the_loops_columns_are_its_bodys_with_the_key_column(root):
    inferred = infer_schemas(inlined(looping()).document, data_root=root)
    assert inferred.problems == []
    columns = inferred.nodes["write"].inputs["in"].columns
    assert [(c.name, c.type) for c in columns] == [
        ("seen", "string"),
        ("total", "integer"),
        ("country", "string"),
    ]


def test_a_column_the_body_lacks_is_found_before_running_at_the_loop_node(root):
    inner = {**SUM_BIG, "nodes": [dict(node) for node in SUM_BIG["nodes"]]}
    inner["nodes"][1] = {**inner["nodes"][1], "params": {"condition": "amont > ${min}"}}
    [problem] = infer_schemas(inlined(looping(), inner).document, data_root=root).problems
    assert problem.node == "each"
    assert problem.message == (
        "in 'sum_big.json' (run once per group): big: Condition: unknown column 'amont' at 1:1; "
        "did you mean 'amount'?"
    )


@pytest.mark.parametrize(
    ("params", "expected"),
    [
        ({"max_iterations": None}, "each.params.max_iterations: "),
        ({"max_iterations": 1001}, "each.params.max_iterations: "),
        ({"group_by": []}, "each.params.group_by: a loop over groups needs the columns"),
        ({"over": "chunks", "chunk_rows": 0, "parameter": "min"}, "each.params.chunk_rows: "),
        ({"over": "chunks", "parameter": "min"}, "each.params.chunk_rows: a loop over chunks"),
        ({"over": "chunks", "chunk_rows": 5}, "each.params.parameter: name the inner parameter"),
        ({"parameter": "region"}, "each.params.parameter: 'sum_big.json' has no parameter"),
        ({"group_by": ["a", "b"], "parameter": "min"}, "each.params.parameter: a loop over "),
        ({"inputs": ["orders"]}, "each.params.inputs: the loop's input port must be 'rows'"),
        ({"over": "rows"}, "each.params.over: "),
    ],
    ids=[
        "no-bound",
        "bound-too-high",
        "no-group-by",
        "chunk-rows-0",
        "no-chunk-rows",
        "no-chunk-parameter",
        "unknown-parameter",
        "parameter-of-two-columns",
        "wrong-port",
        "unknown-over",
    ],
)
def test_a_loop_that_cannot_run_is_refused_naming_node_and_field(params, expected):
    outer = looping(**params)
    loop = outer["nodes"][1]["params"]
    for name in [name for name, value in params.items() if value is None]:
        del loop[name]
    problems = refusals(outer)
    assert any(problem.startswith(expected) for problem in problems), problems


def test_a_problem_in_the_body_is_refused_when_planned_at_the_loop_node():
    inner = {**SUM_BIG, "nodes": [dict(node) for node in SUM_BIG["nodes"]]}
    inner["nodes"][3] = {**inner["nodes"][3], "params": {"group_by": ["seen"], "aggregations": 3}}
    assert refusals(looping(), inner) == [
        "each.params.pipeline: in 'sum_big.json': total: Aggregations: must be a list"
    ]


def test_explain_says_what_the_loop_iterates_over():
    assert describe(inlined(looping())) == [
        "for_each each ('sum_big.json') over the groups of country of its input, at most 1,000 "
        "iterations, the key to parameter country, key column country, stacked in key order: "
        "runs rows, big, tag, total, out once per iteration when the pipeline runs (pandas)"
    ]


def test_a_loop_is_reused_from_the_store_only_when_its_body_only_processes_rows():
    def identity(inner: dict):
        node = inlined(looping(), inner).document.node("each")
        return ForEach().cache_identity(ForEachParams.model_validate(node.params), None, None)

    writing = {
        **SUM_BIG,
        "nodes": [*SUM_BIG["nodes"],
                  {"id": "keep", "operator": "csv_output", "params": {"path": "${country}.csv"}}],
        "edges": [*SUM_BIG["edges"], {"source": "total", "target": "keep"}],
    }  # fmt: skip
    assert identity(SUM_BIG) == ()  # its result depends on its input rows only
    assert identity(writing) is None  # never reused: a reuse would not write the files


def test_compiling_a_loop_over_groups_is_refused_at_the_node(root):
    with pytest.raises(CompileRefused, match="a loop over groups runs its body once per") as no:
        compile_script(inlined(looping()).document, data_root=root)
    assert no.value.node == "each"
