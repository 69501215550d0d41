"""The numba kernels of :mod:`spieltisch.rl.fast` (imported only when numba is installed).

One game at a time, in the numpy backend's order of work for that game (W-1 .. W-18);
a step that needs a W-17 reshuffle returns False and the caller puts the game back.
``st`` is the engine's state arrays, ``tb`` the lay tables (see ``fast.FastSchmaus``).
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


@njit(cache=True)
def full(food: int, effects: int) -> bool:
    return food >= 3 or (food == 2 and effects > 0)  # W-4

@njit(cache=True)
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

@njit(cache=True)
def draw(g: int, counts: Any, hands: Any, food: Any, effects: Any, pile: Any, pile_len: Any, disc_len: Any) -> bool:
    """W-17 draws in seat order; False (nothing drawn) when a reshuffle is needed."""
    total = 0
    for s in range(counts.shape[0]):
        total += counts[s]
    if pile_len[g] < total and disc_len[g] > 0:
        return False
    for s in range(counts.shape[0]):
        n = min(counts[s], pile_len[g])  # both piles empty: no draw
        draw_seat(g, s, n, hands, food, effects, pile, pile_len)
    return True

@njit(cache=True)
def ask_discards(g: int, before: bool, st: Any) -> bool:
    """W-16: who must discard, and whether anybody must (then the phase is DISCARD)."""
    (hands, food, effects, pile, pile_len, disc, disc_len, scores, rnd, rounds, phase,
     plays, targets, x5, choosing, must, sealed, sealed_len, before_play) = st
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


@njit(cache=True)
def start_round(g: int, st: Any) -> bool:
    """A new round: W-5 short draws in seat order, then W-16 before laying."""
    (hands, food, effects, pile, pile_len, disc, disc_len, scores, rnd, rounds, phase,
     plays, targets, x5, choosing, must, sealed, sealed_len, before_play) = st
    p = hands.shape[1]
    for s in range(p):
        plays[g, s] = -1
        targets[g, s] = -1
        x5[g, s] = -1
        choosing[g, s] = False
    phase[g] = PLAY
    for s in range(p):  # W-5, seat order: draw one card at a time until a lay is possible
        while not full(food[g, s], effects[g, s]):
            if pile_len[g] == 0:
                if disc_len[g] > 0:
                    return False  # W-17 reshuffle
                break
            draw_seat(g, s, 1, hands, food, effects, pile, pile_len)
    ask_discards(g, True, st)
    return True


@njit(cache=True)
def next_round(g: int, st: Any) -> bool:
    """After the scoring: W-16 discards, else the next round."""
    if not ask_discards(g, False, st):
        st[8][g] += 1
        return start_round(g, st)
    return True


@njit(cache=True)
def score(g: int, st: Any, tb: Any) -> bool:
    (hands, food, effects, pile, pile_len, disc, disc_len, scores, rnd, rounds, phase,
     plays, targets, x5, choosing, must, sealed, sealed_len, before_play) = st
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
    counts = np.zeros(p, dtype=np.int64)
    for s in range(p):
        if individual[s] == low:
            counts[s] = LOSER_DRAWS
    if not draw(g, counts, hands, food, effects, pile, pile_len, disc_len):
        return False
    for s in range(p):
        plays[g, s] = -1
    if rnd[g] >= rounds[g]:
        phase[g] = OVER  # W-18
        return True
    return next_round(g, st)

@njit(cache=True)
def reveal(g: int, st: Any, tb: Any) -> bool:
    (hands, food, effects, pile, pile_len, disc, disc_len, scores, rnd, rounds, phase,
     plays, targets, x5, choosing, must, sealed, sealed_len, before_play) = st
    (pcounts, pnfood, pneffects, peffect, ponly, pfood, pbase, pcards, value) = tb
    p = hands.shape[1]
    counts = np.zeros(p, dtype=np.int64)
    empty = False
    for s in range(p):
        if food[g, s] + effects[g, s] == 0:
            counts[s] = EMPTY_DRAW
            empty = True
    if empty and not draw(g, counts, hands, food, effects, pile, pile_len, disc_len):  # W-6
        return False
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
        return True
    return score(g, st, tb)

@njit(cache=True)
def step(actions: Any, st: Any, tb: Any, change: Any, fallback: Any) -> int:
    """Every game's current node; returns how many games need the numpy backend (``fallback``)."""
    (hands, food, effects, pile, pile_len, disc, disc_len, scores, rnd, rounds, phase,
     plays, targets, x5, choosing, must, sealed, sealed_len, before_play) = st
    (pcounts, pnfood, pneffects, peffect, ponly, pfood, pbase, pcards, value) = tb
    b, p = hands.shape[0], hands.shape[1]
    save_small = np.empty((10, p), dtype=np.int64)
    save_hands = np.empty((p, KINDS), dtype=np.int16)
    save_one = np.empty(5, dtype=np.int64)
    n_fallback = 0
    for g in range(b):
        fallback[g] = False
        ph = phase[g]
        if ph == OVER:
            for s in range(p):
                change[g, s] = 0
            continue
        for s in range(p):  # what a step changes, to put the game back if it reshuffles
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
        ok = True
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
                ok = reveal(g, st, tb)
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
            ok = score(g, st, tb)
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
                    ok = start_round(g, st)
        if ok:
            for s in range(p):
                change[g, s] = scores[g, s] - save_small[2, s]
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
            change[g, s] = 0
            for k in range(KINDS):
                hands[g, s, k] = save_hands[s, k]
        pile_len[g] = save_one[0]
        disc_len[g] = save_one[1]
        rnd[g] = save_one[2]
        phase[g] = save_one[3]
        before_play[g] = save_one[4] != 0
        fallback[g] = True
        n_fallback += 1
    return n_fallback

@njit(cache=True)
def sample(
    hands: Any, phase: Any, plays: Any, choosing: Any, targets: Any, must: Any, before_play: Any,
    order: Any, number: Any, cap: Any, weight: Any, peffect: Any, pcounts: Any,
    u_play: Any, target_rows: Any, u_other: Any, u_kind: Any, discard_rows: Any, u_discard: Any,
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

