"""The pipeline document: parsing, clear errors, format versions, stable serialisation."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from runtime import cli
from runtime.document import spec
from runtime.document.spec import dump_document, json_schema, load_document
from runtime.errors import PipelineValidationError
from tests.strategies import bounded, json_scalars, texts

ROOT = Path(__file__).resolve().parents[3]
GOLDEN = sorted((ROOT / "tests" / "golden").glob("*/pipeline.json"))


def minimal(**extra) -> dict:
    return {"format": "pipewright.pipeline", "version": 2, "name": "p", **extra}


def problems_of(data) -> list[str]:
    with pytest.raises(PipelineValidationError) as raised:
        load_document(data)
    return [str(problem) for problem in raised.value.problems]


def test_defaults_fill_in_a_minimal_document():
    pipeline = load_document(minimal())
    assert pipeline.config.max_concurrency is None
    assert pipeline.config.stop_on_error is True
    assert pipeline.config.retries == 0
    assert pipeline.nodes == [] and pipeline.edges == []


def test_edges_default_to_the_out_and_in_ports():
    edge = load_document(minimal(edges=[{"source": "a", "target": "b"}])).edges[0]
    assert (edge.source_port, edge.target_port) == ("out", "in")


def test_a_bad_node_field_is_reported_at_that_node_and_field():
    data = minimal(
        nodes=[
            {"id": "read", "operator": "csv_input"},
            {"id": "clean", "operator": "filter", "retries": -1, "colour": "red"},
        ]
    )
    assert problems_of(data) == [
        "clean: Retries: must be at least 0",
        "clean: colour: unknown field; remove it or check its spelling",
    ]


def test_a_malformed_node_id_says_what_an_id_may_hold():
    data = minimal(nodes=[{"id": "1st node", "operator": "filter"}])
    assert problems_of(data) == [
        "1st node: Id: must start with a letter or _ and hold only letters, digits, _ and -"
    ]


def test_invalid_json_names_the_line_and_column():
    assert problems_of('{"name": "p",\n  oops}') == [
        "pipeline: not valid JSON: Expecting property name enclosed in double quotes "
        "at line 2 column 3"
    ]


def test_a_newer_format_version_is_refused_with_the_fix():
    assert problems_of(minimal(version=3)) == [
        "version: this document has format version 3, but this Pipewright reads up to "
        "version 2; upgrade Pipewright to open it"
    ]


def test_a_document_of_another_format_is_refused():
    assert problems_of(minimal(format="n8n.workflow")) == [
        "format: not a Pipewright pipeline (format is 'n8n.workflow')"
    ]


def test_a_version_1_document_loads_with_the_version_2_defaults():
    pipeline = load_document(minimal(version=1, config={"retries": 2}))
    assert pipeline.version == 2
    assert pipeline.config.retries == 2
    assert (pipeline.config.backend, pipeline.config.cache) == ("auto", True)
    assert pipeline.notes == [] and pipeline.groups == []


@pytest.mark.parametrize("path", GOLDEN, ids=[path.parent.name for path in GOLDEN])
def test_every_golden_pipeline_loads_and_exports_as_version_2(path):
    original = json.loads(path.read_text(encoding="utf-8"))
    text = dump_document(load_document(original))
    exported = json.loads(text)
    assert original["version"] == 1 and exported["version"] == 2
    assert exported["config"]["backend"] == "auto" and exported["config"]["cache"] is True
    assert {node["id"]: node.get("params") for node in original["nodes"]} == {
        node["id"]: node["params"] for node in exported["nodes"]
    }
    assert dump_document(load_document(text)) == text


EXPORTED_EXAMPLES = [
    "docs/examples/demo/pipeline.json",
    "editor/management/demo/seed_etl.json",
    "editor/management/demo/customers_join_and_branch.json",
]


@pytest.mark.parametrize("name", EXPORTED_EXAMPLES)
def test_the_examples_and_demo_seeds_are_current_exports(name):
    text = (ROOT / name).read_text(encoding="utf-8")
    assert dump_document(load_document(text)) == text


def test_a_format_version_before_the_first_is_refused():
    assert problems_of(minimal(version=0)) == [
        "version: unknown format version 0; this Pipewright reads version 2"
    ]


def test_an_older_format_version_is_migrated_step_by_step(monkeypatch):
    """Pretend the current format is 3 and version 2 named the description `summary`."""

    def rename_summary(data: dict) -> dict:
        data = dict(data)
        data["description"] = data.pop("summary", "")
        return data

    monkeypatch.setattr(spec, "FORMAT_VERSION", 3)
    monkeypatch.setattr(spec, "MIGRATIONS", {**spec.MIGRATIONS, 2: rename_summary})
    migrated = spec.migrate(minimal(version=1, summary="kept"))
    assert migrated["version"] == 3
    assert migrated["description"] == "kept"
    assert "summary" not in migrated


def test_export_sorts_nodes_and_edges_and_ends_with_a_newline():
    data = minimal(
        nodes=[{"id": "b", "operator": "x"}, {"id": "a", "operator": "x"}],
        edges=[{"source": "b", "target": "c"}, {"source": "a", "target": "c"}],
    )
    text = dump_document(load_document(data))
    exported = json.loads(text)
    assert [node["id"] for node in exported["nodes"]] == ["a", "b"]
    assert [edge["source"] for edge in exported["edges"]] == ["a", "b"]
    assert text.endswith("}\n")
    assert text == dump_document(load_document(text))


def test_export_keeps_non_ascii_text_readable():
    text = dump_document(load_document(minimal(name="Clients d'Île-de-France, 東京")))
    assert "Clients d'Île-de-France, 東京" in text


def test_the_json_schema_describes_version_2():
    schema = json_schema()
    assert schema["title"] == "Pipeline"
    assert schema["$id"] == "https://pipewright.dev/schema/pipeline-v2.json"
    assert schema["properties"]["version"]["const"] == 2
    assert {"nodes", "edges", "config", "notes", "groups"} <= set(schema["properties"])
    config = schema["$defs"]["Config"]["properties"]
    assert config["backend"]["enum"] == ["auto", "duckdb", "pandas"]
    assert config["cache"]["default"] is True
    assert {"Note", "Group"} <= set(schema["$defs"])
    color = schema["$defs"]["Note"]["properties"]["color"]
    assert color["enum"] == ["yellow", "blue", "green", "pink", "grey"]
    assert color["default"] == "yellow"


def test_the_published_json_schema_is_what_the_cli_prints(capsys):
    """Rewrite it with `python -m runtime schema > docs/pipeline.schema.json` when the
    document changes."""
    assert cli.main(["schema"]) == 0
    published = ROOT / "docs" / "pipeline.schema.json"
    assert published.read_text(encoding="utf-8") == capsys.readouterr().out


node_ids = st.from_regex(r"[A-Za-z_][A-Za-z0-9_-]{0,8}", fullmatch=True)
params = st.dictionaries(
    texts(min_size=1, max_size=8),
    st.recursive(json_scalars, lambda c: st.lists(c, max_size=3), max_leaves=5),
    max_size=3,
)


@st.composite
def documents(draw) -> dict:
    ids = draw(st.lists(node_ids, max_size=8, unique=True))
    nodes = [
        {
            "id": node_id,
            "operator": draw(st.sampled_from(["csv_input", "filter", "csv_output"])),
            "label": draw(texts(max_size=12)),
            "params": draw(params),
            "position": {"x": draw(st.integers(-500, 500)), "y": draw(st.floats(-1e4, 1e4))},
        }
        for node_id in ids
    ]
    edges = []
    if ids:
        for _ in range(draw(st.integers(0, 10))):
            edges.append(
                {"source": draw(st.sampled_from(ids)), "target": draw(st.sampled_from(ids))}
            )
    config = {"retries": draw(st.integers(0, 5)), "parameters": draw(st.dictionaries(
        st.from_regex(r"[a-z_][a-z0-9_]{0,6}", fullmatch=True), json_scalars, max_size=3
    ))}  # fmt: skip
    notes = [
        {"id": note_id, "text": draw(texts(max_size=30)),
         "width": draw(st.none() | st.integers(1, 900))}
        for note_id in draw(st.lists(node_ids, max_size=3, unique=True))
    ]  # fmt: skip
    groups = [
        {"id": group_id, "label": draw(texts(max_size=12)),
         "nodes": draw(st.lists(st.sampled_from(ids), unique=True)) if ids else []}
        for group_id in draw(st.lists(node_ids, max_size=3, unique=True))
    ]  # fmt: skip
    return minimal(
        name=draw(texts(min_size=1, max_size=20)), nodes=nodes, edges=edges, config=config,
        notes=notes, groups=groups,
    )  # fmt: skip


@bounded(200)
@given(documents())
def test_serialise_parse_serialise_gives_identical_bytes(data):
    first = dump_document(load_document(data))
    second = dump_document(load_document(first))
    assert first == second


LONG_FIELDS = {
    "name": (minimal(name="n" * 201), "Name: must be at most 200 characters"),
    "node id": (
        minimal(nodes=[{"id": "n" * 101, "operator": "x"}]),
        ": Id: must be at most 100 characters",
    ),
    "operator": (
        minimal(nodes=[{"id": "a", "operator": "o" * 101}]),
        "a: Operator: must be at most 100 characters",
    ),
    "label": (
        minimal(nodes=[{"id": "a", "operator": "x", "label": "l" * 201}]),
        "a: Label: must be at most 200 characters",
    ),
    "port": (
        minimal(edges=[{"source": "a", "target": "b", "target_port": "p" * 101}]),
        "Edges, item 1, Target port: must be at most 100 characters",
    ),
}


@pytest.mark.parametrize(("data", "message"), LONG_FIELDS.values(), ids=LONG_FIELDS)
def test_text_longer_than_its_database_column_is_refused(data, message):
    assert message in problems_of(data)[0]


def test_more_nodes_or_edges_than_the_limit_are_refused_at_once():
    nodes = [{"id": f"n{index}", "operator": "x"} for index in range(100_000)]
    assert problems_of(minimal(nodes=nodes)) == [
        f"Nodes: must have at most {spec.MAX_NODES} items, not 100000"
    ]
    edges = [{"source": "a", "target": "b"}] * (spec.MAX_EDGES + 1)
    assert "Edges: must have at most" in problems_of(minimal(edges=edges))[0]


@pytest.mark.parametrize(
    "data",
    [
        '{"name": "p", "nodes": [{"id": "a", "operator": "x", "position": {"x": NaN}}]}',
        minimal(nodes=[{"id": "a", "operator": "x", "position": {"x": float("inf")}}]),
        minimal(nodes=[{"id": "a", "operator": "x", "label": "a\x00b"}]),
    ],
    ids=["nan-text", "infinity-dict", "nul-dict"],
)
def test_a_document_from_text_or_a_dict_holds_no_nan_nor_nul(data):
    assert problems_of(data)
