"""The compiled (numba) backend of the batched Scout engine (docs/rl.md): :class:`FastScout`.

Needs the extra ``rl-fast`` (numba); without it :class:`FastScout` says how to install it.
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np
import numpy.typing as npt

from spieltisch.engine.scout.cards import ALL_CARDS
from spieltisch.engine.scout.state import REMOVED
from spieltisch.rl._numba import bitgen_addresses, kernels
from spieltisch.rl.batching import check_mask_out
from spieltisch.rl.scout import actions as SA
from spieltisch.rl.scout.batched import ID_COUNT, ID_START, BatchedScout, BoolArray, Dealer, IntArray, W

KERNELS = "spieltisch.rl.scout._kernels"
"""The module of the kernels (:mod:`spieltisch.rl.scout._kernels`)."""


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
        self._kernels = kernels(KERNELS)  # fails with the install command before any work
        if batch < 1 or not 2 <= players <= 5:
            super().__init__(batch, players, seed=seed, dealer=dealer)  # its error message
        w = W
        self._tables = (
            ID_START[SA.SHOW_BASE : SA.SCOUT_BASE].copy(),
            ID_COUNT[SA.SHOW_BASE : SA.SCOUT_BASE].copy(),
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
        self._hm = np.zeros((1, SA.NUM_SCOUTS), dtype=np.bool_)
        self._blocks = np.zeros(4, dtype=np.int64)
        self._spans = np.zeros(8, dtype=np.int64)
        self._no_numbers = np.zeros(0)
        self._no_games = np.zeros(batch, dtype=np.bool_)
        self._bitgen_of: np.random.Generator | None = None
        self._bitgen_array = np.zeros(3, dtype=np.uint64)
        super().__init__(batch, players, seed=seed, dealer=dealer)

    def _bitgen(self) -> npt.NDArray[np.uint64]:
        """The addresses the kernels draw from ``self.rng`` with (``_kernels``): its bit
        generator's state, ``next_double`` and ``next_uint32`` (refreshed if ``rng`` is replaced;
        the Generator held in ``self.rng`` keeps them valid)."""
        if self._bitgen_of is not self.rng:
            self._bitgen_array = np.array(bitgen_addresses(self.rng), dtype=np.uint64)
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
        self._kernels.reset(
            self._state(),
            flags,
            over,
            self._bitgen(),
            self._tables[2],
            self.dealt,
            self._idx,
            self._deck_rows,
        )

    def step(self, actions: IntArray) -> IntArray:
        """As :meth:`BatchedScout.step` (trusted path: the ids must be legal)."""
        actions = np.ascontiguousarray(actions, dtype=np.int64)
        out: IntArray = np.empty((self.batch, self.players), dtype=np.int64)
        n = self._kernels.step(
            actions, self._state(), self._tables, self.rounds, self.dealt, self._bitgen(),
            self.dealer is None, out, self._req_game, self._req_key, self._idx, self._deck_rows,
            self._step, self._runlen,
        )  # fmt: skip
        if n and self.dealer is not None:  # the numpy backend's deal calls, in its order
            keys, games = self._req_key[:n], self._req_game[:n]
            for key in np.unique(keys):
                self._deal(games[keys == key], int(key) % 8)
        return out

    def sample_legal(self, rng: np.random.Generator) -> IntArray:
        """As :meth:`BatchedScout.sample_legal`: the same ids from the same ``rng``."""
        u = rng.random(self.batch)
        halves = self._kernels.count_half(self.phase, self.half_at)
        u_half = rng.random(halves) if halves else self._no_numbers
        out: IntArray = np.empty(self.batch, dtype=np.int64)
        self._kernels.sample(
            self._state(), u, u_half, out, self._step, self._runlen, self._fewest,
            self._left, self._right, self._hm, self._blocks, self._spans,
        )  # fmt: skip
        return out

    def legal_mask(self, out: BoolArray | None = None) -> BoolArray:
        """As :meth:`BatchedScout.legal_mask` (a new array unless ``out`` is given, which is
        then overwritten entirely and returned)."""
        if out is None:
            out = np.zeros((self.batch, SA.NUM_ACTIONS), dtype=np.bool_)
        else:
            check_mask_out(out, (self.batch, SA.NUM_ACTIONS))
            if not out.flags.c_contiguous:  # the kernel is compiled for C-ordered arrays only
                out[...] = self.legal_mask()
                return out
            out[...] = False  # the kernel sets the legal ids only
        self._kernels.mask(
            self._state(), out, self._step, self._runlen, self._fewest, self._left, self._right,
            self._blocks, self._spans,
        )  # fmt: skip
        return out
