"""API tokens in the admin: a new key is shown once; the stored hash never is."""

from __future__ import annotations

from django.contrib import admin, messages

from editor.models import ApiToken
from editor.workspaces.tokens import create_token


@admin.register(ApiToken)
class ApiTokenAdmin(admin.ModelAdmin):
    list_display = ("prefix", "user", "name", "created_at", "last_used_at")
    list_filter = ("user",)
    list_select_related = ("user",)
    search_fields = ("prefix", "name", "user__username")
    readonly_fields = ("prefix", "created_at", "last_used_at")

    def get_fields(self, request, obj=None):
        return ("user", "name") if obj is None else ("user", "name", *self.readonly_fields)

    def get_readonly_fields(self, request, obj=None):
        return self.readonly_fields if obj is None else ("user", *self.readonly_fields)

    def save_model(self, request, obj, form, change):
        """A new token is made by `create_token`, and its key is shown this once."""
        if change:
            return super().save_model(request, obj, form, change)
        key = create_token(obj.user, obj.name)
        obj.pk = ApiToken.objects.filter(user=obj.user, prefix=key[:8]).latest("pk").pk
        obj.refresh_from_db()
        self.message_user(
            request,
            f"The new token is {key} — copy it now: it is not shown again.",
            messages.SUCCESS,
        )
