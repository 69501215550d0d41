"""A batched Waschbär-Schmaus engine: B games stepped at once with numpy (docs/rl.md).

Same rules as the reference engine (W-1 .. W-18, default rule options), checked
against it on the same action sequences in ``tests/rl/test_batched.py``. Action
ids are the engine's (and :mod:`~spieltisch.rl.schmaus_obs`'): 161 lays, 5
grocer targets, 5 ×5 choices, 12 one-card discards.

One :meth:`BatchedSchmaus.step` is one decision node of every game: all seats
that decide there (every seat for a lay, the grocers and ×5 players after the
reveal, the players over the hand limit) act at once; the others' actions are
ignored. Games that are over stay over until :meth:`BatchedSchmaus.reset_done`.

Randomness: deals and reshuffles (W-17) come from a ``numpy.random.Generator``
by default; ``shuffler`` replaces the reshuffle (the tests pass the reference
engine's own, so both shuffle alike).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import lru_cache

import numpy as np
import numpy.typing as npt

from spieltisch.engine import get_game
from spieltisch.engine.schmaus import Discard, Play, Target, Times5

IntArray = npt.NDArray[np.int64]
BoolArray = npt.NDArray[np.bool_]

KINDS = 12
F_KINDS = 5
X3, X2, X5, HUNTER, GARBAGE, GROCER, GUARDIAN = range(5, 12)
VALUE = np.array([1, 2, 3, 4, 5, 0, 0, 0, 0, 0, 0, 0], dtype=np.int64)
BASE = np.array([0, 0, 0, 0, 0, 3, 3, 3, 0, 0, 0, 3], dtype=np.int64)
DECK = np.array([15, 12, 6, 4, 3, 2, 2, 2, 2, 2, 2, 2], dtype=np.int64)
DECK_CARDS = np.repeat(np.arange(KINDS), DECK)
HAND_SIZE, LOSER_DRAWS, HAND_LIMIT, EMPTY_DRAW = 7, 2, 12, 2
MAX_CARDS = int(DECK.sum())

PLAY, TARGET, DISCARD, OVER = 0, 1, 2, 3


def _numbering() -> tuple[int, int, int, int]:
    game = get_game("schmaus")
    kinds = [type(game.action_from_id(i)) for i in range(game.num_actions(5))]
    return kinds.index(Target), kinds.index(Times5), kinds.index(Discard), len(kinds)


TARGET_BASE, X5_BASE, DISCARD_BASE, NUM_ACTIONS = _numbering()
NUM_PLAYS = TARGET_BASE

_plays = [get_game("schmaus").action_from_id(i) for i in range(NUM_PLAYS)]
assert all(isinstance(p, Play) for p in _plays)
PLAY_CARDS = np.full((NUM_PLAYS, 3), -1, dtype=np.int64)
PLAY_SIZE = np.zeros(NUM_PLAYS, dtype=np.int64)
PLAY_COUNTS = np.zeros((NUM_PLAYS, KINDS), dtype=np.int64)
for _i, _p in enumerate(_plays):
    _cards = _p.cards  # type: ignore[attr-defined]
    PLAY_SIZE[_i] = len(_cards)
    PLAY_CARDS[_i, : len(_cards)] = _cards
    for _k in _cards:
        PLAY_COUNTS[_i, _k] += 1
PLAY_ID = {tuple(int(x) for x in PLAY_CARDS[i, : PLAY_SIZE[i]]): i for i in range(NUM_PLAYS)}

# Lays depend on the hand only through counts capped at 3 (food) and 1 (effects).
_CAP = np.array([3] * F_KINDS + [1] * (KINDS - F_KINDS), dtype=np.int64)
_RADIX = _CAP + 1
_WEIGHT = np.concatenate([[1], np.cumprod(_RADIX)[:-1]]).astype(np.int64)
NUM_KEYS = int(np.prod(_RADIX))


def hand_key(hands: IntArray) -> IntArray:
    """The lookup key of hands (..., 12) -> (...)."""
    key: IntArray = (np.minimum(hands, _CAP) * _WEIGHT).sum(-1)
    return key


@lru_cache(maxsize=1)
def play_tables() -> tuple[BoolArray, IntArray, IntArray]:
    """Per hand key: the legal-lay mask (W-4, W-5), the sorted legal lay ids and their number."""
    keys = np.arange(NUM_KEYS)
    counts = (keys[:, None] // _WEIGHT[None, :]) % _RADIX[None, :]
    food = counts[:, :F_KINDS].sum(1)
    full = (food >= 3) | ((food == 2) & (counts[:, F_KINDS:].sum(1) > 0))
    mask = np.zeros((NUM_KEYS, NUM_PLAYS), dtype=bool)
    three = PLAY_SIZE == 3
    for start in range(0, NUM_KEYS, 8192):
        c = counts[start : start + 8192]
        ok = (c[:, None, :] >= PLAY_COUNTS[None, three, :]).all(-1)
        mask[start : start + 8192, np.nonzero(three)[0]] = ok
    mask[~full] = False  # W-4: three cards only when option A or B is possible
    for key in np.nonzero(~full)[0]:  # W-5: the one forced short lay, every food card held
        cards = tuple(int(k) for k in range(F_KINDS) for _ in range(counts[key, k]))
        mask[key, PLAY_ID[cards]] = True
    number = mask.sum(1)
    order = np.argsort(~mask, axis=1, kind="stable")[:, : int(number.max())]
    return mask, order.astype(np.int64), number.astype(np.int64)


def _can_play_full(hands: IntArray) -> BoolArray:
    food = hands[..., :F_KINDS].sum(-1)
    full: BoolArray = (food >= 3) | ((food == 2) & (hands[..., F_KINDS:].sum(-1) > 0))
    return full


Shuffler = Callable[[int, int, int], Sequence[int]]
"""``(game index, reshuffle number from 1, pile size) -> permutation`` (W-17)."""


class BatchedSchmaus:
    """B games of Waschbär-Schmaus with the default rule options, ``players`` seats each."""

    def __init__(
        self,
        batch: int,
        players: int,
        seed: int = 0,
        shuffler: Shuffler | None = None,
    ) -> None:
        if not 2 <= players <= 5:
            raise ValueError(f"Waschbär-Schmaus is for 2 to 5 players, not {players} (W-1)")
        if batch < 1:
            raise ValueError("the batch needs at least one game")
        self.batch, self.players = batch, players
        self.rng = np.random.default_rng(seed)
        self.shuffler = shuffler
        b, p = batch, players
        self.hands = np.zeros((b, p, KINDS), dtype=np.int64)
        self.pile = np.zeros((b, MAX_CARDS), dtype=np.int64)  # the top is pile[pile_len - 1]
        self.pile_len = np.zeros(b, dtype=np.int64)
        self.disc = np.zeros((b, MAX_CARDS), dtype=np.int64)  # face up, in the order laid
        self.disc_len = np.zeros(b, dtype=np.int64)
        self.scores = np.zeros((b, p), dtype=np.int64)
        self.round = np.ones(b, dtype=np.int64)
        self.rounds = np.full(b, 3 * players, dtype=np.int64)  # W-2
        self.phase = np.zeros(b, dtype=np.int64)
        self.plays = np.full((b, p), -1, dtype=np.int64)
        self.targets = np.full((b, p), -1, dtype=np.int64)
        self.x5 = np.full((b, p), -1, dtype=np.int64)
        self.choosing = np.zeros((b, p), dtype=bool)
        self.must = np.zeros((b, p), dtype=np.int64)
        self.sealed = np.zeros((b, p, MAX_CARDS), dtype=np.int64)
        self.sealed_len = np.zeros((b, p), dtype=np.int64)
        self.before_play = np.zeros(b, dtype=bool)
        self.reshuffles = np.zeros(b, dtype=np.int64)
        self.reset_done(np.ones(b, dtype=bool))

    # -- setup ------------------------------------------------------------------
    def reset_done(self, which: BoolArray | None = None) -> None:
        """Deal new games where ``which`` (default: every game that is over)."""
        which = self.phase == OVER if which is None else which
        idx = np.nonzero(which)[0]
        if not len(idx):
            return
        decks = self.rng.permuted(np.broadcast_to(DECK_CARDS, (len(idx), MAX_CARDS)), axis=1)
        k = HAND_SIZE * self.players
        hands = np.zeros((len(idx), self.players, KINDS), dtype=np.int64)
        for seat in range(self.players):
            part = decks[:, seat * HAND_SIZE : (seat + 1) * HAND_SIZE]
            hands[:, seat] = (part[:, :, None] == np.arange(KINDS)).sum(1)
        piles = decks[:, k:][:, ::-1]
        self.load(idx, hands, piles, np.full(len(idx), piles.shape[1]))

    def load(self, idx: IntArray, hands: IntArray, piles: IntArray, sizes: IntArray) -> None:
        """Start games ``idx`` from dealt hands (n, P, 12) and draw piles (n, L) of ``sizes``
        cards each, the top card last (W-3), before W-5 is applied."""
        self.hands[idx] = hands
        self.pile[idx] = 0
        self.pile[idx, : piles.shape[1]] = piles
        self.pile_len[idx] = sizes
        self.disc_len[idx] = 0
        self.scores[idx] = 0
        self.round[idx] = 1
        self.reshuffles[idx] = 0
        mask = np.zeros(self.batch, dtype=bool)
        mask[idx] = True
        self._start_round(mask)

    # -- drawing (W-17) -----------------------------------------------------------
    def _reshuffle(self, games: IntArray) -> None:
        sizes = self.disc_len[games]
        self.reshuffles[games] += 1
        if self.shuffler is not None:
            for g in games:
                size = int(self.disc_len[g])
                perm = np.asarray(self.shuffler(int(g), int(self.reshuffles[g]), size), dtype=np.int64)
                self.pile[g, :size] = self.disc[g, perm]
        else:  # one random permutation of each game's first ``size`` cards
            keys = self.rng.random((len(games), MAX_CARDS))
            keys[np.arange(MAX_CARDS)[None, :] >= sizes[:, None]] = 2.0
            perm = np.argsort(keys, axis=1)
            self.pile[games] = np.take_along_axis(self.disc[games], perm, axis=1)
        self.pile_len[games] = sizes
        self.disc_len[games] = 0

    def _draw_one(self, seat: int, g: IntArray) -> IntArray:
        """Games ``g`` (indices) draw one card each for ``seat``; returns those that got one."""
        empty = g[(self.pile_len[g] == 0) & (self.disc_len[g] > 0)]
        if len(empty):
            self._reshuffle(empty)
        got = g[self.pile_len[g] > 0]
        if len(got):
            top = self.pile_len[got] - 1
            self.hands[got, seat, self.pile[got, top]] += 1
            self.pile_len[got] = top
        return got

    def _draw(self, seat: int, count: int, games: BoolArray) -> None:
        g = np.nonzero(games)[0]
        for _ in range(count):
            if len(g):
                self._draw_one(seat, g)

    # -- flow -----------------------------------------------------------------------
    def _start_round(self, games: BoolArray) -> None:
        self.plays[games] = -1
        self.targets[games] = -1
        self.x5[games] = -1
        self.choosing[games] = False
        self.phase[games] = PLAY
        g = np.nonzero(games)[0]
        for seat in range(self.players):  # W-5, in seat order (W-17)
            need = g[~_can_play_full(self.hands[g, seat])]
            while len(need):
                got = self._draw_one(seat, need)
                need = got[~_can_play_full(self.hands[got, seat])]
        self._ask_discards(games, before_play=True)

    def _ask_discards(self, games: BoolArray, before_play: bool) -> None:
        must = np.maximum(0, self.hands.sum(-1) - HAND_LIMIT)
        self.must[games] = must[games]
        self.sealed_len[games] = 0
        self.before_play[games] = before_play
        discard = games & (must > 0).any(1)
        self.phase[discard] = DISCARD
        if not before_play:
            nxt = games & ~discard
            if nxt.any():
                self.round[nxt] += 1
                self._start_round(nxt)

    def _reveal(self, games: BoolArray) -> None:
        for seat in range(self.players):  # W-6, seat order, before the reveal
            empty = games & (self.hands[:, seat].sum(-1) == 0)
            if empty.any():
                self._draw(seat, EMPTY_DRAW, empty)
        counts = PLAY_COUNTS[self.plays]  # (B, P, 12)
        laid = counts.sum(1)
        guardian = laid[:, GUARDIAN] > 0
        hunter = (laid[:, HUNTER] > 0) & ~guardian
        grocer = (counts[:, :, GROCER] > 0) & ~(guardian | hunter)[:, None] & games[:, None]
        times5 = (counts[:, :, X5] > 0) & ~hunter[:, None] & games[:, None]
        if self.players == 2:
            forced = np.array([1, 0])
            self.targets = np.where(grocer, forced[None, :], self.targets)  # W-9: forced target
        kinds = (counts[:, :, :F_KINDS] > 0).sum(-1)
        only = np.argmax(counts[:, :, :F_KINDS] > 0, axis=-1)
        self.x5 = np.where(times5 & (kinds == 1), only, self.x5)
        self.choosing = np.where(
            games[:, None], (grocer & (self.targets < 0)) | (times5 & (self.x5 < 0)), self.choosing
        )
        choose = games & self.choosing.any(1)
        self.phase[choose] = TARGET
        rest = games & ~choose
        if rest.any():
            self._score(rest)

    def _score(self, games: BoolArray) -> None:
        g = np.nonzero(games)[0]
        p = self.players
        counts = PLAY_COUNTS[self.plays[g]]  # (n, P, 12)
        laid = counts.sum(1)
        guardian = laid[:, GUARDIAN] > 0
        hunter = (laid[:, HUNTER] > 0) & ~guardian
        zeroed = np.zeros((len(g), p), dtype=bool)
        if not guardian.all():
            active = ~guardian & ~hunter
            for seat in range(p):  # W-9
                hit = active & (counts[:, seat, GROCER] > 0)
                zeroed[hit, self.targets[g[hit], seat]] = True
        garbage = np.where(guardian, 0, laid[:, GARBAGE])  # W-10
        doubling = laid[:, X2]  # W-11
        food = (counts * VALUE).sum(-1)
        x5card = np.maximum(self.x5[g], 0)
        total = np.where(
            counts[:, :, X5] > 0,
            food + 4 * VALUE[x5card],
            np.where(counts[:, :, X3] > 0, 3 * food, food),
        )
        total = np.where(zeroed, 0, total) << doubling[:, None]
        individual = (total >> garbage[:, None]) + (counts * BASE).sum(-1)  # W-12, W-13
        individual = np.where(hunter[:, None], 0, individual)  # W-8
        pot = individual.sum(1)  # W-14
        best = individual == individual.max(1, keepdims=True)
        share = pot // best.sum(1)
        self.scores[g] += np.where(best, share[:, None], 0)
        for seat in range(p):  # W-15: the laid cards go to the discard pile, in seat order
            play = self.plays[g, seat]
            for j in range(3):
                has = PLAY_SIZE[play] > j
                h = g[has]
                self.disc[h, self.disc_len[h]] = PLAY_CARDS[play[has], j]
                self.disc_len[h] += 1
        lowest = individual == individual.min(1, keepdims=True)
        for seat in range(p):
            mask = np.zeros(self.batch, dtype=bool)
            mask[g[lowest[:, seat]]] = True
            self._draw(seat, LOSER_DRAWS, mask)
        self.plays[g] = -1
        over = games & (self.round >= self.rounds)
        self.phase[over] = OVER  # W-18
        more = games & ~over
        if more.any():
            self._ask_discards(more, before_play=False)

    # -- whose decision --------------------------------------------------------
    def deciding(self) -> BoolArray:
        """(B, P): the seats that decide at each game's current node."""
        phase = self.phase[:, None]
        out: BoolArray = (
            ((phase == PLAY) & (self.plays < 0))
            | ((phase == TARGET) & self.choosing)
            | ((phase == DISCARD) & (self.must > 0))
        )
        return out

    def legal_mask(self) -> BoolArray:
        """(B, P, 183): the legal action ids of every deciding seat (all False for the others)."""
        b, p = self.batch, self.players
        out = np.zeros((b, p, NUM_ACTIONS), dtype=bool)
        deciding = self.deciding()
        mask, _, _ = play_tables()
        play = deciding & (self.phase[:, None] == PLAY)
        out[:, :, :NUM_PLAYS] = mask[hand_key(self.hands)] & play[:, :, None]
        target = deciding & (self.phase[:, None] == TARGET)
        if target.any():
            counts = PLAY_COUNTS[np.maximum(self.plays, 0)]
            grocer = target & (counts[:, :, GROCER] > 0) & (self.targets < 0)
            seats = np.arange(p)
            out[:, :, TARGET_BASE : TARGET_BASE + p] = grocer[:, :, None] & (seats[None, :] != seats[:, None])
            x5 = target & ~grocer
            out[:, :, X5_BASE : X5_BASE + F_KINDS] = x5[:, :, None] & (counts[:, :, :F_KINDS] > 0)
        discard = deciding & (self.phase[:, None] == DISCARD)
        if discard.any():
            held = self.hands > 0
            keep = self.before_play[:, None] & _can_play_full(self.hands)
            ok = np.ones_like(held)
            for k in range(KINDS):
                rest = self.hands.copy()
                rest[:, :, k] -= 1
                ok[:, :, k] = _can_play_full(rest)
            out[:, :, DISCARD_BASE:] = discard[:, :, None] & held & (~keep[:, :, None] | ok)
        return out

    def sample_legal(self, rng: np.random.Generator) -> IntArray:
        """A uniformly random legal action for every seat (-1 where a seat does not decide)."""
        b, p = self.batch, self.players
        out = np.full((b, p), -1, dtype=np.int64)
        deciding = self.deciding()
        playing = deciding & (self.phase[:, None] == PLAY)
        if playing.any():
            _, order, number = play_tables()
            keys = hand_key(self.hands[playing])
            pick = (rng.random(len(keys)) * number[keys]).astype(np.int64)
            out[playing] = order[keys, pick]
        other = deciding & ~playing
        if other.any():
            mask = self.legal_mask()[other]
            r = rng.random(mask.shape) * mask
            out[other] = np.argmax(r, axis=-1)
        return out

    # -- stepping ----------------------------------------------------------------
    def step(self, actions: IntArray) -> IntArray:
        """Apply (B, P) actions at every game's current node; returns the score change (B, P).

        Trusted path: the actions of deciding seats must be legal (see :meth:`legal_mask`).
        """
        before = self.scores.copy()
        deciding = self.deciding()
        phase = self.phase.copy()
        play = (phase == PLAY)[:, None] & deciding
        if play.any():
            self.hands -= PLAY_COUNTS[np.where(play, actions, 0)] * play[:, :, None]
            self.plays = np.where(play, actions, self.plays)
            self._reveal((phase == PLAY) & (self.plays >= 0).all(1))
        target = (phase == TARGET)[:, None] & deciding
        if target.any():
            is_target = actions < X5_BASE
            self.targets = np.where(target & is_target, actions - TARGET_BASE, self.targets)
            self.x5 = np.where(target & ~is_target, actions - X5_BASE, self.x5)
            self.choosing &= ~target
            done = (phase == TARGET) & ~self.choosing.any(1)
            self.phase[done] = PLAY
            if done.any():
                self._score(done)
        discard = (phase == DISCARD)[:, None] & deciding
        if discard.any():
            self._discard(discard, actions - DISCARD_BASE, phase == DISCARD)
        return self.scores - before

    def _discard(self, seats: BoolArray, cards: IntArray, games: BoolArray) -> None:
        g, s = np.nonzero(seats)
        k = cards[g, s]
        self.hands[g, s, k] -= 1
        self.sealed[g, s, self.sealed_len[g, s]] = k
        self.sealed_len[g, s] += 1
        self.must[g, s] -= 1
        done = games & ~(self.must > 0).any(1)
        if not done.any():
            return
        for seat in range(self.players):  # W-16: revealed together, in seat order
            for j in range(int(self.sealed_len[done, seat].max(initial=0))):
                has = done & (self.sealed_len[:, seat] > j)
                h = np.nonzero(has)[0]
                self.disc[h, self.disc_len[h]] = self.sealed[h, seat, j]
                self.disc_len[h] += 1
        self.sealed_len[done] = 0
        before = done & self.before_play
        self.phase[before] = PLAY
        after = done & ~self.before_play
        if after.any():
            self.round[after] += 1
            self._start_round(after)
