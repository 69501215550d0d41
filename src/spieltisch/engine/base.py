"""What every game's engine shares, so that a game writes only its rules.

:mod:`spieltisch.engine.core` is the protocol code above the engine talks to;
this module is the implementation the games build on:

* :class:`BaseGame` — the game descriptor: metadata, factories, the action
  notation and numbering (taken from the game's ``actions`` module, an
  :class:`ActionCodec`);
* :class:`BaseState` — the frame of a state: the end of the game and its
  outcome, action ids, JSON reading and writing with the checks every game
  makes, the one-line description and the scaffolding of per-seat views. A
  game fills in the hooks (``_load_json``, ``_state_json``, ``_broken_rules``,
  ``_view_body`` …), its rules (``legal_action_ids``, ``check``, ``_apply``)
  and ``clone`` (which copies each of its attributes as deep as it is mutable).

The engine's hot modules, this one included, are plain typed classes and
functions that mypyc can compile (``scripts/build-fast``): no ``__dict__``
tricks, no method aliases, no attributes added after ``__init__``.
"""

from __future__ import annotations

import random
from abc import abstractmethod
from collections.abc import Callable, Mapping, Sequence
from typing import Any, ClassVar, Generic, Protocol, Self, TypeVar, cast

from spieltisch.engine import core
from spieltisch.engine._mypyc import mypyc_attr
from spieltisch.engine.core import JSON, Action, Reasons, State

A = TypeVar("A", bound=Action)
S = TypeVar("S", bound="BaseState")


def shuffle(deck: list[int], rng: random.Random) -> None:
    """Exactly ``rng.shuffle(deck)`` (CPython's Fisher-Yates over ``getrandbits``,
    as in :meth:`random.Random.shuffle` since Python 3.11), in code the compiled
    build turns into a C loop: every deal and reshuffle goes through it.
    ``tests/test_engine_api.py`` checks that both give the same order."""
    getrandbits = rng.getrandbits
    cards: list[Any] = deck  # (swapped as objects: no unboxing when compiled)
    for i in range(len(cards) - 1, 0, -1):
        n = i + 1
        k = n.bit_length()
        j = getrandbits(k)
        while j >= n:
            j = getrandbits(k)
        cards[i], cards[j] = cards[j], cards[i]


def parse_action(
    action: object,
    types: tuple[type[A], ...],
    parse_text: Callable[[str], A],
    parse_json: Callable[[Mapping[str, Any]], A],
    title: str,
) -> A:
    """An action from its notation text, its JSON form or itself."""
    if type(action) in types:  # faster than isinstance on ABC subclasses
        return cast(A, action)
    if isinstance(action, str):
        return parse_text(action)
    if isinstance(action, Mapping):
        return parse_json(action)
    raise core.InvalidActionError(f"not a {title} action: {action!r}")


class ActionCodec(Protocol):
    """A game's ``actions`` module: notation and fixed numbering."""

    NUM_ACTIONS: int

    def parse(self, action: object) -> Action: ...

    def from_id(self, action_id: int) -> Action: ...

    def action_id(self, action: Any) -> int: ...


class BaseGame(Generic[S]):
    """A game descriptor (see :class:`spieltisch.engine.core.Game`): made once
    per game, it also becomes its state class's ``game``."""

    def __init__(
        self,
        *,
        name: str,
        title: str,
        reasons: Reasons,
        state_class: type[S],
        codec: ActionCodec,
        normalize: Callable[[Mapping[str, Any] | None], dict[str, Any]] | None = None,
        min_players: int = 2,
        max_players: int = 5,
        rules_version: str = "1",
    ) -> None:
        self.name, self.title, self.reasons = name, title, reasons
        self.rules_version = rules_version
        self.state_class: type[S] = state_class
        self.codec = codec
        self.min_players, self.max_players = min_players, max_players
        self._normalize = normalize
        state_class.game = self

    def __reduce__(self) -> tuple[Callable[[str], Any], tuple[str]]:
        # One descriptor per game: a pickled game (in a bot sent to a worker process)
        # is the same game there, found by its name.
        from spieltisch.engine import get_game

        return get_game, (self.name,)

    def new_state(self, players: int, seed: int, options: Mapping[str, Any] | None = None) -> S:
        return self.state_class.new(players, seed, options)

    def num_actions(self, players: int) -> int:
        return self.codec.NUM_ACTIONS

    def parse_action(self, action: Action | str | Mapping[str, Any]) -> Action:
        return self.codec.parse(action)

    def action_from_id(self, action_id: int) -> Action:
        return self.codec.from_id(action_id)

    def action_id(self, action: Action | str | Mapping[str, Any]) -> int:
        return self.codec.action_id(self.codec.parse(action))

    def state_from_json(self, data: Mapping[str, Any]) -> S:
        return self.state_class.from_json(data)

    def normalize_options(self, options: Mapping[str, Any] | None) -> dict[str, Any]:
        """Validate rule options and fill in the defaults."""
        if self._normalize is not None:
            return self._normalize(options)
        if options:
            raise core.OptionsError(f"{self.title} has no rule options; got {sorted(options)}")
        return {}


@mypyc_attr(allow_interpreted_subclasses=True)
class BaseState(State):
    """The frame every game's state shares (see the module docstring)."""

    game: ClassVar[BaseGame[Any]]
    OVER: ClassVar[str]
    """The phase of a finished game."""
    PHASES: ClassVar[tuple[str, ...]]
    PLAYERS_RULING: ClassVar[str]
    """The ruling that sets the player counts."""
    phase: str
    round: int
    rounds: int
    # ``results`` (every round's summary) is the game's: an attribute or a property
    # (mypyc reads a base class's attribute directly, so it cannot be declared here).

    # -- construction --------------------------------------------------------
    @classmethod
    @abstractmethod
    def new(cls, players: int, seed: int, options: Mapping[str, Any] | None = None) -> Self:
        """A new game, dealt from ``seed``."""

    @classmethod
    def check_players(cls, players: object, hands: Sequence[object] | None = None) -> int:
        """The player count, or :class:`core.OptionsError` (with the hands of a hand-made table)."""
        low, high = cls.game.min_players, cls.game.max_players
        if not isinstance(players, int) or isinstance(players, bool) or not low <= players <= high:
            raise core.OptionsError(
                f"{cls.game.title} is for {low} to {high} players, not {players} ({cls.PLAYERS_RULING})"
            )
        if hands is not None and len(hands) != players:
            raise core.OptionsError(f"{players} players need {players} hands, got {len(hands)}")
        return players

    # -- end -----------------------------------------------------------------
    def is_over(self) -> bool:
        return self.phase == self.OVER

    def outcome(self) -> core.Outcome | None:
        if self.phase != self.OVER:
            return None
        scores = self.final_scores()
        return core.Outcome(tuple(scores), core.winners_of(scores))

    @abstractmethod
    def final_scores(self) -> list[int]:
        """The game totals so far."""

    # -- action ids ----------------------------------------------------------
    def action_from_id(self, action_id: int) -> Action:
        return self.game.codec.from_id(action_id)

    def action_id(self, action: Action) -> int:
        codec = self.game.codec
        return codec.action_id(codec.parse(action))

    # -- JSON ----------------------------------------------------------------
    def to_json(self) -> dict[str, JSON]:
        return {
            "game": self.game.name,
            "players": self.players,
            "seed": self.seed,
            **self._state_json(),
            "results": self._results(),
            "history": [list(h) for h in self.history],
        }

    @abstractmethod
    def _state_json(self) -> dict[str, JSON]:
        """The game's own part of :meth:`to_json`."""

    @classmethod
    def from_json(cls, data: Mapping[str, JSON]) -> Self:
        try:
            s = cls()
            s.players = int(data["players"])
            s.seed = int(data["seed"])
            s._load_json(data)
            s._set_results(list(data["results"]))
            s.history = [(int(a), int(b)) for a, b in data["history"]]
        except (KeyError, TypeError, ValueError, core.RulesError) as exc:
            raise core.RecordError(f"broken {cls.game.title} state: {exc}") from exc
        problem = s._broken(data)
        if problem:
            raise core.RecordError(f"broken {cls.game.title} state: {problem}")
        return s

    @abstractmethod
    def _results(self) -> list[dict[str, Any]]:
        """The game's ``results``: every round's summary so far."""

    @abstractmethod
    def _set_results(self, results: list[dict[str, Any]]) -> None:
        """Replace ``results`` (a state read from JSON)."""

    @abstractmethod
    def _load_json(self, data: Mapping[str, JSON]) -> None:
        """Read the game's own part of the state (may raise KeyError, TypeError,
        ValueError or a core.RulesError, all reported as a :class:`core.RecordError`)."""

    def _broken(self, data: Mapping[str, JSON]) -> str | None:
        """What makes a state read from JSON impossible, or ``None``."""
        n = self.players
        low, high = self.game.min_players, self.game.max_players
        if not low <= n <= high:
            return f"{self.game.title} is for {low} to {high} players, not {n} ({self.PLAYERS_RULING})"
        if self.phase not in self.PHASES:
            return f"unknown phase {self.phase!r}"
        for name, values in self._seat_lists().items():
            if len(values) != n:
                return f"{name!r} needs one entry per seat ({n}), got {len(values)}"
        problem = self._broken_rules()
        if problem:
            return problem
        results = data["results"]  # (checked as read: the compiled attribute only holds dicts)
        if not isinstance(results, list) or not all(isinstance(r, dict) for r in results):
            return "'results' must be a list of round summaries"
        total = self.game.num_actions(n)
        if any(not 0 <= seat < n or not 0 <= a < total for seat, a in self.history):
            return "'history' names an unknown seat or action id"
        return None

    @abstractmethod
    def _seat_lists(self) -> dict[str, Sequence[Any]]:
        """The attributes that hold one entry per seat, by their JSON name."""

    @abstractmethod
    def _broken_rules(self) -> str | None:
        """What the game's rules make impossible in this state, or ``None``."""

    # -- copies and descriptions ---------------------------------------------
    def _copy_extras(self, copy: BaseState) -> None:
        """Give ``copy`` (a :meth:`clone`) the attributes an interpreted subclass
        added (shallow copies, e.g. ``spieltisch.rl.envs.chance``'s chance queue); the
        game's own attributes are copied by its ``clone``."""
        extras = getattr(self, "__dict__", None)  # none on the game's own class when compiled
        if extras:
            copied = copy.__dict__
            for name, value in extras.items():
                if name not in copied:  # (pure Python keeps the game's attributes here too)
                    copied[name] = value

    def round_number(self) -> int:
        """The current round, 1-based."""
        return self.round

    def describe(self) -> str:
        hands = " | ".join(" ".join(self._hand_texts(seat)) for seat in range(self.players))
        mover = ",".join(map(str, self.to_move())) or "-"
        return (
            f"{self.game.name} {self.players}p round {self.round_number()}/{self.rounds} {self.phase} "
            f"to-move {mover} hands [{hands}] {self._describe_more()}"
        )

    @abstractmethod
    def _hand_texts(self, seat: int) -> list[str]:
        """A seat's cards in notation (for :meth:`describe`)."""

    @abstractmethod
    def _describe_more(self) -> str:
        """The rest of :meth:`describe` after the hands."""

    # -- views ---------------------------------------------------------------
    def view(self, seat: int | None, *, log: bool = True) -> dict[str, JSON]:
        over = self.phase == self.OVER
        head: dict[str, JSON] = {
            "game": self.game.name,
            "seat": seat,
            "players": self.players,
            **self._view_options(),
            "round": self.round_number(),
            "rounds": self.rounds,
            "phase": self.phase,
            "to_move": list(self.to_move()),
        }
        head.update(self._view_body(seat, over, log))
        outcome = self.outcome()
        head["outcome"] = outcome.to_json() if outcome is not None else None
        return head

    def _view_options(self) -> dict[str, JSON]:
        """Rule options shown in every view (none by default)."""
        return {}

    @abstractmethod
    def _view_body(self, seat: int | None, over: bool, log: bool) -> dict[str, JSON]:
        """The game's part of :meth:`view`, from ``hand`` on."""
