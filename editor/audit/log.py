"""The audit log: who changed what, when and from where, kept in one append-only table.

`record` is called inside the transaction of the change it records, so a change that rolls
back leaves no entry. Who and from where come from the surroundings: a request (through
`AuditContextMiddleware`: the admin, the browser editor — whose requests carry
`X-Pipewright-Client: editor` — or the API, which is anything else under `/api/`, and any
request authenticated by a bearer token), or a block of code that says who acts
(`acting("import", user)` in a management command, `acting("schedule", owner)` for a
scheduled run). Outside both, the source is `cli`. Entries hold ids and names, never secrets.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass

from editor.models import (
    AuditEntry,
    AuditSource,
    Connection,
    Membership,
    Notification,
    Pipeline,
    Run,
    Schedule,
    Trigger,
    Workspace,
)

EDITOR_HEADER = "HTTP_X_PIPEWRIGHT_CLIENT"
SECRET_WORDS = ("password", "secret", "token", "key")
"""A detail whose name holds one of these is never stored (a guard against slips)."""


@dataclass(frozen=True)
class _Actor:
    source: str
    user: object = None
    request: object = None

    def who(self):
        user = self.request.user if self.request is not None else self.user
        return user if user is not None and user.is_authenticated else None


_actor: ContextVar[_Actor | None] = ContextVar("pipewright_audit_actor", default=None)


@contextmanager
def acting(source: AuditSource | str, user=None) -> Iterator[None]:
    """Changes recorded within the block come from `source`, made by `user`."""
    token = _actor.set(_Actor(AuditSource(source), user))
    try:
        yield
    finally:
        _actor.reset(token)


def current_user():
    """The user the current request (or `acting` block) acts as; None from the command line."""
    actor = _actor.get()
    return actor.who() if actor is not None else None


def request_source(request) -> AuditSource:
    """Where a request comes from: the admin, the browser editor, or a script."""
    if request.path.startswith("/admin/"):
        return AuditSource.ADMIN
    bearer = request.META.get("HTTP_AUTHORIZATION", "").lower().startswith("bearer ")
    if bearer:
        return AuditSource.API
    if request.META.get(EDITOR_HEADER) == "editor" or not request.path.startswith("/api/"):
        return AuditSource.EDITOR
    return AuditSource.API


class AuditContextMiddleware:
    """Makes each request the actor of the changes it records."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        token = _actor.set(_Actor(request_source(request), request=request))
        try:
            return self.get_response(request)
        finally:
            _actor.reset(token)


def record(
    action: str,
    target,
    *,
    revision: int | None = None,
    details: dict | None = None,
    user=None,
) -> AuditEntry:
    """Add an entry: `action` (`pipeline.saved`, …) done to `target` (a pipeline, run,
    connection, membership or notification) by the current actor (the signed-in user of the
    request, say), else by `user`."""
    actor = _actor.get() or _Actor(AuditSource.CLI)
    who = actor.who() or user
    kind, object_id, name, workspace = _described(target)
    return AuditEntry.objects.create(
        user_id=who.pk if who is not None else None,
        username=who.get_username() if who is not None else "",
        source=actor.source,
        action=action,
        object_type=kind,
        object_id=object_id,
        object_name=name[:200],
        workspace_id=workspace.pk if workspace is not None else None,
        workspace_slug=workspace.slug if workspace is not None else "",
        revision=revision,
        details=_without_secrets(details or {}),
    )


def _described(target) -> tuple[str, int | None, str, Workspace | None]:
    """`(type, id, name, workspace)` of what an entry is about."""
    if isinstance(target, Pipeline):
        return "pipeline", target.pk, target.name, target.workspace
    if isinstance(target, Run):
        pipeline = target.pipeline
        return "run", target.pk, f"run #{target.number} of {pipeline.name}", pipeline.workspace
    if isinstance(target, Connection):
        return "connection", target.pk, target.name, target.workspace
    if isinstance(target, Membership):
        return "membership", target.user_id, target.user.get_username(), target.workspace
    if isinstance(target, Notification):
        pipeline = target.pipeline
        return "notification", target.pk, f"{target.kind} of {pipeline.name}", pipeline.workspace
    if isinstance(target, Schedule):
        pipeline = target.pipeline
        name = f"{target.name or target.cron} of {pipeline.name}"
        return "schedule", target.pk, name, pipeline.workspace
    if isinstance(target, Trigger):
        pipeline = target.pipeline
        name = f"{target.kind} trigger {target.name or target.pk} of {pipeline.name}"
        return "trigger", target.pk, name, pipeline.workspace
    raise TypeError(f"the audit log does not describe {type(target).__name__}")


def _without_secrets(details: dict) -> dict:
    return {
        key: value
        for key, value in details.items()
        if not any(word in key.lower() for word in SECRET_WORDS)
    }
