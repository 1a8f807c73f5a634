"""Rotating a webhook trigger's secret: the new one is told once; the old one is refused at
once, or after the grace period when asked to stay; only an editor of the pipeline rotates;
the audit log records the rotation, never a secret."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest
from django.utils import timezone

from editor.models import AuditEntry, Membership, Role, Trigger, TriggerEvent
from tests.editor.conftest import client_for, make_user, post_json
from tests.editor.triggers.test_webhook_triggers import (
    call,
    runs_stay_queued,  # noqa: F401  (a fixture)
)

pytestmark = pytest.mark.django_db


def rotate(client, hook: dict, body: dict | None = None):
    url = f"/api/pipelines/{hook['pipeline']}/triggers/{hook['id']}/rotate-secret"
    return post_json(client, url, body or {})


def test_a_rotated_secret_signs_at_once_and_the_old_one_is_refused(client, webhook):
    answer = rotate(client, webhook)

    assert answer.status_code == 200, answer.content
    rotated = answer.json()
    assert rotated["secret"].startswith("whsec_") and rotated["secret"] != webhook["secret"]
    assert rotated["old_secret_valid_until"] is None
    assert rotated["webhook_url"] == webhook["webhook_url"]  # the callers' address stays
    assert call({**webhook, "secret": rotated["secret"]}, b'{"age": 30, "n": 1}').status_code == 202
    refused = call(webhook, b'{"age": 30, "n": 2}')
    assert (refused.status_code, refused.json()["code"]) == (401, "bad_signature")
    again = client.get(f"/api/pipelines/{webhook['pipeline']}/triggers/{webhook['id']}").json()
    assert again["secret"] is None  # told once


def test_the_old_secret_stays_valid_for_the_grace_period_then_is_refused(client, webhook):
    before = timezone.now()
    rotated = rotate(client, webhook, {"keep_old": True}).json()

    until = timezone.datetime.fromisoformat(rotated["old_secret_valid_until"])
    assert timedelta(hours=24) <= until - before < timedelta(hours=24, minutes=1)
    assert call(webhook, b'{"age": 30, "n": 1}').status_code == 202  # a sender not yet switched
    assert call({**webhook, "secret": rotated["secret"]}, b'{"age": 30, "n": 2}').status_code == 202

    Trigger.objects.filter(pk=webhook["id"]).update(old_secret_until=timezone.now())
    refused = call(webhook, b'{"age": 30, "n": 3}')
    assert (refused.status_code, refused.json()["code"]) == (401, "bad_signature")
    assert TriggerEvent.objects.filter(trigger_id=webhook["id"]).count() == 2


def test_rotating_again_ends_the_first_secrets_grace(client, webhook):
    first = rotate(client, webhook, {"keep_old": True}).json()
    second = rotate(client, webhook, {"keep_old": True}).json()

    assert call(webhook, b'{"age": 30, "n": 1}').status_code == 401  # two rotations back: gone
    assert call({**webhook, "secret": first["secret"]}, b'{"age": 30, "n": 2}').status_code == 202
    assert call({**webhook, "secret": second["secret"]}, b'{"age": 30, "n": 3}').status_code == 202


def test_only_an_editor_of_the_pipeline_may_rotate(client, webhook, other):
    assert rotate(client_for(other), webhook).status_code == 404  # another workspace's
    viewer = make_user("viewer")
    trigger = Trigger.objects.select_related("pipeline").get(pk=webhook["id"])
    Membership.objects.create(workspace=trigger.pipeline.workspace, user=viewer, role=Role.VIEWER)
    refused = rotate(client_for(viewer), webhook)
    assert refused.status_code == 403
    assert call(webhook, b'{"age": 30, "n": 1}').status_code == 202  # the secret is still the first


def test_a_trigger_of_another_kind_has_no_secret_to_rotate(client, webhook):
    url = f"/api/pipelines/{webhook['pipeline']}/triggers"
    filed = post_json(client, url, {"kind": "file", "pattern": "in/*.csv"}).json()
    refused = rotate(client, filed)
    assert (refused.status_code, refused.json()["code"]) == (400, "not_a_webhook")
    assert refused.json()["field"] == "kind"


def test_a_rotation_is_audited_without_any_secret(client, webhook):
    rotated = rotate(client, webhook, {"keep_old": True}).json()

    [entry] = AuditEntry.objects.filter(action="trigger.secret_rotated")
    assert entry.username == "owner" and entry.object_id == webhook["id"]
    assert entry.details == {"kind": "webhook", "grace_hours": 24}
    written = json.dumps(list(AuditEntry.objects.values()), default=str)
    assert webhook["secret"] not in written and rotated["secret"] not in written
    exported = client.get(f"/api/pipelines/{webhook['pipeline']}/export").content
    assert rotated["secret"].encode() not in exported


def test_a_bad_body_is_refused_naming_the_field(client, webhook):
    refused = rotate(client, webhook, {"keep_old": "yes please"})
    assert refused.status_code == 422
    assert [problem["field"] for problem in refused.json()["problems"]] == ["keep_old"]
