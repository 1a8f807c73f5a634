"""`for_each` over files: one inlined copy per matched file, the file's path as the parameter,
the copies stacked by a union; the bound is required and enforced, the pattern stays inside
the data root, and the command line runs it end to end."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from runtime.document.spec import load_document
from runtime.errors import PipelineValidationError
from runtime.plan.inline import InnerPipeline, describe, inline
from runtime.plan.inline_files import files_in
from tests.runtime.test_cli import runtime_cli

READ_ONE = {
    "name": "Read one",
    "config": {"parameters": {"path": "none.csv", "min": 0}},
    "nodes": [
        {"id": "read", "operator": "csv_input", "params": {"path": "${path}"}},
        {"id": "big", "operator": "filter", "params": {"condition": "amount > ${min}"}},
        {"id": "rows", "operator": "pipeline_output", "params": {"name": "rows"}},
    ],
    "edges": [{"source": "read", "target": "big"}, {"source": "big", "target": "rows"}],
}


def looping(**params) -> dict:
    """A pipeline stacking `read_one.json` over orders/*.csv into all.csv."""
    loop = {
        "pipeline": "read_one.json",
        "pattern": "orders/*.csv",
        "parameter": "path",
        "max_iterations": 10,
        "parameters": {"min": 1},
        "outputs": ["rows"],
        **params,
    }
    return {
        "name": "Loop",
        "nodes": [
            {"id": "each", "operator": "for_each", "params": loop},
            {"id": "write", "operator": "csv_output", "params": {"path": "all.csv"}},
        ],
        "edges": [{"source": "each", "source_port": "rows", "target": "write"}],
    }


@pytest.fixture
def root(tmp_path):
    (tmp_path / "orders").mkdir()
    for name, amounts in (("a", [1, 5]), ("b", [7]), ("c", [2, 3])):
        lines = "\n".join(str(amount) for amount in amounts)
        (tmp_path / "orders" / f"{name}.csv").write_text(f"amount\n{lines}\n")
    (tmp_path / "read_one.json").write_text(json.dumps(READ_ONE))
    return tmp_path


def resolve(params, within):
    return InnerPipeline("read_one", "read_one.json", load_document(READ_ONE), revision=2)


def inlined(outer: dict, root, **options):
    return inline(load_document(outer), resolve, key="outer", files=files_in(root), **options)


def refusals(outer: dict, root, **options) -> list:
    with pytest.raises(PipelineValidationError) as refused:
        inlined(outer, root, **options)
    return refused.value.problems


def problems_of(outer: dict, root, **options) -> list[str]:
    return [str(problem) for problem in refusals(outer, root, **options)]


def test_three_files_become_three_copies_stacked_with_the_file_as_a_column(root):
    result = inlined(looping(key_column="file"), root)
    document = result.document
    assert [node.id for node in document.nodes] == [
        "each__0__read", "each__0__big", "each__1__read", "each__1__big", "each__2__read",
        "each__2__big", "each__rows__0", "each__rows__1", "each__rows__2", "each__rows", "write",
    ]  # fmt: skip
    assert document.node("each__1__read").params == {"path": "orders/b.csv"}
    assert document.node("each__1__big").params == {"condition": "amount > 1"}
    assert document.node("each__rows__1").params == {
        "mappings": [{"target": "file", "expression": "'orders/b.csv'"}]
    }
    assert document.node("each__rows").operator == "union"
    into_union = [e.source for e in document.edges if e.target == "each__rows"]
    assert into_union == ["each__rows__0", "each__rows__1", "each__rows__2"]
    assert [(e.source, e.target) for e in document.edges if e.target == "write"] == [
        ("each__rows", "write")
    ]
    entry = result.subpipelines["each"]
    assert [each["file"] for each in entry["loop"]["iterations"]] == [
        "orders/a.csv", "orders/b.csv", "orders/c.csv",
    ]  # fmt: skip
    assert entry["outputs"] == {"rows": ["each__rows", "out"]}
    assert "each__0" not in result.subpipelines
    assert describe(result)[:2] == [
        "for_each each ('read_one.json' @ revision 2) over 'orders/*.csv': 3 iterations, "
        "stacked by each__rows__0, each__rows__1, each__rows__2, each__rows",
        "  1. orders/a.csv: each__0__read, each__0__big",
    ]


def test_a_loop_without_a_bound_is_refused_naming_the_field(root):
    outer = looping()
    del outer["nodes"][0]["params"]["max_iterations"]
    [problem] = refusals(outer, root)
    assert (problem.node, problem.field) == ("each", "params.max_iterations")
    assert "a loop declares the most iterations it may run" in problem.message


def test_more_files_than_the_bound_is_refused_with_the_count_and_the_bound(root):
    [problem] = problems_of(looping(max_iterations=2), root)
    assert problem.startswith(
        "each.params.max_iterations: 'orders/*.csv' matches 3 files, more than the 2 iterations"
    )


@pytest.mark.parametrize("pattern", ["../*.csv", "/etc/*.conf", "orders/../../*"])
def test_a_pattern_leading_out_of_the_data_root_is_refused(root, pattern):
    [problem] = problems_of(looping(pattern=pattern), root / "orders")
    assert problem.startswith("each.params.pattern: ")


def test_no_file_gives_the_declared_empty_table_or_a_problem(root):
    [problem] = problems_of(looping(pattern="none/*.csv"), root)
    assert problem.startswith("each.params.pattern: no files match 'none/*.csv'")
    declared = looping(pattern="none/*.csv", columns=[{"name": "amount", "type": "integer"}])
    document = inlined(declared, root).document
    assert [node.operator for node in document.nodes] == ["for_each", "csv_output"]


def test_a_parameter_the_inner_pipeline_does_not_declare_is_named_at_the_loop_field(root):
    [problem] = refusals(looping(parameter="file_name"), root)
    assert (problem.node, problem.field) == ("each", "params.parameter")
    assert problem.message == (
        "'read_one.json' has no parameter 'file_name' (it declares: min, path)"
    )


def test_the_inlined_node_bound_still_applies(root):
    [problem] = problems_of(looping(), root, max_nodes=4)
    assert "more than 4 nodes" in problem


def test_the_command_line_runs_the_loop_and_writes_the_union(root):
    (root / "loop.json").write_text(json.dumps(looping(key_column="file")))
    done = runtime_cli("run", "loop.json", "--data-root", str(root), "--no-cache", cwd=root)
    assert done.returncode == 0, done.stderr
    written = pd.read_csv(root / "all.csv")
    assert written.to_dict("records") == [
        {"amount": 5, "file": "orders/a.csv"},
        {"amount": 7, "file": "orders/b.csv"},
        {"amount": 2, "file": "orders/c.csv"},
        {"amount": 3, "file": "orders/c.csv"},
    ]
    explained = runtime_cli("explain", "loop.json", "--data-root", str(root), cwd=root)
    assert "  3. orders/c.csv: each__2__read, each__2__big" in explained.stdout
    checked = runtime_cli("validate", "loop.json", "--data-root", str(root), cwd=root)
    assert checked.returncode == 0, checked.stderr


def test_a_loop_over_no_file_writes_its_declared_empty_result(root):
    declared = looping(
        pattern="none/*.csv", key_column="file", columns=[{"name": "amount", "type": "integer"}]
    )
    (root / "loop.json").write_text(json.dumps(declared))
    done = runtime_cli("run", "loop.json", "--data-root", str(root), "--no-cache", cwd=root)
    assert done.returncode == 0, done.stderr
    assert (root / "all.csv").read_text() == "amount,file\n"
