"""Model signals: every new user gets a personal workspace."""

from __future__ import annotations

from django.conf import settings
from django.db.models.signals import post_save
from django.dispatch import receiver

from editor.workspaces import personal_workspace


@receiver(post_save, sender=settings.AUTH_USER_MODEL, dispatch_uid="personal-workspace")
def give_new_users_a_workspace(sender, instance, created: bool, raw: bool = False, **kwargs):
    """Whoever creates the user (admin, createsuperuser, a script), they get one."""
    if created and not raw:
        personal_workspace(instance)
