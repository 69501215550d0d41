"""No secret in a log line, at any level and from any logger.

The protocol never puts a seat secret or bot token in a URL (docs/protocol.md,
"Secrets"), but a broken or old client may, and a program may send its secret in
a header (``Spieltisch-Secret``). uvicorn logs request paths with their query
strings (the access log, the WebSocket "accepted" line, and at ``trace`` level
every ASGI scope through ``uvicorn.asgi``); at ``debug`` level the WebSocket
library logs each handshake header through ``uvicorn.error``. :func:`install`
puts :func:`redact` into the process's log-record factory, so every record of
every logger (uvicorn's own, the WebSocket library's, SQLAlchemy's, ours) is
redacted when it is made, before any filter or handler sees it: the value of a
``secret``/``token`` query parameter, of a ``"secret"``/``"token"`` JSON field
(a hello) and of a secret, token, authorization or cookie header, and a room's invite
key in a path; a WebSocket frame shows only its kind and size (its text may be a
seat's hand or a sealed lay).
"""

from __future__ import annotations

import logging
import re
from typing import Any

from websockets.frames import Frame

SECRET_PARAM = re.compile(r"((?:secret|token)=)[^&\s\"'#]*", re.IGNORECASE)
"""A secret in a query string (``?seat=1&secret=...``, ``?token=...``)."""
SECRET_FIELD = re.compile(r"(\"(?:secret|token)\"\s*:\s*\")[^\"]*", re.IGNORECASE)
"""A secret in a JSON message, as the WebSocket library's debug log shows the hello."""
SECRET_HEADER = re.compile(
    r"((?<![\w\"'-])(?:[\w-]*secret|[\w-]*token|authorization|proxy-authorization|cookie|set-cookie)"
    r"\s*:\s*)[^\r\n\"']+",
    re.IGNORECASE,
)
"""A secret in a header line (``< spieltisch-secret: ...``, as the handshake is logged)."""
INVITE_KEY = re.compile(r"((?:/ws|/r|/api/rooms)/[A-Z0-9]{6}-)[A-Z0-9]+", re.IGNORECASE)
"""A room's invite key in a path (``/ws/K7QX2M-...``): who reads the log cannot watch the game."""
REDACTED = "[redacted]"


def redact(text: str) -> str:
    """``text`` with the value of every secret it shows replaced by ``[redacted]``."""
    for pattern in (SECRET_PARAM, SECRET_FIELD, SECRET_HEADER, INVITE_KEY):
        text = pattern.sub(lambda m: m.group(1) + REDACTED, text)
    return text


def redact_record(record: logging.LogRecord) -> logging.LogRecord:
    """``record`` with its message and each argument redacted: the arguments one by one
    (uvicorn's access formatter reads them as they are), then, where a secret shows only
    once they are put together (``"< %s: %s"`` with a header's name and value), the
    whole message."""
    if isinstance(record.msg, str):
        record.msg = redact(record.msg)
    if isinstance(record.args, tuple):
        record.args = tuple(_clean(a) for a in record.args)
    elif isinstance(record.args, dict):
        record.args = {k: _clean(v) for k, v in record.args.items()}
    if record.args:
        try:
            message = record.getMessage()
        except (TypeError, ValueError):  # a broken format string: logging reports it later
            return record
        clean = redact(message)
        if clean != message:
            record.msg, record.args = clean, None
    return record


def _clean(arg: object) -> object:
    """``arg`` or, when its text shows a secret (a scope, a path), that text redacted. A
    WebSocket frame (logged at ``debug``) shows only its kind and size: its text may hold a
    secret, a seat's hand or a sealed lay."""
    if arg is None or isinstance(arg, int | float):
        return arg
    if isinstance(arg, Frame):
        return f"{arg.opcode.name} [{len(arg.data)} bytes]"
    text = str(arg)
    clean = redact(text)
    return arg if clean == text else clean


class _RedactingFactory:
    """A log-record factory: the previous one's record, redacted."""

    def __init__(self, make: Any) -> None:
        self.make = make

    def __call__(self, *args: Any, **kwargs: Any) -> logging.LogRecord:
        return redact_record(self.make(*args, **kwargs))


def install() -> None:
    """Redact every log record this process makes from now on (once, however often called)."""
    factory = logging.getLogRecordFactory()
    if not isinstance(factory, _RedactingFactory):
        logging.setLogRecordFactory(_RedactingFactory(factory))
