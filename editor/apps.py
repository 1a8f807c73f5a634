"""The editor app: it adapts the runtime to the web (models, API, live view, admin)."""

from django.apps import AppConfig


class EditorConfig(AppConfig):
    name = "editor"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self):
        from editor import signals  # noqa: F401  (receivers)
        from editor.audit import signals as audit_signals  # noqa: F401  (receivers)
        from editor.database import file as database_file  # noqa: F401  (receivers)
