"""Notifications: who is told, by webhook or e-mail, when a pipeline's run ends."""

from __future__ import annotations

from django.db import models

from editor import encryption
from editor.models.pipelines import Pipeline


class Notification(models.Model):
    """Who is told when a pipeline's run ends in a way they asked about
    (`editor.notifications.dispatch`).

    A webhook's signing secret is encrypted at rest like connection passwords and shown once,
    when the notification is made. E-mail goes to `recipients` that are members of the
    workspace, or that a workspace admin added (`admin_added`).
    """

    class Kind(models.TextChoices):
        WEBHOOK = "webhook"
        EMAIL = "email"

    pipeline = models.ForeignKey(Pipeline, on_delete=models.CASCADE, related_name="notifications")
    kind = models.CharField(max_length=10, choices=Kind.choices)
    url = models.URLField("webhook URL", max_length=500, blank=True)
    recipients = models.JSONField(default=list, blank=True)
    admin_added = models.JSONField(
        default=list, blank=True, help_text="Recipients a workspace admin added."
    )
    encrypted_secret = models.TextField(blank=True, editable=False)
    on_failure = models.BooleanField(default=True, help_text="Failed or interrupted runs.")
    on_success = models.BooleanField(default=False)
    long_after_s = models.PositiveIntegerField(
        null=True, blank=True, help_text="Runs lasting longer than this many seconds."
    )
    enabled = models.BooleanField(default=True)
    link_base = models.CharField(
        max_length=300,
        blank=True,
        editable=False,
        help_text="The address the notification was last saved at (scheme and host): where its "
        "messages link runs while PIPEWRIGHT_BASE_URL is unset.",
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["pipeline", "id"]

    def __str__(self) -> str:
        return f"{self.kind} notification of {self.pipeline}"

    def secret(self) -> str:
        """The webhook's signing secret, decrypted for signing only."""
        return encryption.decrypt(self.encrypted_secret) if self.encrypted_secret else ""
