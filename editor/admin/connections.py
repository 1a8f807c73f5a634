"""Database connections in the admin, with a write-only password."""

from __future__ import annotations

from django import forms
from django.contrib import admin
from sqlalchemy.engine import make_url
from sqlalchemy.exc import ArgumentError

from editor.models import Connection


class ConnectionForm(forms.ModelForm):
    """The password is write-only: never rendered back, and an empty field keeps it."""

    password = forms.CharField(
        required=False,
        strip=False,
        max_length=Connection._meta.get_field("password").max_length,
        widget=forms.PasswordInput,
        help_text="Never shown back. Leave empty to keep the current password.",
    )

    class Meta:
        model = Connection
        fields = ("name", "url", "password", "description")

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.initial.pop("password", None)

    def clean_url(self):
        try:
            url = make_url(self.cleaned_data["url"])
        except ArgumentError as error:
            raise forms.ValidationError(f"Not a SQLAlchemy URL: {error}") from error
        if url.password is not None:
            raise forms.ValidationError("Put the password in the password field, not the URL.")
        return self.cleaned_data["url"]

    def clean_password(self):
        return self.cleaned_data["password"] or self.instance.password


@admin.register(Connection)
class ConnectionAdmin(admin.ModelAdmin):
    form = ConnectionForm
    list_display = ("name", "url", "description", "created_at")
    search_fields = ("name", "description")
