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
``--resume FILE`` plays the games one deal (four games) at a time and appends each to a
JSON-lines file, continuing after the games already there, so a long run can be stopped
and picked up again (the games are the same as in one run of the same seed).
It prints too each level's wins and, for each level and the next weaker one, the share
of games it finished ahead with a 95% Wilson interval. ``--bootstrap N`` adds a 95%
interval of each level's mu: the games are resampled by deal (the four games of a deal
together) ``N`` times and rated again.
Seeded: the same command prints the same figures on any machine.

    nice -n 19 .venv/bin/python research/bot_ratings.py --game scout --games 200 \
        --resume scout.jsonl --bootstrap 200
"""

from __future__ import annotations

import json
import math
import random
from pathlib import Path
from typing import Annotated, Any

import typer
from openskill.models import PlackettLuce

from spieltisch.lab.runner import run_tasks
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
    resume: Annotated[
        Path | None, typer.Option(help="Play deal by deal, appending to this JSON-lines file.")
    ] = None,
    bootstrap: Annotated[int, typer.Option(help="Resamples (by deal) for 95% intervals.")] = 0,
) -> None:
    if load is not None:
        played = json.loads(load.read_text())
    elif resume is not None:
        played = play_resumable(game, games, seed, resume)
    else:
        result = Tournament.create(game, list(LEVELS), games=games, seed=seed).run(workers=workers)
        played = [{"seats": [LEVELS[e] for e in g.seating], "scores": list(g.scores)} for g in result.games]
    if save is not None:
        save.write_text(json.dumps(played))
    table = rate(played, orders, seed)
    report: dict[str, Any] = {"game": game, "games": len(played), "seed": seed, "ratings": table}
    report["wins"] = wins(played)
    report["ahead"] = ahead(played)
    if bootstrap:
        report["intervals"] = intervals(played, bootstrap, seed)
    print(json.dumps(report))


def play_resumable(game: str, games: int, seed: int, path: Path) -> list[dict[str, list[Any]]]:
    """The tournament's games from ``path`` and, after them, the rest played one deal at a
    time, each deal's games appended (flushed) as soon as they are over."""
    played = [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []
    tasks = Tournament.create(game, list(LEVELS), games=games, seed=seed).tasks()
    players = len(LEVELS)
    if len(played) % players:
        raise typer.BadParameter(f"{path} holds {len(played)} games, not whole deals of {players}")
    for start in range(len(played), len(tasks), players):
        block = run_tasks(tasks[start : start + players], workers=1)
        new = [{"seats": [LEVELS[e] for e in g.seating], "scores": list(g.scores)} for g in block]
        with path.open("a") as out:
            out.writelines(json.dumps(g) + "\n" for g in new)
        played.extend(new)
    return played


def wins(played: list[dict[str, list[Any]]]) -> dict[str, float]:
    """Games won per level; a shared first place shares the win."""
    out = dict.fromkeys(LEVELS, 0.0)
    for g in played:
        ranks = ranks_of(g["scores"])
        first = [level for level, r in zip(g["seats"], ranks, strict=True) if r == 1]
        for level in first:
            out[level] += 1 / len(first)
    return {level: round(w, 2) for level, w in out.items()}


def wilson(k: float, n: int, z: float = 1.96) -> list[float]:
    """The Wilson score interval (95%) of a share ``k`` of ``n``."""
    if n == 0:
        return [0.0, 1.0]
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return [round(max(0.0, centre - half), 3), round(min(1.0, centre + half), 3)]


def ahead(played: list[dict[str, list[Any]]]) -> dict[str, list[float]]:
    """For each level and the next weaker one (``"hard>medium"``): the share of games in
    which it finished ahead (a shared place counts half), with its 95% Wilson interval -
    what separates the levels' ratings."""
    out = {}
    for strong, weak in zip(LEVELS[:0:-1], LEVELS[-2::-1], strict=True):
        k = 0.0
        for g in played:
            place = dict(zip(g["seats"], ranks_of(g["scores"]), strict=True))
            k += 1.0 if place[strong] < place[weak] else 0.5 if place[strong] == place[weak] else 0.0
        out[f"{strong}>{weak}"] = [round(k / len(played), 3), *wilson(k, len(played))]
    return out


def intervals(
    played: list[dict[str, list[Any]]], resamples: int, seed: int, orders: int = 5
) -> dict[str, list[float]]:
    """A 95% percentile interval of each level's mu: the deals (the ``len(LEVELS)``
    consecutive games sharing one deal) resampled with replacement and rated again
    (``orders`` shuffled orders each)."""
    players = len(LEVELS)
    deals = [played[i : i + players] for i in range(0, len(played), players)]
    rng = random.Random(seed)
    mus: dict[str, list[float]] = {level: [] for level in LEVELS}
    for _ in range(resamples):
        sample = [g for _ in deals for g in rng.choice(deals)]
        for level, (mu, _sigma) in rate(sample, orders, rng.randrange(2**31)).items():
            mus[level].append(mu)
    out = {}
    for level, values in mus.items():
        values.sort()
        low = values[int(0.025 * (len(values) - 1))]
        high = values[round(0.975 * (len(values) - 1))]
        out[level] = [round(low, 2), round(high, 2)]
    return out


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
