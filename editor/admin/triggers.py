"""Triggers in the admin: read and deleted, never written by hand (their checks, the loop
refusal, re-reading a folder when enabled again and a webhook's secret live in
`editor.triggers.actions`, which the API saves through); their events, read only. A webhook's
secret is never shown."""

from __future__ import annotations

from django.contrib import admin

from editor.models import Trigger, TriggerEvent


@admin.register(Trigger)
class TriggerAdmin(admin.ModelAdmin):
    list_display = ("__str__", "kind", "enabled", "owner", "dropped", "last_outcome")
    list_filter = ("kind", "enabled", "pipeline__workspace")
    list_select_related = ("pipeline", "owner")
    search_fields = ("name", "pattern", "pipeline__name")
    fields = (
        "pipeline", "owner", "kind", "name", "enabled", "pattern", "upstream", "parameters",
        "dropped", "last_outcome", "created_at", "updated_at",
    )  # fmt: skip
    readonly_fields = fields

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False


@admin.register(TriggerEvent)
class TriggerEventAdmin(admin.ModelAdmin):
    list_display = ("description", "trigger", "status", "run", "created_at")
    list_filter = ("status", "trigger__kind")
    list_select_related = ("trigger__pipeline", "run")
    search_fields = ("description",)
    readonly_fields = ("trigger", "key", "description", "fields", "status", "run", "message")

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False
