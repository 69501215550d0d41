"""The built-in ``easy`` and ``medium`` Scout bots (:mod:`spieltisch.bots.scout.bots`) as numba
kernels for :class:`spieltisch.rl.scout.vector.ScoutVectorEnv` (imported only when numba is
installed).

Each kernel decides for the seat to move in one game of the batched state ``st`` and returns the
engine action it chose as learning ids (:func:`learning_ids`: one id, or a scout & show's two).
They follow the bots line by line: the same candidates, the same scores computed with the same
floating-point operations in the same order (:func:`spieltisch.bots.scout.policy.score_actions`
with ``full=True``, its hand values by :func:`~spieltisch.bots.scout.policy._prefix`), the same
ties (the lower engine id) and the same random draws in the same order, where a draw is one
``random()`` double from the bots' bit generator (``bitgen``) and ``randrange(n)`` is
``floor(random() * n)`` (:class:`~spieltisch.rl.scout.vector.BotDraws` is that stream for the
single-state bots). The legal actions are taken in ascending engine id order (the engine lists a
scout & show's ids in another order): that shows only in medium's random move in a round past
:data:`~spieltisch.bots.scout.bots.LONG_ROUND` turns.

``bs`` is the scratch of these kernels (:data:`SCRATCH`): hands as int64 rows and the dynamic
programme's prefix values.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from spieltisch.bots.scout import bots as scout_bots
from spieltisch.bots.scout import policy
from spieltisch.engine.scout import actions as EA
from spieltisch.rl._random import bitgen_double
from spieltisch.rl.scout._kernels import kernel
from spieltisch.rl.scout.actions import INSERTS, SCOUT_BASE, SCOUT_SHOW_BASE, SHOW_BASE
from spieltisch.rl.scout.batched import FLIP, PLAY

H = policy.H
"""The engine's MAX_HAND (its action numbering)."""
E_SCOUT = EA.SCOUT_BASE
E_SS = EA.SS_BASE
HH = H * H
CARD, TOKEN, CHIP_2P, SS_CHIP, EMPTY_BONUS = (
    policy.CARD, policy.TOKEN, policy.CHIP_2P, policy.SS_CHIP, policy.EMPTY_BONUS,
)  # fmt: skip
SINGLE, SLOPE, LOW = policy.MEDIUM.single, policy.MEDIUM.slope, policy.MEDIUM.low
SEG = np.array([policy.MEDIUM.seg_run, policy.MEDIUM.seg_match], dtype=np.float64)
"""``SEG[d == 0][n]``: the value of a run (0) or match (1) of ``n`` cards kept together."""
EXPOSURE = np.array(policy.EXPOSURE, dtype=np.float64)
NOISE = scout_bots.EasyBot.noise
LONG_ROUND = scout_bots.LONG_ROUND
EASY, MEDIUM = 1, 2
"""Levels (``ScoutVectorEnv``'s per-seat codes; 0 is the random opponent, -1 a learner)."""
ROW = H + 2
SCRATCH = ("vals", "nv", "f", "fn", "fr")
"""``bs``: the hand's live numbers, the hand after a scout, and the prefix values of the hand,
of the hand after the scout, and of what a show leaves."""


def scratch() -> tuple[Any, ...]:
    """New scratch arrays for the kernels (``bs``)."""
    return (
        np.zeros(ROW, dtype=np.int64),
        np.zeros(ROW, dtype=np.int64),
        np.zeros(ROW + 1, dtype=np.float64),
        np.zeros(ROW + 1, dtype=np.float64),
        np.zeros(ROW + 1, dtype=np.float64),
    )


@kernel(inline="always")
def at_gap(x: Any, i: int, gs: int, gn: int) -> int:
    """``x`` without its ``gn`` numbers from place ``gs`` on, at place ``i``."""
    return int(x[i]) if i < gs else int(x[i + gn])


@kernel(inline="always")
def prefix(x: Any, h: int, gs: int, gn: int, f: Any, start: int) -> float:
    """``policy._prefix`` of the ``h`` numbers of ``x`` without its ``gn`` from ``gs`` on (the
    same operations in the same order): ``f[start + 1 : h + 1]`` from ``f[: start + 1]``;
    returns the hand value ``f[h] - CARD * h``."""
    for i in range(start, h):
        v = at_gap(x, i, gs, gn)
        best = f[i] + SINGLE + SLOPE * v
        if i:
            pv = at_gap(x, i - 1, gs, gn)
            d = v - pv
            if -1 <= d <= 1:
                row = 1 if d == 0 else 0
                j = i - 1
                lo = v if v < pv else pv
                n = 2
                while True:
                    cand = f[j] + SEG[row, n] + LOW * lo
                    if cand > best:
                        best = cand
                    if j == 0:
                        break
                    a, b = at_gap(x, j, gs, gn), at_gap(x, j - 1, gs, gn)
                    if a - b != d:
                        break
                    j -= 1
                    n += 1
                    if b < lo:
                        lo = b
        f[i + 1] = best
    return f[h] - CARD * h  # type: ignore[no-any-return]


@kernel(inline="always")
def next_set(x: Any, h: int, s: int, e: int) -> int:
    """The end (exclusive) of the next set after ``x[s:e]`` starting at ``s`` (``beating_sets``'
    order: longer sets of the same start), or -1 when ``x[s:e]`` is the longest."""
    if e >= h:
        return -1
    step = x[s + 1] - x[s] if s + 1 < h else 2
    if step < -1 or step > 1:
        return -1
    if x[e] - x[e - 1] != step:
        return -1
    return e + 1


@kernel(inline="always")
def key_of(x: Any, s: int, e: int) -> int:
    """``set_key`` of the set ``x[s:e]``."""
    n = e - s
    if n == 1:
        return 80 + int(x[s])
    kind = 16 if x[s + 1] == x[s] else 0
    lo = x[s] if x[s] < x[e - 1] else x[e - 1]
    return int(n * 64 + kind + lo)


@kernel(inline="always")
def load(st: Any, g: int, seat: int, vals: Any) -> int:
    """The seat's live numbers into ``vals``; its hand size."""
    top, size = st[0], st[2]
    h = size[g, seat]
    for j in range(h):
        vals[j] = top[g, seat, j]
    return int(h)


@kernel(inline="always")
def table_key(st: Any, g: int, skip: int) -> int:
    """``set_key`` of the active set without its left (``skip`` 0) or right (1) card, or the
    whole set (``skip`` -1); -1 for none."""
    ttop, tsize = st[3], st[5]
    lo, hi = 0, tsize[g]
    if skip == 0:
        lo += 1
    elif skip == 1:
        hi -= 1
    n = hi - lo
    if n <= 0:
        return -1
    if n == 1:
        return 80 + int(ttop[g, lo])
    kind = 16 if ttop[g, lo + 1] == ttop[g, lo] else 0
    low = ttop[g, lo] if ttop[g, lo] < ttop[g, hi - 1] else ttop[g, hi - 1]
    return int(n * 64 + kind + low)


@kernel(inline="always")
def scout_number(st: Any, g: int, end: int, turn: int) -> int:
    """The number a scout from ``end`` (0 left, 1 right) shows, turned or not (S-8)."""
    ttop, tbot, tsize = st[3], st[4], st[5]
    pos = 0 if end == 0 else tsize[g] - 1
    return int(tbot[g, pos]) if turn else int(ttop[g, pos])


@kernel(inline="always")
def insert(vals: Any, h: int, at: int, v: int, nv: Any) -> None:
    for i in range(at):
        nv[i] = vals[i]
    nv[at] = v
    for i in range(at, h):
        nv[i + 1] = vals[i]


@kernel(inline="always")
def may_scout(st: Any, g: int, seat: int, h: int) -> bool:
    """S-8, S-14: plain scouts are legal (a set to scout, room in the hand, a chip with two)."""
    size, tsize, chips = st[2], st[5], st[11]
    if tsize[g] == 0 or h + 1 > H:
        return False
    return bool(size.shape[1] != 2 or chips[g, seat] > 0)


@kernel(inline="always")
def may_ss(st: Any, g: int, seat: int, h: int) -> bool:
    """S-9, S-13: scout & shows are legal (three or more players, the chip unspent)."""
    size, chips = st[2], st[11]
    return bool(size.shape[1] != 2 and chips[g, seat] > 0 and may_scout(st, g, seat, h))


@kernel()
def legal_actions(st: Any, g: int, seat: int, k: int, bs: Any) -> int:
    """With ``k`` < 0 the number of the seat's legal engine actions (play phase), else the
    ``k``-th of them in ascending id order."""
    vals, nv = bs[0], bs[1]
    tsize = st[5]
    h = load(st, g, seat, vals)
    key = table_key(st, g, -1)
    n = 0
    for s in range(h):
        e = s + 1
        while e > 0:
            if key_of(vals, s, e) > key:
                if n == k:
                    return show_e(s, e - s)
                n += 1
            e = next_set(vals, h, s, e)
    if not may_scout(st, g, seat, h):
        return n
    ends = 1 if tsize[g] == 1 else 2
    if 0 <= k - n < 2 * ends * (h + 1):
        kind, at = divmod(k - n, h + 1)
        return E_SCOUT + kind * (H + 1) + at
    n += 2 * ends * (h + 1)
    if not may_ss(st, g, seat, h):
        return n
    for end in range(ends):
        rkey = table_key(st, g, end)
        for turn in range(2):
            v = scout_number(st, g, end, turn)
            for at in range(h + 1):
                insert(vals, h, at, v, nv)
                for s in range(h + 1):
                    e = s + 1
                    while e > 0:
                        if key_of(nv, s, e) > rkey:
                            if n == k:
                                return E_SS + ((end * 2 + turn) * (H + 1) + at) * HH + s * H + e - s - 1
                            n += 1
                        e = next_set(nv, h + 1, s, e)
    return n


@kernel(inline="always")
def show_e(s: int, n: int) -> int:
    """The engine's id of showing ``n`` cards from place ``s``."""
    return EA.SHOW_BASE + s * H + n - 1


@kernel()
def only_one(st: Any, g: int, seat: int, bs: Any) -> bool:
    """The seat has one legal action (a single show that beats the set, no scout)."""
    vals = bs[0]
    h = load(st, g, seat, vals)
    if may_scout(st, g, seat, h):
        return False  # two numbers per scouted card at least
    key = table_key(st, g, -1)
    n = 0
    for s in range(h):
        e = s + 1
        while e > 0:
            if key_of(vals, s, e) > key:
                n += 1
            e = next_set(vals, h, s, e)
    return n == 1


@kernel()
def medium_best(st: Any, g: int, seat: int, bs: Any) -> int:
    """``MediumBot``'s choice in the play phase: the best engine id of
    ``policy.score_actions(hand, table, players, chips, full=True)`` among the legal ones
    (ties: the lower id)."""
    vals, nv, f, fn, fr = bs
    size, tsize = st[2], st[5]
    p = size.shape[1]
    h = load(st, g, seat, vals)
    m = int(tsize[g])
    f[0] = 0.0
    prefix(vals, h, h, 0, f, 0)
    key = table_key(st, g, -1)
    best_score = -1e300
    best = -1
    for s in range(h):  # the shows (S-6); fr[: s + 1] is f's (the cards before the set)
        fr[s] = f[s]
        e = s + 1
        while e > 0:
            k = key_of(vals, s, e)
            if k > key:
                n = e - s
                # S-10 (a): a show that empties the hand ends the round at once
                score = m + EMPTY_BONUS if n == h else m + prefix(vals, h - n, s, n, fr, s) - EXPOSURE[k]
                a = show_e(s, n)
                if score > best_score or (score == best_score and a < best):
                    best_score, best = score, a
            e = next_set(vals, h, s, e)
    if m == 0 or not may_scout(st, g, seat, h):
        return best
    cost = CHIP_2P if p == 2 else TOKEN
    with_ss = may_ss(st, g, seat, h)
    for end in range(2 if m > 1 else 1):
        rkey = table_key(st, g, end)
        rm = m - 1
        for turn in range(2):
            v = scout_number(st, g, end, turn)
            index0 = (end * 2 + turn) * (H + 1)
            for at in range(h + 1):
                fn[at] = f[at]  # fn[: at + 1] is f's (the cards before the insert)
                if at and vals[at - 1] == v:
                    # The same hand as the insert one place left, every score the same and every
                    # id higher: none can win (ties go to the lower id), so none is scored.
                    continue
                insert(vals, h, at, v, nv)
                score = prefix(nv, h + 1, h + 1, 0, fn, at) - cost
                a = E_SCOUT + index0 + at
                if score > best_score or (score == best_score and a < best):
                    best_score, best = score, a
                if not with_ss:
                    continue
                base = E_SS + (index0 + at) * HH
                for s in range(h + 1):
                    fr[s] = fn[s]
                    e = s + 1
                    while e > 0:
                        k = key_of(nv, s, e)
                        n = e - s
                        if k > rkey and not (e == at or (n == 1 and s == at and at)):
                            # (skipped: the scouted card shown alone, or a set ending right
                            # before it, are the same as a lower id's: see above)
                            if n == h + 1:
                                shown = rm + EMPTY_BONUS
                            else:
                                shown = rm + prefix(nv, h + 1 - n, s, n, fr, s) - EXPOSURE[k]
                            score = shown - TOKEN - SS_CHIP
                            a = base + s * H + n - 1
                            if score > best_score or (score == best_score and a < best):
                                best_score, best = score, a
                        e = next_set(nv, h + 1, s, e)
    return best


@kernel()
def wants_flip(st: Any, g: int, seat: int, bs: Any) -> bool:
    """``policy.wants_flip``: the turned hand (mirrored, other numbers live) is worth more."""
    vals, nv, f = bs[0], bs[1], bs[2]
    bottom = st[1]
    h = load(st, g, seat, vals)
    for j in range(h):
        nv[j] = bottom[g, seat, h - 1 - j]
    f[0] = 0.0
    turned = prefix(nv, h, h, 0, f, 0)
    return bool(turned > prefix(vals, h, h, 0, f, 0))


@kernel()
def easy_play(st: Any, g: int, seat: int, bitgen: Any, bs: Any) -> int:
    """``EasyBot.choose`` in the play phase (more than one legal action): its engine id."""
    vals = bs[0]
    tsize = st[5]
    h = load(st, g, seat, vals)
    key = table_key(st, g, -1)
    shows = 0
    best_n, best_k, best = -1, -1, -1
    for s in range(h):
        e = s + 1
        while e > 0:
            k = key_of(vals, s, e)
            if k > key:
                shows += 1
                if e - s > best_n or (e - s == best_n and k > best_k):
                    best_n, best_k, best = e - s, k, show_e(s, e - s)
            e = next_set(vals, h, s, e)
    scouts = may_scout(st, g, seat, h)
    ends = 1 if tsize[g] == 1 else 2
    if bitgen_double(bitgen) < NOISE:  # noise: any legal show or plain scout
        plain = shows + (2 * ends * (h + 1) if scouts else 0)
        return legal_actions(st, g, seat, below(bitgen, plain), bs)
    if shows:
        return best
    if scouts:  # _fitting_scout: where the card touches a neighbour it could join
        options = 0
        for end in range(ends):
            for turn in range(2):
                v = scout_number(st, g, end, turn)
                for at in range(h + 1):
                    if touches(vals, h, at, v):
                        options += 1
        if options == 0:  # every plain scout, in order
            return legal_actions(st, g, seat, shows + below(bitgen, 2 * ends * (h + 1)), bs)
        k = below(bitgen, options)
        for end in range(ends):
            for turn in range(2):
                v = scout_number(st, g, end, turn)
                for at in range(h + 1):
                    if touches(vals, h, at, v):
                        if k == 0:
                            return E_SCOUT + (end * 2 + turn) * (H + 1) + at
                        k -= 1
    return legal_actions(st, g, seat, below(bitgen, legal_actions(st, g, seat, -1, bs)), bs)


@kernel(inline="always")
def touches(vals: Any, h: int, at: int, v: int) -> bool:
    """The number ``v`` inserted at ``at`` is next to a number at most one away."""
    if at > 0 and -1 <= vals[at - 1] - v <= 1:
        return True
    return bool(at < h and -1 <= vals[at] - v <= 1)


@kernel(inline="always")
def below(bitgen: Any, n: int) -> int:
    """``randrange(n)`` as the batched bots draw it: ``floor(random() * n)``."""
    k = int(bitgen_double(bitgen) * n)
    return k if k < n else n - 1


@kernel(inline="always")
def learning_ids(eid: int, tsize: int) -> tuple[int, int]:
    """An engine action id as learning ids (the second -1 unless a scout & show), folded as
    :func:`spieltisch.rl.scout.actions.legal` folds them."""
    if eid < EA.SHOW_BASE:
        return eid, -1
    if eid < E_SCOUT:
        s, n = divmod(eid - EA.SHOW_BASE, H)
        return show_rl(s, n + 1), -1
    if eid < E_SS:
        kind, at = divmod(eid - E_SCOUT, H + 1)
        if tsize == 1 and kind >= 2:
            kind -= 2
        return SCOUT_BASE + kind * INSERTS + at, -1
    index, shown = divmod(eid - E_SS, HH)
    kind, at = divmod(index, H + 1)
    if tsize == 1 and kind >= 2:
        kind -= 2
    s, n = divmod(shown, H)
    n += 1
    half = SCOUT_SHOW_BASE + kind * INSERTS + at
    if n == 1 and s == at:
        return half - at, show_rl(0, 1)
    if s + n == at:
        return half - n, show_rl(s + 1, n)
    return half, show_rl(s, n)


@kernel(inline="always")
def show_rl(s: int, n: int) -> int:
    """:func:`spieltisch.rl.scout.actions.show_id`."""
    return SHOW_BASE + s * 45 - s * (s - 1) // 2 + n - 1


@kernel()
def decide(st: Any, g: int, level: int, turns: int, bitgen: Any, bs: Any) -> tuple[int, int]:
    """The decision of the ``easy`` (``level`` 1) or ``medium`` (2) bot for the seat to move in
    game ``g`` (flip or play phase; ``turns``: the plays of this round so far), as learning ids
    (the second -1 unless a scout & show)."""
    phase, current, pending, tsize = st[9], st[8], st[10], st[5]
    if phase[g] == FLIP:
        seat = 0
        while not pending[g, seat]:
            seat += 1
        if level == EASY:
            return (1 if bitgen_double(bitgen) < 0.5 else 0), -1
        return (1 if wants_flip(st, g, seat, bs) else 0), -1
    if phase[g] != PLAY:
        return -1, -1
    seat = current[g]
    if only_one(st, g, seat, bs):
        eid = legal_actions(st, g, seat, 0, bs)
    elif level == EASY:
        eid = easy_play(st, g, seat, bitgen, bs)
    elif turns > LONG_ROUND and bitgen_double(bitgen) < 0.5:  # break a show/scout cycle
        eid = legal_actions(st, g, seat, below(bitgen, legal_actions(st, g, seat, -1, bs)), bs)
    else:
        eid = medium_best(st, g, seat, bs)
    return learning_ids(eid, tsize[g])
