#!/usr/bin/env python3
"""A remote bot: sits at a seat of a web table over the network (docs/bot-protocol.md, "Remote bots").

Standard library plus ``websockets`` - it does not import spieltisch. Open a
room with a ``remote`` seat, which returns the seat's bot token::

    curl -s localhost:8000/api/rooms -H 'content-type: application/json' \\
      -d '{"game": "scout", "players": 2, "seats": [{"kind": "human"}, {"kind": "remote", "name": "Randy"}]}'
    # -> {"room": "K7QX2M", ..., "remote": [{"seat": 1, "token": "…"}]}

then run the bot with the token in the environment (never on the command
line, where other users of the machine can read it)::

    SPIELTISCH_BOT_TOKEN=… python examples/remote_bot.py ws://localhost:8000 K7QX2M 1

It connects to ``/ws/ROOM`` with the seat and token in the handshake headers,
and whenever a ``state`` lists legal actions for its seat it answers with an
``act`` - a random legal action id here; put your engine in :func:`choose`.
It reconnects after a dropped connection and exits when the game is over.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import sys
from typing import Any

import websockets


def choose(state: dict[str, Any], rng: random.Random) -> int:
    """The action id to play: ``state["view"]`` is what this seat sees, ``state["legal"]``
    the ``[id, notation]`` pairs it may play now."""
    action_id, _notation = rng.choice(state["legal"])
    return int(action_id)


async def play(url: str, room: str, seat: int, token: str, rng: random.Random) -> int | None:
    """Play until the game is over; returns the number of actions sent (``None``: refused)."""
    headers = {"Spieltisch-Seat": str(seat), "Spieltisch-Secret": token}
    sent = 0
    failures = 0
    while True:
        try:
            async with websockets.connect(
                f"{url}/ws/{room}", additional_headers=headers, max_size=None
            ) as ws:
                failures = 0
                async for raw in ws:
                    msg = json.loads(raw)
                    if msg["type"] == "error":
                        print(f"remote_bot: {msg['code']}: {msg['message']}", file=sys.stderr)
                        if msg["code"] in ("forbidden", "no_room"):
                            return None  # a wrong token or room: retrying will not help
                        if msg["code"] == "rate_limited":
                            await asyncio.sleep(0.5)
                            await ws.send(json.dumps({"type": "sync"}))
                        continue  # e.g. stale: a fresh state follows
                    if msg["type"] != "state":
                        continue
                    if msg["room"]["status"] == "over":
                        outcome = msg["room"]["outcome"]
                        print(f"remote_bot: game over, scores {outcome['scores']}", file=sys.stderr)
                        return sent
                    if msg["legal"]:
                        action = {"type": "act", "version": msg["version"], "id": choose(msg, rng)}
                        await ws.send(json.dumps(action))
                        sent += 1
        except (OSError, websockets.ConnectionClosed) as exc:
            failures += 1
            if failures > 5:
                print(f"remote_bot: giving up after {failures} failed connections: {exc}", file=sys.stderr)
                return sent
            await asyncio.sleep(min(10.0, 0.5 * 2**failures))


def main() -> int:
    parser = argparse.ArgumentParser(description="Play a seat of a Spieltisch web table.")
    parser.add_argument("server", help="the table's WebSocket address, e.g. ws://localhost:8000")
    parser.add_argument("room", help="the room code")
    parser.add_argument("seat", type=int, help="the remote seat (0-based)")
    parser.add_argument("--seed", type=int, default=None, help="seed of the random choices")
    args = parser.parse_args()
    token = os.environ.get("SPIELTISCH_BOT_TOKEN")
    if not token:
        parser.error("set SPIELTISCH_BOT_TOKEN to the seat's bot token")
    sent = asyncio.run(play(args.server.rstrip("/"), args.room, args.seat, token, random.Random(args.seed)))
    if sent is None:
        return 1
    print(f"remote_bot: sent {sent} action(s)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
