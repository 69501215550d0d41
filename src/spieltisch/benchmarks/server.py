"""``spieltisch bench server``: many games over real WebSockets against a uvicorn subprocess.

(Over 800 lines: one benchmark whose parts - the server processes, the client
processes and their game loops, the meters and the report - share its ``Stats``
and settings; they are not used elsewhere.)

The server runs in its own process (SQLite in a temporary folder, with the
same durability as ever: WAL, ``synchronous=FULL``; bots with no delay,
thinking in the server's bot worker processes). Each game seats the bots
named by ``bots`` (default: one random bot) and as many people as there are
clients per game, up to the game's largest table; the other clients of a game
watch it as spectators (they receive every state, like a person's browser).
Each person is played by a client that thinks ``think`` seconds on average
(0: answers every state at once and saturates the server), then sends a
random legal action. A finished game is replaced by a new one until the time
is up.

Latency is measured per person's move: from sending an ``act`` (with a
``ref``) to receiving the ``state`` that acknowledges it - which the server
sends only once the move is durable. Every connection that fails (refused,
handshake timeout, closed by the server before its game ended) and every game
loop that dies is counted and printed, and makes the run fail. The server's
CPU time (its own process, and its bot workers apart) is measured with psutil.

The clients run in ``client_procs`` processes of their own (the games shared
out among them), so that one client process's event loop is not what limits
the figures: each process measures its event loop's lag (how late a 20 ms
timer fires) and its CPU time, and the report prints both next to the
latency. A latency figure is the server's only while the clients' lag is
small beside it; the report says so when it is not. ``client_nice`` lowers
the clients' CPU priority, so that the server is served first on a busy
machine.

With ``workers`` the server is a cluster (docs/deploy.md): that many worker
processes, each on a port of its own, on one PostgreSQL ``database`` and one
Redis; the clients of each game are spread over the workers (like a reverse
proxy without room affinity, the worst case: most commands are forwarded to the
room's owner and every state reaches the other workers through Redis). With
``route="room"`` every client of a game connects to the one worker that the hash
of its room picks (like a proxy hashing ``/ws/{room}``), the room still made on
a worker of its own (round-robin), so that about half the rooms of two workers
must be handed over to their people's worker (docs/deploy.md, "Room routing and
handoffs"); the report says how many were. Its tables and keys get a prefix of
their own and are removed afterwards.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import itertools
import math
import multiprocessing
import os
import queue
import random
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from collections import Counter
from collections.abc import AsyncIterator, Callable, Coroutine
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import orjson
import psutil
import websockets
from rich.console import Console
from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

from spieltisch.engine import RulesError, get_game
from spieltisch.server.bot_seats import bot_levels

GAMES = ("scout", "schmaus")


@dataclass
class Stats:
    latencies: list[float] = field(default_factory=list)
    """Seconds from a person's act to its acknowledging state."""
    server_latencies: list[float] = field(default_factory=list)
    """Seconds from an act's arrival at a server to its acknowledging state written to the
    socket, as the servers timed them (``SPIELTISCH_LATENCY_LOG``), in the window."""
    window: tuple[float, float] = (0.0, 0.0)
    """``time.monotonic()`` when the window opened and closed."""
    errors: Counter[str] = field(default_factory=Counter)
    """Error messages from the server, by code."""
    failed_connections: Counter[str] = field(default_factory=Counter)
    """Connections that failed, by reason."""
    dead_loops: list[str] = field(default_factory=list)
    """Game loops that died, with the reason."""
    games_done: int = 0
    games_started: int = 0
    moves_total: int = 0
    """Every move of the games played (people's and bots'), from the versions seen."""
    server_cpu: float = 0.0
    """CPU seconds of the server process during the run (its bot workers apart)."""
    bots_cpu: float = 0.0
    """CPU seconds of the server's bot worker processes during the run."""
    client_cpu: float = 0.0
    """CPU seconds of the client processes during the run (together)."""
    client_cpus: list[float] = field(default_factory=list)
    """CPU seconds of each client process."""
    loop_lags: list[float] = field(default_factory=list)
    """Seconds each sample of a client process's 20 ms timer fired late (all processes)."""
    elapsed: float = 0.0
    load: tuple[float, float] = (0.0, 0.0)
    """The machine's 1-minute load average when the window opened and at the end."""
    warm_up: float = 0.0
    """Seconds from the start to the window's opening (every game's clients connected)."""
    ready: int = 0
    """Game loops whose clients were all connected when the window opened."""
    rooms: int = 0
    """Rooms made (games started), the warm-up's too."""
    elsewhere: int = 0
    """Of those, rooms made on another worker than the one all their clients use (``route="room"``)."""
    handoffs: int | None = None
    """Rooms a worker handed over to another (a cluster's ``handoffs`` counter in Redis)."""

    def merge(self, other: Stats) -> None:
        """Add a client process's figures to these."""
        self.latencies += other.latencies
        self.errors.update(other.errors)
        self.failed_connections.update(other.failed_connections)
        self.dead_loops += other.dead_loops
        self.games_done += other.games_done
        self.games_started += other.games_started
        self.rooms += other.rooms
        self.elsewhere += other.elsewhere
        self.moves_total += other.moves_total
        self.client_cpu += other.client_cpu
        self.client_cpus += other.client_cpus
        self.loop_lags += other.loop_lags

    @property
    def ok(self) -> bool:
        """No failed connection and no dead game loop."""
        return not self.failed_connections and not self.dead_loops


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


@dataclass(frozen=True)
class ClusterSpec:
    """A cluster to measure: ``workers`` processes on ``database`` and ``redis``."""

    workers: int
    database: str
    redis: str
    prefix: str = field(default_factory=lambda: f"bench{uuid.uuid4().hex[:8]}_")
    route: str = "round-robin"
    """How the clients of a game reach the workers: ``round-robin`` (spread over all of
    them) or ``room`` (all on the worker that the room's hash picks, :func:`route_of`)."""


ROUTES = ("round-robin", "room")


def route_of(room: str, workers: int) -> int:
    """The worker that a proxy hashing the room picks for ``room`` (of ``workers``)."""
    return int.from_bytes(hashlib.blake2b(room.encode(), digest_size=8).digest()) % workers


def _start_server(folder: str, cluster: ClusterSpec | None = None) -> tuple[subprocess.Popen[bytes], str]:
    port = _free_port()
    extra: dict[str, str] = {}
    if cluster is not None:
        extra = {
            "SPIELTISCH_DATABASE": cluster.database,
            "SPIELTISCH_REDIS": cluster.redis,
            "SPIELTISCH_TABLE_PREFIX": cluster.prefix,
            "SPIELTISCH_BOT_WORKERS": str(max(1, len(os.sched_getaffinity(0)) // cluster.workers)),
        }
    env = {
        **os.environ,
        "SPIELTISCH_DATABASE": f"sqlite:///{folder}/bench.db",
        **extra,
        "SPIELTISCH_BOT_DELAY": "0",
        "SPIELTISCH_LATENCY_LOG": folder,  # each server's own act-to-ack times, read at the end
        # Every client comes from 127.0.0.1: lift the per-address limits (docs/protocol.md, "Limits").
        "SPIELTISCH_LIMIT_SOCKETS_PER_ADDRESS": "0",
        "SPIELTISCH_LIMIT_ROOMS_PER_MINUTE": "0",
        "SPIELTISCH_LIMIT_MESSAGES_PER_SECOND": "0",
    }
    cmd = [
        sys.executable, "-m", "uvicorn", "--factory", "spieltisch.server.app:create_app_from_env",
        "--host", "127.0.0.1", "--port", str(port), "--log-level", "warning", "--no-access-log",
        "--ws-per-message-deflate", "false",
    ]  # fmt: skip
    proc = subprocess.Popen(cmd, env=env)
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"the server exited with code {proc.returncode}")
        try:
            if httpx.get(f"{base}/api/games", timeout=1).status_code == 200:
                return proc, base
        except httpx.HTTPError:
            time.sleep(0.1)
    proc.terminate()
    raise RuntimeError("the server did not come up within 30 s")


def hello(seat: int | None = None, secret: str | None = None) -> dict[str, Any]:
    """A client's first message: a seat with its secret (never in the URL) or, without one, a spectator."""
    return {"type": "hello"} if seat is None else {"type": "hello", "seat": seat, "secret": secret}


@dataclass(eq=False)  # hashed by identity (Window.games)
class _Game:
    """What the clients of one game share."""

    room: str
    clients: int
    first: bool
    """The first game of its game loop (the warm-up waits for its clients)."""
    over: bool = False
    version: int = 0
    base: int = 0
    """The version when the window opened (its moves before are not counted)."""
    greeted: int = 0
    """Clients that have received their first state."""


class Window:
    """The measured time of one client process.

    The games start at once and play from the start (the warm-up), but nothing
    is counted until the window opens - when every game's clients are connected
    (:func:`_drive`) - and every client stops when it closes, ``seconds`` later.
    So the figures are those of the steady state with every client connected,
    not of 1,000 handshakes at once."""

    def __init__(self) -> None:
        self.start: float | None = None
        """``time.monotonic()`` when the window opened (``None``: the warm-up)."""
        self.deadline = math.inf
        self.ready = 0
        """Game loops whose first game has all its clients connected."""
        self.games: set[_Game] = set()
        """The games being played."""
        self._timeouts: set[asyncio.Timeout] = set()

    def open(self, start: float, seconds: float) -> None:
        self.start, self.deadline = start, start + seconds
        for game in self.games:
            game.base = game.version
        when = self._loop_deadline()
        for timeout in self._timeouts:
            timeout.reschedule(when)

    def counting(self) -> bool:
        """Is the window open now?"""
        return self.start is not None and time.monotonic() < self.deadline

    def over(self) -> bool:
        return time.monotonic() >= self.deadline

    def _loop_deadline(self) -> float | None:
        if self.start is None:
            return None
        return asyncio.get_running_loop().time() + max(0.0, self.deadline - time.monotonic())

    @contextlib.asynccontextmanager
    async def until_closed(self) -> AsyncIterator[None]:
        """The body is cancelled (``TimeoutError``) when the window closes."""
        async with asyncio.timeout_at(self._loop_deadline()) as timeout:
            self._timeouts.add(timeout)
            try:
                yield
            finally:
                self._timeouts.discard(timeout)


async def _client(
    url: str,
    first: dict[str, Any],
    game: _Game,
    rng: random.Random,
    stats: Stats,
    window: Window,
    refs: itertools.count[int],
    think: float,
    person: bool,
) -> None:
    """One WebSocket client until its game ends or the window closes (a spectator when not ``person``).

    A move's latency is from just before its ``act`` is sent to the receipt of
    the ``state`` that acknowledges it; only moves sent while the window is open count."""
    sent: dict[str, tuple[float, bool]] = {}
    greeted = False
    try:
        ws = await websockets.connect(url, max_size=None, open_timeout=10)
    except (OSError, TimeoutError, websockets.exceptions.WebSocketException) as exc:
        stats.failed_connections[_reason(exc)] += 1
        return
    try:
        # Stop when the window closes, even while waiting (for a thinking bot, say).
        async with ws, window.until_closed():
            await ws.send(orjson.dumps(first).decode())
            while True:
                try:  # the frame's bytes, not decoded to a str: orjson reads the UTF-8 itself
                    raw = await ws.recv(decode=False)
                except websockets.exceptions.ConnectionClosedOK:
                    break
                now = time.perf_counter()
                msg: dict[str, Any] = orjson.loads(raw)
                if msg["type"] == "error":
                    stats.errors[msg["code"]] += 1
                    sent.pop(msg.get("ref", ""), None)
                    if msg["code"] in ("rate_limited", "unavailable"):  # nothing done: wait, ask again
                        await asyncio.sleep(0.1)
                        await ws.send('{"type":"sync"}')
                    continue
                if msg["type"] != "state":
                    continue
                if not greeted:
                    greeted = True
                    game.greeted += 1
                    if game.first and game.greeted == game.clients:
                        window.ready += 1
                game.version = max(game.version, msg["version"])
                ack = msg.get("ack")
                if ack is not None and ack in sent:
                    at, counted = sent.pop(ack)
                    if counted:
                        stats.latencies.append(now - at)
                if msg["room"]["status"] == "over":
                    game.over = True
                    return
                if person and msg["legal"] and not sent:
                    if think > 0:  # a person's thinking time, then the move (if still current)
                        await asyncio.sleep(rng.uniform(0.5 * think, 1.5 * think))
                    action_id = rng.choice(msg["legal"])[0]
                    ref = str(next(refs))
                    act = {"type": "act", "version": msg["version"], "id": action_id, "ref": ref}
                    text = orjson.dumps(act).decode()  # a text frame, as a browser sends it
                    sent[ref] = (time.perf_counter(), window.counting())
                    await ws.send(text)
    except TimeoutError:
        return  # the window closed
    except (OSError, websockets.exceptions.WebSocketException) as exc:
        stats.failed_connections[_reason(exc)] += 1
        return
    if not game.over:
        stats.failed_connections["closed by the server before the game ended"] += 1


def _run(main: Coroutine[Any, Any, Stats]) -> Stats:
    """Run a client process's event loop: uvloop's when it is installed (uvicorn[standard]
    brings it, and the server runs on it too), which costs the clients less CPU per message
    than asyncio's own loop (docs/web.md, "What a move costs")."""
    try:
        import uvloop
    except ImportError:  # pragma: no cover - uvloop is part of uvicorn[standard] on Linux and macOS
        return asyncio.run(main)
    return uvloop.run(main)


def _reason(exc: BaseException) -> str:
    if isinstance(exc, TimeoutError):
        return "opening handshake timed out"
    if isinstance(exc, websockets.exceptions.ConnectionClosed):
        return f"connection closed ({exc.rcvd.code if exc.rcvd else 'no close frame'})"
    return type(exc).__name__


@dataclass(frozen=True)
class SeatingPlan:
    """Who sits at each game of a benchmark: people, bots and spectators."""

    game: str
    people: int
    bots: tuple[str, ...]
    spectators: int

    @property
    def players(self) -> int:
        return self.people + len(self.bots)


def plan_seating(game: str, clients_per_game: int, bots: tuple[str, ...]) -> SeatingPlan:
    """Seat the bots, then people up to the game's largest table; the other clients watch."""
    g = get_game(game)
    levels = bot_levels(g.name)
    for level in bots:
        if level not in levels:
            raise ValueError(f"--bots: {g.title} has bot levels {', '.join(levels)}, not {level!r}")
    room_for_people = g.max_players - len(bots)
    if room_for_people < 1:
        raise ValueError(f"--bots: {g.title} seats at most {g.max_players} players, one of them a person")
    people = min(clients_per_game, room_for_people)
    if people + len(bots) < g.min_players:
        raise ValueError(
            f"{g.title} needs at least {g.min_players} players: {people} client(s) and {len(bots)} bot(s)"
        )
    return SeatingPlan(g.name, people, bots, clients_per_game - people)


async def _game_loop(
    http: httpx.AsyncClient,
    bases: list[str],
    plan: SeatingPlan,
    index: int,
    stats: Stats,
    window: Window,
    think: float,
    route: str = "round-robin",
) -> None:
    """Games one after the other, each made on a worker and its clients spread over all of
    them (``route="room"``: all on the worker that the room's hash picks)."""
    base = bases[index % len(bases)]
    ws_bases = [b.replace("http://", "ws://") for b in bases]
    seats = [{"kind": "human"}] * plan.people + [{"kind": "bot", "level": lv} for lv in plan.bots]
    refs = itertools.count()
    rng = random.Random(index)
    first = True
    while not window.over():
        body = {"game": plan.game, "players": plan.players, "seats": seats, "bot_delay": 0}
        try:
            r = await http.post(f"{base}/api/rooms", json=body)
            r.raise_for_status()
            room = r.json()
            stats.rooms += 1
            secrets = {room["seat"]: room["secret"]}
            # Through a proxy that routes by room, the joins reach the room's worker too.
            joins = bases[route_of(room["room"], len(bases))] if route == "room" else base
            if route == "room" and joins != base:
                stats.elsewhere += 1
            for seat in range(1, plan.people):
                j = await http.post(f"{joins}/api/rooms/{room['room']}/join", json={"seat": seat})
                j.raise_for_status()
                secrets[seat] = j.json()["secret"]
        except httpx.HTTPError as exc:
            stats.failed_connections[f"HTTP: {type(exc).__name__}"] += 1
            await asyncio.sleep(0.5)
            continue
        game = _Game(room["room"], plan.people + plan.spectators, first)
        first = False
        window.games.add(game)
        # The first client on the worker after the one that made the room (its owner), and so
        # on; or every client on the room's worker.
        start = (index + 1) % len(ws_bases)
        name = room["invite"].removeprefix("/r/")  # CODE-KEY: spectators watch a started game by it
        if route == "room":
            start = route_of(game.room, len(ws_bases))
            urls = itertools.cycle([f"{ws_bases[start]}/ws/{name}"])
        else:
            urls = itertools.cycle([f"{w}/ws/{name}" for w in ws_bases[start:] + ws_bases[:start]])
        clients = [
            _client(next(urls), hello(s, sec), game, rng, stats, window, refs, think, True)
            for s, sec in secrets.items()
        ]
        clients += [
            _client(next(urls), hello(), game, rng, stats, window, refs, think, False)
            for _ in range(plan.spectators)
        ]
        await asyncio.gather(*clients)
        window.games.discard(game)
        if window.start is not None:  # played (at least partly) in the window
            stats.games_started += 1
            stats.moves_total += game.version - game.base
            if game.over:
                stats.games_done += 1


def _percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(p / 100 * len(ordered)))]


class _CpuMeter:
    """CPU seconds of a process and, apart, of its children (the bot workers)."""

    def __init__(self, pid: int) -> None:
        self.proc = psutil.Process(pid)
        self.seen: dict[int, float] = {}
        self.start_own = self._own()
        self.start_children = self._children()

    def _own(self) -> float:
        t = self.proc.cpu_times()
        return float(t.user + t.system)

    def _children(self) -> float:
        for child in self.proc.children(recursive=True):
            with contextlib.suppress(psutil.Error):
                t = child.cpu_times()
                self.seen[child.pid] = float(t.user + t.system)
        return sum(self.seen.values())

    def restart(self) -> None:
        """Count from now on."""
        self.start_own = self._own()
        self.start_children = self._children()

    def sample(self) -> tuple[float, float]:
        """CPU seconds since the start: the process's own, its children's."""
        return self._own() - self.start_own, self._children() - self.start_children


LAG_PERIOD = 0.02
"""Seconds between two samples of a client process's event-loop lag."""
LAG_WARN = 0.25
"""A client lag p99 over this share of the latency p99 is reported as part of it."""
WARM_UP = 180.0
"""Most seconds the warm-up waits for every game's clients to be connected."""


async def _lag_meter(stats: Stats, window: Window) -> None:
    """Sample how late this event loop runs a ``LAG_PERIOD`` timer while the window is open."""
    loop = asyncio.get_running_loop()
    while not window.over():
        before = loop.time()
        await asyncio.sleep(LAG_PERIOD)
        stats.loop_lags.append(max(0.0, loop.time() - before - LAG_PERIOD))


async def _drive_part(
    bases: list[str],
    plans: list[SeatingPlan],
    indices: list[int],
    seconds: float,
    think: float,
    go: Callable[[int], float | None],
    progress: Callable[[int, int], None],
    route: str = "round-robin",
) -> Stats:
    """The game loops ``indices`` (one client process's share): warm up until ``go``
    (given how many game loops are ready) answers the window's start, then measure."""
    stats = Stats()
    window = Window()
    # One HTTP client for all the game loops (making one costs CPU); a keep-alive shorter
    # than the server's 5 s, so that it never closes a connection being reused.
    limits = httpx.Limits(max_connections=None, max_keepalive_connections=None, keepalive_expiry=2.0)
    async with httpx.AsyncClient(timeout=30, limits=limits) as http:
        tasks = [
            asyncio.create_task(
                _game_loop(http, bases, plans[i % len(plans)], i, stats, window, think, route),
                name=f"game {i}",
            )
            for i in indices
        ]
        while (start := go(window.ready)) is None:
            progress(window.ready, 0)
            await asyncio.sleep(0.01)
        window.open(start, seconds)
        cpu_start = time.process_time()
        lag = asyncio.create_task(_lag_meter(stats, window))
        while not all(t.done() for t in tasks) and time.monotonic() < window.deadline + 30:
            progress(window.ready, len(stats.latencies))
            await asyncio.sleep(0.25)
        progress(window.ready, len(stats.latencies))
        stats.client_cpu = time.process_time() - cpu_start
        stats.client_cpus = [stats.client_cpu]
        for t in tasks:
            if not t.done():
                t.cancel()
                stats.dead_loops.append(f"{t.get_name()}: still running 30 s after the end")
        results = await asyncio.gather(*tasks, return_exceptions=True)
        for t, r in zip(tasks, results, strict=True):
            if isinstance(r, BaseException) and not isinstance(r, asyncio.CancelledError):
                stats.dead_loops.append(f"{t.get_name()}: {r!r}")
        await lag
    return stats


def _client_process(
    part: int,
    bases: list[str],
    plans: list[SeatingPlan],
    indices: list[int],
    seconds: float,
    think: float,
    nice: int,
    counts: Any,
    go: Any,
    results: Any,
    route: str = "round-robin",
) -> None:
    """A client process: drives its games, says how many are ready (``counts[2 * part + 1]``),
    opens its window when the parent sets ``go`` and puts its :class:`Stats` (or why it
    failed) on ``results``; ``counts[2 * part]`` is its count of measured moves."""
    try:
        if nice:
            os.nice(nice)

        def start(ready: int) -> float | None:
            counts[2 * part + 1] = ready
            return float(go.value) if go.value else None

        def progress(ready: int, moves: int) -> None:
            counts[2 * part], counts[2 * part + 1] = moves, ready

        stats = _run(_drive_part(bases, plans, indices, seconds, think, start, progress, route))
        results.put((part, stats))
    except BaseException as exc:  # the parent counts it as a dead game loop
        results.put((part, f"client process {part} failed: {exc!r}"))


def _drive(
    bases: list[str],
    plans: list[SeatingPlan],
    games: int,
    seconds: float,
    console: Console,
    think: float,
    meters: list[_CpuMeter],
    client_procs: int,
    client_nice: int,
    warm_up: float = WARM_UP,
    route: str = "round-robin",
) -> Stats:
    """The games shared out among ``client_procs`` client processes (1 and no niceness:
    this one). The window opens when every game loop's first game has all its clients
    connected (at most ``warm_up`` s after the start); the server's CPU is measured
    from then to the end."""
    stats = Stats()
    parts = [list(range(k, games, client_procs)) for k in range(client_procs)]
    columns = (
        TextColumn("[bold]bench server"),
        BarColumn(),
        TextColumn("{task.fields[what]}"),
        TimeElapsedColumn(),
    )
    began: list[float] = []
    opened: list[float] = []
    closed: list[float] = []

    def start_now(ready: int) -> float | None:
        """The window's start once every game is ready (or the warm-up, counted from the
        first call, is over)."""
        if not began:
            began.append(time.monotonic())
        if not opened and (ready >= games or time.monotonic() - began[0] > warm_up):
            for meter in meters:
                meter.restart()
            opened.append(time.monotonic())
            stats.load = (os.getloadavg()[0], 0.0)
            stats.warm_up = opened[0] - began[0]
            stats.ready = ready
        return opened[0] if opened else None

    def close() -> None:
        """The window is over: the server's CPU up to now."""
        closed.append(time.monotonic())
        stats.load = (stats.load[0], os.getloadavg()[0])
        for meter in meters:
            own, bots = meter.sample()
            stats.server_cpu += own
            stats.bots_cpu += bots

    with Progress(*columns, console=console) as progress:
        bar = progress.add_task("run", total=seconds, what="")

        def show(ready: int, moves: int) -> None:
            if not opened:
                progress.update(bar, what=f"warming up: {ready} of {games} games connected")
                return
            elapsed = time.monotonic() - opened[0]
            if elapsed >= seconds and not closed:
                close()
            rate = moves / max(min(elapsed, seconds), 1e-9)
            progress.update(bar, completed=min(elapsed, seconds), what=f"{moves} moves, {rate:.0f}/s")

        if client_procs == 1 and not client_nice:
            stats.merge(_run(_drive_part(bases, plans, parts[0], seconds, think, start_now, show, route)))
        else:
            done_by = time.monotonic() + warm_up + seconds + 90
            _drive_processes(
                stats, bases, plans, parts, seconds, think, client_nice, start_now, show, done_by, route
            )
    if opened and not closed:
        close()
    if opened:
        stats.elapsed = closed[0] - opened[0]
        stats.window = (opened[0], closed[0])
    return stats


def _drive_processes(
    stats: Stats,
    bases: list[str],
    plans: list[SeatingPlan],
    parts: list[list[int]],
    seconds: float,
    think: float,
    nice: int,
    start_now: Callable[[int], float | None],
    show: Callable[[int, int], None],
    give_up: float,
    route: str = "round-robin",
) -> None:
    """Run ``parts`` in client processes of their own and merge their figures into ``stats``
    (a process that has not answered by ``give_up``, monotonic, counts as failed)."""
    ctx = multiprocessing.get_context("spawn")  # no fork of a process that may have threads
    n = len(parts)
    counts = ctx.Array("q", 2 * n, lock=False)  # per process: moves measured, game loops ready
    for k in range(n):
        counts[2 * k + 1] = -1  # not started yet
    go = ctx.Value("d", 0.0, lock=False)
    results = ctx.Queue()
    procs = [
        ctx.Process(
            target=_client_process,
            args=(k, bases, plans, parts[k], seconds, think, nice, counts, go, results, route),
            name=f"bench-clients-{k}",
            daemon=True,
        )
        for k in range(n)
    ]
    for p in procs:
        p.start()
    try:
        got: dict[int, Stats | str] = {}
        while len(got) < n and time.monotonic() < give_up:
            ready = [counts[2 * k + 1] for k in range(n)]
            start = start_now(sum(ready)) if min(ready) >= 0 else None  # every process started
            if start is not None and not go.value:
                go.value = start
            with contextlib.suppress(queue.Empty):
                part, result = results.get(timeout=0.02 if start is None else 0.25)
                got[part] = result
            show(sum(max(0, counts[2 * k + 1]) for k in range(n)), sum(counts[2 * k] for k in range(n)))
            if len(got) < n and all(p.exitcode is not None for p in procs) and results.empty():
                break
        for k in range(n):
            result = got.get(k, f"client process {k} gave no figures (exit code {procs[k].exitcode})")
            if isinstance(result, str):
                stats.dead_loops.append(result)
            else:
                stats.merge(result)
    finally:
        for p in procs:
            p.join(timeout=10)
            if p.is_alive():
                p.kill()
                p.join()


def run(
    clients: int = 200,
    games: int = 50,
    seconds: float = 30.0,
    game: str = "mixed",
    think: float = 1.0,
    bots: tuple[str, ...] = ("random",),
    console: Console | None = None,
    cluster: ClusterSpec | None = None,
    client_procs: int | None = None,
    client_nice: int = 0,
    warm_up: float = WARM_UP,
) -> Stats:
    """Start a server (or a ``cluster`` of workers), drive it from ``client_procs``
    client processes (default: :func:`default_client_procs`; 1: this process) at
    niceness ``client_nice``, print the figures; ``Stats.ok`` tells whether nothing failed."""
    console = console or Console()
    procs_ = client_procs if client_procs is not None else default_client_procs(clients)
    if procs_ < 1:
        raise SystemExit("--client-procs: at least 1")
    if client_nice < 0:
        raise SystemExit("--client-nice: 0 or more (the clients are never given a higher priority)")
    procs_ = min(procs_, games)
    if game not in (*GAMES, "mixed"):
        raise SystemExit(f"--game must be scout, schmaus or mixed, not {game!r}")
    if games < 1 or clients < games:
        raise SystemExit("need at least one game and at least one client per game")
    try:
        plans = [plan_seating(g, clients // games, bots) for g in (GAMES if game == "mixed" else (game,))]
    except (ValueError, RulesError) as exc:
        raise SystemExit(str(exc)) from None
    if cluster is not None and cluster.workers < 1:
        raise SystemExit("--workers: at least 1")
    if cluster is not None and cluster.route not in ROUTES:
        raise SystemExit(f"--route must be {' or '.join(ROUTES)}, not {cluster.route!r}")
    route = cluster.route if cluster is not None else "round-robin"
    with tempfile.TemporaryDirectory() as folder:
        procs: list[subprocess.Popen[bytes]] = []
        bases: list[str] = []
        handoffs: int | None = None
        try:
            for _ in range(cluster.workers if cluster is not None else 1):
                proc, base = _start_server(folder, cluster)
                procs.append(proc)
                bases.append(base)
            meters = [_CpuMeter(p.pid) for p in procs]
            stats = _drive(
                bases, plans, games, seconds, console, think, meters, procs_, client_nice, warm_up, route
            )
        finally:
            for proc in procs:
                proc.terminate()
            for proc in procs:
                try:
                    proc.wait(timeout=30)
                except subprocess.TimeoutExpired:  # a busy machine: do not leave it running
                    proc.kill()
                    proc.wait(timeout=30)
            if cluster is not None:
                with contextlib.suppress(Exception):  # a figure only: the run stands without it
                    handoffs = _handoffs(cluster)
                _clean(cluster)
        stats.handoffs = handoffs
        stats.server_latencies = _server_latencies(folder, stats.window)  # (the servers have stopped)
    _report(console, stats, plans, games, think, cluster)
    return stats


def _server_latencies(folder: str, window: tuple[float, float]) -> list[float]:
    """The act-to-ack times the servers wrote to ``folder`` when they stopped, those of
    the window (the servers' clock is this one's: ``time.monotonic()`` of one machine)."""
    start, end = window
    times: list[float] = []
    for path in sorted(Path(folder).glob("latency-*.json")):
        with contextlib.suppress(OSError, ValueError):
            times += [float(s) for when, s in orjson.loads(path.read_bytes()) if start <= when <= end]
    return times


def default_client_procs(clients: int) -> int:
    """A client process per 250 clients, at most one per CPU this process may use."""
    return max(1, min(len(os.sched_getaffinity(0)), clients // 250))


def _handoffs(cluster: ClusterSpec) -> int:
    """How many rooms the cluster's workers handed over (its counter in Redis)."""
    import redis

    with redis.Redis.from_url(cluster.redis) as r:
        return int(r.get(f"{cluster.prefix}spieltisch:handoffs") or 0)


def _clean(cluster: ClusterSpec) -> None:
    """Drop the cluster's tables and delete its Redis keys."""
    import redis

    from spieltisch.server.store import Store

    Store(cluster.database, prefix=cluster.prefix).drop()
    with redis.Redis.from_url(cluster.redis) as r:
        keys = list(r.scan_iter(match=f"{cluster.prefix}*", count=1000))
        if keys:
            r.delete(*keys)


def _report(
    console: Console,
    stats: Stats,
    plans: list[SeatingPlan],
    games: int,
    think: float,
    cluster: ClusterSpec | None = None,
) -> None:
    p = plans[0]
    bots = ", ".join(p.bots) if p.bots else "none"
    connected = games * (p.people + p.spectators)
    if cluster is not None:
        how = (
            "every game's clients on the worker its room's hash picks (the room made on another "
            "worker, round-robin)"
            if cluster.route == "room"
            else "every game's clients spread over the workers"
        )
        console.print(f"cluster: {cluster.workers} worker(s) on PostgreSQL and Redis, {how}")
        if stats.handoffs is not None:
            made = f"of {stats.rooms} rooms made"
            if cluster.route == "room":
                made += f", {stats.elsewhere} of them on another worker than their clients'"
            console.print(f"rooms handed over to another worker: {stats.handoffs} ({made})")
    console.print(
        f"{games} games at a time ({'/'.join(pl.game for pl in plans)}), {connected} clients: "
        f"{p.people} person(s) and {p.spectators} spectator(s) per game; bots per game: {bots} "
        f"(no delay); think time {think:g} s on average (0: every client answers at once); "
        f"measured {stats.elapsed:.1f} s after a warm-up of {stats.warm_up:.1f} s "
        f"({stats.ready} of {games} games with every client connected); load average "
        f"{stats.load[0]:.1f} at the start, {stats.load[1]:.1f} at the end"
    )
    lat = stats.latencies
    if lat:
        ms = [x * 1000 for x in lat]
        console.print(
            f"people's moves: {len(lat)} ({len(lat) / stats.elapsed:.0f}/s); all moves (bots' too): "
            f"{stats.moves_total} ({stats.moves_total / stats.elapsed:.0f}/s); "
            f"games finished: {stats.games_done} of the {stats.games_started} played in the window"
        )
        console.print(
            f"act → state latency of people's moves: p50 {statistics.median(ms):.1f} ms, "
            f"p90 {_percentile(ms, 90):.1f} ms, p99 {_percentile(ms, 99):.1f} ms, max {max(ms):.1f} ms"
        )
        if stats.server_latencies:
            srv = [x * 1000 for x in stats.server_latencies]
            console.print(
                f"in the server{'s' if cluster is not None else ''} (an act's arrival → its "
                f"acknowledging state written to the socket, {len(srv)} acts): "
                f"p50 {statistics.median(srv):.1f} ms, p90 {_percentile(srv, 90):.1f} ms, "
                f"p99 {_percentile(srv, 99):.1f} ms, max {max(srv):.1f} ms"
            )
    else:
        console.print("[red]no moves measured")
    per_cpu = stats.moves_total / stats.server_cpu if stats.server_cpu > 0 else 0.0
    servers = "workers (together)" if cluster is not None else "server"
    console.print(
        f"CPU: {servers} {stats.server_cpu:.1f} s ({100 * stats.server_cpu / max(stats.elapsed, 1e-9):.0f}% "
        f"of one core; {per_cpu:.0f} moves per server CPU second, "
        f"{1000 / per_cpu if per_cpu else 0:.2f} ms per move), bot workers {stats.bots_cpu:.1f} s"
    )
    share = [100 * c / max(stats.elapsed, 1e-9) for c in stats.client_cpus]
    if stats.loop_lags:
        lag_ms = [x * 1000 for x in stats.loop_lags]
        lag_p99 = _percentile(lag_ms, 99)
        console.print(
            f"clients: {len(stats.client_cpus)} process(es), CPU {stats.client_cpu:.1f} s "
            f"(busiest process {max(share, default=0):.0f}% of one core); their event loops' lag "
            f"p50 {statistics.median(lag_ms):.1f} ms, p99 {lag_p99:.1f} ms, max {max(lag_ms):.1f} ms"
        )
        if lat and lag_p99 > LAG_WARN * _percentile([x * 1000 for x in lat], 99):
            console.print(
                "[yellow]the clients' own event loops lagged by more than a quarter of the latency p99: "
                "the latency figures include the clients' lag (try more --client-procs, --client-nice)"
            )
    if stats.errors:
        console.print("server errors: " + ", ".join(f"{k} {v}" for k, v in sorted(stats.errors.items())))
    failed = sum(stats.failed_connections.values())
    style = "red" if failed else "green"
    details = ", ".join(f"{reason}: {n}" for reason, n in stats.failed_connections.most_common())
    console.print(f"[{style}]failed connections: {failed}" + (f" ({details})" if details else ""))
    style = "red" if stats.dead_loops else "green"
    console.print(f"[{style}]dead game loops: {len(stats.dead_loops)}")
    for line in stats.dead_loops[:10]:
        console.print(f"  [red]{line}")
