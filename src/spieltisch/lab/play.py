"""One game of a study as a small picklable task, and what it returns.

A task holds everything its game depends on, so a worker process or a Ray
node plays exactly the same game as the main process would: the deal seed and
the bot seeds are derived from ``(study seed, game index)`` only.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, fields
from typing import Any

from spieltisch.bots import Bot, Budget
from spieltisch.bots.match import decide
from spieltisch.engine import GameRecord, RecordError, RulesError, State, get_game
from spieltisch.lab.bots import AvoidCardBot, make_lab_bot
from spieltisch.lab.config import derive_seed, seating

BotFactory = Callable[[str, int, int, Budget | None], Bot]
"""``(game, seat, seed, budget) -> Bot``: a custom line-up entry (must be picklable
for worker processes, e.g. a module-level class or function)."""

Entrant = str | BotFactory

MAX_FAULT_MESSAGES = 5


@dataclass(frozen=True)
class GameTask:
    """One game: ``lineup[e]`` plays in seat ``(e + index) mod players``."""

    game: str
    lineup: tuple[Entrant, ...]
    options: Mapping[str, Any]
    seed: int
    index: int
    duplicate: bool = True
    """Deal seed shared by the ``players`` rotations of a block (duplicate deals)."""
    budget: Budget | None = None
    timeout: float = 10.0
    detail: bool = False
    """Collect Waschbär-Schmaus round details (rulings fired, hand sizes)."""
    group: str = ""
    """Which part of a study the game belongs to (a variant, a card-impact run)."""

    @property
    def players(self) -> int:
        return len(self.lineup)

    @property
    def deal_seed(self) -> int:
        block = self.index // self.players if self.duplicate else self.index
        return derive_seed("lab", self.seed, "deal", block)


def game_tasks(
    game: str,
    lineup: tuple[Entrant, ...],
    options: Mapping[str, Any],
    seed: int,
    indices: Iterable[int],
    duplicate: bool = True,
    budget: Budget | None = None,
    timeout: float = 10.0,
    detail: bool = False,
    group: str = "",
) -> list[GameTask]:
    """The games ``indices`` of one line-up under one set of options and settings."""
    return [
        GameTask(game, lineup, options, seed, i, duplicate, budget, timeout, detail, group) for i in indices
    ]


@dataclass
class GameResult:
    """A finished game, per seat (seat order) unless said otherwise. Plain values
    only, so it pickles cheaply and writes straight to JSON."""

    group: str
    index: int
    deal_seed: int
    seating: list[int]
    """Line-up entry sitting in each seat."""
    scores: list[int]
    winners: list[int]
    decisions: list[int]
    faults: list[int]
    rounds: int
    fault_messages: list[str] = field(default_factory=list)
    bot_stats: list[dict[str, Any]] = field(default_factory=list)
    """Per seat: extra counters a lab bot reports (``AvoidCardBot``: bites)."""
    detail: dict[str, Any] | None = None

    def entry_seat(self, entry: int) -> int:
        return self.seating.index(entry)

    def to_json(self) -> dict[str, Any]:
        """Every field by its name, in field order (the values as they are: plain already)."""
        return {f.name: getattr(self, f.name) for f in fields(self)}


@dataclass(frozen=True)
class AvoidEntrant:
    """A custom line-up entry that may never lay ``card`` (see :class:`AvoidCardBot`)."""

    card: str
    inner: BotFactory

    def __call__(self, game: str, seat: int, seed: int, budget: Budget | None) -> Bot:
        return AvoidCardBot(self.inner(game, seat, seed, budget), self.card)

    @property
    def __name__(self) -> str:
        return f"avoid={self.card}:{getattr(self.inner, '__name__', 'custom')}"


def avoiding(card: str, entrant: Entrant) -> Entrant:
    """``entrant`` forbidden to lay ``card``: an ``avoid=`` spec or an :class:`AvoidEntrant`."""
    if isinstance(entrant, str):
        return f"avoid={card}:{entrant}"
    return AvoidEntrant(card, entrant)


def build_bot(task: GameTask, entrant: Entrant, seat: int, seed: int) -> Bot:
    if isinstance(entrant, str):
        return make_lab_bot(task.game, entrant, seat, seed, task.budget, task.timeout)
    return entrant(task.game, seat, seed, task.budget)


def play_game(task: GameTask) -> GameResult:
    """Play ``task`` to the end (faults counted and replaced as in :mod:`spieltisch.bots.match`)."""
    n = task.players
    seats = seating(task.index, n)
    state = get_game(task.game).new_state(n, task.deal_seed, task.options)
    bots: list[Bot] = []
    try:
        for seat in range(n):
            entry = seats[seat]
            seed = derive_seed("lab", task.seed, "bot", task.index, entry)
            bots.append(build_bot(task, task.lineup[entry], seat, seed))
        fallback = random.Random(derive_seed("lab", task.seed, "fallback", task.index))
        decisions, faults = [0] * n, [0] * n
        messages: list[str] = []
        observer = _SchmausObserver(n) if task.detail and get_game(task.game).name == "schmaus" else None
        while not state.is_over():
            for seat in state.to_move():
                if seat not in state.to_move():
                    continue
                if observer is not None:
                    observer.before_decision(state)
                action, fault = decide(bots[seat], state, seat, fallback)
                if fault is not None:
                    faults[seat] += 1
                    if len(messages) < MAX_FAULT_MESSAGES:
                        messages.append(f"game {task.index} seat {seat}: {fault}")
                state.apply_id(seat, action)
                decisions[seat] += 1
                if state.is_over():
                    break
    finally:
        for bot in bots:
            bot.close()
    outcome = state.outcome()
    assert outcome is not None
    results = round_results(state)
    return GameResult(
        group=task.group,
        index=task.index,
        deal_seed=task.deal_seed,
        seating=list(seats),
        scores=list(outcome.scores),
        winners=list(outcome.winners),
        decisions=decisions,
        faults=faults,
        rounds=len(results),
        fault_messages=messages,
        bot_stats=[_lab_stats(bot) for bot in bots],
        detail=observer.finish(results) if observer is not None else None,
    )


def replay_record(record: GameRecord, index: int = 0, group: str = "") -> GameResult:
    """A finished game replayed from its record (a stored game of the web table), with
    the figures :func:`play_game` gives a bot game: scores, winners, decisions per seat,
    rounds and, in Waschbär-Schmaus, the round details. Raises :class:`RecordError`
    when the record does not replay or ends before the game does."""
    game = get_game(record.game)
    try:
        state = game.new_state(record.players, record.seed, record.options)
    except RulesError as exc:
        raise RecordError(f"broken game record: {exc}{record.version_note(game)}") from exc
    observer = _SchmausObserver(record.players) if game.name == "schmaus" else None
    decisions = [0] * record.players
    for number, (seat, text) in enumerate(record.actions, 1):
        if observer is not None:
            observer.before_decision(state)
        try:
            state.apply(seat, text)
        except RulesError as exc:
            raise RecordError(
                f"action {number} ({seat}: {text!r}) does not replay: {exc}{record.version_note(game)}"
            ) from exc
        decisions[seat] += 1
    outcome = state.outcome()
    if outcome is None:
        raise RecordError(f"the record ends after {len(record.actions)} actions, before the game does")
    results = round_results(state)
    return GameResult(
        group=group,
        index=index,
        deal_seed=record.seed,
        seating=list(range(record.players)),
        scores=list(outcome.scores),
        winners=list(outcome.winners),
        decisions=decisions,
        faults=[0] * record.players,
        rounds=len(results),
        detail=observer.finish(results) if observer is not None else None,
    )


def round_results(state: State) -> list[dict[str, Any]]:
    """The engine's per-round summaries (both engines keep them in ``results``)."""
    results: Any = getattr(state, "results", None)
    if results is None:
        results = state.view(None).get("round_results") or []
    return list(results)


def _lab_stats(bot: Bot) -> dict[str, Any]:
    stats = getattr(bot, "lab_stats", None)
    return dict(stats()) if callable(stats) else {}


NEGATIVE = ("HUNTER", "GARBAGE", "GROCER")

RULINGS: tuple[tuple[str, str], ...] = (
    ("W-5", "short-hand draws"),
    ("W-6", "empty-hand draws"),
    ("W-7", "guardian blocks a negative card"),
    ("W-8", "hunter voids the round"),
    ("W-9", "grocer zeroes an opponent"),
    ("W-10", "garbage halves the food"),
    ("W-14", "tie for the pot"),
    ("W-15", "tie for lowest (not a void round)"),
    ("W-16", "hand-limit discards"),
)
"""The rulings whose firing the variants study counts, in report order."""


def rulings_fired(result: Mapping[str, Any]) -> dict[str, int]:
    """Which rulings fired in one round (1/0 each), from the engine's round result."""
    plays: Sequence[Sequence[str]] = result.get("plays", [])
    negative_laid = any(card in NEGATIVE for play in plays for card in play)
    effects: Sequence[str] = result.get("effects", [])
    fired = {
        "W-5": any(result.get("short_hand_draws", [])),
        "W-6": any(result.get("empty_hand_draws", [])),
        "W-7": bool(result.get("guardian")) and negative_laid,
        "W-8": bool(result.get("hunter")),
        "W-9": any(e.startswith("W-9") for e in effects),
        "W-10": any(e.startswith("W-10") for e in effects),
        "W-14": len(result.get("winners", [])) > 1 and not result.get("hunter"),
        "W-15": len(result.get("lowest", [])) > 1 and not result.get("hunter"),
        "W-16": any(result.get("hand_limit_discards", [])),
    }
    return {rule: int(flag) for rule, flag in fired.items()}


class _SchmausObserver:
    """Hand sizes at the start of every round's lay (after W-5 draws and W-16 discards)."""

    def __init__(self, players: int) -> None:
        self.players = players
        self.hand_sizes: list[list[int]] = []

    def before_decision(self, state: State) -> None:
        from spieltisch.engine.schmaus.state import SchmausState

        if not isinstance(state, SchmausState) or state.phase != "play":
            return
        if len(self.hand_sizes) < state.round and all(p is None for p in state.plays):
            self.hand_sizes.append([sum(hand) for hand in state.hands])

    def finish(self, results: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
        fired = {rule: 0 for rule, _ in RULINGS}
        cards = {"W-5": 0, "W-6": 0, "W-16": 0}
        for result in results:
            for rule, flag in rulings_fired(result).items():
                fired[rule] += flag
            cards["W-5"] += sum(result.get("short_hand_draws", []))
            cards["W-6"] += sum(result.get("empty_hand_draws", []))
            cards["W-16"] += sum(result.get("hand_limit_discards", []))
        return {"rulings": fired, "cards": cards, "hand_sizes": self.hand_sizes, "lays": lays(results)}


def lays(results: Sequence[Mapping[str, Any]]) -> dict[str, list[int]]:
    """Per card: ``[lays holding it, of them lays that won the round's pot]`` (a round
    voided by the hunter, W-8, awards no pot: its lays did not win)."""
    out: dict[str, list[int]] = {}
    for result in results:
        winners = set() if result.get("hunter") else set(result.get("winners", []))
        for seat, play in enumerate(result.get("plays", [])):
            for card in set(play or ()):
                counts = out.setdefault(card, [0, 0])
                counts[0] += 1
                counts[1] += seat in winners
    return dict(sorted(out.items()))
