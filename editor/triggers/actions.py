"""What users do to triggers, each in one transaction: create, update, delete, rotate a
webhook's secret. Whoever saves a trigger becomes its owner (its runs use their rights), as
with schedules.

A webhook trigger gets its token (the URL's unguessable id) and signing secret at creation;
the secret is kept encrypted and answered once, then never again (not in exports, the audit
log or the server log). Rotating it answers a new one once; the old one signs for
`OLD_SECRET_GRACE` more when asked to (senders switch in their own time), else not at all.
"""

from __future__ import annotations

import logging
import secrets
from datetime import timedelta
from typing import Literal

from django.db import transaction
from django.utils import timezone
from pydantic import BaseModel, ConfigDict, Field

from editor import encryption
from editor.audit import log as audit_log
from editor.errors import ActionError, problems_error
from editor.models import Pipeline, Trigger
from editor.pipelines.documents import to_document
from editor.triggers import files, loops, parameters, watch
from editor.workspaces.permissions import Action, may

log = logging.getLogger(__name__)

MAX_PER_PIPELINE = 20
"""Triggers one pipeline may have."""
OLD_SECRET_GRACE = timedelta(hours=24)
"""How long a rotated-out webhook secret still signs calls, when the rotation keeps it."""


class TriggerIn(BaseModel):
    """A trigger as the API takes it: `pattern` for a file trigger, `upstream` (a pipeline's
    id) for an upstream one; `parameters` maps run parameter names to the event's fields."""

    model_config = ConfigDict(extra="forbid")

    kind: Literal["file", "upstream", "webhook"]
    name: str = Field("", max_length=200)
    enabled: bool = True
    pattern: str = Field("", max_length=files.PATTERN_MAX_LENGTH)
    upstream: int | None = Field(None, ge=1, le=2**63 - 1)
    parameters: dict[str, str] = Field(default_factory=dict, max_length=50)


def _upstream(fields: TriggerIn, owner) -> Pipeline | None:
    """The upstream pipeline, if the owner may read it; else a 400 naming `upstream` (the same
    answer whether it does not exist or is hidden)."""
    if fields.kind != "upstream":
        return None
    found = Pipeline.objects.select_related("workspace").filter(pk=fields.upstream).first()
    if fields.upstream is None or found is None or not may(owner, Action.VIEW, found):
        raise ActionError(
            400, "invalid_trigger", "give a pipeline you may read as upstream", field="upstream"
        )
    return found


def _check(pipeline: Pipeline, owner, fields: TriggerIn, replacing: Trigger | None = None):
    """The checked pattern and upstream pipeline, or an ActionError naming the field."""
    pattern = files.check_pattern(fields.pattern) if fields.kind == "file" else ""
    upstream = _upstream(fields, owner)
    if upstream is not None and fields.enabled:
        loops.refuse_loop(pipeline, upstream, replacing)
    declared = to_document(pipeline).config.parameters
    problems = parameters.mapping_problems(fields.kind, fields.parameters, declared)
    if problems:
        raise problems_error(400, "invalid_trigger", "the trigger is not valid", problems)
    return pattern, upstream


def _apply(trigger: Trigger, fields: TriggerIn, owner, pattern: str, upstream) -> Trigger:
    """Set `fields`; a new glob or upstream, or a disabled trigger enabled again, is looked at
    afresh: what is there fires nothing (a paused trigger has missed nothing)."""
    moved = (trigger.pattern, trigger.upstream_id) != (pattern, getattr(upstream, "pk", None))
    resumed = trigger.pk is not None and fields.enabled and not trigger.enabled
    if trigger.kind != Trigger.Kind.WEBHOOK and (moved or resumed):
        trigger.primed = False
    trigger.name = fields.name
    trigger.enabled = fields.enabled
    trigger.pattern = pattern
    trigger.upstream = upstream
    trigger.parameters = fields.parameters
    trigger.owner = owner
    trigger.save()
    return trigger


def create_trigger(pipeline: Pipeline, owner, fields: TriggerIn) -> tuple[Trigger, str | None]:
    """A new trigger of `pipeline` owned by `owner`, and a webhook's signing secret in clear
    (None for the other kinds): the only time it is told."""
    with transaction.atomic():
        locked = Pipeline.objects.select_for_update().get(pk=pipeline.pk)
        if locked.triggers.count() >= MAX_PER_PIPELINE:
            raise ActionError(
                400, "too_many_triggers",
                f"a pipeline has at most {MAX_PER_PIPELINE} triggers; delete one to add another",
            )  # fmt: skip
        pattern, upstream = _check(pipeline, owner, fields)
        trigger = Trigger(pipeline=pipeline, kind=fields.kind)
        secret = None
        if fields.kind == "webhook":
            secret = _new_secret()
            trigger.token = secrets.token_urlsafe(24)
            trigger.secret = encryption.encrypt(secret)
            trigger.primed = True  # nothing to see before its first call
        _apply(trigger, fields, owner, pattern, upstream)
        changed(trigger, "created", owner)
    _look_now(trigger)
    return trigger, secret


def update_trigger(trigger: Trigger, fields: TriggerIn, by) -> Trigger:
    """Replace the trigger's settings (its kind stays); `by` becomes its owner."""
    if fields.kind != trigger.kind:
        raise ActionError(
            400, "invalid_trigger", "a trigger's kind cannot change; add a new one", field="kind"
        )
    with transaction.atomic():
        trigger = Trigger.objects.select_for_update().get(pk=trigger.pk)
        pattern, upstream = _check(trigger.pipeline, by, fields, replacing=trigger)
        _apply(trigger, fields, by, pattern, upstream)
        changed(trigger, "updated", by)
    _look_now(trigger)
    return trigger


class RotationIn(BaseModel):
    """A rotation as the API takes it: whether the old secret signs for `OLD_SECRET_GRACE`."""

    model_config = ConfigDict(extra="forbid")

    keep_old: bool = False


def _new_secret() -> str:
    return "whsec_" + secrets.token_urlsafe(32)


def rotate_secret(trigger: Trigger, fields: RotationIn, by) -> tuple[Trigger, str]:
    """Give a webhook trigger a new signing secret (its URL stays) and answer it in clear, the
    only time it is told; the old one is kept for `OLD_SECRET_GRACE` when `keep_old`, and one
    kept by an earlier rotation is dropped either way. The audit log records the rotation."""
    if trigger.kind != Trigger.Kind.WEBHOOK:
        raise ActionError(
            400, "not_a_webhook", "only a webhook trigger has a secret to rotate", field="kind"
        )
    secret = _new_secret()
    with transaction.atomic():
        trigger = Trigger.objects.select_for_update().get(pk=trigger.pk)
        keep = fields.keep_old
        trigger.old_secret = trigger.secret if keep else ""
        trigger.old_secret_until = timezone.now() + OLD_SECRET_GRACE if keep else None
        trigger.secret = encryption.encrypt(secret)
        trigger.save(update_fields=["secret", "old_secret", "old_secret_until", "updated_at"])
        hours = int(OLD_SECRET_GRACE.total_seconds() // 3600) if keep else 0
        details = {"kind": trigger.kind, "grace_hours": hours}
        audit_log.record("trigger.secret_rotated", trigger, details=details, user=by)
    log.info(
        "trigger %s of pipeline %s: secret rotated by %s",
        trigger.pk, trigger.pipeline_id, by.get_username(),
    )  # fmt: skip
    return trigger, secret


def _look_now(trigger: Trigger) -> None:
    """Record what the saved trigger finds now as present (it fires nothing), rather than at
    the next tick, which would take what came meanwhile for what was there."""
    if trigger.enabled and not trigger.primed:
        watch.look(
            Trigger.objects.select_related("pipeline__workspace", "owner").get(pk=trigger.pk)
        )


@transaction.atomic
def delete_trigger(trigger: Trigger, by) -> None:
    """Delete the trigger and its events; the runs it started stay, saying what started them."""
    changed(trigger, "deleted", by)
    trigger.delete()


def changed(trigger: Trigger, change: str, by) -> None:
    """A trigger was created, updated or deleted: the server log and the audit log say so
    (never its secret)."""
    log.info(
        "trigger %s of pipeline %s %s by %s",
        trigger.pk, trigger.pipeline_id, change, by.get_username(),
    )  # fmt: skip
    details = {"kind": trigger.kind, "enabled": trigger.enabled}
    if trigger.pattern:
        details["pattern"] = trigger.pattern
    if trigger.upstream_id:
        details["upstream"] = trigger.upstream_id
    audit_log.record(f"trigger.{change}", trigger, details=details, user=by)
