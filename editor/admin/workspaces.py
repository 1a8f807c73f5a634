"""Workspaces in the admin: staff see and make every one, with members inline."""

from __future__ import annotations

from django import forms
from django.contrib import admin
from django.db.models import Count

from editor.models import Membership, Workspace
from editor.workspaces.membership import slug_problem, workspace_folder


class WorkspaceForm(forms.ModelForm):
    class Meta:
        model = Workspace
        fields = ("name", "slug")

    def clean_slug(self):
        slug = self.cleaned_data["slug"]
        if self.instance.pk is None and (problem := slug_problem(slug)):
            raise forms.ValidationError(problem)
        return slug


class MembershipInline(admin.TabularInline):
    model = Membership
    extra = 1
    autocomplete_fields = ("user",)


@admin.register(Workspace)
class WorkspaceAdmin(admin.ModelAdmin):
    form = WorkspaceForm
    inlines = (MembershipInline,)
    list_display = ("name", "slug", "personal_of", "member_count", "pipeline_count")
    list_filter = (("personal_of", admin.EmptyFieldListFilter),)
    search_fields = ("name", "slug", "memberships__user__username")
    prepopulated_fields = {"slug": ("name",)}

    def get_queryset(self, request):
        return (
            super()
            .get_queryset(request)
            .select_related("personal_of")
            .annotate(
                members_n=Count("memberships", distinct=True),
                pipelines_n=Count("pipelines", distinct=True),
            )
        )

    def get_readonly_fields(self, request, obj=None):
        """The slug names the folder: fixed once the workspace exists."""
        return ("slug", "personal_of") if obj is not None else ("personal_of",)

    def get_prepopulated_fields(self, request, obj=None):
        return {} if obj is not None else self.prepopulated_fields

    def save_model(self, request, obj, form, change):
        super().save_model(request, obj, form, change)
        workspace_folder(obj)

    @admin.display(description="members", ordering="members_n")
    def member_count(self, workspace):
        return workspace.members_n

    @admin.display(description="pipelines", ordering="pipelines_n")
    def pipeline_count(self, workspace):
        return workspace.pipelines_n
