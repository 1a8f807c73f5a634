"""Two people saving the same pipeline: a stale save that sends the document it started from
is merged with the save made meanwhile when they changed different things, and refused with
409 naming who saved and what both changed when they did not."""

from __future__ import annotations

import copy

import pytest

from editor.models import Role
from editor.workspaces.membership import create_workspace, set_member
from tests.editor.conftest import SEED, client_for, make_user, post_json, put_json

pytestmark = pytest.mark.django_db


@pytest.fixture
def two_editors(owner, data_root):
    """`(mine, theirs, pipeline id)`: two editors' clients of one pipeline in a team."""
    team = create_workspace("Team", admin=owner)
    colleague = make_user("grace", first_name="Grace", last_name="Hopper")
    set_member(team, colleague, Role.EDITOR)
    mine = client_for(owner)
    pipeline_id = post_json(mine, "/api/pipelines", {**SEED, "workspace": "team"}).json()["id"]
    return mine, client_for(colleague), pipeline_id


def set_param(body: dict, node_id: str, key: str, value) -> dict:
    changed = copy.deepcopy(body)
    next(node for node in changed["nodes"] if node["id"] == node_id)["params"][key] = value
    return changed


def test_a_stale_save_of_another_node_is_merged_and_says_what_came_from_theirs(two_editors):
    mine, theirs, pipeline_id = two_editors
    url = f"/api/pipelines/{pipeline_id}"
    loaded = mine.get(url).json()
    assert put_json(theirs, url, set_param(loaded, "read", "path", "staff.csv")).status_code == 200

    response = put_json(
        mine, url, {**set_param(loaded, "adults", "condition", "age >= 21"), "base": loaded}
    )

    assert response.status_code == 200, response.content
    answer = response.json()
    assert answer["revision"] == 3
    assert answer["merged"] == {
        "by": "Grace Hopper",
        "revision": 2,
        "nodes": [{"id": "read", "label": "read"}],
    }
    saved = {node["id"]: node["params"] for node in mine.get(url).json()["nodes"]}
    assert saved["read"] == {"path": "staff.csv"}
    assert saved["adults"] == {"condition": "age >= 21"}


def test_a_stale_save_of_the_same_node_is_a_409_naming_the_user_the_node_and_theirs(two_editors):
    mine, theirs, pipeline_id = two_editors
    url = f"/api/pipelines/{pipeline_id}"
    loaded = mine.get(url).json()
    put_json(theirs, url, set_param(loaded, "adults", "condition", "age >= 30"))

    response = put_json(
        mine, url, {**set_param(loaded, "adults", "condition", "age >= 21"), "base": loaded}
    )

    assert response.status_code == 409
    body = response.json()
    assert body["code"] == "conflict" and body["revision"] == 2
    assert body["saved_by"] == "Grace Hopper"
    assert [(c["kind"], c["id"], c["label"]) for c in body["conflicts"]] == [
        ("node", "adults", "adults")
    ]
    assert "Grace Hopper saved this pipeline meanwhile" in body["message"]
    theirs_adults = next(node for node in body["theirs"]["nodes"] if node["id"] == "adults")
    assert theirs_adults["params"] == {"condition": "age >= 30"}
    assert mine.get(url).json()["revision"] == 2  # nothing saved


def test_a_stale_save_without_its_base_is_a_409_naming_who_saved(two_editors):
    mine, theirs, pipeline_id = two_editors
    url = f"/api/pipelines/{pipeline_id}"
    loaded = mine.get(url).json()
    put_json(theirs, url, set_param(loaded, "read", "path", "staff.csv"))

    response = put_json(mine, url, set_param(loaded, "adults", "condition", "age >= 21"))

    assert response.status_code == 409
    assert response.json()["saved_by"] == "Grace Hopper"


def test_a_base_that_is_not_a_document_is_a_400_naming_the_field(two_editors):
    mine, theirs, pipeline_id = two_editors
    url = f"/api/pipelines/{pipeline_id}"
    loaded = mine.get(url).json()
    put_json(theirs, url, set_param(loaded, "read", "path", "staff.csv"))

    response = put_json(mine, url, {**loaded, "base": {"nodes": "many"}})

    assert response.status_code == 400
    assert response.json()["field"] == "base"


def test_two_stale_edges_that_close_a_cycle_together_are_a_409_naming_the_cycle(two_editors):
    mine, theirs, pipeline_id = two_editors
    url = f"/api/pipelines/{pipeline_id}"
    loaded = mine.get(url).json()

    def with_edge(source: str, target: str) -> dict:
        """Two new filters (the same on both sides), connected one way."""
        body = copy.deepcopy(loaded)
        body["nodes"] += [{"id": name, "operator": "filter", "params": {}} for name in ("f1", "f2")]
        body["edges"].append({"source": source, "target": target})
        return body

    assert put_json(theirs, url, with_edge("f1", "f2")).status_code == 200

    response = put_json(mine, url, {**with_edge("f2", "f1"), "base": loaded})

    assert response.status_code == 409, response.content
    body = response.json()
    assert body["saved_by"] == "Grace Hopper" and "cycle" in body["message"]
    assert [(c["id"], "cycle" in c["reason"]) for c in body["conflicts"]] in (
        [("f1", True)],
        [("f2", True)],
    )
    assert mine.get(url).json()["revision"] == 2  # nothing saved
