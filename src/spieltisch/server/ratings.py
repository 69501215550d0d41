"""Ratings of accounts per game: OpenSkill's Weng-Lin model (Plackett-Luce), docs/accounts.md.

A rated game (``rooms.rated``: every person's seat is an account's) updates the
ratings of its accounts when it ends, in the same database transaction that stores
its last action (:func:`game_end_write`, given to
:meth:`~spieltisch.server.store.Store.append_actions` as ``also``): a game is never
over without its ratings, nor rated without being over. The built-in bots take part
at fixed ratings (:data:`BOT_RATINGS`, calibrated with ``research/bot_ratings.py``) that
no game changes, so that a newcomer's rating is on the bots' scale: "medium" means
something. A rating is shown as its *ordinal* ``mu - 3 sigma`` (a conservative
estimate that rises as the system becomes sure) and is *provisional* while the
account has played fewer than :data:`PROVISIONAL_GAMES` rated games of that game or
its sigma is above :data:`PROVISIONAL_SIGMA`.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from openskill.models import PlackettLuce
from sqlalchemy import insert, select, update
from sqlalchemy.engine import Connection

from spieltisch.engine import Outcome
from spieltisch.server.store import RoomRow, Store, Write

MODEL = PlackettLuce()
"""Weng-Lin with the Plackett-Luce likelihood: ratings from a multiplayer finishing
order; a new player starts at mu 25, sigma 25/3."""
PROVISIONAL_GAMES = 5
PROVISIONAL_SIGMA = 6.0
BOT_RATINGS: dict[str, dict[str, tuple[float, float]]] = {
    # (mu, sigma) per level, from research/bot_ratings.py (seed 1; docs/accounts.md, "Bot ratings"):
    # Scout --games 200, Waschbär-Schmaus --games 200, each rated in 20 shuffled orders.
    "scout": {
        "random": (-28.55, 4.48),
        "easy": (12.93, 3.64),
        "medium": (50.10, 2.96),
        "hard": (62.27, 3.10),
    },
    "schmaus": {
        "random": (22.33, 2.12),
        "easy": (23.62, 2.10),
        "medium": (25.21, 2.09),
        "hard": (27.73, 2.11),
    },
}
"""The built-in bots' fixed ratings per game and level."""


def ordinal(mu: float, sigma: float) -> float:
    """The rating shown and ranked by: ``mu - 3 sigma``."""
    return mu - 3 * sigma


def provisional(games: int, sigma: float) -> bool:
    return games < PROVISIONAL_GAMES or sigma > PROVISIONAL_SIGMA


def ranks_of(scores: Sequence[int]) -> list[int]:
    """Each seat's finishing place (1 = best; equal totals share a place): higher totals
    are better in both games (S-12, W-18)."""
    return [1 + sum(1 for other in scores if other > s) for s in scores]


def bot_rating(game: str, level: str | None) -> tuple[float, float]:
    return BOT_RATINGS.get(game, {}).get(level or "random", (MODEL.mu, MODEL.sigma))


@dataclass(frozen=True)
class RatingEntry:
    account: str | None
    """None for a bot."""
    name: str
    game: str
    mu: float
    sigma: float
    games: int
    bot: bool = False

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "bot": self.bot,
            "rating": round(ordinal(self.mu, self.sigma), 2),
            "mu": round(self.mu, 3),
            "sigma": round(self.sigma, 3),
            "games": self.games,
            "provisional": False if self.bot else provisional(self.games, self.sigma),
        }


def game_end_write(store: Store, row: RoomRow, outcome: Outcome | None) -> Write | None:
    """The write that rates the finished game ``row`` (None: nothing to rate): run by the
    store's writer in the transaction that stores the game's last action. It reads the
    accounts' current ratings there (locked on PostgreSQL, so that two games ending at
    once on two workers do not lose an update), rates the finishing order and stores each
    account's new rating and its history entry."""
    if not row.rated or outcome is None:
        return None
    t = store.accounts
    seats = list(row.seats)
    ranks = [float(r) for r in ranks_of(outcome.scores)]
    code, game = row.code, row.game

    def write(conn: Connection) -> None:
        now = time.time()
        ids = [s.account for s in seats if s.kind == "human" and s.account is not None]
        existing = set(conn.execute(select(t.accounts.c.id).where(t.accounts.c.id.in_(ids))).scalars())
        current = {
            r.account: (r.mu, r.sigma, r.games)
            for r in conn.execute(
                select(t.ratings)
                .where(t.ratings.c.game == game, t.ratings.c.account.in_(ids))
                .with_for_update()
            )
        }
        teams = []
        for s in seats:
            if s.kind == "bot":
                mu, sigma = bot_rating(game, s.level)
            else:  # an account (or one deleted during the game: rated from the start, not stored)
                mu, sigma, _ = current.get(s.account or "", (MODEL.mu, MODEL.sigma, 0))
            teams.append([MODEL.rating(mu=mu, sigma=sigma)])
        rated = MODEL.rate(teams, ranks=ranks)
        for s, (new,) in zip(seats, rated, strict=True):
            if s.kind != "human" or s.account not in existing:
                continue  # bots keep their fixed ratings
            existing.discard(s.account)  # (one seat per account; joining refuses a second one)
            values = {"mu": new.mu, "sigma": new.sigma, "updated": now}
            if s.account in current:
                games = current[s.account][2] + 1
                conn.execute(
                    update(t.ratings)
                    .where(t.ratings.c.account == s.account, t.ratings.c.game == game)
                    .values(games=games, **values)
                )
            else:
                conn.execute(insert(t.ratings).values(account=s.account, game=game, games=1, **values))
            conn.execute(
                insert(t.rating_history).values(
                    account=s.account, game=game, room=code, mu=new.mu, sigma=new.sigma, at=now
                )
            )

    return write


def leaderboard(store: Store, game: str, limit: int = 100, bots: bool = True) -> list[dict[str, Any]]:
    """The accounts rated at ``game``, best first (by ordinal), with the built-in bots at their
    fixed ratings among them; each with its place."""
    t = store.accounts
    with store.engine.connect() as conn:
        rows = conn.execute(
            select(t.accounts.c.id, t.accounts.c.name, t.ratings.c.mu, t.ratings.c.sigma, t.ratings.c.games)
            .join(t.ratings, t.ratings.c.account == t.accounts.c.id)
            .where(t.ratings.c.game == game)
            .order_by((t.ratings.c.mu - 3 * t.ratings.c.sigma).desc(), t.accounts.c.name)
            .limit(limit)
        ).all()
    entries = [RatingEntry(r.id, r.name, game, r.mu, r.sigma, r.games) for r in rows]
    if bots:
        entries += [
            RatingEntry(None, f"Bot ({level})", game, mu, sigma, 0, bot=True)
            for level, (mu, sigma) in BOT_RATINGS.get(game, {}).items()
        ]
    entries.sort(key=lambda e: (-ordinal(e.mu, e.sigma), e.bot, e.name))
    out = []
    place = 0
    for e in entries:
        if not e.bot:
            place += 1
        out.append({**e.to_json(), "place": place if not e.bot else None})
    return out


def ratings_of(store: Store, account: str) -> list[dict[str, Any]]:
    """An account's ratings, one per game it has played rated, each with its history
    (oldest first: ``room``, ``at``, ``rating``, ``mu``, ``sigma``)."""
    t = store.accounts
    with store.engine.connect() as conn:
        current = conn.execute(select(t.ratings).where(t.ratings.c.account == account)).all()
        history = conn.execute(
            select(t.rating_history)
            .where(t.rating_history.c.account == account)
            .order_by(t.rating_history.c.at, t.rating_history.c.room)
        ).all()
    out = []
    for r in sorted(current, key=lambda r: r.game):
        entry = RatingEntry(account, "", r.game, r.mu, r.sigma, r.games).to_json()
        del entry["name"], entry["bot"]
        entry["game"] = r.game
        entry["history"] = [
            {"room": h.room, "at": h.at, "rating": round(ordinal(h.mu, h.sigma), 2), "mu": round(h.mu, 3),
             "sigma": round(h.sigma, 3)}
            for h in history if h.game == r.game
        ]  # fmt: skip
        out.append(entry)
    return out
