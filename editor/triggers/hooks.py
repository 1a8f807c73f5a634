"""An inbound webhook call: found by its token, its body bounded, signed with the trigger's
secret (HMAC-SHA256 of the raw body, compared in constant time), rate-bounded, and recorded as
one event per body: the event's identity is the digest of the signed body, so a retry, or a
call recorded on the way and sent again, fires nothing more while the event is kept (nothing
unsigned, such as a header, could tell a replay from a new call).

Nobody signs in to call it: the token finds the trigger and the signature proves the caller
holds the secret. Every refusal is the same 4xx whatever the reason it hides (an unknown token
answers as a bad signature does), and records nothing.
"""

from __future__ import annotations

import hashlib
import hmac
import logging
from datetime import timedelta

from django.db.models import F
from django.utils import timezone

from editor import encryption
from editor.errors import ActionError
from editor.models import Trigger, TriggerEvent
from editor.pipelines.documents import to_document
from editor.triggers import events, parameters
from runtime.document import json_text

log = logging.getLogger(__name__)

MAX_BODY = 64 * 1024
"""Bytes a webhook's body may have."""
SIGNATURE_HEADER = "X-Pipewright-Signature"
"""`sha256=<hex HMAC-SHA256 of the raw body with the trigger's secret>`."""
PER_MINUTE = 60
"""Calls one trigger records a minute; past that, 429 until the minute has passed."""


def signature(secret: str, body: bytes) -> str:
    """The header value a caller sends with `body`."""
    return "sha256=" + hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()


def _refused() -> ActionError:
    return ActionError(
        401,
        "bad_signature",
        f"the {SIGNATURE_HEADER} header must be sha256= and the HMAC-SHA256 of the body with "
        "the trigger's secret",
        field=SIGNATURE_HEADER,
    )


def receive(token: str, body: bytes, headers) -> TriggerEvent:
    """The event a call records, waiting for its run (or the one recorded before for the same
    body); an ActionError says why none is."""
    if len(body) > MAX_BODY:
        raise ActionError(413, "too_large", f"a webhook's body has at most {MAX_BODY} bytes")
    trigger = (
        Trigger.objects.select_related("pipeline")
        .filter(kind=Trigger.Kind.WEBHOOK, token=token[:64])
        .first()
    )
    if trigger is None or not _signed(trigger, body, headers.get(SIGNATURE_HEADER, "")):
        raise _refused()
    if not trigger.enabled:
        raise ActionError(409, "trigger_disabled", "this trigger is disabled")
    fields = _fields(body)
    declared = to_document(trigger.pipeline).config.parameters
    _values, problems = parameters.fill(trigger.parameters, fields, declared)
    if problems:
        raise ActionError(422, "invalid_event", problems[0].message, field=problems[0].field)
    _refuse_too_often(trigger)
    digest = hashlib.sha256(body).hexdigest()
    seen = events.Seen(f"webhook:{digest}", f"webhook call {digest[:12]}", fields)
    recorded = events.record(trigger.pk, [seen])
    events.prune(trigger)
    if recorded.dropped:  # others were recorded since the look above
        raise ActionError(429, "too_many_waiting", events.dropped_message())
    return TriggerEvent.objects.get(trigger=trigger, key=seen.key)


def _signed(trigger: Trigger, body: bytes, given: str) -> bool:
    """Whether `given` is the body's signature with the trigger's secret, or with the secret
    a rotation kept until `old_secret_until` (constant time)."""
    signing = [trigger.secret]
    until = trigger.old_secret_until
    if trigger.old_secret and until is not None and timezone.now() < until:
        signing.append(trigger.old_secret)
    return any([_signed_with(trigger, secret, body, given) for secret in signing])


def _signed_with(trigger: Trigger, encrypted: str, body: bytes, given: str) -> bool:
    try:
        secret = encryption.decrypt(encrypted)
    except encryption.UnreadableSecret:  # the keys changed: the server log says so
        log.error("webhook trigger %s: a secret of it cannot be decrypted", trigger.pk)
        return False
    return hmac.compare_digest(signature(secret, body).encode(), given.encode())


def _fields(body: bytes) -> dict:
    """The JSON object the body holds (empty for an empty body), or a 400."""
    if not body.strip():
        return {}
    try:
        value = json_text.loads(body)
    except json_text.JsonTextError as error:
        raise ActionError(400, "invalid_json", f"the body is {error}", field=error.field) from None
    if not isinstance(value, dict):
        raise ActionError(400, "invalid_json", "the body must be a JSON object")
    return value


def _refuse_too_often(trigger: Trigger) -> None:
    """429 once the trigger recorded `PER_MINUTE` calls in the last minute, or while
    `MAX_WAITING` of its events wait (the call is counted as dropped, and not recorded)."""
    since = timezone.now() - timedelta(minutes=1)
    if trigger.events.filter(created_at__gte=since).count() >= PER_MINUTE:
        raise ActionError(
            429, "too_many_calls", f"a webhook trigger takes at most {PER_MINUTE} calls a minute"
        )
    waiting = trigger.events.filter(status=TriggerEvent.Status.WAITING).count()
    if waiting >= events.MAX_WAITING:
        Trigger.objects.filter(pk=trigger.pk).update(dropped=F("dropped") + 1)
        raise ActionError(429, "too_many_waiting", events.dropped_message())
