"""Notes and groups in the document: kept, exported in a stable order, checked, never run."""

from __future__ import annotations

import json

import pytest

from runtime.checks.analysis import load_checked
from runtime.document import spec
from runtime.document.spec import dump_document, load_document
from runtime.errors import PipelineValidationError
from runtime.plan import build_plan

NODES = [{"id": "read", "operator": "csv_input"}, {"id": "keep", "operator": "filter"}]


def document(**extra) -> dict:
    return {"format": "pipewright.pipeline", "version": 2, "name": "p", "nodes": NODES, **extra}


def problems_of(data) -> list:
    with pytest.raises(PipelineValidationError) as raised:
        load_checked(data)
    return raised.value.problems


def test_notes_and_groups_are_exported_sorted_by_id_with_their_defaults():
    data = document(
        notes=[{"id": "n2", "text": "**why** we filter"}, {"id": "n1", "width": 120}],
        groups=[{"id": "g1", "label": "Inputs", "nodes": ["read", "keep"]}],
    )
    exported = json.loads(dump_document(load_document(data)))
    assert exported["notes"] == [
        {"id": "n1", "text": "", "position": {"x": 0.0, "y": 0.0}, "width": 120.0, "height": None,
         "color": "yellow"},
        {"id": "n2", "text": "**why** we filter", "position": {"x": 0.0, "y": 0.0},
         "width": None, "height": None, "color": "yellow"},
    ]  # fmt: skip
    assert exported["groups"] == [
        {"id": "g1", "label": "Inputs", "position": {"x": 0.0, "y": 0.0}, "width": 400.0,
         "height": 300.0, "nodes": ["keep", "read"]},
    ]  # fmt: skip


def test_a_group_framing_an_unknown_node_names_the_group_and_field():
    problems = problems_of(document(groups=[{"id": "inputs", "nodes": ["read", "ghost"]}]))
    assert [(problem.field, str(problem)) for problem in problems] == [
        (
            "groups.0.nodes.1",
            "Groups, item 1, Nodes, item 2: group 'inputs' frames 'ghost', which is no node "
            "of this pipeline; remove it",
        )
    ]
    assert problems[0].code == "unknown_group_node"


def test_a_group_framing_a_node_twice_is_refused():
    problems = problems_of(document(groups=[{"id": "g", "nodes": ["read", "keep", "read"]}]))
    assert [str(problem) for problem in problems] == [
        "Groups, item 1, Nodes, item 3: group 'g' frames 'read' twice; keep it once"
    ]


@pytest.mark.parametrize(
    ("key", "noun"), [("notes", "note"), ("groups", "group")], ids=["notes", "groups"]
)
def test_two_notes_or_two_groups_may_not_share_an_id(key, noun):
    problems = problems_of(document(**{key: [{"id": "a"}, {"id": "b"}, {"id": "a"}]}))
    assert [(problem.field, problem.code, str(problem)) for problem in problems] == [
        (
            f"{key}.2.id",
            f"duplicate_{noun}",
            f"{key.capitalize()}, item 3, Id: another {noun} has the id 'a'; "
            f"give each {noun} its own id",
        )
    ]


def test_a_note_and_a_group_may_share_an_id_with_a_node():
    pipeline = load_document(
        document(notes=[{"id": "read"}], groups=[{"id": "keep", "nodes": ["keep"]}])
    )
    assert [note.id for note in pipeline.notes] == ["read"]


def test_the_graph_s_problems_are_reported_with_those_of_the_groups():
    data = document(
        edges=[{"source": "read", "target": "nowhere"}],
        groups=[{"id": "g", "nodes": ["nowhere"]}],
    )
    assert {problem.code for problem in problems_of(data)} == {
        "unknown_group_node",
        "dangling_edge",
    }


LIMITS = {
    "note text": (
        {"notes": [{"id": "n", "text": "t" * (spec.NOTE_TEXT_MAX_LENGTH + 1)}]},
        "notes.0.text",
        "Notes, item 1, Text: must be at most 10000 characters",
    ),
    "group label": (
        {"groups": [{"id": "g", "label": "l" * 201}]},
        "groups.0.label",
        "Groups, item 1, Label: must be at most 200 characters",
    ),
    "note id": (
        {"notes": [{"id": "1 note"}]},
        "notes.0.id",
        "Notes, item 1, Id: must match the pattern ^[A-Za-z_][A-Za-z0-9_-]*$",
    ),
    "group size": (
        {"groups": [{"id": "g", "width": 0}]},
        "groups.0.width",
        "Groups, item 1, Width: must be greater than 0",
    ),
    "note colour": (
        {"notes": [{"id": "n", "color": "red"}]},
        "notes.0.color",
        "Notes, item 1, Colour: must be one of 'yellow', 'blue', 'green', 'pink' or 'grey'",
    ),
    "note count": (
        {"notes": [{"id": f"n{index}"} for index in range(spec.MAX_NOTES + 1)]},
        "notes",
        "Notes: must have at most 1000 items, not 1001",
    ),
}


@pytest.mark.parametrize(("extra", "field", "message"), LIMITS.values(), ids=LIMITS)
def test_notes_and_groups_beyond_their_limits_are_refused_at_the_field(extra, field, message):
    problems = problems_of(document(**extra))
    assert [(problem.field, str(problem)) for problem in problems] == [(field, message)]


def test_the_plan_holds_only_the_nodes_whatever_notes_and_groups_say():
    data = document(
        nodes=[
            {"id": "read", "operator": "csv_input", "params": {"path": "in.csv"}},
            {"id": "write", "operator": "csv_output", "params": {"path": "out.csv"}},
        ],
        edges=[{"source": "read", "target": "write"}],
        notes=[{"id": "n", "text": "reads then writes"}],
        groups=[{"id": "g", "label": "All", "nodes": ["read", "write"]}],
    )
    assert build_plan(load_document(data)).order == ["read", "write"]
