"""Scout tensors (numpy float32) built from views (docs/rl.md has the layout).

* :func:`observation` - what one seat sees now, from that seat's view only.
* :class:`PublicMemory` + :func:`information_state` - the observation plus
  what everybody saw earlier in the round (each seat's shown cards, its
  number of scouts), kept from public views step by step.
* :func:`spectator_tensor` - the observation of a spectator (no hand).
* :func:`full_state_tensor` - **every hand, for research only**: it reads the
  full state, so no agent should ever be given it.

Seats are relative: slot 0 is the observing seat, slot 1 the next seat
clockwise (S-4), and so on; a spectator's slot 0 is seat 0.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

from spieltisch.engine import State

MAX_HAND = 45
MAX_TABLE = 10
"""A set has at most 10 cards: a run 1..10; a match has at most 9 (S-1, S-6)."""
SEATS = 5
CARD = 20
"""A card slot: one-hot of the live number (1..10), then of the other number."""
SEAT_FEATURES = 8
SCALARS = 10

# Offsets of the sections of the observation vector.
HAND = 0
TABLE = HAND + MAX_HAND * CARD
OWNER = TABLE + MAX_TABLE * CARD
SEAT = OWNER + SEATS
KNOWN = SEAT + SEATS * SEAT_FEATURES
CAPTURED = KNOWN + (SEATS - 1) * 45
SCALAR = CAPTURED + 45
OBS_SIZE = SCALAR + SCALARS

SHOWN = OBS_SIZE
SCOUTED = SHOWN + SEATS * 45
INFO_SIZE = SCOUTED + SEATS

FULL_HANDS = OBS_SIZE
FULL_SIZE = FULL_HANDS + SEATS * MAX_HAND * CARD
SIZES = (OBS_SIZE, INFO_SIZE, FULL_SIZE)
"""The observation, information-state and full-state tensor sizes."""

Card = tuple[int, int]
Vector = npt.NDArray[np.float32]


def _parse(text: str) -> Card:
    top, bottom = text.split("/")
    return int(top), int(bottom)


_IDENTITY = {(a, b): i for i, (a, b) in enumerate((a, b) for a in range(1, 11) for b in range(a + 1, 11))}


def identity(card: Card) -> int:
    """0..44: the physical card, whichever way up."""
    a, b = card
    return _IDENTITY[(a, b) if a < b else (b, a)]


def _cards(out: Vector, offset: int, cards: Sequence[Card]) -> None:
    for i, (top, bottom) in enumerate(cards):
        base = offset + i * CARD
        out[base + top - 1] = 1.0
        out[base + 10 + bottom - 1] = 1.0


@dataclass(frozen=True, slots=True)
class PendingScout:
    """The scout half of a scout & show already chosen (S-9)."""

    end: str
    turn: bool
    insert: int


def _after_scout(
    hand: list[Card], table: list[Card], pending: PendingScout | None
) -> tuple[list[Card], list[Card]]:
    if pending is None or not table:
        return hand, table
    card = table[0] if pending.end == "left" else table[-1]
    rest = table[1:] if pending.end == "left" else table[:-1]
    if pending.turn:
        card = (card[1], card[0])
    return [*hand[: pending.insert], card, *hand[pending.insert :]], rest


def observation(view: Mapping[str, Any], pending: PendingScout | None = None) -> Vector:
    """The observation tensor of the seat whose view this is (``OBS_SIZE`` float32).

    With ``pending`` (this seat chose the scout half of a scout & show) the hand
    and table are shown as they are after that scout.
    """
    out = np.zeros(OBS_SIZE, dtype=np.float32)
    n: int = view["players"]
    me: int | None = view["seat"]
    origin = 0 if me is None else me
    hand = [_parse(c) for c in view["hand"] or ()]
    table_json = view["table"]
    table = [_parse(c) for c in table_json["cards"]] if table_json else []
    hand, table = _after_scout(hand, table, pending)
    _cards(out, HAND, hand)
    _cards(out, TABLE, table[:MAX_TABLE])
    if table_json and table:
        out[OWNER + (table_json["owner"] - origin) % n] = 1.0
    to_move = set(view["to_move"])
    decided = view["flip_decided"]
    for seat in range(n):
        rel = (seat - origin) % n
        base = SEAT + rel * SEAT_FEATURES
        out[base : base + SEAT_FEATURES] = (
            view["hand_sizes"][seat] / MAX_HAND,
            view["collected"][seat] / MAX_HAND,
            view["tokens"][seat] / MAX_HAND,
            view["chips"][seat] / 3,
            view["scores"][seat] / 50,
            1.0,
            seat in to_move,
            bool(decided and decided[seat]),
        )
        if rel:
            for text in view["hands"][seat]:
                if text is not None:
                    out[KNOWN + (rel - 1) * 45 + identity(_parse(text))] = 1.0
    for text in view["captured_cards"]:
        out[CAPTURED + identity(_parse(text))] = 1.0
    phase = view["phase"]
    out[SCALAR : SCALAR + 4] = (phase == "flip", phase == "play", phase == "over", pending is not None)
    out[SCALAR + 4 + n - 2] = 1.0
    out[SCALAR + 8] = view["round"] / 5
    out[SCALAR + 9] = view["rounds"] / 5
    return out


def spectator_tensor(state: State) -> Vector:
    """The observation of a spectator: public information only."""
    return observation(state.view(None, log=False))


@dataclass
class PublicMemory:
    """What everybody saw this round: the cards each seat showed and how often it scouted.

    Feed it every applied action (:meth:`after`) with the public view after it;
    it never reads hidden information.
    """

    players: int
    round: int = 1
    shown: list[set[int]] = field(default_factory=list)
    scouts: list[int] = field(default_factory=list)

    def __post_init__(self) -> None:
        self._reset(1)

    def _reset(self, round_number: int) -> None:
        self.round = round_number
        self.shown = [set() for _ in range(self.players)]
        self.scouts = [0] * self.players

    def after(self, seat: int, kind: str, public_view: Mapping[str, Any]) -> None:
        """``seat`` played an action of ``kind`` (keep/flip/show/scout/scout_show)."""
        if public_view["round"] != self.round:
            self._reset(public_view["round"])  # the round ended: a new deal
            return
        if kind in ("scout", "scout_show"):
            self.scouts[seat] += 1
        if kind in ("show", "scout_show"):
            table = public_view["table"]
            if table:
                self.shown[seat].update(identity(_parse(c)) for c in table["cards"])

    def copy(self) -> PublicMemory:
        out = PublicMemory(self.players)
        out.round = self.round
        out.shown = [set(s) for s in self.shown]
        out.scouts = list(self.scouts)
        return out


def information_state(
    view: Mapping[str, Any], memory: PublicMemory, pending: PendingScout | None = None
) -> Vector:
    """Observation + memory of the round (``INFO_SIZE`` float32)."""
    out = np.zeros(INFO_SIZE, dtype=np.float32)
    out[:OBS_SIZE] = observation(view, pending)
    n = view["players"]
    origin = view["seat"] or 0
    for seat in range(n):
        rel = (seat - origin) % n
        for card in memory.shown[seat]:
            out[SHOWN + rel * 45 + card] = 1.0
        out[SCOUTED + rel] = memory.scouts[seat] / 10
    return out


def full_state_tensor(state: State) -> Vector:
    """Spectator observation + every hand (seat order). **Research only: hidden information.**"""
    out = np.zeros(FULL_SIZE, dtype=np.float32)
    out[:OBS_SIZE] = spectator_tensor(state)
    data = state.to_json()
    for seat, hand in enumerate(data["hands"]):
        _cards(out, FULL_HANDS + seat * MAX_HAND * CARD, [_parse(c) for c in hand])
    return out
