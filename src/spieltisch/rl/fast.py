"""An optional compiled (numba) backend of the batched engines (docs/rl.md).

Scout: :class:`FastScout` (see there). Waschbär-Schmaus:

:class:`FastSchmaus` is a :class:`~spieltisch.rl.batched.BatchedSchmaus` whose
:meth:`~FastSchmaus.step` and :meth:`~FastSchmaus.sample_legal` run as one
``@njit`` loop over the games of the batch, on the same arrays (same layout,
same dtypes), so every other method (deals, masks, observations) is shared.

Same games for the same seed and actions as the numpy backend:

* ``sample_legal`` draws its uniform numbers with numpy, in the same shapes and
  order as the numpy backend, and passes them into the kernel, which turns them
  into actions with the same arithmetic.
* A W-17 reshuffle is the one random event inside a step. The kernel steps
  every game by itself; a game that would reshuffle during this step is put
  back exactly as it was (its small per-step state is saved first) and stepped
  by the numpy backend afterwards, together with the other such games and
  nobody else. The numpy backend draws reshuffle keys only for reshuffling
  games, in game order, so the random stream (or the ``shuffler`` calls) is
  the same as when the numpy backend steps the whole batch.

Needs the extra ``rl-fast`` (numba); :func:`require_numba` says how to install it.
"""

from __future__ import annotations

import ctypes
from typing import Any, ClassVar

import numpy as np

from spieltisch.engine.scout.cards import ALL_CARDS
from spieltisch.engine.scout.state import REMOVED
from spieltisch.extras import missing_message
from spieltisch.rl import batched, batched_scout, scout_actions
from spieltisch.rl.batched import (
    DISCARD,
    OVER,
    PLAY,
    TARGET,
    BatchedSchmaus,
    IntArray,
    Shuffler,
)
from spieltisch.rl.batched_scout import BatchedScout, BoolArray, Dealer
from spieltisch.rl.batched_scout import IntArray as ScoutIntArray

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


def make_schmaus(
    batch: int, players: int, seed: int = 0, shuffler: Shuffler | None = None, backend: str = "numpy"
) -> BatchedSchmaus:
    """A batched Waschbär-Schmaus engine with ``backend`` ``"numpy"`` (default) or ``"numba"``."""
    if backend == "numpy":
        return BatchedSchmaus(batch, players, seed=seed, shuffler=shuffler)
    if backend == "numba":
        return FastSchmaus(batch, players, seed=seed, shuffler=shuffler)
    raise ValueError(f"unknown backend {backend!r}; choose one of {', '.join(BACKENDS)}")


_KERNELS: dict[str, Any] = {}


def _kernels() -> dict[str, Any]:
    """The compiled kernels (compiled, or loaded from numba's cache, on first use)."""
    if not _KERNELS:
        require_numba()
        from spieltisch.rl import _schmaus_kernels

        tables = tuple(
            np.ascontiguousarray(t, dtype=np.int64)
            for t in (
                batched.PLAY_COUNTS,
                batched.PLAY_NFOOD,
                batched.PLAY_NEFFECTS,
                batched.PLAY_EFFECT,
                batched.PLAY_ONLY,
                batched.PLAY_FOOD,
                batched.PLAY_BASE,
                batched.PLAY_CARDS_FLAT,
                batched.VALUE,
            )
        )
        _KERNELS.update(step=_schmaus_kernels.step, sample=_schmaus_kernels.sample, tables=tables)
    return _KERNELS


class FastSchmaus(BatchedSchmaus):
    """:class:`~spieltisch.rl.batched.BatchedSchmaus` with compiled ``step`` and ``sample_legal``
    (numba); same games for the same seed, shuffler and actions."""

    def __init__(self, batch: int, players: int, seed: int = 0, shuffler: Shuffler | None = None) -> None:
        self._kernel = _kernels()  # fails with the install command before any work
        super().__init__(batch, players, seed=seed, shuffler=shuffler)
        self._change = np.zeros((batch, players), dtype=np.int64)
        self._fallback = np.zeros(batch, dtype=bool)
        self._pend = np.zeros((batch, players), dtype=np.int64)
        self._pause = np.zeros(batch, dtype=np.int64)
        self._cap = batched._CAP.astype(np.int64)
        self._weight = batched._WEIGHT.astype(np.int64)
        self._no_numbers = np.zeros((0, players))

    def _state(self) -> tuple[Any, ...]:
        return (
            self.hands, self.food, self.effects, self.pile, self.pile_len, self.disc, self.disc_len,
            self.scores, self.round, self.rounds, self.phase, self.plays, self.targets, self.x5,
            self.choosing, self.must, self.sealed, self.sealed_len, self.before_play,
        )  # fmt: skip

    def step(self, actions: IntArray) -> IntArray:
        """As :meth:`BatchedSchmaus.step` (trusted path: deciding seats' actions must be legal)."""
        actions = np.ascontiguousarray(actions, dtype=np.int64)
        change = self._change
        n = self._kernel["step"](
            actions, self._state(), self._kernel["tables"], self.reshuffles, self._pend, self._pause,
            change, self._fallback, self.rng, self.shuffler is None,
        )  # fmt: skip
        out: IntArray = change.copy()
        if n:  # W-17 reshuffles by the shuffler: these games (only) by the numpy backend
            others = ~self._fallback
            phase = self.phase.copy()
            self.phase[others] = OVER
            numpy_change = BatchedSchmaus.step(self, actions)
            self.phase[others] = phase[others]
            out[self._fallback] = numpy_change[self._fallback]
        return out

    def sample_legal(self, rng: np.random.Generator) -> IntArray:
        """As :meth:`BatchedSchmaus.sample_legal`: the same actions from the same ``rng``."""
        b, p = self.batch, self.players
        _, order, number = batched.play_tables()
        playing = bool(((self.phase == PLAY)[:, None] & (self.plays < 0)).any())
        u_play = rng.random((b, p)) if playing else self._no_numbers
        target = np.nonzero(self.phase == TARGET)[0]
        u_other = u_kind = self._no_numbers
        if len(target):
            u_other = rng.random((len(target), p))
            u_kind = rng.random((len(target), p))
        discard = np.nonzero(self.phase == DISCARD)[0]
        u_discard = rng.random((len(discard), p)) if len(discard) else self._no_numbers
        out: IntArray = np.empty((b, p), dtype=np.int64)
        tb = self._kernel["tables"]
        self._kernel["sample"](
            self.hands, self.phase, self.plays, self.choosing, self.targets, self.must, self.before_play,
            order, number, self._cap, self._weight, tb[3], tb[0],
            u_play, target, u_other, u_kind, discard, u_discard, out,
        )  # fmt: skip
        return out


def make_scout(
    batch: int, players: int, seed: int = 0, dealer: Dealer | None = None, backend: str = "numpy"
) -> BatchedScout:
    """A batched Scout engine with ``backend`` ``"numpy"`` (default) or ``"numba"``."""
    if backend == "numpy":
        return BatchedScout(batch, players, seed=seed, dealer=dealer)
    if backend == "numba":
        return FastScout(batch, players, seed=seed, dealer=dealer)
    raise ValueError(f"unknown backend {backend!r}; choose one of {', '.join(BACKENDS)}")


_SCOUT_KERNELS: dict[str, Any] = {}


def _scout_kernels() -> dict[str, Any]:
    """The compiled Scout kernels (compiled, or loaded from numba's cache, on first use)."""
    if not _SCOUT_KERNELS:
        require_numba()
        from spieltisch.rl import _scout_kernels

        _SCOUT_KERNELS.update(
            step=_scout_kernels.step,
            sample=_scout_kernels.sample,
            mask=_scout_kernels.mask,
            reset=_scout_kernels.reset,
            count_half=_scout_kernels.count_half,
        )
    return _SCOUT_KERNELS


class FastScout(BatchedScout):
    """:class:`~spieltisch.rl.batched_scout.BatchedScout` with compiled ``step``,
    ``sample_legal``, ``legal_mask`` and ``reset_done`` (numba); same games for the same
    seed, dealer and actions.

    Each runs as one ``@njit(cache=True)`` loop over the games
    (:mod:`spieltisch.rl._scout_kernels`) on the numpy backend's arrays (same names, shapes
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

    def legal_mask(self) -> BoolArray:
        """As :meth:`BatchedScout.legal_mask`."""
        out: BoolArray = np.zeros((self.batch, scout_actions.NUM_ACTIONS), dtype=np.bool_)
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
