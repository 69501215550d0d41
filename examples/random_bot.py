#!/usr/bin/env python3
"""A complete Spieltisch bot: plays a random legal action (bot protocol 1).

Standard library only - it does not import spieltisch. Usage::

    spieltisch play scout --seat 2="cmd:python examples/random_bot.py 42"

The optional argument seeds the random choices. Protocol: one JSON object per
line on stdin and stdout (see docs/bot-protocol.md); log to stderr only.
"""

from __future__ import annotations

import json
import random
import sys


def send(message: dict[str, object]) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def main() -> int:
    seed = int(sys.argv[1]) if len(sys.argv) > 1 else None
    rng = random.Random(seed)
    for line in sys.stdin:
        if not line.strip():
            continue
        message = json.loads(line)
        kind = message.get("type")
        if kind == "hello":
            if message.get("protocol") != 1:
                print(f"random_bot: unsupported protocol {message.get('protocol')}", file=sys.stderr)
                return 1
            if seed is None:  # no seed given: use the one the table suggests
                rng.seed(f"{message.get('seed')}/{message.get('seat')}")
            send({"type": "ready", "name": "random_bot.py"})
        elif kind == "decide":
            choice = rng.choice(message["legal"])
            send({"type": "action", "id": choice["id"]})
        elif kind == "error":
            print(f"random_bot: the table refused an answer: {message.get('message')}", file=sys.stderr)
        elif kind in ("game_over", "quit"):
            return 0
        # Any other message type is ignored, as the protocol asks.
    return 0


if __name__ == "__main__":
    sys.exit(main())
