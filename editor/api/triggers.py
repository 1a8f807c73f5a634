"""A pipeline's triggers (list, create, read, replace, delete) and the webhook endpoint
`POST /api/hooks/<token>` their webhook triggers answer.

Seeing a pipeline lets one read its triggers; changing them needs the right to run it
(editor), since their runs start with the saver's rights. A webhook's secret is answered once,
by the create or a rotation. The hook endpoint takes no sign-in: its signature is its proof (see
`editor.triggers.hooks`).
"""

from __future__ import annotations

from django.conf import settings
from django.shortcuts import get_object_or_404
from django.urls import reverse
from django.utils import timezone
from ninja import Router
from ninja.responses import Status

from editor.api.bodies import json_object, parse_body
from editor.api.schemas.contract import ObjectId, answers, request_body
from editor.api.schemas.triggers import HookAccepted, TriggerList, TriggerOut
from editor.errors import ActionError
from editor.models import Trigger
from editor.triggers import actions, hooks
from editor.triggers.actions import RotationIn, TriggerIn
from editor.workspaces.permissions import Action, pipeline_for

router = Router()
webhooks = Router()

TRIGGER_BODY = request_body(TriggerIn.model_json_schema())
RECENT_EVENTS = 10


def trigger_json(trigger: Trigger, secret: str | None = None) -> dict:
    """A trigger as the API answers it, with its latest events; `secret` only at creation."""
    url = None
    if trigger.kind == Trigger.Kind.WEBHOOK:
        url = settings.PIPEWRIGHT_BASE_URL + reverse("api:webhook", args=[trigger.token])
    recent = trigger.events.order_by("-id")[:RECENT_EVENTS]
    return {
        "id": trigger.pk,
        "pipeline": trigger.pipeline_id,
        "owner": trigger.owner.get_username(),
        "kind": trigger.kind,
        "name": trigger.name,
        "enabled": trigger.enabled,
        "pattern": trigger.pattern,
        "upstream": trigger.upstream_id,
        "parameters": trigger.parameters,
        "dropped": trigger.dropped,
        "last_outcome": trigger.last_outcome,
        "webhook_url": url,
        "webhook_url_absolute": bool(url and settings.PIPEWRIGHT_BASE_URL),
        "secret": secret,
        "old_secret_valid_until": _old_secret_until(trigger),
        "recent_events": [
            {
                "id": event.pk,
                "description": event.description,
                "status": event.status,
                "run": event.run_id,
                "message": event.message,
                "created_at": event.created_at.isoformat(),
            }
            for event in recent
        ],
    }


def _old_secret_until(trigger: Trigger) -> str | None:
    """Until when a webhook's secret from before its last rotation still signs (None: it
    does not)."""
    until = trigger.old_secret_until
    return until.isoformat() if trigger.old_secret and until and until > timezone.now() else None


def _trigger(request, pipeline_id: int, trigger_id: int, action: Action) -> Trigger:
    pipeline = pipeline_for(request.user, pipeline_id, action)
    return get_object_or_404(
        Trigger.objects.select_related("owner", "pipeline"), pk=trigger_id, pipeline=pipeline
    )


@router.get(
    "/{int:pipeline_id}/triggers",
    response=answers({200: TriggerList}, 404),
    summary="A pipeline's triggers",
)
def list_triggers(request, pipeline_id: ObjectId):
    pipeline = pipeline_for(request.user, pipeline_id)
    found = pipeline.triggers.select_related("owner").order_by("pk")
    return {"items": [trigger_json(trigger) for trigger in found]}


@router.post(
    "/{int:pipeline_id}/triggers",
    response=answers({201: TriggerOut}, 400, 403, 404, 422),
    openapi_extra=TRIGGER_BODY,
    summary="Add a trigger",
)
def create_trigger(request, pipeline_id: ObjectId):
    """Its runs use your rights. A webhook trigger's `secret` is in this answer only: keep it.
    400 `invalid_trigger` names the field; 400 `trigger_loop` names the chain of upstream
    triggers that would start the pipeline again."""
    body = json_object(request)
    pipeline = pipeline_for(request.user, pipeline_id, Action.RUN)
    fields = parse_body(TriggerIn, body)
    trigger, secret = actions.create_trigger(pipeline, request.user, fields)
    return Status(201, trigger_json(trigger, secret))


@router.get(
    "/{int:pipeline_id}/triggers/{int:trigger_id}",
    response=answers({200: TriggerOut}, 404),
    summary="One trigger with its latest events",
)
def get_trigger(request, pipeline_id: ObjectId, trigger_id: ObjectId):
    return trigger_json(_trigger(request, pipeline_id, trigger_id, Action.VIEW))


@router.put(
    "/{int:pipeline_id}/triggers/{int:trigger_id}",
    response=answers({200: TriggerOut}, 400, 403, 404, 422),
    openapi_extra=TRIGGER_BODY,
    summary="Replace a trigger",
)
def update_trigger(request, pipeline_id: ObjectId, trigger_id: ObjectId):
    """You become its owner; its kind cannot change (a webhook keeps its URL and secret)."""
    body = json_object(request)
    trigger = _trigger(request, pipeline_id, trigger_id, Action.RUN)
    fields = parse_body(TriggerIn, body)
    return trigger_json(actions.update_trigger(trigger, fields, request.user))


@router.delete(
    "/{int:pipeline_id}/triggers/{int:trigger_id}",
    response=answers({204: None}, 403, 404),
    summary="Delete a trigger",
)
def delete_trigger(request, pipeline_id: ObjectId, trigger_id: ObjectId):
    actions.delete_trigger(_trigger(request, pipeline_id, trigger_id, Action.RUN), request.user)
    return Status(204, None)


@router.post(
    "/{int:pipeline_id}/triggers/{int:trigger_id}/rotate-secret",
    response=answers({200: TriggerOut}, 400, 403, 404, 422),
    openapi_extra=request_body(RotationIn.model_json_schema()),
    summary="Rotate a webhook trigger's secret",
)
def rotate_secret(request, pipeline_id: ObjectId, trigger_id: ObjectId):
    """A new signing secret, in this answer only (its URL stays). `{"keep_old": true}`: the old
    secret signs for 24 h more (`old_secret_valid_until`), else it is refused at once.
    400 `not_a_webhook` for a trigger of another kind."""
    body = json_object(request)
    trigger = _trigger(request, pipeline_id, trigger_id, Action.RUN)
    fields = parse_body(RotationIn, body)
    rotated, secret = actions.rotate_secret(trigger, fields, request.user)
    return trigger_json(rotated, secret)


@webhooks.post(
    "/{token}",
    auth=None,
    url_name="webhook",
    response=answers({202: HookAccepted}, 400, 401, 409, 413, 429),
    summary="Call a webhook trigger",
)
def call_webhook(request, token: str):
    """No sign-in: send `X-Pipewright-Signature: sha256=<HMAC-SHA256 of the body with the
    trigger's secret, hex>` and a JSON object of at most 64 KiB; a body sent again (a retry)
    fires nothing more: put an id of your own in each. 202: the event waits for its run."""
    length = request.META.get("CONTENT_LENGTH") or "0"
    if not length.isdigit() or int(length) > hooks.MAX_BODY:
        raise ActionError(413, "too_large", f"a webhook's body has at most {hooks.MAX_BODY} bytes")
    event = hooks.receive(token, request.body, request.headers)
    message = "recorded: its run starts when the pipeline is free"
    return Status(202, {"event": event.pk, "status": event.status, "message": message})
