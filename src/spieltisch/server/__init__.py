"""The web table: an authoritative game server (FastAPI) over the engines.

* :mod:`spieltisch.server.store` - rooms, seats and action logs in SQL (SQLAlchemy 2)
* :mod:`spieltisch.server.rooms` - one serial owner per game: checks, applies, broadcasts
* :mod:`spieltisch.server.app` - HTTP API, WebSocket and the static client

The protocol is written down in ``docs/protocol.md``.
"""
