"""The compiled (numba) backend of the batched Waschbär-Schmaus engine (docs/rl.md).

:class:`FastSchmaus` is a :class:`~spieltisch.rl.schmaus.batched.BatchedSchmaus` whose
:meth:`~FastSchmaus.step`, :meth:`~FastSchmaus.sample_legal`,
:meth:`~FastSchmaus.play_random`, :meth:`~FastSchmaus.deciding`,
:meth:`~FastSchmaus.legal_mask` and :meth:`~FastSchmaus.reset_done` are ``@njit`` loops
over the games of the batch (:mod:`spieltisch.rl.schmaus._batch_kernels`,
:mod:`~spieltisch.rl.schmaus._sample_kernels`), on the same arrays
(same names, shapes and values; narrower dtypes, ``FastSchmaus._dtypes``), so every other
method (observations, ``load``) is shared.

Same games for the same seed and actions as the numpy backend:

* ``sample_legal`` draws the numpy backend's uniform numbers from the given
  Generator's bit generator inside the kernel (:class:`_Source`), in its shapes and
  order, and turns them into actions with the same arithmetic (lays from small
  tables by food key, the same lay as the numpy backend's table of every hand key);
  ``play_random`` does the same and steps each game right after.
* ``reset_done`` shuffles the decks in the kernel exactly as numpy's ``permuted``
  does, and deals them.
* A W-17 reshuffle is the one random event inside a step. The kernel steps every
  game by itself; a game that needs one pauses at that point, and the paused games
  are reshuffled (54 keys each from the engine's Generator) by point, then game:
  the numpy backend's order. With a ``shuffler`` (a Python callable) a game that
  would reshuffle is put back exactly as it was and stepped by the numpy backend
  afterwards, together with the other such games and nobody else.

Needs the extra ``rl-fast`` (numba); without it :class:`FastSchmaus` says how to install it.
"""

from __future__ import annotations

from functools import cache
from typing import Any, ClassVar

import numpy as np
import numpy.typing as npt

from spieltisch.rl._numba import bitgen_addresses, kernels
from spieltisch.rl.batching import check_mask_out
from spieltisch.rl.schmaus import batched
from spieltisch.rl.schmaus.batched import (
    HAND_SIZE,
    MAX_CARDS,
    OVER,
    BatchedSchmaus,
    BoolArray,
    IntArray,
    Shuffler,
)

BATCH_KERNELS = "spieltisch.rl.schmaus._batch_kernels"
SAMPLE_KERNELS = "spieltisch.rl.schmaus._sample_kernels"
"""The modules of the kernels: stepping and dealing, and sampling and masks."""


@cache
def _tables() -> dict[str, Any]:
    """The tables the kernels read: per lay its food and effect cards, its effect card, its one
    food kind, food value, base value and cards (-1 for none), per card kind its value
    (``step``); the lay tables (``sample``, ``mask``) and the deck."""

    def table(t: IntArray) -> IntArray:
        return np.ascontiguousarray(t, dtype=np.int64)

    lays = _lay_tables()
    steps = (
        batched.PLAY_NFOOD, batched.PLAY_NEFFECTS, batched.PLAY_EFFECT, batched.PLAY_ONLY, batched.PLAY_FOOD,
        batched.PLAY_BASE, batched.PLAY_CARDS_FLAT, batched.VALUE,
    )  # fmt: skip
    return {
        "step_tables": tuple(table(t) for t in steps),
        "sample_tables": (lays, table(batched.PLAY_EFFECT), table(batched.PLAY_COUNTS)),
        "mask_tables": _mask_tables(short=lays[3]),
        "deck": table(batched.DECK_CARDS),
    }


def _lay_tables() -> tuple[IntArray, ...]:
    """The small tables of ``_sample_kernels.sample_lay`` (instead of the numpy backend's
    table of every hand key, 18 MB: a cache miss per seat), by food key: the food counts
    capped at 3, in base 4; and by the set of effect kinds held (7 bits)."""
    f = batched.F_KINDS
    pair_ij = np.array([(i, j) for i in range(f) for j in range(i, f)], dtype=np.int64)
    first = np.full((f, f), -1, dtype=np.int64)
    for i, j in pair_ij:
        first[i, j] = batched.PLAY_ID[(int(i), int(j), int(j))]
    keys = np.arange(4**f)
    counts = (keys[:, None] // 4 ** np.arange(f)[None, :]) % 4  # (1024, 5)
    nthird = np.full((len(keys), len(pair_ij)), -1, dtype=np.int8)
    thirds = np.zeros((len(keys), len(pair_ij), f), dtype=np.int8)
    for q, (i, j) in enumerate(pair_ij):
        left = counts.copy()
        left[:, i] -= 1
        left[:, j] -= 1
        held = (left >= 0).all(1)
        nthird[held, q] = (left[held, j:] > 0).sum(1)
        for key in np.nonzero(held)[0]:  # the food third kinds j..4 still held, in id order
            kinds = [k for k in range(j, f) if left[key, k] > 0]
            thirds[key, q, : len(kinds)] = kinds
    length = np.where(nthird >= 0, nthird, 0)
    starts = np.zeros((len(keys), len(pair_ij), 2), dtype=np.int16)  # food thirds, pairs held before
    starts[:, 1:, 0] = np.cumsum(length, 1)[:, :-1]
    starts[:, 1:, 1] = np.cumsum(nthird >= 0, 1)[:, :-1]
    total = length.sum(1)
    pairs = (nthird >= 0).sum(1)
    short = np.full(len(keys), -1, dtype=np.int64)
    for key in np.nonzero(counts.sum(1) < 3)[0]:  # W-5: every food card held (fewer than 3)
        short[key] = batched.PLAY_ID[tuple(int(k) for k in range(f) for _ in range(counts[key, k]))]
    e = batched.KINDS - f
    held_kinds = np.zeros((2**e, e), dtype=np.int8)
    for bits in range(2**e):
        kinds = [f + k for k in range(e) if bits >> k & 1]
        held_kinds[bits, : len(kinds)] = kinds
    wide = (total.astype(np.int64), pairs.astype(np.int64))
    return (nthird, *wide, short, first, pair_ij, starts, thirds, held_kinds)


def _mask_tables(short: IntArray) -> tuple[npt.NDArray[Any], ...]:
    """The tables of ``_sample_kernels.mask`` by food key (the food counts capped at 3, in
    base 4): the three-food lays held (W-4 option A), the food pairs held and their number,
    and per pair the ids of its lays with each effect card (option B); and the forced lay of
    a hand that cannot lay three (W-5, ``short``: ``_lay_tables``' own)."""
    f, e = batched.F_KINDS, batched.KINDS - batched.F_KINDS
    keys = np.arange(4**f)
    counts = (keys[:, None] // 4 ** np.arange(f)[None, :]) % 4  # (1024, 5)
    food_only = batched.PLAY_NEFFECTS == 0
    three = (batched.PLAY_SIZE == 3) & food_only
    food_lays = np.zeros((len(keys), batched.NUM_PLAYS), dtype=np.bool_)
    food_lays[:, three] = (counts[:, None, :] >= batched.PLAY_COUNTS[None, three, :f]).all(-1)
    pair_ij = [(i, j) for i in range(f) for j in range(i, f)]
    pair_effect = np.array([[batched.PLAY_ID[(i, j, f + k)] for k in range(e)] for i, j in pair_ij])
    need = np.zeros((len(pair_ij), f), dtype=np.int64)
    for q, (i, j) in enumerate(pair_ij):
        need[q, i] += 1
        need[q, j] += 1
    held = (counts[:, None, :] >= need[None, :, :]).all(-1)  # (1024, 15)
    npairs = held.sum(1)
    pairs = np.argsort(~held, axis=1, kind="stable")  # the pairs held first, in id order
    return (food_lays, pairs.astype(np.int64), npairs.astype(np.int64), pair_effect.astype(np.int64), short)


_MASK64 = (1 << 64) - 1


class _Source:
    """A ``numpy.random.Generator`` as the Waschbär-Schmaus kernels draw from it (``bits``,
    uint64 (10,), ``_random.RNG_*``): its bit generator's state address and C
    functions; for numpy's PCG64 also a copy of its state, which the kernels advance
    themselves (about 2 ns a number instead of 8 through the C function): :meth:`load` copies
    it in before a kernel call, :meth:`store` back after. Same numbers either way."""

    def __init__(self, rng: np.random.Generator) -> None:
        self.rng = rng  # keeps the addresses valid
        self.bits = np.zeros(10, dtype=np.uint64)
        self.bits[:3] = bitgen_addresses(rng)
        self.pcg = type(rng.bit_generator) is np.random.PCG64
        self.bits[3] = int(self.pcg)

    def load(self) -> IntArray:
        if self.pcg:
            st = self.rng.bit_generator.state
            state, inc = st["state"]["state"], st["state"]["inc"]
            words = [state >> 64, state & _MASK64, inc >> 64, inc & _MASK64]
            self.bits[4:] = [*words, st["has_uint32"], st["uinteger"]]
        return self.bits

    def store(self) -> None:
        if self.pcg:
            b = [int(x) for x in self.bits[4:]]
            self.rng.bit_generator.state = {
                "bit_generator": "PCG64",
                "state": {"state": b[0] << 64 | b[1], "inc": b[2] << 64 | b[3]},
                "has_uint32": b[4],
                "uinteger": b[5],
            }


class FastSchmaus(BatchedSchmaus):
    """:class:`~spieltisch.rl.schmaus.batched.BatchedSchmaus` with compiled ``step``, ``sample_legal``,
    ``play_random``, ``deciding``, ``legal_mask`` and ``reset_done`` (numba); same games and
    masks for the same seed, shuffler and actions."""

    _dtypes: ClassVar[dict[str, type[np.integer[Any]]]] = {
        **dict.fromkeys(("hands", "food", "effects", "pile", "disc", "pile_len", "disc_len"), np.int8),
        **dict.fromkeys(("round", "rounds", "phase", "targets", "x5", "must"), np.int8),
        **dict.fromkeys(("sealed", "sealed_len"), np.int8),
        "plays": np.int16,
        **dict.fromkeys(("scores", "reshuffles"), np.int32),
    }
    """Narrower state arrays than the numpy backend's (same values)."""

    def __init__(self, batch: int, players: int, seed: int = 0, shuffler: Shuffler | None = None) -> None:
        self._kernels = kernels(BATCH_KERNELS)  # fails with the install command before any work
        self._samplers = kernels(SAMPLE_KERNELS)
        self._tables = _tables()
        self._fallback = np.zeros(max(batch, 1), dtype=bool)
        self._pend = np.zeros((max(batch, 1), players), dtype=np.int64)
        self._pause = np.zeros(max(batch, 1), dtype=np.int64)
        self._uniforms = np.zeros(3 * max(batch, 1) * players, dtype=np.float64)  # one sample's numbers
        self._deck_row = np.zeros(MAX_CARDS, dtype=np.int64)
        self._no_games = np.zeros(max(batch, 1), dtype=bool)
        self._no_change = np.zeros((max(batch, 1), players), dtype=np.int64)  # sample_legal's
        self._scratch = (
            np.zeros(players, dtype=np.int64),  # the individual results of one scoring
            np.zeros(MAX_CARDS, dtype=np.float64),  # one reshuffle's keys and their order
            np.zeros(MAX_CARDS, dtype=np.int64),
            np.zeros(self._kernels.BUCKETS + 1, dtype=np.int64),
        )
        self._saved = (  # one game as it was (shuffler only)
            np.zeros((10, players), dtype=np.int64),
            np.zeros((players, batched.KINDS), dtype=np.int64),
            np.zeros(5, dtype=np.int64),
        )
        self._engine_source: _Source | None = None
        self._sample_source: _Source | None = None
        super().__init__(batch, players, seed=seed, shuffler=shuffler)

    def _source(self) -> _Source:
        """The engine's own ``rng`` as the kernels draw from it (anew if ``rng`` is replaced)."""
        if self._engine_source is None or self._engine_source.rng is not self.rng:
            self._engine_source = _Source(self.rng)
        return self._engine_source

    def _sampler(self, rng: np.random.Generator) -> _Source:
        if rng is self.rng:
            return self._source()
        if self._sample_source is None or self._sample_source.rng is not rng:
            self._sample_source = _Source(rng)
        return self._sample_source

    def _state(self) -> tuple[Any, ...]:
        return (
            self.hands, self.food, self.effects, self.pile, self.pile_len, self.disc, self.disc_len,
            self.scores, self.round, self.rounds, self.phase, self.plays, self.targets, self.x5,
            self.choosing, self.must, self.sealed, self.sealed_len, self.before_play,
        )  # fmt: skip

    def _numpy_fallback(self, actions: IntArray, out: IntArray) -> None:
        """W-17 reshuffles by the shuffler: the games the kernel put back, stepped (only they)
        by the numpy backend."""
        others = ~self._fallback
        phase = self.phase.copy()
        self.phase[others] = OVER
        numpy_change = BatchedSchmaus.step(self, actions)
        self.phase[others] = phase[others]
        out[self._fallback] = numpy_change[self._fallback]

    def _play(self, sampler: _Source | None, actions: IntArray, change: IntArray | None) -> int:
        """The kernel ``play``: ``actions`` sampled from ``sampler`` (unless ``None``), then
        every game's node stepped with them unless ``change`` (their score changes) is ``None``.
        Returns the number of games left to the numpy backend (:meth:`_numpy_fallback`)."""
        source = self._source() if change is not None else None
        first = sampler or source
        assert first is not None
        sample_bits = first.load()
        bits = source.load() if source is not None and source is not first else sample_bits
        n: int = self._kernels.play(
            sampler is not None, change is not None, sample_bits, self._uniforms, self._state(),
            self.reshuffles, self._pend, self._pause, actions,
            self._no_change if change is None else change, self._fallback, bits, self.shuffler is None,
            *self._scratch, self._saved, self._tables["step_tables"], self._tables["sample_tables"][0],
            self._tables["sample_tables"][2],
        )  # fmt: skip
        first.store()
        if source is not None and source is not first:
            source.store()
        return n

    def step(self, actions: IntArray) -> IntArray:
        """As :meth:`BatchedSchmaus.step` (trusted path: deciding seats' actions must be legal)."""
        actions = np.ascontiguousarray(actions, dtype=np.int64)
        out: IntArray = np.empty((self.batch, self.players), dtype=np.int64)
        if self._play(None, actions, out):
            self._numpy_fallback(actions, out)
        return out

    def play_random(self, rng: np.random.Generator) -> tuple[IntArray, IntArray]:
        """As :meth:`BatchedSchmaus.play_random` (``sample_legal(rng)``, then ``step``): the same
        actions, states and score changes, in one compiled pass over the games (each game's
        actions sampled and its node stepped while its data are in the cache)."""
        actions: IntArray = np.empty((self.batch, self.players), dtype=np.int64)
        out: IntArray = np.empty((self.batch, self.players), dtype=np.int64)
        if self._play(self._sampler(rng), actions, out):
            self._numpy_fallback(actions, out)
        return actions, out

    def sample_legal(self, rng: np.random.Generator) -> IntArray:
        """As :meth:`BatchedSchmaus.sample_legal`: the same actions from the same ``rng``."""
        out: IntArray = np.empty((self.batch, self.players), dtype=np.int64)
        self._play(self._sampler(rng), out, None)
        return out

    def legal_mask(self, out: BoolArray | None = None) -> BoolArray:
        """As :meth:`BatchedSchmaus.legal_mask` (a new array unless ``out`` is given, which is
        then overwritten entirely and returned), in one compiled pass over the games."""
        if out is None:
            out = np.empty((self.batch, self.players, batched.NUM_ACTIONS), dtype=np.bool_)
        else:
            check_mask_out(out, (self.batch, self.players, batched.NUM_ACTIONS))
            if not out.flags.c_contiguous:  # the kernel is compiled for C-ordered arrays only
                out[...] = self.legal_mask()
                return out
        self._samplers.mask(
            self._state(), self._tables["mask_tables"], *self._tables["sample_tables"][1:], out
        )
        return out

    def deciding(self) -> BoolArray:
        """As :meth:`BatchedSchmaus.deciding`."""
        out: BoolArray = np.empty((self.batch, self.players), dtype=bool)
        self._samplers.deciding(self.phase, self.plays, self.choosing, self.must, out)
        return out

    def reset_done(self, which: BoolArray | None = None) -> None:
        """As :meth:`BatchedSchmaus.reset_done`: the same deals (numpy's ``permuted`` shuffle of
        the same ``rng``, row by row, in the kernel), counted and started (W-3, W-5) there too."""
        flags = self._no_games if which is None else np.ascontiguousarray(which, dtype=np.bool_)
        source = self._source()
        self._kernels.deal(
            flags, which is None, source.load(), self._tables["deck"], self._deck_row, self._state(),
            self.reshuffles, HAND_SIZE,
        )  # fmt: skip
        source.store()
