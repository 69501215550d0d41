"""The server's log lines: no secret in any (:mod:`spieltisch.server.redact`), and no
flood of tracebacks a client can cause.

A text frame that is not UTF-8 is refused by uvicorn, which closes the socket with 1007
(as it should) but logs the refusal at ERROR with a traceback - one bad client could fill
the log. :class:`BadFrames` turns that record into one INFO line without a traceback; a
socket is closed at its first bad frame, so that is one line per connection.
"""

from __future__ import annotations

import logging

from spieltisch.server import redact

BAD_UTF8 = "Invalid UTF-8 sequence received from client."
"""What uvicorn's WebSocket protocol logs (``uvicorn.error``) before it closes with 1007."""


class BadFrames(logging.Filter):
    """A client's bad frame is the client's fault, not the server's: INFO, no traceback."""

    def filter(self, record: logging.LogRecord) -> bool:
        if record.msg == BAD_UTF8:
            record.levelno, record.levelname = logging.INFO, "INFO"
            record.msg = "a text frame that is not UTF-8: the socket is closed (1007)"
            record.exc_info, record.exc_text, record.stack_info = None, None, None
            return logging.getLogger(record.name).isEnabledFor(logging.INFO)  # at its new level
        return True


def install() -> None:
    """Redact every record, and quiet the bad frames of uvicorn's WebSocket protocol (once)."""
    redact.install()
    logger = logging.getLogger("uvicorn.error")
    if not any(isinstance(f, BadFrames) for f in logger.filters):
        logger.addFilter(BadFrames())
