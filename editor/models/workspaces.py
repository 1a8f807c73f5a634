"""Workspaces and who may use them: members with a role, connections, API tokens.

A workspace owns pipelines (and through them their runs), connections and a folder of files;
its members have a role in it. `editor.workspaces.permissions` is the one place that turns roles
into answers. A connection's password and a token's key are secrets: stored encrypted or hashed.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from sqlalchemy.engine import make_url

from editor import encryption


class Role(models.TextChoices):
    """What a member may do in a workspace; each role includes the ones before it."""

    VIEWER = "viewer", "viewer: opens, previews, exports and sees runs"
    EDITOR = "editor", "editor: also saves and runs"
    ADMIN = "admin", "admin: also manages members and connections"


class Workspace(models.Model):
    """A team's (or one user's) pipelines, connections and folder of files.

    The slug names the folder (`<data root>/<slug>/`), so it never changes once made.
    """

    name = models.CharField(max_length=200)
    slug = models.SlugField(
        max_length=50,
        unique=True,
        help_text="Names the workspace's folder; lowercase letters, digits and '-'. "
        "It cannot be changed later.",
    )
    personal_of = models.OneToOneField(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="personal_workspace",
        help_text="Set for the personal workspace every user gets.",
    )
    members = models.ManyToManyField(
        settings.AUTH_USER_MODEL, through="Membership", related_name="workspaces", blank=True
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["name", "slug"]

    def __str__(self) -> str:
        return self.name


class Membership(models.Model):
    workspace = models.ForeignKey(Workspace, on_delete=models.CASCADE, related_name="memberships")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="memberships"
    )
    role = models.CharField(max_length=10, choices=Role.choices, default=Role.EDITOR)

    class Meta:
        ordering = ["workspace", "user__username"]
        constraints = [
            models.UniqueConstraint(fields=["workspace", "user"], name="unique_membership")
        ]

    def __str__(self) -> str:
        return f"{self.user} in {self.workspace} ({self.role})"


class Connection(models.Model):
    """A named database of one workspace for the SQL operators; pipelines name it only.

    The password is encrypted at rest (`editor.encryption`), never shown back, exported or
    logged, and joined to the URL only when a run needs it. `read_only` is enforced by the
    database itself; a writable connection may be limited to one schema or table prefix.
    """

    workspace = models.ForeignKey(Workspace, on_delete=models.CASCADE, related_name="connections")
    name = models.SlugField(max_length=100)
    url = models.CharField(
        "SQLAlchemy URL",
        max_length=500,
        help_text="Without the password, e.g. postgresql+psycopg://user@db.example.com/sales; "
        "SQLite: a file in the workspace's folder, e.g. sqlite:///shop.db",
    )
    encrypted_password = models.TextField(blank=True, editable=False)
    read_only = models.BooleanField(
        default=True, help_text="Queries run in read-only transactions; sql_output is refused."
    )
    prefix = models.CharField(
        max_length=100,
        blank=True,
        help_text="Writable connections only: writes are limited to this schema ('sales.') "
        "or table-name prefix ('stg_').",
    )
    description = models.CharField(max_length=200, blank=True)
    saved_by_staff = models.BooleanField(
        default=False,
        editable=False,
        help_text="Last saved by staff: only then may it reach a non-public address that "
        "PIPEWRIGHT_CONNECTION_ALLOW lists (editor.workspaces.connections).",
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["workspace", "name"]
        constraints = [
            models.UniqueConstraint(fields=["workspace", "name"], name="unique_connection_name")
        ]

    def __str__(self) -> str:
        return self.name

    @property
    def has_password(self) -> bool:
        return bool(self.encrypted_password)

    def set_password(self, password: str) -> None:
        """Keep `password` encrypted ("" removes it)."""
        self.encrypted_password = encryption.encrypt(password) if password else ""

    def full_url(self) -> str:
        """The URL with the password, for the engine only."""
        url = make_url(self.url)
        if self.encrypted_password:
            url = url.set(password=encryption.decrypt(self.encrypted_password))
        return url.render_as_string(hide_password=False)

    def display_url(self) -> str:
        """The URL as it may be shown anywhere: with any password masked."""
        return make_url(self.url).render_as_string(hide_password=True)


class ApiToken(models.Model):
    """A bearer token for scripts and CI; only its hash is stored."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="api_tokens"
    )
    name = models.CharField(max_length=100, blank=True)
    key_hash = models.CharField(max_length=64, unique=True, editable=False)
    prefix = models.CharField(
        max_length=8, editable=False, help_text="First characters, to tell tokens apart."
    )
    created_at = models.DateTimeField(auto_now_add=True)
    last_used_at = models.DateTimeField(null=True, blank=True)

    def __str__(self) -> str:
        return f"{self.prefix}… ({self.user})"
