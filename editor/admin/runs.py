"""Runs in the admin: read-only history with node runs and log lines inline and the document
that ran."""

from __future__ import annotations

import json

from django.contrib import admin
from django.utils.html import format_html

from editor.models import NodeRun, Run, RunLog
from editor.pipelines.graph_image import STATUS_COLOURS

ADMIN_CSS = "admin-pipewright.css"
"""The admin's styles (static/): pictures, inline tables and badges, with no inline style."""


def status_badge(status: str | None):
    """A run or node status as a coloured pill, in the graph picture's colours."""
    if not status:
        return None
    known = status if status in STATUS_COLOURS else "idle"
    return format_html(
        '<span class="pw-badge pw-badge-{}">{}</span>', known, status.replace("_", " ")
    )


def seconds(value: float | None) -> str | None:
    """A duration for display."""
    return None if value is None else f"{value:.2f} s"


class NodeRunInline(admin.TabularInline):
    model = NodeRun
    fields = ("node_id", "badge", "attempts", "rows_in", "rows_out", "duration", "error")
    readonly_fields = fields
    extra = 0
    can_delete = False

    def has_add_permission(self, request, obj=None):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    @admin.display(description="status")
    def badge(self, node_run):
        return status_badge(node_run.status)

    @admin.display(description="rows in")
    def rows_in(self, node_run):
        ports = node_run.metrics.get("rows_in") or {}
        if len(ports) == 1:
            return next(iter(ports.values()))
        return ", ".join(f"{port}: {rows}" for port, rows in sorted(ports.items())) or None

    @admin.display(description="rows out")
    def rows_out(self, node_run):
        return node_run.metrics.get("rows_out")

    @admin.display(description="duration")
    def duration(self, node_run):
        return seconds(node_run.metrics.get("duration_s"))


class RunLogInline(admin.TabularInline):
    """The run's log lines, read-only, in order."""

    model = RunLog
    fields = ("time", "level", "node", "message")
    readonly_fields = fields
    extra = 0
    can_delete = False
    verbose_name_plural = "log (see “logs dropped” for lines not kept)"

    def has_add_permission(self, request, obj=None):
        return False

    def has_change_permission(self, request, obj=None):
        return False


@admin.register(Run)
class RunAdmin(admin.ModelAdmin):
    class Media:
        css = {"all": (ADMIN_CSS,)}

    list_display = ("id", "run_number", "pipeline", "badge", "started_by", "created_at", "duration")
    list_filter = ("status", "trigger", "fresh", "pipeline")
    list_select_related = ("pipeline", "started_by")
    date_hierarchy = "created_at"
    fields = (
        ("pipeline", "run_number", "revision", "badge", "started_by"),
        ("trigger", "schedule"),
        ("created_at", "started_at", "finished_at", "duration"),
        "parameters",
        ("fresh", "tuning", "up_to", "from_node"),
        "error",
        ("host", "pid", "heartbeat_at", "last_seq", "cancel_requested", "logs_dropped"),
        "snapshot",
    )
    readonly_fields = ("run_number", "revision", "badge", "duration", "snapshot")
    inlines = (NodeRunInline, RunLogInline)

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    @admin.display(description="number", ordering="number")
    def run_number(self, run):
        return f"#{run.number}"

    @admin.display(description="status", ordering="status")
    def badge(self, run):
        return status_badge(run.status)

    @admin.display(description="duration")
    def duration(self, run):
        return seconds(run.duration_s)

    @admin.display(description="document that ran")
    def snapshot(self, run):
        return format_html(
            "<pre>{}</pre>", json.dumps(run.document, indent=2, sort_keys=True, ensure_ascii=False)
        )
