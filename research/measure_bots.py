"""Measure one bot against copies of another: win rate with a Wilson 95% interval.

    .venv/bin/python research/measure_bots.py --game scout --players 4 --bot hard --against medium --games 200
    .venv/bin/python research/measure_bots.py --game scout --players 5 --bot hard@v7 --log v7.jsonl
    .venv/bin/python research/measure_bots.py --game schmaus --bot hard:samples=256 --games 2000

Bots are seat specs (``docs/bots.md``), so budgets are counted in work and
every figure is reproducible on any machine. Duplicate deals: game ``i``
deals from seed ``first_seed + i // players`` and seats the measured bot at
``i mod players``, so each deal is played once with the measured bot in
every seat (the game count is rounded up to a multiple of the players). Ties
count as a win for every tied winner (S-12, W-18), so the fair share is
``1 / players``. Prints the win rate, its interval, the game count, the seeds
and the measured bot's CPU seconds per decision (``time.process_time``, one
core: the figure does not depend on the machine's load). Two ``--log`` files of
the same ``--game``, ``--players``, ``--games`` and ``--first-seed`` hold the same
deals and seats game by game: ``research/paired.py`` gives their paired difference.
"""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Annotated, Any

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

from spieltisch.bots import Bot, View, check_spec, make_bot
from spieltisch.bots.match import play_match
from spieltisch.lab.stats import wilson

app = typer.Typer(add_completion=False)


@dataclass(frozen=True)
class GameResult:
    index: int
    won: bool
    decisions: int
    cpu: float
    slowest: float
    faults: int


class _Timed(Bot):
    """Wraps the measured bot to add up the CPU time of its decisions."""

    def __init__(self, inner: Bot) -> None:
        super().__init__(inner.game_name, inner.seat, inner.seed, inner.budget)
        self.inner = inner
        self.cpu = 0.0
        self.slowest = 0.0
        self.calls = 0

    def choose(self, view: View, legal: Sequence[int]) -> int:
        t = time.process_time()
        try:
            return self.inner.choose(view, legal)
        finally:
            spent = time.process_time() - t
            self.cpu += spent
            self.slowest = max(self.slowest, spent)
            self.calls += 1


def play_one(
    game: str,
    index: int,
    players: int,
    bot: str,
    against: str,
    first_seed: int,
    options: dict[str, Any] | None,
) -> GameResult:
    seat = index % players
    seed = first_seed + index // players
    timed = _Timed(make_bot(game, bot, seat, seed))
    bots = [timed if s == seat else make_bot(game, against, s, seed) for s in range(players)]
    result = play_match(game, bots, seed, options)
    outcome = result.state.outcome()
    assert outcome is not None
    return GameResult(
        index, seat in outcome.winners, timed.calls, timed.cpu, timed.slowest, sum(result.faults)
    )


@app.command()
def main(
    game: Annotated[str, typer.Option(help="scout or schmaus")] = "scout",
    players: Annotated[int, typer.Option(min=2, max=5, help="Players per game.")] = 4,
    games: Annotated[int, typer.Option(min=1, help="Games (rounded up to a multiple of --players).")] = 200,
    bot: Annotated[str, typer.Option(help="Seat spec of the measured bot, e.g. hard or hard@v7.")] = "hard",
    against: Annotated[str, typer.Option(help="Seat spec of every other seat.")] = "medium",
    first_seed: Annotated[int, typer.Option(min=0, help="Deal seed of the first block of games.")] = 0,
    options: Annotated[str, typer.Option(help='Rule options as JSON, e.g. {"hunter_draw": "nobody"}.')] = "",
    workers: Annotated[int, typer.Option(min=1, max=2, help="Worker processes (the machine is shared).")] = 2,
    log: Annotated[Path | None, typer.Option(help="Append a JSON line per finished game here.")] = None,
) -> None:
    console = Console()
    for spec in (bot, against):
        try:
            check_spec(game, spec)
        except ValueError as exc:
            raise typer.BadParameter(str(exc)) from None
    try:
        rule_options = json.loads(options) if options else None
    except json.JSONDecodeError as exc:
        raise typer.BadParameter(f"--options is not valid JSON: {exc}") from None
    if rule_options is not None and not isinstance(rule_options, dict):
        raise typer.BadParameter("--options must be a JSON object")
    games = -(-games // players) * players
    results: list[GameResult] = []
    columns = (
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("{task.fields[rate]}"),
        TimeElapsedColumn(),
        TimeRemainingColumn(),
    )
    start = time.perf_counter()
    with Progress(*columns, console=console) as progress, ProcessPoolExecutor(workers) as pool:
        task = progress.add_task(f"{bot} vs {players - 1}x {against}", total=games, rate="")
        futures = [
            pool.submit(play_one, game, i, players, bot, against, first_seed, rule_options)
            for i in range(games)
        ]
        for fut in futures:
            results.append(fut.result())
            if log is not None:
                with log.open("a") as out:
                    out.write(json.dumps({"bot": bot, "against": against, **asdict(results[-1])}) + "\n")
            wins = sum(r.won for r in results)
            rate = len(results) / (time.perf_counter() - start)
            line = f"{rate:.2f} games/s, won {wins}/{len(results)} = {wins / len(results):.1%}"
            progress.update(task, advance=1, rate=line)
            if not console.is_terminal and (len(results) % max(1, games // 20) == 0 or len(results) == games):
                eta = (games - len(results)) / rate if rate else float("inf")
                print(f"{len(results)}/{games} games, {line}, ETA {eta:.0f} s", flush=True)
    wins = sum(r.won for r in results)
    n = len(results)
    lo, hi = wilson(wins, n, 1.96)  # z = 1.96, as the published figures
    decisions = sum(r.decisions for r in results)
    cpu = sum(r.cpu for r in results)
    fair = 1 / players
    verdict = "above" if lo > fair else "below" if hi < fair else "not distinguishable from"
    last = first_seed + (games - 1) // players
    console.print(
        f"{game}: {bot} vs {players - 1}x {against}, {players} players, {n} games "
        f"(deal seeds {first_seed}..{last}, each with the measured bot in every seat)"
    )
    console.print(
        f"won {wins}/{n} = {wins / n:.1%} (Wilson 95% {lo:.1%}-{hi:.1%}; {verdict} the fair share "
        f"{fair:.1%}; a tie counts as a win for every tied winner)"
    )
    console.print(
        f"{bot}: {decisions} decisions, mean {cpu / max(decisions, 1):.4f} CPU s per decision, "
        f"slowest {max(r.slowest for r in results):.3f} s; faults {sum(r.faults for r in results)}"
    )


if __name__ == "__main__":
    app()
