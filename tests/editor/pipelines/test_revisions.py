"""History: which saves keep a version, which compact into the newest, and the API that lists,
reads, compares and restores versions (restoring is a save like any other)."""

from __future__ import annotations

import copy
from datetime import timedelta

import pytest
from django.utils import timezone

from editor.models import Pipeline, PipelineRevision, Role
from editor.workspaces.membership import create_workspace, set_member
from tests.editor.conftest import SEED, client_for, make_user, post_json, put_json

pytestmark = pytest.mark.django_db


def history(client, pipeline_id: int) -> list[dict]:
    response = client.get(f"/api/pipelines/{pipeline_id}/revisions")
    assert response.status_code == 200, response.content
    return response.json()["items"]


def save(client, pipeline_id: int, change) -> dict:
    body = client.get(f"/api/pipelines/{pipeline_id}").json()
    change(body)
    response = put_json(client, f"/api/pipelines/{pipeline_id}", body)
    assert response.status_code == 200, response.content
    return response.json()


def a_minute_passes(pipeline_id: int) -> None:
    """Every kept version of the pipeline was first saved over a minute ago."""
    earlier = timezone.now() - timedelta(minutes=2)
    PipelineRevision.objects.filter(pipeline=pipeline_id).update(created_at=earlier)


def set_condition(condition: str):
    def change(body):
        body["nodes"][0]["params"]["condition"] = condition  # nodes sorted: "adults" first

    return change


def move_adults(x: float):
    def change(body):
        body["nodes"][0]["position"] = {"x": x, "y": 0}

    return change


def test_a_new_pipeline_starts_its_history_with_one_version(client, pipeline_id):
    [first] = history(client, pipeline_id)
    assert first["revision"] == 1 and first["kind"] == "created"
    assert first["author"] == "owner" and first["summary"] == "created"


def test_an_imported_pipeline_says_so(client):
    response = post_json(client, "/api/pipelines/import", SEED)
    assert history(client, response.json()["id"])[0]["summary"] == "imported"


def test_a_save_that_changes_a_param_keeps_a_version_naming_the_node_and_field(client, pipeline_id):
    a_minute_passes(pipeline_id)
    save(client, pipeline_id, set_condition("age >= 21"))
    newest, first = history(client, pipeline_id)
    assert newest["revision"] == 2 and newest["kind"] == "saved"
    assert newest["summary"] == "changed adults (params.condition)"
    assert first["revision"] == 1


def test_a_save_that_only_moves_nodes_keeps_no_version_but_the_newest_has_the_positions(
    client, pipeline_id
):
    a_minute_passes(pipeline_id)
    save(client, pipeline_id, move_adults(480))
    [only] = history(client, pipeline_id)
    document = client.get(f"/api/pipelines/{pipeline_id}/revisions/{only['revision']}").json()
    assert document["document"]["nodes"][0]["position"] == {"x": 480.0, "y": 0.0}
    assert only["summary"] == "created"


def test_one_users_saves_within_a_minute_compact_into_one_version(client, pipeline_id):
    a_minute_passes(pipeline_id)
    save(client, pipeline_id, set_condition("age >= 21"))

    def relabel(body):
        body["nodes"][2]["label"] = "Write the adults"

    save(client, pipeline_id, relabel)
    newest, first = history(client, pipeline_id)
    assert newest["revision"] == 2 and first["revision"] == 1
    assert newest["summary"] == "changed adults (params.condition), write (label)"
    document = client.get(f"/api/pipelines/{pipeline_id}/revisions/2").json()["document"]
    assert document["nodes"][2]["label"] == "Write the adults"


def test_another_users_save_within_the_minute_is_a_version_of_its_own(owner, data_root):
    team = create_workspace("Team", admin=owner)
    colleague = make_user("colleague")
    set_member(team, colleague, Role.EDITOR)
    mine = client_for(owner)
    pipeline_id = post_json(mine, "/api/pipelines", {**SEED, "workspace": "team"}).json()["id"]
    a_minute_passes(pipeline_id)
    save(mine, pipeline_id, set_condition("age >= 21"))
    save(client_for(colleague), pipeline_id, set_condition("age >= 30"))
    assert [(item["revision"], item["author"]) for item in history(mine, pipeline_id)] == [
        (3, "colleague"),
        (2, "owner"),
        (1, "owner"),
    ]


def test_history_keeps_the_newest_versions_up_to_its_limit(client, pipeline_id, settings):
    settings.PIPEWRIGHT_KEEP_REVISIONS = 3
    for age in (20, 21, 22, 23):
        a_minute_passes(pipeline_id)
        save(client, pipeline_id, set_condition(f"age >= {age}"))
    assert [item["revision"] for item in history(client, pipeline_id)] == [5, 4, 3]
    missing = client.get(f"/api/pipelines/{pipeline_id}/revisions/1")
    assert missing.status_code == 404
    assert missing.json()["message"] == "history keeps no revision 1 of this pipeline"


def test_a_pipeline_saved_before_history_existed_gets_its_stored_document_as_first_version(
    client, pipeline_id
):
    PipelineRevision.objects.filter(pipeline=pipeline_id).delete()
    Pipeline.objects.filter(pk=pipeline_id).update(revision=7)
    [first] = history(client, pipeline_id)
    assert first["revision"] == 7 and first["summary"] == "as it was before history was kept"
    save(client, pipeline_id, set_condition("age >= 21"))
    assert [item["revision"] for item in history(client, pipeline_id)] == [8, 7]


def test_the_diff_names_exactly_the_nodes_and_edges_that_changed(client, pipeline_id):
    a_minute_passes(pipeline_id)

    def rework(body):
        body["nodes"][0]["params"]["condition"] = "age >= 21"
        body["nodes"][1]["position"] = {"x": 999, "y": 9}  # read: moved only
        body["nodes"].append({"id": "sorted", "operator": "sort", "params": {"by": ["age"]}})
        body["edges"] = [edge for edge in body["edges"] if edge["target"] != "write"]
        body["edges"] += [
            {"source": "adults", "target": "sorted"},
            {"source": "sorted", "target": "write"},
        ]

    save(client, pipeline_id, rework)
    diff = client.get(f"/api/pipelines/{pipeline_id}/diff?from=1&to=2").json()
    assert diff["nodes"] == {
        "added": ["sorted"],
        "removed": [],
        "changed": [
            {
                "id": "adults",
                "changes": [
                    {"field": "params.condition", "from": "age >= ${min_age}", "to": "age >= 21"}
                ],
            }
        ],
        "moved": ["read"],
    }
    port = {"source_port": "out", "target_port": "in"}
    assert diff["edges"] == {
        "added": [
            {"source": "adults", "target": "sorted", **port},
            {"source": "sorted", "target": "write", **port},
        ],
        "removed": [{"source": "adults", "target": "write", **port}],
    }
    assert diff["summary"] == (
        "added sorted; changed adults (params.condition); added 2 edges; removed 1 edge"
    )
    backwards = client.get(f"/api/pipelines/{pipeline_id}/diff?from=2&to=1").json()
    assert backwards["nodes"]["removed"] == ["sorted"]


def test_restoring_a_version_saves_its_document_as_a_new_restorable_version(client, pipeline_id):
    original = client.get(f"/api/pipelines/{pipeline_id}").json()
    a_minute_passes(pipeline_id)
    save(client, pipeline_id, set_condition("age >= 21"))
    restored = post_json(
        client, f"/api/pipelines/{pipeline_id}/revisions/1/restore", {"revision": 2}
    )
    assert restored.status_code == 200, restored.content
    body = restored.json()
    assert body["revision"] == 3 and body["nodes"] == original["nodes"]
    assert "problems" in body and "schemas" in body
    newest = history(client, pipeline_id)[0]
    assert newest["kind"] == "restored" and newest["revision"] == 3
    assert newest["summary"] == "restored revision 1: changed adults (params.condition)"
    undo = post_json(client, f"/api/pipelines/{pipeline_id}/revisions/2/restore", {"revision": 3})
    assert undo.json()["nodes"][0]["params"]["condition"] == "age >= 21"


def test_a_restore_answer_sent_back_with_an_edit_saves_the_edit(client, pipeline_id):
    """A client that edits what the restore answered and saves it, `problems` and `schemas`
    included (the answer's read-only fields), gets the edit saved, not a refusal."""
    a_minute_passes(pipeline_id)
    save(client, pipeline_id, set_condition("age >= 21"))
    body = post_json(
        client, f"/api/pipelines/{pipeline_id}/revisions/1/restore", {"revision": 2}
    ).json()
    set_condition("age >= 40")(body)
    saved = put_json(client, f"/api/pipelines/{pipeline_id}", body)
    assert saved.status_code == 200, saved.content
    reloaded = client.get(f"/api/pipelines/{pipeline_id}").json()
    assert reloaded["nodes"][0]["params"]["condition"] == "age >= 40"
    assert "problems" not in reloaded and "schemas" not in reloaded


def test_a_restore_keeps_the_current_name_and_a_save_after_it_too(client, pipeline_id):
    """A restore brings back the graph, not the title the pipeline had then."""
    a_minute_passes(pipeline_id)

    def rename_and_edit(body):
        body["name"] = "Adults, renamed"
        set_condition("age >= 21")(body)

    save(client, pipeline_id, rename_and_edit)
    body = post_json(
        client, f"/api/pipelines/{pipeline_id}/revisions/1/restore", {"revision": 2}
    ).json()
    assert body["name"] == "Adults, renamed"
    assert body["nodes"][0]["params"]["condition"] != "age >= 21"
    assert history(client, pipeline_id)[0]["summary"].startswith("restored revision 1: changed")
    set_condition("age >= 40")(body)
    assert put_json(client, f"/api/pipelines/{pipeline_id}", body).status_code == 200
    assert client.get(f"/api/pipelines/{pipeline_id}").json()["name"] == "Adults, renamed"


def test_a_restore_over_a_stale_revision_is_refused_and_changes_nothing(client, pipeline_id):
    a_minute_passes(pipeline_id)
    save(client, pipeline_id, set_condition("age >= 21"))
    stale = post_json(client, f"/api/pipelines/{pipeline_id}/revisions/1/restore", {"revision": 1})
    assert stale.status_code == 409 and stale.json()["code"] == "conflict"
    assert len(history(client, pipeline_id)) == 2
    assert client.get(f"/api/pipelines/{pipeline_id}").json()["revision"] == 2


def test_a_restore_without_a_revision_is_refused_naming_the_field(client, pipeline_id):
    response = post_json(client, f"/api/pipelines/{pipeline_id}/revisions/1/restore", {})
    assert response.status_code == 422
    assert [problem["field"] for problem in response.json()["problems"]] == ["revision"]


def test_a_stored_version_that_no_longer_loads_is_refused_not_restored(client, pipeline_id):
    version = PipelineRevision.objects.get(pipeline=pipeline_id)
    broken = copy.deepcopy(version.document)
    broken["nodes"][0]["surprise"] = True
    PipelineRevision.objects.filter(pk=version.pk).update(document=broken)
    response = post_json(
        client, f"/api/pipelines/{pipeline_id}/revisions/1/restore", {"revision": 1}
    )
    assert response.status_code == 400
    assert response.json()["message"].startswith("revision 1 can no longer be loaded")


def test_a_viewer_reads_history_but_cannot_restore(owner, data_root):
    team = create_workspace("Team", admin=owner)
    viewer = make_user("viewer")
    set_member(team, viewer, Role.VIEWER)
    pipeline_id = post_json(
        client_for(owner), "/api/pipelines", {**SEED, "workspace": "team"}
    ).json()["id"]
    theirs = client_for(viewer)
    assert len(history(theirs, pipeline_id)) == 1
    assert theirs.get(f"/api/pipelines/{pipeline_id}/diff?from=1&to=1").status_code == 200
    restore = post_json(
        theirs, f"/api/pipelines/{pipeline_id}/revisions/1/restore", {"revision": 1}
    )
    assert restore.status_code == 403


def test_another_users_history_is_not_found(client, pipeline_id, other):
    stranger = client_for(other)
    for url in ("revisions", "revisions/1", "diff?from=1&to=1"):
        assert stranger.get(f"/api/pipelines/{pipeline_id}/{url}").status_code == 404
    restore = post_json(
        stranger, f"/api/pipelines/{pipeline_id}/revisions/1/restore", {"revision": 1}
    )
    assert restore.status_code == 404


@pytest.mark.parametrize("query", ["from=0&to=1", "from=x&to=1", "to=1", "from=1&to=99999999999"])
def test_a_malformed_diff_query_is_a_client_error(client, pipeline_id, query):
    response = client.get(f"/api/pipelines/{pipeline_id}/diff?{query}")
    assert 400 <= response.status_code < 500


def test_history_keeps_no_more_bytes_than_its_limit_but_always_the_last_change(
    client, pipeline_id, settings
):
    """A user saving a large document again and again cannot fill the database: past
    PIPEWRIGHT_KEEP_REVISIONS_MB the oldest versions go, yet the newest two always stay."""
    settings.PIPEWRIGHT_KEEP_REVISIONS_MB = 1
    large = "x" * 400_000  # each version about 0.4 MB
    for index in range(4):
        a_minute_passes(pipeline_id)

        def describe(body, index=index):
            body["description"] = f"{index}{large}"

        save(client, pipeline_id, describe)
    kept = PipelineRevision.objects.filter(pipeline=pipeline_id)
    assert [version.revision for version in kept] == [5, 4]
    assert all(version.size > 400_000 for version in kept)
    settings.PIPEWRIGHT_KEEP_REVISIONS_MB = 0  # whatever the limit, the last change stays
    a_minute_passes(pipeline_id)
    save(client, pipeline_id, set_condition("age >= 99"))
    assert [item["revision"] for item in history(client, pipeline_id)] == [6, 5]


def test_what_an_unsaved_version_changes_in_the_saved_one_is_answered_without_saving_it(
    client, pipeline_id
):
    """After a refused save (409), the editor asks what its version changes in the one saved
    meanwhile: the server's diff, from the saved revision to the document sent."""
    mine = client.get(f"/api/pipelines/{pipeline_id}").json()
    save(client, pipeline_id, set_condition("age >= 21"))  # someone else's save
    set_condition("age >= 40")(mine)
    mine["name"] = "mine"
    answer = post_json(client, f"/api/pipelines/{pipeline_id}/diff", mine)
    assert answer.status_code == 200, answer.content
    body = answer.json()
    assert body["from"] == 2
    assert body["summary"] == "changed adults (params.condition); changed name"
    [changed] = body["nodes"]["changed"]
    assert changed["changes"] == [
        {"field": "params.condition", "from": "age >= 21", "to": "age >= 40"}
    ]
    assert client.get(f"/api/pipelines/{pipeline_id}").json()["revision"] == 2  # nothing saved
