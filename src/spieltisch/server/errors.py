"""The refusals of the room command path: :class:`CommandError` (a protocol error code,
sent on the socket) and :class:`RoomError` (an HTTP status)."""

from __future__ import annotations

from sqlalchemy.exc import DBAPIError, InterfaceError, OperationalError

from spieltisch.engine import IllegalActionError


class CommandError(Exception):
    """A command was refused; nothing changed. ``code`` is a protocol error code;
    ``because`` is the engine's refusal, when the rules refused the action."""

    def __init__(self, code: str, message: str, because: IllegalActionError | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.because = because


class RoomError(Exception):
    """An HTTP-level refusal: ``status`` is the HTTP status code."""

    def __init__(self, status: int, detail: str) -> None:
        super().__init__(detail)
        self.status = status
        self.detail = detail


FAULTS = {
    "disk_full": "the server's disk is full",
    "read_only": "the server's database is read-only",
    "unreachable": "the server cannot reach its database",
}
"""What players and the log are told of each storage fault (:func:`storage_fault`)."""

_DISK_FULL = ("database or disk is full", "no space left on device", "could not extend file", "disk full")
_READ_ONLY = ("readonly database", "read-only file system", "read only", "read-only transaction")


def storage_fault(exc: BaseException) -> str | None:
    """The server's fault behind a failed database operation, as a key of :data:`FAULTS`:
    its disk full (SQLite's SQLITE_FULL, PostgreSQL's 53100, ENOSPC), its database or file
    system read-only (SQLite's SQLITE_READONLY, PostgreSQL's 25006, EROFS), or the database
    unreachable; ``None`` when the database refused the statement itself."""
    if not isinstance(exc, DBAPIError):
        return None
    code = getattr(exc.orig, "sqlstate", None) or getattr(exc.orig, "pgcode", None)
    text = str(exc.orig).lower()
    if code == "53100" or any(t in text for t in _DISK_FULL):
        return "disk_full"
    if code == "25006" or any(t in text for t in _READ_ONLY):
        return "read_only"
    if isinstance(exc, OperationalError | InterfaceError) or exc.connection_invalidated:
        return "unreachable"
    return None
