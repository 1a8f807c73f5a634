"""Pipelines as graphs: the pipeline's row, its nodes and edges, and the revisions history keeps.

A pipeline is stored as rows (one per node and per edge, with database constraints) so that
the admin can show and search them; its notes and groups, which only arrange the canvas, are
JSON on the pipeline's row; `editor.pipelines.documents` is the single mapping between these
rows and the runtime's pipeline document; history keeps its earlier documents as revisions.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils import timezone

from editor.models.workspaces import Workspace
from runtime.document.spec import (
    LABEL_MAX_LENGTH,
    NAME_MAX_LENGTH,
    NODE_ID_MAX_LENGTH,
    OPERATOR_MAX_LENGTH,
    PORT_MAX_LENGTH,
)

FOLDER_MAX_LENGTH = 200
TAG_MAX_LENGTH = 40
TAGS_MAX = 20


class PipelineQuerySet(models.QuerySet):
    def with_last_run(self) -> PipelineQuerySet:
        """Each pipeline annotated with its latest run's `last_run_id` and `last_run_status`,
        in the same query."""
        from editor.models.runs import Run  # a run belongs to a pipeline: runs imports us

        latest = Run.objects.latest_of(models.OuterRef("pk"))
        return self.annotate(
            last_run_id=models.Subquery(latest.values("pk")[:1]),
            last_run_status=models.Subquery(latest.values("status")[:1]),
            last_run_at=models.Subquery(latest.values("created_at")[:1]),
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
    folder = models.CharField(
        max_length=FOLDER_MAX_LENGTH,
        blank=True,
        help_text='Where the pipeline is filed in its workspace, as a path ("sales/monthly").',
    )
    tags = models.JSONField(
        default=list, blank=True, help_text="Short words to find the pipeline by, as a list."
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
    expect = models.JSONField(
        default=list, blank=True, help_text="The node's data tests (docs/data-tests.md)."
    )

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
    """A version of a pipeline's document that history keeps (`editor.pipelines.revisions` says
    when).

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
