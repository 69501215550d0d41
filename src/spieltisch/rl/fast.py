"""An optional compiled (numba) backend of the batched engines (docs/rl.md).

Scout: :class:`FastScout` (see there). Waschbär-Schmaus:

:class:`FastSchmaus` is a :class:`~spieltisch.rl.schmaus.batched.BatchedSchmaus` whose
:meth:`~FastSchmaus.step`, :meth:`~FastSchmaus.sample_legal`,
:meth:`~FastSchmaus.play_random`, :meth:`~FastSchmaus.deciding`,
:meth:`~FastSchmaus.legal_mask` and :meth:`~FastSchmaus.reset_done` are ``@njit`` loops
over the games of the batch (:mod:`spieltisch.rl.schmaus._kernels`), on the same arrays
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

Needs the extra ``rl-fast`` (numba); :func:`require_numba` says how to install it.
"""

from __future__ import annotations

import ctypes
from typing import Any, ClassVar

import numpy as np
import numpy.typing as npt

from spieltisch.engine.scout.cards import ALL_CARDS
from spieltisch.engine.scout.state import REMOVED
from spieltisch.extras import missing_message
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
from spieltisch.rl.scout import actions as scout_actions
from spieltisch.rl.scout import batched as batched_scout
from spieltisch.rl.scout.batched import BatchedScout, Dealer
from spieltisch.rl.scout.batched import IntArray as ScoutIntArray

BACKENDS = ("numpy", "numba")


def numba_available() -> bool:
    """Whether numba (the extra ``rl-fast``) is installed."""
    try:
        import numba  # noqa: F401
    except ImportError:
        return False
    return True


def require_numba() -> None:
    """Raise :class:`RuntimeError` naming the install command unless numba is installed."""
    if not numba_available():
        raise RuntimeError(missing_message("the numba backend of the batched engines", ["rl-fast"]))


def _compiled(backend: str) -> bool:
    """Whether ``backend`` is ``"numba"`` (rather than ``"numpy"``); a :class:`ValueError`
    naming the choices for any other name."""
    if backend not in BACKENDS:
        raise ValueError(f"unknown backend {backend!r}; choose one of {', '.join(BACKENDS)}")
    return backend == "numba"


def make_schmaus(
    batch: int, players: int, seed: int = 0, shuffler: Shuffler | None = None, backend: str = "numpy"
) -> BatchedSchmaus:
    """A batched Waschbär-Schmaus engine with ``backend`` ``"numpy"`` (default) or ``"numba"``."""
    engine = FastSchmaus if _compiled(backend) else BatchedSchmaus
    return engine(batch, players, seed=seed, shuffler=shuffler)


_KERNELS: dict[str, Any] = {}


def _kernels() -> dict[str, Any]:
    """The compiled kernels (compiled, or loaded from numba's cache, on first use) and the
    lay tables they read."""
    if not _KERNELS:
        require_numba()
        from spieltisch.rl.schmaus import _kernels as _schmaus_kernels

        def table(t: IntArray) -> IntArray:
            return np.ascontiguousarray(t, dtype=np.int64)

        lays = _lay_tables()
        _KERNELS.update(
            kernels=_schmaus_kernels,
            # per lay: food and effect cards, its effect card, its one food kind, food value,
            # base value, its cards (-1 for none); per card kind: its value
            step_tables=tuple(
                table(t)
                for t in (
                    batched.PLAY_NFOOD,
                    batched.PLAY_NEFFECTS,
                    batched.PLAY_EFFECT,
                    batched.PLAY_ONLY,
                    batched.PLAY_FOOD,
                    batched.PLAY_BASE,
                    batched.PLAY_CARDS_FLAT,
                    batched.VALUE,
                )
            ),
            sample_tables=(lays, table(batched.PLAY_EFFECT), table(batched.PLAY_COUNTS)),
            mask_tables=_mask_tables(short=lays[3]),
            deck=table(batched.DECK_CARDS),
        )
    return _KERNELS


def _lay_tables() -> tuple[IntArray, ...]:
    """The small tables of ``_schmaus_kernels.sample_lay`` (instead of the numpy backend's
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
    """The tables of ``_schmaus_kernels.mask`` by food key (the food counts capped at 3, in
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
    uint64 (10,), ``_schmaus_kernels.RNG_*``): its bit generator's state address and C
    functions; for numpy's PCG64 also a copy of its state, which the kernels advance
    themselves (about 2 ns a number instead of 8 through the C function): :meth:`load` copies
    it in before a kernel call, :meth:`store` back after. Same numbers either way."""

    def __init__(self, rng: np.random.Generator) -> None:
        self.rng = rng  # keeps the addresses valid
        c = rng.bit_generator.ctypes
        functions = [ctypes.cast(f, ctypes.c_void_p).value or 0 for f in (c.next_double, c.next_uint32)]
        self.bits = np.zeros(10, dtype=np.uint64)
        self.bits[:3] = [c.state_address, *functions]
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
        self._kernel = _kernels()  # fails with the install command before any work
        self._fallback = np.zeros(max(batch, 1), dtype=bool)
        self._pend = np.zeros((max(batch, 1), players), dtype=np.int64)
        self._pause = np.zeros(max(batch, 1), dtype=np.int64)
        self._uniforms = np.zeros(3 * max(batch, 1) * players, dtype=np.float64)  # one sample's numbers
        self._deck_row = np.zeros(MAX_CARDS, dtype=np.int64)
        self._no_games = np.zeros(max(batch, 1), dtype=bool)
        self._scratch = (
            np.zeros(players, dtype=np.int64),  # the individual results of one scoring
            np.zeros(MAX_CARDS, dtype=np.float64),  # one reshuffle's keys and their order
            np.zeros(MAX_CARDS, dtype=np.int64),
            np.zeros(self._kernel["kernels"].BUCKETS + 1, dtype=np.int64),
            np.zeros((10, players), dtype=np.int64),  # one game as it was (shuffler only)
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

    def step(self, actions: IntArray) -> IntArray:
        """As :meth:`BatchedSchmaus.step` (trusted path: deciding seats' actions must be legal)."""
        actions = np.ascontiguousarray(actions, dtype=np.int64)
        out: IntArray = np.empty((self.batch, self.players), dtype=np.int64)
        source = self._source()
        n = self._kernel["kernels"].step(
            actions, *self._state(), self.reshuffles, self._pend, self._pause, out, self._fallback,
            source.load(), self.shuffler is None, *self._scratch, self._kernel["step_tables"],
        )  # fmt: skip
        source.store()
        if n:
            self._numpy_fallback(actions, out)
        return out

    def play_random(self, rng: np.random.Generator) -> tuple[IntArray, IntArray]:
        """As :meth:`BatchedSchmaus.play_random` (``sample_legal(rng)``, then ``step``): the same
        actions, states and score changes, in one compiled pass over the games (each game's
        actions sampled and its node stepped while its data are in the cache)."""
        actions: IntArray = np.empty((self.batch, self.players), dtype=np.int64)
        out: IntArray = np.empty((self.batch, self.players), dtype=np.int64)
        sampler, source = self._sampler(rng), self._source()
        sample_bits = sampler.load()
        bits = source.load() if source is not sampler else sample_bits
        n = self._kernel["kernels"].play(
            sample_bits, self._uniforms, *self._state(), self.reshuffles, self._pend, self._pause,
            actions, out, self._fallback, bits, self.shuffler is None, *self._scratch,
            self._kernel["step_tables"], self._kernel["sample_tables"][0], self._kernel["sample_tables"][2],
        )  # fmt: skip
        sampler.store()
        if source is not sampler:
            source.store()
        if n:
            self._numpy_fallback(actions, out)
        return actions, out

    def sample_legal(self, rng: np.random.Generator) -> IntArray:
        """As :meth:`BatchedSchmaus.sample_legal`: the same actions from the same ``rng``."""
        out: IntArray = np.empty((self.batch, self.players), dtype=np.int64)
        sampler = self._sampler(rng)
        self._kernel["kernels"].sample(
            sampler.load(), self._uniforms, self.hands, self.phase, self.plays, self.choosing,
            self.targets, self.must, self.before_play, *self._kernel["sample_tables"], out,
        )  # fmt: skip
        sampler.store()
        return out

    def legal_mask(self, out: BoolArray | None = None) -> BoolArray:
        """As :meth:`BatchedSchmaus.legal_mask` (a new array unless ``out`` is given, which is
        then overwritten entirely and returned), in one compiled pass over the games."""
        if out is None:
            out = np.empty((self.batch, self.players, batched.NUM_ACTIONS), dtype=np.bool_)
        else:
            batched.check_mask_out(out, (self.batch, self.players, batched.NUM_ACTIONS))
            if not out.flags.c_contiguous:  # the kernel is compiled for C-ordered arrays only
                out[...] = self.legal_mask()
                return out
        self._kernel["kernels"].mask(
            self.hands, self.phase, self.plays, self.choosing, self.targets, self.must, self.before_play,
            self._kernel["mask_tables"], *self._kernel["sample_tables"][1:], out,
        )  # fmt: skip
        return out

    def deciding(self) -> BoolArray:
        """As :meth:`BatchedSchmaus.deciding`."""
        out: BoolArray = np.empty((self.batch, self.players), dtype=bool)
        self._kernel["kernels"].deciding(self.phase, self.plays, self.choosing, self.must, out)
        return out

    def reset_done(self, which: BoolArray | None = None) -> None:
        """As :meth:`BatchedSchmaus.reset_done`: the same deals (numpy's ``permuted`` shuffle of
        the same ``rng``, row by row, in the kernel), counted and started (W-3, W-5) there too."""
        flags = self._no_games if which is None else np.ascontiguousarray(which, dtype=np.bool_)
        source = self._source()
        self._kernel["kernels"].deal(
            flags, which is None, source.load(), self._kernel["deck"], self._deck_row, self.hands,
            self.food, self.effects, self.pile, self.pile_len, self.disc_len, self.scores, self.round,
            self.phase, self.plays, self.targets, self.x5, self.choosing, self.must, self.sealed_len,
            self.before_play, self.reshuffles, HAND_SIZE,
        )  # fmt: skip
        source.store()


def make_scout(
    batch: int, players: int, seed: int = 0, dealer: Dealer | None = None, backend: str = "numpy"
) -> BatchedScout:
    """A batched Scout engine with ``backend`` ``"numpy"`` (default) or ``"numba"``."""
    engine = FastScout if _compiled(backend) else BatchedScout
    return engine(batch, players, seed=seed, dealer=dealer)


_SCOUT_KERNELS: dict[str, Any] = {}


def _scout_kernels() -> dict[str, Any]:
    """The compiled Scout kernels (compiled, or loaded from numba's cache, on first use)."""
    if not _SCOUT_KERNELS:
        require_numba()
        from spieltisch.rl.scout import _kernels as _scout_kernels

        _SCOUT_KERNELS.update(
            step=_scout_kernels.step,
            sample=_scout_kernels.sample,
            mask=_scout_kernels.mask,
            reset=_scout_kernels.reset,
            count_half=_scout_kernels.count_half,
        )
    return _SCOUT_KERNELS


class FastScout(BatchedScout):
    """:class:`~spieltisch.rl.scout.batched.BatchedScout` with compiled ``step``,
    ``sample_legal``, ``legal_mask`` and ``reset_done`` (numba); same games for the same
    seed, dealer and actions.

    Each runs as one ``@njit(cache=True)`` loop over the games
    (:mod:`spieltisch.rl.scout._kernels`) on the numpy backend's arrays (same names, shapes
    and values; narrower integer dtypes, see ``_dtypes``), so ``to_move`` and the numpy
    deal of a ``dealer`` are shared:

    * ``sample_legal`` draws its uniform numbers with numpy in the numpy backend's shapes
      and order (one per game, then one per game waiting for a show half) and the kernel
      turns them into ids with the same arithmetic.
    * Deals (a new game, or the next round after a round ends in a step) draw from the
      engine's own Generator inside the kernel, in the numpy backend's order of deal calls
      and games (numba shares the bit generator; the shuffle is numpy's). With a
      ``dealer`` (a Python callable, as the tests pass the reference engine's deals) the
      kernel queues the round ends and the numpy backend deals them, in the same order.
    """

    _dtypes: ClassVar[dict[str, type[np.integer[Any]]]] = {
        **dict.fromkeys(("top", "bottom", "table_top", "table_bottom", "set_aside"), np.int8),
        **dict.fromkeys(("size", "chips", "collected", "current", "phase", "owner"), np.int8),
        **dict.fromkeys(("table_size", "round", "first_start", "half_at"), np.int8),
        "table_key": np.int16,
        **dict.fromkeys(("tokens", "totals"), np.int32),
    }
    """Narrower state arrays than the numpy backend's (same values): about 1.1–1.5× the steps
    per second, as the kernels' time goes mostly into memory traffic."""

    def __init__(self, batch: int, players: int, seed: int = 0, dealer: Dealer | None = None) -> None:
        self._kernel = _scout_kernels()  # fails with the install command before any work
        if batch < 1 or not 2 <= players <= 5:
            super().__init__(batch, players, seed=seed, dealer=dealer)  # its error message
        w = batched_scout.W
        self._tables = (
            batched_scout.ID_START[scout_actions.SHOW_BASE : scout_actions.SCOUT_BASE].copy(),
            batched_scout.ID_COUNT[scout_actions.SHOW_BASE : scout_actions.SCOUT_BASE].copy(),
            np.array([c for c in ALL_CARDS if c not in REMOVED[players]], dtype=np.int16),
        )
        self._req_game = np.zeros(batch, dtype=np.int64)
        self._req_key = np.zeros(batch, dtype=np.int64)
        self._idx = np.zeros(batch, dtype=np.int64)
        self._deck_rows = np.zeros((batch, len(self._tables[2])), dtype=np.int16)
        self._step = np.zeros(w, dtype=np.int64)
        self._runlen = np.zeros(w, dtype=np.int64)
        self._fewest = np.zeros(w, dtype=np.int64)
        self._left = np.zeros((3, w), dtype=np.int64)
        self._right = np.zeros((3, w), dtype=np.int64)
        self._hm = np.zeros((1, scout_actions.NUM_SCOUTS), dtype=np.bool_)
        self._blocks = np.zeros(4, dtype=np.int64)
        self._spans = np.zeros(8, dtype=np.int64)
        self._no_numbers = np.zeros(0)
        self._no_games = np.zeros(batch, dtype=np.bool_)
        self._bitgen_of: np.random.Generator | None = None
        self._bitgen_array = np.zeros(3, dtype=np.uint64)
        super().__init__(batch, players, seed=seed, dealer=dealer)

    def _bitgen(self) -> IntArray:
        """The addresses the kernels draw from ``self.rng`` with (``_scout_kernels``): its bit
        generator's state, ``next_double`` and ``next_uint32`` (refreshed if ``rng`` is replaced;
        the Generator held in ``self.rng`` keeps them valid)."""
        if self._bitgen_of is not self.rng:
            c = self.rng.bit_generator.ctypes
            functions = [ctypes.cast(f, ctypes.c_void_p).value or 0 for f in (c.next_double, c.next_uint32)]
            self._bitgen_array = np.array([c.state_address, *functions], dtype=np.uint64)
            self._bitgen_of = self.rng
        return self._bitgen_array

    def _state(self) -> tuple[Any, ...]:
        return (
            self.top, self.bottom, self.size, self.table_top, self.table_bottom, self.table_size,
            self.table_key, self.owner, self.current, self.phase, self.pending, self.chips,
            self.collected, self.tokens, self.totals, self.round, self.first_start, self.set_aside,
            self.half_at,
        )  # fmt: skip

    def reset_done(self, which: BoolArray | None = None) -> None:
        """As :meth:`BatchedScout.reset_done`."""
        if self.dealer is not None:
            BatchedScout.reset_done(self, which)
            return
        over = which is None
        flags = self._no_games if which is None else np.ascontiguousarray(which, dtype=np.bool_)
        self._kernel["reset"](
            self._state(),
            flags,
            over,
            self._bitgen(),
            self._tables[2],
            self.dealt,
            self._idx,
            self._deck_rows,
        )

    def step(self, actions: ScoutIntArray) -> ScoutIntArray:
        """As :meth:`BatchedScout.step` (trusted path: the ids must be legal)."""
        actions = np.ascontiguousarray(actions, dtype=np.int64)
        out: ScoutIntArray = np.empty((self.batch, self.players), dtype=np.int64)
        n = self._kernel["step"](
            actions, self._state(), self._tables, self.rounds, self.dealt, self._bitgen(),
            self.dealer is None, out, self._req_game, self._req_key, self._idx, self._deck_rows,
            self._step, self._runlen,
        )  # fmt: skip
        if n and self.dealer is not None:  # the numpy backend's deal calls, in its order
            keys, games = self._req_key[:n], self._req_game[:n]
            for key in np.unique(keys):
                self._deal(games[keys == key], int(key) % 8)
        return out

    def sample_legal(self, rng: np.random.Generator) -> ScoutIntArray:
        """As :meth:`BatchedScout.sample_legal`: the same ids from the same ``rng``."""
        u = rng.random(self.batch)
        halves = self._kernel["count_half"](self.phase, self.half_at)
        u_half = rng.random(halves) if halves else self._no_numbers
        out: ScoutIntArray = np.empty(self.batch, dtype=np.int64)
        self._kernel["sample"](
            self._state(), u, u_half, out, self._step, self._runlen, self._fewest,
            self._left, self._right, self._hm, self._blocks, self._spans,
        )  # fmt: skip
        return out

    def legal_mask(self, out: BoolArray | None = None) -> BoolArray:
        """As :meth:`BatchedScout.legal_mask` (a new array unless ``out`` is given, which is
        then overwritten entirely and returned)."""
        if out is None:
            out = np.zeros((self.batch, scout_actions.NUM_ACTIONS), dtype=np.bool_)
        else:
            batched.check_mask_out(out, (self.batch, scout_actions.NUM_ACTIONS))
            if not out.flags.c_contiguous:  # the kernel is compiled for C-ordered arrays only
                out[...] = self.legal_mask()
                return out
            out[...] = False  # the kernel sets the legal ids only
        self._kernel["mask"](
            self._state(), out, self._step, self._runlen, self._fewest, self._left, self._right,
            self._blocks, self._spans,
        )  # fmt: skip
        return out


__all__ = [
    "BACKENDS",
    "FastSchmaus",
    "FastScout",
    "make_schmaus",
    "make_scout",
    "numba_available",
    "require_numba",
]
