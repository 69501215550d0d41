"""``spieltisch lab variants``: the same Waschbär-Schmaus line-up under several
rule-option sets, side by side.

Every variant plays the same game indices with the same seeds (common random
numbers), so differences between variants come from the rules, not from the
deals. Per variant the study measures how much skill decides (the line-up's
win rates), seat effects, score spread, how often each ruling fires, hand
sizes by round, game length and, optionally, each card's impact: entry 0 of
the line-up replaced by the same bot that may never lay that card
(``avoid=CARD:SPEC``), against the unrestricted entry 0 in the very same games.
"""

from __future__ import annotations

import json
import re
import statistics
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from spieltisch.bots import Budget
from spieltisch.lab.config import (
    AVOID_PREFIX,
    LabError,
    check_bot_spec,
    parse_option_pairs,
    read_table_file,
    round_up_games,
    validate_options,
)
from spieltisch.lab.paired import CONFIDENCE, Estimate, Measure, measures, paired_difference
from spieltisch.lab.play import RULINGS, Entrant, GameResult, GameTask, avoiding, game_tasks
from spieltisch.lab.runner import Runner, progress_bar
from spieltisch.lab.stats import entrant_name, rate, spread, summarize
from spieltisch.lab.tournament import pct, summary_table, write_csv, write_text
from spieltisch.options import OptionsInputError
from spieltisch.tables import lighter, number_column, text_column

GAME = "schmaus"
_PAIR_SPLIT = re.compile(r",(?=\s*[A-Za-z_][\w.]*\s*=)")
_NAME = re.compile(r"^[\w.+-]+$")


@dataclass(frozen=True)
class Variant:
    """A named rule-option set (empty options: the defaults)."""

    name: str
    options: dict[str, Any] = field(default_factory=dict)
    description: str = ""


def parse_variant(text: str) -> Variant:
    """``'name:hunter_draw=nobody,loser_draws=3'`` (``'name'`` alone: the defaults)."""
    name, _, rest = text.partition(":")
    name = name.strip()
    if not name or not _NAME.match(name):
        raise LabError(
            f"bad variant {text!r}: write NAME:key=value,key=value (NAME of letters, digits, - _ . +)"
        )
    pairs = [p for p in _PAIR_SPLIT.split(rest) if p.strip()] if rest.strip() else []
    try:
        options = parse_option_pairs(pairs)
    except OptionsInputError as exc:
        raise LabError(f"variant {name!r}: {exc}") from exc
    return Variant(name, options)


def load_variants_file(path: Path) -> list[Variant]:
    """Variants from ``[variants.NAME]`` tables (TOML or JSON); an optional
    ``description`` key in a table is shown in the report."""
    data = read_table_file(path)
    tables = data.get("variants")
    if not isinstance(tables, dict) or not tables:
        raise LabError(f"{path}: expected [variants.NAME] tables, e.g. [variants.defaults]")
    out = []
    for name, table in tables.items():
        if not isinstance(table, dict):
            raise LabError(f"{path}: variants.{name} must be a table of rule options")
        options = dict(table)
        description = options.pop("description", "")
        if not isinstance(description, str):
            raise LabError(f"{path}: variants.{name}.description must be text")
        out.append(Variant(str(name), options, description))
    return out


def default_lineup(players: int) -> list[str]:
    """hard and easy, alternating: the skill test of a mixed table."""
    return ["hard" if seat % 2 == 0 else "easy" for seat in range(players)]


@dataclass
class VariantStudy:
    lineup: tuple[Entrant, ...]
    variants: tuple[Variant, ...]
    games: int
    seed: int = 1
    impact_games: int = 0
    impact_cards: tuple[str, ...] = ()
    duplicate: bool = True
    budget: Budget | None = None
    timeout: float = 10.0
    normalized: dict[str, dict[str, Any]] = field(default_factory=dict)
    looks: int = 1
    """Sequential testing: look at the paired differences after 1/2^(looks-1), ...,
    1/2, all of the games, and stop at the first look where every one is settled."""
    stop_on: str = "skill_gap"
    """The measure whose paired differences (each variant vs the first) decide the early stop."""

    @classmethod
    def create(
        cls,
        lineup: Sequence[Entrant],
        variants: Sequence[Variant],
        games: int,
        seed: int = 1,
        impact_games: int = 0,
        impact_cards: Sequence[str] | None = None,
        duplicate: bool = True,
        budget: Budget | None = None,
        timeout: float = 10.0,
        looks: int = 1,
        stop_on: str = "skill_gap",
    ) -> VariantStudy:
        from spieltisch.engine.schmaus.cards import IDS

        players = len(lineup)
        if not 2 <= players <= 5:
            raise LabError(f"Waschbär-Schmaus is for 2 to 5 players; the line-up has {players} bot(s)")
        if len(variants) < 2:
            raise LabError("compare at least two variants (--variant NAME:key=value,... or --variants-file)")
        names = [v.name for v in variants]
        doubled = sorted({n for n in names if names.count(n) > 1})
        if doubled:
            raise LabError(f"variant name(s) used twice: {', '.join(doubled)}")
        for spec in lineup:
            if not isinstance(spec, str):
                continue
            if spec.startswith(AVOID_PREFIX):
                raise LabError(
                    "use the card-impact options (--impact-games) instead of avoid= in the line-up"
                )
            check_bot_spec(GAME, spec)
        normalized = {}
        for v in variants:
            try:
                normalized[v.name] = validate_options(GAME, players, v.options)
            except OptionsInputError as exc:
                raise LabError(f"variant {v.name!r}: {exc}") from exc
        games = round_up_games(games, players)
        if games < 2 * players:  # blocks are the unit of every interval (lab/paired.py)
            raise LabError(
                f"{games} games are one deal played from every seat; a difference needs at least two "
                f"deals to have a 95% interval: -n {2 * players} or more"
            )
        impact = min(round_up_games(impact_games, players), games) if impact_games > 0 else 0
        cards = tuple(c.upper() for c in (impact_cards or IDS))
        unknown = [c for c in cards if c not in IDS]
        if unknown:
            raise LabError(
                f"unknown card(s) {', '.join(unknown)} for --impact-card (one of {', '.join(IDS)})"
            )
        if not 1 <= looks <= 8:
            raise LabError(f"--looks must be from 1 (no early stop) to 8, not {looks}")
        known = measures([entrant_name(e) for e in lineup], players)
        if stop_on not in known:
            raise LabError(f"--stop-on {stop_on!r}: choose one of {', '.join(known)}")
        return cls(
            tuple(lineup),
            tuple(variants),
            games,
            seed,
            impact,
            cards if impact else (),
            duplicate,
            budget,
            timeout,
            normalized,
            looks,
            stop_on,
        )

    @property
    def players(self) -> int:
        return len(self.lineup)

    def _tasks(
        self, variant: Variant, lineup: tuple[Entrant, ...], games: int, group: str, start: int = 0
    ) -> list[GameTask]:
        return game_tasks(
            GAME, lineup, variant.options, self.seed, range(start, games),
            self.duplicate, self.budget, self.timeout, True, group,
        )  # fmt: skip

    def tasks(self, start: int = 0, stop: int | None = None, impact: int | None = None) -> list[GameTask]:
        """Games ``start`` to ``stop`` of every variant, then the first ``impact``
        games of each variant again for every card-impact run."""
        stop = self.games if stop is None else stop
        impact = self.impact_games if impact is None else impact
        out = []
        for v in self.variants:
            out += self._tasks(v, self.lineup, stop, v.name, start)
        for v in self.variants:
            for card in self.impact_cards:
                avoid = (avoiding(card, self.lineup[0]), *self.lineup[1:])
                out += self._tasks(v, avoid, impact, f"{v.name}/{AVOID_PREFIX}{card}")
        return out

    def look_points(self, games: int | None = None) -> list[int]:
        """Game counts at which the study looks (whole rotation blocks), the last one all games."""
        n = self.players
        games = self.games if games is None else games
        # Every look has two blocks at least: one block has no interval (lab/paired.py).
        points = [round_up_games(max(2 * n, games >> (self.looks - 1 - k)), n) for k in range(self.looks)]
        return sorted({min(p, games) for p in points})

    def impact_tasks(self, variant: Variant, card: str, start: int, stop: int) -> list[GameTask]:
        avoid = (avoiding(card, self.lineup[0]), *self.lineup[1:])
        return self._tasks(variant, avoid, stop, f"{variant.name}/{AVOID_PREFIX}{card}", start)

    def entry0(self) -> Measure:
        return Measure("entry0", "win rate of line-up entry 0", "%", ("entry_win:0",),
                       lambda m: 100 * m["entry_win:0"])  # fmt: skip

    def run_impact(self, runner: Runner, bar: Any, results: list[GameResult], played: int) -> dict[str, Any]:
        """The card-impact runs, look by look like the variants: a card whose paired
        difference is settled stops; the others go on to ``impact_games``."""
        total = min(self.impact_games, played)
        pending = [(v, card) for v in self.variants for card in self.impact_cards]
        games: dict[str, int] = {}
        settled: dict[str, bool] = {}
        start = 0
        for point in self.look_points(total) if total else []:
            tasks = [t for v, card in pending for t in self.impact_tasks(v, card, start, point)]
            results += runner.run(tasks, bar)
            for v, card in pending:
                games[f"{v.name}/{card}"] = point
            start = point
            if point == total or self.looks == 1:
                break
            by_group = _by_group(results)
            still = []
            for v, card in pending:
                d = paired_difference(
                    by_group[f"{v.name}/{AVOID_PREFIX}{card}"], by_group[v.name][:point], self.entry0(),
                    self.specs(), self.players, self.duplicate, self.seed, self.stop_confidence,
                )  # fmt: skip
                if d.covers_zero:
                    still.append((v, card))
                else:
                    settled[f"{v.name}/{card}"] = True
            pending = still
            if not pending:
                break
        return {"games": games, "settled": settled}

    @property
    def stop_confidence(self) -> float:
        """Each look tests at 1 − 5 %/looks (Bonferroni), so stopping early keeps
        the chance of a false "settled" under 5 %."""
        return 1 - (1 - CONFIDENCE) / self.looks

    def specs(self) -> list[str]:
        return [entrant_name(e) for e in self.lineup]

    def measures(self) -> dict[str, Measure]:
        return measures(self.specs(), self.players)

    def compare(
        self, base: Sequence[GameResult], other: Sequence[GameResult], measure: Measure,
        confidence: float = CONFIDENCE,
    ) -> Estimate:  # fmt: skip
        """The paired difference ``measure(other) − measure(base)`` (same indices and seeds)."""
        return paired_difference(
            base, other, measure, self.specs(), self.players, self.duplicate, self.seed, confidence
        )

    def config_json(self) -> dict[str, Any]:
        return {
            "game": GAME,
            "players": self.players,
            "lineup": [entrant_name(e) for e in self.lineup],
            "games": self.games,
            "seed": self.seed,
            "duplicate_deals": self.duplicate,
            "impact_games": self.impact_games,
            "impact_cards": list(self.impact_cards),
            "variants": [
                {
                    "name": v.name,
                    "options": v.options,
                    "description": v.description,
                    "normalized": self.normalized[v.name],
                }
                for v in self.variants
            ],
        }

    def run(
        self, workers: int | None = None, ray_address: str | None = None, progress: bool = False
    ) -> VariantsResult:
        """Play look by look; stop at the first look where every variant's paired
        difference in :attr:`stop_on` is settled (its interval excludes 0)."""
        results: list[GameResult] = []
        played = 0
        stopped: dict[str, Any] = {"looks": self.looks, "stop_on": self.stop_on, "settled": False}
        measure = self.measures()[self.stop_on]
        with (
            Runner(workers, ray_address) as runner,
            progress_bar(len(self.tasks()), "variants", progress) as bar,
        ):
            for look, point in enumerate(self.look_points(), 1):
                results += runner.run(self.tasks(played, point, impact=0), bar)
                played = point
                stopped.update(look=look, games=played)
                if point == self.games or self.looks == 1:
                    break
                by_group = _by_group(results)
                base = by_group[self.variants[0].name]
                if all(
                    not self.compare(base, by_group[v.name], measure, self.stop_confidence).covers_zero
                    for v in self.variants[1:]
                ):
                    stopped["settled"] = True
                    break
            impact = min(self.impact_games, played)
            bar.set_total(len(self.tasks(0, played, impact)))
            impact_runs = self.run_impact(runner, bar, results, played)
            bar.set_total(len(results))
        stopped["impact"] = impact_runs
        if self.looks > 1 and not stopped["settled"]:
            by_group = _by_group(results)
            base = by_group[self.variants[0].name]
            stopped["settled"] = all(
                not self.compare(base, by_group[v.name], measure, self.stop_confidence).covers_zero
                for v in self.variants[1:]
            )
        stopped["confidence"] = self.stop_confidence
        by_group = _by_group(results)
        summaries = {v.name: self.summarize_variant(v, by_group, impact) for v in self.variants}
        self.add_paired(summaries, by_group)
        return VariantsResult(self, results, summaries, played, stopped)

    def add_paired(
        self, summaries: dict[str, dict[str, Any]], by_group: Mapping[str, list[GameResult]]
    ) -> None:
        """Each variant's paired differences from the first variant, measure by measure."""
        base_name = self.variants[0].name
        base = by_group[base_name]
        keys = self.paired_keys()
        known = self.measures()
        for v in self.variants:
            summaries[v.name]["paired"] = {
                "against": base_name,
                "measures": {
                    k: {
                        "label": known[k].label,
                        "unit": known[k].unit,
                        **self.compare(base, by_group[v.name], known[k]).to_json(),
                    }
                    for k in keys
                }
                if v.name != base_name
                else {},
            }

    def paired_keys(self) -> list[str]:
        bots = list(dict.fromkeys(self.specs()))
        keys = ["skill_gap"] if len(bots) > 1 else []
        keys += [f"win:{b}" for b in bots]
        keys += ["seat_advantage", "seat0", "rounds", "score_spread", "margin"]
        keys += [f"ruling:{rule}" for rule, _ in RULINGS]
        return keys

    def summarize_variant(
        self, variant: Variant, by_group: Mapping[str, list[GameResult]], impact_games: int
    ) -> dict[str, Any]:
        games = by_group.get(variant.name, [])
        summary = summarize(games, self.lineup)
        rates = [b["rate"] for b in summary["bots"]]
        summary["skill_gap"] = max(rates) - min(rates) if len(rates) > 1 else None
        summary["score_spread_in_game"] = spread([statistics.pstdev(g.scores) for g in games])
        summary["rulings"] = ruling_summary(games)
        summary["hand_sizes"] = hand_size_summary(games)
        summary["impact"] = [
            self.impact_summary(
                card,
                games[: len(by_group.get(f"{variant.name}/{AVOID_PREFIX}{card}", []))],
                by_group.get(f"{variant.name}/{AVOID_PREFIX}{card}", []),
            )
            for card in self.impact_cards
        ]
        return summary

    def impact_summary(
        self, card: str, baseline: Sequence[GameResult], restricted: Sequence[GameResult]
    ) -> dict[str, Any]:
        """:func:`impact_summary` plus the paired difference with its interval."""
        out = impact_summary(card, baseline, restricted)
        if baseline and restricted:
            diff = paired_difference(
                restricted, baseline, self.entry0(), self.specs(), self.players, self.duplicate, self.seed
            )
            out["paired"] = diff.to_json()
        return out


def _by_group(results: Sequence[GameResult]) -> dict[str, list[GameResult]]:
    by_group: dict[str, list[GameResult]] = {}
    for r in results:
        by_group.setdefault(r.group, []).append(r)
    return by_group


def ruling_summary(games: Sequence[GameResult]) -> list[dict[str, Any]]:
    """Per ruling: rounds in which it fired, their share of all rounds, games
    in which it fired at least once."""
    total_rounds = sum(g.rounds for g in games)
    out = []
    for rule, meaning in RULINGS:
        counts = [(g.detail or {}).get("rulings", {}).get(rule, 0) for g in games]
        cards = [(g.detail or {}).get("cards", {}).get(rule) for g in games]
        out.append(
            {
                "rule": rule,
                "meaning": meaning,
                "rounds": sum(counts),
                "round_share": sum(counts) / total_rounds if total_rounds else 0.0,
                "games": sum(1 for c in counts if c),
                "game_share": sum(1 for c in counts if c) / len(games) if games else 0.0,
                "per_game": sum(counts) / len(games) if games else 0.0,
                "cards_per_game": (sum(c for c in cards if c) / len(games))
                if games and any(c is not None for c in cards)
                else None,
            }
        )
    return out


def hand_size_summary(games: Sequence[GameResult]) -> list[dict[str, Any]]:
    """Hand sizes when laying, by round: over every seat of every game."""
    by_round: dict[int, list[int]] = {}
    for g in games:
        for r, sizes in enumerate((g.detail or {}).get("hand_sizes", []), 1):
            by_round.setdefault(r, []).extend(sizes)
    return [
        {
            "round": r,
            **spread([float(s) for s in sizes]),
            "short": sum(1 for s in sizes if s < 3) / len(sizes),
        }
        for r, sizes in sorted(by_round.items())
    ]


def impact_summary(
    card: str, baseline: Sequence[GameResult], restricted: Sequence[GameResult]
) -> dict[str, Any]:
    """Win rate of line-up entry 0 that may never lay ``card`` vs the same entry
    unrestricted in the same games (same indices, seeds and seats)."""

    def entry0_wins(games: Sequence[GameResult]) -> int:
        return sum(1 for g in games if g.entry_seat(0) in g.winners)

    bites = [g.bot_stats[g.entry_seat(0)].get("bites", 0) for g in restricted]
    without = rate(entry0_wins(restricted), len(restricted))
    with_card = rate(entry0_wins(baseline), len(baseline))
    return {
        "card": card,
        "without": without,
        "with": with_card,
        "delta": with_card["rate"] - without["rate"],
        "bites_per_game": statistics.fmean(bites) if bites else 0.0,
    }


@dataclass
class VariantsResult:
    study: VariantStudy
    games: list[GameResult]
    summaries: dict[str, dict[str, Any]]
    played: int = 0
    """Games played per variant (fewer than ``study.games`` after an early stop)."""
    sequential: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {
            "config": self.study.config_json(),
            "games_per_variant": self.played,
            "sequential": self.sequential,
            "variants": self.summaries,
            "games": [g.to_json() for g in self.games],
        }

    def write_json(self, path: Path) -> None:
        write_text(path, json.dumps(self.to_json(), indent=2) + "\n")

    def csv_rows(self) -> list[dict[str, Any]]:
        """One row per game: variant (group), seats, scores and the rulings fired."""
        rows = []
        for g in self.games:
            row: dict[str, Any] = {
                "variant": g.group,
                "game": g.index,
                "deal_seed": g.deal_seed,
                "rounds": g.rounds,
                "decisions": sum(g.decisions),
                "winners": ";".join(str(s) for s in g.winners),
            }
            for seat, entry in enumerate(g.seating):
                row[f"seat{seat}_entry"] = entry
                row[f"seat{seat}_score"] = g.scores[seat]
            for rule, count in (g.detail or {}).get("rulings", {}).items():
                row[f"{rule}_rounds"] = count
            rows.append(row)
        return rows

    def write_csv(self, path: Path) -> None:
        write_csv(path, self.csv_rows())

    def print(self, console: Console) -> None:
        for v in self.study.variants:
            title = f"Variant {v.name}: {json.dumps(v.options)}"
            console.print(summary_table(self.summaries[v.name], title, console.width))
        table = Table(title="Side by side (95% intervals in the tables above)")
        text_column(table, "measure")
        for v in self.study.variants:
            number_column(table, v.name)
        rows: list[tuple[str, list[str]]] = []
        sums = [self.summaries[v.name] for v in self.study.variants]
        for bot in sums[0]["bots"]:
            rows.append(
                (
                    f"win rate {bot['bot']}",
                    [pct(b["rate"]) for s in sums for b in s["bots"] if b["bot"] == bot["bot"]],
                )
            )
        rows.append(("skill gap", ["–" if s["skill_gap"] is None else pct(s["skill_gap"]) for s in sums]))
        rows.append(("seat 0 win rate", [pct(s["seats"][0]["rate"]) for s in sums]))
        rows.append(("score sd in a game", [f"{s['score_spread_in_game']['mean']:.1f}" for s in sums]))
        rows.append(("rounds", [f"{s['length']['rounds']['mean']:.1f}" for s in sums]))
        for i, (rule, _meaning) in enumerate(RULINGS):
            rows.append((f"{rule} % of rounds", [pct(s["rulings"][i]["round_share"]) for s in sums]))
        for i, card in enumerate(self.study.impact_cards):
            rows.append(
                (
                    f"impact {card} (with − without)",
                    [f"{100 * s['impact'][i]['delta']:+.1f} pts" for s in sums],
                )
            )
        for name, cells in rows:
            table.add_row(name, *cells)
        console.print(lighter(table, console.width))
        self.print_paired(console)

    def stop_note(self, lang: str = "en") -> str:
        """How many games the study took, and why it stopped there."""
        seq = self.sequential
        de = lang == "de"
        if seq.get("looks", 1) <= 1:
            return (f"{self.played} Partien je Variante (ohne frühen Abbruch)." if de
                    else f"{self.played} games per variant (no early stop).")  # fmt: skip
        level = f"{100 * seq['confidence']:.2f}%"
        if seq["settled"] and self.played < self.study.games:
            if de:
                return (
                    f"Früh beendet nach {self.played} von {self.study.games} Partien je Variante (Blick "
                    f"{seq['look']} von {seq['looks']}): jeder Unterschied in {seq['stop_on']} war auf dem "
                    f"{level}-Niveau entschieden (die 5 % auf alle Blicke verteilt)."
                )
            return (
                f"Stopped early after {self.played} of {self.study.games} games per variant (look "
                f"{seq['look']} of {seq['looks']}): every {seq['stop_on']} difference was settled at the "
                f"{level} level (5% shared by the looks)."
            )
        if de:
            state = "entschieden" if seq["settled"] else "nicht entschieden"
            return (
                f"Alle {self.played} Partien je Variante gespielt; die Unterschiede in {seq['stop_on']} sind "
                f"auf dem {level}-Niveau {state}."
            )
        state = "settled" if seq["settled"] else "not settled"
        return (
            f"Played all {self.played} games per variant; the {seq['stop_on']} differences are {state} "
            f"at the {level} level."
        )

    def print_paired(self, console: Console) -> None:
        from spieltisch.lab.paired import describe_diff, estimate_from_json

        base = self.study.variants[0].name
        others = [v.name for v in self.study.variants[1:]]
        table = Table(title=f"Paired differences from {base} (same deals and seeds; 95% intervals)")
        text_column(table, "measure")
        for name in others:
            number_column(table, f"{name} − {base}")
        for key in self.study.paired_keys():
            cells = []
            label = key
            for name in others:
                d = self.summaries[name]["paired"]["measures"][key]
                label = d["label"]
                cells.append(describe_diff(estimate_from_json(d), d["unit"]))
            table.add_row(label, *cells)
        console.print(lighter(table, console.width))
        console.print(
            f"{self.stop_note()} Each difference: {self.played} games per variant, paired deal by deal."
        )
