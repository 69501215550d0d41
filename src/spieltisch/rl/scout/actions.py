"""Scout's small action space for learning code (1,405 ids; docs/rl.md).

The engine numbers every Scout action, scout & show combinations included, in
one flat range of 374,811 ids. Learning code gets a factored space instead: a
scout & show (S-9) is **two decisions** by the same seat, first the scout half
(a ``scout&show`` id), then the show half (a ``show`` id, positions in the hand
after the insertion). Layout::

    0                 keep (S-5)
    1                 flip (S-5)
    2 .. 1036         show: start s (0..44), count c (1..45-s)
    1037 .. 1220      scout: 1037 + (end*2 + turn)*46 + insert   (end 0 = L, 1 = R)
    1221 .. 1404      scout half of a scout & show, same layout from 1221

Every id is derived from the engine's own legal action list, so the mask is
exact whatever the engine lists. When the active set holds one card, its
"left" and "right" card are the same card: only the ``L`` id is used (S-8),
and it maps to whichever of the two the engine lists. A scout & show that
shows the scouted card alone leaves the hand as it was wherever the card was
inserted: only insert position 0 is used for it. So no two ids (or id pairs)
ever mean the same action.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np
import numpy.typing as npt

from spieltisch.engine import InvalidActionError, get_game
from spieltisch.engine.scout import Flip, Scout, ScoutShow, Show

MAX_HAND = 45
"""No hand holds more than the 45 cards of the game."""
INSERTS = MAX_HAND + 1

KEEP, FLIP = 0, 1
SHOW_BASE = 2
NUM_SHOWS = MAX_HAND * (MAX_HAND + 1) // 2
SCOUT_BASE = SHOW_BASE + NUM_SHOWS
NUM_SCOUTS = 4 * INSERTS
SCOUT_SHOW_BASE = SCOUT_BASE + NUM_SCOUTS
NUM_ACTIONS = SCOUT_SHOW_BASE + NUM_SCOUTS

ENDS = ("left", "right")
_GAME = get_game("scout")


def _show_offset(start: int) -> int:
    return start * MAX_HAND - start * (start - 1) // 2


def show_id(start: int, count: int) -> int:
    """The id of ``show start..start+count-1``."""
    if not (0 <= start < MAX_HAND and 1 <= count <= MAX_HAND - start):
        raise InvalidActionError(f"show {start} (+{count}): positions must lie within 0..{MAX_HAND - 1}")
    return SHOW_BASE + _show_offset(start) + count - 1


def scout_index(end: str, turn: bool, insert: int) -> int:
    if not 0 <= insert <= MAX_HAND:
        raise InvalidActionError(f"scout @{insert}: insert position must lie within 0..{MAX_HAND}")
    return (ENDS.index(end) * 2 + int(turn)) * INSERTS + insert


@dataclass(frozen=True, slots=True)
class Decoded:
    """What a learning id stands for."""

    kind: str
    """``keep``, ``flip``, ``show``, ``scout`` or ``scout_show`` (the scout half)."""
    start: int = 0
    count: int = 0
    end: str = "left"
    turn: bool = False
    insert: int = 0


@lru_cache(maxsize=NUM_ACTIONS)
def decode(rl_id: int) -> Decoded:
    """The decision an id stands for (raises :class:`InvalidActionError` outside 0..1404)."""
    if not 0 <= rl_id < NUM_ACTIONS:
        raise InvalidActionError(f"Scout learning action id {rl_id} is outside 0..{NUM_ACTIONS - 1}")
    if rl_id < SHOW_BASE:
        return Decoded("flip" if rl_id == FLIP else "keep")
    if rl_id < SCOUT_BASE:
        index = rl_id - SHOW_BASE
        start = 0
        while _show_offset(start + 1) <= index:
            start += 1
        return Decoded("show", start=start, count=index - _show_offset(start) + 1)
    kind = "scout" if rl_id < SCOUT_SHOW_BASE else "scout_show"
    side_turn, insert = divmod((rl_id - SCOUT_BASE) % NUM_SCOUTS, INSERTS)
    end, turn = divmod(side_turn, 2)
    return Decoded(kind, end=ENDS[end], turn=bool(turn), insert=insert)


def _scout_text(d: Decoded) -> str:
    return Scout(d.end, d.turn, d.insert).to_text()


def to_text(rl_id: int, pending: int | None = None) -> str:
    """Engine notation of a decision.

    A scout-half id reads ``scout L @2 show …``; with ``pending`` (the scout
    half already chosen) a show id reads as the whole engine action, e.g.
    ``scout L @2 show 1-3``.
    """
    d = decode(rl_id)
    if d.kind in ("keep", "flip"):
        return d.kind
    if d.kind == "show":
        text = Show(d.start, d.count).to_text()
        if pending is not None:
            p = decode(pending)
            if p.kind != "scout_show":
                raise InvalidActionError(f"id {pending} is not the scout half of a scout & show")
            return f"{_scout_text(p)} {text}"
        return text
    text = _scout_text(d)
    return text if d.kind == "scout" else f"{text} show …"


@lru_cache(maxsize=1 << 17)
def from_engine_id(engine_id: int) -> tuple[int, ...]:
    """The learning ids (one, or two for a scout & show) of an engine action id."""
    action = _GAME.action_from_id(engine_id)
    return from_action(action)


def from_action(action: object) -> tuple[int, ...]:
    """The learning ids of an engine action (a value or its notation text)."""
    act = _GAME.parse_action(action)  # type: ignore[arg-type]
    if isinstance(act, Flip):
        return (FLIP if act.turn else KEEP,)
    if isinstance(act, Show):
        return (show_id(act.start, act.count),)
    if isinstance(act, Scout):
        return (SCOUT_BASE + scout_index(act.end, act.turn, act.insert),)
    assert isinstance(act, ScoutShow)
    scout = SCOUT_SHOW_BASE + scout_index(act.scout.end, act.scout.turn, act.scout.insert)
    return (scout, show_id(act.show.start, act.show.count))


def from_text(text: str) -> tuple[int, ...]:
    """Engine notation -> learning ids, e.g. ``"scout R @0 show 1-2"`` -> ``(1313, 48)``."""
    return from_action(text)


def _canonical(ids: tuple[int, ...], one_card: bool) -> tuple[int, ...]:
    """The one id (pair) of all those that mean the same action (docs/rl.md).

    * A one-card set's right end is folded onto its left end (S-8).
    * A scout & show that shows the scouted card alone leaves the hand as it
      was, wherever the card went: folded onto ``@0 show 0``.
    * A scout & show that inserts the card right after the shown cards gives
      the same hand as inserting it right before them: folded onto "before".
    """
    first = ids[0]
    if one_card and first >= SCOUT_BASE and (first - SCOUT_BASE) % NUM_SCOUTS >= 2 * INSERTS:
        first -= 2 * INSERTS
    if len(ids) == 1:
        return (first,)
    insert = (first - SCOUT_SHOW_BASE) % INSERTS
    show = decode(ids[1])
    if show.count == 1 and show.start == insert:
        return (first - insert, show_id(0, 1))
    if show.start + show.count == insert:
        return (first - show.count, show_id(show.start + 1, show.count))
    return (first, ids[1])


@dataclass
class ScoutLegal:
    """One seat's legal decisions at one position.

    ``complete`` maps a learning id of a whole action to its engine id;
    ``halves`` maps each legal scout-half id to ``{show id: engine id}``.
    """

    complete: dict[int, int] = field(default_factory=dict)
    halves: dict[int, dict[int, int]] = field(default_factory=dict)

    def ids(self, pending: int | None = None) -> list[int]:
        """Sorted legal learning ids (the show halves after ``pending``)."""
        if pending is not None:
            return sorted(self.halves[pending])
        return sorted([*self.complete, *self.halves])

    def mask(self, pending: int | None = None) -> npt.NDArray[np.int8]:
        out = np.zeros(NUM_ACTIONS, dtype=np.int8)
        out[self.ids(pending)] = 1
        return out

    def engine_id(self, rl_id: int, pending: int | None = None) -> int | None:
        """The engine id a decision completes, ``None`` when it is a scout half."""
        if pending is not None:
            shows = self.halves.get(pending, {})
            if rl_id not in shows:
                raise InvalidActionError(f"{to_text(rl_id)} is not a legal show after {to_text(pending)}")
            return shows[rl_id]
        if rl_id in self.complete:
            return self.complete[rl_id]
        if rl_id in self.halves:
            return None
        raise InvalidActionError(f"Scout learning action {rl_id} ({to_text(rl_id)}) is not legal now")


def legal(engine_ids: Sequence[int], table_size: int) -> ScoutLegal:
    """Learning ids of the engine's legal actions; ``table_size`` is the active set's size."""
    out = ScoutLegal()
    one_card = table_size == 1
    for engine_id in engine_ids:
        ids = _canonical(from_engine_id(engine_id), one_card)
        if len(ids) == 1:
            out.complete.setdefault(ids[0], engine_id)
        else:
            out.halves.setdefault(ids[0], {}).setdefault(ids[1], engine_id)
    return out
