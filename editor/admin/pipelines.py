"""Pipelines in the admin: nodes and edges inline, the graph picture, run / export / duplicate.

Changes follow the API's rules: a save bumps `revision` and is refused when someone saved
meanwhile, rows are checked against the runtime document's models, and runs, duplicates and
deletions go through `editor.actions`.
"""

from __future__ import annotations

from django import forms
from django.contrib import admin, messages
from django.db import models
from django.db.models import Count
from django.urls import reverse
from django.utils.html import format_html
from pydantic import BaseModel, ValidationError

from editor import actions
from editor.admin.runs import status_badge
from editor.errors import ActionError
from editor.exports import export_download, exports_zip
from editor.models import Edge, Node, Pipeline
from editor.workspaces import personal_workspace
from runtime.spec import Config, problems_from_validation
from runtime.spec import Node as NodeSpec


def spec_problems(spec: type[BaseModel], data: dict) -> list:
    """What the runtime document's model `spec` refuses in `data` (empty when it is fine)."""
    try:
        spec.model_validate(data)
    except ValidationError as error:
        return problems_from_validation(error, data if isinstance(data, dict) else {})
    return []


class PipelineForm(forms.ModelForm):
    """Carries the revision it was loaded at, so a stale save is refused as the API does."""

    class Meta:
        model = Pipeline
        fields = ("name", "workspace", "owner", "description", "config", "revision")
        widgets = {"revision": forms.HiddenInput}

    def clean_config(self):
        config = {} if self.cleaned_data["config"] is None else self.cleaned_data["config"]
        if problems := spec_problems(Config, config):
            raise forms.ValidationError([str(problem) for problem in problems])
        return config

    def clean(self):
        cleaned = super().clean()
        if self.instance.pk is not None:
            current = Pipeline.objects.select_for_update().get(pk=self.instance.pk).revision
            if cleaned.get("revision") != current:
                raise forms.ValidationError(
                    f"Someone saved this pipeline meanwhile (now revision {current}); "
                    "reload the page and make your change again."
                )
        return cleaned


class NodeForm(forms.ModelForm):
    """A node row that the runtime document accepts (id pattern, params object, limits)."""

    def clean_params(self):
        return {} if self.cleaned_data["params"] is None else self.cleaned_data["params"]

    def clean(self):
        cleaned = super().clean()
        row = {name: cleaned.get(name) for name in ("operator", "label", "params", "retries")}
        row.update(id=cleaned.get("node_id"), timeout_s=cleaned.get("timeout_s"))
        for problem in spec_problems(NodeSpec, row):
            field = "node_id" if problem.field == "id" else problem.field
            if field not in self.errors:
                self.add_error(field if field in self.fields else None, problem.message)
        return cleaned


class NodeInline(admin.TabularInline):
    model = Node
    form = NodeForm
    extra = 0
    formfield_overrides = {models.JSONField: {"widget": forms.Textarea(attrs={"rows": 2})}}


class EdgeInline(admin.TabularInline):
    model = Edge
    extra = 0

    def get_formset(self, request, obj=None, **kwargs):
        """Offer only the pipeline's own nodes as an edge's ends."""
        formset = super().get_formset(request, obj, **kwargs)
        for end in ("source", "target"):
            if end in formset.form.base_fields:
                formset.form.base_fields[end].queryset = obj.nodes.all()
        return formset


@admin.register(Pipeline)
class PipelineAdmin(admin.ModelAdmin):
    form = PipelineForm
    list_display = (
        "name", "workspace", "owner", "revision", "node_count", "last_run", "updated_at"
    )  # fmt: skip
    list_filter = ("workspace", "owner", "updated_at")
    list_select_related = ("owner", "workspace")
    search_fields = ("name", "description", "owner__username", "workspace__name")
    fieldsets = (
        (None, {"fields": ("name", "workspace", "owner", "description", "config", "revision")}),
        ("Graph", {"fields": ("graph",)}),
    )
    readonly_fields = ("graph",)
    actions = ("run", "export_json", "duplicate")

    def get_queryset(self, request):
        return super().get_queryset(request).with_last_run().annotate(node_count=Count("nodes"))

    def get_inlines(self, request, obj):
        """Edges join existing nodes, so they are edited once the pipeline has some."""
        return (NodeInline,) if obj is None else (NodeInline, EdgeInline)

    def get_changeform_initial_data(self, request):
        initial = {"owner": request.user.pk, "workspace": personal_workspace(request.user).pk}
        return {**initial, **super().get_changeform_initial_data(request)}

    def save_model(self, request, obj, form, change):
        if change:
            obj.revision += 1
        super().save_model(request, obj, form, change)

    def delete_model(self, request, obj):
        actions.delete_pipeline(obj)

    def delete_queryset(self, request, queryset):
        for pipeline in queryset:
            actions.delete_pipeline(pipeline)

    @admin.display(description="nodes", ordering="node_count")
    def node_count(self, pipeline):
        return pipeline.node_count

    @admin.display(description="last run", ordering="last_run_status")
    def last_run(self, pipeline):
        return status_badge(pipeline.last_run_status)

    @admin.display(description="picture")
    def graph(self, pipeline):
        """The picture as an image from the API, so nothing a user wrote is part of this page."""
        if pipeline.pk is None:
            return None
        url = reverse("api:pipeline_graph", kwargs={"pipeline_id": pipeline.pk, "fmt": "svg"})
        return format_html('<img src="{}" alt="graph of {}">', url, pipeline.name)

    def _each(self, request, queryset, act) -> None:
        """Apply `act` to each pipeline, reporting what it says or why it was refused."""
        for pipeline in queryset:
            try:
                self.message_user(request, act(pipeline), messages.SUCCESS)
            except ActionError as error:
                self.message_user(request, f"{pipeline}: {error.message}", messages.ERROR)

    @admin.action(description="Run selected pipelines")
    def run(self, request, queryset):
        def start(pipeline):
            run = actions.start_run(pipeline, request.user, {})
            return f"Queued run {run.pk} of “{pipeline}”."

        self._each(request, queryset, start)

    @admin.action(description="Duplicate selected pipelines")
    def duplicate(self, request, queryset):
        def copy(pipeline):
            return f"Created “{actions.duplicate_pipeline(pipeline, pipeline.owner)}”."

        self._each(request, queryset, copy)

    @admin.action(description="Export selected pipelines as JSON")
    def export_json(self, request, queryset):
        pipelines = list(queryset)
        return export_download(pipelines[0]) if len(pipelines) == 1 else exports_zip(pipelines)
