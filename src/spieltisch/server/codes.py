"""Room codes, seat secrets and player names."""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets

from spieltisch.server.errors import RoomError

ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"
"""Room code letters: no I, O, 0 or 1 to misread."""
CODE_LENGTH = 6
MAX_NAME = 32


KEY_LENGTH = 26
"""Invite key letters (of :data:`ALPHABET`, 5 bits each: 130 bits)."""


def new_code() -> str:
    return "".join(secrets.choice(ALPHABET) for _ in range(CODE_LENGTH))


def new_key() -> str:
    """A room's invite key: its link is ``/r/CODE-KEY`` (:func:`split_name`)."""
    return "".join(secrets.choice(ALPHABET) for _ in range(KEY_LENGTH))


def normalize_code(code: str) -> str:
    return code.strip().upper()


def split_name(name: str) -> tuple[str, str | None]:
    """A room's name in a URL: its code, and the invite key after a ``-`` if any
    (``K7QX2M-...``: docs/protocol.md, "Room names")."""
    code, _, key = normalize_code(name).partition("-")
    return code, key or None


def new_secret() -> str:
    return secrets.token_urlsafe(18)


def key_matches(key: str | None, invite: str) -> bool:
    """Constant-time comparison of a presented invite key with a room's."""
    return key is not None and hmac.compare_digest(key.encode(), invite.encode())


def hash_secret(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


def secret_matches(secret: str | None, stored_hash: str | None) -> bool:
    """Constant-time comparison of a presented secret with a stored hash."""
    if secret is None or stored_hash is None:
        return False
    return hmac.compare_digest(hash_secret(secret), stored_hash)


def rematch_secret(old_secret: str, new_room: str, seat: int) -> str:
    """The new room's secret for a seat, derived from the old one (so a claim is idempotent)."""
    digest = hmac.new(old_secret.encode(), f"rematch/{new_room}/{seat}".encode(), hashlib.sha256).digest()
    return base64.urlsafe_b64encode(digest[:18]).decode().rstrip("=")


def clean_name(name: str | None, seat: int) -> str:
    if name is None:
        return f"Player {seat + 1}"
    text = " ".join(name.split())
    if not text:
        return f"Player {seat + 1}"
    if len(text) > MAX_NAME:
        raise RoomError(422, f"name: at most {MAX_NAME} characters, got {len(text)}")
    if any(not ch.isprintable() for ch in text):
        raise RoomError(422, "name: control characters are not allowed")
    return text


def plausible(code: str) -> bool:
    """Could ``code`` be a room code at all (no lookup for anything else)?"""
    return len(code) == CODE_LENGTH and all(ch in ALPHABET for ch in code)
