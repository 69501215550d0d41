"""Calibrate the built-in bots' fixed ratings at the web table (docs/accounts.md, "Bot ratings").

    .venv/bin/python research/bot_ratings.py --game scout --games 200
    .venv/bin/python research/bot_ratings.py --game schmaus --games 200 --workers 2

Plays a lab tournament (``spieltisch.lab.tournament``) of the four levels at one table
(random, easy, medium, hard; duplicate deals, every level in every seat) and rates every
game's finishing order with the server's rating model (OpenSkill Weng-Lin,
Plackett-Luce, :mod:`spieltisch.server.ratings`), from the model's start for every level.
The games are rated in several passes (shuffled, with the ratings carried over) so that
the order of the games does not decide; the last pass's μ and σ are printed as the table
``spieltisch.server.ratings.BOT_RATINGS`` holds. Seeded: the same command prints the same
figures on any machine.
"""

from __future__ import annotations

import json
import random
from typing import Annotated

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
    passes: Annotated[int, typer.Option(help="Rating passes over the games.")] = 5,
    workers: Annotated[int, typer.Option(help="Processes that play the games.")] = 1,
) -> None:
    result = Tournament.create(game, list(LEVELS), games=games, seed=seed).run(workers=workers)
    model = PlackettLuce()
    ratings = {level: model.rating() for level in LEVELS}
    rng = random.Random(seed)
    order = list(result.games)
    for _ in range(passes):
        rng.shuffle(order)
        for g in order:
            seats = [LEVELS[entry] for entry in g.seating]
            ranks = [float(r) for r in ranks_of(g.scores)]
            rated = model.rate([[ratings[level]] for level in seats], ranks=ranks)
            for level, (new,) in zip(seats, rated, strict=True):
                ratings[level] = new
    table = {level: [round(r.mu, 2), round(r.sigma, 2)] for level, r in ratings.items()}
    print(json.dumps({"game": game, "games": len(result.games), "seed": seed, "ratings": table}))


if __name__ == "__main__":
    typer.run(main)
