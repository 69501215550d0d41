"""Scout move generation: the ids of every legal play-phase action (S-6 .. S-9, S-14).

The hot loop of every playout, search and learning environment, so it works on
plain ints and lists only (no objects), in a form mypyc can compile: when the
optional compiled build is installed (``scripts/build-fast``), this module is
an extension module; otherwise this very file runs, with identical results.

Cards are the ints of :mod:`spieltisch.engine.scout.cards` (``top * 11 +
bottom``); set strengths are the keys of :func:`~spieltisch.engine.scout.cards.set_key`:
``count * 64 + 16 * is_match + smallest number`` (a single card is a match of one).
The numbering is that of :mod:`spieltisch.engine.scout.actions`.
"""

from __future__ import annotations

from typing import Final, cast

H: Final = 45
"""MAX_HAND of :mod:`spieltisch.engine.scout.actions`."""
HH: Final = H * H
SHOW_BASE: Final = 2
SCOUT_BASE: Final = SHOW_BASE + HH
SS_BASE: Final = SCOUT_BASE + 4 * (H + 1)
BLOCK: Final = (H + 1) * HH
"""Distance between the scout & show ids of two scout kinds (end * 2 + turn)."""
ID: Final[list[object]] = [i for i in range(SS_BASE)]
"""The int objects of every id below the scout & shows, made once: lists of
legal ids take them from here instead of making new ints (most ids are above
Python's small-int cache), which halves the cost of listing them."""


def set_key(values: list[int]) -> int:
    """Strength of a set given its live numbers, or -1 if it is no set (S-6, S-7)."""
    n = len(values)
    if n == 0:
        return -1
    first = values[0]
    if n == 1:
        return 80 + first
    step = values[1] - first
    if step < -1 or step > 1:
        return -1
    prev = values[1]
    for i in range(2, n):
        value = values[i]
        if value - prev != step:
            return -1
        prev = value
    last = values[n - 1]
    return n * 64 + (16 if step == 0 else 0) + (first if first < last else last)


def show_ids(vals: list[int], key: int, base: int, shift: int, out: list[object]) -> None:
    """Append ``base + (start + shift) * H + count - 1`` for every set of ``vals``
    stronger than ``key`` (``shift``: where the hand's positions start), as the
    ints of :data:`ID`."""
    h = len(vals)
    for s in range(h):
        v0 = vals[s]
        row = base + (s + shift) * H
        if 80 + v0 > key:
            out.append(ID[row])
        if s + 1 >= h:
            break
        step = vals[s + 1] - v0
        if step < -1 or step > 1:
            continue
        kind = 16 if step == 0 else 0
        lo = v0
        prev = v0
        e = s + 1
        while e < h:
            value = vals[e]
            if value - prev != step:
                break
            if value < lo:
                lo = value
            if (e - s + 1) * 64 + kind + lo > key:
                out.append(ID[row + e - s])
            prev = value
            e += 1


def _chains_left(vals: list[int], step: int) -> list[int]:
    """For each position, the length of the longest run ending there whose
    numbers go by ``step`` from left to right (at least 1)."""
    h = len(vals)
    out = [1] * h
    for i in range(1, h):
        if vals[i] - vals[i - 1] == step:
            out[i] = out[i - 1] + 1
    return out


def _chains_right(vals: list[int], step: int) -> list[int]:
    """For each position, the length of the longest run starting there whose
    numbers go by ``step`` from left to right (at least 1)."""
    h = len(vals)
    out = [1] * h
    for i in range(h - 2, -1, -1):
        if vals[i + 1] - vals[i] == step:
            out[i] = out[i + 1] + 1
    return out


def _through(
    vals: list[int],
    v: int,
    key: int,
    block: int,
    lefts: list[list[int]],
    rights: list[list[int]],
    out: list[object],
) -> None:
    """Scout & show ids whose show contains the card ``v`` inserted into ``vals``
    and beats ``key``, for every insert position (``block``: the id of the
    scout kind's first insert position and show)."""
    h = len(vals)
    for at in range(h + 1):
        base = block + at * HH
        if 80 + v > key:
            out.append(base + at * H)
        for d in range(3):
            step = d - 1  # -1, 0, +1
            ll = 0
            if at > 0 and v - vals[at - 1] == step:
                ll = lefts[d][at - 1]
            rr = 0
            if at < h and vals[at] - v == step:
                rr = rights[d][at]
            if ll == 0 and rr == 0:
                continue
            kind = 16 if step == 0 else 0
            for s in range(at - ll, at + 1):
                first = v + step * (s - at)
                row = base + s * H
                for e in range(at, at + rr + 1):
                    if e == s:
                        continue
                    last = v + step * (e - at)
                    n = e - s + 1
                    if n * 64 + kind + (first if first < last else last) > key:
                        out.append(row + n - 1)


def play_ids(
    hand: list[int], top: list[int], bottom: list[int], table: list[int], scouts: bool, chip: bool
) -> list[int]:
    """Ids of every legal play-phase action of a hand against the active set
    ``table`` (both as card ints; ``top``/``bottom``: the numbers of each card
    int). ``scouts``: the seat may scout (S-8; with two players only with a
    chip left, S-14); ``chip``: it may scout & show (S-9). A one-card active
    set is scouted from its left end only: both ends are the same card."""
    vals = [top[c] for c in hand]
    tvals = [top[c] for c in table]
    out: list[object] = []
    show_ids(vals, set_key(tvals), SHOW_BASE, 0, out)
    t = len(table)
    h = len(hand)
    if t == 0 or not scouts or h + 1 > H:
        return cast(list[int], out)
    ends = 1 if t == 1 else 2
    for kind in range(2 * ends):
        first = SCOUT_BASE + kind * (H + 1)
        out.extend(ID[first : first + h + 1])
    if not chip:
        return cast(list[int], out)
    lefts = [_chains_left(vals, -1), _chains_left(vals, 0), _chains_left(vals, 1)]
    rights = [_chains_right(vals, -1), _chains_right(vals, 0), _chains_right(vals, 1)]
    for end in range(ends):
        c = table[0] if end == 0 else table[t - 1]
        rkey = set_key(tvals[1:] if end == 0 else tvals[: t - 1])
        old: list[object] = []
        show_ids(vals, rkey, 0, 0, old)  # show index = start * H + count - 1
        for turn in range(2):
            block = SS_BASE + (end * 2 + turn) * BLOCK
            for item in old:
                index = cast(int, item)
                # the inserted card lies right of the set (at >= start + count)...
                start = index // H
                stop = start + index % H + 1
                out.extend(range(block + stop * HH + index, block + h * HH + index + 1, HH))
                # ... or left of it (at <= start): the set moves one place right
                out.extend(range(block + index + H, block + start * HH + index + H + 1, HH))
            _through(vals, bottom[c] if turn else top[c], rkey, block, lefts, rights, out)
    return cast(list[int], out)


def cards_key(cards: list[int], top: list[int]) -> int:
    """:func:`set_key` of the live numbers of ``cards`` (-1 for none)."""
    return set_key([top[c] for c in cards])


def can_show(hand: list[int], top: list[int], key: int) -> bool:
    """Whether the hand holds a set stronger than ``key`` (S-7, S-15 (c))."""
    vals = [top[c] for c in hand]
    found: list[object] = []
    show_ids(vals, key, 0, 0, found)
    return len(found) > 0
