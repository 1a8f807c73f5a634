"""The editor's persistent state: workspaces, pipelines as graphs, connections, runs.

A workspace owns pipelines (and through them their runs), connections and a folder of files;
its members have a role in it. `editor.permissions` is the one place that turns roles into
answers.

A pipeline is stored as rows (one per node and per edge, with database constraints) so that
the admin can show and search them; its notes and groups, which only arrange the canvas, are
JSON on the pipeline's row; `editor.documents` is the single mapping between these
rows and the runtime's pipeline document; history keeps its earlier documents as revisions.
A run keeps an immutable snapshot of the document that ran, so history stays true after the
pipeline is edited.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models, transaction
from django.utils import timezone
from sqlalchemy.engine import make_url

from editor import encryption
from runtime.spec import (
    LABEL_MAX_LENGTH,
    NAME_MAX_LENGTH,
    NODE_ID_MAX_LENGTH,
    OPERATOR_MAX_LENGTH,
    PORT_MAX_LENGTH,
)
from runtime.statuses import NodeStatus, RunStatus

RUN_STATUS_CHOICES = [(status, status.replace("_", " ")) for status in RunStatus]
NODE_STATUS_CHOICES = [(status, status.replace("_", " ")) for status in NodeStatus]


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


class PipelineQuerySet(models.QuerySet):
    def with_last_run(self) -> PipelineQuerySet:
        """Each pipeline annotated with its latest run's `last_run_id` and `last_run_status`,
        in the same query."""
        latest = Run.objects.latest_of(models.OuterRef("pk"))
        return self.annotate(
            last_run_id=models.Subquery(latest.values("pk")[:1]),
            last_run_status=models.Subquery(latest.values("status")[:1]),
        )


class Pipeline(models.Model):
    workspace = models.ForeignKey(Workspace, on_delete=models.CASCADE, related_name="pipelines")
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="pipelines"
    )
    name = models.CharField(max_length=NAME_MAX_LENGTH)
    description = models.TextField(blank=True)
    config = models.JSONField(default=dict, blank=True)
    notes = models.JSONField(
        default=list, blank=True, help_text="Sticky notes on the canvas, as the document has them."
    )
    groups = models.JSONField(
        default=list,
        blank=True,
        help_text="Labelled frames around nodes, as the document has them (by node id).",
    )
    revision = models.PositiveIntegerField(
        default=1, help_text="Save counter for optimistic locking: a stale save is refused."
    )
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    objects = PipelineQuerySet.as_manager()

    class Meta:
        ordering = ["-updated_at", "-id"]

    def __str__(self) -> str:
        return self.name


class Node(models.Model):
    pipeline = models.ForeignKey(Pipeline, on_delete=models.CASCADE, related_name="nodes")
    node_id = models.CharField("node id", max_length=NODE_ID_MAX_LENGTH)
    operator = models.CharField(max_length=OPERATOR_MAX_LENGTH)
    label = models.CharField(max_length=LABEL_MAX_LENGTH, blank=True)
    params = models.JSONField(default=dict, blank=True)
    x = models.FloatField(default=0)
    y = models.FloatField(default=0)
    retries = models.PositiveSmallIntegerField(null=True, blank=True)
    timeout_s = models.FloatField("timeout (s)", null=True, blank=True)

    class Meta:
        ordering = ["node_id"]
        constraints = [
            models.UniqueConstraint(fields=["pipeline", "node_id"], name="unique_node_id")
        ]

    def __str__(self) -> str:
        return self.node_id


class Edge(models.Model):
    pipeline = models.ForeignKey(Pipeline, on_delete=models.CASCADE, related_name="edges")
    source = models.ForeignKey(Node, on_delete=models.CASCADE, related_name="outgoing")
    source_port = models.CharField(max_length=PORT_MAX_LENGTH, default="out")
    target = models.ForeignKey(Node, on_delete=models.CASCADE, related_name="incoming")
    target_port = models.CharField(max_length=PORT_MAX_LENGTH, default="in")

    class Meta:
        ordering = ["source__node_id", "source_port", "target__node_id", "target_port"]
        constraints = [
            models.UniqueConstraint(
                fields=["source", "source_port", "target", "target_port"], name="unique_edge"
            )
        ]

    def __str__(self) -> str:
        return f"{self.source}.{self.source_port} → {self.target}.{self.target_port}"


class PipelineRevision(models.Model):
    """A version of a pipeline's document that history keeps (`editor.revisions` says when).

    `revision` is the pipeline's save counter at the save that made it; saves that only move
    things, and one user's saves within a minute, update the newest version instead of adding
    one. The newest version is always the pipeline as it is now.
    """

    class Kind(models.TextChoices):
        CREATED = "created"
        SAVED = "saved"
        RESTORED = "restored"

    pipeline = models.ForeignKey(Pipeline, on_delete=models.CASCADE, related_name="revisions")
    revision = models.PositiveIntegerField()
    kind = models.CharField(max_length=10, choices=Kind.choices, default=Kind.SAVED)
    document = models.JSONField(help_text="The whole pipeline document of this version.")
    author = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL
    )
    created_at = models.DateTimeField(default=timezone.now)
    saved_at = models.DateTimeField(
        default=timezone.now, help_text="The last save this version took in."
    )
    summary = models.CharField(max_length=300, blank=True)
    size = models.PositiveIntegerField(
        default=0, help_text="The document's size as JSON, in bytes."
    )

    class Meta:
        ordering = ["pipeline", "-revision"]
        constraints = [
            models.UniqueConstraint(fields=["pipeline", "revision"], name="unique_revision")
        ]

    def __str__(self) -> str:
        return f"revision {self.revision} of {self.pipeline}"


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
        "PIPEWRIGHT_CONNECTION_ALLOW lists (editor.connections).",
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


class RunQuerySet(models.QuerySet):
    def latest_of(self, pipeline) -> RunQuerySet:
        """The runs of `pipeline` (a pipeline, its id or an `OuterRef`), the latest first: the
        one definition of "the latest run"."""
        return self.filter(pipeline=pipeline).order_by("-created_at", "-id")


class Run(models.Model):
    pipeline = models.ForeignKey(Pipeline, on_delete=models.CASCADE, related_name="runs")
    number = models.PositiveIntegerField(
        editable=False, help_text="1, 2, 3 … per pipeline, in the order its runs were made."
    )
    revision = models.PositiveIntegerField(
        null=True,
        blank=True,
        editable=False,
        help_text="The pipeline's revision the run started from (unknown for runs made "
        "before run numbers).",
    )
    document = models.JSONField(help_text="The exact pipeline document that ran.")
    parameters = models.JSONField(default=dict, blank=True)
    fresh = models.BooleanField(
        default=False, help_text="Ran without reusing stored results (they were stored anew)."
    )
    up_to = models.CharField(
        max_length=NODE_ID_MAX_LENGTH,
        blank=True,
        help_text="Ran only this node and its ancestors (blank: the whole pipeline).",
    )
    from_node = models.CharField(
        max_length=NODE_ID_MAX_LENGTH,
        blank=True,
        help_text="Ran this node and everything below it, reusing what is stored above it.",
    )
    status = models.CharField(max_length=20, choices=RUN_STATUS_CHOICES, default=RunStatus.QUEUED)
    started_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL
    )
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    error = models.TextField(blank=True)
    host = models.CharField(max_length=200, blank=True)
    pid = models.PositiveIntegerField(null=True, blank=True)
    heartbeat_at = models.DateTimeField(null=True, blank=True)
    last_seq = models.PositiveIntegerField(default=0)
    cancel_requested = models.BooleanField(default=False)
    logs_dropped = models.PositiveIntegerField(
        default=0, help_text="Log lines not kept, past PIPEWRIGHT_LOG_LINES (see editor.run_logs)."
    )
    trigger = models.CharField(
        max_length=10,
        choices=[("manual", "manual"), ("schedule", "scheduled")],
        default="manual",
        help_text="Who started it: a person (manual) or one of the pipeline's schedules.",
    )
    schedule = models.ForeignKey(
        "Schedule",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="runs",
        help_text="The schedule that started it (scheduled runs).",
    )
    scheduled_for = models.DateTimeField(
        null=True,
        blank=True,
        help_text="The schedule's fire time it was started for: one run per fire time.",
    )
    queued_behind = models.ForeignKey(
        "self",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
        help_text="A run a schedule queued waits for this run to end before any worker "
        "claims it (a schedule's `queue` overlap policy).",
    )

    objects = RunQuerySet.as_manager()

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [
            models.Index(fields=["pipeline", "status"]),
            models.Index(fields=["status", "created_at"], name="run_queue_order"),
        ]
        constraints = [
            models.UniqueConstraint(fields=["pipeline", "number"], name="unique_run_number"),
            models.UniqueConstraint(
                fields=["schedule", "scheduled_for"], name="one_run_per_fire_time"
            ),
        ]

    def __str__(self) -> str:
        return f"run #{self.number} of {self.pipeline}"

    def save(self, *args, **kwargs):
        """A new run gets the next number of its pipeline (and, unless given, the pipeline's
        revision), here so that every way of making a run numbers it."""
        if self.number is not None:
            return super().save(*args, **kwargs)
        with transaction.atomic():
            # The pipeline's row lock (PostgreSQL, MariaDB) or the write lock an IMMEDIATE
            # transaction takes (SQLite) makes runs started at once wait for each other here.
            pipeline = Pipeline.objects.select_for_update().values("revision")
            revision = pipeline.get(pk=self.pipeline_id)["revision"]
            latest = Run.objects.filter(pipeline_id=self.pipeline_id).aggregate(
                models.Max("number")
            )["number__max"]
            self.number = (latest or 0) + 1
            if self.revision is None:
                self.revision = revision
            return super().save(*args, **kwargs)

    @property
    def duration_s(self) -> float | None:
        if self.started_at and self.finished_at:
            return (self.finished_at - self.started_at).total_seconds()
        return None


class NodeRun(models.Model):
    run = models.ForeignKey(Run, on_delete=models.CASCADE, related_name="node_runs")
    node_id = models.CharField("node id", max_length=NODE_ID_MAX_LENGTH)
    status = models.CharField(
        max_length=20, choices=NODE_STATUS_CHOICES, default=NodeStatus.PENDING
    )
    attempts = models.PositiveSmallIntegerField(default=0)
    metrics = models.JSONField(default=dict, blank=True)
    error = models.TextField(blank=True)
    traceback = models.TextField(blank=True)
    attempt_spans = models.JSONField(
        default=list,
        blank=True,
        help_text="Each attempt's start and end: "
        '[{"attempt", "started_at", "finished_at" (null while running), "status"}].',
    )

    class Meta:
        ordering = ["run", "id"]
        constraints = [models.UniqueConstraint(fields=["run", "node_id"], name="unique_node_run")]

    def __str__(self) -> str:
        return f"{self.node_id}: {self.status}"


class RunLog(models.Model):
    """One log line of a run: the run's own, or a node's (its retries and failures included)."""

    run = models.ForeignKey(Run, on_delete=models.CASCADE, related_name="logs")
    seq = models.PositiveIntegerField(help_text="The event's sequence number in its run.")
    time = models.DateTimeField()
    level = models.CharField(max_length=10)
    node = models.CharField(max_length=NODE_ID_MAX_LENGTH, blank=True)
    message = models.TextField()

    class Meta:
        ordering = ["run", "seq"]
        indexes = [models.Index(fields=["run", "seq"])]

    def __str__(self) -> str:
        return f"{self.time} {self.level.upper()} {self.node or 'run'}: {self.message}"


class Schedule(models.Model):
    """Runs a pipeline at the times of a cron expression in a time zone, with the rights of
    its owner; `editor.schedules` validates and changes it, `editor.scheduler` fires it."""

    class Missed(models.TextChoices):
        SKIP = "skip", "skip: times missed while no scheduler ran start nothing"
        RUN_ONCE = "run_once", "run once: times missed start one run"

    class Overlap(models.TextChoices):
        SKIP = "skip", "skip: a time is skipped while a run of the pipeline is going"
        QUEUE = "queue", "queue: the run waits behind the one going"

    pipeline = models.ForeignKey(Pipeline, on_delete=models.CASCADE, related_name="schedules")
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="schedules",
        help_text="Its runs use this user's rights; it pauses if they may no longer run the "
        "pipeline.",
    )
    name = models.CharField(max_length=200, blank=True)
    cron = models.CharField(
        max_length=200, help_text="Five fields: minute hour day-of-month month day-of-week."
    )
    timezone = models.CharField(max_length=64, default="UTC", help_text="An IANA time zone.")
    parameters = models.JSONField(default=dict, blank=True)
    enabled = models.BooleanField(default=True)
    paused_reason = models.CharField(
        max_length=300, blank=True, help_text="Why the server paused it (its owner left, say)."
    )
    missed = models.CharField(max_length=10, choices=Missed.choices, default=Missed.SKIP)
    overlap = models.CharField(max_length=10, choices=Overlap.choices, default=Overlap.SKIP)
    next_fire_at = models.DateTimeField(null=True, blank=True, db_index=True)
    last_fire_at = models.DateTimeField(null=True, blank=True)
    last_run = models.ForeignKey(
        Run, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    last_outcome = models.CharField(
        max_length=500, blank=True, help_text="What its last fire did (started, skipped, …)."
    )
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["pipeline", "id"]
        indexes = [models.Index(fields=["enabled", "next_fire_at"], name="schedule_due")]

    def __str__(self) -> str:
        return f"{self.name or self.cron} ({self.timezone}) of {self.pipeline}"


def latest_statuses(pipeline: Pipeline) -> dict[str, str]:
    """Each node's status in the pipeline's latest run (empty before any run)."""
    run = Run.objects.latest_of(pipeline).first()
    return {} if run is None else dict(run.node_runs.values_list("node_id", "status"))


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


class InputPosition(models.Model):
    """Where an incremental input of a pipeline stopped reading (runtime/incremental.py):
    written with the end of a run that succeeded as a whole, read by the next run."""

    pipeline = models.ForeignKey(Pipeline, on_delete=models.CASCADE, related_name="positions")
    node_id = models.CharField("node id", max_length=NODE_ID_MAX_LENGTH)
    position = models.JSONField(help_text="The runtime's position, as the node reported it.")
    updated_at = models.DateTimeField(auto_now=True)
    run = models.ForeignKey(
        Run,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
        help_text="The run that reached it (empty once that run was deleted).",
    )
    run_number = models.PositiveIntegerField(help_text="That run's number, kept past its pruning.")

    class Meta:
        ordering = ["pipeline", "node_id"]
        constraints = [
            models.UniqueConstraint(fields=["pipeline", "node_id"], name="unique_input_position")
        ]

    def __str__(self) -> str:
        return f"{self.pipeline} · {self.node_id}: run #{self.run_number}"


class AuditSource(models.TextChoices):
    """Where a recorded change came from."""

    EDITOR = "editor"
    API = "api"
    ADMIN = "admin"
    IMPORT = "import"
    CLI = "cli"
    SCHEDULE = "schedule"


class AppendOnly(Exception):
    """An attempt to change or delete an audit entry."""


class AuditQuerySet(models.QuerySet):
    """Audit entries can be added and read, never changed or deleted through the ORM."""

    def update(self, **kwargs):
        raise AppendOnly("the audit log is append-only")

    def delete(self):
        raise AppendOnly("the audit log is append-only")


class AuditEntry(models.Model):
    """One change someone made, kept for good (`editor.audit` records them).

    Who, what and where are copied as ids and names rather than foreign keys, so that an entry
    outlives the user, the pipeline, the run and the workspace it names. `details` never
    holds a secret.
    """

    time = models.DateTimeField(default=timezone.now, db_index=True)
    user_id = models.BigIntegerField(null=True, blank=True)
    username = models.CharField(max_length=150, blank=True)
    source = models.CharField(max_length=10, choices=AuditSource.choices)
    action = models.CharField(max_length=60, db_index=True)
    object_type = models.CharField(max_length=30)
    object_id = models.BigIntegerField(null=True, blank=True)
    object_name = models.CharField(max_length=200, blank=True)
    workspace_id = models.BigIntegerField(null=True, blank=True, db_index=True)
    workspace_slug = models.CharField(max_length=50, blank=True)
    revision = models.PositiveIntegerField(
        null=True, blank=True, help_text="The pipeline's revision this change made or used."
    )
    details = models.JSONField(default=dict, blank=True)

    objects = AuditQuerySet.as_manager()

    class Meta:
        ordering = ["-time", "-id"]
        verbose_name_plural = "audit entries"

    def __str__(self) -> str:
        return f"{self.time:%Y-%m-%d %H:%M:%S} {self.username or '-'} {self.action}"

    def save(self, *args, **kwargs):
        if not self._state.adding:
            raise AppendOnly("the audit log is append-only")
        return super().save(*args, **kwargs)

    def delete(self, *args, **kwargs):
        raise AppendOnly("the audit log is append-only")


class Notification(models.Model):
    """Who is told when a pipeline's run ends in a way they asked about (`editor.notifications`).

    A webhook's signing secret is encrypted at rest like connection passwords and shown once,
    when the notification is made. E-mail goes to `recipients` that are members of the
    workspace, or that a workspace admin added (`admin_added`).
    """

    class Kind(models.TextChoices):
        WEBHOOK = "webhook"
        EMAIL = "email"

    pipeline = models.ForeignKey(Pipeline, on_delete=models.CASCADE, related_name="notifications")
    kind = models.CharField(max_length=10, choices=Kind.choices)
    url = models.URLField("webhook URL", max_length=500, blank=True)
    recipients = models.JSONField(default=list, blank=True)
    admin_added = models.JSONField(
        default=list, blank=True, help_text="Recipients a workspace admin added."
    )
    encrypted_secret = models.TextField(blank=True, editable=False)
    on_failure = models.BooleanField(default=True, help_text="Failed or interrupted runs.")
    on_success = models.BooleanField(default=False)
    long_after_s = models.PositiveIntegerField(
        null=True, blank=True, help_text="Runs lasting longer than this many seconds."
    )
    enabled = models.BooleanField(default=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["pipeline", "id"]

    def __str__(self) -> str:
        return f"{self.kind} notification of {self.pipeline}"

    def secret(self) -> str:
        """The webhook's signing secret, decrypted for signing only."""
        return encryption.decrypt(self.encrypted_secret) if self.encrypted_secret else ""
