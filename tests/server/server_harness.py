"""Helpers of the web table tests: a real uvicorn server in a thread or in
processes of its own (to kill), and WebSocket players."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import importlib
import importlib.util
import json
import os
import random
import re
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import AsyncIterator, Coroutine, Iterator
from contextlib import asynccontextmanager, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any, TypeVar

import httpx
import psutil
import redis.asyncio as aioredis
import uvicorn
import websockets
from websockets.asyncio.client import ClientConnection as AsyncConnection
from websockets.sync.client import ClientConnection, connect

from spieltisch.server.app import create_app
from spieltisch.server.botpool import BotPool
from spieltisch.server.limits import Limits, uvicorn_options
from spieltisch.server.store import Store

if TYPE_CHECKING:  # conftest imports this module
    from conftest import ClusterEnv

T = TypeVar("T")

TEST_LIMITS = Limits(
    messages_per_second=0,
    sockets_per_address=0,
    rooms_per_minute=0,
    misses_per_hour=0,
    room_misses_per_hour=0,
    private_rooms=0,
)
"""The production limits, except the per-address and per-room counts (every test client
comes from 127.0.0.1, like many people at once) and private rooms (the tests watch games
by their codes); the tests of those limits set them (tests/server/test_guessing.py)."""


class ServerThread:
    """Runs the app under uvicorn on a free port of 127.0.0.1 until :meth:`stop`."""

    def __init__(
        self,
        database: str,
        bot_delay: float = 0.0,
        table_prefix: str = "",
        room_idle: float = 600.0,
        limits: Limits | None = None,
        log_level: str = "warning",
        access_log: bool = False,
        proxies: tuple[str, ...] = ("127.0.0.1",),
        **options: Any,
    ) -> None:
        """``limits``: the server's limits (default :data:`TEST_LIMITS`), enforced as
        ``spieltisch serve`` enforces them (:func:`uvicorn_options`); ``proxies``: the
        trusted proxies (by default the tests on 127.0.0.1 stand as one, so that
        ``X-Forwarded-For`` names other clients); ``options`` go to :func:`create_app`
        (e.g. ``bot_workers``)."""
        self.limits = limits or TEST_LIMITS
        self.app = create_app(
            database,
            bot_delay=bot_delay,
            table_prefix=table_prefix,
            room_idle=room_idle,
            limits=self.limits,
            **options,
        )
        config = uvicorn.Config(
            self.app,
            host="127.0.0.1",
            port=0,
            log_level=log_level,
            access_log=access_log,
            lifespan="on",
            **uvicorn_options(self.limits, proxies),
        )
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, daemon=True)
        self.thread.start()
        deadline = time.monotonic() + 10
        while not self.server.started:
            if time.monotonic() > deadline or not self.thread.is_alive():
                raise RuntimeError("the test server did not start")
            time.sleep(0.01)
        port = self.server.servers[0].sockets[0].getsockname()[1]
        self.http = f"http://127.0.0.1:{port}"
        self.ws = f"ws://127.0.0.1:{port}"

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=10)

    def client(self) -> httpx.Client:
        return httpx.Client(base_url=self.http, timeout=10)


class SeatUrl(str):
    """A socket URL and whom it connects as: the seat and secret go into the first
    message (hello), never into the URL (docs/protocol.md, "Secrets")."""

    seat: int | None
    secret: str | None

    def __new__(cls, url: str, seat: int | None = None, secret: str | None = None) -> SeatUrl:
        obj = super().__new__(cls, url)
        obj.seat, obj.secret = seat, secret
        return obj

    def hello(self) -> str:
        if self.seat is None and self.secret is None:
            return json.dumps({"type": "hello"})
        return json.dumps({"type": "hello", "seat": self.seat, "secret": self.secret})


def ws_url(
    srv: ServerThread | ServerProcesses, room: str, seat: int | None = None, secret: str | None = None
) -> SeatUrl:
    return SeatUrl(f"{srv.ws}/ws/{room}", seat, secret)


def seat_headers(seat: int, secret: str) -> dict[str, str]:
    """How an HTTP request names its seat (replay): headers, never the URL."""
    return {"Spieltisch-Seat": str(seat), "Spieltisch-Secret": secret}


@asynccontextmanager
async def seat_socket(url: SeatUrl | str, **kwargs: Any) -> AsyncIterator[AsyncConnection]:
    """An asyncio client socket that has said hello (as ``url``'s seat, or as a spectator)."""
    async with websockets.connect(url, max_size=None, **kwargs) as ws:
        # A server that refuses the socket at once (no such room, an archived record)
        # may have closed it before the hello: its error frame is still there to read.
        with contextlib.suppress(websockets.ConnectionClosed):
            await ws.send(url.hello() if isinstance(url, SeatUrl) else json.dumps({"type": "hello"}))
        yield ws


@contextmanager
def connect_seat(url: SeatUrl | str, **kwargs: Any) -> Iterator[ClientConnection]:
    """A blocking client socket that has said hello (as ``url``'s seat, or as a spectator)."""
    with connect(url, **kwargs) as ws:
        with contextlib.suppress(websockets.ConnectionClosed):  # refused at once (see seat_socket)
            ws.send(url.hello() if isinstance(url, SeatUrl) else json.dumps({"type": "hello"}))
        yield ws


@dataclass
class Player:
    """A WebSocket seat that answers every fresh state with a random legal action."""

    url: SeatUrl
    seat: int | None
    rng: random.Random
    stop_at: int | None = None
    """Stop (close) once the game has reached this version."""
    messages: list[dict[str, Any]] = field(default_factory=list)
    errors: list[dict[str, Any]] = field(default_factory=list)
    last: dict[str, Any] | None = None
    log: list[dict[str, Any]] = field(default_factory=list)
    """The log as a client keeps it: the entries of every state spliced in at ``log_from``."""
    sent: list[dict[str, Any]] = field(default_factory=list)
    """Every message this client sent after its hello."""
    by_text: bool = False
    """Send each action as its notation (``"action": "play F1 F3 X5"``), not its id."""

    async def run(self) -> None:
        async with seat_socket(self.url) as ws:
            async for raw in ws:
                msg = json.loads(raw)
                self.messages.append(msg)
                if msg["type"] == "error":
                    self.errors.append(msg)
                    if msg["code"] == "rate_limited":  # faster than 20/s: wait, then resync
                        await asyncio.sleep(0.2)
                        self.sent.append({"type": "sync"})
                        await ws.send(json.dumps(self.sent[-1]))
                    continue
                if msg["type"] != "state":
                    continue
                if self.last is not None and msg["version"] < self.last["version"]:
                    raise AssertionError("a state went back in time")
                start = msg["log_from"]
                if start > len(self.log):
                    raise AssertionError(f"log entries from {start} on, but only {len(self.log)} known")
                self.log = self.log[:start] + msg["log"]
                self.last = msg
                if msg["room"]["status"] == "over":
                    return
                if self.stop_at is not None and msg["version"] >= self.stop_at:
                    return
                if msg["legal"]:
                    action_id, text = self.rng.choice(msg["legal"])
                    move = {"action": text} if self.by_text else {"id": action_id}
                    self.sent.append({"type": "act", "version": msg["version"], **move})
                    await ws.send(json.dumps(self.sent[-1]))


class ServerProcesses:
    """Servers in processes of their own, to be killed with SIGKILL.

    A launcher process imports the server once; :meth:`start` forks a fresh
    server from it (much faster than starting Python again), which serves
    ``database`` on a free port until :meth:`kill` sends it SIGKILL: no
    shutdown, no flush, like a crash or a power cut for everything not yet
    on the disk. ``think`` (``MODULE:FUNCTION``, importable from tests/server): the
    function the bot workers run per decision (:class:`BotPool`), instead of the real one."""

    def __init__(
        self, database: str, bot_delay: float = 0.0, bot_workers: int = 1, think: str | None = None
    ) -> None:
        self.database = database
        self.options = {"bot_delay": bot_delay, "bot_workers": bot_workers, "think": think}
        here = str(Path(__file__).resolve().parent)
        self.launcher = subprocess.Popen(
            [sys.executable, "-c", "import server_harness; server_harness._launcher()"],
            cwd=here,
            env={**os.environ, "PYTHONPATH": os.pathsep.join([here, os.environ.get("PYTHONPATH", "")])},
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,  # a killed server's orphaned bot workers complain there
            text=True,
        )
        self.pid: int | None = None
        self.http = self.ws = ""

    def start(self, timeout: float = 30) -> None:
        """Fork a server and wait until it answers."""
        assert self.launcher.stdin is not None and self.launcher.stdout is not None
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        self.launcher.stdin.write(
            json.dumps({"database": self.database, "port": port, **self.options}) + "\n"
        )
        self.launcher.stdin.flush()
        self.pid = int(self.launcher.stdout.readline())
        self.http, self.ws = f"http://127.0.0.1:{port}", f"ws://127.0.0.1:{port}"
        deadline = time.monotonic() + timeout
        while True:
            try:
                if httpx.get(f"{self.http}/api/games", timeout=1).status_code == 200:
                    return
            except httpx.HTTPError:
                if time.monotonic() > deadline:
                    raise RuntimeError("the forked server did not come up") from None
                time.sleep(0.02)

    def kill(self) -> None:
        """SIGKILL the running server."""
        if self.pid is not None:
            os.kill(self.pid, signal.SIGKILL)
            self.pid = None

    def close(self) -> None:
        self.kill()
        self.launcher.terminate()
        self.launcher.wait(10)

    def client(self) -> httpx.Client:
        return httpx.Client(base_url=self.http, timeout=10)


class Workers:
    """Several servers of one cluster (``redis``), each in a process of its own on a
    port of its own, forked from one launcher like :class:`ServerProcesses` (``think``
    as there)."""

    def __init__(
        self,
        database: str,
        redis: str,
        prefix: str,
        count: int,
        bot_delay: float = 0.0,
        log: Path | None = None,
        think: str | None = None,
    ) -> None:
        self.options = {
            "database": database,
            "redis": redis,
            "prefix": prefix,
            "bot_delay": bot_delay,
            "bot_workers": 1,
            "think": think,
        }
        here = str(Path(__file__).resolve().parent)
        self.log_path = log
        """Where the workers' log goes (their stderr), if anywhere."""
        self._log = open(log, "a") if log is not None else None  # noqa: SIM115 - closed in close()
        self.launcher = subprocess.Popen(
            [sys.executable, "-c", "import server_harness; server_harness._launcher()"],
            cwd=here,
            env={**os.environ, "PYTHONPATH": os.pathsep.join([here, os.environ.get("PYTHONPATH", "")])},
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self._log if self._log is not None else subprocess.DEVNULL,
            text=True,
        )
        self.pids: list[int | None] = [None] * count
        self.ports: list[int] = [0] * count

    def start(self, i: int, timeout: float = 30, **options: Any) -> None:
        """Fork worker ``i`` (on a new free port) and wait until it answers; ``options``
        override the workers' ``database``, ``redis``, ... for this one."""
        assert self.launcher.stdin is not None and self.launcher.stdout is not None
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        spec = {**self.options, "name": f"w{i}", **options, "port": port}
        self.launcher.stdin.write(json.dumps(spec) + "\n")
        self.launcher.stdin.flush()
        self.pids[i] = int(self.launcher.stdout.readline())
        self.ports[i] = port
        deadline = time.monotonic() + timeout
        while True:
            try:
                if httpx.get(f"{self.http(i)}/api/games", timeout=1).status_code == 200:
                    return
            except httpx.HTTPError:
                if time.monotonic() > deadline:
                    raise RuntimeError(f"worker {i} did not come up") from None
                time.sleep(0.02)

    def start_all(self) -> None:
        for i in range(len(self.pids)):
            self.start(i)

    def http(self, i: int) -> str:
        return f"http://127.0.0.1:{self.ports[i]}"

    def ws(self, i: int) -> str:
        return f"ws://127.0.0.1:{self.ports[i]}"

    def url(self, i: int, room: str, seat: int | None = None, secret: str | None = None) -> SeatUrl:
        return SeatUrl(f"{self.ws(i)}/ws/{room}", seat, secret)

    def client(self, i: int) -> httpx.Client:
        return httpx.Client(base_url=self.http(i), timeout=10)

    def alive(self) -> list[int]:
        return [i for i, pid in enumerate(self.pids) if pid is not None]

    def kill(self, i: int) -> None:
        """SIGKILL worker ``i``."""
        pid = self.pids[i]
        if pid is not None:
            os.kill(pid, signal.SIGKILL)
            self.pids[i] = None

    def terminate(self, i: int) -> int | None:
        """SIGTERM worker ``i`` (a supervisor's or a deployment's stop); returns its pid."""
        pid = self.pids[i]
        if pid is not None:
            os.kill(pid, signal.SIGTERM)
            self.pids[i] = None
        return pid

    def close(self) -> None:
        for i in range(len(self.pids)):
            self.kill(i)
        self.launcher.terminate()
        self.launcher.wait(10)
        if self._log is not None:
            self._log.close()


class Proxy:
    """A TCP relay to ``host:port`` that a test can cut (every connection closed, new
    ones closed at once) and restore: a network failure between a server and its
    database or Redis."""

    def __init__(self, host: str, port: int) -> None:
        self.target = (host, port)
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.open = True
        self._lock = threading.Lock()
        self._sockets: set[socket.socket] = set()
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return  # closed
            if not self.open:
                client.close()
                continue
            try:
                upstream = socket.create_connection(self.target, timeout=5)
            except OSError:
                client.close()
                continue
            upstream.settimeout(None)
            with self._lock:
                if not self.open:  # cut while this one was connecting: it must not outlive the cut
                    client.close()
                    upstream.close()
                    continue
                self._sockets |= {client, upstream}
            for a, b in ((client, upstream), (upstream, client)):
                threading.Thread(target=self._pump, args=(a, b), daemon=True).start()

    def _pump(self, a: socket.socket, b: socket.socket) -> None:
        try:
            while data := a.recv(65536):
                b.sendall(data)
        except OSError:
            pass
        for sock in (a, b):
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)

    def cut(self) -> None:
        with self._lock:
            self.open = False
            sockets, self._sockets = self._sockets, set()
        for sock in sockets:
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)
            sock.close()

    def restore(self) -> None:
        self.open = True

    def close(self) -> None:
        self.cut()
        self.listener.close()


def serve_workers(env: ClusterEnv, prefix: str, *args: str) -> subprocess.Popen[str]:
    """``spieltisch serve --workers 2 --port 0 ARGS`` on ``env``'s PostgreSQL and Redis,
    tables and keys under ``prefix``, one bot process a worker, no per-address limits,
    127.0.0.1 a trusted proxy; its banner comes on stdout."""
    environ = {**os.environ, "SPIELTISCH_TABLE_PREFIX": prefix, "SPIELTISCH_BOT_WORKERS": "1"}
    cmd = [
        sys.executable, "-c", "from spieltisch.cli import main; main()",
        "serve", "--workers", "2", "--port", "0", "--bot-delay", "0", "--trusted-proxy", "127.0.0.1", *args,
        "--redis", env.redis, "--database", env.database,
        "--sockets-per-address", "0", "--rooms-per-minute", "0", "--messages-per-second", "0",
        "--misses-per-hour", "0", "--room-misses-per-hour", "0", "--private-rooms", "0",
    ]  # fmt: skip
    return subprocess.Popen(cmd, env=environ, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)


@contextmanager
def serve_port_per_worker(env: ClusterEnv, name: str) -> Iterator[tuple[list[str], str]]:
    """``spieltisch serve --workers 2 --port-per-worker --port 0`` on ``env``'s PostgreSQL
    and Redis, its tables and keys under a prefix of its own ending in ``name``: the two
    workers' base URLs, once both answer, and that prefix. Stops the workers and drops the
    tables afterwards."""
    prefix = f"{env.prefix}{name}"
    proc = serve_workers(env, prefix, "--port-per-worker")
    try:
        assert proc.stdout is not None
        banner = proc.stdout.readline()
        ports = re.findall(r"http://localhost:(\d+)/", banner)
        assert "2 worker(s), one port each" in banner and len(set(ports)) == 2, banner
        https = [f"http://127.0.0.1:{p}" for p in ports]
        deadline = time.monotonic() + 60
        while not all(answers(h) for h in https):
            assert time.monotonic() < deadline and proc.poll() is None, "the workers did not come up"
            time.sleep(0.1)
        yield https, prefix
    finally:
        stop_tree(proc)
        Store(env.database, prefix=prefix).drop()


def _parent(pid: int) -> int | None:
    try:
        return psutil.Process(pid).ppid()
    except psutil.NoSuchProcess:  # gone meanwhile (a worker just killed)
        return None


def pid_behind(http: str) -> int:
    """The process listening on the port of ``http``: a worker, not the supervisor, which
    holds every worker's socket too (to start a worker again on it). Which of the two
    psutil names first depends on their pids, and the pids wrap around (seen in CI: the
    supervisor's for both ports)."""
    port = int(http.rsplit(":", 1)[1])
    pids = {
        conn.pid
        for conn in psutil.net_connections("tcp")
        if conn.status == psutil.CONN_LISTEN and conn.laddr.port == port and conn.pid is not None
    }
    assert pids, f"nobody listens on {http}"
    workers = [pid for pid in pids if _parent(pid) in pids]
    assert len(workers) <= 1, f"several workers listen on {http}: {workers}"
    return workers[0] if workers else pids.pop()


def lease_owners(
    redis_url: str, key: str, playing: Coroutine[Any, Any, Any], timeout: float = 150
) -> list[str]:
    """Run ``playing`` and read the lease ``key`` every 20 ms meanwhile: each owner in
    turn (``pidPID-…``, the worker's name without its fencing token)."""

    async def main() -> list[str]:
        owners: list[str] = []
        async with aioredis.Redis.from_url(redis_url, decode_responses=True) as r:
            task = asyncio.ensure_future(playing)
            while not task.done():
                value = await r.get(key)
                if value is not None and (not owners or owners[-1] != value.split(":", 1)[0]):
                    owners.append(value.split(":", 1)[0])
                await asyncio.sleep(0.02)
            await task
        return owners

    return run_async(asyncio.wait_for(main(), timeout))


def answers(http: str) -> bool:
    """The server at ``http`` answers a plain request now."""
    try:
        return httpx.get(f"{http}/api/games", timeout=1).status_code == 200
    except httpx.HTTPError:
        return False


def stop_tree(proc: subprocess.Popen[Any]) -> None:
    """Stop ``proc`` (e.g. ``spieltisch serve --workers N``) and, should it not end in
    60 s on a busy machine, kill it and its children (only these processes)."""
    tree = [proc.pid]
    with contextlib.suppress(psutil.Error):
        tree += [c.pid for c in psutil.Process(proc.pid).children(recursive=True)]
    proc.terminate()
    try:
        proc.wait(60)
    except subprocess.TimeoutExpired:
        for pid in tree:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        proc.wait(10)


def _launcher() -> None:
    """The launcher of :class:`ServerProcesses`: one JSON line in, one forked server (its pid) out."""
    # Pay for the lazy imports of building an app once, here, not in every server.
    warm = create_app("sqlite://", bot_workers=1)
    warm.state.store.close()  # its writer thread ends: fork only from a single thread
    uvicorn.Config(warm, log_level="critical").load()
    for line in sys.stdin:
        while True:  # reap the servers that were killed
            try:
                if os.waitpid(-1, os.WNOHANG)[0] == 0:
                    break
            except ChildProcessError:
                break
        spec = json.loads(line)
        pid = os.fork()
        if pid == 0:
            limits = dataclasses.replace(TEST_LIMITS, **spec.get("limits", {}))
            pool = None
            if spec.get("think"):
                module, name = spec["think"].split(":")
                pool = BotPool(spec["bot_workers"], think=getattr(importlib.import_module(module), name))
            if "lobby_poll" in spec:  # (tests of the lobby's Redis path: no poll to hide behind)
                from spieltisch.server import lobby

                lobby.POLL = spec["lobby_poll"]
            app = create_app(
                spec["database"],
                bot_delay=spec["bot_delay"],
                bot_workers=spec["bot_workers"],
                bot_pool=pool,
                limits=limits,
                room_idle=spec.get("room_idle", 600.0),
                table_prefix=spec.get("prefix", ""),
                redis=spec.get("redis"),
                worker_name=spec.get("name", ""),
            )
            options = uvicorn_options(limits, ("127.0.0.1",))
            uvicorn.run(app, host="127.0.0.1", port=spec["port"], log_level="critical", **options)
            os._exit(0)
        print(pid, flush=True)


def run_async(coro: Coroutine[Any, Any, T]) -> T:
    """``asyncio.run`` in a thread of its own: the test process may already run an
    event loop in this thread (Playwright's sync API does)."""
    result: list[T] = []
    errors: list[BaseException] = []

    def target() -> None:
        try:
            result.append(asyncio.run(coro))
        except BaseException as exc:  # handed to the caller
            errors.append(exc)

    thread = threading.Thread(target=target)
    thread.start()
    thread.join()
    if errors:
        raise errors[0]
    return result[0]


def play(players: list[Player], timeout: float = 120) -> None:
    async def main() -> None:
        await asyncio.wait_for(asyncio.gather(*(p.run() for p in players)), timeout)

    run_async(main())


def open_room(
    client: httpx.Client, game: str, seats: list[dict[str, Any]], seed: int, **extra: Any
) -> tuple[str, dict[int, str]]:
    """Create a room and fill every human seat; returns the code and the seats' secrets."""
    body = {
        "game": game,
        "players": len(seats),
        "seats": seats,
        "name": "Alice",
        "seed": seed,
        "bot_delay": 0,
    }
    body.update(extra)
    r = client.post("/api/rooms", json=body)
    assert r.status_code == 200, r.text
    data = r.json()
    secrets = {data["seat"]: data["secret"]}
    for seat, spec in enumerate(seats):
        if spec["kind"] == "human" and seat not in secrets:
            j = client.post(f"/api/rooms/{data['room']}/join", json={"name": f"P{seat}", "seat": seat})
            assert j.status_code == 200, j.text
            secrets[seat] = j.json()["secret"]
    return data["room"], secrets


def migration_revision(name: str) -> ModuleType:
    """The Alembic revision ``name`` (e.g. ``0004_reviews``) as a module, loaded from its file
    in src/spieltisch/server/migrations/versions (the folder is not a package)."""
    path = Path(__file__).resolve().parents[2] / f"src/spieltisch/server/migrations/versions/{name}.py"
    spec = importlib.util.spec_from_file_location(f"revision_{name}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


SCHMAUS_DECIDING = {"play": "play", "target": "target", "x5": "target", "discard": "discard"}
"""The Waschbär-Schmaus phase in which each kind of sealed decision is made."""


def schmaus_sealed(states: list[dict[str, Any]], n: int, text: str, version: int) -> bool:
    """Whether the ``n``-th action of a Waschbär-Schmaus game (``text``; ``states``: the full
    state after each number of actions) is still sealed at ``version``: its round and its
    deciding phase are still on (W-4 lays, W-9/W-11 choices, W-16 discards)."""
    before, now = states[n - 1], states[version]
    return bool(now["round"] == before["round"] and now["phase"] == SCHMAUS_DECIDING[text.split()[0]])
