"""``spieltisch lab tournament``: a line-up of bots over many seeded games.

Seats rotate (game ``g`` uses rotation ``g mod players``), so every bot plays
every seat equally often; with duplicate deals (the default) the games of one
rotation block share their deal, so each bot gets each seat's cards once.
"""

from __future__ import annotations

import csv
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rich import box
from rich.console import Console
from rich.table import Table

from spieltisch.bots import Budget
from spieltisch.engine import get_game
from spieltisch.lab.config import LabError, check_bot_spec, round_up_games, validate_options
from spieltisch.lab.play import Entrant, GameResult, GameTask, game_tasks
from spieltisch.lab.runner import Interrupted, run_tasks
from spieltisch.lab.stats import entrant_name, summarize
from spieltisch.tables import fits, number_column, text_column


@dataclass
class Tournament:
    """A validated tournament: build with :meth:`create`."""

    game: str
    lineup: tuple[Entrant, ...]
    games: int
    seed: int = 1
    options: dict[str, Any] = field(default_factory=dict)
    duplicate: bool = True
    budget: Budget | None = None
    timeout: float = 10.0
    requested_games: int = 0

    @classmethod
    def create(
        cls,
        game: str,
        lineup: Sequence[Entrant],
        games: int,
        seed: int = 1,
        options: Mapping[str, Any] | None = None,
        duplicate: bool = True,
        budget: Budget | None = None,
        timeout: float = 10.0,
    ) -> Tournament:
        """Validate everything (game, player count, bot specs, options); round the
        number of games up to a multiple of the player count."""
        try:
            g = get_game(game)
        except ValueError as exc:
            raise LabError(str(exc)) from exc
        players = len(lineup)
        if not g.min_players <= players <= g.max_players:
            raise LabError(
                f"{g.title} is for {g.min_players} to {g.max_players} players; "
                f"the line-up has {players} bot(s)"
            )
        for entrant in lineup:
            if isinstance(entrant, str):
                check_bot_spec(g.name, entrant)
        validate_options(g.name, players, options or {})
        return cls(
            game=g.name,
            lineup=tuple(lineup),
            games=round_up_games(games, players),
            seed=seed,
            options=dict(options or {}),
            duplicate=duplicate,
            budget=budget,
            timeout=timeout,
            requested_games=games,
        )

    @property
    def players(self) -> int:
        return len(self.lineup)

    def tasks(self, group: str = "", detail: bool = False) -> list[GameTask]:
        return game_tasks(
            self.game, self.lineup, self.options, self.seed, range(self.games),
            self.duplicate, self.budget, self.timeout, detail, group,
        )  # fmt: skip

    def config_json(self) -> dict[str, Any]:
        return {
            "game": self.game,
            "players": self.players,
            "lineup": [entrant_name(e) for e in self.lineup],
            "games": self.games,
            "requested_games": self.requested_games,
            "seed": self.seed,
            "options": self.options,
            "duplicate_deals": self.duplicate,
        }

    def run(
        self, workers: int | None = None, ray_address: str | None = None, progress: bool = False
    ) -> TournamentResult:
        """Play every game; after Ctrl+C the games finished by then, marked
        ``interrupted`` (raises :class:`Interrupted` when none was)."""
        try:
            results = run_tasks(
                self.tasks(),
                workers=workers,
                ray_address=ray_address,
                progress=progress,
                description="tournament",
            )
        except Interrupted as stop:
            if not stop.results:
                raise
            partial = stop.results
            return TournamentResult(self, partial, summarize(partial, self.lineup), interrupted=True)
        return TournamentResult(self, results, summarize(results, self.lineup))


@dataclass
class TournamentResult:
    tournament: Tournament
    games: list[GameResult]
    summary: dict[str, Any]
    interrupted: bool = False
    """Stopped by Ctrl+C: :attr:`games` are the games finished by then."""

    def to_json(self) -> dict[str, Any]:
        return {
            "config": self.tournament.config_json(),
            "interrupted": self.interrupted,
            "summary": self.summary,
            "games": [game.to_json() for game in self.games],
        }

    def write_json(self, path: Path) -> None:
        write_text(path, json.dumps(self.to_json(), indent=2) + "\n")

    def csv_rows(self) -> list[dict[str, Any]]:
        """One row per game: seat by seat bot, score and faults."""
        names = self.summary["lineup"]
        labels = [entry["label"] for entry in self.summary["entries"]]
        rows = []
        for game in self.games:
            row: dict[str, Any] = {
                "game": game.index,
                "deal_seed": game.deal_seed,
                "rotation": game.index % len(names),
                "rounds": game.rounds,
                "decisions": sum(game.decisions),
                "winners": ";".join(labels[game.seating[s]] for s in game.winners),
                "shared_win": int(len(game.winners) > 1),
            }
            for seat, entry in enumerate(game.seating):
                row[f"seat{seat}_bot"] = labels[entry]
                row[f"seat{seat}_score"] = game.scores[seat]
                row[f"seat{seat}_faults"] = game.faults[seat]
            rows.append(row)
        return rows

    def write_csv(self, path: Path) -> None:
        write_csv(path, self.csv_rows())

    def table(self) -> Table:
        return summary_table(self.summary, title=self.title())

    def title(self) -> str:
        t = self.tournament
        played = f"{t.games} games"
        if self.interrupted:
            played = f"{len(self.games)} of {played} (interrupted)"
        return f"{get_game(t.game).title}: {played}, {t.players} players, seed {t.seed}" + (
            f", options {json.dumps(t.options)}" if t.options else ""
        )

    def print(self, console: Console) -> None:
        print_summary(console, self.summary, self.title())


def write_text(path: Path, text: str) -> None:
    """Write via a temporary file, so a failure never leaves half a report."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(path.name + ".tmp")
        tmp.write_text(text, encoding="utf-8")
        tmp.replace(path)
    except OSError as exc:
        raise LabError(f"cannot write {path}: {exc.strerror or exc}") from exc


def write_csv(path: Path, rows: Sequence[Mapping[str, Any]]) -> None:
    import io

    buffer = io.StringIO()
    fields: list[str] = []
    for row in rows:
        fields.extend(k for k in row if k not in fields)
    writer = csv.DictWriter(buffer, fieldnames=fields, lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    write_text(path, buffer.getvalue())


def pct(value: float) -> str:
    return f"{100 * value:.1f}%"


def ci_text(ci: Sequence[float]) -> str:
    return f"{100 * ci[0]:.1f}–{100 * ci[1]:.1f}%"


def win_cells(row: Mapping[str, Any]) -> tuple[str, str, str]:
    """A summary row's wins, win rate and the rate's 95 % interval, as the tables show them."""
    return str(row["wins"]), pct(row["rate"]), ci_text(row["ci95"])


def summary_table(summary: Mapping[str, Any], title: str, width: int | None = None) -> Table:
    """The bots' summary; narrower than ``width`` columns (a terminal's), the
    narrow layout: the interval under the win rate, the sd under the mean, a
    lighter frame. No figure is ever cut (:mod:`spieltisch.tables`)."""
    table = _summary_table(summary, title, narrow=False)
    if width is not None and not fits(table, width):
        table = _summary_table(summary, title, narrow=True)
    return table


def _summary_table(summary: Mapping[str, Any], title: str, narrow: bool) -> Table:
    table = Table(title=title, box=box.SIMPLE_HEAD if narrow else box.HEAVY_HEAD, pad_edge=not narrow)
    text_column(table, "bot")
    if narrow:
        for header in ("seats", "wins /\ngames", "win rate\n95% CI", "score\nmean ±sd", "TrueSkill\nμ±σ",
                       "faults"):  # fmt: skip
            number_column(table, header)
    else:
        for header in ("seats", "games", "wins / seat-games", "win rate", "95% CI", "score mean", "score sd",
                       "TrueSkill μ±σ", "faults"):  # fmt: skip
            number_column(table, header)
    for bot in summary["bots"]:
        r = bot["rating"]
        wins = f"{bot['wins']} / {bot['games']}"
        rating = f"{r['mu']:.1f}±{r['sigma']:.1f}"
        mean, sd = f"{bot['score']['mean']:.1f}", f"{bot['score']['sd']:.1f}"
        if narrow:
            rate = f"{pct(bot['rate'])}\n{ci_text(bot['ci95'])}"
            table.add_row(bot["bot"], str(bot["entries"]), wins, rate, f"{mean}\n±{sd}", rating,
                          str(bot["faults"]))  # fmt: skip
        else:
            table.add_row(bot["bot"], str(bot["entries"]), str(summary["games"]), wins, pct(bot["rate"]),
                          ci_text(bot["ci95"]), mean, sd, rating, str(bot["faults"]))  # fmt: skip
    return table


def print_summary(console: Console, summary: Mapping[str, Any], title: str) -> None:
    console.print(summary_table(summary, title, console.width))
    seats = Table(title="Seats (all bots)")
    for col in ("seat", "wins", "win rate", "95% CI", "score mean"):
        number_column(seats, col)
    for seat in summary["seats"]:
        seats.add_row(str(seat["seat"]), *win_cells(seat), f"{seat['score']['mean']:.1f}")
    console.print(seats)
    length = summary["length"]
    console.print(
        f"Game length: {length['decisions']['mean']:.1f} decisions (sd {length['decisions']['sd']:.1f}), "
        f"{length['rounds']['mean']:.1f} rounds; shared wins in {summary['shared_wins']} game(s); "
        f"fair share {pct(summary['fair_share'])}; bot faults {summary['faults']['total']}."
    )
    for message in summary["faults"]["messages"][:5]:
        console.print(f"  fault: {message}", style="yellow")
