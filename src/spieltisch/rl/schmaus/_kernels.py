# ruff: noqa: RUF059  -- the kernels unpack the whole state and table tuples by name, used or not
"""The numba kernels of :class:`spieltisch.rl.schmaus.fast.FastSchmaus`: one game's decision
node (imported only when numba is installed). The kernels over the batch are in
:mod:`~spieltisch.rl.schmaus._batch_kernels`, sampling and masks in
:mod:`~spieltisch.rl.schmaus._sample_kernels`, the random numbers in
:mod:`spieltisch.rl._random`.

One game at a time, in the numpy backend's order of work for that game (W-1 .. W-18).
The rest of a decision node after the actions (W-6 draws, reveal, scoring, W-13 loser
draws, W-16 discards, the next round's W-5 draws) is one state machine,
:func:`advance`. A game that needs a W-17 reshuffle pauses there: ``advance``
returns the point (1 + E/L/S_s below) and ``_batch_kernels.settle`` resumes the paused games in
the numpy backend's order of reshuffles (by point, then game), so they draw the
same random numbers.

Speed: no reference counting and nothing allocated per game; every function called
per game is inlined (``helper``: a call passes each array argument as a struct of
5 + 2 * ndim words, and with ~30 arrays that cost more than a lay's work); calls with
30 or more arguments cannot be inlined (Python passes them as ``*args``), hence the
tuples: ``st`` the state arrays (``FastSchmaus._state``, unpacked by name where used),
``tables``, ``saved``. ``sample_legal``, ``play_random``, ``deciding``, ``legal_mask``
and the deal of finished games are kernels too. Random numbers come from the bit
generator itself (``bits``, :mod:`spieltisch.rl._random`), in numpy's order: numpy's
PCG64 computed here, any other bit generator through its C functions.
"""

from __future__ import annotations

from typing import Any

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
    OVER,
    PLAY,
    TARGET,
    TARGET_BASE,
    X2,
    X3,
    X5,
    X5_BASE,
)

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
def advance(g: int, stage: int, seat: int, st: Any, pend: Any, individual: Any, tables: Any) -> int:
    """Game ``g`` from ``stage`` (W-5 from ``seat``) to its next decision node: 0, or
    1 + the point of a W-17 reshuffle it needs first (the draws wait in ``pend``). ``tables``:
    per lay its food and effect cards, its effect card, its one food kind, food value, base
    value and cards (-1 for none); per card kind its value."""
    (
        hands, food, effects, pile, pile_len, disc, disc_len, scores, rnd, rounds, phase, plays, targets,
        x5, choosing, must, sealed, sealed_len, before_play,
    ) = st  # fmt: skip
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


@helper
def keep(restore: bool, live: Any, at: Any, store: Any, where: Any) -> None:
    """``store[where] = live[at]``, or back with ``restore``."""
    if restore:
        live[at] = store[where]
    else:
        store[where] = live[at]


@helper
def keep_flag(restore: bool, live: Any, at: Any, store: Any, where: Any) -> None:
    """:func:`keep` of a bool (stored as 0 or 1)."""
    if restore:
        live[at] = store[where] != 0
    else:
        store[where] = live[at]


@kernel
def keep_game(g: int, st: Any, saved: Any, restore: bool) -> None:
    """What a step of game ``g`` changes, saved in ``saved`` (to put it back if it reshuffles);
    with ``restore`` put back."""
    (
        hands, food, effects, pile, pile_len, disc, disc_len, scores, rnd, rounds, phase, plays, targets,
        x5, choosing, must, sealed, sealed_len, before_play,
    ) = st  # fmt: skip
    small, save_hands, one = saved
    for s in range(hands.shape[1]):
        at = (g, s)
        keep(restore, food, at, small, (0, s))
        keep(restore, effects, at, small, (1, s))
        keep(restore, scores, at, small, (2, s))
        keep(restore, plays, at, small, (3, s))
        keep(restore, targets, at, small, (4, s))
        keep(restore, x5, at, small, (5, s))
        keep_flag(restore, choosing, at, small, (6, s))
        keep(restore, must, at, small, (7, s))
        keep(restore, sealed_len, at, small, (8, s))
        for k in range(KINDS):
            keep(restore, hands, (g, s, k), save_hands, (s, k))
    keep(restore, pile_len, g, one, 0)
    keep(restore, disc_len, g, one, 1)
    keep(restore, rnd, g, one, 2)
    keep(restore, phase, g, one, 3)
    keep_flag(restore, before_play, g, one, 4)


@helper
def step_game(g: int, actions: Any, st: Any, pend: Any, individual: Any, tables: Any) -> int:
    """The current node of game ``g`` (not over) with the actions ``actions[g]``: 0, or 1 + the
    point of a W-17 reshuffle it needs first (as :func:`advance`)."""
    (
        hands, food, effects, pile, pile_len, disc, disc_len, scores, rnd, rounds, phase, plays, targets,
        x5, choosing, must, sealed, sealed_len, before_play,
    ) = st  # fmt: skip
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
    code: int = advance(g, stage, 0, st, pend, individual, tables)  # one call site: one inlined copy
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
    arrays (``FastSchmaus._state``), ``saved`` the scratch of :func:`keep_game`."""
    scores, phase = st[7], st[10]
    p = scores.shape[1]
    fallback[g] = False
    pause[g] = -1
    for s in range(p):
        change[g, s] = scores[g, s]
    ph = phase[g]
    if ph == OVER:
        return 0
    if not use_rng:
        keep_game(g, st, saved, False)
    code = step_game(g, actions, st, pend, individual, tables)
    if code == 0:
        return 0
    if use_rng:
        pause[g] = ph * (POINT_SHORT + p) + code - 1  # numpy: the PLAY chain, then TARGET, then DISCARD
        return 1
    keep_game(g, st, saved, True)
    fallback[g] = True
    return 2
