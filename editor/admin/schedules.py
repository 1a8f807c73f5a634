"""Schedules in the admin: listed with filters, edited through `editor.schedules.actions` as the API
edits them (the staff member who saves one becomes its owner)."""

from __future__ import annotations

from django import forms
from django.contrib import admin

from editor.errors import ActionError
from editor.models import Schedule
from editor.schedules import actions
from editor.schedules.actions import ScheduleIn

EDITABLE = (
    "name",
    "cron",
    "timezone",
    "parameters",
    "enabled",
    "missed",
    "overlap",
    "use_pins",
    "tuning",
)


class ScheduleForm(forms.ModelForm):
    """Checked by `schedules.check`, with the messages the API answers."""

    class Meta:
        model = Schedule
        fields = ("pipeline", *EDITABLE)

    def clean_parameters(self):
        parameters = self.cleaned_data["parameters"]
        if parameters is None:
            return {}
        if not isinstance(parameters, dict):
            raise forms.ValidationError('parameters are a JSON object: {"name": value}')
        return parameters

    def clean(self):
        cleaned = super().clean()
        pipeline = cleaned.get("pipeline") or self.instance.pipeline
        if self.errors or pipeline is None:
            return cleaned
        self.fields_in = ScheduleIn(**{name: cleaned[name] for name in EDITABLE})
        try:
            if self.instance.pk is None:
                actions.refuse_too_many(pipeline)
            actions.check(pipeline, self.saver, self.fields_in)
        except ActionError as refused:
            field = refused.field if refused.field in self.fields else None
            self.add_error(field, refused.message)
        return cleaned


@admin.register(Schedule)
class ScheduleAdmin(admin.ModelAdmin):
    form = ScheduleForm
    list_display = ("id", "pipeline", "cron", "timezone", "enabled", "owner", "next_fire_at")
    list_display_links = ("id", "cron")
    list_filter = ("enabled", "missed", "overlap", "timezone", "pipeline__workspace")
    list_select_related = ("pipeline", "owner")
    search_fields = ("name", "cron", "pipeline__name", "owner__username")
    readonly_fields = (
        "owner", "paused_reason", "next_fire_at", "last_fire_at", "last_run", "last_outcome"
    )  # fmt: skip

    def get_readonly_fields(self, request, obj=None):
        return self.readonly_fields if obj is None else ("pipeline", *self.readonly_fields)

    def get_form(self, request, obj=None, change=False, **kwargs):
        form = super().get_form(request, obj, change, **kwargs)
        return type(form.__name__, (form,), {"saver": request.user})

    def save_model(self, request, obj, form, change):
        """Through `editor.schedules.actions`, as the API saves."""
        if change:
            saved = actions.update_schedule(obj, form.fields_in, request.user)
        else:
            saved = actions.create_schedule(obj.pipeline, request.user, form.fields_in)
        obj.pk = saved.pk
        obj.refresh_from_db()

    def delete_model(self, request, obj):
        actions.delete_schedule(obj, request.user)

    def delete_queryset(self, request, queryset):
        for schedule in queryset:
            actions.delete_schedule(schedule, request.user)
