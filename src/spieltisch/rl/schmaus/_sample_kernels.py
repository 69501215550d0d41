# ruff: noqa: RUF059  -- the kernels unpack the whole state and table tuples by name, used or not
"""The numba kernels and helpers of :class:`spieltisch.rl.schmaus.fast.FastSchmaus` that
sample legal actions (for ``_batch_kernels.play``) and list them (``mask``, ``deciding``),
with the numpy backend's uniform numbers and arithmetic (imported only when numba is
installed).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from spieltisch.rl._random import next_double
from spieltisch.rl.schmaus._kernels import full, helper, kernel
from spieltisch.rl.schmaus.batched import (
    DISCARD,
    DISCARD_BASE,
    F_KINDS,
    GROCER,
    KINDS,
    NUM_ACTIONS,
    NUM_PLAYS,
    PLAY,
    TARGET,
    TARGET_BASE,
    X5_BASE,
)


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
    st: Any,
    lay_tables: Any,
    peffect: Any,
    pcounts: Any,
    out: Any,
) -> None:
    """``sample_legal`` of game ``g`` (``out[g]``) from the numbers :func:`draw_uniforms` drew
    (``at``: where its blocks start; ``t_seen``/``d_seen`` games before ``g`` choose/discard),
    with the numpy backend's arithmetic. ``st``: the state arrays (``FastSchmaus._state``)."""
    (
        hands, food, effects, pile, pile_len, disc, disc_len, scores, rnd, rounds, phase, plays, targets,
        x5, choosing, must, sealed, sealed_len, before_play,
    ) = st  # fmt: skip
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
def mask(st: Any, mask_tables: Any, peffect: Any, pcounts: Any, out: Any) -> None:
    """``legal_mask``: every entry of ``out`` (B, P, 183) written, True exactly for the legal
    ids of the deciding seats (the numpy backend's mask; ``out`` need not be zeroed). Lays
    (W-4, W-5) from tables by food key (counts capped at 3, base 4; ``FastSchmaus``'s
    ``_mask_tables``): ``food_lays`` (1024, 161) the three-food lays held, ``pairs`` (1024,
    15) and ``npairs`` the food pairs held, ``pair_effect`` (15, 7) the id of a pair with
    each effect card, ``short`` the forced lay of a hand that cannot lay three. ``st``: the
    state arrays (``FastSchmaus._state``)."""
    (
        hands, food, effects, pile, pile_len, disc, disc_len, scores, rnd, rounds, phase, plays, targets,
        x5, choosing, must, sealed, sealed_len, before_play,
    ) = st  # fmt: skip
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
