"""The OpenAPI contract of a pipeline's triggers and of the webhook endpoint (the body a
trigger is saved with is `editor.triggers.actions.TriggerIn`)."""

from __future__ import annotations

from ninja import Schema
from pydantic import Field

from editor.api.schemas.contract import Timestamp


class TriggerEventOut(Schema):
    id: int
    description: str
    status: str
    run: int | None
    message: str
    created_at: Timestamp


class TriggerOut(Schema):
    id: int
    pipeline: int
    owner: str
    kind: str
    name: str
    enabled: bool
    pattern: str
    upstream: int | None
    parameters: dict[str, str]
    dropped: int = Field(description="Events dropped: more were waiting than the bound allows.")
    last_outcome: str
    webhook_url: str | None = Field(
        description="Where to POST (webhook triggers): absolute when PIPEWRIGHT_BASE_URL is "
        "set, else the path alone."
    )
    webhook_url_absolute: bool
    secret: str | None = Field(
        None,
        description="The webhook's signing secret: answered once, at creation or rotation.",
    )
    old_secret_valid_until: Timestamp | None = Field(
        None,
        description="Until when the secret before the last rotation still signs calls (None: "
        "it does not).",
    )
    recent_events: list[TriggerEventOut]


class TriggerList(Schema):
    items: list[TriggerOut]


class HookAccepted(Schema):
    event: int
    status: str
    message: str
