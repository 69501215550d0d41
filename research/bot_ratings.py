"""Calibrate the built-in bots' fixed ratings at the web table (docs/accounts.md, "Bot ratings").

    .venv/bin/python research/bot_ratings.py --game scout --games 200
    .venv/bin/python research/bot_ratings.py --game schmaus --games 200 --workers 2

Plays a lab tournament (``spieltisch.lab.tournament``) of the four levels at one table
(random, easy, medium, hard; duplicate deals, every level in every seat) and rates every
game's finishing order with the server's rating model (OpenSkill Weng-Lin,
Plackett-Luce, :mod:`spieltisch.server.ratings`), from the model's start for every level,
as a sequence of rated games would: one pass, in ``--orders`` shuffled orders, and prints
the mean μ and σ per level, the table ``spieltisch.server.ratings.BOT_RATINGS`` holds.
``--save`` keeps the games' seats and scores, ``--load`` rates a saved set again.
Seeded: the same command prints the same figures on any machine.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Annotated, Any

import typer
from openskill.models import PlackettLuce

from spieltisch.lab.tournament import Tournament
from spieltisch.server.ratings import ranks_of

LEVELS = ("random", "easy", "medium", "hard")


def main(
    game: Annotated[str, typer.Option(help="scout or schmaus")] = "scout",
    games: Annotated[
        int, typer.Option(help="Games in the tournament (rounded up to a multiple of 4).")
    ] = 200,
    seed: Annotated[int, typer.Option(help="The tournament's first seed.")] = 1,
    orders: Annotated[int, typer.Option(help="Shuffled orders the games are rated in.")] = 20,
    workers: Annotated[int, typer.Option(help="Processes that play the games.")] = 1,
    save: Annotated[Path | None, typer.Option(help="Write the games' seats and scores (JSON).")] = None,
    load: Annotated[Path | None, typer.Option(help="Rate the games of a --save file.")] = None,
) -> None:
    if load is not None:
        played = json.loads(load.read_text())
    else:
        result = Tournament.create(game, list(LEVELS), games=games, seed=seed).run(workers=workers)
        played = [{"seats": [LEVELS[e] for e in g.seating], "scores": list(g.scores)} for g in result.games]
    if save is not None:
        save.write_text(json.dumps(played))
    table = rate(played, orders, seed)
    print(json.dumps({"game": game, "games": len(played), "seed": seed, "ratings": table}))


def rate(played: list[dict[str, list[Any]]], orders: int, seed: int) -> dict[str, list[float]]:
    """Each level's mean mu and sigma over ``orders`` shuffled orders of one pass each: every
    order rates the games as a sequence of rated games would (from the model's start), and
    the mean takes out which games happened to come last."""
    model = PlackettLuce()
    rng = random.Random(seed)
    sums = {level: [0.0, 0.0] for level in LEVELS}
    for _ in range(orders):
        ratings = {level: model.rating() for level in LEVELS}
        order = list(played)
        rng.shuffle(order)
        for g in order:
            seats = g["seats"]
            ranks = [float(r) for r in ranks_of(g["scores"])]
            rated = model.rate([[ratings[level]] for level in seats], ranks=ranks)
            for level, (new,) in zip(seats, rated, strict=True):
                ratings[level] = new
        for level, r in ratings.items():
            sums[level][0] += r.mu / orders
            sums[level][1] += r.sigma / orders
    return {level: [round(mu, 2), round(sigma, 2)] for level, (mu, sigma) in sums.items()}


if __name__ == "__main__":
    typer.run(main)
