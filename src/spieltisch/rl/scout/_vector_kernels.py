"""The numba kernels of :class:`spieltisch.rl.scout.vector.ScoutVectorEnv` (imported only when
numba is installed): opponents and autoreset inside the batch, and the observation tensor of
:func:`spieltisch.rl.scout.obs.observation` written straight from the batched state.

``st`` is :class:`~spieltisch.rl.scout.fast.FastScout`'s state tuple; ``tr`` what the views
show beyond it (:data:`TRACK`): per hand place whether the card was scouted openly (S-8, the
view's known cards), the physical cards captured this round (S-6, the view's
``captured_cards``), the owner of the set a pending scout half took its card from (S-9), and
an optional log of every decision applied (``log`` (B, L), ``log_n`` (B,): for tests), and the
plays of the round so far (``turns`` (B,), medium's cycle breaker). ``sc``
the scratch arrays of the engine's kernels, then the deal's, then ``fixed`` (B, R, cards):
when not empty, game g's round r is dealt from ``fixed[g, r]`` (a dealer's decks) instead of
the Generator. ``opp`` the opponents: each seat's level (``levels`` (P,): -1 a learner, 0
random, 1 easy, 2 medium), the bit generator the easy and medium bots draw from and their scratch
(:mod:`~spieltisch.rl.scout._bot_kernels`).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from spieltisch.rl._random import bitgen_double
from spieltisch.rl.scout._bot_kernels import decide
from spieltisch.rl.scout._kernels import deal, kernel, place, sample_game, step_game
from spieltisch.rl.scout.actions import INSERTS, NUM_SCOUTS, SCOUT_BASE, SCOUT_SHOW_BASE, SHOW_BASE
from spieltisch.rl.scout.batched import OVER, PLAY
from spieltisch.rl.scout.obs import CAPTURED, CARD, HAND, KNOWN, OBS_SIZE, OWNER, SCALAR, SEAT, SEAT_FEATURES
from spieltisch.rl.scout.obs import TABLE as TABLE_AT

TRACK = ("known", "captured", "half_owner", "log", "log_n", "turns")
"""The tracking arrays in ``tr``, in order."""
IDENTITY = np.full((11, 11), -1, dtype=np.int64)
"""``IDENTITY[a, b]``: the physical card a/b (0..44, whichever way up; obs.identity)."""
_i = 0
for _a in range(1, 11):
    for _b in range(_a + 1, 11):
        IDENTITY[_a, _b] = IDENTITY[_b, _a] = _i
        _i += 1
ROUNDS_SCALE = 5.0


@kernel(inline="always")
def to_move(st: Any, g: int) -> int:
    """The seat deciding in game ``g`` (-1 when it is over), as ``BatchedScout.to_move``."""
    current, phase, pending = st[8], st[9], st[10]
    if phase[g] == OVER:
        return -1
    if phase[g] == PLAY:
        return int(current[g])
    s = 0
    while not pending[g, s]:
        s += 1
    return s


@kernel(inline="always")
def deal_game(st: Any, g: int, r: int, tb: Any, dealt: int, bitgen: Any, sc: Any) -> None:
    """Deal round ``r`` of game ``g``: from the Generator, or from ``fixed`` (see the module)."""
    idx, decks, fixed = sc[8], sc[9], sc[10]
    idx[0] = g
    p = st[2].shape[1]
    if fixed.shape[0] == 0 or (p == 2 and r == 1):  # S-16: two players' round 2 is set aside
        deal(st, idx, 1, r, bitgen, tb[2], dealt, decks)
        return
    for c in range(fixed.shape[2]):
        decks[0, c] = fixed[g, r, c]
    place(st, idx, 1, r, dealt, decks)


@kernel(inline="always")
def clear_track(tr: Any, g: int) -> None:
    known, captured, half_owner = tr[0], tr[1], tr[2]
    for s in range(known.shape[1]):
        for j in range(known.shape[2]):
            known[g, s, j] = False
    for c in range(captured.shape[1]):
        captured[g, c] = False
    half_owner[g] = -1
    tr[5][g] = 0


@kernel(inline="always")
def apply(st: Any, tr: Any, g: int, a: int, tb: Any, rounds: int, dealt: int, bitgen: Any, sc: Any) -> None:
    """Decision ``a`` in game ``g``: the tracking first (from the position before it), then the
    engine's step, then the next round's deal when the round ended (S-10, S-15)."""
    size, ttop, tbot, tsize, owner, current, phase, rnd = (
        st[2],
        st[3],
        st[4],
        st[5],
        st[7],
        st[8],
        st[9],
        st[15],
    )
    known, captured, half_owner, log, log_n, turns = tr
    step_, runlen = sc[0], sc[1]
    show_start, show_count = tb[0], tb[1]
    if log_n[g] < log.shape[1]:
        log[g, log_n[g]] = a
        log_n[g] += 1
    if phase[g] == PLAY:
        seat = current[g]
        if a < SCOUT_SHOW_BASE:  # a whole play (a scout half is not one yet, S-9)
            turns[g] += 1
        if SHOW_BASE <= a < SCOUT_BASE:  # S-6: the beaten set is captured; shown cards leave
            for i in range(tsize[g]):
                captured[g, IDENTITY[ttop[g, i], tbot[g, i]]] = True
            start, count = show_start[a - SHOW_BASE], show_count[a - SHOW_BASE]
            for j in range(start, size[g, seat] - count):
                known[g, seat, j] = known[g, seat, j + count]
            for j in range(max(size[g, seat] - count, start), size[g, seat]):
                known[g, seat, j] = False
            half_owner[g] = -1
        elif a >= SCOUT_BASE:  # S-8: the scouted card is known where it is inserted
            at = (a - SCOUT_BASE) % NUM_SCOUTS % INSERTS
            for j in range(size[g, seat], at, -1):
                known[g, seat, j] = known[g, seat, j - 1]
            known[g, seat, at] = True
            if a - SCOUT_BASE >= NUM_SCOUTS:
                half_owner[g] = owner[g]
    point = step_game(st, g, a, tb, rounds, step_, runlen)
    if point >= 0:
        deal_game(st, g, rnd[g] + 1, tb, dealt, bitgen, sc)
        clear_track(tr, g)


@kernel(inline="always")
def random_id(st: Any, g: int, bitgen: Any, sc: Any) -> int:
    """A uniformly random legal learning id of game ``g`` (as ``sample_legal``)."""
    step_, runlen, fewest, left, right, hm, blocks, spans = (
        sc[0],
        sc[1],
        sc[2],
        sc[3],
        sc[4],
        sc[5],
        sc[6],
        sc[7],
    )
    half_at = st[18]
    ug = bitgen_double(bitgen)
    uh = bitgen_double(bitgen) if half_at[g] >= 0 else 0.0
    return sample_game(st, g, ug, uh, step_, runlen, fewest, left, right, hm, blocks, spans)  # type: ignore[no-any-return]


@kernel()  # not inlined: its callers share one compiled copy (numba's compile time)
def opponents(
    st: Any, tr: Any, g: int, tb: Any, rounds: int, dealt: int, bitgen: Any, sc: Any, learners: Any,
    opp: Any,
) -> None:  # fmt: skip
    """The opponents decide in game ``g`` until a learner seat decides or the game is over (a
    learner always decides again: every round starts with every seat's flip, S-5): random ones
    from the engine's Generator, easy and medium ones (a scout & show as its two halves) from
    the bots' own."""
    phase = st[9]
    levels, botgen, bs = opp
    second = -1  # a bot's show half, after its scout half (one call of apply: compile time)
    while phase[g] != OVER:
        if second >= 0:
            a, second = second, -1
        else:
            seat = to_move(st, g)
            if learners[seat]:
                return
            level = levels[seat]
            if level <= 0:
                a = random_id(st, g, bitgen, sc)
            else:
                a, second = decide(st, g, level, tr[5][g], botgen, bs)
        apply(st, tr, g, a, tb, rounds, dealt, bitgen, sc)


@kernel()
def advance(
    actions: Any, st: Any, tr: Any, tb: Any, rounds: int, dealt: int, bitgen: Any, sc: Any,
    learners: Any, steps: Any, max_steps: int, reward: Any, done: Any, cut: Any, final: Any,
    final_obs: Any, final_seat: int, opp: Any,
) -> None:  # fmt: skip
    """One learner decision in every game (``actions[g]`` < 0: none), then the opponents in
    the seats that are not ``learners`` until a learner decides. ``reward`` (B, P): the
    totals' changes. A game that ends (``done``) or reaches ``max_steps`` learner decisions
    (``cut``) keeps its last totals in ``final`` and the observation of ``final_seat`` there in
    ``final_obs`` (when it has rows), and is dealt anew at once (autoreset), its opponents
    moving until a learner's first decision (a flip: no points yet)."""
    size, phase, totals = st[2], st[9], st[14]
    b, p = size.shape[0], size.shape[1]
    for g in range(b):
        for s in range(p):
            reward[g, s] = -totals[g, s]
        a = actions[g]
        if a >= 0 and phase[g] != OVER:
            apply(st, tr, g, a, tb, rounds, dealt, bitgen, sc)
            steps[g] += 1
        opponents(st, tr, g, tb, rounds, dealt, bitgen, sc, learners, opp)
        for s in range(p):
            reward[g, s] += totals[g, s]
        over = phase[g] == OVER
        done[g] = over
        cut[g] = not over and steps[g] >= max_steps
        if over or cut[g]:
            if final_obs.shape[0]:
                observe_game(st, tr, g, final_seat, rounds, final_obs, g)
            for s in range(p):
                final[g, s] = totals[g, s]
            new_game(st, tr, g, tb, rounds, dealt, bitgen, sc, learners, steps, opp)


@kernel(inline="always")
def new_game(
    st: Any, tr: Any, g: int, tb: Any, rounds: int, dealt: int, bitgen: Any, sc: Any,
    learners: Any, steps: Any, opp: Any,
) -> None:  # fmt: skip
    """Game ``g`` dealt anew (S-1 .. S-5); opponents move until a learner decides."""
    totals = st[14]
    for s in range(totals.shape[1]):
        totals[g, s] = 0
    deal_game(st, g, 0, tb, dealt, bitgen, sc)
    clear_track(tr, g)
    steps[g] = 0
    opponents(st, tr, g, tb, rounds, dealt, bitgen, sc, learners, opp)


@kernel()
def reset(
    st: Any, tr: Any, tb: Any, rounds: int, dealt: int, bitgen: Any, sc: Any, learners: Any, steps: Any,
    opp: Any,
) -> None:  # fmt: skip
    """Deal every game anew; opponents move until a learner decides."""
    for g in range(st[2].shape[0]):
        new_game(st, tr, g, tb, rounds, dealt, bitgen, sc, learners, steps, opp)


@kernel()
def observe(st: Any, tr: Any, seats: Any, rounds: int, out: Any) -> None:
    """``out[g]``: the observation tensor of seat ``seats[g]`` in game ``g`` (``observe_game``)."""
    for g in range(out.shape[0]):
        observe_game(st, tr, g, seats[g], rounds, out, g)


@kernel(inline="always")
def observe_game(st: Any, tr: Any, g: int, me: int, rounds: int, out: Any, row: int) -> None:
    """``out[row]``: the observation tensor of seat ``me`` in game ``g``, exactly
    :func:`spieltisch.rl.scout.obs.observation` of its view (in a show half: as after the
    pending scout, with the view's counts from before it, S-9; at the end: every hand shown)."""
    top, bottom, size, ttop, tbot, tsize = st[0], st[1], st[2], st[3], st[4], st[5]
    owner, current, phase, pending = st[7], st[8], st[9], st[10]
    chips, collected, tokens, totals, rnd = st[11], st[12], st[13], st[14], st[15]
    half_at = st[18]
    known, captured, half_owner = tr[0], tr[1], tr[2]
    p = size.shape[1]
    for i in range(OBS_SIZE):
        out[row, i] = 0.0
    half = phase[g] == PLAY and half_at[g] >= 0
    for j in range(size[g, me]):
        out[row, HAND + j * CARD + top[g, me, j] - 1] = 1.0
        out[row, HAND + j * CARD + 10 + bottom[g, me, j] - 1] = 1.0
    for j in range(tsize[g]):
        out[row, TABLE_AT + j * CARD + ttop[g, j] - 1] = 1.0
        out[row, TABLE_AT + j * CARD + 10 + tbot[g, j] - 1] = 1.0
    if tsize[g] > 0:
        out[row, OWNER + (owner[g] - me) % p] = 1.0
    for s in range(p):
        rel = (s - me) % p
        base = SEAT + rel * SEAT_FEATURES
        hand = size[g, s] - (1 if half and s == me else 0)
        tok = tokens[g, s] - (1 if half and s == half_owner[g] else 0)
        chip = 1 if half and s == me else chips[g, s]
        out[row, base] = np.float64(hand) / 45
        out[row, base + 1] = np.float64(collected[g, s]) / 45
        out[row, base + 2] = np.float64(tok) / 45
        out[row, base + 3] = np.float64(chip) / 3
        out[row, base + 4] = np.float64(totals[g, s]) / 50
        out[row, base + 5] = 1.0
        if phase[g] == PLAY:
            out[row, base + 6] = 1.0 if s == current[g] else 0.0
        elif phase[g] != OVER:
            out[row, base + 6] = 1.0 if pending[g, s] else 0.0
            out[row, base + 7] = 0.0 if pending[g, s] else 1.0
        if rel:
            for j in range(size[g, s]):
                if known[g, s, j] or phase[g] == OVER:
                    out[row, KNOWN + (rel - 1) * 45 + IDENTITY[top[g, s, j], bottom[g, s, j]]] = 1.0
    for c in range(45):
        if captured[g, c]:
            out[row, CAPTURED + c] = 1.0
    out[row, SCALAR] = 1.0 if phase[g] != PLAY and phase[g] != OVER else 0.0
    out[row, SCALAR + 1] = 1.0 if phase[g] == PLAY else 0.0
    out[row, SCALAR + 2] = 1.0 if phase[g] == OVER else 0.0
    out[row, SCALAR + 3] = 1.0 if half else 0.0
    out[row, SCALAR + 4 + p - 2] = 1.0
    out[row, SCALAR + 8] = np.float64(rnd[g] + 1) / ROUNDS_SCALE
    out[row, SCALAR + 9] = np.float64(rounds) / ROUNDS_SCALE
