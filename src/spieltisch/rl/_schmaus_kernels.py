# ruff: noqa: RUF059  -- each kernel unpacks the whole state tuple by name, used or not
"""The numba kernels of :mod:`spieltisch.rl.fast` (imported only when numba is installed).

One game at a time, in the numpy backend's order of work for that game (W-1 .. W-18).
A game that needs a W-17 reshuffle pauses there: the functions return the point
(1 + E/L/R_s below) and :func:`step` resumes the paused games in the numpy
backend's order of reshuffles (by point, then game), so they draw the same
random numbers. ``st`` is the engine's state arrays, ``tb`` the lay tables,
``pend`` (B, P) the draws waiting for a reshuffle (see ``fast.FastSchmaus``).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit

from spieltisch.rl.batched import (
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


@njit(cache=True, inline="always")
def full(food: int, effects: int) -> bool:
    return food >= 3 or (food == 2 and effects > 0)  # W-4


@njit(cache=True, inline="always")
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


POINT_EMPTY, POINT_LOSER, POINT_SHORT = 0, 1, 2
"""Where a step reshuffles: the W-6 draws of empty hands, the W-13 loser draws, the W-5
draws of seat s (point 2 + s); numpy reshuffles all games at one point, in game order."""


@njit(cache=True, inline="always")
def needs_reshuffle(g: int, counts: Any, pile_len: Any, disc_len: Any) -> bool:
    """W-17: the draws ``counts`` run the pile out while there are discards."""
    total = 0
    for s in range(counts.shape[0]):
        total += counts[s]
    return bool(pile_len[g] < total and disc_len[g] > 0)


@njit(cache=True, inline="always")
def draw(g: int, counts: Any, hands: Any, food: Any, effects: Any, pile: Any, pile_len: Any) -> None:
    """W-17 draws in seat order (both piles empty: no more draws)."""
    for s in range(counts.shape[0]):
        n = min(counts[s], pile_len[g])
        draw_seat(g, s, n, hands, food, effects, pile, pile_len)


@njit(cache=True, inline="always")
def reshuffle(g: int, st: Any, reshuffles: Any, rng: Any) -> None:
    """W-17: the discards, shuffled, go under the pile; the same 54 keys per game and the
    same order as the numpy backend (``argsort`` of uniform keys)."""
    pile, pile_len, disc, disc_len = st[3], st[4], st[5], st[6]
    size = disc_len[g]
    keys = np.empty(pile.shape[1])
    for i in range(pile.shape[1]):
        keys[i] = rng.random()
    order = np.argsort(keys[:size])
    for i in range(pile_len[g] - 1, -1, -1):
        pile[g, i + size] = pile[g, i]
    for i in range(size):
        pile[g, i] = disc[g, order[i]]
    pile_len[g] += size
    disc_len[g] = 0
    reshuffles[g] += 1


@njit(cache=True, inline="always")
def ask_discards(g: int, before: bool, st: Any) -> bool:
    """W-16: who must discard, and whether anybody must (then the phase is DISCARD)."""
    hands, food, effects, phase, must, sealed_len, before_play = (
        st[0],
        st[1],
        st[2],
        st[10],
        st[15],
        st[17],
        st[18],
    )
    any_must = False
    for s in range(hands.shape[1]):
        m = max(0, food[g, s] + effects[g, s] - HAND_LIMIT)
        must[g, s] = m
        sealed_len[g, s] = 0
        if m > 0:
            any_must = True
    before_play[g] = before
    if any_must:
        phase[g] = DISCARD
    return any_must


@njit(cache=True, inline="always")
def short_draws(g: int, st: Any, first: int) -> int:
    """W-5 from seat ``first`` on, in seat order: draw one card at a time until a lay is
    possible; then W-16 before laying. 0, or 1 + the point of a needed reshuffle."""
    hands, food, effects, pile, pile_len, disc_len = st[0], st[1], st[2], st[3], st[4], st[6]
    for s in range(first, hands.shape[1]):
        while not full(food[g, s], effects[g, s]):
            if pile_len[g] == 0:
                if disc_len[g] > 0:
                    return 1 + POINT_SHORT + s
                break
            draw_seat(g, s, 1, hands, food, effects, pile, pile_len)
    ask_discards(g, True, st)
    return 0


@njit(cache=True, inline="always")
def start_round(g: int, st: Any) -> int:
    plays, targets, x5, choosing, phase = st[11], st[12], st[13], st[14], st[10]
    for s in range(plays.shape[1]):
        plays[g, s] = -1
        targets[g, s] = -1
        x5[g, s] = -1
        choosing[g, s] = False
    phase[g] = PLAY
    return short_draws(g, st, 0)


@njit(cache=True, inline="always")
def next_round(g: int, st: Any) -> int:
    """After the scoring: W-16 discards, else the next round."""
    if not ask_discards(g, False, st):
        st[8][g] += 1
        return start_round(g, st)
    return 0


@njit(cache=True, inline="always")
def score(g: int, st: Any, tb: Any, pend: Any) -> int:
    (
        hands,
        food,
        effects,
        pile,
        pile_len,
        disc,
        disc_len,
        scores,
        rnd,
        rounds,
        phase,
        plays,
        targets,
        x5,
        choosing,
        must,
        sealed,
        sealed_len,
        before_play,
    ) = st
    (pcounts, pnfood, pneffects, peffect, ponly, pfood, pbase, pcards, value) = tb
    p = hands.shape[1]
    guardian = False
    hunter = False
    garbage = 0
    doubling = 0
    for s in range(p):
        e = peffect[plays[g, s]]
        guardian = guardian or e == GUARDIAN
        hunter = hunter or e == HUNTER
        if e == GARBAGE:
            garbage += 1
        if e == X2:
            doubling += 1  # W-11
    hunter = hunter and not guardian
    if guardian:
        garbage = 0  # W-10
    individual = np.empty(p, dtype=np.int64)
    for s in range(p):
        a = plays[g, s]
        e = peffect[a]
        zeroed = False  # W-9
        if not (guardian or hunter):
            for o in range(p):
                if peffect[plays[g, o]] == GROCER and targets[g, o] == s:
                    zeroed = True
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
        ind = (total >> garbage) + pbase[a]  # W-12, W-13
        individual[s] = 0 if hunter else ind  # W-8
    pot = individual.sum()  # W-14
    best = individual.max()
    low = individual.min()
    nbest = 0
    for s in range(p):
        if individual[s] == best:
            nbest += 1
    share = pot // nbest
    for s in range(p):
        if individual[s] == best:
            scores[g, s] += share
    for s in range(p):  # W-15: the laid cards go to the discard pile, in seat order
        for j in range(3):
            c = pcards[plays[g, s], j]
            if c >= 0:
                disc[g, disc_len[g]] = c
                disc_len[g] += 1
    for s in range(p):
        pend[g, s] = LOSER_DRAWS if individual[s] == low else 0
    if needs_reshuffle(g, pend[g], pile_len, disc_len):
        return 1 + POINT_LOSER
    return score_rest(g, st, pend)


@njit(cache=True, inline="always")
def score_rest(g: int, st: Any, pend: Any) -> int:
    """The W-13 loser draws (``pend``), then W-18 or the next round."""
    (
        hands,
        food,
        effects,
        pile,
        pile_len,
        disc,
        disc_len,
        scores,
        rnd,
        rounds,
        phase,
        plays,
        targets,
        x5,
        choosing,
        must,
        sealed,
        sealed_len,
        before_play,
    ) = st
    draw(g, pend[g], hands, food, effects, pile, pile_len)
    for s in range(plays.shape[1]):
        plays[g, s] = -1
    if rnd[g] >= rounds[g]:
        phase[g] = OVER  # W-18
        return 0
    return next_round(g, st)


@njit(cache=True, inline="always")
def reveal(g: int, st: Any, tb: Any, pend: Any) -> int:
    hands, food, effects, pile, pile_len, disc_len = st[0], st[1], st[2], st[3], st[4], st[6]
    empty = False
    for s in range(hands.shape[1]):
        pend[g, s] = EMPTY_DRAW if food[g, s] + effects[g, s] == 0 else 0
        if pend[g, s]:
            empty = True
    if empty:  # W-6, before the reveal
        if needs_reshuffle(g, pend[g], pile_len, disc_len):
            return 1 + POINT_EMPTY
        draw(g, pend[g], hands, food, effects, pile, pile_len)
    return reveal_rest(g, st, tb, pend)


@njit(cache=True, inline="always")
def reveal_rest(g: int, st: Any, tb: Any, pend: Any) -> int:
    (
        hands,
        food,
        effects,
        pile,
        pile_len,
        disc,
        disc_len,
        scores,
        rnd,
        rounds,
        phase,
        plays,
        targets,
        x5,
        choosing,
        must,
        sealed,
        sealed_len,
        before_play,
    ) = st
    (pcounts, pnfood, pneffects, peffect, ponly, pfood, pbase, pcards, value) = tb
    p = hands.shape[1]
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
    return score(g, st, tb, pend)


@njit(cache=True)
def step(
    actions: Any,
    st: Any,
    tb: Any,
    reshuffles: Any,
    pend: Any,
    pause: Any,
    change: Any,
    fallback: Any,
    rng: Any,
    use_rng: bool,
) -> int:
    """Every game's current node. With ``use_rng``, reshuffles draw from ``rng`` in the numpy
    backend's order; else a game that reshuffles is put back as it was and flagged in
    ``fallback`` (the caller steps it with numpy and its shuffler). Returns how many were."""
    (
        hands,
        food,
        effects,
        pile,
        pile_len,
        disc,
        disc_len,
        scores,
        rnd,
        rounds,
        phase,
        plays,
        targets,
        x5,
        choosing,
        must,
        sealed,
        sealed_len,
        before_play,
    ) = st
    (pcounts, pnfood, pneffects, peffect, ponly, pfood, pbase, pcards, value) = tb
    b, p = hands.shape[0], hands.shape[1]
    save_small = np.empty((10, p), dtype=np.int64)
    save_hands = np.empty((p, KINDS), dtype=np.int16)
    save_one = np.empty(5, dtype=np.int64)
    span = POINT_SHORT + p
    n_fallback = 0
    n_pause = 0
    for g in range(b):
        fallback[g] = False
        pause[g] = -1
        for s in range(p):
            change[g, s] = scores[g, s]
        ph = phase[g]
        if ph == OVER:
            continue
        for s in range(p):  # what a step changes, to put the game back if it reshuffles
            if use_rng:
                break
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
        save_one[3] = ph
        save_one[4] = before_play[g]
        code = 0
        if ph == PLAY:
            for s in range(p):
                if plays[g, s] < 0:
                    a = actions[g, s]
                    for k in range(KINDS):
                        hands[g, s, k] -= pcounts[a, k]
                    food[g, s] -= pnfood[a]
                    effects[g, s] -= pneffects[a]
                    plays[g, s] = a
            laid = True
            for s in range(p):
                if plays[g, s] < 0:
                    laid = False
            if laid:
                code = reveal(g, st, tb, pend)
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
            code = score(g, st, tb, pend)
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
            if not waiting:
                for s in range(p):  # revealed together, in seat order
                    for j in range(sealed_len[g, s]):
                        disc[g, disc_len[g]] = sealed[g, s, j]
                        disc_len[g] += 1
                    sealed_len[g, s] = 0
                if before_play[g]:
                    phase[g] = PLAY
                else:
                    rnd[g] += 1
                    code = start_round(g, st)
        if code == 0:
            continue
        if use_rng:
            pause[g] = ph * span + code - 1  # numpy: the PLAY chain, then TARGET, then DISCARD
            n_pause += 1
            continue
        for s in range(p):  # put back: the numpy backend steps this game
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
        fallback[g] = True
        n_fallback += 1
    while n_pause > 0:  # W-17: the reshuffles by point, then game, as numpy draws them
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
            reshuffle(g, st, reshuffles, rng)
            if point == POINT_EMPTY:
                draw(g, pend[g], hands, food, effects, pile, pile_len)
                code = reveal_rest(g, st, tb, pend)
            elif point == POINT_LOSER:
                code = score_rest(g, st, pend)
            else:
                code = short_draws(g, st, point - POINT_SHORT)
            if code:
                pause[g] = stage - point + code - 1
                n_pause += 1
    for g in range(b):
        for s in range(p):
            change[g, s] = scores[g, s] - change[g, s]
    return n_fallback


@njit(cache=True)
def sample(
    hands: Any,
    phase: Any,
    plays: Any,
    choosing: Any,
    targets: Any,
    must: Any,
    before_play: Any,
    order: Any,
    number: Any,
    cap: Any,
    weight: Any,
    peffect: Any,
    pcounts: Any,
    u_play: Any,
    target_rows: Any,
    u_other: Any,
    u_kind: Any,
    discard_rows: Any,
    u_discard: Any,
    out: Any,
) -> None:
    """``sample_legal`` from the numpy backend's uniform numbers (same shapes, same use)."""
    b, p = hands.shape[0], hands.shape[1]
    for g in range(b):
        for s in range(p):
            out[g, s] = -1
        if phase[g] == PLAY and u_play.shape[0] > 0:
            for s in range(p):
                if plays[g, s] < 0:
                    key = 0
                    for k in range(KINDS):
                        key += min(hands[g, s, k], cap[k]) * weight[k]
                    pick = np.int64(u_play[g, s] * number[key])
                    out[g, s] = order[key, pick]
    for i in range(target_rows.shape[0]):
        g = target_rows[i]
        for s in range(p):
            if not choosing[g, s]:
                continue
            a = max(plays[g, s], 0)
            if peffect[a] == GROCER and targets[g, s] < 0:
                other = np.int64(u_other[i, s] * (p - 1))
                if other >= s:
                    other += 1
                out[g, s] = TARGET_BASE + other
            else:
                n = 0
                for k in range(F_KINDS):
                    if pcounts[a, k] > 0:
                        n += 1
                pick = np.int64(u_kind[i, s] * n)
                kind = 0
                seen = 0
                for k in range(F_KINDS):
                    if pcounts[a, k] > 0:
                        if seen == pick:
                            kind = k
                            break
                        seen += 1
                out[g, s] = X5_BASE + kind
    for i in range(discard_rows.shape[0]):
        g = discard_rows[i]
        for s in range(p):
            f = 0
            e = 0
            for k in range(KINDS):
                if k < F_KINDS:
                    f += hands[g, s, k]
                else:
                    e += hands[g, s, k]
            keep = before_play[g] and full(f, e)  # W-5 keeps a legal lay (W-16)
            n = 0
            for k in range(KINDS):
                if hands[g, s, k] > 0 and (not keep or (full(f - 1, e) if k < F_KINDS else full(f, e - 1))):
                    n += 1
            pick = np.int64(u_discard[i, s] * n)
            kind = 0
            seen = 0
            for k in range(KINDS):
                if hands[g, s, k] > 0 and (not keep or (full(f - 1, e) if k < F_KINDS else full(f, e - 1))):
                    if seen == pick:
                        kind = k
                        break
                    seen += 1
            if must[g, s] > 0:
                out[g, s] = DISCARD_BASE + kind
