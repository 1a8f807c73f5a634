"""Incremental inputs' positions in the admin: read and deleted (a reset), never written by
hand — a run that succeeded writes them."""

from __future__ import annotations

from django.contrib import admin

from editor.models import InputPosition


@admin.register(InputPosition)
class InputPositionAdmin(admin.ModelAdmin):
    list_display = ("pipeline", "node_id", "run_number", "updated_at")
    list_filter = ("pipeline__workspace",)
    list_select_related = ("pipeline",)
    search_fields = ("node_id", "pipeline__name")
    readonly_fields = ("pipeline", "node_id", "position", "run", "run_number", "updated_at")

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False
