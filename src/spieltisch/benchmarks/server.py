"""``spieltisch bench server``: many games over real WebSockets against a uvicorn subprocess.

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

With ``workers`` the server is a cluster (docs/deploy.md): that many worker
processes, each on a port of its own, on one PostgreSQL ``database`` and one
Redis; the clients of each game are spread over the workers (like a reverse
proxy without room affinity, the worst case: most commands are forwarded to the
room's owner and every state reaches the other workers through Redis). Its
tables and keys get a prefix of their own and are removed afterwards.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import os
import random
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import httpx
import psutil
import websockets
from rich.console import Console
from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

from spieltisch.engine import RulesError, get_game
from spieltisch.server.rooms import bot_levels

GAMES = ("scout", "schmaus")


@dataclass
class Stats:
    latencies: list[float] = field(default_factory=list)
    """Seconds from a person's act to its acknowledging state."""
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
    """CPU seconds of this (the clients') process during the run."""
    elapsed: float = 0.0

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


@dataclass
class _Game:
    """What the clients of one game share."""

    room: str
    over: bool = False
    version: int = 0


async def _client(
    url: str,
    first: dict[str, Any],
    game: _Game,
    rng: random.Random,
    stats: Stats,
    deadline: float,
    refs: itertools.count[int],
    think: float,
    person: bool,
) -> None:
    """One WebSocket client until its game ends or the time is up (a spectator when not ``person``)."""
    sent: dict[str, float] = {}
    try:
        ws = await websockets.connect(url, max_size=None, open_timeout=10)
    except (OSError, TimeoutError, websockets.exceptions.WebSocketException) as exc:
        stats.failed_connections[_reason(exc)] += 1
        return
    loop = asyncio.get_running_loop()
    try:
        # Stop at the deadline even while waiting (for a thinking bot, say).
        async with ws, asyncio.timeout_at(loop.time() + max(0.0, deadline - time.monotonic())):
            await ws.send(json.dumps(first))
            async for raw in ws:
                msg: dict[str, Any] = json.loads(raw)
                now = time.perf_counter()
                if msg["type"] == "error":
                    stats.errors[msg["code"]] += 1
                    sent.pop(msg.get("ref", ""), None)
                    if msg["code"] in ("rate_limited", "unavailable"):  # nothing done: wait, ask again
                        await asyncio.sleep(0.1)
                        await ws.send(json.dumps({"type": "sync"}))
                    continue
                if msg["type"] != "state":
                    continue
                game.version = max(game.version, msg["version"])
                ack = msg.get("ack")
                if ack is not None and ack in sent:
                    stats.latencies.append(now - sent.pop(ack))
                if msg["room"]["status"] == "over":
                    game.over = True
                    return
                if person and msg["legal"] and not sent:
                    if think > 0:  # a person's thinking time, then the move (if still current)
                        await asyncio.sleep(rng.uniform(0.5 * think, 1.5 * think))
                    action_id = rng.choice(msg["legal"])[0]
                    ref = str(next(refs))
                    sent[ref] = time.perf_counter()
                    await ws.send(
                        json.dumps({"type": "act", "version": msg["version"], "id": action_id, "ref": ref})
                    )
    except TimeoutError:
        return  # the time is up
    except (OSError, websockets.exceptions.WebSocketException) as exc:
        stats.failed_connections[_reason(exc)] += 1
        return
    if not game.over:
        stats.failed_connections["closed by the server before the game ended"] += 1


def _reason(exc: BaseException) -> str:
    if isinstance(exc, TimeoutError):
        return "opening handshake timed out"
    if isinstance(exc, websockets.exceptions.ConnectionClosed):
        return f"connection closed ({exc.rcvd.code if exc.rcvd else 'no close frame'})"
    return type(exc).__name__


@dataclass(frozen=True)
class Tables:
    """Who sits at each table: people, bots and spectators per game."""

    game: str
    people: int
    bots: tuple[str, ...]
    spectators: int

    @property
    def players(self) -> int:
        return self.people + len(self.bots)


def plan_tables(game: str, clients_per_game: int, bots: tuple[str, ...]) -> Tables:
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
    return Tables(g.name, people, bots, clients_per_game - people)


async def _game_loop(
    bases: list[str], plan: Tables, index: int, stats: Stats, deadline: float, think: float
) -> None:
    """Games one after the other, each made on a worker and its clients spread over all of them."""
    base = bases[index % len(bases)]
    ws_bases = [b.replace("http://", "ws://") for b in bases]
    seats = [{"kind": "human"}] * plan.people + [{"kind": "bot", "level": lv} for lv in plan.bots]
    refs = itertools.count()
    rng = random.Random(index)
    # Shorter keep-alive than the server's 5 s, so that it never closes a connection we are reusing.
    limits = httpx.Limits(keepalive_expiry=2.0)
    async with httpx.AsyncClient(base_url=base, timeout=30, limits=limits) as http:
        while time.monotonic() < deadline:
            body = {"game": plan.game, "players": plan.players, "seats": seats, "bot_delay": 0}
            try:
                r = await http.post("/api/rooms", json=body)
                r.raise_for_status()
                room = r.json()
                secrets = {room["seat"]: room["secret"]}
                for seat in range(1, plan.people):
                    j = await http.post(f"/api/rooms/{room['room']}/join", json={"seat": seat})
                    j.raise_for_status()
                    secrets[seat] = j.json()["secret"]
            except httpx.HTTPError as exc:
                stats.failed_connections[f"HTTP: {type(exc).__name__}"] += 1
                await asyncio.sleep(0.5)
                continue
            stats.games_started += 1
            game = _Game(room["room"])
            # The first client on the worker after the one that made the room (its owner), and so on.
            start = (index + 1) % len(ws_bases)
            urls = itertools.cycle([f"{w}/ws/{game.room}" for w in ws_bases[start:] + ws_bases[:start]])
            clients = [
                _client(next(urls), hello(s, sec), game, rng, stats, deadline, refs, think, True)
                for s, sec in secrets.items()
            ]
            clients += [
                _client(next(urls), hello(), game, rng, stats, deadline, refs, think, False)
                for _ in range(plan.spectators)
            ]
            await asyncio.gather(*clients)
            stats.moves_total += game.version
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

    def sample(self) -> tuple[float, float]:
        """CPU seconds since the start: the process's own, its children's."""
        return self._own() - self.start_own, self._children() - self.start_children


async def _drive(
    bases: list[str],
    plans: list[Tables],
    games: int,
    seconds: float,
    console: Console,
    think: float,
    meters: list[_CpuMeter],
) -> Stats:
    stats = Stats()
    deadline = time.monotonic() + seconds
    tasks = [
        asyncio.create_task(
            _game_loop(bases, plans[i % len(plans)], i, stats, deadline, think), name=f"game {i}"
        )
        for i in range(games)
    ]
    columns = (
        TextColumn("[bold]bench server"),
        BarColumn(),
        TextColumn("{task.fields[moves]} moves, {task.fields[rate]:.0f}/s, {task.fields[failed]} failed"),
        TimeElapsedColumn(),
        TimeRemainingColumn(),
    )
    start, cpu_start = time.monotonic(), time.process_time()
    with Progress(*columns, console=console) as progress:
        bar = progress.add_task("run", total=seconds, moves=0, rate=0.0, failed=0)
        while not all(t.done() for t in tasks):
            await asyncio.sleep(0.25)
            elapsed = time.monotonic() - start
            n = len(stats.latencies)
            failed = sum(stats.failed_connections.values()) + sum(
                t.done() and not t.cancelled() and t.exception() is not None for t in tasks
            )
            progress.update(
                bar, completed=min(elapsed, seconds), moves=n, rate=n / max(elapsed, 1e-9), failed=failed
            )
            if elapsed > seconds + 30:
                break
    stats.elapsed = time.monotonic() - start
    stats.client_cpu = time.process_time() - cpu_start
    for meter in meters:
        own, bots = meter.sample()
        stats.server_cpu += own
        stats.bots_cpu += bots
    for t in tasks:
        if not t.done():
            t.cancel()
            stats.dead_loops.append(f"{t.get_name()}: still running 30 s after the end")
    results = await asyncio.gather(*tasks, return_exceptions=True)
    for t, r in zip(tasks, results, strict=True):
        if isinstance(r, BaseException) and not isinstance(r, asyncio.CancelledError):
            stats.dead_loops.append(f"{t.get_name()}: {r!r}")
    return stats


def run(
    clients: int = 200,
    games: int = 50,
    seconds: float = 30.0,
    game: str = "mixed",
    think: float = 1.0,
    bots: tuple[str, ...] = ("random",),
    console: Console | None = None,
    cluster: ClusterSpec | None = None,
) -> Stats:
    """Start a server (or a ``cluster`` of workers), drive it, print the figures;
    ``Stats.ok`` tells whether nothing failed."""
    console = console or Console()
    if game not in (*GAMES, "mixed"):
        raise SystemExit(f"--game must be scout, schmaus or mixed, not {game!r}")
    if games < 1 or clients < games:
        raise SystemExit("need at least one game and at least one client per game")
    try:
        plans = [plan_tables(g, clients // games, bots) for g in (GAMES if game == "mixed" else (game,))]
    except (ValueError, RulesError) as exc:
        raise SystemExit(str(exc)) from None
    if cluster is not None and cluster.workers < 1:
        raise SystemExit("--workers: at least 1")
    with tempfile.TemporaryDirectory() as folder:
        procs: list[subprocess.Popen[bytes]] = []
        bases: list[str] = []
        try:
            for _ in range(cluster.workers if cluster is not None else 1):
                proc, base = _start_server(folder, cluster)
                procs.append(proc)
                bases.append(base)
            meters = [_CpuMeter(p.pid) for p in procs]
            stats = asyncio.run(_drive(bases, plans, games, seconds, console, think, meters))
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
                _clean(cluster)
    _report(console, stats, plans, games, think, cluster)
    return stats


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
    plans: list[Tables],
    games: int,
    think: float,
    cluster: ClusterSpec | None = None,
) -> None:
    p = plans[0]
    bots = ", ".join(p.bots) if p.bots else "none"
    connected = games * (p.people + p.spectators)
    if cluster is not None:
        console.print(
            f"cluster: {cluster.workers} worker(s) on PostgreSQL and Redis, every game's clients "
            "spread over the workers"
        )
    console.print(
        f"{games} games at a time ({'/'.join(pl.game for pl in plans)}), {connected} clients: "
        f"{p.people} person(s) and {p.spectators} spectator(s) per game; bots per game: {bots} "
        f"(no delay); think time {think:g} s on average (0: every client answers at once); "
        f"{stats.elapsed:.1f} s"
    )
    lat = stats.latencies
    if lat:
        ms = [x * 1000 for x in lat]
        console.print(
            f"people's moves: {len(lat)} ({len(lat) / stats.elapsed:.0f}/s); all moves (bots' too): "
            f"{stats.moves_total} ({stats.moves_total / stats.elapsed:.0f}/s); "
            f"games finished: {stats.games_done} of {stats.games_started}"
        )
        console.print(
            f"act → state latency of people's moves: p50 {statistics.median(ms):.1f} ms, "
            f"p90 {_percentile(ms, 90):.1f} ms, p99 {_percentile(ms, 99):.1f} ms, max {max(ms):.1f} ms"
        )
    else:
        console.print("[red]no moves measured")
    per_cpu = stats.moves_total / stats.server_cpu if stats.server_cpu > 0 else 0.0
    servers = "workers (together)" if cluster is not None else "server"
    console.print(
        f"CPU: {servers} {stats.server_cpu:.1f} s ({100 * stats.server_cpu / max(stats.elapsed, 1e-9):.0f}% "
        f"of one core; {per_cpu:.0f} moves per server CPU second), bot workers {stats.bots_cpu:.1f} s, "
        f"clients {stats.client_cpu:.1f} s"
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
