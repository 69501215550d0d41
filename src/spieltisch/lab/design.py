"""``spieltisch lab design``: state what the rules should achieve; the lab
searches the rule options for settings that achieve it.

(Over 800 lines: the goal file's grammar with its error messages, the search and
its confirmation are one command's pipeline; the goal file's part, ``DesignSpec``
and ``parse_spec``, is the candidate for a module of its own.)

A goal file (TOML, see ``examples/goals*.toml``) names the goals (a measure
with a ``min`` and/or ``max``: skill gap, seat advantage, rounds, how often a
ruling fires...), the options that may vary and over which ranges, and the
bots. The search:

1. asks Optuna (TPE, multi-objective where there are several goals: one
   objective per goal, how far the candidate misses it) for a few candidates
   at a time; the printed rules are always the first one;
2. plays each candidate's games (seeded by game index, so the same candidate
   proposed again adds games to the ones it has: simulations are reused), the
   candidates of a batch in parallel (local processes or Ray);
3. keeps the candidates that meet every goal (or, when none does, the Pareto
   front), preferring those that change the fewest options;
4. confirms each with a fresh paired run against the printed rules (new
   seeds, the same ones for both), every measure with its 95 % interval;
5. varies one option at a time around the best candidate (sensitivity).

The batch size is part of the goal file, not the number of workers, and every
game depends only on its seed and index, so the same file and seed give the
same result on 1 or 16 cores.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rich import box
from rich.console import Console, RenderableType
from rich.table import Table

from spieltisch.engine import get_game
from spieltisch.lab.config import (
    LabError,
    check_bot_spec,
    derive_seed,
    read_table_file,
    round_up_games,
    validate_options,
)
from spieltisch.lab.paired import (
    Estimate,
    Measure,
    describe_diff,
    estimate,
    fmt,
    measures,
    paired_difference,
    point_value,
    units,
)
from spieltisch.lab.play import GameResult, GameTask
from spieltisch.lab.runner import ProgressBar, Runner, progress_bar
from spieltisch.lab.tournament import write_text
from spieltisch.options import OptionsInputError

PLAYERS = "players"
"""The search dimension for the player count (Scout's only one: 2 players is its official variant)."""

SCHMAUS_SPACE: dict[str, Any] = {
    "rounds": ["3x-players", "draw", 6, 8, 10, 12, 14, 16],
    "short_hand": ["draw-until-playable", "play-what-you-can"],
    "hunter_draw": ["everybody", "nobody"],
    "hand_size": {"min": 4, "max": 10},
    "loser_draws": {"min": 0, "max": 4},
    "hand_limit": {"min": 8, "max": 16},
    "refill_to": {"min": 0, "max": 7},
    "deck.F1": {"min": 10, "max": 20},
    "deck.F2": {"min": 8, "max": 16},
    "deck.F3": {"min": 3, "max": 9},
    "deck.F4": {"min": 2, "max": 6},
    "deck.F5": {"min": 1, "max": 5},
    "deck.X3": {"min": 0, "max": 4},
    "deck.X2": {"min": 0, "max": 4},
    "deck.X5": {"min": 0, "max": 4},
    "deck.HUNTER": {"min": 0, "max": 4},
    "deck.GARBAGE": {"min": 0, "max": 4},
    "deck.GROCER": {"min": 0, "max": 4},
    "deck.GUARDIAN": {"min": 0, "max": 4},
}
"""``all = true`` under ``[search]``: every rule option of Waschbär-Schmaus with
a designer's range around the printed value (deck counts included)."""


@dataclass(frozen=True)
class Goal:
    measure: str
    low: float | None = None
    high: float | None = None
    scale: float = 1.0
    """What a miss of 1 means: the goal's width (min to max), or for a one-sided goal
    its bound (at least 10 points for rates, 2 for counts), so goals weigh alike."""

    def miss(self, value: float) -> float:
        """How far ``value`` misses the goal, in units of :attr:`scale` (0: met)."""
        scale = self.scale
        below = (self.low - value) if self.low is not None else 0.0
        above = (value - self.high) if self.high is not None else 0.0
        return max(0.0, below, above) / scale

    def met(self, value: float) -> bool:
        return self.miss(value) == 0

    def text(self, unit: str = "") -> str:
        u = f" {unit}" if unit and unit != "rounds" else ""
        if self.low is not None and self.high is not None:
            return f"{self.low:g}–{self.high:g}{u}"
        if self.low is not None:
            return f"≥ {self.low:g}{u}"
        return f"≤ {self.high:g}{u}"

    def status(self, e: Estimate) -> str:
        """``met`` (the whole 95 % range inside), ``likely`` (the value inside) or ``missed``."""
        if self.met(e.low) and self.met(e.high):
            return "met"
        return "likely" if self.met(e.value) else "missed"


@dataclass(frozen=True)
class Dimension:
    """One option that may vary: a list of choices or a whole-number range."""

    key: str
    choices: tuple[Any, ...] = ()
    low: int = 0
    high: int = 0

    @property
    def is_range(self) -> bool:
        return not self.choices

    def levels(self, around: Any, most: int = 5) -> list[Any]:
        """The values a sensitivity plot visits (always including ``around``)."""
        if not self.is_range:
            return list(self.choices)
        span = self.high - self.low
        if span + 1 <= most:
            return list(range(self.low, self.high + 1))
        step = span / (most - 1)
        out = sorted({self.low + round(i * step) for i in range(most)} | {int(around)})
        return out

    def distribution(self) -> Any:
        from optuna.distributions import CategoricalDistribution, IntDistribution

        if self.is_range:
            return IntDistribution(self.low, self.high)
        return CategoricalDistribution(list(self.choices))


@dataclass
class DesignSpec:
    """A validated goal file."""

    game: str
    players: int
    bots: tuple[str, ...]
    goals: tuple[Goal, ...]
    space: tuple[Dimension, ...]
    base: dict[str, Any] = field(default_factory=dict)
    """The printed rules (rule options as printed: empty for the defaults)."""
    seed: int = 1
    games_per_trial: int = 16
    max_games_per_candidate: int = 64
    batch: int = 4
    confirm: int = 3
    confirm_games: int = 100
    sensitivity_games: int = 32
    strong: str | None = None
    weak: str | None = None
    source: str = ""

    def lineup(self, players: int) -> list[str]:
        return [self.bots[i % len(self.bots)] for i in range(players)]

    def measures(self, players: int) -> dict[str, Measure]:
        return measures(self.lineup(players), players, self.strong, self.weak)

    def defaults(self) -> dict[str, Any]:
        """The printed rules' value of every searched dimension."""
        opts = validate_options(self.game, self.players, self.base)
        out: dict[str, Any] = {}
        for d in self.space:
            if d.key == PLAYERS:
                out[d.key] = self.players
            elif d.key.startswith("deck."):
                from spieltisch.engine.schmaus.cards import DECK

                out[d.key] = opts["deck"].get(d.key[5:], DECK[d.key[5:]])
            else:
                out[d.key] = opts[d.key]
        return out

    def options_of(self, params: Mapping[str, Any]) -> tuple[int, dict[str, Any]]:
        """``(players, rule options)`` of a candidate's parameters."""
        options = json.loads(json.dumps(self.base))
        players = self.players
        for key, value in params.items():
            if key == PLAYERS:
                players = int(value)
            elif key.startswith("deck."):
                options.setdefault("deck", {})[key[5:]] = value
            else:
                options[key] = value
        return players, options


def load_spec(path: Path) -> DesignSpec:
    """A goal file, checked before any game: unknown measures, options, bots or ranges fail here."""
    data = read_table_file(path)
    return parse_spec(data, str(path))


def parse_spec(data: Mapping[str, Any], source: str = "goals") -> DesignSpec:
    def fail(message: str) -> LabError:
        return LabError(f"{source}: {message}")

    known_keys = {"game", "players", "bots", "seed", "goals", "search", "rules", "search_settings",
                  "strong", "weak"}  # fmt: skip
    unknown = sorted(set(data) - known_keys)
    if unknown:
        raise fail(f"unknown key(s) {', '.join(unknown)}; known: {', '.join(sorted(known_keys))}")
    try:
        game = get_game(str(data.get("game", "schmaus"))).name
    except OptionsInputError as exc:
        raise fail(str(exc)) from exc
    g = get_game(game)
    players = data.get("players", 4)
    if not isinstance(players, int) or not g.min_players <= players <= g.max_players:
        raise fail(f"players must be a whole number from {g.min_players} to {g.max_players}, not {players!r}")
    bots = data.get("bots", ["hard", "easy"])
    if isinstance(bots, str):
        bots = [b.strip() for b in bots.split(",")]
    if not isinstance(bots, list) or not bots or not all(isinstance(b, str) for b in bots):
        raise fail(
            'bots must be a list of bot specs, e.g. bots = ["hard", "easy"] (repeated round the table)'
        )
    for spec in bots:
        check_bot_spec(game, spec)
    base = data.get("rules", {})
    if not isinstance(base, dict):
        raise fail("[rules] must be a table of rule options (the printed rules; empty: the defaults)")
    validate_options(game, players, base)
    settings = data.get("search_settings", {})
    if not isinstance(settings, dict):
        raise fail("[search_settings] must be a table")
    numbers = {"games_per_trial": 16, "max_games_per_candidate": 64, "batch": 4, "confirm": 3,
               "confirm_games": 100, "sensitivity_games": 32}  # fmt: skip
    unknown = sorted(set(settings) - set(numbers))
    if unknown:
        raise fail(f"unknown [search_settings] key(s) {', '.join(unknown)}; known: {', '.join(numbers)}")
    values: dict[str, int] = {}
    for key, default in numbers.items():
        v = settings.get(key, default)
        if not isinstance(v, int) or isinstance(v, bool) or v < (0 if key == "sensitivity_games" else 1):
            raise fail(f"search_settings.{key} must be a positive whole number, not {v!r}")
        values[key] = v
    seed = data.get("seed", 1)
    if not isinstance(seed, int):
        raise fail(f"seed must be a whole number, not {seed!r}")

    space = _parse_space(data.get("search", {}), game, players, fail)
    strong, weak = data.get("strong"), data.get("weak")
    spec = DesignSpec(
        game=game,
        players=players,
        bots=tuple(bots),
        goals=(),
        space=tuple(space),
        base=dict(base),
        seed=seed,
        strong=strong if isinstance(strong, str) else None,
        weak=weak if isinstance(weak, str) else None,
        source=source,
        **values,
    )
    printed = spec.defaults()  # the printed rules are always a candidate: widen the space to hold them
    spec.space = tuple(
        (Dimension(d.key, (printed[d.key], *d.choices)) if printed[d.key] not in d.choices else d)
        if d.choices
        else Dimension(d.key, (), min(d.low, printed[d.key]), max(d.high, printed[d.key]))
        for d in spec.space
    )
    goals = data.get("goals")
    if not isinstance(goals, dict) or not goals:
        raise fail("name at least one goal under [goals], e.g. [goals.rounds] max = 8")
    known = spec.measures(players)
    parsed = []
    for name, bounds in goals.items():
        if name not in known:
            raise fail(f"unknown goal {name!r}; measures: {', '.join(known)}")
        if isinstance(bounds, int | float) and not isinstance(bounds, bool):
            bounds = {"min": bounds}
        if not isinstance(bounds, dict) or not set(bounds) <= {"min", "max"} or not bounds:
            raise fail(f"goal {name!r}: give min and/or max, e.g. {name} = {{ min = 10, max = 14 }}")
        lo, hi = bounds.get("min"), bounds.get("max")
        for v in (lo, hi):
            if v is not None and (not isinstance(v, int | float) or isinstance(v, bool)):
                raise fail(f"goal {name!r}: min and max must be numbers, not {v!r}")
        if lo is not None and hi is not None and lo > hi:
            raise fail(f"goal {name!r}: min {lo} is above max {hi}")
        if lo is not None and hi is not None and hi > lo:
            scale = float(hi - lo)
        else:
            floor = 10.0 if known[name].unit in ("pts", "%", "% of rounds") else 2.0
            scale = max(abs(lo if lo is not None else hi or 0.0), floor)
        parsed.append(Goal(name, None if lo is None else float(lo), None if hi is None else float(hi), scale))
    spec.goals = tuple(parsed)
    return spec


def _parse_space(table: Any, game: str, players: int, fail: Callable[[str], LabError]) -> list[Dimension]:
    g = get_game(game)
    if not isinstance(table, dict):
        raise fail("[search] must be a table: option = [choices] or option = { min = .., max = .. }")
    table = dict(table)
    if table.pop("all", False) is True:
        if game != "schmaus":
            raise fail(f"{g.title} has no rule options; only players can vary (players = [2, 3, 4, 5])")
        table = {**SCHMAUS_SPACE, **table}
    deck = table.pop("deck", None)
    if isinstance(deck, dict):
        table.update({f"deck.{k}": v for k, v in deck.items()})
    if not table:
        if game == "scout":
            raise fail(
                "Scout has no rule options to search. Only the player count can vary: add "
                "players = [2, 3, 4, 5] under [search] (2 players is the official two-player variant)."
            )
        raise fail("nothing to search: name the options that may vary under [search] (or all = true)")
    out = []
    for key, spec in table.items():
        if key == PLAYERS:
            if not isinstance(spec, list) or not all(isinstance(p, int) for p in spec):
                raise fail("search.players must be a list of player counts, e.g. [3, 4, 5]")
            bad = [p for p in spec if not g.min_players <= p <= g.max_players]
            if bad:
                raise fail(
                    f"search.players: {g.title} is for {g.min_players}–{g.max_players} players, not {bad}"
                )
            out.append(Dimension(key, tuple(spec)))
            continue
        if game == "scout":
            raise fail(f"Scout has no rule option {key!r} (it has none); only players can vary")
        if isinstance(spec, list) and spec:
            dim = Dimension(key, tuple(spec))
            values = list(spec)
        elif isinstance(spec, dict) and set(spec) == {"min", "max"}:
            lo, hi = spec["min"], spec["max"]
            if not isinstance(lo, int) or not isinstance(hi, int) or lo > hi:
                raise fail(f"search.{key}: min and max must be whole numbers with min ≤ max")
            dim = Dimension(key, (), lo, hi)
            values = [lo, hi]
        else:
            raise fail(f"search.{key}: give a list of choices or {{ min = .., max = .. }}")
        for v in values:  # each value alone must be a legal rule option
            probe: dict[str, Any] = {}
            if key.startswith("deck."):
                probe["deck"] = {key[5:]: v}
            else:
                probe[key] = v
            try:
                validate_options(game, players, probe)
            except LabError as exc:
                raise fail(f"search.{key}: {exc}") from exc
        out.append(dim)
    return out


# -- the search -------------------------------------------------------------------


@dataclass
class Candidate:
    params: dict[str, Any]
    players: int
    options: dict[str, Any]
    key: str
    values: dict[str, float] = field(default_factory=dict)
    games: int = 0
    trials: list[int] = field(default_factory=list)

    def misses(self, goals: Sequence[Goal]) -> list[float]:
        return [g.miss(self.values[g.measure]) for g in goals]

    def meets(self, goals: Sequence[Goal]) -> bool:
        return bool(self.values) and all(m == 0 for m in self.misses(goals))


class Design:
    """One search: build with a :class:`DesignSpec`, then :meth:`run`."""

    def __init__(self, spec: DesignSpec, budget: int) -> None:
        if budget < 1:
            raise LabError(f"--budget must be at least 1 game, not {budget}")
        self.spec = spec
        self.budget = budget
        self.cache: dict[tuple[str, str], list[GameResult]] = {}
        """(candidate key, seed stream) -> its games in index order (reused by every look)."""
        self.candidates: dict[str, Candidate] = {}
        self.played = 0
        self.search_games = 0
        self.trial_log: list[dict[str, Any]] = []

    # -- candidates and their games
    def candidate(self, params: Mapping[str, Any]) -> Candidate | None:
        players, options = self.spec.options_of(params)
        try:
            normalized = validate_options(self.spec.game, players, options)
        except LabError:
            return None
        if normalized.get("rounds") == "3x-players":  # W-2: the same game as that many rounds
            normalized["rounds"] = 3 * players
        key = json.dumps([players, normalized], sort_keys=True)
        if key not in self.candidates:
            self.candidates[key] = Candidate(dict(params), players, options, key)
        return self.candidates[key]

    def tasks(self, c: Candidate, stream: str, games: int) -> list[GameTask]:
        """Games ``have .. games`` of ``c`` on seed stream ``stream`` (``search`` or ``confirm``)."""
        have = len(self.cache.get((c.key, stream), []))
        games = round_up_games(games, c.players) if games else 0
        seed = self.spec.seed if stream == "search" else derive_seed("design", self.spec.seed, stream)
        lineup = tuple(self.spec.lineup(c.players))
        return [
            GameTask(self.spec.game, lineup, c.options, seed, i, detail=True, group=f"{stream}:{c.key}")
            for i in range(have, games)
        ]

    def play(self, runner: Runner, jobs: Sequence[tuple[Candidate, str, int]], bar: ProgressBar) -> None:
        """Top every ``(candidate, stream, games)`` up to that many games, all in one parallel run."""
        todo: list[GameTask] = []
        owners: list[tuple[str, str]] = []
        wanted: dict[tuple[str, str], tuple[Candidate, int]] = {}
        for c, stream, games in jobs:  # one job per candidate and stream, the most games asked for
            old = wanted.get((c.key, stream))
            wanted[(c.key, stream)] = (c, max(games, old[1] if old else 0))
        for (_key, stream), (c, games) in wanted.items():
            new = self.tasks(c, stream, games)
            todo += new
            owners += [(c.key, stream)] * len(new)
        for owner, result in zip(owners, runner.run(todo, bar), strict=True):
            self.cache.setdefault(owner, []).append(result)
        self.played += len(todo)

    def games_of(self, c: Candidate, stream: str, limit: int | None = None) -> list[GameResult]:
        games = self.cache.get((c.key, stream), [])
        return games if limit is None else games[: round_up_games(limit, c.players)]

    def evaluate(self, c: Candidate) -> None:
        games = self.games_of(c, "search")
        known = self.spec.measures(c.players)
        lineup = self.spec.lineup(c.players)
        c.values = {g.measure: point_value(games, known[g.measure], lineup) for g in self.spec.goals}
        c.games = len(games)

    def changes(self, c: Candidate) -> list[tuple[str, Any, Any]]:
        """``(option, printed value, candidate value)`` for each option the candidate changes."""
        printed = self.spec.defaults()

        def same(k: str, a: Any, b: Any) -> bool:
            if k == "rounds":  # "3x-players" and 3 x players rounds are one rule (W-2)
                a, b = (3 * c.players if x == "3x-players" else x for x in (a, b))
            return bool(a == b)

        return [(k, printed[k], v) for k, v in c.params.items() if not same(k, printed.get(k), v)]

    def ranked(self) -> list[Candidate]:
        """Candidates meeting every goal first (fewest changes, then most games), then
        the rest by total miss."""
        evaluated = [c for c in self.candidates.values() if c.values]
        return sorted(
            evaluated,
            key=lambda c: (not c.meets(self.spec.goals), sum(c.misses(self.spec.goals)), len(self.changes(c)),
                           -c.games, c.key),
        )  # fmt: skip

    def pareto(self) -> list[Candidate]:
        """Candidates no other beats on every goal's miss (ties kept once)."""
        evaluated = [c for c in self.candidates.values() if c.values]
        front = []
        for c in evaluated:
            mc = c.misses(self.spec.goals)
            dominated = any(
                all(x <= y for x, y in zip(o.misses(self.spec.goals), mc, strict=True))
                and o.misses(self.spec.goals) != mc
                for o in evaluated
            )
            if not dominated:
                front.append(c)
        return sorted(front, key=lambda c: (sum(c.misses(self.spec.goals)), len(self.changes(c)), c.key))

    def panel(self) -> RenderableType | None:
        best = self.ranked()[:3]
        if not best:
            return None
        # A rule under the header and no frame: a frame without its top line looked cut off (issue #35).
        table = Table(
            title="best candidates so far",
            title_justify="left",
            box=box.SIMPLE_HEAD,
            show_edge=False,
            pad_edge=False,
        )
        table.add_column("changes")
        for g in self.spec.goals:
            table.add_column(f"{g.measure} ({g.text()})", justify="right")
        table.add_column("games", justify="right")
        for c in best:
            table.add_row(
                describe_changes(self.changes(c)) or "printed rules",
                *(f"{c.values[g.measure]:.1f}" + ("" if g.met(c.values[g.measure]) else " ✗")
                  for g in self.spec.goals),
                str(c.games),
            )  # fmt: skip
        return table

    # -- the phases
    def run(
        self, workers: int | None = None, ray_address: str | None = None, progress: bool = False
    ) -> DesignResult:
        import optuna

        started = time.perf_counter()
        cpu = time.process_time()
        spec = self.spec
        optuna.logging.set_verbosity(optuna.logging.WARNING)
        sampler: Any
        if len(spec.goals) > 1:
            sampler = optuna.samplers.TPESampler(seed=derive_seed("optuna", spec.seed) % 2**32,
                                                 multivariate=True, n_startup_trials=8)  # fmt: skip
            study = optuna.create_study(directions=["minimize"] * len(spec.goals), sampler=sampler)
        else:
            sampler = optuna.samplers.TPESampler(
                seed=derive_seed("optuna", spec.seed) % 2**32, n_startup_trials=8
            )
            study = optuna.create_study(direction="minimize", sampler=sampler)
        distributions = {d.key: d.distribution() for d in spec.space}
        study.enqueue_trial(spec.defaults())
        extra = spec.confirm * spec.confirm_games + spec.confirm_games
        extra += sum(len(d.levels(0)) for d in spec.space) * spec.sensitivity_games
        with (
            Runner(workers, ray_address) as runner,
            progress_bar(self.budget + extra, "design", progress, self.panel) as bar,
        ):
            bar.describe("design: search")
            stale = 0
            while self.search_games < self.budget and stale < 20:
                trials, jobs = [], []
                planned: dict[str, int] = {}
                for _ in range(spec.batch):
                    trial = study.ask(distributions)
                    c = self.candidate(trial.params)
                    if c is None:
                        study.tell(trial, state=optuna.trial.TrialState.FAIL)
                        self.trial_log.append({"trial": trial.number, "params": trial.params, "valid": False})
                        continue
                    have = planned.get(c.key, len(self.games_of(c, "search")))
                    want = min(have + spec.games_per_trial, spec.max_games_per_candidate)
                    if want > have and self.search_games < self.budget:
                        want = round_up_games(min(want, have + self.budget - self.search_games), c.players)
                        jobs.append((c, "search", want))
                        planned[c.key] = want
                        self.search_games += want - have
                    trials.append((trial, c))
                if not trials:
                    stale += 1
                    continue
                before = self.played
                self.play(runner, jobs, bar)
                stale = stale + 1 if self.played == before else 0
                for trial, c in trials:
                    if not self.games_of(c, "search"):
                        study.tell(trial, state=optuna.trial.TrialState.FAIL)
                        continue
                    self.evaluate(c)
                    c.trials.append(trial.number)
                    misses = c.misses(spec.goals)
                    study.tell(trial, misses if len(misses) > 1 else misses[0])
                    self.trial_log.append({"trial": trial.number, "params": trial.params, "valid": True,
                                           "values": dict(c.values), "games": c.games})  # fmt: skip
            for c in self.candidates.values():
                if self.games_of(c, "search"):
                    self.evaluate(c)
            ranked = self.ranked()
            feasible = [c for c in ranked if c.meets(spec.goals)]
            chosen = feasible[: spec.confirm] if feasible else self.pareto()[: spec.confirm]
            printed = self.candidate(spec.defaults())
            assert printed is not None
            bar.set_total(self.played + (len(chosen) + 1) * spec.confirm_games
                          + sum(len(d.levels(0)) for d in spec.space) * spec.sensitivity_games)  # fmt: skip
            bar.describe("design: confirm")
            self.play(runner, [(c, "confirm", spec.confirm_games) for c in [printed, *chosen]], bar)
            confirmed = [self.confirmation(c, printed) for c in chosen]
            bar.describe("design: sensitivity")
            sensitivity = (
                self.sensitivity(runner, chosen[0], bar) if chosen and spec.sensitivity_games else []
            )
            bar.set_total(self.played)
        return DesignResult(
            spec=spec,
            budget=self.budget,
            feasible=bool(feasible),
            confirmed=confirmed,
            printed=self.confirmation(printed, printed),
            sensitivity=sensitivity,
            trials=self.trial_log,
            search_games=self.search_games,
            games_played=self.played,
            candidates_tried=sum(1 for c in self.candidates.values() if c.values),
            seconds=time.perf_counter() - started,
            cpu_seconds=time.process_time() - cpu,
        )

    def confirmation(self, c: Candidate, printed: Candidate) -> dict[str, Any]:
        """The fresh paired run of ``c`` against the printed rules: each goal's measure
        with its interval, its difference from the printed rules, and the verdict."""
        spec = self.spec
        games = self.games_of(c, "confirm")
        base = self.games_of(printed, "confirm")
        known = spec.measures(c.players)
        base_known = spec.measures(printed.players)
        goals = []
        for g in spec.goals:
            e = estimate(games, known[g.measure], spec.lineup(c.players), c.players, seed=spec.seed)
            entry: dict[str, Any] = {
                "measure": g.measure,
                "label": known[g.measure].label,
                "label_de": known[g.measure].label_de,
                "unit": known[g.measure].unit,
                "goal": {"min": g.low, "max": g.high, "text": g.text(known[g.measure].unit)},
                "estimate": e.to_json(),
                "status": g.status(e),
                "search_value": c.values.get(g.measure),
            }
            if c.key != printed.key:
                d = paired_difference(
                    base, games, base_known[g.measure], spec.lineup(printed.players), printed.players,
                    seed=spec.seed, other_lineup=spec.lineup(c.players), other_players=c.players,
                    other_measure=known[g.measure],
                )  # fmt: skip
                entry["difference"] = d.to_json()
            goals.append(entry)
        return {
            "params": c.params,
            "players": c.players,
            "options": c.options,
            "changes": [{"option": k, "printed": a, "candidate": b} for k, a, b in self.changes(c)],
            "search_games": len(self.games_of(c, "search")),
            "confirm_games": len(games),
            "meets_every_goal": all(x["status"] != "missed" for x in goals),
            "goals": goals,
        }

    def sensitivity(self, runner: Runner, best: Candidate, bar: ProgressBar) -> list[dict[str, Any]]:
        """Each option varied over its levels, the others fixed at ``best``: every goal's measure."""
        spec = self.spec
        plan: list[tuple[Dimension, list[tuple[Any, Candidate | None]]]] = []
        jobs = []
        for d in spec.space:
            row = []
            for level in d.levels(best.params.get(d.key)):
                c = self.candidate({**best.params, d.key: level})
                row.append((level, c))
                if c is not None:
                    jobs.append((c, "search", max(spec.sensitivity_games, len(self.games_of(c, "search")))))
            plan.append((d, row))
        self.play(runner, jobs, bar)
        out = []
        for d, row in plan:
            points = []
            for level, c in row:
                if c is None:
                    points.append({"value": level, "valid": False})
                    continue
                games = self.games_of(c, "search")
                known = spec.measures(c.players)
                lineup = spec.lineup(c.players)
                points.append(
                    {
                        "value": level,
                        "valid": True,
                        "games": len(games),
                        "measures": {
                            g.measure: estimate(
                                games, known[g.measure], lineup, c.players, seed=spec.seed
                            ).to_json()
                            for g in spec.goals
                        },
                    }
                )
            out.append({"option": d.key, "candidate_value": best.params.get(d.key), "points": points})
        return out


def describe_changes(changes: Sequence[tuple[str, Any, Any]], lang: str = "en") -> str:
    """``rounds 8 instead of 3x-players, loser_draws 3 instead of 2``."""
    word = "statt" if lang == "de" else "instead of"
    return ", ".join(f"{k} {b} {word} {a}" for k, a, b in changes)


@dataclass
class DesignResult:
    spec: DesignSpec
    budget: int
    feasible: bool
    confirmed: list[dict[str, Any]]
    printed: dict[str, Any]
    sensitivity: list[dict[str, Any]]
    trials: list[dict[str, Any]]
    search_games: int
    games_played: int
    candidates_tried: int
    seconds: float
    cpu_seconds: float

    def summary_lines(self, lang: str = "en") -> list[str]:
        """The plain-language answer a designer reads first."""
        de = lang == "de"
        spec = self.spec
        out = []
        if not self.confirmed:
            return ["Keine gültigen Kandidaten gefunden." if de else "No valid candidate was found."]
        good = sum(1 for c in self.confirmed if c["meets_every_goal"])
        n = len(self.confirmed)
        if good and self.feasible:
            head = (
                f"{good} von {n} bestätigten Regelvarianten erfüllen jedes Ziel auch in neuen Partien."
                if de
                else f"{good} of {n} confirmed rule setting(s) meet every goal in fresh games too."
            )
        elif good:
            head = (
                f"In der Suche erfüllte keine Einstellung jedes Ziel; von den besten Kompromissen "
                f"(Pareto-Front) erfüllen {good} von {n} in neuen Partien jedes Ziel."
                if de
                else f"No setting met every goal on its search games; of the best trade-offs (the Pareto "
                f"front) {good} of {n} meet every goal in fresh games."
            )
        elif self.feasible:
            head = (
                f"{n} Einstellung(en) erfüllten in der Suche jedes Ziel, in neuen Partien aber nicht alle."
                if de
                else f"{n} setting(s) met every goal in the search, but not all of them in fresh games."
            )
        else:
            head = (
                "Keine Einstellung erfüllte jedes Ziel; hier die besten Kompromisse (Pareto-Front)."
                if de
                else "No setting met every goal; these are the best trade-offs (the Pareto front)."
            )
        out.append(head)
        printed_values = {gl["measure"]: gl["estimate"]["value"] for gl in self.printed["goals"]}
        for c in self.confirmed:
            changes = [(x["option"], x["printed"], x["candidate"]) for x in c["changes"]]
            if changes:
                lead = ("Mit " if de else "With ") + describe_changes(changes, lang) + ": "
            else:
                lead = "Die gedruckten Regeln: " if de else "The printed rules as they are: "
            parts = []
            for gl in c["goals"]:
                label = gl["label_de"] if de and gl["label_de"] else gl["label"]
                e = gl["estimate"]
                half = (e["ci95"][1] - e["ci95"][0]) / 2
                if "difference" in gl:
                    was = printed_values[gl["measure"]]
                    verb = "von" if de else "from"
                    to = "auf" if de else "to"
                    parts.append(f"{label} {verb} {fmt(was, gl['unit'])} {to} {fmt(e['value'], gl['unit'])} "
                                 f"±{half:.1f}")  # fmt: skip
                else:
                    parts.append(f"{label} {fmt(e['value'], gl['unit'])} ±{half:.1f}")
                status = {"met": "✓", "likely": "✓?", "missed": "✗"}[gl["status"]]
                parts[-1] += f" ({'Ziel' if de else 'goal'} {gl['goal']['text']} {status})"
            games = c["confirm_games"]
            tail = (f" — {games} neue Partien je Seite, gepaart mit den gedruckten Regeln." if de
                    else f" — {games} fresh games each, paired with the printed rules.")  # fmt: skip
            out.append(lead + "; ".join(parts) + "." + tail)
        legend = (
            "✓ der ganze 95-%-Bereich erfüllt das Ziel; ✓? der Wert erfüllt es, der Bereich nicht "
            "ganz; ✗ verfehlt."
            if de
            else "✓ the whole 95% range meets the goal; ✓? the value meets it, the range not "
            "entirely; ✗ missed."
        )
        out.append(legend)
        spent = (
            f"Suche: {self.candidates_tried} Kandidaten, {self.search_games} Partien (Budget "
            f"{self.budget}); insgesamt {self.games_played} Partien in {self.seconds:.0f} s."
            if de
            else f"Search: {self.candidates_tried} candidates, {self.search_games} games (budget "
            f"{self.budget}); {self.games_played} games in all, {self.seconds:.0f} s."
        )
        out.append(spent)
        if spec.game == "scout" and de:
            out.append("Scout hat keine Regeloptionen; gesucht wurde nur über die Spielerzahl.")
        elif spec.game == "scout":
            out.append("Scout has no rule options; the search varied the player count only.")
        return [units(line, lang) for line in out]

    def rows(self) -> list[dict[str, Any]]:
        """The printed rules, then every confirmed candidate that changes something."""
        return [self.printed, *(c for c in self.confirmed if c["changes"])]

    def to_json(self) -> dict[str, Any]:
        spec = self.spec
        return {
            "config": {
                "game": spec.game,
                "players": spec.players,
                "bots": list(spec.bots),
                "seed": spec.seed,
                "budget": self.budget,
                "rules": spec.base,
                "goals": [{"measure": g.measure, "min": g.low, "max": g.high} for g in spec.goals],
                "search": [
                    {"option": d.key, "choices": list(d.choices)}
                    if d.choices
                    else {"option": d.key, "min": d.low, "max": d.high}
                    for d in spec.space
                ],
                "search_settings": {
                    k: getattr(spec, k)
                    for k in (
                        "games_per_trial",
                        "max_games_per_candidate",
                        "batch",
                        "confirm",
                        "confirm_games",
                        "sensitivity_games",
                    )
                },
            },
            "feasible": self.feasible,
            "summary": self.summary_lines(),
            "candidates": self.confirmed,
            "printed_rules": self.printed,
            "sensitivity": self.sensitivity,
            "search": {
                "candidates": self.candidates_tried,
                "games": self.search_games,
                "trials": self.trials,
            },
            "games_played": self.games_played,
            "seconds": self.seconds,
            "cpu_seconds": self.cpu_seconds,
        }

    def write_json(self, path: Path) -> None:
        write_text(path, json.dumps(self.to_json(), indent=2, default=str) + "\n")

    def print(self, console: Console) -> None:
        table = Table(
            title="Candidates, confirmed against the printed rules (fresh paired games, 95% intervals)"
        )
        table.add_column("candidate")
        for g in self.spec.goals:
            table.add_column(g.measure, justify="right")
        for c in self.rows():
            name = describe_changes([(x["option"], x["printed"], x["candidate"]) for x in c["changes"]])
            cells = []
            for gl in c["goals"]:
                e = gl["estimate"]
                cell = f"{fmt(e['value'], gl['unit'])} [{e['ci95'][0]:.1f}, {e['ci95'][1]:.1f}]"
                cell += {"met": " ✓", "likely": " ✓?", "missed": " ✗"}[gl["status"]]
                if "difference" in gl:
                    from spieltisch.lab.paired import estimate_from_json

                    cell += "\n" + describe_diff(estimate_from_json(gl["difference"]), gl["unit"])
                cells.append(cell)
            table.add_row((name or "printed rules") + f"\n{c['confirm_games']} games", *cells)
        console.print(table)
        for line in self.summary_lines():
            console.print(line)
