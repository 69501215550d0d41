"""``spieltisch serve``: run the web table under uvicorn and say where to open it.

The listening socket is bound here, before anything is printed, so a busy
port or a bad address is refused with the reason, and the address printed
is the one the server really listens on (``--port 0`` lets the system pick a
free port). The address is printed once the server accepts connections.

``--redis`` makes the server one worker of a cluster (:mod:`spieltisch.server.cluster`,
docs/deploy.md); ``--workers N`` starts N of them on this machine, sharing the one
listening socket (uvicorn's supervisor restarts a worker that dies), or with
``--port-per-worker`` each on a port of its own (``--port``, ``--port`` + 1, ...), so
that a reverse proxy can send each room's people to one worker (docs/deploy.md,
"Room routing and handoffs").
"""

from __future__ import annotations

import inspect
import logging
import os
import socket
from collections.abc import Sequence
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import typer
import uvicorn
from sqlalchemy.engine import make_url

from spieltisch.server.limits import GuardedH11Protocol, Limits, uvicorn_options
from spieltisch.server.notify import Mailer, MailError
from spieltisch.server.operator import check_token
from spieltisch.server.store import Store, StoreError

LOCAL_NAMES = ("127.0.0.1", "0.0.0.0", "::", "::1", "")
uvicorn_log = logging.getLogger("uvicorn.error")


class ServeError(Exception):
    """The server cannot start; the message says why and what to do."""


def describe_database(database: str) -> str:
    url = make_url(database)
    if url.get_backend_name() == "sqlite" and url.database:
        return f"SQLite file {os.path.abspath(url.database)}"
    return url.render_as_string(hide_password=True)


def describe_redis(url: str) -> str:
    """A Redis URL without its password (for the banner and the errors)."""
    parts = urlsplit(url)
    if parts.password:
        netloc = f"{parts.username or ''}:***@{parts.hostname}" + (f":{parts.port}" if parts.port else "")
        parts = parts._replace(netloc=netloc)
    return urlunsplit(parts)


def check_cluster(
    database: str, redis: str | None, workers: int, reload: bool, port_per_worker: bool = False
) -> None:
    """Refuse, with the reason, a cluster that cannot work: raises :class:`ServeError`."""
    if workers < 1:
        raise ServeError(f"--workers {workers}: at least 1")
    if port_per_worker and redis is None:
        raise ServeError(
            "--port-per-worker: the workers of a cluster each get a port; add --redis and --workers"
        )
    if redis is None:
        if workers > 1:
            raise ServeError(
                "--workers: several workers share their rooms through Redis and a PostgreSQL "
                "database: add --redis redis://HOST:6379/0 and --database postgresql+psycopg://..."
            )
        return
    if make_url(database).get_backend_name() == "sqlite":
        raise ServeError(
            "--redis: the workers must share one PostgreSQL database "
            "(--database postgresql+psycopg://USER@HOST/DB), not a SQLite file"
        )
    if reload:
        raise ServeError("--reload runs one development server: leave out --redis and --workers")
    if not redis.startswith(("redis://", "rediss://", "unix://")):
        raise ServeError(f"--redis {describe_redis(redis)}: a redis://HOST:PORT/DB (or rediss://) URL")
    import redis as redis_client

    try:
        with redis_client.Redis.from_url(redis, socket_connect_timeout=3, socket_timeout=3) as client:
            client.ping()
    except redis_client.RedisError as exc:
        raise ServeError(f"cannot reach Redis at {describe_redis(redis)}: {exc}") from None


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
    redis: str | None = None,
    workers: int = 1,
    port_per_worker: bool = False,
    proxies: Sequence[str] = (),
) -> None:
    """Serve until stopped. ``proxies``: the trusted reverse proxies, already checked
    (:func:`~spieltisch.server.limit_values.trusted_proxies`)."""
    limits = limits or Limits()
    prefix = os.environ.get("SPIELTISCH_TABLE_PREFIX", "")
    own: list[socket.socket] = []
    try:
        if bot_delay < 0:
            raise ServeError(f"--bot-delay {bot_delay}: must be 0 or more seconds")
        check_cluster(database, redis, workers, reload, port_per_worker)
        Mailer.from_env()  # a wrong e-mail setting stops the start, with its reason
        check_token(os.environ.get("SPIELTISCH_OPERATOR_TOKEN"))
        if port_per_worker and port and port + workers - 1 > 65535:
            raise ServeError(f"--port {port} --workers {workers}: the last port would be over 65535")
        for i in range(workers if port_per_worker else 1):
            own.append(bind(host, port + i if port else 0))
        sock = own[0]
    except (ServeError, MailError, ValueError) as exc:
        for s in own:
            s.close()
        typer.echo(f"Error: {exc}", err=True)
        raise typer.Exit(2) from None
    try:
        # Fail early, with the reason, on a bad URL or unreachable server.
        Store(database, prefix=prefix).close()
    except StoreError as exc:
        for s in own:
            s.close()
        typer.echo(f"Error: {exc}", err=True)
        raise typer.Exit(2) from None
    banner = (
        f"Spieltisch web table: open {address(host, sock)}  (games stored in {describe_database(database)})\n"
        "Press Ctrl+C to stop; unfinished games resume on the next start."
    )
    if redis is not None:
        banner = (
            f"Spieltisch web table: open {address(host, sock)}  ({workers} worker(s); games stored in "
            f"{describe_database(database)}, rooms shared through Redis at {describe_redis(redis)})\n"
            "Press Ctrl+C to stop; another worker takes over the rooms of one that stops."
        )
    if port_per_worker:
        banner = (
            f"Spieltisch web table: {workers} worker(s), one port each: "
            + ", ".join(address(host, s) for s in own)
            + f"  (games stored in {describe_database(database)}, rooms shared through Redis at "
            f"{describe_redis(redis or '')}; a proxy in front sends each room to one worker, "
            "docs/deploy.md)\nPress Ctrl+C to stop; another worker takes over the rooms of one that stops."
        )
    if workers > 1 or port_per_worker:
        _export_settings(database, bot_delay, limits, review_budget, redis)
        _run_workers(own if port_per_worker else [sock], banner, limits, workers, proxies)
        return
    if reload:
        # The reloader binds in its own process: free the port just before it does.
        port = sock.getsockname()[1]
        sock.close()
        typer.echo(banner)
        _export_settings(database, bot_delay, limits, review_budget, redis)
        uvicorn.run(
            "spieltisch.server.app:create_app_from_env",
            factory=True,
            host=host,
            port=port,
            reload=True,
            **uvicorn_options(limits, proxies),
        )
        return
    from spieltisch.server.app import create_app

    # The limits the server enforces before the app reads anything (frame size, request head).
    app = create_app(
        database, bot_delay=bot_delay, limits=limits, table_prefix=prefix, redis=redis,
        review_budget=review_budget, tune_gc=True, mailer=Mailer.from_env(),
        operator_token=os.environ.get("SPIELTISCH_OPERATOR_TOKEN"),
    )  # fmt: skip
    config = uvicorn.Config(app, **uvicorn_options(limits, proxies))
    server = _AnnouncingServer(config, banner)
    with sock:
        server.run(sockets=[sock])
    if not server.started:
        raise typer.Exit(1)


def _env_limits() -> Limits:
    try:
        return Limits.from_env()
    except ValueError:  # refused with the reason by ``spieltisch serve`` before any worker starts
        return Limits()


class EnvGuardedH11Protocol(GuardedH11Protocol):
    """:class:`GuardedH11Protocol` with the limits of the environment (``SPIELTISCH_LIMIT_*``),
    for the workers of ``spieltisch serve --workers``."""

    request_timeout = _env_limits().request_timeout
    max_head = _env_limits().max_request_head


def _export_settings(
    database: str, bot_delay: float, limits: Limits, review_budget: str, redis: str | None
) -> None:
    """The settings of :func:`~spieltisch.server.app.create_app_from_env`, for the
    processes that uvicorn's reloader or supervisor starts."""
    os.environ["SPIELTISCH_DATABASE"] = database
    os.environ["SPIELTISCH_BOT_DELAY"] = str(bot_delay)
    os.environ["SPIELTISCH_REVIEW_BUDGET"] = review_budget
    os.environ["SPIELTISCH_REDIS"] = redis or ""
    os.environ.update(limits.to_env())


def _run_workers(
    socks: list[socket.socket], banner: str, limits: Limits, workers: int, proxies: Sequence[str]
) -> None:
    """``workers`` processes of :func:`~spieltisch.server.app.create_app_from_env` accepting on
    one socket (``socks`` has one), or each on its own (one socket per worker), under
    uvicorn's supervisor (it restarts one that dies, on the same socket)."""
    from uvicorn.supervisors import Multiprocess

    if "SPIELTISCH_BOT_WORKERS" not in os.environ:  # the machine's CPUs, shared by the workers
        os.environ["SPIELTISCH_BOT_WORKERS"] = str(max(1, len(os.sched_getaffinity(0)) // workers))
    # The workers are spawned from pickled settings: the guarded protocol goes by name
    # and reads its limits from the environment set above.
    options = {**uvicorn_options(limits, proxies), "http": f"{__name__}:EnvGuardedH11Protocol"}
    config = uvicorn.Config(
        "spieltisch.server.app:create_app_from_env", factory=True, workers=workers, **options
    )
    typer.echo(banner)
    extra: dict[str, Any] = {}
    if "target" in inspect.signature(Multiprocess).parameters:  # older uvicorn versions want it
        extra["target"] = uvicorn.Server(config).run
    try:
        if len(socks) == 1:
            Multiprocess(config, sockets=socks, **extra).run()
        else:
            _per_port_supervisor(config, socks, extra).run()
    finally:
        for s in socks:
            s.close()


def _per_port_supervisor(config: uvicorn.Config, socks: list[socket.socket], extra: dict[str, Any]) -> Any:
    """uvicorn's supervisor, with worker ``i`` on ``socks[i]`` only (and a worker that dies
    started again on its own socket): one port per worker."""
    from uvicorn.supervisors import Multiprocess
    from uvicorn.supervisors.multiprocess import Process

    startup_failure = getattr(uvicorn.config, "STARTUP_FAILURE", None)
    wants_target = "target" in inspect.signature(Process).parameters

    class PerPort(Multiprocess):
        def _process(self, i: int) -> Process:
            if wants_target:  # older uvicorn versions
                return Process(self.config, extra["target"], [socks[i]])  # type: ignore[call-arg]
            return Process(self.config, [socks[i]])

        def init_processes(self) -> None:
            for i in range(len(socks)):
                process = self._process(i)
                process.start()
                self.processes.append(process)

        def keep_subprocess_alive(self) -> None:
            if self.should_exit.is_set():
                return
            for i, process in enumerate(self.processes):
                if process.is_alive():
                    continue
                process.kill()
                process.join()
                if startup_failure is not None and process.exitcode == startup_failure:
                    uvicorn_log.error("worker %d failed to start, stopping", i)
                    self.should_exit.set()
                    return
                if self.should_exit.is_set():
                    return
                uvicorn_log.info("worker %d [%s] died; starting it again", i, process.pid)
                self.processes[i] = self._process(i)
                self.processes[i].start()

        def restart_all(self) -> None:  # SIGHUP: each worker anew, on its own port
            for i, old in enumerate(self.processes):
                if self.should_exit.is_set():
                    return
                old.terminate()
                old.join()
                self.processes[i] = self._process(i)
                self.processes[i].start()

        def handle_ttin(self) -> None:
            uvicorn_log.warning("SIGTTIN: the workers have a port each; their number stays")

        def handle_ttou(self) -> None:
            uvicorn_log.warning("SIGTTOU: the workers have a port each; their number stays")

    return PerPort(config, sockets=socks, **extra)


class _AnnouncingServer(uvicorn.Server):
    """Prints the banner once the server accepts connections (after the app's startup)."""

    def __init__(self, config: uvicorn.Config, banner: str) -> None:
        super().__init__(config)
        self.banner = banner

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        await super().startup(sockets)
        if self.started:
            typer.echo(self.banner)
