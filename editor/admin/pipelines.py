"""Pipelines in the admin: nodes and edges inline, the graph picture, run / export / duplicate.

Changes follow the API's rules: the page is checked as one document (`pipeline_forms`) and
saved, created, duplicated and deleted through `editor.pipelines.actions` (and run through
`editor.runs.actions`), so a save bumps `revision`, is refused when someone saved meanwhile, and
writes only the rows that changed.
"""

from __future__ import annotations

import json

from django import forms
from django.contrib import admin, messages
from django.db import models
from django.db.models import Count
from django.urls import reverse
from django.utils.formats import date_format
from django.utils.html import format_html, format_html_join
from django.utils.timezone import localtime

from editor.admin.pipeline_forms import GraphFormSet, GraphFormSets, NodeForm, PipelineForm
from editor.admin.runs import ADMIN_CSS, status_badge
from editor.errors import ActionError
from editor.models import Edge, Node, Pipeline
from editor.pipelines import actions
from editor.pipelines.exports import export_download, exports_zip
from editor.runs.actions import start_run
from editor.workspaces.membership import personal_workspace

ADMIN_VERSIONS = 20


class NodeInline(admin.TabularInline):
    model = Node
    form = NodeForm
    formset = GraphFormSet
    extra = 0
    formfield_overrides = {models.JSONField: {"widget": forms.Textarea(attrs={"rows": 2})}}
    readonly_fields = ("settings",)

    @admin.display(description="settings")
    def settings(self, node):
        """The params as a table to read (one row a setting); the JSON beside it edits them."""
        return params_table(node.params if node is not None else None)


def params_table(params: dict | None):
    """`params` as a key/value table: a list reads as its items joined by commas, anything
    nested as compact JSON. Every value is escaped (they are user text)."""
    if not params:
        return "—"
    rows = format_html_join(
        "", "<tr><th>{}</th><td>{}</td></tr>", ((key, _shown(params[key])) for key in params)
    )
    return format_html('<table class="pw-params">{}</table>', rows)


def _shown(value) -> str:
    if isinstance(value, list) and all(not isinstance(item, dict | list) for item in value):
        return ", ".join("" if item is None else str(item) for item in value)
    if isinstance(value, dict | list):
        return json.dumps(value, ensure_ascii=False, separators=(", ", ": "))
    return "" if value is None else str(value)


class EdgeInline(admin.TabularInline):
    model = Edge
    formset = GraphFormSet
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
    class Media:
        css = {"all": (ADMIN_CSS,)}

    form = PipelineForm
    list_display = (
        "name", "workspace", "owner", "revision", "node_count", "last_run", "updated_at"
    )  # fmt: skip
    list_filter = ("workspace", "owner", "updated_at")
    list_select_related = ("owner", "workspace")
    search_fields = ("name", "description", "folder", "owner__username", "workspace__name")
    fieldsets = (
        (
            None,
            {
                "fields": (
                    *("name", "workspace", "owner", "description", "folder", "tags"),
                    *("config", "revision"),
                )
            },
        ),
        ("Graph", {"fields": ("graph",)}),
        ("Canvas", {"fields": ("notes", "groups"), "classes": ("collapse",)}),
        ("History", {"fields": ("versions",), "classes": ("collapse",)}),
    )
    readonly_fields = ("graph", "versions")
    actions = ("run", "export_json", "duplicate")

    def get_queryset(self, request):
        return super().get_queryset(request).with_last_run().annotate(node_count=Count("nodes"))

    def get_inlines(self, request, obj):
        """Edges join existing nodes, so they are edited once the pipeline has some."""
        return (NodeInline,) if obj is None else (NodeInline, EdgeInline)

    def get_formsets_with_inlines(self, request, obj=None):
        """The inlines' formsets, sharing one `GraphFormSets` so the page is checked whole."""
        pairs = list(super().get_formsets_with_inlines(request, obj))
        graph = GraphFormSets(expected=len(pairs))
        for formset, inline in pairs:
            yield type(formset.__name__, (formset,), {"graph": graph}), inline

    def get_changeform_initial_data(self, request):
        initial = {"owner": request.user.pk, "workspace": personal_workspace(request.user).pk}
        return {**initial, **super().get_changeform_initial_data(request)}

    def save_model(self, request, obj, form, change):
        """Only what is not part of the document; `save_related` saves the document."""
        if change:
            obj.save(update_fields=("owner", "workspace", "folder", "tags"))

    def save_related(self, request, form, formsets, change):
        """Write the page's document through `pipelines.actions`, as an API save or create."""
        for formset in formsets:
            formset.save(commit=False)  # lists what changed, for the history
        document = formsets[0].graph.document()
        if change:
            actions.save_pipeline(
                obj := form.instance, document, form.cleaned_data["revision"], request.user
            )
        else:
            obj = form.instance
            obj.pk = actions.create_pipeline(obj.owner, document, obj.workspace).pk
            Pipeline.objects.filter(pk=obj.pk).update(folder=obj.folder, tags=obj.tags)
        obj.refresh_from_db()

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
        return format_html(
            # Focusable: a tall picture may scroll inside its box, and keys must reach it.
            '<div class="pw-graph-picture" tabindex="0" role="region" aria-label="Graph">'
            '<img src="{}" alt="graph of {}"></div>'
            '<a href="{}" target="_blank" rel="noopener">Full size</a>',
            url,
            pipeline.name,
            url,
        )

    @admin.display(description="versions kept")
    def versions(self, pipeline):
        """The newest versions history kept (the editor's Versions menu compares and restores)."""
        if pipeline.pk is None:
            return None
        rows = format_html_join(
            "",
            "<tr><td>#{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            (
                (
                    version.revision,
                    version.author or "unknown",
                    date_format(localtime(version.saved_at), "DATETIME_FORMAT"),
                    version.summary,
                )
                for version in pipeline.revisions.select_related("author")[:ADMIN_VERSIONS]
            ),
        )
        return format_html(
            '<table class="pw-versions"><tr><th>revision</th><th>by</th><th>saved</th>'
            "<th>what changed</th></tr>{}</table>",
            rows,
        )

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
            run = start_run(pipeline, request.user, {})
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
