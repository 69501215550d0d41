"""No secret in a log line: a filter for uvicorn's loggers.

The protocol never puts a seat secret or bot token in a URL (docs/protocol.md,
"Secrets"), but a broken or old client may. uvicorn logs every request's path
with its query string (the access log, and the WebSocket "accepted" line);
:class:`RedactSecrets` replaces the value of any ``secret``/``token`` query
parameter in those lines before any handler sees them, and (at debug level,
where the WebSocket library logs every frame) the ``secret`` field of a hello.
"""

from __future__ import annotations

import logging
import re

SECRET_PARAM = re.compile(r"((?:secret|token)=)[^&\s\"'#]*", re.IGNORECASE)
SECRET_FIELD = re.compile(r"(\"(?:secret|token)\"\s*:\s*\")[^\"]*", re.IGNORECASE)
"""A secret in a JSON message, as uvicorn's debug log of WebSocket frames shows the hello."""
REDACTED = "[redacted]"
LOGGERS = ("uvicorn.access", "uvicorn.error", "uvicorn")
"""The loggers whose records carry request paths (a filter acts on its own logger's records)."""


def redact(text: str) -> str:
    text = SECRET_PARAM.sub(lambda m: m.group(1) + REDACTED, text)
    return SECRET_FIELD.sub(lambda m: m.group(1) + REDACTED, text)


class RedactSecrets(logging.Filter):
    """Rewrites a record whose message or arguments show a secret."""

    def filter(self, record: logging.LogRecord) -> bool:
        if isinstance(record.msg, str):
            record.msg = redact(record.msg)
        # uvicorn's access formatter needs its arguments as they are: redact each one.
        if isinstance(record.args, tuple):
            record.args = tuple(_clean(a) for a in record.args)
        elif isinstance(record.args, dict):
            record.args = {k: _clean(v) for k, v in record.args.items()}
        return True


def _clean(arg: object) -> object:
    """``arg`` or, when its text shows a secret (a WebSocket frame, a path), that text redacted."""
    if arg is None or isinstance(arg, int | float):
        return arg
    text = str(arg)
    clean = redact(text)
    return arg if clean == text else clean


def install() -> None:
    """Add the filter to uvicorn's loggers (once)."""
    for name in LOGGERS:
        logger = logging.getLogger(name)
        if not any(isinstance(f, RedactSecrets) for f in logger.filters):
            logger.addFilter(RedactSecrets())
