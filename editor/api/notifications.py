"""A pipeline's notifications: its editors list, add, change, delete and test them.

Viewers get 403 and strangers 404. A webhook's signing secret is made by the server and
answered once, when it is made (at creation, or with `new_secret`). E-mail recipients must be
addresses of the workspace's members unless a workspace admin adds them.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.validators import validate_email
from django.db import transaction
from ninja import Router, Status

from editor import encryption
from editor.api.bodies import json_object, parse_body
from editor.api.schemas.contract import ObjectId, answers, request_body
from editor.api.schemas.notifications import (
    NotificationIn,
    NotificationList,
    NotificationOut,
    TestDelivery,
)
from editor.audit import log as audit_log
from editor.errors import ActionError
from editor.models import Notification, Pipeline, Run
from editor.notifications import dispatch, webhooks
from editor.notifications.limits import refuse_too_many_notifications, refuse_too_many_tests
from editor.workspaces.permissions import Action, may, pipeline_for

router = Router()
BODY = request_body(NotificationIn.model_json_schema())


def notification_json(notification: Notification, secret: str | None = None) -> dict:
    return {
        "id": notification.pk,
        "kind": notification.kind,
        "url": notification.url,
        "recipients": notification.recipients,
        "on_failure": notification.on_failure,
        "on_success": notification.on_success,
        "long_after_s": notification.long_after_s,
        "enabled": notification.enabled,
        "created_at": notification.created_at.isoformat(),
        "secret": secret,
        "links_start_with": dispatch.links_base(notification.link_base),
        "links_from": "PIPEWRIGHT_BASE_URL" if settings.PIPEWRIGHT_BASE_URL else "saved_at",
    }


def _audit_details(notification: Notification) -> dict:
    """What the audit log says of a notification: where to (the host, never the URL's path,
    which may hold a token), and on what."""
    details = {"kind": notification.kind, "enabled": notification.enabled}
    if notification.kind == Notification.Kind.WEBHOOK:
        details["host"] = urlsplit(notification.url).hostname
    else:
        details["recipients"] = len(notification.recipients)
    on = [name for name in ("failure", "success") if getattr(notification, f"on_{name}")]
    details["on"] = on + (["long"] if notification.long_after_s else [])
    return details


def _notification_of(request, pipeline_id: int, notification_id: int) -> Notification:
    pipeline = pipeline_for(request.user, pipeline_id, Action.EDIT)
    notification = pipeline.notifications.filter(pk=notification_id).first()
    if notification is None:
        raise ActionError(404, "not_found", "no such notification")
    return notification


def _apply(request, notification: Notification, body: NotificationIn) -> str | None:
    """Set `body` on `notification` after checking it; the new secret, if one was made."""
    notification.kind = body.kind
    notification.on_failure, notification.on_success = body.on_failure, body.on_success
    notification.long_after_s, notification.enabled = body.long_after_s, body.enabled
    notification.link_base = dispatch.request_base(request)
    if body.kind == Notification.Kind.WEBHOOK:
        try:
            webhooks.checked_url(body.url)
        except webhooks.AddressRefused as refused:
            raise ActionError(400, "invalid_notification", str(refused), field="url") from None
        notification.url, notification.recipients, notification.admin_added = body.url, [], []
        if notification.encrypted_secret and not body.new_secret:
            return None
        secret = dispatch.new_secret()
        notification.encrypted_secret = encryption.encrypt(secret)
        return secret
    notification.url, notification.encrypted_secret = "", ""
    _set_recipients(request, notification, body.recipients)
    return None


def _set_recipients(request, notification: Notification, recipients: list[str]) -> None:
    if not recipients:
        raise ActionError(400, "invalid_notification", "add an address", field="recipients")
    workspace = notification.pipeline.workspace
    members = dispatch.member_addresses(workspace)
    is_admin = may(request.user, Action.MANAGE, workspace)
    kept = {address.lower() for address in notification.admin_added}
    admin_added = []
    for address in recipients:
        try:
            validate_email(address)
        except ValidationError:
            raise ActionError(
                400,
                "invalid_notification",
                f"'{address}' is not an e-mail address",
                field="recipients",
            ) from None
        lowered = address.lower()
        if lowered in members:
            continue
        if not is_admin and lowered not in kept:
            raise ActionError(
                403, "recipient_not_allowed",
                f"{address} is not a member of the workspace; only a workspace admin may add "
                "other addresses", field="recipients",
            )  # fmt: skip
        admin_added.append(lowered)
    notification.recipients, notification.admin_added = recipients, admin_added


@router.get(
    "/{int:pipeline_id}/notifications",
    response=answers({200: NotificationList}, 403, 404),
    summary="A pipeline's notifications",
)
def list_notifications(request, pipeline_id: ObjectId):
    pipeline = pipeline_for(request.user, pipeline_id, Action.EDIT)
    return {"items": [notification_json(n) for n in pipeline.notifications.all()]}


@router.post(
    "/{int:pipeline_id}/notifications",
    response=answers({201: NotificationOut}, 400, 403, 404),
    openapi_extra=BODY,
    summary="Add a notification",
)
def create_notification(request, pipeline_id: ObjectId):
    """A webhook's answer carries its signing secret, this once; 400
    `too_many_notifications` once the pipeline has 20."""
    pipeline = pipeline_for(request.user, pipeline_id, Action.EDIT)
    body = parse_body(NotificationIn, json_object(request))
    notification = Notification(pipeline=pipeline)
    with transaction.atomic():
        refuse_too_many_notifications(Pipeline.objects.select_for_update().get(pk=pipeline.pk))
        secret = _apply(request, notification, body)
        notification.save()
        audit_log.record("notification.created", notification, details=_audit_details(notification))
    return Status(201, notification_json(notification, secret))


@router.put(
    "/{int:pipeline_id}/notifications/{int:notification_id}",
    response=answers({200: NotificationOut}, 400, 403, 404),
    openapi_extra=BODY,
    summary="Change a notification",
)
def update_notification(request, pipeline_id: ObjectId, notification_id: ObjectId):
    notification = _notification_of(request, pipeline_id, notification_id)
    body = parse_body(NotificationIn, json_object(request))
    with transaction.atomic():
        secret = _apply(request, notification, body)
        notification.save()
        details = _audit_details(notification) | ({"signing_renewed": True} if secret else {})
        audit_log.record("notification.updated", notification, details=details)
    return notification_json(notification, secret)


@router.delete(
    "/{int:pipeline_id}/notifications/{int:notification_id}",
    response=answers({204: None}, 403, 404),
    summary="Delete a notification",
)
def delete_notification(request, pipeline_id: ObjectId, notification_id: ObjectId):
    notification = _notification_of(request, pipeline_id, notification_id)
    with transaction.atomic():
        audit_log.record("notification.deleted", notification, details=_audit_details(notification))
        notification.delete()
    return Status(204, None)


@router.post(
    "/{int:pipeline_id}/notifications/{int:notification_id}/test",
    response=answers({200: TestDelivery}, 403, 404, 429),
    summary="Send a test message",
)
def test_notification(request, pipeline_id: ObjectId, notification_id: ObjectId):
    """Sends a message shaped like a real one (about the latest run, or a made-up one) in one
    attempt, and answers whether it arrived; 429 `too_many_tests` past
    `TESTS_PER_MINUTE` a minute."""
    notification = _notification_of(request, pipeline_id, notification_id)
    refuse_too_many_tests(request.user)
    pipeline = notification.pipeline
    run = Run.objects.latest_of(pipeline).first() or Run(pipeline=pipeline, number=0)
    payload = dispatch.message(run, ["test"], dispatch.request_base(request))
    delivered, detail = dispatch.deliver(notification, payload, attempts=1)
    return {"delivered": delivered, "detail": detail}
