"""Schema inference: columns per node before running, problems named by node and field."""

from __future__ import annotations

from runtime.checks.inference import infer_schemas, run_problems
from runtime.document.spec import load_document


def pipeline(nodes, edges):
    return load_document({"name": "t", "nodes": nodes, "edges": edges})


def people(tmp_path):
    (tmp_path / "people.csv").write_text("id,name,age\n1,Ada,36\n2,Linus,\n")
    return {"id": "read", "operator": "csv_input", "params": {"path": "people.csv"}}


def test_columns_flow_from_the_file_through_a_filter(tmp_path):
    doc = pipeline(
        [
            people(tmp_path),
            {"id": "keep", "operator": "filter", "params": {"condition": "age > 1"}},
        ],
        [{"source": "read", "target": "keep"}],
    )
    inferred = infer_schemas(doc, data_root=tmp_path)
    assert inferred.problems == []
    columns = inferred.to_json()["nodes"]["keep"]["outputs"]["out"]
    assert columns == [
        {"name": "id", "type": "integer", "nullable": False},
        {"name": "name", "type": "string", "nullable": False},
        {"name": "age", "type": "integer", "nullable": True},
    ]
    assert inferred.nodes["keep"].inputs["in"] == inferred.nodes["read"].outputs["out"]


def test_a_missing_column_is_reported_at_the_node_and_field(tmp_path):
    doc = pipeline(
        [
            people(tmp_path),
            {"id": "keep", "operator": "filter", "params": {"condition": "agee > 1"}},
        ],
        [{"source": "read", "target": "keep"}],
    )
    inferred = infer_schemas(doc, data_root=tmp_path)
    assert [str(p) for p in inferred.problems] == [
        "keep: Condition: unknown column 'agee' at 1:1; did you mean 'age'?"
    ]
    assert inferred.nodes["keep"].outputs == {}


def test_a_type_mismatch_in_an_expression_is_reported(tmp_path):
    doc = pipeline(
        [
            people(tmp_path),
            {"id": "keep", "operator": "filter", "params": {"condition": "name > 3"}},
        ],
        [{"source": "read", "target": "keep"}],
    )
    problems = infer_schemas(doc, data_root=tmp_path).problems
    assert len(problems) == 1 and problems[0].field == "params.condition"
    assert problems[0].node == "keep"


def test_a_half_built_graph_still_gets_schemas_where_it_can(tmp_path):
    doc = pipeline(
        [
            people(tmp_path),
            {"id": "keep", "operator": "filter", "params": {"condition": "age >"}},
            {"id": "after", "operator": "filter", "params": {"condition": "true"}},
            {"id": "loose", "operator": "filter", "params": {"condition": "true"}},
        ],
        [{"source": "read", "target": "keep"}, {"source": "keep", "target": "after"}],
    )
    inferred = infer_schemas(doc, data_root=tmp_path)
    assert inferred.nodes["read"].outputs["out"].names == ["id", "name", "age"]
    assert inferred.nodes["keep"].outputs == {}
    assert inferred.nodes["after"].outputs == {} and inferred.nodes["after"].problems == []
    assert [p.code for p in inferred.nodes["loose"].problems] == ["unconnected_port"]


def test_a_missing_input_file_is_a_problem_of_the_input_nodes_path_field(tmp_path):
    doc = pipeline([{"id": "read", "operator": "csv_input", "params": {"path": "none.csv"}}], [])
    [problem] = infer_schemas(doc, data_root=tmp_path).problems
    assert (problem.node, problem.field) == ("read", "params.path")
    assert str(problem) == "read: Path: input file 'none.csv' not found under the data root"


def test_a_cycle_stops_inference_with_the_cycle_problem():
    doc = pipeline(
        [
            {"id": "a", "operator": "filter", "params": {"condition": "true"}},
            {"id": "b", "operator": "filter", "params": {"condition": "true"}},
        ],
        [{"source": "a", "target": "b"}, {"source": "b", "target": "a"}],
    )
    assert [p.code for p in infer_schemas(doc).problems] == ["cycle"]


def read_filter_write(condition: str, output: str, parameters: dict):
    return load_document(
        {
            "name": "t",
            "config": {"parameters": parameters},
            "nodes": [
                {"id": "read", "operator": "csv_input", "params": {"path": "people.csv"}},
                {"id": "keep", "operator": "filter", "params": {"condition": condition}},
                {"id": "write", "operator": "csv_output", "params": {"path": output}},
            ],
            "edges": [
                {"source": "read", "target": "keep"},
                {"source": "keep", "target": "write"},
            ],
        }
    )


def test_an_output_path_outside_the_data_root_is_a_problem_of_its_field(tmp_path):
    people(tmp_path)
    doc = read_filter_write("age > 1", "../escaped.csv", {})
    [problem] = run_problems(doc, data_root=tmp_path)
    assert (problem.node, problem.field, problem.code) == ("write", "params.path", "unsafe_path")
    assert problem.message.startswith("Path: path '../escaped.csv' is outside the data root")
    assert [p.code for p in infer_schemas(doc, data_root=tmp_path).problems] == ["unsafe_path"]


def test_a_parameter_value_that_does_not_fit_its_column_stops_a_run(tmp_path):
    people(tmp_path)
    doc = read_filter_write("age > ${min_age}", "out.csv", {"min_age": 18})
    assert run_problems(doc, data_root=tmp_path) == []
    [problem] = run_problems(doc, {"min_age": "abc"}, data_root=tmp_path)
    assert (problem.node, problem.field) == ("keep", "params.condition")
    assert "'abc' is string" in problem.message


def test_a_schema_problem_without_a_parameter_does_not_stop_a_run(tmp_path):
    """The schema view reads a sample; only a parameter's misfit is sure to fail the run."""
    people(tmp_path)
    doc = read_filter_write("agee > 1", "out.csv", {})
    assert [p.field for p in infer_schemas(doc, data_root=tmp_path).problems] == [
        "params.condition"
    ]
    assert run_problems(doc, data_root=tmp_path) == []


def test_a_database_out_of_reach_is_shown_but_does_not_stop_a_run(tmp_path):
    """It may be back when the run connects, with its retries; a wrong query would not be."""
    doc = pipeline(
        [{"id": "query", "operator": "sql_input",
          "params": {"connection": "db", "query": "select 1 as one"}}],
        [],
    )  # fmt: skip
    closed_port = {"db": "postgresql+psycopg://postgres@127.0.0.1:1/test"}
    [problem] = infer_schemas(doc, data_root=tmp_path, connections=closed_port).problems
    assert (problem.node, problem.code) == ("query", "unreachable")
    assert problem.message.startswith("cannot connect to 'db'")
    assert run_problems(doc, data_root=tmp_path, connections=closed_port) == []


def test_a_node_whose_params_are_not_filled_in_yet_still_knows_its_input_columns(tmp_path):
    """Its form offers those columns to fill the params in with; its outputs stay unknown."""
    doc = pipeline(
        [people(tmp_path), {"id": "totals", "operator": "aggregate", "params": {}}],
        [{"source": "read", "target": "totals"}],
    )
    inferred = infer_schemas(doc, data_root=tmp_path)
    assert [problem.field for problem in inferred.problems] == ["params.aggregations"]
    assert inferred.nodes["totals"].inputs["in"] == inferred.nodes["read"].outputs["out"]
    assert inferred.nodes["totals"].outputs == {}


def test_an_expression_problem_found_with_the_columns_knows_its_place(tmp_path):
    doc = pipeline(
        [people(tmp_path), {"id": "keep", "operator": "filter",
                            "params": {"condition": "age > 1 and\n upper(age) = 'X'"}}],
        [{"source": "read", "target": "keep"}],
    )  # fmt: skip
    (problem,) = infer_schemas(doc, data_root=tmp_path).problems
    assert problem.to_json() == {
        "code": "schema",
        "node": "keep",
        "field": "params.condition",
        "field_title": "Condition",
        "message": "Condition: upper() expects a string but 'age' is integer at 2:8",
        "line": 2,
        "column": 8,
        "end_column": 11,
    }
