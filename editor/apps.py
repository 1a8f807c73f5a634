"""The editor app: it adapts the runtime to the web (models, API, live view, admin)."""

from django.apps import AppConfig


class EditorConfig(AppConfig):
    name = "editor"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self):
        from editor import audit_signals, database_file, signals  # noqa: F401  (receivers)
