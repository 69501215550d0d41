"""Measure a Waschbär-Schmaus bot level against another: win rate with a 95 % Wilson interval.

One candidate bot plays ``--players - 1`` copies of the opponent level. Game
``i`` uses seed ``i`` (from ``--first-seed``) and seats the candidate at
``i mod players``, so every seat is played equally often. A tied game counts
as a win for each tied winner (W-18), so the fair share is ``1 / players``.

    .venv/bin/python scripts/measure_schmaus_bots.py --bot hard --against medium --games 2000
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TaskProgressColumn,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)

from spieltisch.bots import LEVELS, Bot, Budget, View, make_bot
from spieltisch.match import play_match

app = typer.Typer(add_completion=False)
console = Console()


class TimedBot(Bot):
    """Wraps a bot and adds up the time it thinks."""

    def __init__(self, inner: Bot) -> None:
        super().__init__(inner.game_name, inner.seat, inner.seed, inner.budget)
        self.inner = inner
        self.seconds = 0.0
        self.moves = 0

    def choose(self, view: View, legal: Sequence[int]) -> int:
        start = time.perf_counter()
        choice = self.inner.choose(view, legal)
        self.seconds += time.perf_counter() - start
        self.moves += 1
        return choice


@dataclass(frozen=True)
class GameResult:
    won: bool
    seconds: float
    moves: int
    faults: int


def play_one(
    bot: str,
    against: str,
    players: int,
    seed: int,
    options: dict[str, Any] | None,
    iterations: int | None = None,
) -> GameResult:
    """One game with the candidate in seat ``seed mod players`` (its budget's
    iteration count ``iterations``, or the level's default)."""
    seat = seed % players
    budget = Budget(iterations=iterations) if iterations else None
    candidate = TimedBot(make_bot("schmaus", bot, seat, seed, budget))
    bots = [candidate if s == seat else make_bot("schmaus", against, s, seed) for s in range(players)]
    result = play_match("schmaus", bots, seed, options)
    outcome = result.state.outcome()
    assert outcome is not None
    return GameResult(seat in outcome.winners, candidate.seconds, candidate.moves, sum(result.faults))


def _play_chunk(
    args: tuple[str, str, int, list[int], dict[str, Any] | None, int | None],
) -> list[GameResult]:
    bot, against, players, seeds, options, iterations = args
    return [play_one(bot, against, players, seed, options, iterations) for seed in seeds]


def wilson(wins: int, games: int, z: float = 1.96) -> tuple[float, float]:
    """The Wilson score interval of a win rate (95 % for z = 1.96)."""
    if games == 0:
        return 0.0, 1.0
    p = wins / games
    denominator = 1 + z * z / games
    centre = (p + z * z / (2 * games)) / denominator
    half = z * math.sqrt(p * (1 - p) / games + z * z / (4 * games * games)) / denominator
    return centre - half, centre + half


@app.command()
def main(
    bot: Annotated[str, typer.Option(help="candidate level (random, easy, medium, hard)")] = "hard",
    against: Annotated[str, typer.Option(help="level of every other seat")] = "medium",
    players: Annotated[int, typer.Option(min=2, max=5, help="players per game (W-1)")] = 4,
    games: Annotated[int, typer.Option(min=1, help="number of games (seeds first-seed ..)")] = 1000,
    first_seed: Annotated[int, typer.Option(min=0, help="seed of the first game")] = 0,
    workers: Annotated[int, typer.Option(min=1, max=2, help="processes (the machine is shared)")] = 2,
    options: Annotated[str, typer.Option(help='rule options as JSON, e.g. {"hunter_draw": "nobody"}')] = "",
    iterations: Annotated[
        int, typer.Option(min=0, help="the candidate's samples per decision (0: the level's default)")
    ] = 0,
) -> None:
    """Play the match and print the candidate's win rate, its Wilson 95 % interval,
    the game count and its mean seconds per move."""
    for level in (bot, against):
        if level not in LEVELS:
            raise typer.BadParameter(f"unknown level {level!r}: choose one of {', '.join(LEVELS)}")
    try:
        rule_options = json.loads(options) if options else None
    except json.JSONDecodeError as exc:
        raise typer.BadParameter(f"--options is not valid JSON: {exc}") from exc
    if rule_options is not None and not isinstance(rule_options, dict):
        raise typer.BadParameter("--options must be a JSON object")
    seeds = list(range(first_seed, first_seed + games))
    chunk = max(1, min(25, games // (workers * 8) or 1))
    jobs = [
        (bot, against, players, seeds[i : i + chunk], rule_options, iterations or None)
        for i in range(0, games, chunk)
    ]
    results: list[GameResult] = []
    columns = (
        TextColumn(f"[bold]{bot} vs {players - 1}× {against}"),
        BarColumn(),
        MofNCompleteColumn(),
        TaskProgressColumn(),
        TextColumn("{task.fields[rate]}"),
        TimeElapsedColumn(),
        TimeRemainingColumn(),
    )
    start = time.perf_counter()
    with Progress(*columns, console=console) as progress:
        task = progress.add_task("games", total=games, rate="")
        with ProcessPoolExecutor(max_workers=workers) as pool:
            for done in pool.map(_play_chunk, jobs):
                results.extend(done)
                wins = sum(r.won for r in results)
                elapsed = time.perf_counter() - start
                progress.update(
                    task,
                    advance=len(done),
                    rate=f"{len(results) / elapsed:.1f} games/s, win {wins / len(results):.1%}",
                )
    wins = sum(r.won for r in results)
    low, high = wilson(wins, games)
    moves = sum(r.moves for r in results)
    seconds = sum(r.seconds for r in results)
    fair = 1 / players
    verdict = "above" if low > fair else "below" if high < fair else "not distinguishable from"
    console.print(f"{bot} vs {players - 1}× {against}, {players} players, seeds {seeds[0]}..{seeds[-1]}")
    console.print("ties count as a win for each tied winner (W-18); the candidate's seat rotates")
    console.print(f"games: {games}")
    console.print(f"win rate: {wins / games:.4f} ({wins} wins)")
    console.print(f"Wilson 95% interval: [{low:.4f}, {high:.4f}] ({verdict} the fair share {fair:.4f})")
    console.print(f"mean seconds per move ({bot}): {seconds / max(1, moves):.6f} over {moves} moves")
    console.print(f"decisions per second ({bot}): {moves / seconds if seconds else float('inf'):.0f}")
    faults = sum(r.faults for r in results)
    if faults:
        console.print(f"[red]faults (illegal or failed answers replaced at random): {faults}[/red]")


if __name__ == "__main__":
    app()
