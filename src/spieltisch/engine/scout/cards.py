"""Scout cards and sets (S-1, S-6, S-7).

An oriented card is a small int ``top * 11 + bottom``: the live number is
``TOP[c]``, the other end ``BOTTOM[c]``, and ``TURNED[c]`` is the same card the
other way up. Tables are built once at import; hot loops use ints only.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from spieltisch.engine.core import InvalidActionError

NUMBERS = range(1, 11)
ALL_CARDS: tuple[int, ...] = tuple(a * 11 + b for a in NUMBERS for b in NUMBERS if a < b)
"""S-1: the 45 cards, one per pair of different numbers, smaller number on top."""

TOP: Final[list[int]] = [c // 11 for c in range(121)]
BOTTOM: Final[list[int]] = [c % 11 for c in range(121)]
TURNED: Final[list[int]] = [(c % 11) * 11 + c // 11 for c in range(121)]


def card(top: int, bottom: int) -> int:
    return top * 11 + bottom


def identity(c: int) -> int:
    """The physical card, whichever way up (the smaller number on top)."""
    return c if TOP[c] < BOTTOM[c] else TURNED[c]


TEXT: Final[list[str]] = [f"{c // 11}/{c % 11}" for c in range(121)]


def card_text(c: int) -> str:
    """``"live/other"``, e.g. ``"3/7"``."""
    return TEXT[c]


def parse_card(text: object) -> int:
    """``"3/7"`` -> the card 3 over 7 (live number 3)."""
    if not isinstance(text, str) or text.count("/") != 1:
        raise InvalidActionError(f"unknown Scout card {text!r}: write it as 'live/other', e.g. '3/7'")
    a, b = text.split("/")
    try:
        top, bottom = int(a), int(b)
    except ValueError:
        raise InvalidActionError(f"unknown Scout card {text!r}: numbers must be 1..10") from None
    if top not in NUMBERS or bottom not in NUMBERS or top == bottom:
        raise InvalidActionError(f"unknown Scout card {text!r}: two different numbers from 1 to 10 (S-1)")
    return card(top, bottom)


# Set strength (S-7) is one int: more cards first, then match over run, then the
# smallest number. A single card counts as a match of one.
MATCH, RUN = 1, 0


def set_key(values: Sequence[int]) -> int:
    """Strength of a set given its live numbers, or -1 if it is no set (S-6)."""
    n = len(values)
    if n == 0:
        return -1
    if n == 1:
        return 64 + 16 + values[0]
    step = values[1] - values[0]
    if step not in (-1, 0, 1):
        return -1
    for i in range(2, n):
        if values[i] - values[i - 1] != step:
            return -1
    kind = MATCH if step == 0 else RUN
    return n * 64 + kind * 16 + min(values[0], values[-1])


def dashed(values: Sequence[int]) -> str:
    """Numbers as players write a set: ``4-5-6``."""
    return "-".join(map(str, values))


def beating_sets(vals: Sequence[int], key: int) -> list[tuple[int, int, int]]:
    """Every valid set ``(start, count, key)`` of the hand stronger than ``key``."""
    out: list[tuple[int, int, int]] = []
    h = len(vals)
    for s in range(h):
        v0 = vals[s]
        k = 80 + v0
        if k > key:
            out.append((s, 1, k))
        if s + 1 >= h:
            break
        step = vals[s + 1] - v0
        if step not in (-1, 0, 1):
            continue
        kind = 16 if step == 0 else 0
        lo = v0
        e = s + 1
        while e < h and vals[e] - vals[e - 1] == step:
            if vals[e] < lo:
                lo = vals[e]
            n = e - s + 1
            k = n * 64 + kind + lo
            if k > key:
                out.append((s, n, k))
            e += 1
    return out
