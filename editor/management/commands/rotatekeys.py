"""`manage.py rotatekeys`: re-encrypt every stored password (and webhook signing secret) with
the newest key.

Put the new key first in `PIPEWRIGHT_ENCRYPTION_KEY` (keeping the old ones after it), run
this, then drop the old keys.
"""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError
from django.db import transaction

from editor import encryption
from editor.models import Connection, Notification


class Command(BaseCommand):
    help = "Re-encrypt every stored connection password with the first configured key."

    def handle(self, **options):
        rotated = 0
        try:
            with transaction.atomic():
                for connection in Connection.objects.select_for_update().exclude(
                    encrypted_password=""
                ):
                    connection.encrypted_password = encryption.rotate(connection.encrypted_password)
                    connection.save(update_fields=["encrypted_password"])
                    rotated += 1
                hooks = Notification.objects.select_for_update().exclude(encrypted_secret="")
                for hook in hooks:
                    hook.encrypted_secret = encryption.rotate(hook.encrypted_secret)
                    hook.save(update_fields=["encrypted_secret"])
                    rotated += 1
        except encryption.UnreadableSecret as error:
            raise CommandError(f"{error}; nothing was changed") from None
        self.stdout.write(f"re-encrypted {rotated} password(s) and secret(s) with the newest key")
