"""Webhook triggers: a signed call records one event whose run takes the body's fields as
parameters; unsigned, badly signed, oversized or ill-typed calls answer 4xx and start nothing;
the secret is told once."""

from __future__ import annotations

import hashlib
import json

import pytest
from django.test import Client

from editor.models import AuditEntry, Run, Trigger, TriggerEvent
from editor.triggers import events, hooks, watch
from tests.editor.conftest import client_for, post_json
from tests.editor.triggers.helpers import make_pipeline


@pytest.fixture(autouse=True)
def runs_stay_queued(settings):
    settings.PIPEWRIGHT_WORKERS = "service"


def call(hook: dict, body: bytes, signature: str | None = None, **headers):
    """POST `body` to the hook's URL without signing in, signed with its secret unless told."""
    signed = hooks.signature(hook["secret"], body) if signature is None else signature
    return Client(enforce_csrf_checks=True).post(
        hook["webhook_url"],
        body,
        content_type="application/json",
        headers={hooks.SIGNATURE_HEADER: signed, **headers},
    )


@pytest.mark.django_db(transaction=True)
def test_a_signed_call_records_one_event_and_its_run_takes_the_bodys_field(webhook):
    body = json.dumps({"age": 30, "order": "o-1"}).encode()

    answer = call(webhook, body)
    again = call(webhook, body)  # a retry, or a replay: the same signed body
    [run_id] = watch.tick()

    assert answer.status_code == 202, answer.content
    assert answer.json()["event"] == again.json()["event"]
    assert TriggerEvent.objects.count() == 1
    run = Run.objects.get(pk=run_id)
    assert run.parameters == {"min_age": 30}
    digest = hashlib.sha256(body).hexdigest()[:12]
    assert run.triggered_by == f"trigger {webhook['id']} (webhook): webhook call {digest}"


@pytest.mark.parametrize(
    ("body", "signature", "status", "code"),
    [
        (b'{"age": 30}', "", 401, "bad_signature"),
        (b'{"age": 30}', "sha256=" + "0" * 64, 401, "bad_signature"),
        (b'{"age": 30}', hooks.signature("whsec_guessed", b'{"age": 30}'), 401, "bad_signature"),
        (b'{"age": "thirty"}', None, 422, "invalid_event"),
        (b'{"name": "Ada"}', None, 422, "invalid_event"),
        (b"[1, 2]", None, 400, "invalid_json"),
        (b'{"age": 30, "pad": "' + b"x" * hooks.MAX_BODY + b'"}', None, 413, "too_large"),
    ],
    ids=["unsigned", "bad-signature", "other-secret", "wrong-type", "missing-field", "not-object",
         "oversized"],
)  # fmt: skip
@pytest.mark.django_db(transaction=True)
def test_a_call_that_is_not_signed_right_or_not_valid_is_refused_and_starts_nothing(
    webhook, body, signature, status, code
):
    answer = call(webhook, body, signature)

    assert answer.status_code == status, answer.content
    assert answer.json()["code"] == code
    assert not TriggerEvent.objects.exists()
    assert watch.tick() == []
    assert not Run.objects.exists()


@pytest.mark.django_db
def test_an_unknown_token_answers_as_a_bad_signature_does(webhook):
    answer = Client().post(
        "/api/hooks/not-a-token", b"{}", content_type="application/json",
        headers={hooks.SIGNATURE_HEADER: hooks.signature(webhook["secret"], b"{}")},
    )  # fmt: skip
    assert (answer.status_code, answer.json()["code"]) == (401, "bad_signature")


@pytest.mark.django_db
def test_the_secret_is_told_at_creation_only_and_never_logged(client, webhook):
    url = f"/api/pipelines/{webhook['pipeline']}/triggers"

    listed = client.get(url).json()["items"]
    one = client.get(f"{url}/{webhook['id']}").json()

    assert webhook["secret"].startswith("whsec_")
    assert [listed[0]["secret"], one["secret"]] == [None, None]
    assert webhook["webhook_url"] == f"/api/hooks/{webhook['webhook_url'].rsplit('/', 1)[1]}"
    assert webhook["webhook_url_absolute"] is False
    entries = json.dumps(list(AuditEntry.objects.values()), default=str)
    assert webhook["secret"] not in entries
    exported = client.get(f"/api/pipelines/{webhook['pipeline']}/export")
    assert webhook["secret"].encode() not in exported.content


@pytest.mark.django_db
def test_the_webhook_url_is_absolute_when_the_base_url_is_set(client, data_root, settings):
    settings.PIPEWRIGHT_BASE_URL = "https://pipewright.example.com"
    pipeline = make_pipeline(client)
    answer = post_json(client, f"/api/pipelines/{pipeline.pk}/triggers", {"kind": "webhook"})
    assert answer.json()["webhook_url"].startswith("https://pipewright.example.com/api/hooks/")
    assert answer.json()["webhook_url_absolute"] is True


@pytest.mark.django_db
def test_a_pipeline_of_another_workspace_has_no_triggers_to_see_or_add(client, data_root, other):
    pipeline = make_pipeline(client)
    stranger = client_for(other)
    url = f"/api/pipelines/{pipeline.pk}/triggers"

    assert stranger.get(url).status_code == 404
    assert post_json(stranger, url, {"kind": "webhook"}).status_code == 404


@pytest.mark.django_db(transaction=True)
def test_calls_past_the_rate_or_the_waiting_bound_answer_429_and_record_nothing(
    webhook, monkeypatch
):
    monkeypatch.setattr(hooks, "PER_MINUTE", 3)
    monkeypatch.setattr(events, "MAX_WAITING", 2)
    answers = [call(webhook, json.dumps({"age": age}).encode()) for age in (20, 21, 22)]
    assert [answer.status_code for answer in answers] == [202, 202, 429]
    assert answers[2].json()["code"] == "too_many_waiting"
    assert TriggerEvent.objects.count() == 2
    assert Trigger.objects.get(pk=webhook["id"]).dropped == 1

    late = call(webhook, json.dumps({"age": 23}).encode())
    TriggerEvent.objects.update(status="started")  # the waiting ones ran
    monkeypatch.setattr(hooks, "PER_MINUTE", 2)
    too_often = call(webhook, json.dumps({"age": 24}).encode())

    assert (late.status_code, too_often.status_code) == (429, 429)
    assert too_often.json()["code"] == "too_many_calls"
    assert TriggerEvent.objects.count() == 2
