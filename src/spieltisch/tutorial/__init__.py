"""Learn to play: guided lessons built from scripted positions (issue #35).

A lesson is a list of steps, one rule each. A step is a position written in the
rule scenarios' setup format (``shared/scenarios/FORMAT.md``; built by
:func:`spieltisch.scenarios.position`), optional scripted moves that lead to the
moment taught (``before``), the move or moves it teaches (``teach``, in the
server's notation, always for seat 0, the learner) and the other seats' replies
(``then``). :func:`attempt` lets only a taught move through: an illegal move is
refused with the engine's ruling, a legal one that the step does not teach with
:data:`NOT_TAUGHT`. The lessons are JSON files beside this module; their texts are
the web table's (``tutorial.<game>.<step>.*`` in ``web/static/i18n``), so a step
is only data. Lessons end in a short game against easy bots (:data:`FINAL_GAME`).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

from spieltisch.engine import get_game
from spieltisch.engine.core import IllegalActionError, RulesError, State
from spieltisch.scenarios import ScenarioError, position

LEARNER = 0
"""The learner's seat in every step."""

GAMES = ("scout", "schmaus")

NOT_TAUGHT = "not_taught"
"""The refusal of a legal move that the step does not teach."""

FINAL_GAME: dict[str, dict[str, Any]] = {
    # The short game a lesson ends in: the learner against easy bots, hints on.
    # Scout with 3 players, the smallest game with every rule taught (S-9, S-10 b).
    "scout": {"players": 3, "options": {}},
    "schmaus": {"players": 2, "options": {"rounds": 4}},
}


class LessonError(ValueError):
    """A lesson file that does not make sense (a bug in the lesson, not the learner's)."""


@dataclass(frozen=True)
class Step:
    """One rule taught at one position."""

    id: str
    rules: tuple[str, ...]
    setup: Mapping[str, Any]
    before: tuple[Mapping[str, Any], ...]
    teach: tuple[str, ...]
    then: tuple[Mapping[str, Any], ...]

    def position(self, game: str) -> State:
        """The position the learner sees: the setup with the ``before`` moves played."""
        state = position(game, self.setup)
        _play(state, self.before, f"step {self.id!r}, before")
        if LEARNER not in state.to_move():
            raise LessonError(f"step {self.id!r}: the learner (seat 0) is not to move")
        return state


@dataclass(frozen=True)
class Lesson:
    game: str
    steps: tuple[Step, ...]

    def step(self, index: int) -> Step:
        if not 0 <= index < len(self.steps):
            raise IndexError(f"the {self.game} lesson has steps 0..{len(self.steps) - 1}, not {index}")
        return self.steps[index]


@dataclass(frozen=True)
class Outcome:
    """What became of a move tried at a step: ``accepted`` with the state after it
    and the replies, or refused, ``refusal`` saying why in the fields of the
    server's ``illegal`` message (``reason``, ``message``; for a rule broken also
    ``ruling`` and ``params``), ``reason`` :data:`NOT_TAUGHT` for a legal move
    that the step does not teach."""

    accepted: bool
    state: State
    refusal: Mapping[str, Any] | None = None


def canonical(game: str, text: str) -> str:
    """A move's notation as the engine writes it (``play F3 F5 F4`` -> ``play F3 F4 F5``)."""
    return get_game(game).parse_action(text).to_text()


def attempt(game: str, step: Step, text: str) -> Outcome:
    """Try the learner's move ``text`` at ``step``; only a taught move changes anything."""
    state = step.position(game)
    try:
        action = state.game.parse_action(text)
        state.check(LEARNER, action)
    except RulesError as exc:
        refusal: dict[str, Any] = {"reason": getattr(exc, "reason", "malformed"), "message": str(exc)}
        if isinstance(exc, IllegalActionError):
            refusal |= {"ruling": exc.ruling, "params": exc.params}
        return Outcome(False, state, refusal)
    if action.to_text() not in {canonical(game, t) for t in step.teach}:
        message = f"{action.to_text()} is a legal move, but this step teaches {' or '.join(step.teach)}"
        return Outcome(False, state, {"reason": NOT_TAUGHT, "message": message})
    state.apply(LEARNER, action)
    _play(state, step.then, f"step {step.id!r}, then")
    return Outcome(True, state)


@cache
def lesson(game: str) -> Lesson:
    """The lesson of ``game`` (``scout`` or ``schmaus``), checked when it is loaded."""
    if game not in GAMES:
        raise KeyError(f"no lesson for {game!r}: choose {' or '.join(GAMES)}")
    data = json.loads(resources.files(__package__).joinpath(f"{game}.json").read_text("utf-8"))
    if data.get("game") != game:
        raise LessonError(f"{game}.json: 'game' must be {game!r}")
    steps = tuple(_step(game, raw) for raw in data["steps"])
    ids = [s.id for s in steps]
    if len(set(ids)) != len(ids):
        raise LessonError(f"{game}.json: step ids repeat: {ids}")
    return Lesson(game, steps)


def _step(game: str, raw: Mapping[str, Any]) -> Step:
    try:
        step = Step(
            id=str(raw["id"]),
            rules=tuple(raw["rules"]),
            setup=raw["setup"],
            before=tuple(raw.get("before", ())),
            teach=tuple(raw["teach"]),
            then=tuple(raw.get("then", ())),
        )
    except KeyError as exc:
        raise LessonError(f"{game}.json: a step misses {exc}") from None
    if not step.teach:
        raise LessonError(f"step {step.id!r} teaches nothing")
    try:  # every taught move must be legal where it is taught, and the replies after it
        for text in step.teach:
            state = step.position(game)
            state.apply(LEARNER, text)
            _play(state, step.then, f"step {step.id!r}, then")
    except (RulesError, ScenarioError) as exc:
        raise LessonError(f"{game}.json, step {step.id!r}: {exc}") from None
    return step


def _play(state: State, moves: Sequence[Mapping[str, Any]], where: str) -> None:
    for move in moves:
        try:
            state.apply(int(move["player"]), move["action"])
        except (RulesError, KeyError, TypeError, ValueError) as exc:
            raise LessonError(f"{where}: {move!r}: {exc}") from None
