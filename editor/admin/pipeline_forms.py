"""The admin's pipeline forms: a change page is checked as one document, as the API checks a save.

Each row is first checked against the runtime document's models (messages at its fields);
then the pipeline form and its node and edge inlines are put together into the document they
describe, and `actions.save_problems` refuses what an API save would refuse, with the same
messages. The admin then writes that document through `editor.pipelines.actions`.
"""

from __future__ import annotations

from django import forms
from django.forms.models import BaseInlineFormSet
from pydantic import BaseModel, ValidationError

from editor.errors import ActionError
from editor.models import Pipeline
from editor.pipelines import actions
from editor.pipelines.filing import clean_folder, clean_tags
from runtime import Pipeline as PipelineSpec
from runtime import PipelineValidationError, load_document
from runtime.document.spec import Config, problems_from_validation
from runtime.document.spec import Node as NodeSpec


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
        fields = (
            "name", "workspace", "owner", "description", "folder", "tags", "config", "notes",
            "groups", "revision",
        )  # fmt: skip
        widgets = {"revision": forms.HiddenInput}

    def clean_config(self):
        config = {} if self.cleaned_data["config"] is None else self.cleaned_data["config"]
        if problems := spec_problems(Config, config):
            raise forms.ValidationError([str(problem) for problem in problems])
        return config

    def clean_folder(self):
        return _filed(clean_folder, self.cleaned_data["folder"])

    def clean_tags(self):
        return _filed(clean_tags, self.cleaned_data["tags"] or [])

    def clean_notes(self):
        return self.cleaned_data["notes"] or []

    def clean_groups(self):
        return self.cleaned_data["groups"] or []

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


def _filed(clean, value):
    """`value` as the API's filing stores it (editor.pipelines.filing), or the reason why not."""
    try:
        return clean(value)
    except ActionError as error:
        raise forms.ValidationError(error.message) from error


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


class GraphFormSets:
    """The inline formsets of one change page, so that the last one can check them together."""

    def __init__(self, expected: int):
        self.expected = expected
        self.by_prefix: dict[str, BaseInlineFormSet] = {}

    def document(self) -> PipelineSpec:
        """The document the pipeline form and the inlines describe (raises
        `PipelineValidationError` as an API body would)."""
        nodes, edges = self.by_prefix["nodes"], self.by_prefix.get("edges")
        ids = {form.instance.pk: form.cleaned_data["node_id"] for form in _kept(nodes)}
        pipeline = nodes.instance
        return load_document(
            {
                "name": pipeline.name,
                "description": pipeline.description,
                "config": pipeline.config,
                "notes": pipeline.notes,
                "groups": pipeline.groups,
                "nodes": [_node(form.cleaned_data) for form in _kept(nodes)],
                "edges": [] if edges is None else _edges(_kept(edges), ids),
            }
        )


def _node(row: dict) -> dict:
    """A node inline's row as a document's node."""
    fields = {name: row[name] for name in ("operator", "label", "params", "retries", "timeout_s")}
    return {"id": row["node_id"], "position": {"x": row["x"], "y": row["y"]}, **fields}


def _edges(rows_of: list[forms.Form], ids: dict[int, str]) -> list[dict]:
    """Edge inline rows as a document's edges, ends by their (maybe renamed) node ids; the
    edges of a node deleted on the page go with it."""
    rows = [form.cleaned_data for form in rows_of]
    return [
        {
            "source": ids[row["source"].pk],
            "source_port": row["source_port"],
            "target": ids[row["target"].pk],
            "target_port": row["target_port"],
        }
        for row in rows
        if row["source"].pk in ids and row["target"].pk in ids
    ]


def _kept(formset: BaseInlineFormSet) -> list[forms.Form]:
    """The formset's rows that are to be saved (filled in, not marked for deletion)."""
    deleted = set(formset.deleted_forms)
    return [form for form in formset.forms if form.cleaned_data and form not in deleted]


class GraphFormSet(BaseInlineFormSet):
    """A node or edge inline; the last of a page's to be cleaned checks the whole graph."""

    graph: GraphFormSets

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.graph.by_prefix[self.prefix] = self

    def add_fields(self, form, index):
        """Names each field of a row for assistive technology: a tabular inline shows the
        field's label once, in the column's header, not as a `<label>` of each input."""
        super().add_fields(form, index)
        row = "new row" if index is None else f"row {index + 1}"
        for field in form.fields.values():
            # The admin wraps a foreign key's select, and renders the wrapped widget's attrs.
            widget = getattr(field.widget, "widget", field.widget)
            widget.attrs = {**widget.attrs, "aria-label": f"{field.label} ({row})"}

    def clean(self):
        super().clean()
        formsets = self.graph.by_prefix.values()
        if len(formsets) < self.graph.expected or self is not list(formsets)[-1]:
            return
        others = (formset for formset in formsets if formset is not self)
        if any(self.errors) or any(formset.total_error_count() for formset in others):
            return
        try:
            problems = actions.save_problems(self.graph.document())
        except PipelineValidationError as error:
            problems = error.problems
        if problems:
            raise forms.ValidationError([str(problem) for problem in problems])
