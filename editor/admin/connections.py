"""Database connections in the admin, per workspace, with a write-only encrypted password."""

from __future__ import annotations

from django import forms
from django.contrib import admin

from editor.models import Connection
from editor.workspaces.connections import UrlRefused, check_destination, checked_url


class ConnectionForm(forms.ModelForm):
    """The password is write-only: never rendered back, and an empty field keeps it."""

    password = forms.CharField(
        required=False,
        strip=False,
        max_length=500,
        widget=forms.PasswordInput,
        help_text="Stored encrypted, never shown back. Leave empty to keep the current one.",
    )
    clear_password = forms.BooleanField(required=False, help_text="Remove the stored password.")

    class Meta:
        model = Connection
        fields = ("workspace", "name", "url", "password", "read_only", "prefix", "description")

    def clean_url(self):
        try:  # the admin is staff's: it may reach what PIPEWRIGHT_CONNECTION_ALLOW lists
            check_destination(checked_url(self.cleaned_data["url"]), staff=True)
        except UrlRefused as error:
            raise forms.ValidationError(str(error)) from None
        return self.cleaned_data["url"]

    def save(self, commit=True):
        connection = super().save(commit=False)
        connection.saved_by_staff = True
        if self.cleaned_data.get("clear_password"):
            connection.set_password("")
        elif self.cleaned_data.get("password"):
            connection.set_password(self.cleaned_data["password"])
        if commit:
            connection.save()
        return connection


@admin.register(Connection)
class ConnectionAdmin(admin.ModelAdmin):
    form = ConnectionForm
    list_display = ("name", "workspace", "shown_url", "read_only", "prefix", "created_at")
    list_filter = ("workspace", "read_only")
    list_select_related = ("workspace",)
    search_fields = ("name", "description", "workspace__name")

    @admin.display(description="URL")
    def shown_url(self, connection: Connection) -> str:
        return connection.display_url()
