"""``spieltisch serve``: run the web table under uvicorn and say where to open it.

The listening socket is bound here, before anything is printed, so a busy
port or a bad address is refused with the reason, and the address printed
is the one the server really listens on (``--port 0`` lets the system pick a
free port). The address is printed once the server accepts connections.
"""

from __future__ import annotations

import os
import socket

import typer
import uvicorn
from sqlalchemy.engine import make_url

from spieltisch.server.limits import Limits, uvicorn_options
from spieltisch.server.store import Store, StoreError

LOCAL_NAMES = ("127.0.0.1", "0.0.0.0", "::", "::1", "")


class ServeError(Exception):
    """The server cannot start; the message says why and what to do."""


def describe_database(database: str) -> str:
    url = make_url(database)
    if url.get_backend_name() == "sqlite" and url.database:
        return f"SQLite file {os.path.abspath(url.database)}"
    return url.render_as_string(hide_password=True)


def bind(host: str, port: int) -> socket.socket:
    """A TCP socket bound to ``host:port``; raises :class:`ServeError` with the reason."""
    if not 0 <= port <= 65535:
        raise ServeError(f"--port {port}: a port is a number from 1 to 65535 (0: any free port)")
    try:
        infos = socket.getaddrinfo(host or None, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except socket.gaierror as exc:
        raise ServeError(f"--host {host!r}: not an address of this machine ({exc.strerror})") from None
    family, kind, proto, _, address = infos[0]
    sock = socket.socket(family, kind, proto)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        if family == socket.AF_INET6:
            sock.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0)
        sock.bind(address)
    except OSError as exc:
        sock.close()
        if exc.errno in (98, 48, 10048):  # EADDRINUSE on Linux, macOS, Windows
            raise ServeError(
                f"port {port} on {host} is in use by another program; stop it or choose another "
                f"port, e.g. --port {port + 1 if port < 65535 else 8080}"
            ) from None
        if exc.errno == 13:  # EACCES
            raise ServeError(
                f"port {port}: not allowed for this user (ports below 1024 need root); try --port 8000"
            ) from None
        raise ServeError(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from None
    sock.set_inheritable(True)
    return sock


def address(host: str, sock: socket.socket) -> str:
    """The URL to open for a server listening on ``sock``."""
    port = sock.getsockname()[1]
    shown = "localhost" if host in LOCAL_NAMES else (f"[{host}]" if ":" in host else host)
    return f"http://{shown}:{port}/"


def run_server(
    host: str,
    port: int,
    database: str,
    bot_delay: float,
    reload: bool = False,
    limits: Limits | None = None,
    review_budget: str = "8",
) -> None:
    limits = limits or Limits()
    try:
        if bot_delay < 0:
            raise ServeError(f"--bot-delay {bot_delay}: must be 0 or more seconds")
        sock = bind(host, port)
    except ServeError as exc:
        typer.echo(f"Error: {exc}", err=True)
        raise typer.Exit(2) from None
    try:
        Store(database).close()  # fail early, with the reason, on a bad URL or unreachable server
    except StoreError as exc:
        sock.close()
        typer.echo(f"Error: {exc}", err=True)
        raise typer.Exit(2) from None
    banner = (
        f"Spieltisch web table: open {address(host, sock)}  (games stored in {describe_database(database)})\n"
        "Press Ctrl+C to stop; unfinished games resume on the next start."
    )
    if reload:
        # The reloader binds in its own process: free the port just before it does.
        port = sock.getsockname()[1]
        sock.close()
        typer.echo(banner)
        os.environ["SPIELTISCH_DATABASE"] = database
        os.environ["SPIELTISCH_BOT_DELAY"] = str(bot_delay)
        os.environ["SPIELTISCH_REVIEW_BUDGET"] = review_budget
        os.environ.update(limits.to_env())
        uvicorn.run(
            "spieltisch.server.app:create_app_from_env",
            factory=True,
            host=host,
            port=port,
            reload=True,
            **uvicorn_options(limits),
        )
        return
    from spieltisch.server.app import create_app

    # The limits the server enforces before the app reads anything (frame size, request head).
    app = create_app(database, bot_delay=bot_delay, limits=limits, review_budget=review_budget)
    config = uvicorn.Config(app, **uvicorn_options(limits))
    server = _AnnouncingServer(config, banner)
    with sock:
        server.run(sockets=[sock])
    if not server.started:
        raise typer.Exit(1)


class _AnnouncingServer(uvicorn.Server):
    """Prints the banner once the server accepts connections (after the app's startup)."""

    def __init__(self, config: uvicorn.Config, banner: str) -> None:
        super().__init__(config)
        self.banner = banner

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        await super().startup(sockets)
        if self.started:
            typer.echo(self.banner)
