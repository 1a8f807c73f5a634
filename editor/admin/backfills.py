"""Pins and backfills in the admin: listed, searched and filtered, read only (a pin's file and
size, or a backfill's intervals and counts, written by hand would no longer say what the
runs read). A pin may be deleted (its file goes once no queued run reads it,
`editor.signals`); a running backfill is cancelled through `editor.backfills.actions`, as
the API cancels it (audited, its running intervals' runs cancelled)."""

from __future__ import annotations

from django.contrib import admin, messages

from editor.backfills.actions import cancel_backfill, progress
from editor.models import Backfill, BackfillInterval, Pin


class ReadOnly(admin.ModelAdmin):
    """Shown, never added nor changed by hand."""

    def has_add_permission(self, request, obj=None):
        return False

    def has_change_permission(self, request, obj=None):
        return False


@admin.register(Pin)
class PinAdmin(ReadOnly):
    list_display = (
        "node_id",
        "pipeline",
        "source",
        "rows",
        "size_bytes",
        "created_by",
        "created_at",
    )
    list_filter = ("pipeline__workspace", "created_at")
    list_select_related = ("pipeline", "created_by")
    search_fields = ("node_id", "source", "pipeline__name", "created_by__username")
    readonly_fields = (
        "pipeline", "node_id", "source", "rows", "columns", "size_bytes", "file", "created_by",
        "created_at",
    )  # fmt: skip


class IntervalInline(admin.TabularInline):
    model = BackfillInterval
    fields = ("start", "end", "status", "attempts", "run", "error")
    readonly_fields = fields
    ordering = ("start",)
    extra = 0
    max_num = 0
    can_delete = False
    show_change_link = False

    def get_queryset(self, request):
        return super().get_queryset(request).select_related("run")


@admin.register(Backfill)
class BackfillAdmin(ReadOnly):
    list_display = (
        "id", "pipeline", "schedule", "start", "end", "concurrency", "status", "counts", "owner",
        "created_at",
    )  # fmt: skip
    list_filter = ("status", "value_format", "pipeline__workspace", "created_at")
    list_select_related = ("pipeline", "schedule", "owner")
    search_fields = ("pipeline__name", "schedule__name", "owner__username")
    readonly_fields = (
        "pipeline", "schedule", "owner", "start", "end", "start_parameter", "end_parameter",
        "value_format", "concurrency", "status", "counts", "created_at", "finished_at",
    )  # fmt: skip
    inlines = (IntervalInline,)
    actions = ("cancel",)

    def has_delete_permission(self, request, obj=None):
        """An ended backfill may go; a running one is cancelled first (its runs go on)."""
        running = obj is not None and obj.status == Backfill.Status.RUNNING
        return not running and super().has_delete_permission(request, obj)

    @admin.display(description="intervals")
    def counts(self, backfill):
        """`6 waiting · 1 running · 3 succeeded of 10` (the states it has)."""
        counts = progress(backfill)
        said = [
            f"{counts[state]} {state}" for state in BackfillInterval.Status.values if counts[state]
        ]
        return f"{' · '.join(said)} of {counts['total']}" if said else "none"

    @admin.action(description="Cancel selected backfills")
    def cancel(self, request, queryset):
        running = list(queryset.filter(status=Backfill.Status.RUNNING))
        for backfill in running:
            cancel_backfill(backfill, request.user)
        left = queryset.count() - len(running)
        self.message_user(request, f"Cancelled {len(running)} backfill(s).", messages.SUCCESS)
        if left:
            self.message_user(
                request, f"{left} backfill(s) had ended already: left as they were.", messages.INFO
            )
