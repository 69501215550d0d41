"""A batched Waschbär-Schmaus engine: B games stepped at once with numpy (docs/rl.md).

Same rules as the reference engine (W-1 .. W-18, default rule options), checked
against it on the same action sequences in ``tests/rl/test_batched_schmaus.py``. Action
ids are the engine's (and :mod:`~spieltisch.rl.schmaus.obs`'): 161 lays, 5
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
from typing import Any

import numpy as np
import numpy.typing as npt

from spieltisch.engine import State, get_game
from spieltisch.engine.base import shuffle
from spieltisch.engine.schmaus import Discard, Play, Target, Times5
from spieltisch.engine.schmaus.cards import IDS as CARD_IDS
from spieltisch.engine.schmaus.cards import KIND as CARD_KIND
from spieltisch.engine.schmaus.state import reshuffle_rng
from spieltisch.rl.batching import BatchedGames, check_mask_out

IntArray = npt.NDArray[np.integer[Any]]
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
PLAY_COUNTS = np.zeros((NUM_PLAYS, KINDS), dtype=np.int16)
for _i, _p in enumerate(_plays):
    _cards = _p.cards  # type: ignore[attr-defined]
    PLAY_SIZE[_i] = len(_cards)
    PLAY_CARDS[_i, : len(_cards)] = _cards
    for _k in _cards:
        PLAY_COUNTS[_i, _k] += 1
PLAY_ID = {tuple(int(x) for x in PLAY_CARDS[i, : PLAY_SIZE[i]]): i for i in range(NUM_PLAYS)}
PLAY_FOOD = (PLAY_COUNTS * VALUE).sum(1)
"""Per lay: the face value of its food cards."""
PLAY_BASE = (PLAY_COUNTS * BASE).sum(1)
"""Per lay: the base values of its effect cards (W-12)."""
PLAY_EFFECT = np.where(PLAY_COUNTS[:, F_KINDS:].any(1), np.argmax(PLAY_COUNTS[:, F_KINDS:], 1) + F_KINDS, -1)
"""Per lay: its effect card (at most one, W-4), -1 for none."""
_EFFECT_BIT = np.zeros(KINDS + 1, dtype=np.int64)
_EFFECT_BIT[F_KINDS:KINDS] = 1 << np.arange(KINDS - F_KINDS)
PLAY_BITS = _EFFECT_BIT[PLAY_EFFECT]
"""Per lay: one bit for its effect card (bit k - 5 for kind k)."""
PLAY_FOODKINDS = PLAY_COUNTS[:, :F_KINDS] > 0
PLAY_NFOOD = PLAY_COUNTS[:, :F_KINDS].sum(1).astype(np.int16)
PLAY_NEFFECTS = PLAY_COUNTS[:, F_KINDS:].sum(1).astype(np.int16)
PLAY_ONLY = np.where(PLAY_FOODKINDS.sum(1) == 1, np.argmax(PLAY_FOODKINDS, 1), -1)
"""Per lay: its one food kind when it has exactly one (the forced ×5 choice, W-11)."""
PLAY_CARDS_FLAT = np.where(PLAY_CARDS >= 0, PLAY_CARDS, -1)
MAX_DRAW_WINDOW = 3 + int(DECK[F_KINDS:].sum())
"""W-5 never draws more cards than this: three food cards past every effect card."""
IS_FOOD = np.arange(KINDS) < F_KINDS
_PLACES = np.arange(MAX_CARDS)
_NARROW = 4
"""The first W-5 window: most short hands need one to four cards."""
_FOOD_EFFECT_CODE = np.array([1] * F_KINDS + [32] * (KINDS - F_KINDS) + [0], dtype=np.int16)
"""Per card kind (12 = none): 1 for a food card, 32 for an effect card."""
_KIND_RANGE = np.arange(KINDS)

# Lays depend on the hand only through counts capped at 3 (food) and 1 (effects).
_CAP = np.array([3] * F_KINDS + [1] * (KINDS - F_KINDS), dtype=np.int64)
_RADIX = _CAP + 1
_WEIGHT = np.concatenate([[1], np.cumprod(_RADIX)[:-1]]).astype(np.int64)
NUM_KEYS = int(np.prod(_RADIX))
_WEIGHT32 = _WEIGHT.astype(np.int32)


def hand_key(hands: IntArray) -> IntArray:
    """The lookup key of hands (..., 12) -> (...)."""
    key: IntArray = np.einsum("...k,k->...", np.minimum(hands, _CAP).astype(np.int32), _WEIGHT32)
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
    return mask, order.astype(np.uint8), number.astype(np.int64)  # compact: random access by hand key


def _can_play_full(hands: IntArray) -> BoolArray:
    food = hands[..., :F_KINDS].sum(-1)
    full: BoolArray = (food >= 3) | ((food == 2) & (hands[..., F_KINDS:].sum(-1) > 0))
    return full


def _full(food: IntArray, effects: IntArray) -> BoolArray:
    """W-4: option A or B is possible with these many food and effect cards."""
    out: BoolArray = (food >= 3) | ((food == 2) & (effects > 0))
    return out


Shuffler = Callable[[int, int, int], Sequence[int]]
"""``(game index, reshuffle number from 1, pile size) -> permutation`` (W-17)."""


def engine_shuffler(seeds: Sequence[int]) -> Shuffler:
    """A :data:`Shuffler` that reshuffles game ``g`` as the reference engine reshuffles the game
    of seed ``seeds[g]`` (W-17), for games started from the engine's deals
    (:meth:`BatchedSchmaus.load_states`)."""

    def order(g: int, number: int, size: int) -> list[int]:
        out = list(range(size))
        shuffle(out, reshuffle_rng(seeds[g], number))
        return out

    return order


class BatchedSchmaus(BatchedGames):
    """B games of Waschbär-Schmaus with the default rule options, ``players`` seats each."""

    _over = OVER

    def __init__(
        self,
        batch: int,
        players: int,
        seed: int = 0,
        shuffler: Shuffler | None = None,
    ) -> None:
        super().__init__(batch, players, seed, "Waschbär-Schmaus", "W-1")
        self.shuffler = shuffler
        b, p = batch, players
        self.rows = np.arange(b)
        self.seats = np.arange(p)
        self.hands = np.zeros((b, p, KINDS), dtype=np.int16)
        self.food = np.zeros((b, p), dtype=np.int16)  # food cards in each hand (W-4)
        self.effects = np.zeros((b, p), dtype=np.int16)  # effect cards in each hand
        self.pile = np.zeros((b, MAX_CARDS), dtype=np.int16)  # the top is pile[pile_len - 1]
        self.pile_len = np.zeros(b, dtype=np.int64)
        # face up, in the order laid; one spare place takes the writes of absent cards
        self.disc = np.zeros((b, MAX_CARDS + 1), dtype=np.int16)
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
        self._deal_all()

    # -- setup ------------------------------------------------------------------
    def reset_done(self, which: BoolArray | None = None) -> None:
        """Deal new games where ``which`` (default: every game that is over)."""
        idx = self._to_deal(which)
        if not len(idx):
            return
        decks = self.rng.permuted(np.broadcast_to(DECK_CARDS, (len(idx), MAX_CARDS)), axis=1)
        k = HAND_SIZE * self.players
        hands = _count_kinds(decks[:, :k].reshape(len(idx) * self.players, HAND_SIZE))
        hands = hands.reshape(len(idx), self.players, KINDS)
        piles = decks[:, k:][:, ::-1]
        self.load(idx, hands, piles, np.full(len(idx), piles.shape[1]))

    def load(self, idx: IntArray, hands: IntArray, piles: IntArray, sizes: IntArray) -> None:
        """Start games ``idx`` from dealt hands (n, P, 12) and draw piles (n, L) of ``sizes``
        cards each, the top card last (W-3), before W-5 is applied."""
        self.hands[idx] = hands
        self.food[idx] = hands[..., :F_KINDS].sum(-1)
        self.effects[idx] = hands[..., F_KINDS:].sum(-1)
        self.pile[idx] = 0
        self.pile[idx, : piles.shape[1]] = piles
        self.pile_len[idx] = sizes
        self.disc_len[idx] = 0
        self.scores[idx] = 0
        self.round[idx] = 1
        self.reshuffles[idx] = 0
        self._start_round(np.asarray(idx))

    def load_states(self, idx: IntArray, states: Sequence[State]) -> None:
        """Start games ``idx`` from the deals of new reference-engine games ``states`` (W-3;
        their hands and draw piles, read with ``to_json``: for replaying the engine's games,
        never for an agent)."""
        data = [s.to_json() for s in states]
        hands = np.array([[[h.count(k) for k in CARD_IDS] for h in d["hands"]] for d in data])
        sizes = np.array([len(d["draw_pile"]) for d in data])
        piles = np.zeros((len(data), int(sizes.max())), dtype=np.int64)
        for i, d in enumerate(data):
            piles[i, : sizes[i]] = [CARD_KIND[c] for c in reversed(d["draw_pile"])]
        self.load(np.asarray(idx), hands, piles, sizes)

    # -- drawing (W-17) -----------------------------------------------------------
    def _reshuffle_under(self, games: IntArray) -> None:
        """W-17 for games whose pile will run out during the current draws: the discard
        pile, shuffled, goes *under* the cards still in the pile (the same draws as
        reshuffling when the pile is empty, as no card is discarded while drawing)."""
        sizes = self.disc_len[games]
        self.reshuffles[games] += 1
        if self.shuffler is not None:
            shuffled: IntArray = np.zeros((len(games), MAX_CARDS), dtype=np.int16)
            for i, g in enumerate(games):
                size = int(sizes[i])
                perm = np.asarray(self.shuffler(int(g), int(self.reshuffles[g]), size), dtype=np.int64)
                shuffled[i, :size] = self.disc[g, perm]
        else:  # one random permutation of each game's first ``size`` cards
            keys = self.rng.random((len(games), MAX_CARDS))
            keys[_PLACES[None, :] >= sizes[:, None]] = 2.0
            shuffled = self.disc[games[:, None], np.argsort(keys, axis=1)]
        old = self.pile[games]
        under = _PLACES[None, :] < sizes[:, None]
        self.pile[games] = np.where(
            under, shuffled, np.take_along_axis(old, np.maximum(_PLACES - sizes[:, None], 0), 1)
        )
        self.pile_len[games] += sizes
        self.disc_len[games] = 0

    def _draw(self, g: IntArray, counts: IntArray) -> None:
        """Games ``g`` draw ``counts`` (n, P) cards per seat, in seat order (W-17):
        every game's draws are one slice off the top of its pile, taken at once."""
        total = counts.sum(1)
        short = (self.pile_len[g] < total) & (self.disc_len[g] > 0)
        if short.any():
            self._reshuffle_under(g[short])
        after = np.minimum(np.cumsum(counts, 1), self.pile_len[g][:, None])  # both piles empty: no draw
        c = np.diff(after, axis=1, prepend=0)
        top = self.pile_len[g][:, None] - 1 - (after - c)  # each seat's first card
        for j in range(int(c.max(initial=0))):
            card = self.pile.ravel().take(g[:, None] * MAX_CARDS + np.maximum(top - j, 0))
            seat = (g[:, None] * self.players + self.seats[None, :]).ravel()
            has = (c > j).ravel()
            card = card.ravel()
            self.hands.ravel()[seat * KINDS + card] += has  # one card per seat: no repeats
            self.food.ravel()[seat] += has & (card < F_KINDS)
            self.effects.ravel()[seat] += has & (card >= F_KINDS)
        self.pile_len[g] -= after[:, -1]

    # -- flow -----------------------------------------------------------------------
    def _start_round(self, g: IntArray) -> None:
        self.plays[g] = -1
        self.targets[g] = -1
        self.x5[g] = -1
        self.choosing[g] = False
        self.phase[g] = PLAY
        self._short_draws(g)
        self._ask_discards(g, before_play=True)

    def _short_draws(self, g: IntArray) -> None:
        """W-5, in seat order (W-17): draw one card at a time until option A or B is possible.

        The cards a seat draws are read off the top of its pile at once: first the top
        few cards (usually enough), else the top 17, else (the pile runs out) the
        discards are reshuffled under the pile first."""
        need = ~_full(self.food[g], self.effects[g])
        games = np.nonzero(need.any(1))[0]
        if not len(games):
            return
        g, need = g[games], need[games]
        for seat in range(self.players):
            h = g[need[:, seat]]
            if not len(h):
                continue
            number, found, cards = self._short_window(h, seat, _NARROW)
            self._take(h[found], seat, number[found], cards[found])
            h = h[~found]
            if not len(h):
                continue
            number, found, cards = self._short_window(h, seat, MAX_DRAW_WINDOW)
            short = ~found & (self.disc_len[h] > 0)
            if short.any():
                self._reshuffle_under(h[short])
                again, found_again, cards_again = self._short_window(h[short], seat, MAX_DRAW_WINDOW)
                number[short], found[short], cards[short] = again, found_again, cards_again
            number = np.where(found, number, self.pile_len[h])  # both piles empty: all there is
            self._take(h, seat, number, cards)

    def _take(self, h: IntArray, seat: int, number: IntArray, cards: IntArray) -> None:
        """Games ``h`` draw the top ``number`` cards (``cards``: the pile's top, W-17) for ``seat``."""
        if not len(h):
            return
        taken = np.where(_PLACES[None, : cards.shape[1]] < number[:, None], cards, KINDS)
        drawn = _count_kinds(taken)
        self.hands.ravel()[((h * self.players + seat) * KINDS)[:, None] + _KIND_RANGE] += drawn
        self.food[h, seat] += drawn[:, :F_KINDS].sum(1, dtype=np.int16)
        self.effects[h, seat] += drawn[:, F_KINDS:].sum(1, dtype=np.int16)
        self.pile_len[h] -= number

    def _short_window(self, h: IntArray, seat: int, width: int) -> tuple[IntArray, BoolArray, IntArray]:
        """How many of the top ``width`` cards of the pile make a lay possible (W-5),
        whether they do, and those cards (12 past the pile's end)."""
        place = self.pile_len[h][:, None] - 1 - _PLACES[None, :width]
        cards = np.where(
            place >= 0, self.pile.ravel().take(h[:, None] * MAX_CARDS + np.maximum(place, 0)), KINDS
        )
        # food and effect cards drawn so far, packed as food + 32 * effects (at most 17 each)
        drawn = np.cumsum(_FOOD_EFFECT_CODE[cards], 1)
        food = self.food[h, seat][:, None] + (drawn & 31)
        effects = self.effects[h, seat][:, None] + (drawn >> 5)
        ok = _full(food, effects)
        number: IntArray = np.argmax(ok, 1) + 1
        found: BoolArray = np.asarray(ok.any(1))
        return number, found, cards

    def _ask_discards(self, g: IntArray, before_play: bool) -> None:
        must = np.maximum(0, self.food[g] + self.effects[g] - HAND_LIMIT)
        self.must[g] = must
        self.sealed_len[g] = 0
        self.before_play[g] = before_play
        discard = (must > 0).any(1)
        self.phase[g[discard]] = DISCARD
        if not before_play:
            nxt = g[~discard]
            if len(nxt):
                self.round[nxt] += 1
                self._start_round(nxt)

    def _reveal(self, g: IntArray) -> None:
        empty = (self.food[g] + self.effects[g]) == 0
        if empty.any():  # W-6, seat order, before the reveal
            e = np.nonzero(empty.any(1))[0]
            self._draw(g[e], EMPTY_DRAW * empty[e])
        plays = self.plays[g]
        bits = PLAY_BITS[plays]
        laid = np.bitwise_or.reduce(bits, axis=1)
        guardian = (laid >> (GUARDIAN - F_KINDS)) & 1 > 0
        hunter = ((laid >> (HUNTER - F_KINDS)) & 1 > 0) & ~guardian
        grocer = (PLAY_EFFECT[plays] == GROCER) & ~(guardian | hunter)[:, None]
        times5 = (PLAY_EFFECT[plays] == X5) & ~hunter[:, None]
        targets = self.targets[g]
        if self.players == 2:
            targets = np.where(grocer, 1 - self.seats[None, :], targets)  # W-9: forced target
            self.targets[g] = targets
        x5 = np.where(times5 & (PLAY_ONLY[plays] >= 0), PLAY_ONLY[plays], self.x5[g])
        self.x5[g] = x5
        choosing = (grocer & (targets < 0)) | (times5 & (x5 < 0))
        self.choosing[g] = choosing
        choose = choosing.any(1)
        self.phase[g[choose]] = TARGET
        rest = g[~choose]
        if len(rest):
            self._score(rest)

    def _score(self, g: IntArray) -> None:
        p = self.players
        plays = self.plays[g]
        effect = PLAY_EFFECT[plays]
        laid = np.bitwise_or.reduce(PLAY_BITS[plays], axis=1)
        guardian = (laid >> (GUARDIAN - F_KINDS)) & 1 > 0
        hunter = ((laid >> (HUNTER - F_KINDS)) & 1 > 0) & ~guardian
        grocer = (effect == GROCER) & ~(guardian | hunter)[:, None]
        zeroed = (grocer[:, :, None] & (self.targets[g][:, :, None] == self.seats[None, None, :])).any(
            1
        )  # W-9
        garbage = np.where(guardian, 0, (effect == GARBAGE).sum(1))  # W-10
        doubling = (effect == X2).sum(1)  # W-11
        food = PLAY_FOOD[plays]
        x5card = np.maximum(self.x5[g], 0)
        total = np.where(effect == X5, food + 4 * VALUE[x5card], np.where(effect == X3, 3 * food, food))
        total = np.where(zeroed, 0, total) << doubling[:, None]
        individual = (total >> garbage[:, None]) + PLAY_BASE[plays]  # W-12, W-13
        individual = np.where(hunter[:, None], 0, individual)  # W-8
        pot = individual.sum(1)  # W-14
        best = individual == individual.max(1, keepdims=True)
        share = pot // best.sum(1)
        self.scores[g] += np.where(best, share[:, None], 0)
        # W-15: the laid cards go to the discard pile, in seat order
        cards = PLAY_CARDS_FLAT[plays].reshape(len(g), 3 * p)
        laid_card = cards >= 0
        place = np.where(laid_card, self.disc_len[g][:, None] + np.cumsum(laid_card, 1) - 1, MAX_CARDS)
        self.disc[g[:, None], place] = cards
        self.disc_len[g] += laid_card.sum(1)
        lowest = individual == individual.min(1, keepdims=True)
        self._draw(g, LOSER_DRAWS * lowest)
        self.plays[g] = -1
        over = self.round[g] >= self.rounds[g]
        self.phase[g[over]] = OVER  # W-18
        more = g[~over]
        if len(more):
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

    def legal_mask(self, out: BoolArray | None = None) -> BoolArray:
        """(B, P, 183): the legal action ids of every deciding seat (all False for the others).

        A new array every call (a learner may keep it), unless ``out`` is given: a writable
        bool array of that shape (e.g. a slice of a rollout buffer), every entry of which is
        overwritten and which is returned."""
        if out is not None:
            check_mask_out(out, (self.batch, self.players, NUM_ACTIONS))
            out[...] = self.legal_mask()
            return out
        b, p = self.batch, self.players
        out = np.zeros((b, p, NUM_ACTIONS), dtype=bool)
        deciding = self.deciding()
        mask, _, _ = play_tables()
        play = deciding & (self.phase[:, None] == PLAY)
        out[:, :, :NUM_PLAYS] = mask[hand_key(self.hands)] & play[:, :, None]
        target = deciding & (self.phase[:, None] == TARGET)
        if target.any():
            plays = np.maximum(self.plays, 0)
            grocer = target & (PLAY_EFFECT[plays] == GROCER) & (self.targets < 0)
            out[:, :, TARGET_BASE : TARGET_BASE + p] = grocer[:, :, None] & (
                self.seats[None, :] != self.seats[:, None]
            )
            x5 = target & ~grocer
            out[:, :, X5_BASE : X5_BASE + F_KINDS] = x5[:, :, None] & PLAY_FOODKINDS[plays]
        discard = deciding & (self.phase[:, None] == DISCARD)
        if discard.any():
            out[:, :, DISCARD_BASE:] = discard[:, :, None] & self._discardable(
                self.hands, self.before_play[:, None]
            )
        return out

    @staticmethod
    def _discardable(hands: IntArray, before_play: BoolArray) -> BoolArray:
        """(..., 12): the kinds a seat may discard (W-16; before laying, W-5 keeps a legal play)."""
        food = hands[..., :F_KINDS].sum(-1)[..., None]
        effects = hands[..., F_KINDS:].sum(-1)[..., None]
        keep = before_play[..., None] & _full(food, effects)
        ok = _full(food - IS_FOOD, effects - ~IS_FOOD)
        out: BoolArray = (hands > 0) & (~keep | ok)
        return out

    def sample_legal(self, rng: np.random.Generator) -> IntArray:
        """A uniformly random legal action for every seat (-1 where a seat does not decide)."""
        b, p = self.batch, self.players
        out = np.full((b, p), -1, dtype=np.int64)
        playing = (self.phase == PLAY)[:, None] & (self.plays < 0)
        if playing.any():
            _, order, number = play_tables()
            keys = hand_key(self.hands)
            pick = (rng.random((b, p)) * number[keys]).astype(np.int64)
            out = np.where(playing, order[keys, pick].astype(np.int64), -1)
        target = np.nonzero(self.phase == TARGET)[0]
        if len(target):
            choosing = self.choosing[target]
            plays = np.maximum(self.plays[target], 0)
            grocer = choosing & (PLAY_EFFECT[plays] == GROCER) & (self.targets[target] < 0)
            other = (rng.random(grocer.shape) * (p - 1)).astype(np.int64)
            other += other >= self.seats[None, :]
            kinds = PLAY_FOODKINDS[plays]
            kind = _pick(rng, kinds)
            choice = np.where(grocer, TARGET_BASE + other, X5_BASE + kind)
            out[target] = np.where(choosing, choice, -1)
        discard = np.nonzero(self.phase == DISCARD)[0]
        if len(discard):
            kinds = self._discardable(self.hands[discard], self.before_play[discard, None])
            choice = DISCARD_BASE + _pick(rng, kinds)
            out[discard] = np.where(self.must[discard] > 0, choice, -1)
        return out

    # -- stepping ----------------------------------------------------------------
    def play_random(self, rng: np.random.Generator) -> tuple[IntArray, IntArray]:
        """Every deciding seat plays a uniformly random legal action: ``actions =
        sample_legal(rng)``, then ``change = step(actions)``; returns ``(actions, change)``
        (B, P) each, exactly as those two calls would (same ``rng`` numbers, same games). The
        numba backend does it in one pass over the games (faster than the two calls); for
        random opponents, data generation and benchmarks."""
        actions = self.sample_legal(rng)
        return actions, self.step(actions)

    def step(self, actions: IntArray) -> IntArray:
        """Apply (B, P) actions at every game's current node; returns the score change (B, P).

        Trusted path: the actions of deciding seats must be legal (see :meth:`legal_mask`).
        """
        before = self.scores.copy()
        phase = self.phase.copy()
        deciding = self.deciding()
        play = (phase == PLAY)[:, None] & deciding
        if play.any():
            laid = np.where(play, actions, 0)
            self.hands -= PLAY_COUNTS[laid] * play[:, :, None]
            self.food -= PLAY_NFOOD[laid] * play
            self.effects -= PLAY_NEFFECTS[laid] * play
            self.plays[...] = np.where(play, actions, self.plays)
            self._reveal(np.nonzero((phase == PLAY) & (self.plays >= 0).all(1))[0])
        t = np.nonzero(phase == TARGET)[0]
        if len(t):
            target = deciding[t]
            a = actions[t]
            is_target = a < X5_BASE
            self.targets[t] = np.where(target & is_target, a - TARGET_BASE, self.targets[t])
            self.x5[t] = np.where(target & ~is_target, a - X5_BASE, self.x5[t])
            self.choosing[t] &= ~target
            done = t[~self.choosing[t].any(1)]
            if len(done):
                self.phase[done] = PLAY
                self._score(done)
        d = np.nonzero(phase == DISCARD)[0]
        if len(d):
            self._discard(d, deciding[d], actions[d] - DISCARD_BASE)
        return self.scores - before

    def _discard(self, d: IntArray, seats: BoolArray, cards: IntArray) -> None:
        rows, s = np.nonzero(seats)
        g, k = d[rows], cards[rows, s]
        self.hands[g, s, k] -= 1
        self.food[g, s] -= k < F_KINDS
        self.effects[g, s] -= k >= F_KINDS
        self.sealed[g, s, self.sealed_len[g, s]] = k
        self.sealed_len[g, s] += 1
        self.must[g, s] -= 1
        done = d[~(self.must[d] > 0).any(1)]
        if not len(done):
            return
        for seat in range(self.players):  # W-16: revealed together, in seat order
            for j in range(int(self.sealed_len[done, seat].max(initial=0))):
                h = done[self.sealed_len[done, seat] > j]
                self.disc[h, self.disc_len[h]] = self.sealed[h, seat, j]
                self.disc_len[h] += 1
        self.sealed_len[done] = 0
        before = done[self.before_play[done]]
        self.phase[before] = PLAY
        after = done[~self.before_play[done]]
        if len(after):
            self.round[after] += 1
            self._start_round(after)


def _count_kinds(cards: IntArray) -> IntArray:
    """(n, L) card kinds (12 = none) -> (n, 12) counts, in one ``bincount``."""
    n = len(cards)
    flat = (np.arange(n)[:, None] * (KINDS + 1) + cards).ravel()
    counts: IntArray = np.bincount(flat, minlength=n * (KINDS + 1)).reshape(n, KINDS + 1)[:, :KINDS]
    return counts


def _pick(rng: np.random.Generator, allowed: BoolArray) -> IntArray:
    """A uniformly random True place along the last axis (0 where there is none)."""
    number = allowed.sum(-1)
    pick = (rng.random(number.shape) * number).astype(np.int64)
    out: IntArray = np.argmax(np.cumsum(allowed, -1) > pick[..., None], -1)
    return out
