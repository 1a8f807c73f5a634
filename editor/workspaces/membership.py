"""Making workspaces and their members, and where a workspace's files live.

Every user gets a personal workspace when the user is created (a signal, so users made by
`createsuperuser`, the admin or a token-only script all have one). A slug is made once from
the name, from `[a-z0-9-]`, unique, never `shared` or dot-led (those name the data root's
common folders), and never changes: it names the workspace's folder.
"""

from __future__ import annotations

import re
from pathlib import Path

from django.conf import settings
from django.db import transaction
from django.utils.text import slugify

from editor.errors import ActionError
from editor.models import Membership, Role, Workspace
from editor.workspaces.connections import runtime_connections
from editor.workspaces.permissions import is_operator
from runtime.io.paths import CACHE, SCRATCH, SHARED, SYSTEM, FileArea

RESERVED_SLUGS = frozenset({SHARED})
SLUG_PATTERN = re.compile(r"^[a-z0-9](?:[a-z0-9-]{0,48}[a-z0-9])?$")


def slug_problem(slug: str) -> str | None:
    """Why `slug` cannot name a workspace, or None."""
    if not SLUG_PATTERN.match(slug):
        return "use 1 to 50 lowercase letters, digits and '-', starting and ending with one"
    if slug in RESERVED_SLUGS:
        return f"'{slug}' is reserved for the folder every workspace shares"
    if Workspace.objects.filter(slug=slug).exists():
        return f"a workspace with the slug '{slug}' exists already"
    return None


def free_slug(name: str, workspaces=None) -> str:
    """A new unique slug made from `name` (a number added when it is taken); `workspaces` is
    the model to look in (migrations pass their historical one)."""
    workspaces = workspaces or Workspace
    base = slugify(name).replace("_", "-").strip("-")[:40].strip("-") or "workspace"
    if base in RESERVED_SLUGS or base.startswith("."):
        base = f"{base}-workspace"
    slug, number = base, 1
    while workspaces.objects.filter(slug=slug).exists():
        number += 1
        slug = f"{base}-{number}"
    return slug


@transaction.atomic
def create_workspace(name: str, *, admin=None, slug: str | None = None, **fields) -> Workspace:
    """A new workspace, with `admin` (if given) as its first admin member."""
    workspace = Workspace.objects.create(name=name, slug=slug or free_slug(name), **fields)
    if admin is not None:
        Membership.objects.create(workspace=workspace, user=admin, role=Role.ADMIN)
    workspace_folder(workspace)
    return workspace


def personal_workspace(user) -> Workspace:
    """The user's own workspace, created now if they have none (users from before them)."""
    workspace = Workspace.objects.filter(personal_of=user).first()
    if workspace is None:
        workspace = create_workspace(user.get_username(), admin=user, personal_of=user)
    return workspace


@transaction.atomic
def set_member(workspace: Workspace, user, role: Role) -> Membership:
    """Give `user` the `role` in `workspace` (added, or changed)."""
    if role != Role.ADMIN:
        _keep_an_admin(workspace, user)
    membership, _ = Membership.objects.update_or_create(
        workspace=workspace, user=user, defaults={"role": role}
    )
    return membership


@transaction.atomic
def remove_member(workspace: Workspace, user) -> None:
    """Take `user` out of `workspace`; never its last admin, nor the owner of a personal one."""
    if workspace.personal_of_id == user.pk:
        raise ActionError(409, "owner", "a personal workspace keeps its owner")
    _keep_an_admin(workspace, user)
    workspace.memberships.filter(user=user).delete()


def _keep_an_admin(workspace: Workspace, leaving) -> None:
    admins = workspace.memberships.select_for_update().filter(role=Role.ADMIN)
    if list(admins.values_list("user_id", flat=True)) == [leaving.pk]:
        raise ActionError(409, "last_admin", "a workspace keeps at least one admin")


def data_root() -> Path:
    return Path(settings.PIPEWRIGHT_DATA_ROOT)


def workspace_folder(workspace: Workspace) -> Path:
    """`<data root>/<slug>/`, created if missing."""
    folder = data_root() / workspace.slug
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def shared_folder() -> Path:
    """`<data root>/shared/`, common to all, written by staff only."""
    folder = data_root() / SHARED
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def system_folder() -> Path:
    """`<data root>/.pipewright/`, the system's own (never reachable by a file operator), made
    0700: it holds cached results and spilled data of every workspace."""
    folder = data_root() / SYSTEM
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    folder.chmod(0o700)
    return folder


def cache_folder(workspace: Workspace) -> Path:
    """`<data root>/.pipewright/cache/<slug>/`: the workspace's result store (docs/cache.md),
    never shared with another workspace nor reachable by a file operator."""
    return data_root() / CACHE / workspace.slug


def file_area(workspace: Workspace, user) -> FileArea:
    """Where runs and previews of `user` in `workspace` may read and write files (the system
    folder made first, so that its cache and scratch folders are made inside a private one)."""
    system_folder()
    return FileArea(
        root=workspace_folder(workspace),
        shared=shared_folder(),
        shared_writable=is_operator(user),
        called="workspace folder",
        scratch=data_root() / SCRATCH,
        cache=cache_folder(workspace),
    )


def engine_access(workspace: Workspace, user) -> dict:
    """The files and connections a run or preview by `user` in `workspace` may use, as the
    runtime's `data_root` and `connections` arguments."""
    return {"data_root": file_area(workspace, user), "connections": runtime_connections(workspace)}
