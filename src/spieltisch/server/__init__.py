"""The web table: an authoritative game server (FastAPI) over the engines.

* :mod:`spieltisch.server.store` - rooms, seats and action logs in SQL (SQLAlchemy 2)
* :mod:`spieltisch.server.room` - one serial owner per game: checks, applies, broadcasts
* :mod:`spieltisch.server.directory` - the rooms of a server; their owner runs their commands
* :mod:`spieltisch.server.app` - the wiring: HTTP API, WebSocket and the static client

The layout is described in ``docs/server.md``; the protocol in ``docs/protocol.md``.
"""
