"""The audit log in the admin: listed, filtered and searched, exported as CSV, never changed."""

from __future__ import annotations

from django.contrib import admin
from django.utils import timezone

from editor.audit.csv import csv_download
from editor.models import AuditEntry


@admin.register(AuditEntry)
class AuditEntryAdmin(admin.ModelAdmin):
    list_display = (
        "time", "username", "source", "action", "object_type", "object_name",
        "workspace_slug", "revision",
    )  # fmt: skip
    list_filter = ("action", "source", "username", "workspace_slug", "time")
    search_fields = ("username", "action", "object_name", "workspace_slug")
    date_hierarchy = "time"
    actions = ("export_csv",)

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False

    @admin.action(description="Export the selected entries as CSV")
    def export_csv(self, request, queryset):
        stamp = timezone.now().strftime("%Y%m%d-%H%M%S")
        return csv_download(queryset.order_by("time", "id"), f"audit-{stamp}.csv")
