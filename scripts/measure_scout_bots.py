"""Measure a Scout bot level against others: win rate with a Wilson 95% interval.

    .venv/bin/python scripts/measure_scout_bots.py --players 4 --games 300

Game ``i`` uses seed ``i`` and puts the measured bot in seat ``i mod players``;
every other seat plays the opponent level. Ties count as a win for every tied
winner (S-12). Prints the win rate, its Wilson 95% interval, the fair share,
the game count and the measured bot's mean seconds per decision.
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass

import typer
from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)

from spieltisch.bots import Bot, Budget, View, make_bot
from spieltisch.match import play_match

app = typer.Typer(add_completion=False)


@dataclass(frozen=True)
class GameResult:
    seed: int
    won: bool
    decisions: int
    seconds: float
    faults: int


class _Timed(Bot):
    """Wraps the measured bot to time its decisions."""

    def __init__(self, inner: Bot) -> None:
        super().__init__(inner.game_name, inner.seat, inner.seed, inner.budget)
        self.inner = inner
        self.seconds = 0.0
        self.calls = 0

    def choose(self, view: View, legal: Sequence[int]) -> int:
        t = time.perf_counter()
        try:
            return self.inner.choose(view, legal)
        finally:
            self.seconds += time.perf_counter() - t
            self.calls += 1


def play_one(seed: int, players: int, level: str, opponent: str, seconds: float | None) -> GameResult:
    seat = seed % players
    budget = Budget(seconds=seconds) if seconds is not None else None
    timed: _Timed | None = None
    bots: list[Bot] = []
    for s in range(players):
        if s == seat:
            timed = _Timed(make_bot("scout", level, s, seed, budget))
            bots.append(timed)
        else:
            bots.append(make_bot("scout", opponent, s, seed))
    assert timed is not None
    result = play_match("scout", bots, seed)
    outcome = result.state.outcome()
    assert outcome is not None
    return GameResult(seed, seat in outcome.winners, timed.calls, timed.seconds, sum(result.faults))


def wilson(wins: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """Wilson score interval of a proportion."""
    if n == 0:
        return (0.0, 1.0)
    p = wins / n
    d = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / d
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / d
    return (centre - half, centre + half)


@app.command()
def main(
    players: int = typer.Option(4, min=2, max=5, help="Players per game."),
    games: int = typer.Option(200, min=1, help="Games (seeds 0..games-1)."),
    level: str = typer.Option("hard", help="Measured bot level."),
    opponent: str = typer.Option("medium", help="Level of every other seat."),
    seconds: float | None = typer.Option(
        None, help="Seconds per decision of the measured bot (default: its own)."
    ),
    workers: int = typer.Option(2, min=1, max=2, help="Worker processes (the machine is shared: at most 2)."),
) -> None:
    console = Console()
    results: list[GameResult] = []
    columns = (
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("{task.fields[rate]}"),
        TimeElapsedColumn(),
        TimeRemainingColumn(),
    )
    with Progress(*columns, console=console) as progress, ProcessPoolExecutor(workers) as pool:
        task = progress.add_task(f"{level} vs {opponent} ({players}p)", total=games, rate="")
        futures = [pool.submit(play_one, i, players, level, opponent, seconds) for i in range(games)]
        for fut in futures:
            results.append(fut.result())
            wins = sum(r.won for r in results)
            progress.update(task, advance=1, rate=f"wins {wins}/{len(results)}")
    wins = sum(r.won for r in results)
    n = len(results)
    lo, hi = wilson(wins, n)
    decisions = sum(r.decisions for r in results)
    spent = sum(r.seconds for r in results)
    fair = 1 / players
    console.print(
        f"{level} vs {players - 1}x {opponent}, {players} players: won {wins}/{n} games = {wins / n:.1%} "
        f"(Wilson 95% {lo:.1%}-{hi:.1%}; fair share {fair:.1%}; "
        "ties count as wins for every tied winner, S-12)"
    )
    console.print(
        f"{level}: {decisions} decisions, mean {spent / max(decisions, 1):.3f} s per decision; "
        f"faults {sum(r.faults for r in results)}"
    )
    console.print(
        "interval excludes the fair share" if lo > fair or hi < fair else "interval includes the fair share"
    )


if __name__ == "__main__":
    app()
