"""The previous release's store, frozen: its tables exactly as release f4cd395
made them (``metadata.create_all``, no version table, no ``rules_version``) and
a few games it stored (``data/previous_release.json``), for the migration tests.

Never change these definitions: they are what databases in the field hold.
``python tests/server/previous_release.py`` rewrote the JSON once, from games
played by that release's engines; it is kept as data, not regenerated.
"""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path
from typing import Any

from sqlalchemy import (
    BigInteger,
    Boolean,
    Column,
    Float,
    ForeignKey,
    Integer,
    MetaData,
    String,
    Table,
    Text,
    create_engine,
)

DATA = Path(__file__).resolve().parent / "data" / "previous_release.json"
SECRETS = {0: "previous-release-seat-0", 1: "previous-release-seat-1"}
"""The secrets of the human seats of the stored games (stored as SHA-256 hashes)."""


def tables(prefix: str = "") -> MetaData:
    """The tables of release f4cd395 (server/store.py, ``Store.__init__``)."""
    md = MetaData()
    Table(
        f"{prefix}rooms",
        md,
        Column("code", String(16), primary_key=True),
        Column("game", String(32), nullable=False),
        Column("players", Integer, nullable=False),
        Column("options", Text, nullable=False),
        Column("seed", BigInteger, nullable=False),
        Column("bot_delay", Float, nullable=False),
        Column("status", String(16), nullable=False, index=True),
        Column("rematch", String(16), nullable=True),
        Column("rematch_of", String(16), nullable=True),
        Column("created", Float, nullable=False),
    )
    Table(
        f"{prefix}seats",
        md,
        Column("room", String(16), ForeignKey(f"{prefix}rooms.code"), primary_key=True),
        Column("seat", Integer, primary_key=True),
        Column("kind", String(8), nullable=False),
        Column("level", String(64), nullable=True),
        Column("name", String(64), nullable=True),
        Column("secret_hash", String(128), nullable=True),
        Column("taken", Boolean, nullable=False),
        Column("claim_from", String(16), nullable=True),
    )
    Table(
        f"{prefix}actions",
        md,
        Column("room", String(16), ForeignKey(f"{prefix}rooms.code"), primary_key=True),
        Column("idx", Integer, primary_key=True),
        Column("seat", Integer, nullable=False),
        Column("text", String(256), nullable=False),
    )
    return md


def rows() -> dict[str, list[dict[str, Any]]]:
    """The stored games: ``{"rooms": [...], "seats": [...], "actions": [...]}``."""
    data: dict[str, list[dict[str, Any]]] = json.loads(DATA.read_text(encoding="utf-8"))
    return data


def make(url: str, prefix: str = "") -> None:
    """A database as the previous release left it: its tables with its games in them."""
    md = tables(prefix)
    engine = create_engine(url)
    try:
        md.create_all(engine)
        with engine.begin() as conn:
            for name, table_rows in rows().items():
                conn.execute(md.tables[f"{prefix}{name}"].insert(), table_rows)
    finally:
        engine.dispose()


def drop(url: str, prefix: str) -> None:
    engine = create_engine(url)
    try:
        tables(prefix).drop_all(engine)
    finally:
        engine.dispose()


def _generate() -> dict[str, list[dict[str, Any]]]:  # pragma: no cover - wrote data/ once
    import hashlib

    from spieltisch.engine import get_game

    def secret_hash(seat: int) -> str:
        return hashlib.sha256(SECRETS[seat].encode()).hexdigest()

    out: dict[str, list[dict[str, Any]]] = {"rooms": [], "seats": [], "actions": []}

    def room(
        code: str,
        game: str,
        players: int,
        options: dict[str, Any],
        seed: int,
        status: str,
        seats: list[dict[str, Any]],
        moves: int | None,
    ) -> None:
        state = get_game(game).new_state(players, seed, options)
        rng = random.Random(seed)
        log: list[tuple[int, str]] = []
        while moves is None or len(log) < moves:
            if state.is_over():
                break
            seat = state.to_move()[0]
            action = state.action_from_id(rng.choice(state.legal_action_ids(seat))).to_text()
            state.apply(seat, action)
            log.append((seat, action))
        assert (status == "over") == state.is_over()
        out["rooms"].append(
            {
                "code": code,
                "game": game,
                "players": players,
                "options": json.dumps(options),
                "seed": seed,
                "bot_delay": 0.0,
                "status": status,
                "rematch": None,
                "rematch_of": None,
                "created": 1_790_000_000.0 + len(out["rooms"]),
            }
        )
        for i, s in enumerate(seats):
            out["seats"].append(
                {
                    "room": code,
                    "seat": i,
                    "kind": s["kind"],
                    "level": s.get("level"),
                    "name": s.get("name"),
                    "secret_hash": secret_hash(i) if s.get("taken") and s["kind"] == "human" else None,
                    "taken": bool(s.get("taken")),
                    "claim_from": None,
                }
            )
        out["actions"].extend({"room": code, "idx": i, "seat": s, "text": t} for i, (s, t) in enumerate(log))

    human = {"kind": "human", "name": "Ada", "taken": True}
    human2 = {"kind": "human", "name": "Bert", "taken": True}
    bot = {"kind": "bot", "level": "random", "taken": True}
    room("SCTEND", "scout", 3, {}, 41, "over", [human, bot, bot], None)
    room("SCHMPL", "schmaus", 3, {"rounds": 10}, 42, "playing", [human, human2, bot], 12)
    room("SCTPLA", "scout", 3, {}, 43, "playing", [human, human2, bot], 9)
    room("WARTEN", "scout", 4, {}, 44, "waiting", [human, {"kind": "human"}, {"kind": "human"}, bot], 0)
    return out


if __name__ == "__main__":  # pragma: no cover
    DATA.write_text(json.dumps(_generate(), indent=1) + "\n", encoding="utf-8")
    sys.exit(0)
