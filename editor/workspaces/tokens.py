"""API tokens for scripts and CI: shown once at creation, stored only as a hash."""

from __future__ import annotations

import hashlib
import secrets

from django.utils import timezone

from editor.models import ApiToken


def _digest(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()


def create_token(user, name: str = "") -> str:
    """A new token for `user`; the returned key is not stored and cannot be shown again."""
    key = "pw_" + secrets.token_urlsafe(32)
    ApiToken.objects.create(user=user, name=name, key_hash=_digest(key), prefix=key[:8])
    return key


def user_for_token(key: str):
    """The active user a token belongs to, or None."""
    token = ApiToken.objects.select_related("user").filter(key_hash=_digest(key)).first()
    if token is None or not token.user.is_active:
        return None
    ApiToken.objects.filter(pk=token.pk).update(last_used_at=timezone.now())
    return token.user
