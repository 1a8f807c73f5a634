"""Notifications: signed webhooks to a local test server (allowed through
`PIPEWRIGHT_WEBHOOK_ALLOW`), retried, never to private addresses otherwise, never following a
redirect; e-mail only to members or addresses an admin added; failed deliveries logged on the
run, which keeps its outcome; interrupted runs notify too."""

from __future__ import annotations

import hashlib
import hmac
import io
import json
import os
import socket

import pytest
from django.core import mail

from editor.models import AuditEntry, Notification, Role, Run, RunLog
from editor.notifications import dispatch, webhooks
from editor.notifications.limits import MAX_PER_PIPELINE, TESTS_PER_MINUTE
from editor.pipelines import actions
from editor.runs import watch
from editor.workspaces.membership import create_workspace, set_member
from runtime.document.spec import load_document
from tests.editor.conftest import SEED, client_for, make_user, post_json, put_json
from tests.editor.runs.helpers import wait_until
from tests.webhook_receiver import Receiver

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def receiver(settings):
    settings.PIPEWRIGHT_WEBHOOK_ALLOW = ["127.0.0.1"]
    server = Receiver()
    yield server
    server.stop()


@pytest.fixture
def quick_retries(monkeypatch):
    monkeypatch.setattr(webhooks, "RETRY_DELAYS_S", (0.05, 0.05))


def add_webhook(client, pipeline_id: int, url: str, **events) -> dict:
    answer = post_json(
        client,
        f"/api/pipelines/{pipeline_id}/notifications",
        {"kind": "webhook", "url": url, **events},
    )
    assert answer.status_code == 201, answer.content
    return answer.json()


FAILING = {
    **SEED,
    "nodes": [
        *SEED["nodes"][:2],
        {**SEED["nodes"][2], "params": {"path": "out/adults.csv", "mode": "error_if_exists"}},
    ],
}
"""A pipeline whose run fails at its output (a run of one with problems would not start)."""


def failing_in(folder) -> None:
    """Make `FAILING` fail in the workspace `folder`: its input there, its output already too."""
    (folder / "out").mkdir(parents=True, exist_ok=True)
    (folder / "people.csv").write_text("id,name,age\n1,Ada,36\n")
    (folder / "out" / "adults.csv").write_text("id\n")


def failing_pipeline(client, folder) -> int:
    failing_in(folder)
    return post_json(client, "/api/pipelines", FAILING).json()["id"]


def run_to_end(client, pipeline_id: int) -> Run:
    run_id = post_json(client, f"/api/pipelines/{pipeline_id}/runs", {}).json()["id"]
    wait_until(lambda: Run.objects.get(pk=run_id).status not in ("queued", "running"))
    return Run.objects.get(pk=run_id)


def notification_lines(run: Run) -> list[tuple[str, str]]:
    wait_until(lambda: RunLog.objects.filter(run=run, message__startswith="notification").exists())
    lines = RunLog.objects.filter(run=run, message__startswith="notification")
    return list(lines.values_list("level", "message"))


def test_a_failed_run_posts_a_signed_webhook(client, data_root, receiver):
    pipeline_id = failing_pipeline(client, data_root)
    made = add_webhook(client, pipeline_id, receiver.url)
    assert made["secret"].startswith("whsec_")
    stored = Notification.objects.get(pk=made["id"])
    assert made["secret"] not in stored.encrypted_secret
    assert (
        client.get(f"/api/pipelines/{pipeline_id}/notifications").json()["items"][0]["secret"]
        is None
    )
    run = run_to_end(client, pipeline_id)
    assert run.status == "failed"
    assert notification_lines(run) == [
        ("info", "notification webhook to 127.0.0.1: delivered (HTTP 200)")
    ]
    [request] = receiver.requests
    expected = hmac.new(made["secret"].encode(), request["body"], hashlib.sha256).hexdigest()
    assert request["headers"]["X-Pipewright-Signature"] == f"sha256={expected}"
    body = json.loads(request["body"])
    assert request["headers"]["X-Pipewright-Timestamp"] == body["sent_at"]
    assert request["path"] == "/hooks/T0KEN"
    assert (body["event"], body["pipeline"]["id"]) == ("failed", pipeline_id)
    assert body["run"]["id"] == run.pk and body["run"]["number"] == 1
    assert body["run"]["status"] == "failed" and "already exists" in body["run"]["error"]
    assert body["run"]["url"] == f"http://testserver/pipelines/{pipeline_id}/?run={run.pk}"
    assert body["run"]["duration_s"] >= 0


def test_a_succeeded_run_notifies_only_those_who_asked(client, data_root, receiver):
    pipeline_id = post_json(client, "/api/pipelines", SEED).json()["id"]
    add_webhook(client, pipeline_id, receiver.url)  # failures only
    add_webhook(client, pipeline_id, receiver.url + "?success", on_success=True)
    run = run_to_end(client, pipeline_id)
    assert run.status == "succeeded"
    assert len(notification_lines(run)) == 1
    assert [request["path"] for request in receiver.requests] == ["/hooks/T0KEN?success"]


def test_a_webhook_is_retried_after_server_errors(receiver, quick_retries):
    receiver.answers = [500, 503, 200]
    outcome = webhooks.post(receiver.url, {"hello": 1}, "s3cret")
    assert (outcome.delivered, outcome.status, outcome.attempts) == (True, 200, 3)
    assert len(receiver.requests) == 3


def test_a_client_error_is_not_retried(receiver, quick_retries):
    receiver.answers = [410]
    outcome = webhooks.post(receiver.url, {}, "s3cret")
    assert (outcome.delivered, outcome.status, len(receiver.requests)) == (False, 410, 1)


def test_a_redirect_is_not_followed(receiver, quick_retries):
    receiver.answers = [302]
    receiver.location = "http://169.254.169.254/latest/meta-data/"
    outcome = webhooks.post(receiver.url, {}, "s3cret")
    assert (outcome.delivered, outcome.status, len(receiver.requests)) == (False, 302, 1)


@pytest.mark.parametrize(
    "url",
    ["http://127.0.0.1:{port}/", "http://10.1.2.3/", "http://169.254.169.254/latest/",
     "http://[::1]:{port}/", "http://localhost:{port}/", "http://[::ffff:127.0.0.1]:{port}/",
     "http://100.64.0.1/", "http://0.0.0.0:{port}/"],
    ids=["loopback", "private", "link-local", "ipv6-loopback", "name-of-loopback",
         "mapped-loopback", "shared", "unspecified"],
)  # fmt: skip
def test_private_addresses_are_refused_without_the_allow_list(url, receiver, settings):
    settings.PIPEWRIGHT_WEBHOOK_ALLOW = []
    port = receiver.server.server_address[1]
    outcome = webhooks.post(url.format(port=port), {}, "s3cret")
    assert not outcome.delivered and outcome.error.startswith("refused:")
    assert outcome.attempts == 1 and receiver.requests == []


def test_the_allow_list_takes_networks(receiver, settings):
    settings.PIPEWRIGHT_WEBHOOK_ALLOW = ["127.0.0.0/8"]
    assert webhooks.post(receiver.url, {}, "s3cret").delivered


def test_the_resolved_address_is_the_one_called(monkeypatch, settings):
    """A name that resolves to a private address is refused even if it looks public: the
    check and the request use the same resolution."""
    settings.PIPEWRIGHT_WEBHOOK_ALLOW = []
    answers = [(socket.AF_INET, socket.SOCK_STREAM, 6, "", ("10.0.0.7", 80))]
    monkeypatch.setattr(socket, "getaddrinfo", lambda *args, **kwargs: answers)
    outcome = webhooks.post("http://hooks.example.com/x", {}, "s3cret")
    assert outcome.error.startswith("refused: hooks.example.com is a private")


def test_urls_with_credentials_or_private_literals_are_refused_at_entry(client, pipeline_id):
    base = f"/api/pipelines/{pipeline_id}/notifications"
    for url in (
        "http://user:pw@hooks.example.com/",
        "ftp://hooks.example.com/",
        "http://10.0.0.1/",
        "nonsense",
    ):
        answer = post_json(client, base, {"kind": "webhook", "url": url})
        assert answer.status_code == 400 and answer.json()["field"] == "url", url


def test_a_failing_delivery_is_logged_on_the_run_which_keeps_its_outcome(
    client, data_root, receiver, quick_retries
):
    pipeline_id = post_json(client, "/api/pipelines", SEED).json()["id"]
    add_webhook(client, pipeline_id, receiver.url, on_success=True)
    receiver.answers = [500, 500, 500]
    run = run_to_end(client, pipeline_id)
    assert notification_lines(run) == [
        ("warning", "notification webhook to 127.0.0.1: answered HTTP 500 after 3 attempt(s)")
    ]
    run.refresh_from_db()
    assert run.status == "succeeded" and run.error == ""


def test_links_start_with_the_base_url_setting_or_else_the_address_saved_at(
    client, pipeline_id, receiver, settings
):
    """Without PIPEWRIGHT_BASE_URL a run's link is absolute all the same: it starts with the
    address the notification was saved (or tested) at, and the answer says which applies."""
    made = add_webhook(client, pipeline_id, receiver.url)
    assert (made["links_start_with"], made["links_from"]) == ("http://testserver", "saved_at")
    test = f"/api/pipelines/{pipeline_id}/notifications/{made['id']}/test"
    client.post(test, "{}", content_type="application/json", HTTP_HOST="localhost:8000")
    url = json.loads(receiver.requests[-1]["body"])["run"]["url"]
    assert url.startswith(f"http://localhost:8000/pipelines/{pipeline_id}/?run=")
    settings.PIPEWRIGHT_BASE_URL = "https://pw.example.org"
    listed = client.get(f"/api/pipelines/{pipeline_id}/notifications").json()["items"][0]
    assert (listed["links_start_with"], listed["links_from"]) == (
        "https://pw.example.org",
        "PIPEWRIGHT_BASE_URL",
    )
    post_json(client, test, {})
    url = json.loads(receiver.requests[-1]["body"])["run"]["url"]
    assert url.startswith(f"https://pw.example.org/pipelines/{pipeline_id}/?run=")


def test_the_test_button_answers_whether_it_arrived(client, pipeline_id, receiver):
    made = add_webhook(client, pipeline_id, receiver.url)
    url = f"/api/pipelines/{pipeline_id}/notifications/{made['id']}/test"
    assert post_json(client, url, {}).json() == {
        "delivered": True, "detail": "webhook to 127.0.0.1: delivered (HTTP 200)",
    }  # fmt: skip
    assert json.loads(receiver.requests[0]["body"])["event"] == "test"
    receiver.answers = [500]
    assert post_json(client, url, {}).json()["delivered"] is False


def test_a_user_sends_at_most_a_few_test_messages_a_minute(client, pipeline_id, receiver):
    made = add_webhook(client, pipeline_id, receiver.url)
    url = f"/api/pipelines/{pipeline_id}/notifications/{made['id']}/test"
    answers = [post_json(client, url, {}) for _ in range(TESTS_PER_MINUTE + 2)]
    assert [answer.status_code for answer in answers].count(200) == TESTS_PER_MINUTE
    assert answers[-1].status_code == 429 and answers[-1].json()["code"] == "too_many_tests"
    assert len(receiver.requests) == TESTS_PER_MINUTE  # the refused ones sent nothing


def test_only_editors_manage_notifications(client, owner, other, pipeline_id, receiver):
    made = add_webhook(client, pipeline_id, receiver.url)
    base = f"/api/pipelines/{pipeline_id}/notifications"
    assert client_for(other).get(base).status_code == 404
    assert post_json(client_for(other), f"{base}/{made['id']}/test", {}).status_code == 404
    viewer = make_user("viewer")
    set_member(owner.personal_workspace, viewer, Role.VIEWER)
    assert client_for(viewer).get(base).status_code == 403
    assert client_for(viewer).delete(f"{base}/{made['id']}").status_code == 403
    changed = put_json(
        client, f"{base}/{made['id']}", {"kind": "webhook", "url": receiver.url, "new_secret": True}
    )
    assert (
        changed.json()["secret"].startswith("whsec_") and changed.json()["secret"] != made["secret"]
    )
    assert client.delete(f"{base}/{made['id']}").status_code == 204
    logged = AuditEntry.objects.filter(object_type="notification").values_list("action", "details")
    assert [action for action, _ in logged] == [
        "notification.deleted",
        "notification.updated",
        "notification.created",
    ]
    text = json.dumps([details for _, details in logged])
    assert "T0KEN" not in text and made["secret"] not in text and "127.0.0.1" in text


def test_a_pipeline_takes_at_most_20_notifications(client, pipeline_id, receiver):
    for _ in range(MAX_PER_PIPELINE):
        add_webhook(client, pipeline_id, receiver.url)

    refused = post_json(
        client,
        f"/api/pipelines/{pipeline_id}/notifications",
        {"kind": "webhook", "url": receiver.url},
    )

    assert refused.status_code == 400
    assert refused.json()["code"] == "too_many_notifications"
    assert "at most 20 notifications" in refused.json()["message"]
    assert Notification.objects.filter(pipeline_id=pipeline_id).count() == MAX_PER_PIPELINE


@pytest.fixture
def team(owner, staff):
    """A workspace where `staff` is admin and `owner` an editor, both with addresses."""
    owner.email, staff.email = "owner@example.com", "staff@example.com"
    owner.save(), staff.save()
    workspace = create_workspace("Team", admin=staff, slug="team")
    set_member(workspace, owner, Role.EDITOR)
    return workspace


def test_e_mail_goes_to_members_or_addresses_an_admin_added(team, owner, staff, other, data_root):
    pipeline = actions.create_pipeline(owner, load_document(SEED), team)
    base = f"/api/pipelines/{pipeline.pk}/notifications"
    editor, admin = client_for(owner), client_for(staff)
    outsider = {"kind": "email", "recipients": ["Owner@example.com", "boss@elsewhere.example"]}
    refused = post_json(editor, base, outsider)
    assert (refused.status_code, refused.json()["code"]) == (403, "recipient_not_allowed")
    made = post_json(admin, base, outsider)
    assert made.status_code == 201
    # An editor may keep what the admin added while changing the rest.
    kept = put_json(editor, f"{base}/{made.json()['id']}", {**outsider, "on_success": True})
    assert kept.status_code == 200
    other.email = "other@example.com"
    other.save()
    stranger = put_json(
        editor,
        f"{base}/{made.json()['id']}",
        {"kind": "email", "recipients": ["other@example.com"]},
    )
    assert stranger.status_code == 403
    notification = Notification.objects.get(pk=made.json()["id"])
    assert dispatch.allowed_recipients(notification) == [
        "Owner@example.com",
        "boss@elsewhere.example",
    ]
    team.memberships.filter(user=owner).delete()
    assert dispatch.allowed_recipients(notification) == ["boss@elsewhere.example"]


def test_an_e_mail_is_sent_when_a_run_fails(team, owner, data_root, settings):
    settings.PIPEWRIGHT_DATA_ROOT = data_root.parent
    failing_in(data_root.parent / "team")
    pipeline = actions.create_pipeline(owner, load_document(FAILING), team)
    Notification.objects.create(pipeline=pipeline, kind="email", recipients=["owner@example.com"])
    run = run_to_end(client_for(owner), pipeline.pk)
    assert run.status == "failed"
    assert notification_lines(run) == [("info", "notification e-mail to 1 address(es): sent")]
    [message] = mail.outbox
    assert message.to == ["owner@example.com"]
    assert message.subject == "[Pipewright] Adults: run #1 failed"
    assert f"url: /pipelines/{pipeline.pk}/?run={run.pk}" in message.body


def test_a_failed_run_sends_at_most_20_notifications(team, owner, data_root, settings):
    """A pipeline that had more before the cap: the run sends 20 and says the rest did not go."""
    settings.PIPEWRIGHT_DATA_ROOT = data_root.parent
    failing_in(data_root.parent / "team")
    pipeline = actions.create_pipeline(owner, load_document(FAILING), team)
    Notification.objects.bulk_create(
        Notification(pipeline=pipeline, kind="email", recipients=["owner@example.com"])
        for _ in range(25)
    )
    run = run_to_end(client_for(owner), pipeline.pk)
    wait_until(lambda: RunLog.objects.filter(run=run, message__contains="not sent").exists())
    assert len(mail.outbox) == MAX_PER_PIPELINE
    assert RunLog.objects.filter(
        run=run, level="warning", message="5 notification(s) not sent: a run sends at most 20"
    ).exists()


def test_an_interrupted_run_notifies(team, owner):
    pipeline = actions.create_pipeline(owner, load_document(SEED), team)
    Notification.objects.create(pipeline=pipeline, kind="email", recipients=["owner@example.com"])
    gone = _a_finished_pid()
    run = Run.objects.create(
        pipeline=pipeline, document=SEED, status="running", host=socket.gethostname(), pid=gone
    )
    assert watch.reap_interrupted_runs() == [run.pk]
    wait_until(lambda: len(mail.outbox) == 1)
    assert mail.outbox[0].subject == "[Pipewright] Adults: run #1 interrupted"


def _a_finished_pid() -> int:
    pid = os.fork()
    if pid == 0:
        os._exit(0)
    os.waitpid(pid, 0)
    return pid


def test_a_long_run_notifies_whatever_its_outcome(owner):
    from datetime import timedelta

    from django.utils import timezone

    pipeline = actions.create_pipeline(owner, load_document(SEED))
    notification = Notification(pipeline=pipeline, kind="email", on_failure=False, long_after_s=60)
    now = timezone.now()
    run = Run(
        pipeline=pipeline,
        status="cancelled",
        started_at=now - timedelta(seconds=61),
        finished_at=now,
    )
    assert dispatch.reasons(notification, run) == ["long"]
    run.started_at = now - timedelta(seconds=59)
    assert dispatch.reasons(notification, run) == []


def test_rotatekeys_re_encrypts_signing_secrets(client, pipeline_id, settings):
    from cryptography.fernet import Fernet
    from django.core.management import call_command

    from editor import encryption

    made = add_webhook(client, pipeline_id, "https://hooks.example.com/x")
    old, new = settings.PIPEWRIGHT_ENCRYPTION_KEYS[0], Fernet.generate_key().decode()
    settings.PIPEWRIGHT_ENCRYPTION_KEYS = [new, old]
    call_command("rotatekeys", stdout=io.StringIO())
    settings.PIPEWRIGHT_ENCRYPTION_KEYS = [new]
    assert Notification.objects.get(pk=made["id"]).secret() == made["secret"]
    settings.PIPEWRIGHT_ENCRYPTION_KEYS = [old]
    with pytest.raises(encryption.UnreadableSecret):
        Notification.objects.get(pk=made["id"]).secret()
