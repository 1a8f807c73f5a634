"""The difference of two documents: what history counts as a change, and how it says it."""

from __future__ import annotations

import copy

from runtime.document.diff import changes_content, diff_documents, summarise
from runtime.document.spec import load_document, to_json_dict

BASE = to_json_dict(
    load_document(
        {
            "format": "pipewright.pipeline",
            "version": 2,
            "name": "Base",
            "nodes": [
                {"id": "read", "operator": "csv_input", "params": {"path": "a.csv"}},
                {"id": "keep", "operator": "filter", "params": {"condition": "x > 1"}},
            ],
            "edges": [{"source": "read", "target": "keep"}],
            "notes": [{"id": "n1", "text": "why", "position": {"x": 0, "y": 0}}],
            "groups": [{"id": "g1", "label": "Load", "nodes": ["read"]}],
        }
    )
)


def edited(change) -> dict:
    document = copy.deepcopy(BASE)
    change(document)
    return document


def test_identical_documents_have_no_changes():
    diff = diff_documents(BASE, copy.deepcopy(BASE))
    assert not changes_content(diff) and summarise(diff) == "no changes"


def test_moving_and_resizing_things_is_layout_not_content():
    def arrange(document):
        document["nodes"][0]["position"] = {"x": 300.0, "y": 20.0}
        document["notes"][0]["width"] = 250.0
        document["groups"][0]["position"] = {"x": 5.0, "y": 5.0}

    diff = diff_documents(BASE, edited(arrange))
    assert not changes_content(diff)
    assert diff["nodes"]["moved"] == [BASE["nodes"][0]["id"]]
    assert diff["notes"]["moved"] == ["n1"] and diff["groups"]["moved"] == ["g1"]
    assert summarise(diff) == "moved things on the canvas"


def test_settings_notes_and_groups_are_content():
    def rework(document):
        document["config"]["retries"] = 2
        document["notes"][0]["text"] = "because"
        document["groups"][0]["nodes"] = ["read", "keep"]
        document["name"] = "Renamed"

    diff = diff_documents(BASE, edited(rework))
    assert changes_content(diff)
    assert diff["pipeline"] == [
        {"field": "name", "from": "Base", "to": "Renamed"},
        {"field": "config.retries", "from": 0, "to": 2},
    ]
    assert diff["notes"]["changed"] == [
        {"id": "n1", "changes": [{"field": "text", "from": "why", "to": "because"}]}
    ]
    assert summarise(diff) == (
        "changed note n1 (text); changed group g1 (nodes); changed name, config.retries"
    )


def test_a_param_removed_reads_as_changed_to_none():
    diff = diff_documents(BASE, edited(lambda document: document["nodes"][0]["params"].clear()))
    [change] = diff["nodes"]["changed"][0]["changes"]
    assert change == {"field": "params.condition", "from": "x > 1", "to": None}


def test_a_summary_names_a_few_items_then_counts_the_rest():
    def many(document):
        for index in range(7):
            document["nodes"].append({**document["nodes"][1], "id": f"copy{index}"})

    assert summarise(diff_documents(BASE, edited(many))) == ("added copy0, copy1, copy2 and 4 more")


def test_adding_a_check_to_a_node_is_a_content_change():
    diff = diff_documents(
        BASE,
        edited(lambda d: d["nodes"][0].update(expect=[{"check": "row_count", "min": 1}])),
    )
    assert changes_content(diff)
    assert diff["nodes"]["changed"][0]["changes"][0]["field"] == "expect"
