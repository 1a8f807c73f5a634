"""Telling people how a pipeline's run ended: which notifications a run's end fires, and
sending them off the run's path.

A notification fires on a failed or interrupted run (`on_failure`, the default), a succeeded
one (`on_success`), and a run that lasted longer than `long_after_s`. The run's worker
(`editor.runs.launcher.execute`) and the reaper of interrupted runs (`editor.runs.watch`) call
`run_ended` once the run's end is written; delivery happens on a thread of its own, so a slow
or failing webhook never slows or fails the run. Each delivery adds a line to the run's log,
saying where it went (the host or the addresses, never the URL's path, which may hold a
token). E-mail goes only to addresses of the workspace's members, or that a workspace admin
added. A run sends at most `MAX_PER_PIPELINE` notifications (the first made; a pipeline that
had more before the cap says in the run's log that the others were not sent).
"""

from __future__ import annotations

import logging
import secrets
import threading
from urllib.parse import urlsplit

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.mail import send_mail
from django.db import close_old_connections, connection
from django.urls import reverse
from django.utils import timezone

from editor.models import Notification, Run, RunLog
from editor.notifications import webhooks
from editor.notifications.limits import MAX_PER_PIPELINE
from runtime import RunStatus

FAILURES = frozenset({RunStatus.FAILED, RunStatus.INTERRUPTED})
log = logging.getLogger(__name__)


def new_secret() -> str:
    """A webhook's signing secret."""
    return "whsec_" + secrets.token_urlsafe(32)


def member_addresses(workspace) -> set[str]:
    """The e-mail addresses of the workspace's members (lowercased)."""
    users = get_user_model().objects.filter(memberships__workspace=workspace)
    return {email.lower() for email in users.values_list("email", flat=True) if email}


def allowed_recipients(notification: Notification) -> list[str]:
    """The recipients mail goes to now: members' addresses and those an admin added."""
    allowed = member_addresses(notification.pipeline.workspace)
    allowed |= {address.lower() for address in notification.admin_added}
    return [address for address in notification.recipients if address.lower() in allowed]


def reasons(notification: Notification, run: Run) -> list[str]:
    """Why `notification` fires for the ended `run` (nothing: it does not)."""
    why = []
    if notification.on_failure and run.status in FAILURES:
        why.append(str(run.status))
    if notification.on_success and run.status == RunStatus.SUCCEEDED:
        why.append("succeeded")
    duration = run.duration_s
    if notification.long_after_s is not None and duration and duration > notification.long_after_s:
        why.append("long")
    return why


def links_base(link_base: str = "") -> str:
    """Where a message's link to a run starts: `PIPEWRIGHT_BASE_URL` when set, else
    `link_base` (the address a notification was saved or tested at), else nothing (a path)."""
    return settings.PIPEWRIGHT_BASE_URL or link_base.rstrip("/")


def request_base(request) -> str:
    """The scheme and host `request` reached the server at (`https://pipewright.example.com`)."""
    return request.build_absolute_uri("/").rstrip("/")


def message(run: Run, events: list[str], link_base: str = "") -> dict:
    """The JSON a webhook receives (and the facts an e-mail states); the run's link starts
    with `links_base(link_base)`."""
    pipeline = run.pipeline
    path = reverse("pipeline-editor", args=[pipeline.pk]) + f"?run={run.pk}"
    return {
        "event": events[0] if events else "test",
        "events": events,
        "pipeline": {
            "id": pipeline.pk,
            "name": pipeline.name,
            "workspace": pipeline.workspace.slug,
        },
        "run": {
            "id": run.pk,
            "number": run.number,
            "status": str(run.status),
            "error": run.error,
            "started_at": run.started_at.isoformat() if run.started_at else None,
            "finished_at": run.finished_at.isoformat() if run.finished_at else None,
            "duration_s": run.duration_s,
            "url": links_base(link_base) + path,
        },
    }


def deliver(notification: Notification, payload: dict, attempts: int = 3) -> tuple[bool, str]:
    """Send `payload`; whether it arrived, and what happened in words (never a secret)."""
    if notification.kind == Notification.Kind.WEBHOOK:
        host = urlsplit(notification.url).hostname
        outcome = webhooks.post(notification.url, payload, notification.secret(), attempts)
        return outcome.delivered, f"webhook to {host}: {outcome.describe()}"
    recipients = allowed_recipients(notification)
    if not recipients:
        return False, "e-mail: no allowed recipient (members' addresses, or added by an admin)"
    run = payload["run"]
    subject = f"[Pipewright] {payload['pipeline']['name']}: run #{run['number']} {run['status']}"
    lines = [f"{key}: {value}" for key, value in run.items() if value not in (None, "")]
    try:
        send_mail(subject, "\n".join(lines), None, recipients)
    except Exception as error:  # an SMTP server's every failure is the same to us
        return False, f"e-mail to {len(recipients)} address(es): not sent ({type(error).__name__})"
    return True, f"e-mail to {len(recipients)} address(es): sent"


def run_ended(run_id: int) -> None:
    """A run's end is written: send its notifications on a thread of their own."""
    thread = threading.Thread(target=_notify, args=(run_id,), name=f"pipewright-notify-{run_id}")
    thread.start()


def _notify(run_id: int) -> None:
    try:
        close_old_connections()
        run = Run.objects.select_related("pipeline__workspace").filter(pk=run_id).first()
        if run is None or run.status not in RunStatus.FINAL:
            return
        enabled = run.pipeline.notifications.filter(enabled=True).order_by("pk")
        for notification in enabled[:MAX_PER_PIPELINE]:
            events = reasons(notification, run)
            if events:
                delivered, said = deliver(
                    notification, message(run, events, notification.link_base)
                )
                _log_on_run(run, "info" if delivered else "warning", f"notification {said}")
        if (left_out := enabled.count() - MAX_PER_PIPELINE) > 0:
            said = f"{left_out} notification(s) not sent: a run sends at most {MAX_PER_PIPELINE}"
            _log_on_run(run, "warning", said)
    except Exception:
        log.exception("notifications of run %s failed", run_id)
    finally:
        connection.close()


def _log_on_run(run: Run, level: str, text: str) -> None:
    """A line in the run's log, after its last event (the run's outcome stays as it is)."""
    seq = Run.objects.filter(pk=run.pk).values_list("last_seq", flat=True).first()
    if seq is None:
        return
    RunLog.objects.create(run=run, seq=seq + 1, time=timezone.now(), level=level, message=text)
