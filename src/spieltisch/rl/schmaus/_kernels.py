# ruff: noqa: RUF059  -- the kernels unpack the whole table tuple by name, used or not
"""The numba kernels of :mod:`spieltisch.rl.fast` (imported only when numba is installed).

One game at a time, in the numpy backend's order of work for that game (W-1 .. W-18).
The rest of a decision node after the actions (W-6 draws, reveal, scoring, W-13 loser
draws, W-16 discards, the next round's W-5 draws) is one state machine,
:func:`advance`. A game that needs a W-17 reshuffle pauses there: ``advance``
returns the point (1 + E/L/S_s below) and :func:`step` resumes the paused games in
the numpy backend's order of reshuffles (by point, then game), so they draw the
same random numbers.

Speed: no reference counting and nothing allocated per game; every function called
per game is inlined (``helper``: a call passes each array argument as a struct of
5 + 2 * ndim words, and with ~30 arrays that cost more than a lay's work); calls with
30 or more arguments cannot be inlined (Python passes them as ``*args``), hence the
tuples ``st``, ``tables``, ``saved``. ``sample_legal``, ``play_random``, ``deciding``,
``legal_mask`` and the deal of finished games are kernels too. Random numbers come from the bit
generator itself (``bits``, see ``RNG_*``), in numpy's order: numpy's PCG64 computed
here, any other bit generator through its C functions.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit

from spieltisch.rl.schmaus.batched import (
    DISCARD,
    DISCARD_BASE,
    EMPTY_DRAW,
    F_KINDS,
    GARBAGE,
    GROCER,
    GUARDIAN,
    HAND_LIMIT,
    HUNTER,
    KINDS,
    LOSER_DRAWS,
    MAX_CARDS,
    NUM_ACTIONS,
    NUM_PLAYS,
    OVER,
    PLAY,
    TARGET,
    TARGET_BASE,
    X2,
    X3,
    X5,
    X5_BASE,
)
from spieltisch.rl.scout._kernels import next_double as bitgen_double
from spieltisch.rl.scout._kernels import random_interval as bitgen_interval

POINT_EMPTY, POINT_LOSER, POINT_SHORT = 0, 1, 2
"""Where a step reshuffles: the W-6 draws of empty hands, the W-13 loser draws, the W-5
draws of seat s (point 2 + s); numpy reshuffles all games at one point, in game order."""

_OPTIONS: dict[str, Any] = {"cache": True, "_nrt": False}
kernel = njit(**_OPTIONS)
"""Every kernel: compiled once into numba's on-disk cache, and without numba's reference
counting (no kernel allocates; counting would cost two atomic operations per array
argument per call, many per game), so the caller passes the scratch arrays in."""
helper = njit(inline="always", **_OPTIONS)
"""Every function the kernels call: inlined into them (numba IR), as a call passes each array
argument as a struct of 5 + 2 * ndim words (with some 30 arrays a call per game cost more
than the work of a lay)."""

PCG_HI = np.uint64(0x2360ED051FC65DA4)
PCG_LO = np.uint64(0x4385DF649FCCF645)
"""numpy's PCG64 multiplier (``PCG_DEFAULT_MULTIPLIER_128``), high and low 64 bits."""
M32 = np.uint64(0xFFFFFFFF)
U11, U32, U58, U63, U64 = np.uint64(11), np.uint64(32), np.uint64(58), np.uint64(63), np.uint64(64)
RNG_MODE, RNG_HI, RNG_LO, RNG_INC_HI, RNG_INC_LO, RNG_HAS32, RNG_U32 = range(3, 10)
"""Places in a kernel's random source ``bits`` (uint64, 10) after the bit generator's state
address and C functions (0..2, as ``_scout_kernels``): the mode (1: numpy's PCG64 computed
here, on a copy of its state that the caller loads before and stores back after the call; 0:
any other bit generator, through its C functions), and PCG64's state, increment and buffered
32-bit half."""


@helper
def mulhi(a: Any, b: Any) -> Any:
    """The high 64 bits of the 128-bit product of two uint64."""
    ll = (a & M32) * (b & M32)
    hl = (a >> U32) * (b & M32)
    lh = (a & M32) * (b >> U32)
    cross = (ll >> U32) + (hl & M32) + lh
    return (a >> U32) * (b >> U32) + (hl >> U32) + (cross >> U32)


@helper
def pcg_next64(bits: Any) -> Any:
    """numpy's ``pcg64_next64``: the 128-bit LCG step (state * multiplier + increment), then
    the XSL-RR output of the new state."""
    hi, lo = bits[RNG_HI], bits[RNG_LO]
    low = lo * PCG_LO
    high = mulhi(lo, PCG_LO) + lo * PCG_HI + hi * PCG_LO
    lo2 = low + bits[RNG_INC_LO]
    hi2 = high + bits[RNG_INC_HI] + (np.uint64(1) if lo2 < low else np.uint64(0))
    bits[RNG_HI] = hi2
    bits[RNG_LO] = lo2
    x = hi2 ^ lo2
    rot = hi2 >> U58
    return (x >> rot) | (x << ((U64 - rot) & U63))


@helper
def next_double(bits: Any) -> float:
    """The Generator's ``random()``: numpy's ``next_double`` (53 bits of one 64-bit draw)."""
    if bits[RNG_MODE] == 1:
        return float(pcg_next64(bits) >> U11) * (1.0 / 9007199254740992.0)
    return bitgen_double(bits)


@helper
def random_interval(bits: Any, most: int) -> int:
    """numpy's ``random_interval(bitgen, most)`` for ``most < 2**32`` (as
    ``_scout_kernels.random_interval``), its 32-bit draws buffered as numpy's PCG64 does."""
    if bits[RNG_MODE] != 1:
        return bitgen_interval(bits, most)
    if most == 0:
        return 0
    mask = most
    for shift in (1, 2, 4, 8, 16):
        mask |= mask >> shift
    while True:
        if bits[RNG_HAS32] != 0:
            bits[RNG_HAS32] = 0
            word = bits[RNG_U32]
        else:
            n = pcg_next64(bits)
            bits[RNG_HAS32] = 1
            bits[RNG_U32] = n >> U32
            word = n & M32
        value = np.int64(word) & mask
        if value <= most:
            return int(value)


@helper
def shuffle(bits: Any, row: Any, n: int) -> None:
    """numpy's ``Generator.shuffle`` of ``row[:n]`` (one row of ``permuted``)."""
    for i in range(n - 1, 0, -1):
        j = random_interval(bits, i)
        row[i], row[j] = row[j], row[i]


BUCKETS = 64
"""The buckets of a reshuffle's sort."""

S_EMPTY, S_EMPTY_DRAW, S_REVEAL, S_SCORE, S_LOSER_DRAW, S_START, S_SHORT = range(7)
"""The stages of :func:`advance`: after the lays (W-6 check), the W-6 draws, the reveal
(W-9/W-11 choices), the scoring (W-8 .. W-15), the W-13 draws and what follows
(W-18, W-16), a new round, its W-5 draws from a seat on."""


@helper
def full(food: int, effects: int) -> bool:
    return food >= 3 or (food == 2 and effects > 0)  # W-4


@helper
def draw_seat(g: int, s: int, n: int, hands: Any, food: Any, effects: Any, pile: Any, pile_len: Any) -> None:
    for _ in range(n):  # the top card is pile[pile_len - 1] (W-17)
        top = pile_len[g] - 1
        card = pile[g, top]
        pile_len[g] = top
        hands[g, s, card] += 1
        if card < F_KINDS:
            food[g, s] += 1
        else:
            effects[g, s] += 1


@helper
def draw(g: int, pend: Any, hands: Any, food: Any, effects: Any, pile: Any, pile_len: Any) -> None:
    """W-17 draws ``pend[g]`` in seat order (both piles empty: no more draws)."""
    for s in range(pend.shape[1]):
        n = min(pend[g, s], pile_len[g])
        draw_seat(g, s, n, hands, food, effects, pile, pile_len)


@helper
def needs_reshuffle(g: int, pend: Any, pile_len: Any, disc_len: Any) -> bool:
    """W-17: the draws ``pend[g]`` run the pile out while there are discards."""
    total = 0
    for s in range(pend.shape[1]):
        total += pend[g, s]
    return bool(pile_len[g] < total and disc_len[g] > 0)


@kernel
def reshuffle(
    g: int,
    pile: Any,
    pile_len: Any,
    disc: Any,
    disc_len: Any,
    reshuffles: Any,
    bits: Any,
    keys: Any,
    order: Any,
    bucket: Any,
) -> None:
    """W-17: the discards, shuffled, go under the pile; the same 54 keys per game as the
    numpy backend and the same order (its ``argsort`` of the keys: distinct keys sort
    alike by any sort). Here a bucket sort (64 buckets of the uniform keys), then an
    insertion sort of the nearly sorted result, in the scratch arrays ``keys``, ``order``
    (54,) and ``bucket`` (65,)."""
    size = disc_len[g]
    for i in range(MAX_CARDS):
        keys[i] = next_double(bits)
    for t in range(BUCKETS + 1):
        bucket[t] = 0
    for i in range(size):
        bucket[np.int64(keys[i] * BUCKETS) + 1] += 1
    for t in range(BUCKETS):
        bucket[t + 1] += bucket[t]
    for i in range(size):
        c = np.int64(keys[i] * BUCKETS)
        order[bucket[c]] = i
        bucket[c] += 1
    for i in range(1, size):
        o = order[i]
        v = keys[o]
        j = i - 1
        while j >= 0 and keys[order[j]] > v:
            order[j + 1] = order[j]
            j -= 1
        order[j + 1] = o
    for i in range(pile_len[g] - 1, -1, -1):
        pile[g, i + size] = pile[g, i]
    for i in range(size):
        pile[g, i] = disc[g, order[i]]
    pile_len[g] += size
    disc_len[g] = 0
    reshuffles[g] += 1


@helper
def ask_discards(
    g: int, before: bool, food: Any, effects: Any, phase: Any, must: Any, sealed_len: Any, before_play: Any
) -> bool:
    """W-16: who must discard, and whether anybody must (then the phase is DISCARD)."""
    any_must = False
    for s in range(food.shape[1]):
        m = max(0, food[g, s] + effects[g, s] - HAND_LIMIT)
        must[g, s] = m
        sealed_len[g, s] = 0
        if m > 0:
            any_must = True
    before_play[g] = before
    if any_must:
        phase[g] = DISCARD
    return any_must


@helper
def advance(
    g: int,
    stage: int,
    seat: int,
    hands: Any,
    food: Any,
    effects: Any,
    pile: Any,
    pile_len: Any,
    disc: Any,
    disc_len: Any,
    scores: Any,
    rnd: Any,
    rounds: Any,
    phase: Any,
    plays: Any,
    targets: Any,
    x5: Any,
    choosing: Any,
    must: Any,
    sealed_len: Any,
    before_play: Any,
    pend: Any,
    individual: Any,
    tables: Any,
) -> int:
    """Game ``g`` from ``stage`` (W-5 from ``seat``) to its next decision node: 0, or
    1 + the point of a W-17 reshuffle it needs first (the draws wait in ``pend``). ``tables``:
    per lay its food and effect cards, its effect card, its one food kind, food value, base
    value and cards (-1 for none); per card kind its value."""
    pnfood, pneffects, peffect, ponly, pfood, pbase, pcards, value = tables
    p = hands.shape[1]
    while True:
        if stage == S_EMPTY:  # W-6, before the reveal
            empty = False
            for s in range(p):
                if food[g, s] + effects[g, s] == 0:
                    pend[g, s] = EMPTY_DRAW
                    empty = True
                else:
                    pend[g, s] = 0
            stage = S_REVEAL
            if empty:
                if needs_reshuffle(g, pend, pile_len, disc_len):
                    return 1 + POINT_EMPTY
                stage = S_EMPTY_DRAW
        elif stage == S_EMPTY_DRAW:
            draw(g, pend, hands, food, effects, pile, pile_len)
            stage = S_REVEAL
        elif stage == S_REVEAL:
            guardian = False
            hunter = False
            for s in range(p):
                e = peffect[plays[g, s]]
                guardian = guardian or e == GUARDIAN
                hunter = hunter or e == HUNTER
            hunter = hunter and not guardian
            choose = False
            for s in range(p):
                a = plays[g, s]
                grocer = peffect[a] == GROCER and not (guardian or hunter)
                times5 = peffect[a] == X5 and not hunter
                if p == 2 and grocer:
                    targets[g, s] = 1 - s  # W-9: the forced target
                if times5 and ponly[a] >= 0:
                    x5[g, s] = ponly[a]  # W-11: the forced choice
                c = (grocer and targets[g, s] < 0) or (times5 and x5[g, s] < 0)
                choosing[g, s] = c
                choose = choose or c
            if choose:
                phase[g] = TARGET
                return 0
            stage = S_SCORE
        elif stage == S_SCORE:
            guardian = False
            hunter = False
            garbage = 0
            doubling = 0
            targeted = 0  # W-9: one bit per seat a grocer chose
            for s in range(p):
                e = peffect[plays[g, s]]
                guardian = guardian or e == GUARDIAN
                hunter = hunter or e == HUNTER
                if e == GARBAGE:
                    garbage += 1
                if e == X2:
                    doubling += 1  # W-11
                if e == GROCER and targets[g, s] >= 0:
                    targeted |= 1 << targets[g, s]
            hunter = hunter and not guardian
            if guardian:
                garbage = 0  # W-10
            pot = 0
            best = -1
            low = -1
            for s in range(p):
                a = plays[g, s]
                e = peffect[a]
                zeroed = not (guardian or hunter) and (targeted >> s) & 1 != 0  # W-9
                f = pfood[a]
                if e == X5:
                    total = f + 4 * value[max(x5[g, s], 0)]
                elif e == X3:
                    total = 3 * f
                else:
                    total = f
                if zeroed:
                    total = 0
                total = total << doubling
                ind = 0 if hunter else (total >> garbage) + pbase[a]  # W-8, W-12, W-13
                individual[s] = ind
                pot += ind  # W-14
                if s == 0 or ind > best:
                    best = ind
                if s == 0 or ind < low:
                    low = ind
            nbest = 0
            for s in range(p):
                if individual[s] == best:
                    nbest += 1
            share = pot // nbest
            n = disc_len[g]
            for s in range(p):
                if individual[s] == best:
                    scores[g, s] += share
                pend[g, s] = LOSER_DRAWS if individual[s] == low else 0
                a = plays[g, s]  # W-15: the laid cards go to the discard pile, in seat order
                for j in range(3):
                    c = pcards[a, j]
                    if c >= 0:
                        disc[g, n] = c
                        n += 1
            disc_len[g] = n
            stage = S_LOSER_DRAW
            if needs_reshuffle(g, pend, pile_len, disc_len):
                return 1 + POINT_LOSER
        elif stage == S_LOSER_DRAW:
            draw(g, pend, hands, food, effects, pile, pile_len)
            for s in range(p):
                plays[g, s] = -1
            if rnd[g] >= rounds[g]:
                phase[g] = OVER  # W-18
                return 0
            if ask_discards(g, False, food, effects, phase, must, sealed_len, before_play):
                return 0
            rnd[g] += 1
            stage = S_START
        elif stage == S_START:
            for s in range(p):
                plays[g, s] = -1
                targets[g, s] = -1
                x5[g, s] = -1
                choosing[g, s] = False
            phase[g] = PLAY
            seat = 0
            stage = S_SHORT
        else:  # S_SHORT: W-5 in seat order, one card at a time until a lay is possible
            for s in range(seat, p):
                while not full(food[g, s], effects[g, s]):
                    if pile_len[g] == 0:
                        if disc_len[g] > 0:
                            return 1 + POINT_SHORT + s
                        break
                    draw_seat(g, s, 1, hands, food, effects, pile, pile_len)
            ask_discards(g, True, food, effects, phase, must, sealed_len, before_play)  # W-16 before laying
            return 0


@kernel
def save_game(
    g: int, hands: Any, food: Any, effects: Any, pile_len: Any, disc_len: Any, scores: Any, rnd: Any,
    phase: Any, plays: Any, targets: Any, x5: Any, choosing: Any, must: Any, sealed_len: Any,
    before_play: Any,
    save_small: Any, save_hands: Any, save_one: Any,
) -> None:  # fmt: skip
    """What a step of game ``g`` changes, to put it back (:func:`restore_game`) if it reshuffles."""
    for s in range(hands.shape[1]):
        save_small[0, s] = food[g, s]
        save_small[1, s] = effects[g, s]
        save_small[2, s] = scores[g, s]
        save_small[3, s] = plays[g, s]
        save_small[4, s] = targets[g, s]
        save_small[5, s] = x5[g, s]
        save_small[6, s] = choosing[g, s]
        save_small[7, s] = must[g, s]
        save_small[8, s] = sealed_len[g, s]
        for k in range(KINDS):
            save_hands[s, k] = hands[g, s, k]
    save_one[0] = pile_len[g]
    save_one[1] = disc_len[g]
    save_one[2] = rnd[g]
    save_one[3] = phase[g]
    save_one[4] = before_play[g]


@kernel
def restore_game(
    g: int, hands: Any, food: Any, effects: Any, pile_len: Any, disc_len: Any, scores: Any, rnd: Any,
    phase: Any, plays: Any, targets: Any, x5: Any, choosing: Any, must: Any, sealed_len: Any,
    before_play: Any,
    save_small: Any, save_hands: Any, save_one: Any,
) -> None:  # fmt: skip
    """Game ``g`` as :func:`save_game` saved it."""
    for s in range(hands.shape[1]):
        food[g, s] = save_small[0, s]
        effects[g, s] = save_small[1, s]
        scores[g, s] = save_small[2, s]
        plays[g, s] = save_small[3, s]
        targets[g, s] = save_small[4, s]
        x5[g, s] = save_small[5, s]
        choosing[g, s] = save_small[6, s] != 0
        must[g, s] = save_small[7, s]
        sealed_len[g, s] = save_small[8, s]
        for k in range(KINDS):
            hands[g, s, k] = save_hands[s, k]
    pile_len[g] = save_one[0]
    disc_len[g] = save_one[1]
    rnd[g] = save_one[2]
    phase[g] = save_one[3]
    before_play[g] = save_one[4] != 0


@helper
def step_game(
    g: int,
    actions: Any,
    hands: Any,
    food: Any,
    effects: Any,
    pile: Any,
    pile_len: Any,
    disc: Any,
    disc_len: Any,
    scores: Any,
    rnd: Any,
    rounds: Any,
    phase: Any,
    plays: Any,
    targets: Any,
    x5: Any,
    choosing: Any,
    must: Any,
    sealed: Any,
    sealed_len: Any,
    before_play: Any,
    pend: Any,
    individual: Any,
    tables: Any,
) -> int:
    """The current node of game ``g`` (not over) with the actions ``actions[g]``: 0, or 1 + the
    point of a W-17 reshuffle it needs first (as :func:`advance`)."""
    pnfood, pneffects, peffect, ponly, pfood, pbase, pcards, value = tables
    p = hands.shape[1]
    ph = phase[g]
    if ph == PLAY:
        laid = True
        for s in range(p):
            if plays[g, s] < 0:
                a = actions[g, s]
                for j in range(3):
                    c = pcards[a, j]
                    if c >= 0:
                        hands[g, s, c] -= 1
                food[g, s] -= pnfood[a]
                effects[g, s] -= pneffects[a]
                plays[g, s] = a
                if a < 0:
                    laid = False
        if not laid:
            return 0
        stage = S_EMPTY
    elif ph == TARGET:
        for s in range(p):
            if choosing[g, s]:
                a = actions[g, s]
                if a < X5_BASE:
                    targets[g, s] = a - TARGET_BASE
                else:
                    x5[g, s] = a - X5_BASE
                choosing[g, s] = False
        phase[g] = PLAY  # every choosing seat chose at once
        stage = S_SCORE
    else:  # DISCARD (W-16)
        waiting = False
        for s in range(p):
            if must[g, s] > 0:
                k = actions[g, s] - DISCARD_BASE
                hands[g, s, k] -= 1
                if k < F_KINDS:
                    food[g, s] -= 1
                else:
                    effects[g, s] -= 1
                sealed[g, s, sealed_len[g, s]] = k
                sealed_len[g, s] += 1
                must[g, s] -= 1
                if must[g, s] > 0:
                    waiting = True
        if waiting:
            return 0
        for s in range(p):  # revealed together, in seat order
            for j in range(sealed_len[g, s]):
                disc[g, disc_len[g]] = sealed[g, s, j]
                disc_len[g] += 1
            sealed_len[g, s] = 0
        if before_play[g]:
            phase[g] = PLAY
            return 0
        rnd[g] += 1
        stage = S_START
    code: int = advance(  # one call site: one inlined copy
        g, stage, 0, hands, food, effects, pile, pile_len, disc, disc_len, scores, rnd, rounds,
        phase, plays, targets, x5, choosing, must, sealed_len, before_play, pend, individual, tables,
    )  # fmt: skip
    return code


@helper
def node(
    g: int,
    actions: Any,
    st: Any,
    pend: Any,
    pause: Any,
    change: Any,
    fallback: Any,
    use_rng: bool,
    individual: Any,
    saved: Any,
    tables: Any,
) -> int:
    """``step`` of game ``g``: 0 done (or over), 1 paused for a reshuffle (``pause[g]``, with
    ``use_rng``), 2 put back for the numpy backend (``fallback[g]``, without). ``st``: the state
    arrays (``FastSchmaus._state``), ``saved`` the scratch of :func:`save_game`."""
    (
        hands, food, effects, pile, pile_len, disc, disc_len, scores, rnd, rounds, phase, plays, targets,
        x5, choosing, must, sealed, sealed_len, before_play,
    ) = st  # fmt: skip
    save_small, save_hands, save_one = saved
    p = hands.shape[1]
    fallback[g] = False
    pause[g] = -1
    for s in range(p):
        change[g, s] = scores[g, s]
    ph = phase[g]
    if ph == OVER:
        return 0
    if not use_rng:
        save_game(
            g, hands, food, effects, pile_len, disc_len, scores, rnd, phase, plays, targets, x5, choosing,
            must, sealed_len, before_play, save_small, save_hands, save_one,
        )  # fmt: skip
    code = step_game(
        g, actions, hands, food, effects, pile, pile_len, disc, disc_len, scores, rnd, rounds, phase,
        plays, targets, x5, choosing, must, sealed, sealed_len, before_play, pend, individual,
        tables,
    )  # fmt: skip
    if code == 0:
        return 0
    if use_rng:
        pause[g] = ph * (POINT_SHORT + p) + code - 1  # numpy: the PLAY chain, then TARGET, then DISCARD
        return 1
    restore_game(
        g, hands, food, effects, pile_len, disc_len, scores, rnd, phase, plays, targets, x5, choosing,
        must, sealed_len, before_play, save_small, save_hands, save_one,
    )  # fmt: skip
    fallback[g] = True
    return 2


@kernel
def reshuffle_paused(
    n_pause: int,
    hands: Any,
    food: Any,
    effects: Any,
    pile: Any,
    pile_len: Any,
    disc: Any,
    disc_len: Any,
    scores: Any,
    rnd: Any,
    rounds: Any,
    phase: Any,
    plays: Any,
    targets: Any,
    x5: Any,
    choosing: Any,
    must: Any,
    sealed_len: Any,
    before_play: Any,
    reshuffles: Any,
    pend: Any,
    pause: Any,
    bits: Any,
    individual: Any,
    keys: Any,
    order: Any,
    bucket: Any,
    tables: Any,
) -> None:
    """W-17: the ``n_pause`` paused games' reshuffles by point, then game, as numpy draws them."""
    b, p = hands.shape[0], hands.shape[1]
    span = POINT_SHORT + p
    while n_pause > 0:
        stage = span * 3
        for g in range(b):
            if pause[g] >= 0 and pause[g] < stage:
                stage = pause[g]
        point = stage % span
        for g in range(b):
            if pause[g] != stage:
                continue
            pause[g] = -1
            n_pause -= 1
            reshuffle(g, pile, pile_len, disc, disc_len, reshuffles, bits, keys, order, bucket)
            if point == POINT_EMPTY:
                resume, seat = S_EMPTY_DRAW, 0
            elif point == POINT_LOSER:
                resume, seat = S_LOSER_DRAW, 0
            else:
                resume, seat = S_SHORT, point - POINT_SHORT
            code = advance(
                g, resume, seat, hands, food, effects, pile, pile_len, disc, disc_len, scores, rnd, rounds,
                phase, plays, targets, x5, choosing, must, sealed_len, before_play, pend, individual,
                tables,
            )  # fmt: skip
            if code:
                pause[g] = stage - point + code - 1
                n_pause += 1


@kernel
def settle(
    n_pause: int,
    st: Any,
    reshuffles: Any,
    pend: Any,
    pause: Any,
    bits: Any,
    individual: Any,
    keys: Any,
    order: Any,
    bucket: Any,
    tables: Any,
    change: Any,
) -> None:
    """The end of ``step`` and ``play``: the ``n_pause`` paused games' reshuffles
    (:func:`reshuffle_paused`), then ``change`` (the scores before the step) becomes
    every game's score change. ``st``: the state arrays, as :func:`node` takes them."""
    (
        hands, food, effects, pile, pile_len, disc, disc_len, scores, rnd, rounds, phase, plays, targets,
        x5, choosing, must, _sealed, sealed_len, before_play,
    ) = st  # fmt: skip
    if n_pause:
        reshuffle_paused(
            n_pause, hands, food, effects, pile, pile_len, disc, disc_len, scores, rnd, rounds, phase,
            plays, targets, x5, choosing, must, sealed_len, before_play, reshuffles, pend, pause, bits,
            individual, keys, order, bucket, tables,
        )  # fmt: skip
    for g in range(hands.shape[0]):
        for s in range(hands.shape[1]):
            change[g, s] = scores[g, s] - change[g, s]


@kernel
def step(
    actions: Any,
    hands: Any,
    food: Any,
    effects: Any,
    pile: Any,
    pile_len: Any,
    disc: Any,
    disc_len: Any,
    scores: Any,
    rnd: Any,
    rounds: Any,
    phase: Any,
    plays: Any,
    targets: Any,
    x5: Any,
    choosing: Any,
    must: Any,
    sealed: Any,
    sealed_len: Any,
    before_play: Any,
    reshuffles: Any,
    pend: Any,
    pause: Any,
    change: Any,
    fallback: Any,
    bits: Any,
    use_rng: bool,
    individual: Any,
    keys: Any,
    order: Any,
    bucket: Any,
    save_small: Any,
    save_hands: Any,
    save_one: Any,
    tables: Any,
) -> int:
    """Every game's current node; ``change`` gets the score changes. With ``use_rng``,
    reshuffles draw from the bit generator ``bits`` in the numpy backend's order; else a game
    that reshuffles is put back as it was and flagged in ``fallback`` (the caller steps it with
    numpy and its shuffler). Returns how many were. Scratch: ``individual`` (P,), ``keys`` and
    ``order`` (54,), ``bucket`` (65,), ``save_small`` (10, P), ``save_hands`` (P, 12), ``save_one`` (5,)."""
    b = hands.shape[0]
    n_fallback = 0
    n_pause = 0
    st = (
        hands, food, effects, pile, pile_len, disc, disc_len, scores, rnd, rounds, phase, plays, targets,
        x5, choosing, must, sealed, sealed_len, before_play,
    )  # fmt: skip
    saved = (save_small, save_hands, save_one)
    for g in range(b):
        r = node(g, actions, st, pend, pause, change, fallback, use_rng, individual, saved, tables)
        if r == 1:
            n_pause += 1
        elif r == 2:
            n_fallback += 1
    settle(n_pause, st, reshuffles, pend, pause, bits, individual, keys, order, bucket, tables, change)
    return n_fallback


@kernel
def play(
    sample_bits: Any,
    uniforms: Any,
    hands: Any,
    food: Any,
    effects: Any,
    pile: Any,
    pile_len: Any,
    disc: Any,
    disc_len: Any,
    scores: Any,
    rnd: Any,
    rounds: Any,
    phase: Any,
    plays: Any,
    targets: Any,
    x5: Any,
    choosing: Any,
    must: Any,
    sealed: Any,
    sealed_len: Any,
    before_play: Any,
    reshuffles: Any,
    pend: Any,
    pause: Any,
    actions: Any,
    change: Any,
    fallback: Any,
    bits: Any,
    use_rng: bool,
    individual: Any,
    keys: Any,
    order: Any,
    bucket: Any,
    save_small: Any,
    save_hands: Any,
    save_one: Any,
    tables: Any,
    lay_tables: Any,
    pcounts: Any,
) -> int:
    """``sample`` then ``step`` (``actions`` gets the sampled actions, ``change`` the score
    changes), one game at a time: game ``g``'s actions from its uniform numbers, drawn first
    (:func:`draw_uniforms`, the same numbers as ``sample``), then its node. Returns the number
    of fallback games, as ``step``."""
    peffect = tables[2]
    b = hands.shape[0]
    at = draw_uniforms(sample_bits, uniforms, phase, plays)
    st = (
        hands, food, effects, pile, pile_len, disc, disc_len, scores, rnd, rounds, phase, plays, targets,
        x5, choosing, must, sealed, sealed_len, before_play,
    )  # fmt: skip
    saved = (save_small, save_hands, save_one)
    t_seen = 0
    d_seen = 0
    n_fallback = 0
    n_pause = 0
    for g in range(b):
        sample_game(
            g, at, t_seen, d_seen, uniforms, hands, phase, plays, choosing, targets, must, before_play,
            lay_tables, peffect, pcounts, actions,
        )  # fmt: skip
        if phase[g] == TARGET:
            t_seen += 1
        elif phase[g] == DISCARD:
            d_seen += 1
        r = node(g, actions, st, pend, pause, change, fallback, use_rng, individual, saved, tables)
        if r == 1:
            n_pause += 1
        elif r == 2:
            n_fallback += 1
    settle(n_pause, st, reshuffles, pend, pause, bits, individual, keys, order, bucket, tables, change)
    return n_fallback


@kernel
def deal(
    which: Any,
    over: bool,
    bits: Any,
    deck: Any,
    row: Any,
    hands: Any,
    food: Any,
    effects: Any,
    pile: Any,
    pile_len: Any,
    disc_len: Any,
    scores: Any,
    rnd: Any,
    phase: Any,
    plays: Any,
    targets: Any,
    x5: Any,
    choosing: Any,
    must: Any,
    sealed_len: Any,
    before_play: Any,
    reshuffles: Any,
    hand_size: int,
) -> int:
    """``reset_done``: the games where ``which`` (with ``over``: every game that is over) get a
    new deal, in game order: the deck ``deck`` shuffled in ``row`` as numpy's ``permuted`` of
    the numpy backend shuffles each row (``_scout_kernels.shuffle``, from the bit generator
    ``bits``); seat s gets the cards ``s * hand_size`` on, the rest is the draw pile with the
    last card on top (W-3), then the first round starts (W-5; no discards yet, so no
    reshuffle). Returns the number of games dealt."""
    p = hands.shape[1]
    dealt = hand_size * p
    n = 0
    for g in range(phase.shape[0]):
        if not (phase[g] == OVER if over else which[g]):
            continue
        n += 1
        for c in range(MAX_CARDS):
            row[c] = deck[c]
        shuffle(bits, row, MAX_CARDS)
        for s in range(p):
            for k in range(KINDS):
                hands[g, s, k] = 0
            f = 0
            for j in range(hand_size):
                c = row[s * hand_size + j]
                hands[g, s, c] += 1
                if c < F_KINDS:
                    f += 1
            food[g, s] = f
            effects[g, s] = hand_size - f
            scores[g, s] = 0
            plays[g, s] = -1
            targets[g, s] = -1
            x5[g, s] = -1
            choosing[g, s] = False
        size = MAX_CARDS - dealt
        for j in range(size):
            pile[g, j] = row[MAX_CARDS - 1 - j]
        for j in range(size, MAX_CARDS):
            pile[g, j] = 0
        pile_len[g] = size
        disc_len[g] = 0
        rnd[g] = 1
        reshuffles[g] = 0
        phase[g] = PLAY
        for s in range(p):  # W-5 in seat order (no discards yet: an empty pile ends the draws)
            while not full(food[g, s], effects[g, s]) and pile_len[g] > 0:
                draw_seat(g, s, 1, hands, food, effects, pile, pile_len)
        ask_discards(g, True, food, effects, phase, must, sealed_len, before_play)
    return n


@helper
def discardable(k: int, food: int, effects: int, keep: bool) -> bool:
    """W-16: a held card of kind ``k`` may go (before laying, W-5 keeps a legal lay)."""
    return not keep or (full(food - 1, effects) if k < F_KINDS else full(food, effects - 1))


@helper
def discard_rule(hands: Any, g: int, s: int, before_play: bool) -> tuple[int, int, bool]:
    """A discarding seat's food and effect cards, and whether its discard must keep a legal
    lay (W-16 before laying: W-5), for :func:`discardable`."""
    f = 0
    e = 0
    for k in range(KINDS):
        if k < F_KINDS:
            f += hands[g, s, k]
        else:
            e += hands[g, s, k]
    return f, e, bool(before_play) and full(f, e)


@kernel
def deciding(phase: Any, plays: Any, choosing: Any, must: Any, out: Any) -> None:
    """(B, P): the seats that decide at each game's current node."""
    for g in range(phase.shape[0]):
        ph = phase[g]
        for s in range(plays.shape[1]):
            out[g, s] = (
                (ph == PLAY and plays[g, s] < 0)
                or (ph == TARGET and choosing[g, s])
                or (ph == DISCARD and must[g, s] > 0)
            )


@helper
def food_key(hands: Any, g: int, s: int) -> tuple[int, int, int, int]:
    """Seat ``s``'s hand as the lay tables read it: its food key (food counts capped at 3,
    base 4), its food cards so counted, the number of effect kinds held and their set (bit
    k - 5 for kind k); capped or not, W-4's options are the same."""
    fk = 0
    food = 0
    weight = 1
    for k in range(F_KINDS):
        c = min(hands[g, s, k], 3)
        fk += c * weight
        food += c
        weight *= 4
    effects = 0
    held = 0
    for k in range(F_KINDS, KINDS):  # without branches: which effect kinds are held is random
        h = int(hands[g, s, k] > 0)
        effects += h
        held |= h << (k - F_KINDS)
    return fk, food, effects, held


@helper
def sample_lay(hands: Any, g: int, s: int, u: float, lay_tables: Any) -> int:
    """A uniformly random legal lay (W-4, W-5) of seat ``s`` from the uniform number ``u``:
    the lay ``int(u * n)`` of the ``n`` legal ones in id order, as the numpy backend picks
    it from its table by hand key, but from small tables by food key (counts capped at 3,
    base 4) and the set of effect kinds held (``FastSchmaus``'s ``_lay_tables``): ``nthird``
    (1024, 15) the legal food third cards of each pair of food cards (-1: the pair is not
    held), ``total`` and ``pairs`` their sum and the pairs held, ``short`` the forced lay of
    a hand that cannot lay three, ``first`` (5, 5) the id of lay (i, j, j), ``pair_ij`` the
    pairs in id order, ``starts`` (1024, 15, 2) where each pair's lays start (food thirds
    and pairs held before it: the start is their first + effects * their second),
    ``thirds`` (1024, 15, 5) each pair's food third kinds in order and ``held_kinds``
    (128, 7) the effect kinds of a set of them in order. No search: the pair is the count
    of starts at or below the pick."""
    nthird, total, pairs, short, first, pair_ij, starts, thirds, held_kinds = lay_tables
    fk, food, effects, held = food_key(hands, g, s)
    if not full(food, effects):
        return int(short[fk])  # W-5: the one lay of every food card held
    pick = np.int64(u * (total[fk] + pairs[fk] * effects))
    q = -1
    for t in range(pair_ij.shape[0]):
        if starts[fk, t, 0] + effects * starts[fk, t, 1] <= pick:
            q += 1
    r = pick - (starts[fk, q, 0] + effects * starts[fk, q, 1])
    n = nthird[fk, q]
    k = thirds[fk, q, r] if r < n else held_kinds[held, r - n]
    return int(first[pair_ij[q, 0], pair_ij[q, 1]] + k - pair_ij[q, 1])


@kernel
def draw_uniforms(bits: Any, uniforms: Any, phase: Any, plays: Any) -> tuple[int, int, int, int]:
    """The numpy backend's uniform numbers of one ``sample_legal``, drawn from the bit
    generator ``bits`` into ``uniforms`` in its shapes and order: lays (B, P) if any game lays,
    then (T, P) grocer targets and (T, P) ×5 kinds for the T games choosing, then (D, P)
    discards. Returns where each block starts (the lays at -1 if none)."""
    b, p = plays.shape[0], plays.shape[1]
    playing = False
    n_target = 0
    n_discard = 0
    for g in range(b):
        ph = phase[g]
        if ph == TARGET:
            n_target += 1
        elif ph == DISCARD:
            n_discard += 1
        elif ph == PLAY and not playing:
            for s in range(p):
                if plays[g, s] < 0:
                    playing = True
    lays = 0 if playing else -1
    n = b * p if playing else 0
    grocers = n
    n += n_target * p
    times5 = n
    n += n_target * p
    discards = n
    n += n_discard * p
    for i in range(n):
        uniforms[i] = next_double(bits)
    return lays, grocers, times5, discards


@helper
def sample_game(
    g: int,
    at: Any,
    t_seen: int,
    d_seen: int,
    uniforms: Any,
    hands: Any,
    phase: Any,
    plays: Any,
    choosing: Any,
    targets: Any,
    must: Any,
    before_play: Any,
    lay_tables: Any,
    peffect: Any,
    pcounts: Any,
    out: Any,
) -> None:
    """``sample_legal`` of game ``g`` (``out[g]``) from the numbers :func:`draw_uniforms` drew
    (``at``: where its blocks start; ``t_seen``/``d_seen`` games before ``g`` choose/discard),
    with the numpy backend's arithmetic."""
    p = hands.shape[1]
    lays, grocers, times5, discards = at
    ph = phase[g]
    for s in range(p):
        out[g, s] = -1
    if ph == PLAY:
        if lays < 0:
            return
        for s in range(p):
            if plays[g, s] < 0:
                out[g, s] = sample_lay(hands, g, s, uniforms[lays + g * p + s], lay_tables)
    elif ph == TARGET:
        for s in range(p):
            if not choosing[g, s]:
                continue
            a = max(plays[g, s], 0)
            if peffect[a] == GROCER and targets[g, s] < 0:  # the grocer's target (W-9)
                other = np.int64(uniforms[grocers + t_seen * p + s] * (p - 1))
                if other >= s:
                    other += 1
                out[g, s] = TARGET_BASE + other
                continue
            n = 0  # the ×5 kind (W-11)
            for k in range(F_KINDS):
                if pcounts[a, k] > 0:
                    n += 1
            pick = np.int64(uniforms[times5 + t_seen * p + s] * n)
            kind = 0
            seen = 0
            for k in range(F_KINDS):
                if pcounts[a, k] > 0:
                    if seen == pick:
                        kind = k
                        break
                    seen += 1
            out[g, s] = X5_BASE + kind
    elif ph == DISCARD:
        for s in range(p):
            if must[g, s] <= 0:
                continue
            f, e, keep = discard_rule(hands, g, s, before_play[g])
            n = 0
            for k in range(KINDS):
                if hands[g, s, k] > 0 and discardable(k, f, e, keep):
                    n += 1
            pick = np.int64(uniforms[discards + d_seen * p + s] * n)
            kind = 0
            seen = 0
            for k in range(KINDS):
                if hands[g, s, k] > 0 and discardable(k, f, e, keep):
                    if seen == pick:
                        kind = k
                        break
                    seen += 1
            out[g, s] = DISCARD_BASE + kind


@kernel
def sample(
    bits: Any,
    uniforms: Any,
    hands: Any,
    phase: Any,
    plays: Any,
    choosing: Any,
    targets: Any,
    must: Any,
    before_play: Any,
    lay_tables: Any,
    peffect: Any,
    pcounts: Any,
    out: Any,
) -> None:
    """``sample_legal``: the numpy backend's uniform numbers (:func:`draw_uniforms`) turned
    into actions game by game (:func:`sample_game`)."""
    at = draw_uniforms(bits, uniforms, phase, plays)
    t_seen = 0
    d_seen = 0
    for g in range(phase.shape[0]):
        sample_game(
            g, at, t_seen, d_seen, uniforms, hands, phase, plays, choosing, targets, must, before_play,
            lay_tables, peffect, pcounts, out,
        )  # fmt: skip
        if phase[g] == TARGET:
            t_seen += 1
        elif phase[g] == DISCARD:
            d_seen += 1


@kernel
def mask(
    hands: Any,
    phase: Any,
    plays: Any,
    choosing: Any,
    targets: Any,
    must: Any,
    before_play: Any,
    mask_tables: Any,
    peffect: Any,
    pcounts: Any,
    out: Any,
) -> None:
    """``legal_mask``: every entry of ``out`` (B, P, 183) written, True exactly for the legal
    ids of the deciding seats (the numpy backend's mask; ``out`` need not be zeroed). Lays
    (W-4, W-5) from tables by food key (counts capped at 3, base 4; ``FastSchmaus``'s
    ``_mask_tables``): ``food_lays`` (1024, 161) the three-food lays held, ``pairs`` (1024,
    15) and ``npairs`` the food pairs held, ``pair_effect`` (15, 7) the id of a pair with
    each effect card, ``short`` the forced lay of a hand that cannot lay three."""
    food_lays, pairs, npairs, pair_effect, short = mask_tables
    b, p = hands.shape[0], hands.shape[1]
    for g in range(b):
        ph = phase[g]
        for s in range(p):
            for a in range(NUM_ACTIONS):
                out[g, s, a] = False
            if ph == PLAY:
                if plays[g, s] >= 0:
                    continue
                fk, food, effects, held = food_key(hands, g, s)
                if not full(food, effects):
                    out[g, s, short[fk]] = True  # W-5: every food card held
                    continue
                for a in range(NUM_PLAYS):  # W-4 option A
                    out[g, s, a] = food_lays[fk, a]
                n = npairs[fk]
                for e in range(KINDS - F_KINDS):  # option B: a food pair held and an effect card
                    if held >> e & 1:
                        for t in range(n):
                            out[g, s, pair_effect[pairs[fk, t], e]] = True
            elif ph == TARGET:
                if not choosing[g, s]:
                    continue
                a = max(plays[g, s], 0)
                if peffect[a] == GROCER and targets[g, s] < 0:  # W-9: another seat
                    for o in range(p):
                        if o != s:
                            out[g, s, TARGET_BASE + o] = True
                else:  # W-11: a food kind of the ×5 player's lay
                    for k in range(F_KINDS):
                        if pcounts[a, k] > 0:
                            out[g, s, X5_BASE + k] = True
            elif ph == DISCARD:
                if must[g, s] <= 0:
                    continue
                f, e, keep = discard_rule(hands, g, s, before_play[g])
                for k in range(KINDS):
                    if hands[g, s, k] > 0 and discardable(k, f, e, keep):
                        out[g, s, DISCARD_BASE + k] = True
