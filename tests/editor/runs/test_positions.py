"""Incremental inputs in the web app: positions kept per pipeline and node, advanced only by a
run that succeeded as a whole, read and reset through the API by whom the role allows."""

from __future__ import annotations

import pytest

from editor.models import InputPosition, Role
from editor.workspaces.membership import create_workspace, set_member
from tests.editor.conftest import client_for, post_json, wait_for_run

pytestmark = pytest.mark.django_db(transaction=True)


def document(mode: str = "overwrite") -> dict:
    return {
        "format": "pipewright.pipeline", "version": 1, "name": "Incremental",
        "nodes": [
            {"id": "read", "operator": "csv_input", "params": {
                "path": "in", "incremental": {"mode": "watermark", "column": "id"}}},
            {"id": "write", "operator": "csv_output", "params": {"path": "out.csv", "mode": mode}},
        ],
        "edges": [{"source": "read", "target": "write"}],
    }  # fmt: skip


@pytest.fixture
def folder(data_root):
    (data_root / "in").mkdir()
    (data_root / "in" / "a.csv").write_text("id,name\n1,Ada\n2,Linus\n")
    return data_root


def created(client, body: dict) -> int:
    response = post_json(client, "/api/pipelines", body)
    assert response.status_code == 201, response.content
    return response.json()["id"]


def run(client, pipeline_id: int):
    response = post_json(client, f"/api/pipelines/{pipeline_id}/runs", {})
    assert response.status_code == 202, response.content
    return wait_for_run(response.json()["id"])


def position_url(pipeline_id: int, node: str = "read") -> str:
    return f"/api/pipelines/{pipeline_id}/nodes/{node}/position"


def test_a_successful_run_keeps_the_position_and_the_next_run_starts_there(client, folder):
    pipeline_id = created(client, document())
    first = run(client, pipeline_id)
    assert first.status == "succeeded", first.error
    shown = client.get(position_url(pipeline_id)).json()
    assert shown["position"] == {"column": "id", "type": "integer", "value": 2}
    assert (shown["run_id"], shown["run_number"]) == (first.pk, 1)
    (folder / "in" / "b.csv").write_text("id,name\n2,Again\n3,Grace\n")
    second = run(client, pipeline_id)
    assert second.status == "succeeded", second.error
    assert (folder / "out.csv").read_text() == "id,name\n3,Grace\n"
    assert client.get(position_url(pipeline_id)).json()["run_number"] == 2


def test_a_failed_run_leaves_the_position_so_the_next_reads_the_same_rows(client, folder):
    pipeline_id = created(client, document(mode="error_if_exists"))
    assert run(client, pipeline_id).status == "succeeded"
    (folder / "in" / "b.csv").write_text("id,name\n3,Grace\n")
    failed = run(client, pipeline_id)  # out.csv exists
    assert failed.status == "failed"
    kept = InputPosition.objects.get(pipeline_id=pipeline_id, node_id="read")
    assert (kept.position["value"], kept.run_number) == (2, 1)
    (folder / "out.csv").unlink()
    assert run(client, pipeline_id).status == "succeeded"
    assert (folder / "out.csv").read_text() == "id,name\n3,Grace\n"


def test_a_reset_position_makes_the_next_run_read_everything(client, folder):
    pipeline_id = created(client, document())
    run(client, pipeline_id)
    assert client.delete(position_url(pipeline_id)).status_code == 204
    assert client.get(position_url(pipeline_id)).json()["code"] == "no_position"
    assert run(client, pipeline_id).status == "succeeded"
    assert (folder / "out.csv").read_text() == "id,name\n1,Ada\n2,Linus\n"


def test_viewers_read_positions_editors_reset_them_and_others_get_404(owner, other, data_root):
    team = create_workspace("Team", admin=owner)
    team_folder = data_root.parent / team.slug
    (team_folder / "in").mkdir(parents=True)
    (team_folder / "in" / "a.csv").write_text("id\n1\n")
    owner_client = client_for(owner)
    pipeline_id = created(owner_client, {**document(), "workspace": team.slug})
    assert run(owner_client, pipeline_id).status == "succeeded"
    stranger = client_for(other)
    assert stranger.get(position_url(pipeline_id)).status_code == 404
    assert stranger.delete(position_url(pipeline_id)).status_code == 404
    set_member(team, other, Role.VIEWER)
    assert stranger.get(position_url(pipeline_id)).status_code == 200
    assert stranger.delete(position_url(pipeline_id)).status_code == 403
    set_member(team, other, Role.EDITOR)
    assert stranger.delete(position_url(pipeline_id)).status_code == 204
    assert not InputPosition.objects.exists()


def test_an_unknown_node_has_no_position(client, folder):
    pipeline_id = created(client, document())
    response = client.get(position_url(pipeline_id, "ghost"))
    assert response.status_code == 404 and "ghost" in response.json()["message"]
