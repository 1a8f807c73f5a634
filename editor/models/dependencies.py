"""Dependencies between pipelines that detection cannot see, and the upstream runs a run read."""

from __future__ import annotations

from django.conf import settings
from django.db import models

from editor.models.pipelines import Pipeline
from editor.models.runs import Run


class DeclaredDependency(models.Model):
    """`downstream` reads what `upstream` writes (both of one workspace), said by a person."""

    upstream = models.ForeignKey(Pipeline, on_delete=models.CASCADE, related_name="+")
    downstream = models.ForeignKey(
        Pipeline, on_delete=models.CASCADE, related_name="declared_dependencies"
    )
    note = models.CharField(max_length=300, blank=True, help_text="What it reads, in words.")
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["downstream", "upstream"]
        constraints = [
            models.UniqueConstraint(fields=["upstream", "downstream"], name="unique_dependency")
        ]

    def __str__(self) -> str:
        return f"{self.downstream} reads {self.upstream}"


class UpstreamRun(models.Model):
    """The run of an upstream pipeline that a run read: its latest succeeded run when the run
    was queued."""

    run = models.ForeignKey(Run, on_delete=models.CASCADE, related_name="upstream_runs")
    upstream = models.ForeignKey(Pipeline, on_delete=models.CASCADE, related_name="+")
    upstream_run = models.ForeignKey(
        Run, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    upstream_run_number = models.PositiveIntegerField(
        null=True, blank=True, help_text="Kept past the upstream run's pruning; empty: none yet."
    )
    via = models.CharField(max_length=500, blank=True, help_text="The paths or tables read.")

    class Meta:
        ordering = ["run", "upstream"]
        constraints = [
            models.UniqueConstraint(fields=["run", "upstream"], name="unique_upstream_run")
        ]

    def __str__(self) -> str:
        return f"{self.run} read {self.upstream} run #{self.upstream_run_number}"
