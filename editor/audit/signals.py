"""Audit entries for connections and memberships, from model signals: the API, the admin's
forms and inlines, `rotatekeys` and cascades all change them, and each change is recorded
once here whichever did it."""

from __future__ import annotations

from django.db.models.signals import post_delete, post_save, pre_save
from django.dispatch import receiver

from editor.audit import log as audit_log
from editor.models import Connection, Membership


def _connection_details(connection: Connection) -> dict:
    return {
        "url": connection.display_url(),
        "read_only": connection.read_only,
        "prefix": connection.prefix,
    }


@receiver(pre_save, sender=Connection, dispatch_uid="audit-connection-before")
@receiver(pre_save, sender=Membership, dispatch_uid="audit-membership-before")
def remember_stored(sender, instance, raw: bool = False, **kwargs):
    """Keep the stored row's values, to say what a change changed."""
    stored = None if raw or instance.pk is None else sender.objects.filter(pk=instance.pk)
    instance._audit_before = stored.values().first() if stored is not None else None


@receiver(post_save, sender=Connection, dispatch_uid="audit-connection-saved")
def connection_saved(sender, instance: Connection, created: bool, raw: bool = False, **kwargs):
    if raw:
        return
    before = getattr(instance, "_audit_before", None) or {}
    fields = kwargs.get("update_fields")
    if not created and fields is not None and set(fields) == {"encrypted_password"}:
        audit_log.record("connection.key_rotated", instance)
        return
    details = _connection_details(instance)
    if not created:
        details["credentials_changed"] = (
            before.get("encrypted_password") != instance.encrypted_password
        )
    audit_log.record(
        "connection.created" if created else "connection.updated", instance, details=details
    )


@receiver(post_delete, sender=Connection, dispatch_uid="audit-connection-deleted")
def connection_deleted(sender, instance: Connection, **kwargs):
    audit_log.record("connection.deleted", instance, details=_connection_details(instance))


@receiver(post_save, sender=Membership, dispatch_uid="audit-membership-saved")
def membership_saved(sender, instance: Membership, created: bool, raw: bool = False, **kwargs):
    if raw:
        return
    before = (getattr(instance, "_audit_before", None) or {}).get("role")
    if created:
        audit_log.record("member.added", instance, details={"role": instance.role})
    elif before != instance.role:
        details = {"role": instance.role, "previous_role": before}
        audit_log.record("member.role_changed", instance, details=details)


@receiver(post_delete, sender=Membership, dispatch_uid="audit-membership-removed")
def membership_removed(sender, instance: Membership, **kwargs):
    audit_log.record("member.removed", instance, details={"role": instance.role})
