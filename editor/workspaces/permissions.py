"""Who may do what: the one place that answers "may this user do X to this object".

A user reaches a workspace's pipelines, runs, connections and files through their role in it
(`viewer` < `editor` < `admin`); staff act as admins of every workspace. Views, the
websocket, the admin, management commands and pictures all ask here; nothing else decides.
Objects a user may not see answer 404 (their existence is not revealed); objects they may
see but not change answer 403 with the role they would need.

Whatever executes a document on the workspace's connections reads their data with the
workspace's credentials: a viewer's preview, schemas, validation and plan run the saved
document only (an editor wrote it), and checking a document of one's own needs `Action.TRY`.
"""

from __future__ import annotations

from enum import StrEnum

from django.db.models import QuerySet
from django.http import Http404

from editor.errors import ActionError
from editor.models import Connection, Pipeline, Role, Run, Workspace


class Action(StrEnum):
    VIEW = "view"  # open, preview, export, see runs and files
    EDIT = "edit"  # save pipelines, upload and delete files
    TRY = "check documents of your own"  # on the workspace's connections: a query of one's own
    RUN = "run"  # start and cancel runs
    MANAGE = "manage"  # members and connections


NEEDED_ROLE = {
    Action.VIEW: Role.VIEWER,
    Action.EDIT: Role.EDITOR,
    Action.TRY: Role.EDITOR,
    Action.RUN: Role.EDITOR,
    Action.MANAGE: Role.ADMIN,
}
_RANK = {Role.VIEWER: 1, Role.EDITOR: 2, Role.ADMIN: 3}


def _signed_in(user) -> bool:
    return user is not None and user.is_authenticated and user.is_active


def role_in(user, workspace: Workspace) -> Role | None:
    """The user's role in the workspace (admin for staff), or None for a stranger."""
    if not _signed_in(user):
        return None
    if user.is_staff:
        return Role.ADMIN
    role = workspace.memberships.filter(user=user).values_list("role", flat=True).first()
    return None if role is None else Role(role)


def workspace_of(target) -> Workspace:
    """The workspace that a pipeline, run, connection (or workspace) belongs to."""
    if isinstance(target, Workspace):
        return target
    if isinstance(target, Run):
        return target.pipeline.workspace
    if isinstance(target, Pipeline | Connection):
        return target.workspace
    raise TypeError(f"no workspace for {type(target).__name__}")


def may(user, action: Action, target) -> bool:
    """Whether `user` may do `action` to `target` (a workspace or something in one)."""
    role = role_in(user, workspace_of(target))
    return role is not None and _RANK[role] >= _RANK[NEEDED_ROLE[action]]


def require(user, action: Action, target) -> None:
    """Nothing if allowed; else 404 for a stranger, 403 naming the role that is needed."""
    workspace = workspace_of(target)
    role = role_in(user, workspace)
    if role is None:
        raise Http404("not found")
    needed = NEEDED_ROLE[action]
    if _RANK[role] < _RANK[needed]:
        raise ActionError(
            403,
            "forbidden",
            f"you are a {role.value} in workspace '{workspace.slug}'; to {action.value} there "
            f"you need the {needed.value} role (ask one of its admins)",
        )


def is_operator(user) -> bool:
    """Staff run the server: they write the shared folder every workspace reads, make shared
    workspaces, and read tracebacks (which name the server's files)."""
    return _signed_in(user) and user.is_staff


def visible_workspaces(user) -> QuerySet[Workspace]:
    """The workspaces `user` belongs to (every one for staff)."""
    if not _signed_in(user):
        return Workspace.objects.none()
    workspaces = Workspace.objects.all()
    return workspaces if user.is_staff else workspaces.filter(memberships__user=user)


def visible_pipelines(user) -> QuerySet[Pipeline]:
    """The pipelines of the user's workspaces."""
    pipelines = Pipeline.objects.select_related("owner", "workspace")
    return pipelines.filter(workspace__in=visible_workspaces(user))


def workspace_for(user, slug: str, action: Action = Action.VIEW) -> Workspace:
    """The workspace with this slug, if `user` may do `action` in it."""
    return _allowed(user, action, Workspace.objects.all(), "no such workspace", slug=slug)


def pipeline_for(user, pipeline_id: int, action: Action = Action.VIEW) -> Pipeline:
    """The pipeline, if `user` may do `action` to it (404 when they may not even see it)."""
    pipelines = Pipeline.objects.select_related("owner", "workspace")
    return _allowed(user, action, pipelines, "no such pipeline", pk=pipeline_id)


def run_for(user, run_id: int, action: Action = Action.VIEW) -> Run:
    """The run, if `user` may do `action` to it."""
    runs = Run.objects.select_related("pipeline__workspace", "started_by")
    return _allowed(user, action, runs, "no such run", pk=run_id)


def _allowed(user, action: Action, queryset: QuerySet, missing: str, **lookup):
    """The one object of `queryset` matching `lookup`, if `user` may do `action` to it; else
    404 `missing` (whether it does not exist or is hidden) or 403."""
    try:
        target = queryset.get(**lookup)
        require(user, action, target)
    except (queryset.model.DoesNotExist, Http404):
        raise Http404(missing) from None
    return target
