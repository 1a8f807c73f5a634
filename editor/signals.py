"""Model signals: every new user gets a personal workspace; a member who leaves a workspace
(or whose role falls below editor) has their schedules there paused."""

from __future__ import annotations

from django.conf import settings
from django.db.models.signals import post_delete, post_save
from django.dispatch import receiver

from editor.models import Membership
from editor.schedules import pause_where_owner_may_not_run
from editor.workspaces import personal_workspace


@receiver(post_save, sender=settings.AUTH_USER_MODEL, dispatch_uid="personal-workspace")
def give_new_users_a_workspace(sender, instance, created: bool, raw: bool = False, **kwargs):
    """Whoever creates the user (admin, createsuperuser, a script), they get one."""
    if created and not raw:
        personal_workspace(instance)


@receiver(post_save, sender=Membership, dispatch_uid="schedules-role-changed")
@receiver(post_delete, sender=Membership, dispatch_uid="schedules-member-left")
def pause_schedules_of_departed_owner(sender, instance, raw: bool = False, **kwargs):
    """However the membership changed (API, admin, a script), the owner's schedules there
    stop firing if they may no longer run its pipelines."""
    if not raw:
        pause_where_owner_may_not_run(instance.workspace, instance.user)
