"""Scout actions, their notation and their fixed numbering.

Notation (hand positions are 0-based, left to right)::

    flip                 turn the whole hand (S-5)
    keep                 keep the hand as dealt (S-5)
    show 3-5             show the cards at positions 3, 4 and 5 (S-6)
    show 2               show the single card at position 2
    scout L @0           take the left card of the active set, insert at 0 (S-8)
    scout R flip @4      take the right card, turn it, insert at 4
    scout L @0 show 1-2  scout & show (S-9); the show's positions refer to the
                         hand after the insertion

Numbering (``H = MAX_HAND``)::

    0, 1                                 keep, flip
    2 + start*H + count-1                show
    SCOUT_BASE + (end*2+turn)*(H+1) + at scout
    SS_BASE + scout_index*H*H + show_index  scout & show
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from spieltisch.engine.base import parse_action
from spieltisch.engine.core import Action, InvalidActionError

MAX_HAND = 45
"""No hand can ever hold more than the 45 cards of the game."""

H = MAX_HAND
SHOW_BASE = 2
SCOUT_BASE = SHOW_BASE + H * H
SCOUTS = 4 * (H + 1)
SS_BASE = SCOUT_BASE + SCOUTS
NUM_ACTIONS = SS_BASE + SCOUTS * H * H

ENDS = ("left", "right")


@dataclass(frozen=True, slots=True)
class Flip(Action):
    turn: bool

    def to_text(self) -> str:
        return "flip" if self.turn else "keep"

    def to_json(self) -> dict[str, Any]:
        return {"type": "flip", "flip": self.turn}


@dataclass(frozen=True, slots=True)
class Show(Action):
    start: int
    count: int

    def to_text(self) -> str:
        end = self.start + self.count - 1
        return f"show {self.start}" if self.count == 1 else f"show {self.start}-{end}"

    def to_json(self) -> dict[str, Any]:
        return {"type": "show", "start": self.start, "count": self.count}


@dataclass(frozen=True, slots=True)
class Scout(Action):
    end: str
    """``"left"`` or ``"right"``."""
    turn: bool
    insert: int

    def to_text(self) -> str:
        side = "L" if self.end == "left" else "R"
        return f"scout {side}{' flip' if self.turn else ''} @{self.insert}"

    def to_json(self) -> dict[str, Any]:
        return {"type": "scout", "end": self.end, "flip": self.turn, "insert": self.insert}


@dataclass(frozen=True, slots=True)
class ScoutShow(Action):
    scout: Scout
    show: Show

    def to_text(self) -> str:
        return f"{self.scout.to_text()} {self.show.to_text()}"

    def to_json(self) -> dict[str, Any]:
        return {
            "type": "scout_show",
            "end": self.scout.end,
            "flip": self.scout.turn,
            "insert": self.scout.insert,
            "start": self.show.start,
            "count": self.show.count,
        }


ScoutAction = Flip | Show | Scout | ScoutShow

_SHOW = r"show\s+(\d+)(?:\s*-\s*(\d+))?"
_SCOUT = r"scout\s+([LR])(\s+flip)?\s+@(\d+)"
_RE_SHOW = re.compile(rf"^{_SHOW}$", re.I)
_RE_SCOUT = re.compile(rf"^{_SCOUT}$", re.I)
_RE_SCOUT_SHOW = re.compile(rf"^{_SCOUT}\s+{_SHOW}$", re.I)

NOTATION_HELP = "flip | keep | show 3-5 | scout L @2 | scout R flip @0 | scout L @0 show 1-2"


def _show(start: str, last: str | None) -> Show:
    a = int(start)
    b = int(last) if last is not None else a
    if b < a:
        raise InvalidActionError(f"show {a}-{b}: the last position comes before the first")
    return Show(a, b - a + 1)


def parse_text(text: str) -> ScoutAction:
    t = " ".join(text.strip().split())
    low = t.lower()
    if low in ("flip", "keep"):
        return Flip(low == "flip")
    if m := _RE_SHOW.match(t):
        return _show(m[1], m[2])
    if m := _RE_SCOUT.match(t):
        return Scout("left" if m[1].upper() == "L" else "right", bool(m[2]), int(m[3]))
    if m := _RE_SCOUT_SHOW.match(t):
        scout = Scout("left" if m[1].upper() == "L" else "right", bool(m[2]), int(m[3]))
        return ScoutShow(scout, _show(m[4], m[5]))
    raise InvalidActionError(f"cannot read Scout action {text!r}; write e.g. {NOTATION_HELP}")


def _int(data: Mapping[str, Any], key: str) -> int:
    value = data.get(key)
    if not isinstance(value, int) or isinstance(value, bool):
        raise InvalidActionError(f"Scout action {dict(data)!r}: {key!r} must be a whole number")
    return value


def _bool(data: Mapping[str, Any], key: str) -> bool:
    value = data.get(key, False)
    if not isinstance(value, bool):
        raise InvalidActionError(f"Scout action {dict(data)!r}: {key!r} must be true or false")
    return value


def _end(data: Mapping[str, Any]) -> str:
    value = data.get("end")
    if value not in ENDS:
        raise InvalidActionError(f"Scout action {dict(data)!r}: 'end' must be 'left' or 'right'")
    return str(value)


def parse_json(data: Mapping[str, Any]) -> ScoutAction:
    kind = data.get("type")
    if kind == "flip":
        return Flip(_bool(data, "flip"))
    if kind == "show":
        return Show(_int(data, "start"), _int(data, "count"))
    if kind == "scout":
        return Scout(_end(data), _bool(data, "flip"), _int(data, "insert"))
    if kind == "scout_show":
        scout = Scout(_end(data), _bool(data, "flip"), _int(data, "insert"))
        return ScoutShow(scout, Show(_int(data, "start"), _int(data, "count")))
    raise InvalidActionError(f"unknown Scout action type {kind!r} (flip, show, scout or scout_show)")


_TYPES: tuple[type[ScoutAction], ...] = (Flip, Show, Scout, ScoutShow)


def parse(action: object) -> ScoutAction:
    """From notation text, the scenario JSON form, or an action (returned as is)."""
    return parse_action(action, _TYPES, parse_text, parse_json, "Scout")


# -- numbering ---------------------------------------------------------------


def _show_index(show: Show) -> int:
    if not (0 <= show.start < H and 1 <= show.count <= H - show.start):
        raise InvalidActionError(f"{show.to_text()}: positions must lie within 0..{H - 1}")
    return show.start * H + show.count - 1


def _scout_index(scout: Scout) -> int:
    if not 0 <= scout.insert <= H:
        raise InvalidActionError(f"{scout.to_text()}: insert position must lie within 0..{H}")
    return (ENDS.index(scout.end) * 2 + scout.turn) * (H + 1) + scout.insert


def action_id(action: ScoutAction) -> int:
    if isinstance(action, Flip):
        return int(action.turn)
    if isinstance(action, Show):
        return SHOW_BASE + _show_index(action)
    if isinstance(action, Scout):
        return SCOUT_BASE + _scout_index(action)
    return SS_BASE + _scout_index(action.scout) * H * H + _show_index(action.show)


def _decode_show(index: int) -> Show:
    start, rest = divmod(index, H)
    if start + rest + 1 > H:  # ids of shows past position H-1 are unused
        last = start + rest
        raise InvalidActionError(f"no Scout action has this id: show {start}-{last} passes position {H - 1}")
    return Show(start, rest + 1)


def _decode_scout(index: int) -> Scout:
    side_turn, insert = divmod(index, H + 1)
    end, turn = divmod(side_turn, 2)
    return Scout(ENDS[end], bool(turn), insert)


def from_id(action_id: int) -> ScoutAction:
    if not 0 <= action_id < NUM_ACTIONS:
        raise InvalidActionError(f"Scout action id {action_id} is outside 0..{NUM_ACTIONS - 1}")
    if action_id < SHOW_BASE:
        return Flip(bool(action_id))
    if action_id < SCOUT_BASE:
        return _decode_show(action_id - SHOW_BASE)
    if action_id < SS_BASE:
        return _decode_scout(action_id - SCOUT_BASE)
    scout_index, show_index = divmod(action_id - SS_BASE, H * H)
    return ScoutShow(_decode_scout(scout_index), _decode_show(show_index))


@lru_cache(maxsize=1 << 16)
def text_of(action_id: int) -> str:
    """The notation of an action id (cached: views list every action of the game)."""
    return from_id(action_id).to_text()
