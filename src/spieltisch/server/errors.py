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


def unreachable(exc: BaseException) -> bool:
    """Did a database operation fail because the database cannot be reached (not a refusal)?"""
    if isinstance(exc, OperationalError | InterfaceError):
        return True
    return isinstance(exc, DBAPIError) and exc.connection_invalidated
