"""Waschbär-Schmaus hands: the lays a hand allows (W-4, W-5), remembered by what they depend
on (:func:`lay_key`), and counts of a hand's count list."""

from __future__ import annotations

from itertools import combinations_with_replacement
from typing import Final

from spieltisch.engine.schmaus import actions as A
from spieltisch.engine.schmaus.cards import EFFECTS, FOOD, can_lay_full

PLAY_ID: Final = A.PLAY_ID
"""The lay ids of the actions module, as a constant the compiled build reads directly."""


def legal_lays(counts: tuple[int, ...]) -> tuple[int, ...]:
    """Ids of every lay this hand allows (W-4), or its one forced short lay (W-5)."""
    if not can_lay_full(list(counts)):
        return (PLAY_ID[tuple(k for k in FOOD for _ in range(counts[k]))],)
    food = [k for k in FOOD if counts[k]]
    out = []
    for combo in combinations_with_replacement(food, 3):
        if all(combo.count(k) <= counts[k] for k in combo):
            out.append(PLAY_ID[combo])
    pairs = [c for c in combinations_with_replacement(food, 2) if c[0] != c[1] or counts[c[0]] >= 2]
    for e in EFFECTS:
        if counts[e]:
            out.extend(PLAY_ID[(*pair, e)] for pair in pairs)
    return tuple(out)


LAY_KEYS: Final = 1 << 17
_LAYS: Final[list[tuple[int, ...] | None]] = [None] * LAY_KEYS
"""A hand's lays by :func:`lay_key` (filled as hands are met)."""
_TRIPLES: Final[list[tuple[int, ...] | None]] = [None] * 1024
"""The option-A lays by the food part of the key."""
_PAIRS: Final[list[list[tuple[int, ...]] | None]] = [None] * 1024
"""The option-B lays by the food part of the key, one tuple per effect kind."""


def lay_key(hand: list[int]) -> int:
    """What a hand's lays depend on, as one int below :data:`LAY_KEYS`: each
    food count up to three (two bits each), then one bit per effect kind held."""
    c = hand[0]
    key = c if c < 3 else 3
    c = hand[1]
    key += (c if c < 3 else 3) << 2
    c = hand[2]
    key += (c if c < 3 else 3) << 4
    c = hand[3]
    key += (c if c < 3 else 3) << 6
    c = hand[4]
    key += (c if c < 3 else 3) << 8
    if hand[5]:
        key += 1 << 10
    if hand[6]:
        key += 1 << 11
    if hand[7]:
        key += 1 << 12
    if hand[8]:
        key += 1 << 13
    if hand[9]:
        key += 1 << 14
    if hand[10]:
        key += 1 << 15
    if hand[11]:
        key += 1 << 16
    return key


def lays_of(hand: list[int]) -> tuple[int, ...]:
    """:func:`legal_lays` of a hand, remembered by :func:`lay_key` in a plain list."""
    key = lay_key(hand)
    plays = _LAYS[key]
    if plays is None:
        plays = lays_of_key(key)
        _LAYS[key] = plays
    return plays


def lays_of_key(key: int) -> tuple[int, ...]:
    """:func:`legal_lays` of the counts a :func:`lay_key` stands for, from
    tables by its food part: the option-A lays, then option B effect by effect."""
    food = key & 1023
    held = (food & 3) + ((food >> 2) & 3) + ((food >> 4) & 3) + ((food >> 6) & 3) + (food >> 8)
    if held < 3 and not (held == 2 and key >> 10):  # no option A or B (W-5)
        return legal_lays(key_counts(key))
    triples = _TRIPLES[food]
    pairs = _PAIRS[food]
    if triples is None or pairs is None:
        counts = key_counts(key)
        present = [k for k in FOOD if counts[k]]
        threes = combinations_with_replacement(present, 3)
        triples = tuple([PLAY_ID[c] for c in threes if all(c.count(k) <= counts[k] for k in c)])
        two = [c for c in combinations_with_replacement(present, 2) if c[0] != c[1] or counts[c[0]] >= 2]
        pairs = [tuple([PLAY_ID[(*pair, e)] for pair in two]) for e in EFFECTS]
        _TRIPLES[food] = triples
        _PAIRS[food] = pairs
    out = list(triples)
    for e in range(7):
        if (key >> (10 + e)) & 1:
            out.extend(pairs[e])
    return tuple(out)


def key_counts(key: int) -> tuple[int, ...]:
    """The counts a :func:`lay_key` stands for."""
    return tuple([(key >> (2 * k)) & 3 for k in range(5)] + [(key >> (10 + e)) & 1 for e in range(7)])


def held(hand: list[int]) -> int:
    """The number of cards in a hand's count list."""
    total = 0
    for c in hand:
        total += c
    return total


def is_empty(hand: list[int]) -> bool:
    """Whether a hand's count list holds no card."""
    for c in hand:  # noqa: SIM110 - a loop: no generator in pure Python
        if c:
            return False
    return True
