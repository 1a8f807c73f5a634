"""Secrets at rest (connection passwords), encrypted with Fernet keys from the settings.

`PIPEWRIGHT_ENCRYPTION_KEYS` lists the keys, newest first: new secrets are encrypted with
the first, and any of them decrypts, so a key can be rotated (`manage.py rotatekeys`
re-encrypts everything with the newest) without a moment where a secret cannot be read.
"""

from __future__ import annotations

from functools import cache

from cryptography.fernet import Fernet, InvalidToken, MultiFernet
from django.conf import settings


class UnreadableSecret(Exception):
    """A stored secret that none of the configured keys decrypts."""


@cache
def _keys(keys: tuple[str, ...]) -> MultiFernet:
    return MultiFernet([Fernet(key) for key in keys])


def _fernet() -> MultiFernet:
    return _keys(tuple(settings.PIPEWRIGHT_ENCRYPTION_KEYS))


def encrypt(text: str) -> str:
    """`text` encrypted with the newest key."""
    return _fernet().encrypt(text.encode()).decode()


def decrypt(token: str) -> str:
    """The text of a token made by `encrypt` with any configured key."""
    try:
        return _fernet().decrypt(token.encode()).decode()
    except InvalidToken:
        raise UnreadableSecret(
            "a stored password cannot be decrypted with the configured keys; "
            "was PIPEWRIGHT_ENCRYPTION_KEY changed without keeping the old key?"
        ) from None


def rotate(token: str) -> str:
    """The same secret, encrypted with the newest key."""
    try:
        return _fernet().rotate(token.encode()).decode()
    except InvalidToken:
        raise UnreadableSecret("a stored password cannot be decrypted to re-encrypt it") from None
