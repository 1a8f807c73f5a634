"""The OpenAPI contract of workspaces, their members, connections and files."""

from __future__ import annotations

from typing import Literal

from ninja import Field, Schema

from editor.api.schemas.contract import Timestamp
from editor.models import Role

RoleName = Literal["viewer", "editor", "admin"]


class WorkspaceOut(Schema):
    slug: str
    name: str
    personal: bool
    mine: bool
    role: RoleName | None


class WorkspaceList(Schema):
    items: list[WorkspaceOut]


class Member(Schema):
    user: str
    role: RoleName


class PausedSchedule(Schema):
    id: int
    pipeline: int
    pipeline_name: str
    cron: str
    reason: str


class WorkspaceDetail(WorkspaceOut):
    members: list[Member]
    paused_schedules: list[PausedSchedule] | None = Field(
        None,
        description="For admins: schedules the server paused (their owner left, say), with why.",
    )


class WorkspaceIn(Schema):
    name: str
    slug: str | None = None


class MemberIn(Schema):
    role: Role


class ConnectionIn(Schema):
    url: str
    password: str | None = None
    read_only: bool = True
    prefix: str = ""
    description: str = ""


class ConnectionTestIn(Schema):
    """A connection to try before saving it: `password` None uses the stored one of `name`."""

    url: str
    password: str | None = None
    name: str | None = None


class ConnectionTested(Schema):
    ok: bool
    message: str


class ConnectionOut(Schema):
    """A connection as its workspace's members see it: never its password."""

    name: str
    url: str
    has_password: bool
    read_only: bool
    prefix: str
    description: str


class ConnectionList(Schema):
    items: list[ConnectionOut]


class FileEntry(Schema):
    name: str
    path: str
    kind: Literal["file", "folder"]
    size: int | None
    modified: Timestamp | None
    read_only: bool


class FileListing(Schema):
    folder: str
    items: list[FileEntry]


class FilePaths(Schema):
    """Every file a path may name, for search and completion."""

    items: list[str]
    truncated: bool


class Uploaded(Schema):
    path: str
