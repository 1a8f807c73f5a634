"""The OpenAPI contract of pipelines' notifications and workspaces' audit logs."""

from __future__ import annotations

from typing import Annotated, Literal

from ninja import Schema
from pydantic import Field

from editor.api.schemas.contract import Timestamp

MAX_RECIPIENTS = 20
LONGEST_S = 30 * 24 * 3600


class NotificationIn(Schema):
    kind: Literal["webhook", "email"]
    url: Annotated[str, Field(max_length=500)] = ""
    recipients: Annotated[
        list[Annotated[str, Field(max_length=254)]], Field(max_length=MAX_RECIPIENTS)
    ] = []
    on_failure: bool = True
    on_success: bool = False
    long_after_s: Annotated[int, Field(ge=1, le=LONGEST_S)] | None = None
    enabled: bool = True
    new_secret: bool = Field(
        False, description="Webhooks: replace the signing secret (the answer shows the new one)."
    )


class NotificationOut(Schema):
    """A notification as its pipeline's editors see it: the secret only when just made."""

    id: int
    kind: Literal["webhook", "email"]
    url: str
    recipients: list[str]
    on_failure: bool
    on_success: bool
    long_after_s: int | None
    enabled: bool
    created_at: Timestamp
    secret: str | None = Field(None, description="Shown once, when the secret is made.")
    links_start_with: str = Field(
        description="Where the messages' links to runs start (empty: a path only)."
    )
    links_from: Literal["PIPEWRIGHT_BASE_URL", "saved_at"] = Field(
        description="Whence that start comes: the setting, or the address the notification "
        "was saved at while the setting is unset."
    )


class NotificationList(Schema):
    items: list[NotificationOut]


class TestDelivery(Schema):
    delivered: bool
    detail: str


class AuditEntryOut(Schema):
    id: int
    time: Timestamp
    username: str
    user_id: int | None
    source: str
    action: str
    object_type: str
    object_id: int | None
    object_name: str
    revision: int | None
    details: dict


class AuditPage(Schema):
    items: list[AuditEntryOut]
    count: int
