"""Pins: rows that stand for a node's output in the runs started from the editor.

A pin's rows are a Parquet file under the data root's system folder (`editor.pipelines.pins`
writes and removes it); the row says where it came from and its size. Deleting the pin, or
its pipeline, removes the file (`editor.signals`).
"""

from __future__ import annotations

from django.conf import settings
from django.db import models

from editor.models.pipelines import Pipeline
from runtime.document.spec import NODE_ID_MAX_LENGTH


class Pin(models.Model):
    pipeline = models.ForeignKey(Pipeline, on_delete=models.CASCADE, related_name="pins")
    node_id = models.CharField(max_length=NODE_ID_MAX_LENGTH)
    file = models.CharField(
        max_length=300, help_text="The Parquet file of its rows, under the pins folder."
    )
    source = models.CharField(
        max_length=300, help_text="Where its rows came from: a run, rows edited by hand, a file."
    )
    rows = models.PositiveIntegerField(default=0)
    columns = models.JSONField(default=list, blank=True, help_text="Its columns' names.")
    size_bytes = models.PositiveBigIntegerField(default=0)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["pipeline", "node_id"]
        constraints = [
            models.UniqueConstraint(fields=["pipeline", "node_id"], name="one_pin_per_node")
        ]

    def __str__(self) -> str:
        return f"pin of {self.node_id} ({self.source})"
