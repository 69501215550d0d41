"""``spieltisch bench server``: many games over real WebSockets against a uvicorn subprocess.

The server runs in its own process (SQLite in a temporary folder, bots with
no delay). Each game has ``clients / games`` human seats, each played by a
client that answers every state with a random legal action at once, plus one
random bot while there is room at the table. A finished game is replaced by a
new one until the time is up. Latency is measured per move: from sending an
``act`` (with a ``ref``) to receiving the ``state`` that acknowledges it.
"""

from __future__ import annotations

import asyncio
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
from dataclasses import dataclass, field
from typing import Any

import httpx
import websockets
from rich.console import Console
from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn


@dataclass
class Stats:
    latencies: list[float] = field(default_factory=list)
    errors: dict[str, int] = field(default_factory=dict)
    games_done: int = 0
    games_started: int = 0


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def _start_server(folder: str) -> tuple[subprocess.Popen[bytes], str]:
    port = _free_port()
    env = {
        **os.environ,
        "SPIELTISCH_DATABASE": f"sqlite:///{folder}/bench.db",
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
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"the server exited with code {proc.returncode}")
        try:
            if httpx.get(f"{base}/api/games", timeout=1).status_code == 200:
                return proc, base
        except httpx.HTTPError:
            time.sleep(0.1)
    proc.terminate()
    raise RuntimeError("the server did not come up within 20 s")


async def _client(
    url: str,
    hello: dict[str, Any],
    rng: random.Random,
    stats: Stats,
    deadline: float,
    refs: itertools.count[int],
    think: float,
) -> None:
    sent: dict[str, float] = {}
    async with websockets.connect(url, max_size=None) as ws:
        await ws.send(json.dumps(hello))  # the seat and secret, never in the URL
        async for raw in ws:
            msg: dict[str, Any] = json.loads(raw)
            now = time.perf_counter()
            if msg["type"] == "error":
                stats.errors[msg["code"]] = stats.errors.get(msg["code"], 0) + 1
                sent.pop(msg.get("ref", ""), None)
                if msg["code"] == "rate_limited":  # the act was dropped: wait, then ask for the state again
                    await asyncio.sleep(0.1)
                    await ws.send(json.dumps({"type": "sync"}))
                continue
            if msg["type"] != "state":
                continue
            ack = msg.get("ack")
            if ack is not None and ack in sent:
                stats.latencies.append(now - sent.pop(ack))
            if msg["room"]["status"] == "over" or time.monotonic() > deadline:
                return
            if msg["legal"] and not sent:
                if think > 0:  # a person's thinking time, then the move (if still current)
                    await asyncio.sleep(rng.uniform(0.5 * think, 1.5 * think))
                action_id = rng.choice(msg["legal"])[0]
                ref = str(next(refs))
                sent[ref] = time.perf_counter()
                await ws.send(
                    json.dumps({"type": "act", "version": msg["version"], "id": action_id, "ref": ref})
                )


async def _game_loop(
    base: str, ws_base: str, game: str, humans: int, index: int, stats: Stats, deadline: float, think: float
) -> None:
    players = min(5, max(2, humans + 1))
    seats = [{"kind": "human"}] * humans + [{"kind": "bot", "level": "random"}] * (players - humans)
    refs = itertools.count()
    rng = random.Random(index)
    async with httpx.AsyncClient(base_url=base, timeout=30) as http:
        while time.monotonic() < deadline:
            r = await http.post(
                "/api/rooms", json={"game": game, "players": players, "seats": seats, "bot_delay": 0}
            )
            r.raise_for_status()
            room = r.json()
            secrets = {room["seat"]: room["secret"]}
            for seat in range(1, humans):
                j = await http.post(f"/api/rooms/{room['room']}/join", json={"seat": seat})
                j.raise_for_status()
                secrets[seat] = j.json()["secret"]
            stats.games_started += 1
            await asyncio.gather(
                *(
                    _client(
                        f"{ws_base}/ws/{room['room']}",
                        {"type": "hello", "seat": s, "secret": sec},
                        rng,
                        stats,
                        deadline,
                        refs,
                        think,
                    )
                    for s, sec in secrets.items()
                )
            )
            if time.monotonic() < deadline:
                stats.games_done += 1


def _percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(p / 100 * len(ordered)))]


async def _drive(
    base: str, clients: int, games: int, seconds: float, game: str, console: Console, think: float = 0.0
) -> Stats:
    stats = Stats()
    humans = max(1, min(5, clients // games))
    ws_base = base.replace("http://", "ws://")
    deadline = time.monotonic() + seconds
    names = ["scout", "schmaus"] if game == "mixed" else [game]
    tasks = [
        asyncio.create_task(
            _game_loop(base, ws_base, names[i % len(names)], humans, i, stats, deadline, think)
        )
        for i in range(games)
    ]
    columns = (
        TextColumn("[bold]bench server"),
        BarColumn(),
        TextColumn("{task.fields[moves]} moves, {task.fields[rate]:.0f}/s"),
        TimeElapsedColumn(),
        TimeRemainingColumn(),
    )
    start = time.monotonic()
    with Progress(*columns, console=console) as progress:
        bar = progress.add_task("run", total=seconds, moves=0, rate=0.0)
        while not all(t.done() for t in tasks):
            await asyncio.sleep(0.25)
            elapsed = time.monotonic() - start
            n = len(stats.latencies)
            progress.update(bar, completed=min(elapsed, seconds), moves=n, rate=n / max(elapsed, 1e-9))
            if elapsed > seconds + 30:
                break
    for t in tasks:
        if not t.done():
            t.cancel()
    results = await asyncio.gather(*tasks, return_exceptions=True)
    for r in results:
        if isinstance(r, BaseException) and not isinstance(r, asyncio.CancelledError):
            console.print(f"[red]a game loop failed: {r!r}")
    return stats


def run(
    clients: int = 200, games: int = 50, seconds: float = 30.0, game: str = "mixed", think: float = 1.0
) -> Stats:
    """Start a server, drive it, print the figures."""
    console = Console()
    if game not in ("scout", "schmaus", "mixed"):
        raise SystemExit(f"--game must be scout, schmaus or mixed, not {game!r}")
    if games < 1 or clients < games:
        raise SystemExit("need at least one game and at least one client per game")
    with tempfile.TemporaryDirectory() as folder:
        proc, base = _start_server(folder)
        try:
            started = time.monotonic()
            stats = asyncio.run(_drive(base, clients, games, seconds, game, console, think))
            elapsed = time.monotonic() - started
        finally:
            proc.terminate()
            proc.wait(timeout=10)
    humans = max(1, min(5, clients // games))
    lat = stats.latencies
    console.print(
        f"{games} games at a time ({game}), {humans * games} connected clients, "
        f"{min(5, max(2, humans + 1)) - humans} random bot(s) per game (no delay), "
        f"think time {think:g} s on average (0: every client answers at once), {elapsed:.1f} s"
    )
    if not lat:
        console.print("[red]no moves measured")
        return stats
    ms = [x * 1000 for x in lat]
    console.print(
        f"moves by clients: {len(lat)} ({len(lat) / elapsed:.0f}/s); games finished: {stats.games_done}"
    )
    console.print(
        f"act → state latency: p50 {statistics.median(ms):.1f} ms, p90 {_percentile(ms, 90):.1f} ms, "
        f"p99 {_percentile(ms, 99):.1f} ms, max {max(ms):.1f} ms"
    )
    if stats.errors:
        console.print("errors: " + ", ".join(f"{k} {v}" for k, v in sorted(stats.errors.items())))
    return stats
