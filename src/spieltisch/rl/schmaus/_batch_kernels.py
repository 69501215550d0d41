# ruff: noqa: RUF059  -- the kernels unpack the whole state tuple by name, used or not
"""The numba kernels of :class:`spieltisch.rl.schmaus.fast.FastSchmaus` over the batch:
``play`` (``sample_legal``, ``step`` or both at once), the W-17 reshuffles of the games that
paused for one, and ``deal`` (imported only when numba is installed). One game's node
is :mod:`spieltisch.rl.schmaus._kernels`' (see there for ``st``, ``tables``, ``saved``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from spieltisch.rl._random import next_double, shuffle
from spieltisch.rl.schmaus._kernels import (
    POINT_EMPTY,
    POINT_LOSER,
    POINT_SHORT,
    S_EMPTY_DRAW,
    S_LOSER_DRAW,
    S_SHORT,
    advance,
    ask_discards,
    draw_seat,
    full,
    kernel,
    node,
)
from spieltisch.rl.schmaus._sample_kernels import draw_uniforms, sample_game
from spieltisch.rl.schmaus.batched import DISCARD, F_KINDS, KINDS, MAX_CARDS, OVER, PLAY, TARGET

BUCKETS = 64
"""The buckets of a reshuffle's sort."""


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
    """The end of a step (:func:`play`): the ``n_pause`` paused games' W-17 reshuffles by point,
    then game, as numpy draws them, and the rest of their nodes; then ``change`` (the scores
    before the step) becomes every game's score change. ``st``: the state arrays, as
    :func:`node` takes them."""
    pile, pile_len, disc, disc_len = st[3], st[4], st[5], st[6]
    b, p = st[0].shape[0], st[0].shape[1]
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
            code = advance(g, resume, seat, st, pend, individual, tables)
            if code:
                pause[g] = stage - point + code - 1
                n_pause += 1
    scores = st[7]
    for g in range(scores.shape[0]):
        for s in range(scores.shape[1]):
            change[g, s] = scores[g, s] - change[g, s]


@kernel
def play(
    sampling: bool,
    stepping: bool,
    sample_bits: Any,
    uniforms: Any,
    st: Any,
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
    saved: Any,
    tables: Any,
    lay_tables: Any,
    pcounts: Any,
) -> int:
    """``sample_legal`` (``sampling``: ``actions`` gets the sampled actions), ``step``
    (``stepping``: every game's current node with ``actions``, ``change`` gets the score
    changes) or both (``play_random``), one game at a time: game ``g``'s actions from its
    uniform numbers drawn first from ``sample_bits`` (:func:`draw_uniforms`, the numpy
    backend's numbers in its shapes and order), then its node. With ``use_rng``, reshuffles
    draw from the bit generator ``bits`` in the numpy backend's order; else a game that
    reshuffles is put back as it was and flagged in ``fallback`` (the caller steps it with
    numpy and its shuffler). Returns how many were. ``st``: the state arrays
    (``FastSchmaus._state``). Scratch: ``individual`` (P,), ``keys`` and ``order`` (54,),
    ``bucket`` (65,), ``saved``: ``save_small`` (10, P), ``save_hands`` (P, 12), ``save_one`` (5,)."""
    (
        hands, food, effects, pile, pile_len, disc, disc_len, scores, rnd, rounds, phase, plays, targets,
        x5, choosing, must, sealed, sealed_len, before_play,
    ) = st  # fmt: skip
    peffect = tables[2]
    at = draw_uniforms(sample_bits, uniforms, phase, plays) if sampling else (-1, 0, 0, 0)
    t_seen = 0
    d_seen = 0
    n_fallback = 0
    n_pause = 0
    for g in range(hands.shape[0]):
        if sampling:
            sample_game(g, at, t_seen, d_seen, uniforms, st, lay_tables, peffect, pcounts, actions)
            if phase[g] == TARGET:
                t_seen += 1
            elif phase[g] == DISCARD:
                d_seen += 1
        if stepping:
            r = node(g, actions, st, pend, pause, change, fallback, use_rng, individual, saved, tables)
            n_pause += r == 1
            n_fallback += r == 2
    if stepping:
        settle(n_pause, st, reshuffles, pend, pause, bits, individual, keys, order, bucket, tables, change)
    return n_fallback


@kernel
def deal(
    which: Any,
    over: bool,
    bits: Any,
    deck: Any,
    row: Any,
    st: Any,
    reshuffles: Any,
    hand_size: int,
) -> int:
    """``reset_done``: the games where ``which`` (with ``over``: every game that is over) get a
    new deal, in game order: the deck ``deck`` shuffled in ``row`` as numpy's ``permuted`` of
    the numpy backend shuffles each row (``_random.shuffle``, from the bit generator
    ``bits``); seat s gets the cards ``s * hand_size`` on, the rest is the draw pile with the
    last card on top (W-3), then the first round starts (W-5; no discards yet, so no
    reshuffle). Returns the number of games dealt. ``st``: the state arrays (``FastSchmaus._state``)."""
    (
        hands, food, effects, pile, pile_len, disc, disc_len, scores, rnd, rounds, phase, plays, targets,
        x5, choosing, must, sealed, sealed_len, before_play,
    ) = st  # fmt: skip
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
