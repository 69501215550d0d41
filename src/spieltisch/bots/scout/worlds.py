"""What a Scout seat knows, read from its view, and worlds consistent with it.

A view (``ScoutState.view(seat)``) holds the seat's own hand, the table, every
hand's size with the cards other players scouted openly at their positions
(``None`` elsewhere), chips, tokens, captured counts, scores and the public
log. :class:`Knowledge` turns that into card ids and remembers, across the
calls of one game, every card the seat has seen this round: a card that was
public once (shown or scouted openly) is never hidden again, so it cannot be
in an opponent's unknown slot (S-8 keeps scouted cards visible).

The view also lists the cards captured this round (``captured_cards``: they
lay on the table for everybody to see), so no sampled world gives an opponent
a card that is already in a score pile.
"""

from __future__ import annotations

import math
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from spieltisch.bots.scout.policy import hand_value
from spieltisch.engine.scout import ScoutState, parse_card
from spieltisch.engine.scout.cards import ALL_CARDS, BOTTOM, TOP, TURNED, identity
from spieltisch.engine.scout.state import REMOVED

FLIP_WORDS = ("flip", "keep", "decided")


def cards_of(texts: Sequence[str | None]) -> list[int | None]:
    return [None if t is None else parse_card(t) for t in texts]


@dataclass
class Position:
    """One decision point as the seat sees it, in card ids."""

    seat: int
    players: int
    phase: str
    round: int
    rounds: int
    hand: list[int]
    hands: list[list[int | None]]
    table: list[int]
    owner: int | None
    chips: list[int]
    collected: list[int]
    tokens: list[int]
    scores: list[int]
    start: int | None
    """The seat that starts this round, when the view tells it."""

    @classmethod
    def from_view(cls, view: Mapping[str, Any]) -> Position:
        seat = view["seat"]
        if not isinstance(seat, int):
            raise ValueError("a Scout bot needs a seat's view, not a spectator's")
        players = int(view["players"])
        table = view["table"]
        round_no = int(view["round"])
        return cls(
            seat=seat,
            players=players,
            phase=str(view["phase"]),
            round=round_no,
            rounds=int(view["rounds"]),
            hand=[parse_card(t) for t in view["hand"]],
            hands=[cards_of(h) for h in view["hands"]],
            table=[parse_card(t) for t in table["cards"]] if table else [],
            owner=table["owner"] if table else None,
            chips=list(view["chips"]),
            collected=list(view["collected"]),
            tokens=list(view["tokens"]),
            scores=list(view["scores"]),
            start=_round_start(view["log"], players, round_no),
        )


def _round_start(log: Sequence[Mapping[str, Any]], players: int, round_no: int) -> int | None:
    """S-3, S-4: the first non-flip move of the log was round 1's start player;
    the start passes clockwise each round. ``None`` before round 1's first turn."""
    for entry in log:
        if entry["action"] not in FLIP_WORDS:
            return (int(entry["seat"]) + round_no - 1) % players
    return None


@dataclass
class Knowledge:
    """Cards seen per round, remembered across the calls of one game."""

    log: list[Any] = field(default_factory=list)
    seen: dict[int, set[int]] = field(default_factory=dict)

    def update(self, view: Mapping[str, Any], pos: Position) -> None:
        log = list(view["log"])
        if len(log) < len(self.log) or log[: len(self.log)] != self.log:
            self.seen = {}  # another game (or a jump back): start over
        self.log = log
        seen = self.seen.setdefault(pos.round, set())
        seen.update(identity(c) for c in pos.hand)
        seen.update(identity(c) for c in pos.table)
        seen.update(identity(parse_card(t)) for t in view.get("captured_cards", ()))
        for h in pos.hands:
            seen.update(identity(c) for c in h if c is not None)
        for r in view["round_results"]:
            table = r.get("table")
            if table:
                self.seen.setdefault(int(r["round"]), set()).update(
                    identity(parse_card(t)) for t in table["cards"]
                )

    def unseen(self, pos: Position) -> list[int]:
        """Cards (smaller number on top) that may be in an opponent's unknown slot."""
        removed = set(REMOVED[pos.players])
        if pos.players == 2 and pos.round == 2:
            # S-16: round 2 plays the 22 cards set aside in round 1.
            removed |= self.seen.get(1, set())
        seen = self.seen.get(pos.round, set())
        return [c for c in ALL_CARDS if c not in removed and c not in seen]


@dataclass(frozen=True)
class Structure:
    """How :func:`sample_hands` leans an opponent's sampled hand towards sets.

    Medium players keep structured hands: they insert a scouted card where it
    makes a set and pick the better way up (S-5, S-8). In 5-player medium
    games (seeds 5000-5039) an opponent's adjacent cards form a set (a match
    or a run step, S-6) in 51% of the pairs, but in 40% of a uniform world's;
    an openly scouted card has a set-forming neighbour in 94% of the cases,
    against 59%. So, in the play phase, each opponent's hidden cards are drawn
    ``tries`` times and one filling is kept with weight ``exp(sharpness *
    hand_value)`` (sampling-importance-resampling; medium's hand value, S-6
    sets). ``tries=6, sharpness=1`` gives 52% set pairs (docs/bots.md,
    "Structured worlds: hard@v12").
    """

    tries: int = 6
    sharpness: float = 1.0


def sample_hands(
    pos: Position, pool: Sequence[int], rng: random.Random, structure: Structure | None = None
) -> list[list[int]]:
    """Fill every unknown slot of the opponents' hands with a random unseen card;
    openly scouted cards stay where they are.

    Players choose the better way up for their hand (S-5), so a sampled hand is
    dealt in a random orientation (S-1) and then kept or turned - its hidden
    cards mirrored and turned, like a real flip - whichever the medium policy's
    hand value prefers. (Without this the opponents' sampled hands are weaker
    than real ones and the search wins no more than the medium bot.) With a
    ``structure`` (in the play phase), each hand leans towards sets (:class:`Structure`).
    """
    deck = list(pool)
    rng.shuffle(deck)
    hands: list[list[int]] = []
    k = 0
    for s, h in enumerate(pos.hands):
        if s == pos.seat:
            hands.append(list(pos.hand))
            continue
        slots = [i for i, c in enumerate(h) if c is None]
        if structure is not None and pos.phase == "play":
            hands.append(_structured_hand(h, slots, deck, rng, structure))
            continue
        drawn = [TURNED[d] if rng.random() < 0.5 else d for d in deck[k : k + len(slots)]]
        k += len(slots)
        hands.append(_better_way_up(h, slots, drawn))
    return hands


def _structured_hand(
    h: Sequence[int | None], slots: Sequence[int], deck: list[int], rng: random.Random, structure: Structure
) -> list[int]:
    """One of ``structure.tries`` fillings of the ``slots`` from ``deck``, drawn
    by weight ``exp(sharpness * hand value)``; its cards leave ``deck``."""
    fillings: list[tuple[list[int], list[int]]] = []
    values: list[float] = []
    m = min(len(slots), len(deck))
    for _ in range(structure.tries):
        picked = rng.sample(range(len(deck)), m)
        drawn = [TURNED[deck[j]] if rng.random() < 0.5 else deck[j] for j in picked]
        hand = _better_way_up(h, slots[:m], drawn)
        fillings.append((picked, hand))
        values.append(hand_value([TOP[c] for c in hand]))
    top = max(values)
    weights = [math.exp(structure.sharpness * (v - top)) for v in values]
    picked, hand = rng.choices(fillings, weights)[0]
    for j in sorted(picked, reverse=True):
        deck.pop(j)
    return hand


def _better_way_up(h: Sequence[int | None], slots: Sequence[int], drawn: Sequence[int]) -> list[int]:
    dealt = list(h)
    turned = list(h)
    for i, c, t in zip(slots, drawn, reversed(drawn), strict=True):
        dealt[i] = c
        turned[i] = TURNED[t]
    a = [c for c in dealt if c is not None]
    b = [c for c in turned if c is not None]
    va = hand_value([TOP[c] for c in a])
    vb = hand_value([TOP[c] for c in b])
    return b if vb > va else a


def _first_holder(hands: Sequence[Sequence[int]]) -> int:
    """S-3: who holds the lowest card (the 1/2 card whenever it is dealt)."""
    best = (99, 99, 0)
    for seat, hand in enumerate(hands):
        for c in hand:
            lo, hi = sorted((TOP[c], BOTTOM[c]))
            if (lo, hi, seat) < best:
                best = (lo, hi, seat)
    return best[2]


def sample_world(
    pos: Position, pool: Sequence[int], rng: random.Random, structure: Structure | None = None
) -> ScoutState:
    """A standalone position of this round with the unseen cards dealt at random
    (leaning towards sets with a ``structure``, :class:`Structure`)."""
    hands = sample_hands(pos, pool, rng, structure)
    if pos.phase == "flip":
        start = pos.start if pos.start is not None else _first_holder(hands)
        return ScoutState.from_position(
            pos.players, hands, to_move=start, phase="flip", chips=pos.chips,
            collected=pos.collected, tokens=pos.tokens,
        )  # fmt: skip
    return ScoutState.from_position(
        pos.players,
        hands,
        table=pos.table,
        owner=pos.owner,
        to_move=pos.seat,
        phase="play",
        chips=pos.chips,
        collected=pos.collected,
        tokens=pos.tokens,
    )
