"""Workspaces: the caller's list, shared ones made by staff, members, connections and the
audit log."""

from __future__ import annotations

from django.contrib.auth import get_user_model
from ninja import Router, Status

from editor.api.bodies import json_object, parse_body
from editor.api.representations import page
from editor.api.schemas.contract import Limit, Offset, answers, request_body
from editor.api.schemas.notifications import AuditPage
from editor.api.schemas.workspaces import (
    ConnectionIn,
    ConnectionList,
    ConnectionOut,
    ConnectionTested,
    ConnectionTestIn,
    Member,
    MemberIn,
    WorkspaceDetail,
    WorkspaceIn,
    WorkspaceList,
    WorkspaceOut,
)
from editor.audit.csv import csv_download
from editor.errors import ActionError
from editor.models import AuditEntry, Workspace
from editor.schedules.actions import paused_schedules
from editor.workspaces.connections import connection_json, save_connection, test_connection
from editor.workspaces.membership import (
    create_workspace,
    file_area,
    remove_member,
    set_member,
    slug_problem,
)
from editor.workspaces.permissions import (
    Action,
    is_operator,
    may,
    role_in,
    visible_workspaces,
    workspace_for,
)

router = Router()


def workspace_json(workspace: Workspace, user) -> dict:
    role = role_in(user, workspace)
    return {
        "slug": workspace.slug,
        "name": workspace.name,
        "personal": workspace.personal_of_id is not None,
        "mine": workspace.personal_of_id == user.pk,
        "role": role.value if role else None,
    }


@router.get("", response=answers({200: WorkspaceList}), summary="List my workspaces")
def list_workspaces(request):
    """The workspaces the caller belongs to (every one for staff), their own first."""
    workspaces = sorted(
        visible_workspaces(request.user),
        key=lambda w: (w.personal_of_id != request.user.pk, w.name.lower(), w.slug),
    )
    return {"items": [workspace_json(w, request.user) for w in workspaces]}


@router.post(
    "",
    response=answers({201: WorkspaceOut}, 400, 403),
    openapi_extra=request_body(WorkspaceIn.model_json_schema()),
    summary="Create a shared workspace (staff)",
)
def create_shared_workspace(request):
    if not is_operator(request.user):
        raise ActionError(403, "forbidden", "only staff create shared workspaces")
    body = parse_body(WorkspaceIn, json_object(request))
    name = body.name.strip()
    if not name or len(name) > 200:
        raise ActionError(
            400, "invalid_request", "give a name of 1 to 200 characters", field="name"
        )
    if body.slug is not None and (problem := slug_problem(body.slug)):
        raise ActionError(400, "invalid_slug", problem, field="slug")
    workspace = create_workspace(name, admin=request.user, slug=body.slug)
    return Status(201, workspace_json(workspace, request.user))


@router.get(
    "/{slug}", response=answers({200: WorkspaceDetail}, 404), summary="A workspace with its members"
)
def get_workspace(request, slug: str):
    workspace = workspace_for(request.user, slug)
    members = workspace.memberships.select_related("user").order_by("user__username")
    body = {
        **workspace_json(workspace, request.user),
        "members": [{"user": m.user.get_username(), "role": m.role} for m in members],
    }
    if may(request.user, Action.MANAGE, workspace):
        body["paused_schedules"] = paused_schedules(workspace)
    return body


@router.put(
    "/{slug}/members/{username}",
    response=answers({200: Member}, 400, 403, 404, 409),
    openapi_extra=request_body(MemberIn.model_json_schema()),
    summary="Add a member or change their role",
)
def put_member(request, slug: str, username: str):
    workspace = workspace_for(request.user, slug, Action.MANAGE)
    body = parse_body(MemberIn, json_object(request))
    membership = set_member(workspace, _user_named(username), body.role)
    return {"user": username, "role": membership.role}


@router.delete(
    "/{slug}/members/{username}",
    response=answers({204: None}, 403, 404, 409),
    summary="Remove a member",
)
def delete_member(request, slug: str, username: str):
    remove_member(workspace_for(request.user, slug, Action.MANAGE), _user_named(username))
    return Status(204, None)


def _user_named(username: str):
    try:
        return get_user_model().objects.get_by_natural_key(username)
    except get_user_model().DoesNotExist:
        raise ActionError(404, "not_found", f"no user named '{username}'") from None


@router.get(
    "/{slug}/connections",
    response=answers({200: ConnectionList}, 404),
    summary="The workspace's connections",
)
def list_connections(request, slug: str):
    """Names, URLs (never a password), and whether each is read-only."""
    workspace = workspace_for(request.user, slug)
    return {"items": [connection_json(c) for c in workspace.connections.order_by("name")]}


@router.put(
    "/{slug}/connections/{name}",
    response=answers({200: ConnectionOut}, 400, 403, 404),
    openapi_extra=request_body(ConnectionIn.model_json_schema()),
    summary="Create or change a connection",
)
def put_connection(request, slug: str, name: str):
    """`password` is write-only: omit it to keep the stored one, "" to remove it. A URL
    reaching a non-public address (one `PIPEWRIGHT_CONNECTION_ALLOW` lists) is saved by
    staff only: 403 `staff_only` for anyone else."""
    workspace = workspace_for(request.user, slug, Action.MANAGE)
    body = parse_body(ConnectionIn, json_object(request))
    staff = request.user.is_staff
    connection = save_connection(workspace, name, staff=staff, **body.model_dump())
    return connection_json(connection)


@router.post(
    "/{slug}/test-connection",
    response=answers({200: ConnectionTested}, 400, 403, 404),
    openapi_extra=request_body(ConnectionTestIn.model_json_schema()),
    summary="Test a connection before saving it",
)
def post_test_connection(request, slug: str):
    """Connects once as a run would (same URL rules, same destinations, a read-only session,
    at most a few seconds' wait) and runs `SELECT 1`; 400 `connection_failed` says why not.
    Omit `password` to use the stored one of connection `name`."""
    workspace = workspace_for(request.user, slug, Action.MANAGE)
    body = parse_body(ConnectionTestIn, json_object(request))
    server = test_connection(
        workspace,
        file_area(workspace, request.user),
        staff=request.user.is_staff,
        **body.model_dump(),
    )
    return {"ok": True, "message": f"Connected: {server} answered SELECT 1."}


@router.delete(
    "/{slug}/connections/{name}",
    response=answers({204: None}, 403, 404),
    summary="Delete a connection",
)
def delete_connection(request, slug: str, name: str):
    workspace = workspace_for(request.user, slug, Action.MANAGE)
    deleted, _ = workspace.connections.filter(name=name).delete()
    if not deleted:
        raise ActionError(404, "not_found", f"no connection named '{name}' in this workspace")
    return Status(204, None)


@router.get(
    "/{slug}/audit",
    response=answers({200: AuditPage}, 403, 404),
    summary="The workspace's audit log",
)
def workspace_audit(request, slug: str, limit: Limit = 50, offset: Offset = 0):
    """Who changed what in the workspace, newest first (its admins only)."""
    workspace = workspace_for(request.user, slug, Action.MANAGE)
    entries = AuditEntry.objects.filter(workspace_id=workspace.pk)
    return page(entries, limit, offset, audit_entry_json)


@router.get(
    "/{slug}/audit.csv",
    response=answers({200: None}, 403, 404),
    openapi_extra={
        "responses": {
            200: {"description": "CSV", "content": {"text/csv": {"schema": {"type": "string"}}}}
        }
    },
    summary="The workspace's audit log as CSV",
)
def workspace_audit_csv(request, slug: str):
    """Every entry, oldest first; cells a spreadsheet would run as formulas are quoted."""
    workspace = workspace_for(request.user, slug, Action.MANAGE)
    entries = AuditEntry.objects.filter(workspace_id=workspace.pk).order_by("time", "id")
    return csv_download(entries.iterator(), f"audit-{workspace.slug}.csv")


def audit_entry_json(entry: AuditEntry) -> dict:
    fields = ("id", "username", "user_id", "source", "action", "object_type", "object_id")
    return {
        **{name: getattr(entry, name) for name in fields},
        "time": entry.time.isoformat(),
        "object_name": entry.object_name,
        "revision": entry.revision,
        "details": entry.details,
    }
