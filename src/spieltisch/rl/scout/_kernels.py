# ruff: noqa: RUF059  -- each kernel unpacks the whole state tuple by name, used or not
"""The numba kernels of :class:`spieltisch.rl.scout.fast.FastScout` (imported only when numba is installed).

One game at a time, with the numpy backend's arithmetic (S-1 .. S-16, docs/rl.md).
``st`` is the engine's state arrays (``FastScout._state``), ``tb`` the id tables
and the deck. A hand is a row of live numbers and a row of other numbers; the
places from its size on hold the pad numbers 12, 14, 16, … (``12 + 2 * place``),
which never form a set with anything, so a hand's runs need no length checks.

Deals (S-1 .. S-5) come from the engine's own ``numpy.random.Generator`` in the
numpy backend's order: per deal call every game's deck is shuffled (numpy's
``permuted`` is one Fisher–Yates shuffle per row with numpy's
``random_interval``), then every card's orientation is one uniform number, game
by game. The kernels call the bit generator's own C functions on its own state
(``bitgen``: its state address and function addresses, see
``FastScout._bitgen`` and :mod:`spieltisch.rl._random`), so the stream is shared with numpy exactly;
passing the ``Generator`` itself would cost numba about 20 µs per call to
unbox. Round ends inside a step are queued and dealt
after the loop over the games in the numpy backend's order of deal calls: the
scouts' round ends, then the shows that emptied a hand, then the shows after
which the next seat ends the round; within each, by new round, then game.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar, cast

import numpy as np
from numba import njit

from spieltisch.rl._random import bitgen_double, bitgen_interval
from spieltisch.rl.scout.actions import (
    FLIP as FLIP_ID,
)
from spieltisch.rl.scout.actions import (
    INSERTS,
    MAX_HAND,
    NUM_SCOUTS,
    SCOUT_BASE,
    SCOUT_SHOW_BASE,
    SHOW_BASE,
)
from spieltisch.rl.scout.actions import (
    KEEP as KEEP_ID,
)
from spieltisch.rl.scout.batched import ALL_SCOUTED, FLIP, HAND_EMPTY, OVER, PLAY, STUCK, TABLE, W

F = TypeVar("F", bound=Callable[..., Any])
_njit: Any = njit


def kernel(inline: str = "never") -> Callable[[F], F]:
    """``@njit(cache=True)`` without numba's reference counting (``_nrt=False``): the kernels
    never allocate, and the counting of the arrays passed from function to function cost
    about a third of a step."""
    return cast("Callable[[F], F]", _njit(cache=True, inline=inline, _nrt=False))


POINT_SCOUT, POINT_EMPTY, POINT_PASS = 0, 1, 2
"""Where a step ends a round (the numpy backend's deal calls, in this order): after a scout
(S-10 (b), S-15 (c)), after a show that empties the hand (S-10 (a)), after a show when the
next seat ends the round (S-10 (b), S-15 (c)). A queued deal's key is ``point * 8 + round``."""
TWO_PLAYER_CHIPS = 3


@kernel()
def shuffle(bitgen: Any, row: Any, n: int) -> None:
    """numpy's ``Generator.shuffle`` of ``row[:n]`` (and so one row of ``permuted``)."""
    for i in range(n - 1, 0, -1):
        j = bitgen_interval(bitgen, i)
        row[i], row[j] = row[j], row[i]


@kernel()
def set_key(t: Any, g: int, offset: int, n: int) -> Any:
    """S-7 strength of the set ``t[g, offset : offset + n]`` (live numbers), -1 for none."""
    if n <= 0:
        return -1
    first = np.int64(t[g, offset])
    if n == 1:
        return 80 + first
    last = np.int64(t[g, offset + n - 1])
    same = 16 if t[g, offset + 1] == first else 0
    return n * 64 + same + min(first, last)


@kernel()
def hand_runs(top: Any, g: int, s: int, size: int, step: Any, runlen: Any) -> None:
    """``step[j]``: the live number of place j + 1 less that of place j; ``runlen[j]``: the
    length of the run (step -1, 0 or +1) starting at place j, for the places of the hand."""
    for j in range(size):
        step[j] = np.int64(top[g, s, j + 1]) - np.int64(top[g, s, j])
    for j in range(size - 1, -1, -1):  # the last place's step is to a pad: no run
        d = step[j]
        if d < -1 or d > 1:
            runlen[j] = 1
        elif step[j + 1] == d:
            runlen[j] = runlen[j + 1] + 1
        else:
            runlen[j] = 2


@kernel()
def fewest_beating(v: Any, d: Any, key: Any) -> Any:
    """The fewest cards of a set starting with live number ``v`` (step ``d`` to the next
    card) that beat ``key`` (S-6, S-7); more cards of the same run are always stronger."""
    if 80 + v > key:
        return 1
    n = key // 64  # the active set's size
    if n <= 1:
        return 2
    low = v - (n - 1) if d == -1 else v
    strength = n * 64 + (16 if d == 0 else 0) + low
    return n + 1 if strength <= key else n


@kernel()
def bounds(top: Any, g: int, s: int, size: int, step: Any, runlen: Any, key: int, fewest: Any) -> int:
    """Per start place j of the hand, the fewest cards of a set there that beat ``key``
    (``fewest[j]``; the most are ``runlen[j]``). Returns the number of legal shows."""
    total = 0
    for j in range(size):
        f = fewest_beating(np.int64(top[g, s, j]), step[j], key)
        fewest[j] = f
        if runlen[j] >= f:
            total += runlen[j] - f + 1
    return total


@kernel()
def beats(top: Any, g: int, s: int, size: int, key: int, step: Any, runlen: Any) -> bool:
    """Whether the hand holds a set stronger than ``key`` (its strongest set: S-7)."""
    hand_runs(top, g, s, size, step, runlen)
    for j in range(size):
        v = np.int64(top[g, s, j])
        r = runlen[j]
        if r >= 2:
            d = step[j]
            low = v - (r - 1) if d == -1 else v
            strength = r * 64 + (16 if d == 0 else 0) + low
        else:
            strength = 80 + v
        if strength > key:
            return True
    return False


@kernel()
def run_ends(step: Any, size: int, left: Any, right: Any) -> None:
    """``left[d + 1, j]`` / ``right[d + 1, j]``: the run with step d (-1, 0, +1) ending / starting
    at place j (at least the card itself)."""
    for d in range(3):
        for j in range(size):
            left[d, j] = left[d, j - 1] + 1 if j > 0 and step[j - 1] == d - 1 else 1
        for j in range(size - 1, -1, -1):
            right[d, j] = right[d, j + 1] + 1 if step[j] == d - 1 else 1


@kernel()
def through(top: Any, g: int, s: int, size: int, a: int, v: Any, key: Any, left: Any, right: Any) -> bool:
    """Whether the card ``v`` inserted at place ``a`` is the scouted card shown alone (insert 0)
    or in a run of the hand through it that beats ``key`` (the longest is the strongest)."""
    if a == 0 and 80 + v > key:
        return True
    for d in range(-1, 2):
        ll = left[d + 1, a - 1] if a > 0 and np.int64(top[g, s, a - 1]) == v - d else 0
        rr = right[d + 1, a] if a < size and np.int64(top[g, s, a]) == v + d else 0
        c = ll + rr + 1
        if c >= 2:
            low = v - ll if d == 1 else (v - rr if d == -1 else v)
            if c * 64 + (16 if d == 0 else 0) + low > key:
                return True
    return False


@kernel()
def half_fill(
    top: Any, g: int, s: int, size: int, ttop: Any, tbot: Any, n: int, step: Any, runlen: Any,
    left: Any, right: Any, out: Any, row: int, base: int, whole: bool, blocks: Any, spans: Any,
) -> int:  # fmt: skip
    """S-9: the scout halves (end, turn, insert place) that some show completes, for inserts
    0 .. size of the scoutable ends (one end for a one-card set, S-8). Needs ``hand_runs``
    of the hand. Returns how many there are; ``blocks[end * 2 + turn]``: how many per block.

    A show completes the scout half when it is a held set wholly left of the insert place
    (not ending right before it: that is folded onto "before") or wholly right of it: every
    insert place outside ``spans[2 * block] .. spans[2 * block + 1]``; else the scouted card
    alone (insert 0) or the longest run through the inserted card, written to
    ``out[row, base + block * 46 + insert]`` for the places inside the span (for all places
    with ``whole``: the mask)."""
    total = 0
    ends_known = False
    for end in range(2):
        if end == 1 and n <= 1:
            blocks[2] = 0
            blocks[3] = 0
            continue
        if end == 0:
            rkey = set_key(ttop, g, 1, n - 1)
            live, other = np.int64(ttop[g, 0]), np.int64(tbot[g, 0])
        else:
            rkey = set_key(ttop, g, 0, n - 1)
            live, other = np.int64(ttop[g, n - 1]), np.int64(tbot[g, n - 1])
        stop = 99
        start = -1
        for j in range(size):  # held sets beating the rest of the active set
            f = fewest_beating(np.int64(top[g, s, j]), step[j], rkey)
            if f <= runlen[j]:
                stop = min(stop, j + f)
                start = j
        lo, hi = start + 1, min(stop, size)  # the insert places with no held set apart
        apart = size + 1 - max(hi - lo + 1, 0)
        if hi >= lo and not ends_known:
            run_ends(step, size, left, right)
            ends_known = True
        for turn in range(2):
            blk = end * 2 + turn
            spans[2 * blk] = lo
            spans[2 * blk + 1] = hi
            first = base + blk * INSERTS
            if whole:
                for a in range(size + 1):
                    if a < lo or a > hi:
                        out[row, first + a] = True
            v = other if turn else live
            count = apart
            for a in range(lo, hi + 1):
                ok = through(top, g, s, size, a, v, rkey, left, right)
                out[row, first + a] = ok
                if ok:
                    count += 1
            blocks[blk] = count
            total += count
    return total


# -- dealing (S-1 .. S-5) -------------------------------------------------------------------
@kernel(inline="always")
def deal(st: Any, idx: Any, n: int, r: int, bitgen: Any, deck: Any, dealt: int, decks: Any) -> None:
    """Deal round ``r`` (from 0) to games ``idx[:n]``, as ``BatchedScout._deal``."""
    set_aside = st[17]
    p = st[2].shape[1]
    cards = deck.shape[0]
    if p == 2 and r == 1:  # S-16: round 2 uses the set-aside cards
        for i in range(n):
            for c in range(set_aside.shape[1]):
                decks[i, c] = set_aside[idx[i], c]
    else:
        for i in range(n):  # numpy's permuted: one shuffle per row, row by row
            for c in range(cards):
                decks[i, c] = deck[c]
            shuffle(bitgen, decks[i], cards)
        for i in range(n):  # S-1: then every card's orientation, game by game
            for c in range(cards):
                if bitgen_double(bitgen) < 0.5:
                    d = decks[i, c]
                    decks[i, c] = (d % 11) * 11 + d // 11
    place(st, idx, n, r, dealt, decks)


@kernel(inline="always")
def place(st: Any, idx: Any, n: int, r: int, dealt: int, decks: Any) -> None:
    """Deal the shuffled decks ``decks[:n]`` (round ``r``) to games ``idx[:n]``: the hands
    (S-2), the set-aside cards of two players' first round (S-16) and the round's start."""
    (
        top, bottom, size, ttop, tbot, tsize, tkey, owner, current, phase, pending,
        chips, collected, tokens, totals, rnd, first_start, set_aside, half_at,
    ) = st  # fmt: skip
    p = size.shape[1]
    if p == 2 and r == 0:
        for i in range(n):
            for c in range(set_aside.shape[1]):
                set_aside[idx[i], c] = decks[i, 2 * dealt + c]
    for i in range(n):
        g = idx[i]
        best: Any = 1 << 30
        arg = 0
        for s in range(p):
            for j in range(dealt):
                card = np.int64(decks[i, s * dealt + j])
                t = card // 11
                b = card % 11
                top[g, s, j] = t
                bottom[g, s, j] = b
                code = min(t, b) * 11 + max(t, b)
                if code < best:
                    best = code
                    arg = s
            for j in range(dealt, W):
                top[g, s, j] = 12 + 2 * j
                bottom[g, s, j] = 12 + 2 * j
            size[g, s] = dealt
            chips[g, s] = TWO_PLAYER_CHIPS if p == 2 else 1  # S-9, S-13, S-16
            collected[g, s] = 0
            tokens[g, s] = 0
            pending[g, s] = True
        rnd[g] = r
        if r == 0:  # S-3: the 1/2 card, else (2 players) the lowest card
            first_start[g] = arg
        current[g] = (first_start[g] + r) % p  # S-4
        tsize[g] = 0
        tkey[g] = -1
        owner[g] = -1
        phase[g] = FLIP
        half_at[g] = -1


@kernel()
def reset(st: Any, which: Any, over: bool, bitgen: Any, deck: Any, dealt: int, idx: Any, decks: Any) -> int:
    """``reset_done``: deal new games where ``which`` (with ``over``: where a game is over)."""
    totals, phase = st[14], st[9]
    n = 0
    for g in range(phase.shape[0]):
        if (phase[g] == OVER) if over else which[g]:
            idx[n] = g
            n += 1
            for s in range(totals.shape[1]):
                totals[g, s] = 0
    if n:
        deal(st, idx, n, 0, bitgen, deck, dealt, decks)
    return n


# -- stepping ---------------------------------------------------------------------------------
@kernel(inline="always")
def end_round(st: Any, g: int, ended_by: int, rounds: int) -> bool:
    """S-11, S-15, S-16: score the round; whether a next round is to be dealt (else S-12)."""
    size, owner, phase, chips, collected, tokens, totals, rnd = (
        st[2], st[7], st[9], st[11], st[12], st[13], st[14], st[15],
    )  # fmt: skip
    p = size.shape[1]
    exempt = owner[g] if ended_by in (ALL_SCOUTED, STUCK) else -1
    for s in range(p):
        bonus = chips[g, s] if p == 2 else tokens[g, s]
        hand = 0 if s == exempt else size[g, s]
        totals[g, s] += collected[g, s] + bonus - hand
    if rnd[g] + 1 >= rounds:
        phase[g] = OVER
        return False
    return True


@kernel(inline="always")
def pass_turn(st: Any, g: int, seat: int, rounds: int, step: Any, runlen: Any) -> bool:
    """The next seat's turn; whether that ends the round with a deal to follow (S-10 (b), S-15 (c))."""
    size, tsize, owner, current = st[2], st[5], st[7], st[8]
    p = size.shape[1]
    nxt = (seat + 1) % p
    current[g] = nxt
    if p == 2:
        if not can_act(st, g, nxt, step, runlen):
            return end_round(st, g, STUCK, rounds)
    elif owner[g] == nxt and tsize[g] > 0:
        return end_round(st, g, ALL_SCOUTED, rounds)
    return False


@kernel(inline="always")
def can_act(st: Any, g: int, seat: int, step: Any, runlen: Any) -> bool:
    """S-15 (c), two players: the seat can scout (a set and a chip) or show."""
    top, size, tsize, tkey, chips = st[0], st[2], st[5], st[6], st[11]
    if tsize[g] > 0 and chips[g, seat] > 0:
        return True
    return beats(top, g, seat, size[g, seat], tkey[g], step, runlen)


@kernel(inline="always")
def show(st: Any, g: int, seat: int, start: int, count: int, rounds: int, step: Any, runlen: Any) -> int:
    """S-6: show ``count`` cards from place ``start``; the point of a deal to follow, or -1."""
    top, bottom, size, ttop, tbot, tsize, tkey, owner, collected, half_at = (
        st[0], st[1], st[2], st[3], st[4], st[5], st[6], st[7], st[12], st[18],
    )  # fmt: skip
    sz = size[g, seat]
    collected[g, seat] += tsize[g]  # the beaten set goes to the score pile
    for i in range(TABLE):
        j = min(start + i, W - 1)
        ttop[g, i] = top[g, seat, j]
        tbot[g, i] = bottom[g, seat, j]
    tsize[g] = count
    tkey[g] = set_key(ttop, g, 0, count)
    owner[g] = seat
    left = sz - count
    for j in range(start, left):
        top[g, seat, j] = top[g, seat, j + count]
        bottom[g, seat, j] = bottom[g, seat, j + count]
    for j in range(left, sz):
        top[g, seat, j] = 12 + 2 * j
        bottom[g, seat, j] = 12 + 2 * j
    size[g, seat] = left
    half_at[g] = -1
    if left == 0:  # S-10 (a), S-15 (a)
        return POINT_EMPTY if end_round(st, g, HAND_EMPTY, rounds) else -1
    return POINT_PASS if pass_turn(st, g, seat, rounds, step, runlen) else -1


@kernel(inline="always")
def scout(st: Any, g: int, seat: int, a: int, rounds: int, step: Any, runlen: Any) -> int:
    """S-8 (S-9: the scout half, S-14: two players); the point of a deal to follow, or -1."""
    top, bottom, size, ttop, tbot, tsize, tkey, owner, chips, tokens, half_at = (
        st[0], st[1], st[2], st[3], st[4], st[5], st[6], st[7], st[11], st[13], st[18],
    )  # fmt: skip
    p = size.shape[1]
    j = a - SCOUT_BASE
    half = j >= NUM_SCOUTS
    j %= NUM_SCOUTS
    block = j // INSERTS
    at = j % INSERTS
    n = tsize[g]
    pos = 0 if block < 2 else n - 1
    live, other = ttop[g, pos], tbot[g, pos]
    if block % 2:
        live, other = other, live
    if block < 2:
        for i in range(TABLE):
            k = min(i + 1, TABLE - 1)
            ttop[g, i] = ttop[g, k]
            tbot[g, i] = tbot[g, k]
    n -= 1
    tsize[g] = n
    tkey[g] = set_key(ttop, g, 0, n)
    sz = size[g, seat]
    for i in range(sz, at, -1):
        top[g, seat, i] = top[g, seat, i - 1]
        bottom[g, seat, i] = bottom[g, seat, i - 1]
    top[g, seat, at] = live
    bottom[g, seat, at] = other
    size[g, seat] = sz + 1
    if p != 2:
        tokens[g, owner[g]] += 1  # S-8: the owner's scout token
    if n == 0:
        owner[g] = -1  # S-8, S-10: an empty set has no owner
    if half:  # S-9: the same seat shows next; the chip is spent
        chips[g, seat] = 0
        half_at[g] = at
        return -1
    if p == 2:  # S-14: the chip pays, the scout moves again
        chips[g, seat] -= 1
        if not can_act(st, g, seat, step, runlen):
            return POINT_SCOUT if end_round(st, g, STUCK, rounds) else -1  # S-15 (c)
        return -1
    return POINT_SCOUT if pass_turn(st, g, seat, rounds, step, runlen) else -1


@kernel(inline="always")
def step_game(st: Any, g: int, a: int, tb: Any, rounds: int, step_: Any, runlen: Any) -> int:
    """One decision ``a`` in game ``g`` (nothing for a game that is over, or for ``a`` < 0);
    the point of a deal to follow (see ``POINT_*``; the caller deals it), or -1."""
    top, bottom, size, phase, pending, current = st[0], st[1], st[2], st[9], st[10], st[8]
    show_start, show_count, _ = tb
    p = size.shape[1]
    ph = phase[g]
    if a < 0:
        return -1
    if ph == FLIP:
        seat = 0
        while not pending[g, seat]:
            seat += 1
        if a == FLIP_ID:  # S-5: mirrored order, every card shows its other number
            sz = size[g, seat]
            for j in range((sz + 1) // 2):
                k = sz - 1 - j
                tj, bj, tk, bk = top[g, seat, j], bottom[g, seat, j], top[g, seat, k], bottom[g, seat, k]
                top[g, seat, j] = bk
                bottom[g, seat, j] = tk
                top[g, seat, k] = bj
                bottom[g, seat, k] = tj
        pending[g, seat] = False
        done = True
        for s in range(p):
            if pending[g, s]:
                done = False
        if done:
            phase[g] = PLAY
        return -1
    if ph == PLAY:
        seat = current[g]
        if SHOW_BASE <= a < SCOUT_BASE:
            return show(
                st, g, seat, show_start[a - SHOW_BASE], show_count[a - SHOW_BASE], rounds, step_, runlen
            )
        if a >= SCOUT_BASE:
            return scout(st, g, seat, a, rounds, step_, runlen)
    return -1


@kernel()
def step(
    actions: Any, st: Any, tb: Any, rounds: int, dealt: int, bitgen: Any, use_rng: bool,
    change: Any, req_game: Any, req_key: Any, idx: Any, decks: Any, step_: Any, runlen: Any,
) -> int:  # fmt: skip
    """One decision in every game (``BatchedScout.step``; none where the id is -1); ``change``
    gets the totals' changes. Round ends are queued in ``req_game`` / ``req_key`` and, with
    ``use_rng``, dealt here in the numpy backend's order. Returns how many were queued."""
    size, totals, rnd = st[2], st[14], st[15]
    deck = tb[2]
    b, p = size.shape[0], size.shape[1]
    nreq = 0
    for g in range(b):
        for s in range(p):
            change[g, s] = totals[g, s]
        point = step_game(st, g, actions[g], tb, rounds, step_, runlen)
        if point >= 0:
            req_game[nreq] = g
            req_key[nreq] = point * 8 + rnd[g] + 1
            nreq += 1
        for s in range(p):  # totals change at round ends only, and deals leave them be
            change[g, s] = totals[g, s] - change[g, s]
    if use_rng and nreq:
        for key in range(3 * 8):  # the numpy backend's deal calls: by point, then round, then game
            n = 0
            for i in range(nreq):
                if req_key[i] == key:
                    idx[n] = req_game[i]
                    n += 1
            if n:
                deal(st, idx, n, key % 8, bitgen, deck, dealt, decks)
    return nreq


# -- sampling and masks -----------------------------------------------------------------------
@kernel()
def count_half(phase: Any, half_at: Any) -> int:
    """Games waiting for the show half of a scout & show (their draws follow the others')."""
    n = 0
    for g in range(phase.shape[0]):
        if phase[g] == PLAY and half_at[g] >= 0:
            n += 1
    return n


@kernel()
def folded(at: int, j: int) -> int:
    """The show half's count from place ``j`` that is folded away after inserting at ``at``
    (the card shown alone, or the shown cards ending right before it); 0 for none."""
    if j < at:
        return at - j
    if j == at and at > 0:
        return 1
    return 0


@kernel(inline="always")
def scoutable(st: Any, g: int, seat: int) -> bool:
    """S-8, S-14: a scout is legal (not in a show half, a set to scout, room in the hand)."""
    size, tsize, chips, half_at = st[2], st[5], st[11], st[18]
    p = size.shape[1]
    if half_at[g] >= 0 or tsize[g] == 0 or size[g, seat] + 1 > MAX_HAND:
        return False
    return bool(p != 2 or chips[g, seat] > 0)


@kernel(inline="always")
def sample_game(
    st: Any, g: int, ug: float, uh: float,
    step: Any, runlen: Any, fewest: Any, left: Any, right: Any, hm: Any, blocks: Any, spans: Any,
) -> Any:  # fmt: skip
    """A uniformly random legal id of game ``g`` from the uniform numbers ``ug`` (the decision)
    and ``uh`` (used only for a show half), with the numpy backend's arithmetic; -1 when over."""
    top, size, ttop, tbot, tsize, tkey, current, phase, chips, half_at = (
        st[0], st[2], st[3], st[4], st[5], st[6], st[8], st[9], st[11], st[18],
    )  # fmt: skip
    p = size.shape[1]
    ph = phase[g]
    if ph == FLIP:
        return np.int64(ug * 2)  # keep (0) or flip (1)
    if ph != PLAY:
        return -1
    seat = current[g]
    sz = size[g, seat]
    hand_runs(top, g, seat, sz, step, runlen)
    shows = bounds(top, g, seat, sz, step, runlen, tkey[g], fewest)
    at = half_at[g]
    if at >= 0:  # the show half: the canonical shows, less the folded count per start
        total = 0
        for j in range(sz):
            f = folded(at, j)
            total += max(runlen[j] - fewest[j] + 1, 0) - (1 if f > 0 and fewest[j] <= f <= runlen[j] else 0)
        k = np.int64(uh * total)
        for j in range(sz):
            f = folded(at, j)
            excluded = f > 0 and fewest[j] <= f <= runlen[j]
            here = max(runlen[j] - fewest[j] + 1, 0) - (1 if excluded else 0)
            if k < here:
                c = fewest[j] + k
                if excluded and c >= f:
                    c += 1
                return SHOW_BASE + j * MAX_HAND - j * (j - 1) // 2 + c - 1
            k -= here
        return -1
    n = tsize[g]
    can = scoutable(st, g, seat)
    scouts = (4 if n > 1 else 2) * (sz + 1) if can else 0
    halves = 0
    if p > 2 and can and chips[g, seat] > 0:
        halves = half_fill(
            top, g, seat, sz, ttop, tbot, n, step, runlen, left, right, hm, 0, 0, False, blocks, spans
        )
    k = np.int64(ug * (shows + scouts + halves))
    if k < shows:
        for j in range(sz):
            here = max(runlen[j] - fewest[j] + 1, 0)
            if k < here:
                return SHOW_BASE + j * MAX_HAND - j * (j - 1) // 2 + fewest[j] + k - 1
            k -= here
    elif k - shows < scouts:
        k -= shows
        return SCOUT_BASE + (k // (sz + 1)) * INSERTS + k % (sz + 1)
    elif halves:
        k -= shows + scouts
        for blk in range(4):
            if k < blocks[blk]:
                lo, hi = spans[2 * blk], spans[2 * blk + 1]
                for a in range(sz + 1):
                    if a < lo or a > hi or hm[0, blk * INSERTS + a]:
                        if k == 0:
                            return SCOUT_SHOW_BASE + blk * INSERTS + a
                        k -= 1
                return -1
            k -= blocks[blk]
    return -1


@kernel()
def sample(
    st: Any, u: Any, u_half: Any, out: Any,
    step: Any, runlen: Any, fewest: Any, left: Any, right: Any, hm: Any, blocks: Any, spans: Any,
) -> None:  # fmt: skip
    """``sample_legal`` from the numpy backend's uniform numbers, with its arithmetic."""
    phase, half_at = st[9], st[18]
    ih = 0
    for g in range(phase.shape[0]):
        uh = 0.0
        if phase[g] == PLAY and half_at[g] >= 0:
            uh = u_half[ih]
            ih += 1
        out[g] = sample_game(st, g, u[g], uh, step, runlen, fewest, left, right, hm, blocks, spans)


@kernel()
def mask(
    st: Any, out: Any, step: Any, runlen: Any, fewest: Any, left: Any, right: Any, blocks: Any, spans: Any
) -> None:
    """``legal_mask``: the legal learning ids of the seat to move in every game."""
    top, size, ttop, tbot, tsize, tkey, current, phase, chips, half_at = (
        st[0], st[2], st[3], st[4], st[5], st[6], st[8], st[9], st[11], st[18],
    )  # fmt: skip
    b, p = size.shape[0], size.shape[1]
    for g in range(b):  # ``out`` comes zeroed (np.zeros: zero pages)
        ph = phase[g]
        if ph == FLIP:
            out[g, KEEP_ID] = True
            out[g, FLIP_ID] = True
            continue
        if ph != PLAY:
            continue
        seat = current[g]
        sz = size[g, seat]
        hand_runs(top, g, seat, sz, step, runlen)
        bounds(top, g, seat, sz, step, runlen, tkey[g], fewest)
        at = half_at[g]
        for j in range(sz):
            first = SHOW_BASE + j * MAX_HAND - j * (j - 1) // 2 - 1
            f = folded(at, j) if at >= 0 else 0
            for c in range(fewest[j], runlen[j] + 1):
                if c != f:
                    out[g, first + c] = True
        if not scoutable(st, g, seat):
            continue
        n = tsize[g]
        for blk in range(4 if n > 1 else 2):  # a one-card set is scouted from its left end only
            for a in range(sz + 1):
                out[g, SCOUT_BASE + blk * INSERTS + a] = True
        if p > 2 and chips[g, seat] > 0:  # S-9: one chip a round
            half_fill(
                top,
                g,
                seat,
                sz,
                ttop,
                tbot,
                n,
                step,
                runlen,
                left,
                right,
                out,
                g,
                SCOUT_SHOW_BASE,
                True,
                blocks,
                spans,
            )
