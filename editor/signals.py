"""Model signals: every new user gets a personal workspace; a member who leaves a workspace
(or whose role falls below editor) has their schedules there paused; open live-view sockets
ask again whether they may watch when their user's memberships or account change, and close
when their session signs out (`editor.live.watcher_access`); a pin's file goes with its pin,
and a pipeline's pins folder with the pipeline, once the deletion commits; a pipeline's runs are
locked before the deletion removes their rows."""

from __future__ import annotations

import shutil

from django.conf import settings
from django.contrib.auth.signals import user_logged_out
from django.db import transaction
from django.db.models.signals import post_delete, post_save, pre_delete
from django.dispatch import receiver

from editor.live.watcher_access import session_digest, tell_sockets_of
from editor.models import Membership, Pin, Pipeline, Run
from editor.pipelines.pins import pipeline_folder, release
from editor.schedules.actions import pause_where_owner_may_not_run
from editor.workspaces.membership import personal_workspace


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


@receiver(post_save, sender=Membership, dispatch_uid="sockets-role-changed")
@receiver(post_delete, sender=Membership, dispatch_uid="sockets-member-left")
def recheck_sockets_of_member(sender, instance, raw: bool = False, **kwargs):
    """A member left a workspace (or it was deleted): their sockets there close."""
    if not raw:
        tell_sockets_of(instance.user_id, {"type": "access.changed"})


@receiver(post_save, sender=settings.AUTH_USER_MODEL, dispatch_uid="sockets-user-changed")
def recheck_sockets_of_user(sender, instance, created: bool, raw: bool = False, **kwargs):
    """Deactivated, or a new password (which ends the user's other sessions)."""
    if not created and not raw and set(kwargs.get("update_fields") or ()) != {"last_login"}:
        tell_sockets_of(instance.pk, {"type": "access.changed"})


@receiver(user_logged_out, dispatch_uid="sockets-signed-out")
def close_sockets_of_session(sender, request, user, **kwargs):
    """Signing out closes the sockets that session opened."""
    if user is not None:
        digest = session_digest(request.session.session_key)
        tell_sockets_of(user.pk, {"type": "session.ended", "session": digest})


@receiver(pre_delete, sender=Pipeline, dispatch_uid="lock-runs")
def lock_runs_of_deleted_pipeline(sender, instance, **kwargs):
    """However the pipeline is deleted (API, admin, with its workspace or owner), a run still
    recording waits for the deletion and then finds its run gone (`editor.runs.recorder`).
    Without the lock, a log line the recorder commits between the deletion of the run's lines
    and of the run itself broke the deletion's foreign key check on PostgreSQL."""
    list(Run.objects.select_for_update().filter(pipeline=instance).values_list("pk"))


@receiver(post_delete, sender=Pin, dispatch_uid="pin-file")
def remove_pin_file(sender, instance, **kwargs):
    """Unpinned or deleted with its pipeline: its rows go too, once no queued run reads them."""
    transaction.on_commit(lambda: release(instance.pipeline_id, instance.file))


@receiver(post_delete, sender=Pipeline, dispatch_uid="pins-folder")
def remove_pins_folder(sender, instance, **kwargs):
    folder = pipeline_folder(instance.pk)
    transaction.on_commit(lambda: shutil.rmtree(folder, ignore_errors=True))
