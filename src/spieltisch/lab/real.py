"""``spieltisch lab real``: how people really play, beside bots under the same rules.

The finished games people played at the web table, replayed from their records
(seed, rule options, action log), are grouped by game, player count and rule
options; each group is set beside bot games of the same rules and player count
(the line-up ``bots`` in every seat, ``games`` games, seeded). Per group and side:
win rate by seat, game length, the winning margin, how people fared against bots
at mixed tables and — in Waschbär-Schmaus — how often each ruling fires, hand
sizes by round and each card's share of pots won, all with 95 % intervals.

Nothing that identifies a player goes in: a game is its record and which seats
people played (no names, room codes or times), and only figures over groups of
games come out.
"""

from __future__ import annotations

import json
import statistics
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from spieltisch.engine import GameRecord, RecordError, get_game
from spieltisch.lab.config import LabError, check_bot_spec, round_up_games, split_bots, validate_options
from spieltisch.lab.play import GameResult, game_tasks, replay_record
from spieltisch.lab.runner import run_tasks
from spieltisch.lab.stats import rate, spread
from spieltisch.lab.variants import hand_size_summary, ruling_summary

SIDES = ("people", "bots")


@dataclass(frozen=True)
class PlayedGame:
    """A finished game of the web table, as the study sees it: its record and, per
    seat, whether a person played it (a bot standing in for a person who left still
    counts as that person's seat)."""

    record: GameRecord
    people: tuple[bool, ...]


@dataclass
class Group:
    """The games of one game, player count and rule options."""

    game: str
    players: int
    options: dict[str, Any]
    people: list[GameResult] = field(default_factory=list)
    person_seats: list[tuple[bool, ...]] = field(default_factory=list)
    """Per people's game: which seats people played."""
    bots: list[GameResult] = field(default_factory=list)
    lineup: tuple[str, ...] = ()
    """The bots' line-up (seats rotate)."""

    @property
    def key(self) -> str:
        return f"{self.game}/{self.players}/{json.dumps(self.options, sort_keys=True)}"

    @property
    def title(self) -> str:
        changed = _changed_options(self.game, self.players, self.options)
        rules = ", ".join(f"{k}={json.dumps(v)}" for k, v in changed.items()) or "default rules"
        return f"{get_game(self.game).title}, {self.players} players, {rules}"

    def figures(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "game": self.game,
            "players": self.players,
            "options": _changed_options(self.game, self.players, self.options),
        }
        for side, games in (("people", self.people), ("bots", self.bots)):
            out[side] = side_figures(games, self.players, self.game)
        out["people"]["versus_bots"] = versus_bots(self.people, self.person_seats)
        return out


def side_figures(games: Sequence[GameResult], players: int, game: str) -> dict[str, Any]:
    """The figures of one side of a group (see the module's docstring)."""
    n = len(games)
    out: dict[str, Any] = {
        "games": n,
        "seats": [rate(sum(seat in g.winners for g in games), n) for seat in range(players)],
        "rounds": spread([float(g.rounds) for g in games]),
        "decisions": spread([float(sum(g.decisions)) for g in games]),
        "margin": spread([float(_margin(g.scores)) for g in games]),
        "shared_wins": rate(sum(len(g.winners) > 1 for g in games), n),
    }
    if game == "schmaus":
        out["rulings"] = ruling_summary(games) if games else []
        out["hand_sizes"] = hand_size_summary(games)
        out["cards"] = card_pots(games)
    return out


def versus_bots(games: Sequence[GameResult], person_seats: Sequence[tuple[bool, ...]]) -> dict[str, Any]:
    """At tables with people and bots: how often a person's seat won, against the
    fair share (1 / players) it would win if people and bots were equally strong."""
    wins = trials = 0
    fair: list[float] = []
    for g, people in zip(games, person_seats, strict=True):
        if all(people) or not any(people):
            continue
        for seat, person in enumerate(people):
            if person:
                trials += 1
                wins += seat in g.winners
                fair.append(1 / len(people))
    return {**rate(wins, trials), "fair": statistics.fmean(fair) if fair else 0.0}


def card_pots(games: Sequence[GameResult]) -> list[dict[str, Any]]:
    """Per card: the lays holding it and the share of them that won the round's pot."""
    laid: dict[str, list[int]] = {}
    for g in games:
        for card, (count, won) in (g.detail or {}).get("lays", {}).items():
            total = laid.setdefault(card, [0, 0])
            total[0] += count
            total[1] += won
    return [{"card": card, **rate(won, count)} for card, (count, won) in sorted(laid.items())]


def _margin(scores: Sequence[int]) -> int:
    ordered = sorted(scores, reverse=True)
    return ordered[0] - ordered[1] if len(ordered) > 1 else 0


def _changed_options(game: str, players: int, options: Mapping[str, Any]) -> dict[str, Any]:
    """The options that differ from the defaults (what a reader needs to know)."""
    defaults = get_game(game).normalize_options(None)
    return {k: v for k, v in options.items() if defaults.get(k) != v}


@dataclass
class RealResult:
    groups: list[Group]
    skipped: dict[str, int]
    """Finished games left out, by reason."""
    bots: str
    seed: int

    def to_json(self) -> dict[str, Any]:
        return {
            "bots": self.bots,
            "seed": self.seed,
            "skipped": self.skipped,
            "groups": [g.figures() for g in self.groups],
        }

    def write_json(self, path: Path) -> None:
        path.write_text(json.dumps(self.to_json(), indent=2) + "\n", encoding="utf-8")

    def print(self, console: Console) -> None:
        if not self.groups:
            console.print("No finished games with people in the database.")
        for group in self.groups:
            console.print(_group_table(group))
        if any(self.skipped.values()):
            left = ", ".join(f"{n} {why}" for why, n in self.skipped.items() if n)
            console.print(f"Left out: {left}.")


def _group_table(group: Group) -> Table:
    f = group.figures()
    people, bots = f["people"], f["bots"]
    table = Table(title=group.title, title_justify="left")
    table.add_column("Figure", overflow="fold")
    table.add_column(f"People ({people['games']} games)", justify="right", no_wrap=True)
    table.add_column(
        f"Bots: {','.join(dict.fromkeys(group.lineup))} ({bots['games']} games)",
        justify="right",
        no_wrap=True,
    )
    for seat in range(group.players):
        table.add_row(
            f"Seat {seat + 1} wins", rate_text(people["seats"][seat]), rate_text(bots["seats"][seat])
        )
    for key, label in (
        ("rounds", "Rounds"),
        ("decisions", "Decisions per game"),
        ("margin", "Winning margin"),
    ):
        table.add_row(label, mean_text(people[key]), mean_text(bots[key]))
    table.add_row("Shared wins", rate_text(people["shared_wins"]), rate_text(bots["shared_wins"]))
    vs = people["versus_bots"]
    if vs["games"]:
        table.add_row(f"People's seats win vs bots (fair {vs['fair']:.0%})", rate_text(vs), "")
    if group.game == "schmaus":
        for mine, theirs in zip(people["rulings"], bots["rulings"], strict=True):
            label = f"Rounds with {mine['rule']} {mine['meaning']}"
            table.add_row(label, f"{mine['round_share']:.1%}", f"{theirs['round_share']:.1%}")
        bot_cards = {c["card"]: c for c in bots["cards"]}
        for card in people["cards"]:
            other = bot_cards.get(card["card"])
            table.add_row(
                f"Lays with {card['card']} win the pot", rate_text(card), rate_text(other) if other else ""
            )
    return table


def rate_text(r: Mapping[str, Any]) -> str:
    """``41.2% [35–48%]``: a rate with its 95 % interval (``–`` without trials)."""
    if not r["games"]:
        return "–"
    lo, hi = r["ci95"]
    return f"{r['rate']:.1%} [{lo:.0%}–{hi:.0%}]"


def mean_text(s: Mapping[str, float]) -> str:
    """``8.4 ± 1.2``: mean ± standard deviation."""
    return f"{s['mean']:.1f} ± {s['sd']:.1f}"


def collect(played: Iterable[PlayedGame]) -> tuple[list[Group], dict[str, int]]:
    """Replay the people's games and group them by game, player count and options."""
    groups: dict[str, Group] = {}
    skipped = {"without people": 0, "that do not replay with this engine": 0}
    for index, game in enumerate(played):
        if not any(game.people):
            skipped["without people"] += 1
            continue
        r = game.record
        try:
            options = validate_options(r.game, r.players, r.options)
            result = replay_record(r, index)
        except (RecordError, LabError, ValueError):
            skipped["that do not replay with this engine"] += 1
            continue
        group = Group(r.game, r.players, options)
        group = groups.setdefault(group.key, group)
        group.people.append(result)
        group.person_seats.append(game.people)
    return sorted(groups.values(), key=lambda g: (g.game, g.players, g.key)), skipped


def study(
    played: Iterable[PlayedGame],
    bots: str = "medium",
    games: int = 200,
    seed: int = 1,
    workers: int | None = None,
    progress: bool = False,
    min_games: int = 1,
) -> RealResult:
    """Replay ``played``, then play ``games`` bot games (``bots`` in every seat, a
    comma-separated line-up, rotated) per group of at least ``min_games`` people's games."""
    specs = split_bots([bots])
    if games < 1:
        raise LabError(f"--games must be at least 1, got {games}")
    groups, skipped = collect(played)
    small = [g for g in groups if len(g.people) < min_games]
    groups = [g for g in groups if len(g.people) >= min_games]
    if small:
        skipped[f"in groups of fewer than {min_games} games"] = sum(len(g.people) for g in small)
    tasks = []
    for group in groups:
        for spec in specs:
            check_bot_spec(group.game, spec)
        group.lineup = tuple(specs[i % len(specs)] for i in range(group.players))
        count = round_up_games(games, group.players)
        tasks += game_tasks(
            group.game, group.lineup, group.options, seed, range(count), detail=True, group=group.key
        )
    by_key = {g.key: g for g in groups}
    for result in run_tasks(tasks, workers, progress=progress, description="bot games"):
        by_key[result.group].bots.append(result)
    return RealResult(groups, skipped, bots, seed)
