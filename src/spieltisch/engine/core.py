"""The small protocol every game engine follows.

Code above the engine (bots, lab, server, learning environments) only talks to
these types, so it never needs to know which game it runs:

* a :class:`Game` makes new states from ``(players, seed, options)``, parses
  actions and rebuilds states and records from JSON;
* a :class:`State` says whose decision it is (:meth:`State.to_move`, one seat
  or several for sealed simultaneous decisions), lists and applies legal
  actions, tells when the game is over and produces per-seat views.

Two layers, as in python-chess: :meth:`State.apply` validates and raises
:class:`IllegalActionError` (naming the broken ruling) without touching the
state; :meth:`State.apply_id` is the fast trusted path for action ids taken
from :meth:`State.legal_action_ids`.
"""

from __future__ import annotations

import json
from abc import abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import Enum
from typing import Any, ClassVar, Protocol, Self

from spieltisch.engine._mypyc import mypyc_attr

JSON = Any
"""A value that :func:`json.dumps` accepts."""


class RulesError(ValueError):
    """Base of every error the engines raise for bad input."""


class InvalidActionError(RulesError):
    """The action is malformed: it does not parse or names impossible values."""


class IllegalActionError(RulesError):
    """The action is well formed but the rules forbid it now.

    ``str(error)`` is an English sentence that starts with the ruling id it
    breaks, e.g. ``"S-7: ..."``. So that a user interface can say the same in
    its own language, the error also carries ``ruling`` (that id; empty for a
    turn-order error), ``reason`` (a key of the game's :attr:`Game.reasons`
    catalogue, whose entry is the English template) and ``params`` (the values
    the template names; see :class:`Reasons` for their conventions).
    """

    def __init__(self, ruling: str, reason: str, template: str, params: Mapping[str, int | str]) -> None:
        self.ruling = ruling
        self.reason = reason
        self.template = template
        self.params = dict(params)
        text = template.format(**self.params)
        super().__init__(f"{ruling}: {text}" if ruling else text)

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (self.ruling, self.reason, self.template, self.params))


class WrongSeatError(IllegalActionError):
    """A seat tried to act although it is not that seat's decision."""


class GameOverError(IllegalActionError):
    """An action was sent after the game ended."""


@mypyc_attr(native_class=False)  # a compiled dict subclass mishandles the keyword call
class Reasons(dict[str, str]):
    """A catalogue of why actions are refused: reason key -> English template.

    Calling it makes the error: ``REASONS("S-7", "not_beating", shown="5-5",
    table="4-5-6")``. Parameters are language-neutral so that a translation can
    use them too: a name ending in ``seat`` is a seat number, one ending in
    ``seats`` a comma-separated list of seat numbers, one ending in ``card`` a
    card notation and one ending in ``cards`` several, separated by spaces.
    """

    def __call__(
        self,
        ruling: str,
        reason: str,
        /,
        error: type[IllegalActionError] = IllegalActionError,
        **params: int | str,
    ) -> IllegalActionError:
        return error(ruling, reason, self[reason], params)


TURN_REASONS = Reasons(
    game_over="the game is over: no more actions",
    no_such_seat="there is no seat {seat} (seats 0..{last})",
    not_your_decision="it is not seat {seat}'s decision (waiting for seats {waiting_seats})",
)
"""Refusals of :meth:`State.apply` shared by every game (part of each game's catalogue)."""


class OptionsError(RulesError):
    """Unknown rule option, bad value, or an impossible setup."""


class RecordError(RulesError):
    """A state or game record (JSON) is broken."""


@mypyc_attr(allow_interpreted_subclasses=True)  # the games' action dataclasses stay interpreted
class Action:
    """An action value: hashable, with a text notation that parses back.

    Like :class:`State`, an abstract base without ``abc.ABC``: mypy checks the
    abstract methods, and the compiled build (whose classes would share one
    ``ABCMeta`` cache, mixing up ``isinstance``) works.
    """

    @abstractmethod
    def to_text(self) -> str:
        """Short notation, e.g. ``show 2 3`` or ``play F5 F4 X3``."""

    @abstractmethod
    def to_json(self) -> dict[str, JSON]:
        """The action as the scenario files write it."""

    def __str__(self) -> str:
        return self.to_text()


class Termination(Enum):
    """How a game ended."""

    FINAL_ROUND = "final_round"


@dataclass(frozen=True, slots=True)
class Outcome:
    """Final totals and the winners (ties shared)."""

    scores: tuple[int, ...]
    winners: tuple[int, ...]
    termination: Termination = Termination.FINAL_ROUND

    def to_json(self) -> dict[str, JSON]:
        return {"scores": list(self.scores), "winners": list(self.winners)}


def winners_of(scores: Sequence[int]) -> tuple[int, ...]:
    """Every seat with the highest total (S-12, W-18: a tie is a shared win)."""
    best = max(scores)
    return tuple(seat for seat, score in enumerate(scores) if score == best)


@mypyc_attr(allow_interpreted_subclasses=True)  # e.g. spieltisch.rl.envs.chance's dealing states
class State:
    """A position of one game. Mutable; use :meth:`clone` to branch. An
    abstract base (see :class:`Action` on why it is no ``abc.ABC``)."""

    game: ClassVar[Game]
    players: int
    seed: int
    history: list[tuple[int, int]]
    """Every applied action as ``(seat, action id)``, in order."""

    # -- whose decision ------------------------------------------------------
    @abstractmethod
    def to_move(self) -> tuple[int, ...]:
        """Seats that must decide now: one seat, several for a sealed
        simultaneous decision, none once the game is over."""

    @abstractmethod
    def is_over(self) -> bool: ...

    @abstractmethod
    def outcome(self) -> Outcome | None:
        """Final result, or ``None`` while the game goes on."""

    # -- actions -------------------------------------------------------------
    @abstractmethod
    def legal_action_ids(self, seat: int) -> list[int]:
        """Ids of every legal action of ``seat`` (empty when it is not its turn)."""

    @abstractmethod
    def action_from_id(self, action_id: int) -> Action: ...

    @abstractmethod
    def action_id(self, action: Action) -> int: ...

    @abstractmethod
    def check(self, seat: int, action: Action) -> None:
        """Raise :class:`IllegalActionError` if ``seat`` may not play ``action``."""

    @abstractmethod
    def _apply(self, seat: int, action_id: int) -> None:
        """Apply a legal action; no validation."""

    def legal_actions(self, seat: int) -> list[Action]:
        return [self.action_from_id(a) for a in self.legal_action_ids(seat)]

    def is_legal(self, seat: int, action: Action | str | Mapping[str, JSON]) -> bool:
        """Whether :meth:`apply` would accept ``action`` from ``seat`` now (the
        same validation, so the two always agree)."""
        try:
            self.validate(seat, action)
        except RulesError:
            return False
        return True

    def legal_mask(self, seat: int) -> list[bool]:
        """One flag per action id (see :meth:`Game.num_actions`)."""
        mask = [False] * self.game.num_actions(self.players)
        for a in self.legal_action_ids(seat):
            mask[a] = True
        return mask

    def validate(self, seat: int, action: Action | str | Mapping[str, JSON]) -> tuple[Action, list[int]]:
        """The parsed action and the ids :meth:`apply` would play, or the
        :class:`RulesError` it would raise. Changes nothing."""
        parsed = self.game.parse_action(action)
        if self.is_over():
            raise TURN_REASONS("", "game_over", GameOverError)
        if not isinstance(seat, int) or not 0 <= seat < self.players:
            raise TURN_REASONS("", "no_such_seat", WrongSeatError, seat=seat, last=self.players - 1)
        if seat not in self.to_move():
            waiting = ", ".join(map(str, self.to_move()))
            raise TURN_REASONS("", "not_your_decision", WrongSeatError, seat=seat, waiting_seats=waiting)
        self.check(seat, parsed)
        return parsed, self.action_ids(parsed)

    def apply(self, seat: int, action: Action | str | Mapping[str, JSON]) -> Action:
        """Validate and apply; on error the state is left exactly as it was."""
        parsed, action_ids = self.validate(seat, action)
        for action_id in action_ids:
            self._apply(seat, action_id)
        return parsed

    def action_ids(self, action: Action) -> list[int]:
        """The ids that make up ``action`` (one, unless a game splits compound
        actions, like a Waschbär-Schmaus discard of several cards)."""
        return [self.action_id(action)]

    def apply_id(self, seat: int, action_id: int) -> None:
        """Fast, trusted path: ``action_id`` must come from :meth:`legal_action_ids`."""
        self._apply(seat, action_id)

    # -- information ---------------------------------------------------------
    @abstractmethod
    def view(self, seat: int | None, *, log: bool = True) -> dict[str, JSON]:
        """What ``seat`` may see (``None``: a spectator, public information only).

        ``log=False`` leaves out the game's action log (for callers that keep
        their own, like the web table)."""

    @abstractmethod
    def to_json(self) -> dict[str, JSON]:
        """The full state (hidden information included)."""

    @abstractmethod
    def clone(self) -> Self: ...

    @abstractmethod
    def describe(self) -> str:
        """A one-line form of the position for logs, tests and bug reports."""

    def record(self) -> GameRecord:
        """Seed, options and action log: replays to this state."""
        return GameRecord(
            game=self.game.name,
            players=self.players,
            seed=self.seed,
            options=self.game_options(),
            actions=[(seat, self.action_from_id(a).to_text()) for seat, a in self.history],
            rules_version=self.game.rules_version,
        )

    @abstractmethod
    def game_options(self) -> dict[str, JSON]:
        """The rule options in effect, as JSON."""

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and self.to_json() == other.to_json()  # type: ignore[attr-defined,unused-ignore]

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.describe()}>"


class Game(Protocol):
    """A game's module-level descriptor (metadata first, as in OpenSpiel)."""

    name: str
    title: str
    min_players: int
    max_players: int
    reasons: Reasons
    """Every reason an action can be refused, with its English template."""
    rules_version: str
    """The version of the rules this engine plays: it changes whenever a game
    record of the previous version might replay differently or not at all (a
    ruling, the deal or the notation changed). Stored with every game."""

    def new_state(self, players: int, seed: int, options: Mapping[str, JSON] | None = None) -> State: ...

    def num_actions(self, players: int) -> int:
        """Size of the fixed action numbering for this player count."""
        ...

    def parse_action(self, action: Action | str | Mapping[str, JSON]) -> Action:
        """From notation text, the scenario JSON form, or an action (returned as is)."""
        ...

    def action_from_id(self, action_id: int) -> Action:
        """The action with this id (the numbering is the same in every position)."""
        ...

    def action_id(self, action: Action | str | Mapping[str, JSON]) -> int:
        """The id of an action in the fixed numbering, whatever the position
        (:meth:`State.action_id` gives the id the action has in a position,
        which differs where two ways of writing it mean one action)."""
        ...

    def state_from_json(self, data: Mapping[str, JSON]) -> State: ...

    def normalize_options(self, options: Mapping[str, JSON] | None) -> dict[str, JSON]:
        """Validate rule options and fill in the defaults."""
        ...


@dataclass
class GameRecord:
    """Everything needed to replay a game: seed, options and the action log."""

    game: str
    players: int
    seed: int
    options: dict[str, JSON] = field(default_factory=dict)
    actions: list[tuple[int, str]] = field(default_factory=list)
    rules_version: str | None = None
    """The rules version of the engine that played it (:attr:`Game.rules_version`;
    ``None``: unknown, a record from before versions were kept)."""

    def to_json(self) -> dict[str, JSON]:
        data: dict[str, JSON] = {
            "game": self.game,
            "players": self.players,
            "seed": self.seed,
            "options": self.options,
            "actions": [[seat, text] for seat, text in self.actions],
        }
        if self.rules_version is not None:
            data["rules_version"] = self.rules_version
        return data

    def dumps(self) -> str:
        return json.dumps(self.to_json())

    @classmethod
    def from_json(cls, data: Mapping[str, JSON]) -> GameRecord:
        try:
            game = data["game"]
            players = data["players"]
            seed = data["seed"]
            options = data.get("options") or {}
            actions = [(int(seat), str(text)) for seat, text in data.get("actions", [])]
            rules_version = data.get("rules_version")
        except KeyError as exc:
            raise RecordError(f"broken game record: no {exc.args[0]!r}") from exc
        except (TypeError, ValueError) as exc:
            raise RecordError(f"broken game record: {exc}") from exc
        if (
            not isinstance(game, str)
            or not isinstance(players, int)
            or not isinstance(seed, int)
            or isinstance(players, bool)
            or isinstance(seed, bool)
        ):
            raise RecordError("broken game record: game, players and seed must be str, int, int")
        if not isinstance(options, dict):
            raise RecordError("broken game record: options must be an object")
        if rules_version is not None and not isinstance(rules_version, str):
            raise RecordError("broken game record: rules_version must be a string")
        return cls(game, players, seed, dict(options), actions, rules_version)

    def replay(self) -> State:
        """Rebuild the state by replaying every action (each one validated).

        A record of another rules version replays as long as its actions are legal
        under these rules; when one is not, the error says which versions differ."""
        from spieltisch.engine import get_game

        game = None
        try:
            game = get_game(self.game)
            state = game.new_state(self.players, self.seed, self.options)
        except RulesError as exc:
            raise RecordError(f"broken game record: {exc}{self.version_note(game)}") from exc
        for number, (seat, text) in enumerate(self.actions, 1):
            try:
                state.apply(seat, text)
            except RulesError as exc:
                raise RecordError(
                    f"action {number} ({seat}: {text!r}) does not replay: {exc}{self.version_note(game)}"
                ) from exc
        return state

    def version_note(self, game: Game | None) -> str:
        """`` (the record was played under rules version X; ...)`` when ``game`` plays
        another version than the record's, else ``""``."""
        if game is None or self.rules_version in (None, game.rules_version):
            return ""
        return (
            f" (the record was played under rules version {self.rules_version}; "
            f"this engine plays version {game.rules_version})"
        )
