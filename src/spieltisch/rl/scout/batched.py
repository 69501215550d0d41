"""A batched Scout engine: B games stepped at once with numpy (docs/rl.md).

Same rules as the reference engine (S-1 .. S-16), checked against it on the
same action sequences in ``tests/rl/test_batched_scout.py``. Actions are the
1,405 learning ids of :mod:`~spieltisch.rl.scout.actions`: a scout & show (S-9)
is two decisions of the same seat, the scout half and then the show half, and
the legal masks offer exactly the canonical ids that module maps the engine's
legal actions to (no two ids mean the same action).

One :meth:`BatchedScout.step` is **one decision of one seat in every game**:
the seat to move in the play phase, or, in the flip phase (S-5), the first
seat that has not decided yet (flip decisions are secret and independent, so
taking them one seat at a time changes nothing). Games that are over stay over
until :meth:`BatchedScout.reset_done`.

A hand is stored as two rows of numbers (live and other end, S-1); places past
the hand's end hold pad numbers 12, 14, 16, … that never form a set with
anything, so set detection needs no length masks.

Randomness: deals come from a ``numpy.random.Generator`` by default; ``dealer``
replaces it (the tests pass the reference engine's own shuffles, so both deal
alike).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from spieltisch.engine.scout.cards import ALL_CARDS
from spieltisch.engine.scout.state import DEALT, REMOVED, ROUNDS, TWO_PLAYER_CHIPS, round_deck
from spieltisch.rl.batching import BatchedGames, check_mask_out
from spieltisch.rl.scout import actions as SA

IntArray = npt.NDArray[np.int64]
SmallArray = npt.NDArray[np.int16]
BoolArray = npt.NDArray[np.bool_]

W = SA.MAX_HAND + 1
"""Places in a stored hand (a hand holds at most 45 cards, S-8)."""
TABLE = 10
"""No set has more than 10 cards (numbers 1..10)."""
FLIP, PLAY, OVER = 0, 1, 2
HAND_EMPTY, ALL_SCOUTED, STUCK = 0, 1, 2

_POS = np.arange(W, dtype=np.int16)
PAD = (12 + 2 * _POS).astype(np.int16)
"""Pad numbers: two apart from each other and at least 2 from any card number."""

# Show ids 2 .. 1036 as (start, count) grids.
SHOW_START = np.array([SA.decode(SA.SHOW_BASE + i).start for i in range(SA.NUM_SHOWS)], dtype=np.int16)
SHOW_COUNT = np.array([SA.decode(SA.SHOW_BASE + i).count for i in range(SA.NUM_SHOWS)], dtype=np.int16)
_STOP = SHOW_START + SHOW_COUNT
_SHOW_COUNT8 = SHOW_COUNT.astype(np.int8)
_STARTS = SA.MAX_HAND
_ROW = np.arange(_STARTS, 0, -1)
"""Show ids per start place: start s has counts 1 .. 45 - s, in id order."""

# Every id decoded into flat tables.
ID_START = np.zeros(SA.NUM_ACTIONS, dtype=np.int64)
ID_COUNT = np.zeros(SA.NUM_ACTIONS, dtype=np.int64)
ID_START[SA.SHOW_BASE : SA.SCOUT_BASE] = SHOW_START
ID_COUNT[SA.SHOW_BASE : SA.SCOUT_BASE] = SHOW_COUNT
_scout = np.arange(SA.NUM_ACTIONS) - SA.SCOUT_BASE
ID_END = np.where(_scout >= 0, (_scout % SA.NUM_SCOUTS) // (2 * SA.INSERTS), 0)
ID_TURN = np.where(_scout >= 0, (_scout % SA.NUM_SCOUTS) // SA.INSERTS % 2, 0).astype(bool)
ID_AT = np.where(_scout >= 0, _scout % SA.INSERTS, 0)

Dealer = Callable[[int, int], Sequence[int]]
"""``(game index, round index from 0) -> the shuffled deck`` as engine card ints
(``live * 11 + other``), dealt in order: seat 0's hand first (S-1, S-2). With two
players round 1 is dealt from the cards set aside in round 0 (S-16) and the
dealer is not asked."""


def engine_dealer(players: int, seeds: Sequence[int]) -> Dealer:
    """A :data:`Dealer` that deals game ``g`` as the reference engine deals the game of seed
    ``seeds[g]`` (its decks and orientations, S-1), so that a batched game can be replayed in
    the engine (:func:`spieltisch.rl.replay.replay_in_engine`)."""
    return lambda g, round_index: round_deck(players, seeds[g], round_index)


def set_key(top: SmallArray, size: IntArray) -> IntArray:
    """S-7 strength of the sets ``top[:, :size]`` (rows of live numbers), -1 for none."""
    rows = np.arange(len(size))
    first = top[:, 0].astype(np.int64)
    last = top[rows, np.maximum(size - 1, 0)].astype(np.int64)
    step = top[:, 1].astype(np.int64) - first
    many = size * 64 + 16 * (step == 0) + np.minimum(first, last)
    key: IntArray = np.where(size == 0, -1, np.where(size == 1, 80 + first, many))
    return key


def _gather(rows: SmallArray, index: npt.NDArray[np.integer[Any]]) -> SmallArray:
    """``take_along_axis(rows, index, axis=1)`` for 2-D arrays, as one flat ``take``."""
    flat = np.arange(len(rows))[:, None] * rows.shape[1] + index
    out: SmallArray = rows.ravel().take(flat)
    return out


class _Runs:
    """Runs of a batch of hands (rows of live numbers, padded): the step from every
    place to the next, the length of the run starting at every place (``runlen``)
    and, on demand, for every step d in (-1, 0, +1) the length of the run with
    step d that ends (``left``) or starts (``right``) at every place."""

    def __init__(
        self, vals: SmallArray, step: SmallArray | None = None, runlen: SmallArray | None = None
    ) -> None:
        self.vals = vals
        if step is None or runlen is None:
            b = len(vals)
            step = np.full((b, W), 2, dtype=np.int16)
            step[:, :-1] = vals[:, 1:] - vals[:, :-1]
            invalid = (step < -1) | (step > 1)
            stop = invalid.copy()  # the run through place j ends at place j + 1
            stop[:, :-1] |= step[:, 1:] != step[:, :-1]
            nxt = np.minimum.accumulate(np.where(stop, _POS, W)[:, ::-1], axis=1)[:, ::-1]
            runlen = np.where(invalid, 1, nxt - _POS + 2).astype(np.int16)
        self.step = step
        self.runlen = runlen
        self._left: list[SmallArray] = []
        self._right: list[SmallArray] = []

    def rows(self, rows: IntArray) -> _Runs:
        return _Runs(self.vals[rows], self.step[rows], self.runlen[rows])

    def _by_step(self) -> None:
        b = len(self.vals)
        diff = self.step[:, :-1]
        for d in (-1, 0, 1):
            same = diff == d
            brk_l = np.ones((b, W), dtype=bool)
            brk_l[:, 1:] = ~same
            last = np.maximum.accumulate(np.where(brk_l, _POS, 0), axis=1)
            self._left.append((_POS - last + 1).astype(np.int16))
            brk_r = np.ones((b, W), dtype=bool)
            brk_r[:, :-1] = ~same
            nxt = np.minimum.accumulate(np.where(brk_r, _POS, W)[:, ::-1], axis=1)[:, ::-1]
            self._right.append((nxt - _POS + 1).astype(np.int16))

    @property
    def left(self) -> list[SmallArray]:
        if not self._left:
            self._by_step()
        return self._left

    @property
    def right(self) -> list[SmallArray]:
        if not self._right:
            self._by_step()
        return self._right

    def counts(self, size: IntArray, key: IntArray) -> tuple[SmallArray, SmallArray]:
        """Per start place (B, 45): the fewest and the most cards of a set starting
        there that is stronger than ``key`` (S-6, S-7; none where fewest > most).

        Within a run more cards are always stronger, so these bounds are the whole story.
        """
        vals = self.vals[:, :_STARTS]
        step = self.step[:, :_STARTS]
        most = np.where(_POS[:_STARTS] < size[:, None], self.runlen[:, :_STARTS], 0).astype(np.int16)
        k = key[:, None]
        n = (k // 64).astype(np.int16)  # the active set's size (for key >= 64)
        low = vals - np.where(step == -1, n - 1, 0)
        strength = n * 64 + 16 * (step == 0) + low
        fewest = np.where(80 + vals > k, 1, np.where(n <= 1, 2, n + (strength <= k))).astype(np.int16)
        return fewest, most

    def shows(
        self, size: IntArray, key: IntArray, out: BoolArray | None = None, only: BoolArray | None = None
    ) -> BoolArray:
        """(B, 1035): the show grid (start, count) of sets stronger than ``key`` (S-6, S-7),
        written into ``out`` when given; all False for the games where ``only`` is False."""
        fewest, most = self.counts(size, key)
        if only is not None:
            most = np.where(only[:, None], most, 0).astype(np.int8)
        if out is None:
            out = np.empty((len(fewest), SA.NUM_SHOWS), dtype=bool)
        np.less_equal(np.repeat(fewest.astype(np.int8), _ROW, axis=1), _SHOW_COUNT8, out=out)
        out &= np.repeat(most.astype(np.int8), _ROW, axis=1) >= _SHOW_COUNT8
        return out

    def best(self, size: IntArray) -> IntArray:
        """The strongest set of each hand (-1 for an empty hand)."""
        vals = self.vals.astype(np.int64)
        run = self.runlen.astype(np.int64)
        low = vals - np.where(self.step == -1, run - 1, 0)
        many = np.where(run >= 2, run * 64 + 16 * (self.step == 0) + low, -1)
        single = np.where(size[:, None] > _POS, 80 + vals, -1)
        out: IntArray = np.maximum(many, single).max(1)
        return out


class BatchedScout(BatchedGames):
    """B games of Scout, ``players`` seats each."""

    _over = OVER

    def __init__(self, batch: int, players: int, seed: int = 0, dealer: Dealer | None = None) -> None:
        super().__init__(batch, players, seed, "Scout", "S-2")
        self.dealer = dealer
        b, p = batch, players
        self.deck = np.array([c for c in ALL_CARDS if c not in REMOVED[p]], dtype=np.int16)
        self.dealt = DEALT[p]
        self.rounds = ROUNDS[p]
        self.top = np.broadcast_to(PAD, (b, p, W)).copy()
        self.bottom = np.broadcast_to(PAD, (b, p, W)).copy()
        self.size = np.zeros((b, p), dtype=np.int64)
        self.table_top = np.zeros((b, TABLE), dtype=np.int16)
        self.table_bottom = np.zeros((b, TABLE), dtype=np.int16)
        self.table_size = np.zeros(b, dtype=np.int64)
        self.table_key = np.full(b, -1, dtype=np.int64)
        self.owner = np.full(b, -1, dtype=np.int64)
        self.current = np.zeros(b, dtype=np.int64)
        self.phase = np.zeros(b, dtype=np.int64)
        self.pending = np.zeros((b, p), dtype=bool)  # S-5: flip not decided yet
        self.chips = np.zeros((b, p), dtype=np.int64)
        self.collected = np.zeros((b, p), dtype=np.int64)
        self.tokens = np.zeros((b, p), dtype=np.int64)
        self.totals = np.zeros((b, p), dtype=np.int64)
        self.round = np.zeros(b, dtype=np.int64)
        self.first_start = np.zeros(b, dtype=np.int64)
        aside = len(self.deck) - 2 * self.dealt if p == 2 else 0
        self.set_aside = np.zeros((b, aside), dtype=np.int16)
        self.half_at = np.full(b, -1, dtype=np.int64)
        """Where a scout half inserted its card (-1: no show half pending, S-9)."""
        self.rows = np.arange(b)
        self._deal_all()

    # -- dealing (S-1 .. S-5) -------------------------------------------------------
    def reset_done(self, which: BoolArray | None = None) -> None:
        """Deal new games where ``which`` (default: every game that is over)."""
        idx = self._to_deal(which)
        if not len(idx):
            return
        self.totals[idx] = 0
        self._deal(idx, 0)

    def _decks(self, idx: IntArray, round_index: int) -> SmallArray:
        if self.dealer is not None:
            return np.array([list(self.dealer(int(g), round_index)) for g in idx], dtype=np.int16)
        decks = self.rng.permuted(np.broadcast_to(self.deck, (len(idx), len(self.deck))), axis=1)
        turn = self.rng.random(decks.shape) < 0.5  # S-1: orientation too
        out: SmallArray = np.where(turn, (decks % 11) * 11 + decks // 11, decks).astype(np.int16)
        return out

    def _deal(self, idx: IntArray, round_index: int) -> None:
        p, k = self.players, self.dealt
        if p == 2 and round_index == 1:
            decks = self.set_aside[idx]  # S-16: round 2 uses the set-aside cards
        else:
            decks = self._decks(idx, round_index)
            if p == 2:
                self.set_aside[idx] = decks[:, 2 * k :]
        hands = decks[:, : p * k].reshape(len(idx), p, k)
        top = np.broadcast_to(PAD, (len(idx), p, W)).copy()
        bottom = top.copy()
        top[:, :, :k] = hands // 11
        bottom[:, :, :k] = hands % 11
        self.top[idx] = top
        self.bottom[idx] = bottom
        self.size[idx] = k
        self.round[idx] = round_index
        if round_index == 0:  # S-3: the 1/2 card, else (2 players) the lowest card
            lo = np.minimum(top, bottom)[:, :, :k].astype(np.int64)
            hi = np.maximum(top, bottom)[:, :, :k].astype(np.int64)
            self.first_start[idx] = np.argmin((lo * 11 + hi).reshape(len(idx), -1), axis=1) // k
        self.current[idx] = (self.first_start[idx] + round_index) % p  # S-4
        self.table_size[idx] = 0
        self.table_key[idx] = -1
        self.owner[idx] = -1
        self.chips[idx] = TWO_PLAYER_CHIPS if p == 2 else 1  # S-9, S-13, S-16
        self.collected[idx] = 0
        self.tokens[idx] = 0
        self.phase[idx] = FLIP
        self.pending[idx] = True
        self.half_at[idx] = -1

    # -- whose decision -------------------------------------------------------------
    def to_move(self) -> IntArray:
        """(B,): the seat deciding in each game (-1 when the game is over)."""
        first = np.argmax(self.pending, axis=1)
        out: IntArray = np.where(self.phase == FLIP, first, np.where(self.phase == PLAY, self.current, -1))
        return out

    def _hands(self, seat: IntArray) -> tuple[SmallArray, SmallArray, IntArray]:
        s = np.maximum(seat, 0)
        return self.top[self.rows, s], self.bottom[self.rows, s], self.size[self.rows, s]

    def legal_mask(self, out: BoolArray | None = None) -> BoolArray:
        """(B, 1405): the legal learning ids of the seat to move in each game.

        A new array every call (a learner may keep it), unless ``out`` is given: a writable
        bool array of that shape (e.g. a slice of a rollout buffer), every entry of which is
        overwritten and which is returned."""
        if out is not None:
            check_mask_out(out, (self.batch, SA.NUM_ACTIONS))
            out[...] = self.legal_mask()
            return out
        b, p = self.batch, self.players
        out = np.zeros((b, SA.NUM_ACTIONS), dtype=bool)
        seat = self.to_move()
        out[:, SA.KEEP] = out[:, SA.FLIP] = self.phase == FLIP
        play = self.phase == PLAY
        top, _, size = self._hands(seat)
        runs = _Runs(top)
        runs.shows(size, self.table_key, out=out[:, SA.SHOW_BASE : SA.SCOUT_BASE], only=play)
        half = self.half_at >= 0
        if half.any():  # a show half after its scout half: the canonical shows only (scout_actions)
            h = np.nonzero(half)[0]
            out[h, SA.SHOW_BASE : SA.SCOUT_BASE] = self._show_half_mask(h)
        seat_chips = self.chips[self.rows, np.maximum(seat, 0)]
        scout = play & ~half & (self.table_size > 0) & (size + 1 <= SA.MAX_HAND)  # S-8
        if p == 2:
            scout &= seat_chips > 0  # S-14
        inserts = _POS[None, :] <= size[:, None]
        two_ends = self.table_size > 1  # a one-card set is scouted from its left end only
        for end in (0, 1):
            ok = scout if end == 0 else scout & two_ends
            for turn in (0, 1):
                first = SA.SCOUT_BASE + (end * 2 + turn) * SA.INSERTS
                out[:, first : first + SA.INSERTS] = ok[:, None] & inserts
        if p > 2:
            ss = np.nonzero(scout & (seat_chips > 0))[0]  # S-9: one chip a round
            if len(ss):
                out[ss, SA.SCOUT_SHOW_BASE :] = self._half_mask(ss, runs.rows(ss), size[ss])
        return out

    def _half_mask(self, g: IntArray, runs: _Runs, size: IntArray) -> BoolArray:
        """(n, 184): the scout halves of games ``g`` with at least one canonical show half (S-9)."""
        n = self.table_size[g]
        out = np.zeros((len(g), SA.NUM_SCOUTS), dtype=bool)
        inserts = _POS[None, :] <= size[:, None]
        vals = runs.vals
        before = np.full_like(vals, 99)  # the number left of each insert place
        before[:, 1:] = vals[:, :-1]
        after = vals  # the number right of each insert place (pads never match)
        ttop, tbottom = self.table_top[g], self.table_bottom[g]
        rows = np.arange(len(g))
        for end in (0, 1):
            if end == 0:
                rkey = set_key(ttop[:, 1:], n - 1)
                live, other = ttop[:, 0], tbottom[:, 0]
            else:
                rkey = set_key(ttop, n - 1)
                live, other = ttop[rows, n - 1], tbottom[rows, n - 1]
            ok = inserts if end == 0 else inserts & (n > 1)[:, None]
            # Shows of cards already held: wholly left of the card (not ending right
            # before it, that is folded onto "before"), or wholly right of it.
            fewest, most = runs.counts(size, rkey)
            held = fewest <= most
            stop = np.where(held, _POS[:_STARTS] + fewest, 99).min(1)
            start = np.where(held, _POS[:_STARTS], -1).max(1)
            apart = (stop[:, None] <= _POS[None, :] - 1) | (start[:, None] >= _POS[None, :])
            k = rkey[:, None]
            for turn in (0, 1):
                v = (other if turn else live)[:, None]
                best = (_POS == 0) & (80 + v > k)  # the scouted card shown alone
                for d, left, right in zip((-1, 0, 1), runs.left, runs.right, strict=True):
                    ll = np.zeros_like(vals)
                    ll[:, 1:] = np.where(before[:, 1:] == v - d, left[:, :-1], 0)
                    rr = np.where(after == v + d, right, 0)
                    count = ll + rr + 1
                    low = v - ll if d == 1 else (v - rr if d == -1 else v)
                    best |= (count >= 2) & (count * 64 + (16 if d == 0 else 0) + low > k)
                first = (end * 2 + turn) * SA.INSERTS
                out[:, first : first + SA.INSERTS] = ok & (apart | best)
        return out

    def sample_legal(self, rng: np.random.Generator) -> IntArray:
        """A uniformly random legal id for every game (-1 where a game is over).

        Counts the legal ids per kind instead of building :meth:`legal_mask`: shows
        per start place (a range of counts), scouts per end and turn (every insert
        place), scout halves from their mask; then picks one index and decodes it.
        """
        b, p = self.batch, self.players
        seat = self.to_move()
        play = self.phase == PLAY
        top, _, size = self._hands(seat)
        runs = _Runs(top)
        fewest, most = runs.counts(size, self.table_key)
        per_start = np.maximum(most - fewest + 1, 0) * play[:, None]
        shows = per_start.sum(1)
        half = self.half_at >= 0
        seat_chips = self.chips[self.rows, np.maximum(seat, 0)]
        scout = play & ~half & (self.table_size > 0) & (size + 1 <= SA.MAX_HAND)  # S-8
        if p == 2:
            scout &= seat_chips > 0  # S-14
        scouts = np.where(scout, np.where(self.table_size > 1, 4, 2), 0) * (size + 1)
        halves = np.zeros(b, dtype=np.int64)
        ss = np.nonzero(scout & (seat_chips > 0))[0] if p > 2 else np.zeros(0, dtype=np.int64)
        half_mask = self._half_mask(ss, runs.rows(ss), size[ss]) if len(ss) else None
        if half_mask is not None:
            halves[ss] = half_mask.sum(1)
        total = np.where(self.phase == FLIP, 2, shows + scouts + halves)
        k = (rng.random(b) * total).astype(np.int64)
        out = np.where(self.phase == FLIP, k, -1)
        # shows: the start place, then the count within its range
        cum = np.cumsum(per_start, 1)
        start = np.argmax(cum > k[:, None], 1)
        count = fewest[self.rows, start] + k - (cum[self.rows, start] - per_start[self.rows, start])
        offset = start * SA.MAX_HAND - start * (start - 1) // 2
        out = np.where(play & (k < shows), SA.SHOW_BASE + offset + count - 1, out)
        j = k - shows
        block, at = np.divmod(j, size + 1)
        out = np.where(play & (j >= 0) & (j < scouts), SA.SCOUT_BASE + block * SA.INSERTS + at, out)
        if half_mask is not None:
            j = (k - shows - scouts)[ss]
            pick = np.argmax(np.cumsum(half_mask, 1, dtype=np.int16) > j[:, None], 1)
            out[ss] = np.where(j >= 0, SA.SCOUT_SHOW_BASE + pick, out[ss])
        h = np.nonzero(half & play)[0]
        if len(h):  # a show half: the canonical shows of the hand after the insertion
            out[h] = self._sample_show_half(rng, h, fewest[h], most[h])
        return out

    def _sample_show_half(
        self, rng: np.random.Generator, h: IntArray, fewest: SmallArray, most: SmallArray
    ) -> IntArray:
        """Uniform over the canonical show halves (``_show_half_mask``) without the grid:
        per start place a range of counts, less the one folded count."""
        at = self.half_at[h, None]
        starts = _POS[None, :_STARTS]
        folded = np.where(starts < at, at - starts, np.where((starts == at) & (at > 0), 1, 0))
        excluded = (folded > 0) & (folded >= fewest) & (folded <= most)
        per_start = np.maximum(most - fewest + 1, 0) - excluded
        k = (rng.random(len(h)) * per_start.sum(1)).astype(np.int64)
        cum = np.cumsum(per_start, 1)
        rows = np.arange(len(h))
        start = np.argmax(cum > k[:, None], 1)
        count = fewest[rows, start] + k - (cum[rows, start] - per_start[rows, start])
        count += excluded[rows, start] & (count >= folded[rows, start])
        out: IntArray = SA.SHOW_BASE + start * SA.MAX_HAND - start * (start - 1) // 2 + count - 1
        return out

    def _show_half_mask(self, h: IntArray) -> BoolArray:
        """(n, 1035): the legal show ids (from 2) of games ``h`` waiting for a show half."""
        seat = self.current[h]
        runs = _Runs(self.top[h, seat])
        at = self.half_at[h, None]
        folded = ((SHOW_COUNT == 1) & (at == SHOW_START) & (at > 0)) | (at == _STOP)
        out: BoolArray = runs.shows(self.size[h, seat], self.table_key[h]) & ~folded
        return out

    # -- stepping -----------------------------------------------------------------------
    def step(self, actions: IntArray) -> IntArray:
        """Apply one learning id per game (none where a game is over or the id is -1); returns
        the change of every seat's total (B, P).

        Trusted path: the ids must be legal (see :meth:`legal_mask`).
        """
        actions = np.asarray(actions, dtype=np.int64)
        before = self.totals.copy()
        seat = self.to_move()
        phase = self.phase.copy()
        flip = np.nonzero((phase == FLIP) & (actions >= 0))[0]
        if len(flip):
            self._flip(flip, seat[flip], actions[flip] == SA.FLIP)
        play = phase == PLAY
        show = np.nonzero(play & (actions >= SA.SHOW_BASE) & (actions < SA.SCOUT_BASE))[0]
        scout = np.nonzero(play & (actions >= SA.SCOUT_BASE))[0]
        if len(scout):
            self._scout(scout, seat[scout], actions[scout])
        if len(show):
            self._show(show, seat[show], actions[show])
        return self.totals - before

    def _flip(self, g: IntArray, seat: IntArray, turn: BoolArray) -> None:
        t = g[turn]
        if len(t):  # S-5: mirrored order, every card shows its other number
            s = seat[turn]
            size = self.size[t, s]
            src = np.where(size[:, None] > _POS, size[:, None] - 1 - _POS, _POS)
            top = _gather(self.top[t, s], src)
            bottom = _gather(self.bottom[t, s], src)
            inside = size[:, None] > _POS
            self.top[t, s] = np.where(inside, bottom, top)
            self.bottom[t, s] = np.where(inside, top, bottom)
        self.pending[g, seat] = False
        self.phase[g[~self.pending[g].any(1)]] = PLAY

    def _show(self, g: IntArray, seat: IntArray, ids: IntArray) -> None:
        start, count = ID_START[ids], ID_COUNT[ids]
        top, bottom, size = self.top[g, seat], self.bottom[g, seat], self.size[g, seat]
        take = np.minimum(start[:, None] + _POS[None, :TABLE], W - 1)
        old = self.table_size[g]
        self.collected[g, seat] += old  # S-6: the beaten set goes to the score pile
        self.table_top[g] = _gather(top, take)
        self.table_bottom[g] = _gather(bottom, take)
        self.table_size[g] = count
        self.table_key[g] = set_key(self.table_top[g], count)
        self.owner[g] = seat
        src = np.minimum(_POS[None, :] + np.where(_POS[None, :] >= start[:, None], count[:, None], 0), W - 1)
        left = size - count
        inside = _POS[None, :] < left[:, None]
        self.top[g, seat] = np.where(inside, _gather(top, src), PAD)
        self.bottom[g, seat] = np.where(inside, _gather(bottom, src), PAD)
        self.size[g, seat] = left
        self.half_at[g] = -1
        empty = left == 0
        if empty.any():
            self._end_round(g[empty], HAND_EMPTY)  # S-10 (a), S-15 (a)
        self._pass_turn(g[~empty], seat[~empty])

    def _scout(self, g: IntArray, seat: IntArray, ids: IntArray) -> None:
        end, turn, at = ID_END[ids], ID_TURN[ids], ID_AT[ids]
        n = self.table_size[g]
        pos = np.where(end == 0, 0, n - 1)
        live, other = self.table_top[g, pos], self.table_bottom[g, pos]
        live, other = np.where(turn, other, live), np.where(turn, live, other)
        shift = np.minimum(_POS[None, :TABLE] + (end == 0)[:, None], TABLE - 1)
        self.table_top[g] = _gather(self.table_top[g], shift)
        self.table_bottom[g] = _gather(self.table_bottom[g], shift)
        n = n - 1
        self.table_size[g] = n
        self.table_key[g] = set_key(self.table_top[g], n)
        top, bottom, size = self.top[g, seat], self.bottom[g, seat], self.size[g, seat]
        src = np.maximum(_POS[None, :] - (_POS[None, :] > at[:, None]), 0)
        here = _POS[None, :] == at[:, None]
        inside = _POS[None, :] <= size[:, None]
        self.top[g, seat] = np.where(here, live[:, None], np.where(inside, _gather(top, src), PAD))
        self.bottom[g, seat] = np.where(here, other[:, None], np.where(inside, _gather(bottom, src), PAD))
        self.size[g, seat] = size + 1
        p = self.players
        if p != 2:
            self.tokens[g, self.owner[g]] += 1  # S-8: the owner's scout token
        self.owner[g] = np.where(n > 0, self.owner[g], -1)  # S-8, S-10: an empty set has no owner
        half = ids >= SA.SCOUT_SHOW_BASE
        if half.any():  # S-9: the same seat shows next; the chip is spent
            h = g[half]
            self.chips[h, seat[half]] = 0
            self.half_at[h] = at[half]
        plain, ps = g[~half], seat[~half]
        if p == 2:  # S-14: the chip pays, the scout moves again
            self.chips[plain, ps] -= 1
            stuck = ~self._can_act(plain, ps)
            if stuck.any():
                self._end_round(plain[stuck], STUCK)  # S-15 (c)
        else:
            self._pass_turn(plain, ps)

    def _can_act(self, g: IntArray, seat: IntArray) -> BoolArray:
        """S-15 (c), two players: the seat can scout (a set and a chip) or show."""
        scout = (self.table_size[g] > 0) & (self.chips[g, seat] > 0)
        runs = _Runs(self.top[g, seat])
        out: BoolArray = scout | (runs.best(self.size[g, seat]) > self.table_key[g])
        return out

    def _pass_turn(self, g: IntArray, seat: IntArray) -> None:
        if not len(g):
            return
        nxt = (seat + 1) % self.players
        self.current[g] = nxt
        if self.players == 2:
            ended = ~self._can_act(g, nxt)  # S-15 (c)
            reason = STUCK
        else:
            ended = (self.owner[g] == nxt) & (self.table_size[g] > 0)  # S-10 (b)
            reason = ALL_SCOUTED
        if ended.any():
            self._end_round(g[ended], reason)

    def _end_round(self, g: IntArray, ended_by: int) -> None:
        p = self.players
        exempt = self.owner[g] if ended_by in (ALL_SCOUTED, STUCK) else np.full(len(g), -1)  # S-11, S-15
        bonus = self.chips[g] if p == 2 else self.tokens[g]  # S-16 / S-11
        seats = np.arange(p)[None, :]
        hand = np.where(seats == exempt[:, None], 0, self.size[g])
        self.totals[g] += self.collected[g] + bonus - hand
        last = self.round[g] + 1 >= self.rounds
        self.phase[g[last]] = OVER  # S-12
        more = g[~last]
        if len(more):
            rounds = self.round[more]
            for r in np.unique(rounds):
                self._deal(more[rounds == r], int(r) + 1)
