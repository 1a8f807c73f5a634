"""Three-way merge of two saves from the same base: changes to different things merge, the
same thing changed differently on both sides is a conflict naming it, and nothing either side
changed is dropped silently."""

from __future__ import annotations

import copy

from editor.pipelines.merge import merge_documents

BASE = {
    "name": "Adults",
    "description": "",
    "config": {"retries": 0, "parameters": {"min_age": 18}},
    "nodes": [
        {"id": "read", "operator": "csv_input", "label": "People", "params": {"path": "p.csv"},
         "position": {"x": 0, "y": 0}},
        {"id": "adults", "operator": "filter", "label": "Adults",
         "params": {"condition": "age >= 18"}, "position": {"x": 200, "y": 0}},
        {"id": "write", "operator": "csv_output", "label": "", "params": {"path": "out.csv"},
         "position": {"x": 400, "y": 0}},
    ],
    "edges": [
        {"source": "read", "source_port": "out", "target": "adults", "target_port": "in"},
        {"source": "adults", "source_port": "out", "target": "write", "target_port": "in"},
    ],
    "notes": [],
    "groups": [],
}  # fmt: skip


def edited(change) -> dict:
    document = copy.deepcopy(BASE)
    change(document)
    return document


def node(document: dict, node_id: str) -> dict:
    return next(item for item in document["nodes"] if item["id"] == node_id)


def set_param(node_id: str, key: str, value):
    return lambda document: node(document, node_id)["params"].__setitem__(key, value)


def test_changes_to_different_nodes_merge_and_name_the_nodes_taken_from_theirs():
    theirs = edited(set_param("read", "path", "q.csv"))
    mine = edited(set_param("adults", "condition", "age > 21"))

    merge = merge_documents(BASE, theirs, mine)

    assert merge.clean
    assert node(merge.document, "read")["params"] == {"path": "q.csv"}
    assert node(merge.document, "adults")["params"] == {"condition": "age > 21"}
    assert merge.from_theirs == ["read"]


def test_the_same_node_changed_differently_on_both_sides_is_a_conflict_naming_it():
    theirs = edited(set_param("adults", "condition", "age > 30"))
    mine = edited(set_param("adults", "condition", "age > 21"))

    merge = merge_documents(BASE, theirs, mine)

    assert [(c["id"], c["label"]) for c in merge.conflicts] == [("adults", "Adults")]


def test_the_same_change_on_both_sides_is_no_conflict():
    change = set_param("adults", "condition", "age > 21")
    merge = merge_documents(BASE, edited(change), edited(change))
    assert merge.clean and merge.document["nodes"] == edited(change)["nodes"]


def test_one_side_moving_a_node_the_other_edited_keeps_both():
    theirs = edited(lambda d: node(d, "adults").__setitem__("position", {"x": 5, "y": 5}))
    mine = edited(set_param("adults", "condition", "age > 21"))

    merge = merge_documents(BASE, theirs, mine)

    assert merge.clean
    assert node(merge.document, "adults")["position"] == {"x": 5, "y": 5}
    assert node(merge.document, "adults")["params"] == {"condition": "age > 21"}


def test_both_moving_the_same_node_keeps_mine_without_a_conflict():
    theirs = edited(lambda d: node(d, "adults").__setitem__("position", {"x": 5, "y": 5}))
    mine = edited(lambda d: node(d, "adults").__setitem__("position", {"x": 9, "y": 9}))
    merge = merge_documents(BASE, theirs, mine)
    assert merge.clean and node(merge.document, "adults")["position"] == {"x": 9, "y": 9}


def add_node_after(source: str, new_id: str):
    def change(document):
        document["nodes"].append({"id": new_id, "operator": "sort", "params": {}})
        document["edges"].append(
            {"source": source, "source_port": "out", "target": new_id, "target_port": "in"}
        )

    return change


def remove_edge(source: str, target: str):
    def change(document):
        document["edges"] = [
            e for e in document["edges"] if (e["source"], e["target"]) != (source, target)
        ]

    return change


def both(*changes):
    return lambda document: [change(document) for change in changes]


def test_edges_added_and_removed_on_both_sides_all_apply():
    theirs = edited(both(add_node_after("read", "sorted"), remove_edge("adults", "write")))
    mine = edited(both(add_node_after("adults", "limited"), remove_edge("read", "adults")))

    merge = merge_documents(BASE, theirs, mine)

    assert merge.clean
    assert {(e["source"], e["target"]) for e in merge.document["edges"]} == {
        ("read", "sorted"),
        ("adults", "limited"),
    }
    assert {n["id"] for n in merge.document["nodes"]} == {
        "read", "adults", "write", "sorted", "limited",
    }  # fmt: skip
    assert merge.from_theirs == ["sorted"]


def remove_node(node_id: str):
    def change(document):
        document["nodes"] = [n for n in document["nodes"] if n["id"] != node_id]
        document["edges"] = [
            e for e in document["edges"] if node_id not in (e["source"], e["target"])
        ]

    return change


def test_a_node_removed_on_one_side_and_edited_on_the_other_is_a_conflict():
    theirs = edited(remove_node("adults"))
    mine = edited(set_param("adults", "condition", "age > 21"))

    merge = merge_documents(BASE, theirs, mine)

    assert [(c["id"], c["reason"]) for c in merge.conflicts] == [
        ("adults", "removed by them, changed by you")
    ]
    mine_removed = merge_documents(BASE, mine, theirs)
    assert [c["id"] for c in mine_removed.conflicts] == ["adults"]


def test_a_node_removed_on_one_side_and_untouched_on_the_other_is_removed():
    merge = merge_documents(
        BASE, edited(remove_node("write")), edited(set_param("read", "path", "x"))
    )
    assert merge.clean
    assert [n["id"] for n in merge.document["nodes"]] == ["read", "adults"]
    assert [e["target"] for e in merge.document["edges"]] == ["adults"]


def test_connecting_to_a_node_the_other_side_removed_is_a_conflict():
    theirs = edited(remove_node("write"))
    mine = edited(add_node_after("write", "sorted"))
    merge = merge_documents(BASE, theirs, mine)
    assert [c["id"] for c in merge.conflicts] == ["write"]


def test_both_sides_connecting_the_same_input_is_a_conflict_on_its_node():
    def connect(source):
        def change(document):
            document["nodes"].append({"id": source, "operator": "csv_input", "params": {}})
            document["edges"] = [e for e in document["edges"] if e["target"] != "adults"]
            document["edges"].append(
                {"source": source, "source_port": "out", "target": "adults", "target_port": "in"}
            )

        return change

    merge = merge_documents(BASE, edited(connect("left")), edited(connect("right")))
    assert [(c["id"], c["reason"]) for c in merge.conflicts] == [
        ("adults", "both connected its in")
    ]


def test_pipeline_settings_and_parameters_merge_by_key():
    def theirs_change(document):
        document["config"]["retries"] = 2
        document["config"]["parameters"]["country"] = "NL"

    def mine_change(document):
        document["name"] = "Grown-ups"
        document["config"]["parameters"]["min_age"] = 21

    merge = merge_documents(BASE, edited(theirs_change), edited(mine_change))

    assert merge.clean
    assert merge.document["name"] == "Grown-ups"
    assert merge.document["config"] == {
        "retries": 2,
        "parameters": {"min_age": 21, "country": "NL"},
    }


def test_a_setting_changed_differently_on_both_sides_is_a_conflict_naming_it():
    theirs = edited(lambda d: d.__setitem__("name", "Theirs"))
    mine = edited(lambda d: d["config"]["parameters"].__setitem__("min_age", 30))
    mine["name"] = "Mine"
    merge = merge_documents(BASE, theirs, mine)
    assert [(c["kind"], c["id"]) for c in merge.conflicts] == [("pipeline", "name")]


def test_the_merge_leaves_its_inputs_as_they_were():
    theirs, mine = edited(remove_node("write")), edited(set_param("read", "path", "x"))
    mine["groups"] = [{"id": "g", "nodes": ["write", "read"]}]
    before = copy.deepcopy((theirs, mine))
    merge = merge_documents(BASE, theirs, mine)
    assert (theirs, mine) == before
    assert merge.document["groups"][0]["nodes"] == ["read"]
