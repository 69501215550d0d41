"""Turn clocks of a room: a time per decision and/or a chess-style bank per player.

A room chooses its clock when it opens (:class:`ClockSettings`; none by
default, for friends' games):

* ``move`` - seconds for each decision;
* ``bank`` - seconds per player for the whole game, spent once a decision
  takes longer than ``move`` (all of it counts when there is no ``move``);
* ``grace`` - seconds a player may be disconnected, on their turn, before a
  bot plays for them;
* ``stand_in`` - the level of the bot that plays for a seat whose time ran
  out, whose player is away longer than ``grace``, or who left.

The clocks are *derived*, never stored: every action carries its server wall
time (``actions.at``), and :meth:`Clocks.replay` recomputes each seat's bank
and the start of its current decision from the stored log - after a restart,
or when another worker takes the room over. While the room runs, the timers
use monotonic time (:meth:`Clocks.deadline`); wall time is only what is stored.
A seat's decision starts when it becomes one of the seats to move; sealed
decisions (Waschbär-Schmaus' simultaneous lays, W-4) therefore run the clock
of everyone still to decide, and each seat's clock stops when it has decided.
At the web table, the room's owner runs a
:class:`~spieltisch.server.clock_timer.ClockTimer` that sleeps until the next deadline
and then sends the time-out through the room's one command path; terminal play uses
the same clocks.
"""

from __future__ import annotations

import math
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from spieltisch.engine import State

MAX_MOVE = 7 * 86400.0
"""At most a week per decision (a turn-based game: hours or days per move)."""
TURN_BASED = 3600.0
"""A clock with at least this many seconds per decision makes a turn-based game (lobby, "your games")."""
MAX_BANK = 7 * 86400.0
"""At most a week of bank per player."""
MAX_GRACE = 86400.0
DEFAULT_STAND_IN = "medium"
STAND_IN_PREFIX = "bot:"
"""``actions.by`` of a move a stand-in bot played: ``bot:LEVEL``."""


class ClockError(ValueError):
    """A clock setting that is not valid; the message names the field."""


@dataclass(frozen=True)
class ClockSettings:
    """A room's clock (docs/web.md, "Clocks and stand-in bots")."""

    move: float | None = None
    bank: float | None = None
    grace: float | None = None
    stand_in: str = DEFAULT_STAND_IN

    @property
    def timed(self) -> bool:
        """Whether decisions have a time limit (``move`` or ``bank``)."""
        return self.move is not None or self.bank is not None

    def to_json(self) -> dict[str, Any]:
        return {"move": self.move, "bank": self.bank, "grace": self.grace, "stand_in": self.stand_in}

    @classmethod
    def from_json(cls, data: Mapping[str, Any] | None, levels: Sequence[str]) -> ClockSettings | None:
        """Validate settings (``None`` or all-null: no clock); raises :class:`ClockError`
        naming the field that is wrong. ``levels``: the bot levels for ``stand_in``."""
        if data is None:
            return None
        unknown = sorted(set(data) - {"move", "bank", "grace", "stand_in"})
        if unknown:
            raise ClockError(f"clock.{unknown[0]}: unknown setting (use move, bank, grace, stand_in)")
        move = _seconds(data.get("move"), "move", MAX_MOVE, zero=False)
        bank = _seconds(data.get("bank"), "bank", MAX_BANK, zero=False)
        grace = _seconds(data.get("grace"), "grace", MAX_GRACE, zero=True)
        stand_in = data.get("stand_in")
        if stand_in is None:
            stand_in = DEFAULT_STAND_IN if DEFAULT_STAND_IN in levels else levels[0]
        if stand_in not in levels:
            raise ClockError(
                f"clock.stand_in: the bot level must be one of {', '.join(levels)}, not {stand_in!r}"
            )
        if move is None and bank is None and grace is None:
            return None
        return cls(move, bank, grace, str(stand_in))


def _seconds(value: Any, name: str, most: float, zero: bool) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise ClockError(f"clock.{name}: a number of seconds, not {value!r}")
    if value < 0 or (value == 0 and not zero):
        least = "0 or more" if zero else "more than 0"
        raise ClockError(f"clock.{name}: seconds must be {least}, not {value:g}")
    if value > most:
        raise ClockError(f"clock.{name}: at most {most:g} seconds, not {value:g}")
    return float(value)


def format_seconds(seconds: float) -> str:
    """75 -> "1:15", 3700 -> "1:01:40"; under 10 s with tenths: "7.3"."""
    s = max(0.0, seconds)
    if s < 10:
        return f"{s:.1f}"
    whole = int(s)
    hours, rest = divmod(whole, 3600)
    mins, secs = divmod(rest, 60)
    return f"{hours}:{mins:02d}:{secs:02d}" if hours else f"{mins}:{secs:02d}"


def stand_in_by(level: str) -> str:
    return f"{STAND_IN_PREFIX}{level}"


def stand_in_level(by: str | None) -> str | None:
    """The level in ``bot:LEVEL``; None for a move of the seat's own player."""
    if by is not None and by.startswith(STAND_IN_PREFIX):
        return by[len(STAND_IN_PREFIX) :]
    return None


class Clocks:
    """Each seat's bank and the start of its running decision.

    Times come in pairs: ``at`` (wall, as stored) and ``mono`` (monotonic, for
    the timers). :meth:`replay` rebuilds the clocks from a stored log."""

    def __init__(self, settings: ClockSettings, players: int) -> None:
        self.settings = settings
        self.bank: list[float | None] = [settings.bank] * players
        """Seconds left in each seat's bank (before its running decision)."""
        self.since: list[float | None] = [None] * players
        """Monotonic start of each seat's running decision (None: not deciding)."""

    def start(self, to_move: Iterable[int], mono: float) -> None:
        """The game begins: the first decisions' clocks start."""
        for s in to_move:
            self.since[s] = mono

    def moved(self, acted: Iterable[int], before: Iterable[int], after: Iterable[int], mono: float) -> None:
        """The seats ``acted`` decided at ``mono``; ``before``/``after``: the seats to move."""
        acted, before = set(acted), set(before)
        move = self.settings.move or 0.0
        for s in acted:
            since, bank = self.since[s], self.bank[s]
            if since is not None and bank is not None:
                self.bank[s] = max(0.0, bank - max(0.0, mono - since - move))
            self.since[s] = None
        after = set(after)
        for s in before - after:
            self.since[s] = None  # the decision went away (the round ended)
        for s in after:
            if s in acted or s not in before:
                self.since[s] = mono  # a new decision

    def deadline(self, seat: int) -> float | None:
        """When the seat's running decision times out (monotonic); None: no limit."""
        since = self.since[seat]
        if since is None or not self.settings.timed:
            return None
        return since + (self.settings.move or 0.0) + (self.bank[seat] or 0.0)

    def restart(self, seat: int, mono: float) -> None:
        """The seat's running decision starts again at ``mono`` (its own ``move`` time
        afresh; the bank keeps what is left): the player took the seat back."""
        if self.since[seat] is not None:
            self.since[seat] = mono

    def pause(self, mono: float) -> None:
        """Restart the running decisions at ``mono``: the time since did not count
        (the terminal table, while a round summary waits for Enter)."""
        self.since = [None if since is None else mono for since in self.since]

    def text(self, seat: int, mono: float) -> str:
        """The seat's time left: "0:12 + 4:00" (this decision + bank), "0:12" or "4:00"."""
        entry = self.snapshot(mono)[seat]
        return " + ".join(format_seconds(entry[k]) for k in ("move", "bank") if entry[k] is not None)

    def snapshot(self, mono: float) -> list[dict[str, Any]]:
        """Per seat, as of ``mono``: ``running``, ``move`` (seconds left of the
        decision's own time) and ``bank`` (seconds left in the bank)."""
        out: list[dict[str, Any]] = []
        move = self.settings.move
        for s, (since, bank) in enumerate(zip(self.since, self.bank, strict=True)):
            spent = 0.0 if since is None else max(0.0, mono - since)
            entry: dict[str, Any] = {"seat": s, "running": since is not None, "move": None, "bank": None}
            if move is not None:
                entry["move"] = round(max(0.0, move - spent) if since is not None else move, 3)
                spent = max(0.0, spent - move)
            if bank is not None:
                entry["bank"] = round(max(0.0, bank - spent), 3)
            out.append(entry)
        return out

    @classmethod
    def replay(
        cls,
        settings: ClockSettings,
        state: State,
        started: float,
        actions: Sequence[tuple[int, str]],
        times: Sequence[float | None],
        now: tuple[float, float] | None = None,
    ) -> tuple[Clocks, State]:
        """The clocks after the stored log, and the state (``state``: the game's
        first position, played forward here). ``started`` and ``times`` are wall
        times; ``now`` is ``(wall, monotonic)`` (default: the present), which
        turns them into monotonic times."""
        wall, mono = now if now is not None else (time.time(), time.monotonic())

        def to_mono(at: float) -> float:
            return mono - (wall - at)

        clocks = cls(settings, state.players)
        clocks.start(state.to_move(), to_mono(started))
        last = started
        for (seat, text), at in zip(actions, times, strict=True):
            before = state.to_move()
            state.apply(seat, text)
            last = at if at is not None else last
            clocks.moved([seat], before, state.to_move() if not state.is_over() else [], to_mono(last))
        return clocks, state
