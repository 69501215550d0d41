# ruff: noqa: RUF059  -- the kernels unpack the whole state and table tuples by name, used or not
"""The numba kernels of :class:`spieltisch.rl.schmaus.vector.SchmausVectorEnv` (imported only
when numba is installed): one seat's decision at a time in the AEC environment's order (the
lowest seat still to decide: sealed decisions are turn-based hidden commits), random
opponents and autoreset inside the batch, and the observation tensor of
:func:`spieltisch.rl.schmaus.obs.observation` written straight from the batched state.

``st`` is :class:`~spieltisch.rl.schmaus.fast.FastSchmaus`' state tuple; the rest of a decision
node (W-6, the reveal, scoring, W-13 draws, W-16, the next round's W-5) is
:func:`spieltisch.rl.schmaus._kernels.advance`, whose W-17 reshuffles are done here at once
(:func:`reshuffle_game`). ``vt``: what the views show beyond the state and the env's
bookkeeping: ``lowest`` (B,) the seats lowest in the last scored round (a bit a seat, the
view's ``round_results[-1]["lowest"]``), ``log`` (B, L) and ``log_n`` (B,) every decision
applied (tests), ``reshuffles`` (B,) the W-17 reshuffles of each game. ``fx``: the engine's
deals (tests), empty when the games are dealt from the Generator: per slot the dealt hands
(N, P, 12), draw pile (N, 54, the top last) and its size, and ``perms`` (N, R, 55, 54): the
engine's W-17 permutation of reshuffle r + 1 of a discard pile of n cards in ``perms[g, r, n]``.
``sc``: scratch (``pend`` (B, P), ``individual`` (P,), ``row`` (54,), ``deck`` (54,); the medium
opponents' ``pool`` and ``work`` (54,), ``hist`` (76,) and an unused (1, 1) float64 for the
uniform numbers :func:`medium_id` takes in tests).
``tb``: the engine's step tables, lay tables, per lay its effect and counts, the mask tables
(:mod:`spieltisch.rl.schmaus.fast`), ``acc`` (3, 64) float32: ``acc[i, n]`` the
observation's value of n cards counted with scale 1/12, 1/3 or 1/15 (float32 sums, as
``obs._counts`` adds them), ``SOLO`` per lay (the easy opponents', :func:`easy_id`) and the
medium opponents' tables (``vector._medium_tables``, :func:`medium_id`).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from spieltisch.rl._random import next_double, shuffle
from spieltisch.rl.schmaus._kernels import (
    POINT_EMPTY,
    POINT_LOSER,
    POINT_SHORT,
    S_EMPTY,
    S_EMPTY_DRAW,
    S_LOSER_DRAW,
    S_SCORE,
    S_SHORT,
    S_START,
    advance,
    ask_discards,
    draw_seat,
    full,
    helper,
    kernel,
)
from spieltisch.rl.schmaus._sample_kernels import discard_rule, discardable, food_key, sample_lay
from spieltisch.rl.schmaus.batched import (
    DISCARD,
    DISCARD_BASE,
    F_KINDS,
    GARBAGE,
    GROCER,
    GUARDIAN,
    HAND_SIZE,
    HUNTER,
    KINDS,
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
from spieltisch.rl.schmaus.obs import (
    DISCARD as DISCARD_AT,
)
from spieltisch.rl.schmaus.obs import (
    HAND,
    MY_PLAY,
    OBS_SIZE,
    PHASE,
    REVEALED,
    SCALAR,
    SEAT,
    SEAT_FEATURES,
)

ACC_HAND, ACC_LAY, ACC_DISCARD = 0, 1, 2
"""Rows of ``acc``: counts in the hand (/ hand limit), a lay (/ 3), the discard pile (/ 15)."""
LIMIT = 12


@helper
def to_move(st: Any, g: int) -> int:
    """The seat deciding next in game ``g`` in the AEC order (the lowest seat still to decide),
    -1 when it is over."""
    phase, plays, choosing, must = st[10], st[11], st[14], st[15]
    ph = phase[g]
    for s in range(plays.shape[1]):
        if (
            (ph == PLAY and plays[g, s] < 0)
            or (ph == TARGET and choosing[g, s])
            or (ph == DISCARD and must[g, s] > 0)
        ):
            return s
    return -1


@helper
def reshuffle_game(g: int, st: Any, vt: Any, fx: Any, sc: Any, bits: Any) -> None:
    """W-17: the discards, shuffled, go under the pile (the engine's permutation with ``fx``,
    else ``Generator.shuffle``'s from ``bits``)."""
    pile, pile_len, disc, disc_len = st[3], st[4], st[5], st[6]
    reshuffles = vt[3]
    perms = fx[3]
    row = sc[2]
    size = disc_len[g]
    number = reshuffles[g] + 1
    if perms.shape[0] > 0 and number <= perms.shape[1]:
        for i in range(size):
            row[i] = perms[g, number - 1, size, i]
    else:
        for i in range(size):
            row[i] = i
        shuffle(bits, row, size)
    for i in range(pile_len[g] - 1, -1, -1):
        pile[g, i + size] = pile[g, i]
    for i in range(size):
        pile[g, i] = disc[g, row[i]]
    pile_len[g] += size
    disc_len[g] = 0
    reshuffles[g] = number


@helper
def apply(g: int, seat: int, a: int, st: Any, vt: Any, fx: Any, sc: Any, tb: Any, bits: Any) -> None:
    """Seat ``seat``'s decision ``a`` (a legal id) in game ``g``; when it completes the node, the
    rest of the node (``_kernels.advance``, reshuffling at once) and the last round's lowest
    seats (``vt``)."""
    (
        hands, food, effects, pile, pile_len, disc, disc_len, scores, rnd, rounds, phase, plays, targets,
        x5, choosing, must, sealed, sealed_len, before_play,
    ) = st  # fmt: skip
    lowest, log, log_n = vt[0], vt[1], vt[2]
    pend, individual = sc[0], sc[1]
    steps = tb[0]
    pnfood, pneffects, peffect, ponly, pfood, pbase, pcards, value = steps
    p = hands.shape[1]
    if log_n[g] < log.shape[1]:
        log[g, log_n[g]] = a
        log_n[g] += 1
    ph = phase[g]
    stage = -1
    if ph == PLAY:
        for j in range(3):
            c = pcards[a, j]
            if c >= 0:
                hands[g, seat, c] -= 1
        food[g, seat] -= pnfood[a]
        effects[g, seat] -= pneffects[a]
        plays[g, seat] = a
        stage = S_EMPTY
        for s in range(p):
            if plays[g, s] < 0:
                stage = -1
    elif ph == TARGET:
        if a < X5_BASE:
            targets[g, seat] = a - TARGET_BASE
        else:
            x5[g, seat] = a - X5_BASE
        choosing[g, seat] = False
        stage = S_SCORE
        for s in range(p):
            if choosing[g, s]:
                stage = -1
        if stage >= 0:
            phase[g] = PLAY
    else:  # DISCARD (W-16): sealed, revealed together in seat order when the last is made
        k = a - DISCARD_BASE
        hands[g, seat, k] -= 1
        if k < F_KINDS:
            food[g, seat] -= 1
        else:
            effects[g, seat] -= 1
        sealed[g, seat, sealed_len[g, seat]] = k
        sealed_len[g, seat] += 1
        must[g, seat] -= 1
        waiting = False
        for s in range(p):
            if must[g, s] > 0:
                waiting = True
        if not waiting:
            for s in range(p):
                for j in range(sealed_len[g, s]):
                    disc[g, disc_len[g]] = sealed[g, s, j]
                    disc_len[g] += 1
                sealed_len[g, s] = 0
            if before_play[g]:
                phase[g] = PLAY
            else:
                rnd[g] += 1
                stage = S_START
    if stage < 0:
        return
    individual[0] = -1  # scored: every individual result >= 0
    resume = stage
    start = 0
    while True:
        code = advance(g, resume, start, st, pend, individual, steps)
        if code == 0:
            break
        reshuffle_game(g, st, vt, fx, sc, bits)
        point = code - 1
        if point == POINT_EMPTY:
            resume, start = S_EMPTY_DRAW, 0
        elif point == POINT_LOSER:
            resume, start = S_LOSER_DRAW, 0
        else:
            resume, start = S_SHORT, point - POINT_SHORT
    if individual[0] >= 0:  # W-15: the round's lowest (as its summary's "lowest")
        low = individual[0]
        for s in range(p):
            low = min(low, individual[s])
        bits_low = 0
        for s in range(p):
            if individual[s] == low:
                bits_low |= 1 << s
        lowest[g] = bits_low


@helper
def random_id(g: int, seat: int, st: Any, tb: Any, bits: Any) -> int:
    """A uniformly random legal id of ``seat`` in game ``g``."""
    hands, phase, plays, targets, before_play = st[0], st[10], st[11], st[12], st[18]
    lay_tables, peffect, pcounts = tb[1], tb[2], tb[3]
    p = hands.shape[1]
    u = next_double(bits)
    ph = phase[g]
    if ph == PLAY:
        return sample_lay(hands, g, seat, u, lay_tables)  # type: ignore[no-any-return]
    if ph == TARGET:
        a = plays[g, seat]
        if peffect[a] == GROCER and targets[g, seat] < 0:  # W-9: another seat
            other = np.int64(u * (p - 1))
            if other >= seat:
                other += 1
            return int(TARGET_BASE + other)
        n = 0  # W-11: a food kind of the lay
        for k in range(F_KINDS):
            if pcounts[a, k] > 0:
                n += 1
        pick = np.int64(u * n)
        for k in range(F_KINDS):
            if pcounts[a, k] > 0:
                if pick == 0:
                    return int(X5_BASE + k)
                pick -= 1
        return -1
    f, e, keep = discard_rule(hands, g, seat, before_play[g])  # W-16
    n = 0
    for k in range(KINDS):
        if hands[g, seat, k] > 0 and discardable(k, f, e, keep):
            n += 1
    pick = np.int64(u * n)
    for k in range(KINDS):
        if hands[g, seat, k] > 0 and discardable(k, f, e, keep):
            if pick == 0:
                return int(DISCARD_BASE + k)
            pick -= 1
    return -1


EASY_GREED = 0.35
"""``EasyBot.greed``: the share of lays that are its strongest."""


@helper
def easy_id(g: int, seat: int, st: Any, tb: Any, u1: float, u2: float) -> int:
    """What ``spieltisch.bots.schmaus`` easy decides for ``seat`` in game ``g`` when its
    ``rng.random()`` gives ``u1`` and its ``rng.randrange(n)`` gives ``int(u2 * n)`` (a single
    legal id is taken without either): its strongest lay (``SOLO``, the lowest id of equals)
    when ``u1`` < 0.35, else lay ``int(u2 * n)`` of its ``n`` legal lays in the engine's order
    (option A in id order, then option B effect by effect, W-4); the grocer's target the
    opponent who laid the most food face value (the lowest seat of equals, W-9); the ×5 on the
    highest food kind laid (W-11); the discard of the lowest (food value, effects 3; then kind)
    (W-16). ``tb[6]``: ``SOLO`` per lay."""
    hands, phase, plays, targets, before_play = st[0], st[10], st[11], st[12], st[18]
    peffect, pcounts = tb[2], tb[3]
    food_lays, pairs, npairs, pair_effect, short = tb[4]
    pfood, solo = tb[0][4], tb[6]
    p = hands.shape[1]
    ph = phase[g]
    if ph == PLAY:
        fk, nfood, neffects, held = food_key(hands, g, seat)
        if not full(nfood, neffects):
            return int(short[fk])  # W-5: the one lay
        np_ = npairs[fk]
        n = 0
        best = -1
        for a in range(NUM_PLAYS):  # option A (food-only lays): the greedy pick over all
            if food_lays[fk, a]:
                n += 1
                if best < 0 or solo[a] > solo[best]:
                    best = a
        for e in range(KINDS - F_KINDS):
            if held >> e & 1:
                for t in range(np_):
                    a = pair_effect[pairs[fk, t], e]
                    n += 1
                    if best < 0 or solo[a] > solo[best] or (solo[a] == solo[best] and a < best):
                        best = a
        if n == 1 or u1 < EASY_GREED:
            return best
        pick = np.int64(u2 * n)
        for a in range(NUM_PLAYS):
            if food_lays[fk, a]:
                if pick == 0:
                    return a
                pick -= 1
        for e in range(KINDS - F_KINDS):
            if held >> e & 1:
                if pick < np_:
                    return int(pair_effect[pairs[fk, pick], e])
                pick -= np_
        return -1
    if ph == TARGET:
        a = plays[g, seat]
        if peffect[a] == GROCER and targets[g, seat] < 0:  # W-9
            best = -1
            for o in range(p):
                if o != seat and (best < 0 or pfood[plays[g, o]] > pfood[plays[g, best]]):
                    best = o
            return int(TARGET_BASE + best)
        for k in range(F_KINDS - 1, -1, -1):  # W-11: the highest food kind laid
            if pcounts[a, k] > 0:
                return int(X5_BASE + k)
        return -1
    f, e, keep = discard_rule(hands, g, seat, before_play[g])  # W-16
    best = -1
    rank = 99
    for k in range(KINDS):
        if hands[g, seat, k] > 0 and discardable(k, f, e, keep):
            r = k + 1 if k < F_KINDS else 3
            if r < rank:
                best, rank = k, r
    return int(DISCARD_BASE + best)


MEDIUM_SAMPLES = 32
"""``MediumBot.default_work``: the opponent hands its :class:`OpponentModel` samples."""
M_MINE, M_BEAT, M_SCALE, M_COST = 0, 1, 2, 3
"""Rows of ``tb[7][0]`` (float64, per lay): what ``OpponentModel.gain`` computes from the lay
alone (its score ``mine``, the score ``mine / scale`` it is compared at, ``scale``) and the
lay's ``cost`` (keep value of its cards), each computed by ``spieltisch.bots.schmaus.model``."""
M_EFFECT, M_FOOD_SUM, M_FOOD_MAX, M_BASE = 0, 1, 2, 3
"""Rows of ``tb[7][1]`` (int64, per lay): the model's ``EFFECT`` (-1 for none), ``FOOD_SUM``,
``FOOD_MAX`` and ``BASE_POINTS``."""
SCORE_BINS = 64
"""Solo scores of a hand are below 34: the histogram of the sampled scores."""


@helper
def solo_best(hand: Any, at: int) -> int:
    """``model.solo_best`` of the counts ``hand[at : at + 12]``: the best score it makes alone."""
    f0 = 0
    f1 = 0
    f2 = 0
    n = 0
    for k in range(F_KINDS - 1, -1, -1):  # the three highest food values, kinds 4 .. 0
        for _ in range(min(hand[at + k], 3)):
            if n == 0:
                f0 = k + 1
            elif n == 1:
                f1 = k + 1
            elif n == 2:
                f2 = k + 1
            n += 1
    if n < 2:
        return f0
    best = f0 + f1 + f2
    two = f0 + f1
    if hand[at + X3] > 0:
        best = max(best, 3 * two + 3)
    if hand[at + X5] > 0:
        best = max(best, two + 4 * f0 + 3)
    if hand[at + X2] > 0:
        best = max(best, 2 * two + 3)
    if hand[at + GUARDIAN] > 0:
        best = max(best, two + 3)
    return best


@helper
def medium_gain(a: int, mf: Any, mi: Any, cum: Any, n: int, mean: float, others: int) -> float:
    """``OpponentModel.gain(a)``: the expected pot share of lay ``a`` against ``others``
    opponents whose scores are the ``n`` sampled ones (``cum[v]``: how many are below ``v``),
    the same float operations in the same order."""
    if mi[M_EFFECT, a] == HUNTER:
        return 0.0
    x = mf[M_BEAT, a]
    v = min(int(x), SCORE_BINS - 2)  # x >= 0: its floor
    if x == float(v):
        below = cum[v]
        equal = cum[v + 1] - cum[v]
    else:
        below = cum[v + 1]
        equal = 0
    p = (float(below) + 0.5 * float(equal)) / float(n)
    mine, scale = mf[M_MINE, a], mf[M_SCALE, a]
    k = float(others)
    if mi[M_EFFECT, a] == GROCER:  # W-9: the strongest opponent is zeroed
        win = math.pow(p, k) + k * math.pow(p, k - 1.0) * (1.0 - p)
        pot = mine + (k - 1.0) * mean * scale
    else:
        win = math.pow(p, k)
        pot = mine + k * mean * scale
    return float(win * pot)


@helper
def medium_id(g: int, seat: int, st: Any, tb: Any, sc: Any, bits: Any, us: Any, given: bool) -> int:
    """What ``spieltisch.bots.schmaus`` medium decides for ``seat`` in game ``g``.

    A lay (W-4; a single legal lay is taken at once, as the bot does): the model of the
    opponents (``OpponentModel``) samples :data:`MEDIUM_SAMPLES` hands of the opponents' mean
    size before their lay (rounded half to even, at least 3, at most the pool) from the cards
    the seat cannot see (the deck less its hand and the discard pile), each as CPython's
    ``random.sample`` draws from the list of those cards in kind order (its list variant:
    ``j = randbelow(m)``, take ``pool[j]``, move the last of the ``m`` left into its place) with
    ``randbelow(m)`` taken as ``int(u * m)``; ``u`` the next uniform number of ``bits`` (or
    ``us[t, i]`` for pick i of sample t when ``given``: tests). Then the lay of the best
    ``gain`` (:func:`medium_gain`), ties to the lower ``cost``, then the lower id. Fewer than
    3 unseen cards: no samples, every opponent scores 6. The grocer's target: the opponent
    who would score most without grocers (``round_scores`` of the revealed lays, every ×5 on
    its best card), then the higher total, then the lower seat (W-9); the ×5 on the highest
    food kind laid (W-11); the discard of the lowest (``KEEP_VALUE``, kind) (W-16)."""
    hands, food, effects, disc, disc_len = st[0], st[1], st[2], st[5], st[6]
    scores, phase, plays, targets, sealed_len, before_play = st[7], st[10], st[11], st[12], st[17], st[18]
    peffect, pcounts = tb[2], tb[3]
    food_lays, pairs, npairs, pair_effect, short = tb[4]
    mf, mi, deck, keep = tb[7]
    pool, work, hist = sc[4], sc[5], sc[6]
    p = hands.shape[1]
    ph = phase[g]
    if ph == PLAY:
        fk, nfood, neffects, held = food_key(hands, g, seat)
        if not full(nfood, neffects):
            return int(short[fk])  # W-5: the one lay
        np_ = npairs[fk]
        n = 0
        only = -1
        for a in range(NUM_PLAYS):
            if food_lays[fk, a]:
                n += 1
                only = a
        for e in range(KINDS - F_KINDS):
            if held >> e & 1:
                n += np_
                if np_ > 0:
                    only = pair_effect[pairs[fk, 0], e]
        if n == 1:
            return int(only)
        # the opponent model: the unseen cards (in kind order) and the opponents' mean hand
        for k in range(KINDS):
            hist[k] = deck[k] - hands[g, seat, k]
        for j in range(disc_len[g]):
            hist[disc[g, j]] -= 1
        size_pool = 0
        for k in range(KINDS):
            for _ in range(max(hist[k], 0)):
                pool[size_pool] = k
                size_pool += 1
        total = 0
        for s in range(p):
            if s != seat:
                total += food[g, s] + effects[g, s] + sealed_len[g, s] + (3 if plays[g, s] >= 0 else 0)
        q = total // (p - 1)
        r = total - q * (p - 1)
        if 2 * r > p - 1 or (2 * r == p - 1 and q % 2 == 1):  # Python's round: half to even
            q += 1
        size = max(3, min(q, size_pool))
        for v in range(SCORE_BINS):
            hist[v] = 0
        ns = 0
        sum_scores = 0
        if size_pool >= 3:
            for t in range(MEDIUM_SAMPLES):
                for i in range(size_pool):
                    work[i] = pool[i]
                for k in range(KINDS):
                    hist[SCORE_BINS + k] = 0
                for i in range(size):
                    m = size_pool - i
                    u = us[t, i] if given else next_double(bits)
                    pick = np.int64(u * m)
                    hist[SCORE_BINS + work[pick]] += 1
                    work[pick] = work[m - 1]
                best = solo_best(hist, SCORE_BINS)
                hist[best] += 1
                sum_scores += best
                ns += 1
        else:
            hist[6] = 1
            sum_scores = 6
            ns = 1
        below = 0
        for v in range(SCORE_BINS):  # cumulative: hist[v] becomes how many scores are below v
            c = hist[v]
            hist[v] = below
            below += c
        mean = float(sum_scores) / float(ns)
        best_a = -1
        best_gain = 0.0
        for a in range(NUM_PLAYS):
            if not food_lays[fk, a]:
                continue
            gain = medium_gain(a, mf, mi, hist, ns, mean, p - 1)
            if (
                best_a < 0
                or gain > best_gain
                or (gain == best_gain and (mf[M_COST, a] < mf[M_COST, best_a] or (
                    mf[M_COST, a] == mf[M_COST, best_a] and a < best_a)))
            ):  # fmt: skip
                best_a, best_gain = a, gain
        for e in range(KINDS - F_KINDS):
            if held >> e & 1:
                for t in range(np_):
                    a = pair_effect[pairs[fk, t], e]
                    gain = medium_gain(a, mf, mi, hist, ns, mean, p - 1)
                    if (
                        best_a < 0
                        or gain > best_gain
                        or (gain == best_gain and (mf[M_COST, a] < mf[M_COST, best_a] or (
                            mf[M_COST, a] == mf[M_COST, best_a] and a < best_a)))
                    ):  # fmt: skip
                        best_a, best_gain = a, gain
        return int(best_a)
    if ph == TARGET:
        a = plays[g, seat]
        if peffect[a] == GROCER and targets[g, seat] < 0:  # W-9: the likely winner
            guardian = False
            hunter = False
            garbage = 0
            doubling = 0
            for s in range(p):
                e = mi[M_EFFECT, plays[g, s]]
                guardian |= e == GUARDIAN
                hunter |= e == HUNTER
                garbage += e == GARBAGE
                doubling += e == X2
            if guardian:
                garbage = 0
            best = -1
            best_free = 0
            for o in range(p):
                if o == seat:
                    continue
                lay = plays[g, o]
                free = 0
                if guardian or not hunter:
                    value = mi[M_FOOD_SUM, lay]
                    if value:
                        e = mi[M_EFFECT, lay]
                        if e == X5:
                            value += 4 * mi[M_FOOD_MAX, lay]
                        elif e == X3:
                            value *= 3
                        value <<= doubling
                    free = (value >> garbage) + mi[M_BASE, lay]
                if (
                    best < 0 or free > best_free or (free == best_free and scores[g, o] > scores[g, best])
                ):  # the lower seat of equals: seats in order, only a strictly better one wins
                    best, best_free = o, free
            return int(TARGET_BASE + best)
        for k in range(F_KINDS - 1, -1, -1):  # W-11: the highest food kind laid
            if pcounts[a, k] > 0:
                return int(X5_BASE + k)
        return -1
    f, e, keeps = discard_rule(hands, g, seat, before_play[g])  # W-16: the lowest keep value
    best = -1
    for k in range(KINDS):
        if hands[g, seat, k] > 0 and discardable(k, f, e, keeps) and (best < 0 or keep[k] < keep[best]):
            best = k
    return int(DISCARD_BASE + best)


@helper
def opponent_id(g: int, seat: int, st: Any, tb: Any, sc: Any, bits: Any, level: int) -> int:
    """An opponent's decision: random (``level`` 0), easy (1, :func:`easy_id` from two uniform
    numbers of ``bits``) or medium (2, :func:`medium_id`, its samples from ``bits``)."""
    if level == 0:
        return random_id(g, seat, st, tb, bits)  # type: ignore[no-any-return]
    if level == 2:
        return medium_id(g, seat, st, tb, sc, bits, sc[7], False)  # type: ignore[no-any-return]
    u1 = next_double(bits)
    u2 = next_double(bits)
    return easy_id(g, seat, st, tb, u1, u2)  # type: ignore[no-any-return]


@kernel
def medium(st: Any, tb: Any, sc: Any, seats: Any, us: Any, bits: Any, out: Any) -> None:
    """``out[g]``: :func:`medium_id` of seat ``seats[g]``, pick i of sample t from ``us[g, t, i]``
    (tests)."""
    for g in range(out.shape[0]):
        out[g] = medium_id(g, seats[g], st, tb, sc, bits, us[g], True) if seats[g] >= 0 else -1


@kernel
def easy(st: Any, tb: Any, seats: Any, u1: Any, u2: Any, out: Any) -> None:
    """``out[g]``: :func:`easy_id` of seat ``seats[g]`` with ``u1[g]``, ``u2[g]`` (tests)."""
    for g in range(out.shape[0]):
        out[g] = easy_id(g, seats[g], st, tb, u1[g], u2[g]) if seats[g] >= 0 else -1


@helper
def deal_game(g: int, st: Any, vt: Any, fx: Any, sc: Any, bits: Any) -> None:
    """A new game in slot ``g`` (W-3, W-5, W-16 before laying): the deck shuffled from ``bits``
    as ``FastSchmaus.reset_done`` shuffles it, or the engine's deal of the slot (``fx``)."""
    (
        hands, food, effects, pile, pile_len, disc, disc_len, scores, rnd, rounds, phase, plays, targets,
        x5, choosing, must, sealed, sealed_len, before_play,
    ) = st  # fmt: skip
    lowest, reshuffles = vt[0], vt[3]
    fixed_hands, fixed_piles, fixed_sizes = fx[0], fx[1], fx[2]
    row, deck = sc[2], sc[3]
    p = hands.shape[1]
    if fixed_hands.shape[0] > 0:
        for s in range(p):
            f = 0
            e = 0
            for k in range(KINDS):
                hands[g, s, k] = fixed_hands[g, s, k]
                if k < F_KINDS:
                    f += fixed_hands[g, s, k]
                else:
                    e += fixed_hands[g, s, k]
            food[g, s] = f
            effects[g, s] = e
        size = fixed_sizes[g]
        for j in range(MAX_CARDS):
            pile[g, j] = fixed_piles[g, j]
    else:
        for c in range(MAX_CARDS):
            row[c] = deck[c]
        shuffle(bits, row, MAX_CARDS)
        for s in range(p):
            for k in range(KINDS):
                hands[g, s, k] = 0
            f = 0
            for j in range(HAND_SIZE):
                c = row[s * HAND_SIZE + j]
                hands[g, s, c] += 1
                if c < F_KINDS:
                    f += 1
            food[g, s] = f
            effects[g, s] = HAND_SIZE - f
        size = MAX_CARDS - HAND_SIZE * p
        for j in range(size):
            pile[g, j] = row[MAX_CARDS - 1 - j]
        for j in range(size, MAX_CARDS):
            pile[g, j] = 0
    for s in range(p):
        scores[g, s] = 0
        plays[g, s] = -1
        targets[g, s] = -1
        x5[g, s] = -1
        choosing[g, s] = False
        sealed_len[g, s] = 0
    pile_len[g] = size
    disc_len[g] = 0
    rnd[g] = 1
    reshuffles[g] = 0
    lowest[g] = 0
    phase[g] = PLAY
    for s in range(p):  # W-5 in seat order (no discards yet: an empty pile ends the draws)
        while not full(food[g, s], effects[g, s]) and pile_len[g] > 0:
            draw_seat(g, s, 1, hands, food, effects, pile, pile_len)
    ask_discards(g, True, food, effects, phase, must, sealed_len, before_play)


@kernel
def play(
    reset: bool, actions: Any, st: Any, vt: Any, fx: Any, sc: Any, tb: Any, bits: Any, learners: Any,
    steps: Any, max_steps: int, reward: Any, done: Any, cut: Any, final: Any, final_obs: Any,
    final_seat: int, level: int,
) -> None:  # fmt: skip
    """One learner decision in every game (``actions[g]``; with ``reset`` none: every game is
    dealt anew first), then the opponents (``level``: 0 random, 1 easy, 2 medium, :func:`opponent_id`)
    in the seats that are not ``learners`` until a learner decides. ``reward`` (B, P): the
    totals' changes. A game that ends (``done``) or reaches ``max_steps`` learner decisions
    (``cut``) keeps its last totals in ``final`` and the observation of ``final_seat`` in
    ``final_obs``, and is dealt anew at once (autoreset), its opponents moving until a
    learner's first decision (a lay: no points yet)."""
    scores = st[7]
    b, p = scores.shape[0], scores.shape[1]
    for g in range(b):
        if reset:
            deal_game(g, st, vt, fx, sc, bits)
            steps[g] = 0
        for s in range(p):
            reward[g, s] = -scores[g, s]
        done[g] = False
        cut[g] = False
        a = -1 if reset else actions[g]
        while True:
            seat = to_move(st, g)
            if seat < 0 or (learners[seat] and a < 0):
                if done[g] or cut[g] or (seat >= 0 and steps[g] < max_steps):
                    break
                done[g] = seat < 0  # the game is over (W-18), or truncated: autoreset
                cut[g] = seat >= 0
                observe_game(st, vt, tb, g, final_seat, final_obs, g)
                for s in range(p):
                    final[g, s] = scores[g, s]
                    reward[g, s] += scores[g, s]
                deal_game(g, st, vt, fx, sc, bits)
                steps[g] = 0
                continue
            if learners[seat]:
                choice = a
                a = -1
                steps[g] += 1
            else:
                choice = opponent_id(g, seat, st, tb, sc, bits, level)
            apply(g, seat, choice, st, vt, fx, sc, tb, bits)
        if not (done[g] or cut[g]):
            for s in range(p):
                reward[g, s] += scores[g, s]


@kernel
def observe(st: Any, vt: Any, tb: Any, seats: Any, out: Any) -> None:
    """``out[g]``: the observation tensor of seat ``seats[g]`` in game ``g`` (``observe_game``)."""
    for g in range(out.shape[0]):
        observe_game(st, vt, tb, g, seats[g], out, g)


@helper
def observe_game(st: Any, vt: Any, tb: Any, g: int, me: int, out: Any, row: int) -> None:
    """``out[row]``: the observation tensor of seat ``me`` in game ``g``, exactly
    :func:`spieltisch.rl.schmaus.obs.observation` of its view."""
    (
        hands, food, effects, pile, pile_len, disc, disc_len, scores, rnd, rounds, phase, plays, targets,
        x5, choosing, must, sealed, sealed_len, before_play,
    ) = st  # fmt: skip
    lowest = vt[0]
    pcounts, acc = tb[3], tb[5]
    p = hands.shape[1]
    ph = phase[g]
    for i in range(OBS_SIZE):
        out[row, i] = 0.0
    for k in range(KINDS):
        out[row, HAND + k] = acc[ACC_HAND, hands[g, me, k]]
    if ph != OVER and plays[g, me] >= 0:
        for k in range(KINDS):
            out[row, MY_PLAY + k] = acc[ACC_LAY, pcounts[plays[g, me], k]]
    for j in range(disc_len[g]):  # counted in the discard's own places: at most 54 adds
        out[row, DISCARD_AT + disc[g, j]] += 1.0
    for k in range(KINDS):
        out[row, DISCARD_AT + k] = acc[ACC_DISCARD, np.int64(out[row, DISCARD_AT + k])]
    for s in range(p):
        rel = (s - me) % p
        base = SEAT + rel * SEAT_FEATURES
        if ph == PLAY:
            deciding = plays[g, s] < 0
        elif ph == TARGET:
            deciding = choosing[g, s]
        elif ph == DISCARD:
            deciding = must[g, s] > 0
        else:
            deciding = False
        out[row, base] = np.float64(food[g, s] + effects[g, s] + sealed_len[g, s]) / LIMIT
        out[row, base + 1] = np.float64(scores[g, s]) / 100
        out[row, base + 2] = 1.0 if ph != OVER and not deciding else 0.0
        out[row, base + 3] = 1.0 if deciding else 0.0
        out[row, base + 4] = 1.0 if (lowest[g] >> s) & 1 else 0.0
        out[row, base + 5] = 1.0
        if ph == TARGET:  # the revealed lays (only while grocers / ×5 choose)
            for k in range(KINDS):
                out[row, REVEALED + rel * KINDS + k] = acc[ACC_LAY, pcounts[plays[g, s], k]]
    out[row, PHASE + ph] = 1.0
    out[row, SCALAR] = np.float64(pile_len[g]) / 54
    out[row, SCALAR + 1] = np.float64(must[g, me]) / LIMIT
    out[row, SCALAR + 2] = 1.0 if ph == DISCARD and before_play[g] else 0.0
    out[row, SCALAR + 3] = np.float64(rnd[g]) / max(1, rounds[g])
    out[row, SCALAR + 4] = np.float64(rounds[g]) / 30
    out[row, SCALAR + 5 + p - 2] = 1.0
    out[row, SCALAR + 9] = np.float64(LIMIT) / 54
    out[row, SCALAR + 10] = np.float64(2) / 10  # loser draws (W-13); both variants off


@kernel
def mask(st: Any, tb: Any, seats: Any, out: Any) -> None:
    """``out[g]`` (183 ids): the legal ids of seat ``seats[g]`` in game ``g`` (every entry
    written), as ``_sample_kernels.mask`` lists them for one seat."""
    (
        hands, food, effects, pile, pile_len, disc, disc_len, scores, rnd, rounds, phase, plays, targets,
        x5, choosing, must, sealed, sealed_len, before_play,
    ) = st  # fmt: skip
    peffect, pcounts = tb[2], tb[3]
    food_lays, pairs, npairs, pair_effect, short = tb[4]
    p = hands.shape[1]
    for g in range(out.shape[0]):
        s = seats[g]
        for a in range(NUM_ACTIONS):
            out[g, a] = False
        if s < 0:
            continue
        ph = phase[g]
        if ph == PLAY:
            fk, nfood, neffects, held = food_key(hands, g, s)
            if not full(nfood, neffects):
                out[g, short[fk]] = True  # W-5: every food card held
                continue
            for a in range(NUM_PLAYS):  # W-4 option A
                out[g, a] = food_lays[fk, a]
            n = npairs[fk]
            for e in range(KINDS - F_KINDS):  # option B: a food pair held and an effect card
                if held >> e & 1:
                    for t in range(n):
                        out[g, pair_effect[pairs[fk, t], e]] = True
        elif ph == TARGET:
            a = max(plays[g, s], 0)
            if peffect[a] == GROCER and targets[g, s] < 0:  # W-9: another seat
                for o in range(p):
                    if o != s:
                        out[g, TARGET_BASE + o] = True
            else:  # W-11: a food kind of the ×5 player's lay
                for k in range(F_KINDS):
                    if pcounts[a, k] > 0:
                        out[g, X5_BASE + k] = True
        elif ph == DISCARD:
            f, e, keep = discard_rule(hands, g, s, before_play[g])
            for k in range(KINDS):
                if hands[g, s, k] > 0 and discardable(k, f, e, keep):
                    out[g, DISCARD_BASE + k] = True


@kernel
def seats(st: Any, out: Any) -> None:
    """``out[g]``: the seat deciding next in game ``g`` (-1 when over)."""
    for g in range(out.shape[0]):
        out[g] = to_move(st, g)


@kernel
def sample(st: Any, tb: Any, seats: Any, bits: Any, out: Any) -> None:
    """``out[g]``: a uniformly random legal id of seat ``seats[g]`` (as the random opponents)."""
    for g in range(out.shape[0]):
        out[g] = random_id(g, seats[g], st, tb, bits) if seats[g] >= 0 else -1
