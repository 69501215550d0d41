"""An optional compiled (numba) backend of the batched Waschbär-Schmaus engine (docs/rl.md).

:class:`FastSchmaus` is a :class:`~spieltisch.rl.batched.BatchedSchmaus` whose
:meth:`~FastSchmaus.step`, :meth:`~FastSchmaus.sample_legal`,
:meth:`~FastSchmaus.deciding` and :meth:`~FastSchmaus.reset_done` are ``@njit``
loops over the games of the batch (:mod:`spieltisch.rl._schmaus_kernels`), on the
same arrays (same layout, same dtypes), so every other method (masks,
observations, ``load``) is shared.

Same games for the same seed and actions as the numpy backend:

* ``sample_legal`` draws its uniform numbers from the given Generator inside the
  kernel, in the numpy backend's shapes and order, and turns them into actions with
  the same arithmetic (lays from small tables by food key, the same lay as the numpy
  backend's table of every hand key).
* ``reset_done`` shuffles the decks with numpy (the same ``permuted`` call), the
  kernel deals them.
* A W-17 reshuffle is the one random event inside a step. The kernel steps every
  game by itself; a game that needs one pauses at that point, and the paused games
  are reshuffled (54 keys each from the engine's Generator) by point, then game:
  the numpy backend's order. With a ``shuffler`` (a Python callable) a game that
  would reshuffle is put back exactly as it was and stepped by the numpy backend
  afterwards, together with the other such games and nobody else.

Needs the extra ``rl-fast`` (numba); :func:`require_numba` says how to install it.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from spieltisch.extras import missing_message
from spieltisch.rl import batched
from spieltisch.rl.batched import (
    HAND_SIZE,
    MAX_CARDS,
    OVER,
    BatchedSchmaus,
    BoolArray,
    IntArray,
    Shuffler,
)

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
    """The compiled kernels (compiled, or loaded from numba's cache, on first use) and the
    lay tables they read."""
    if not _KERNELS:
        require_numba()
        from spieltisch.rl import _schmaus_kernels

        def table(t: IntArray) -> IntArray:
            return np.ascontiguousarray(t, dtype=np.int64)

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
            sample_tables=(*_lay_tables(), table(batched.PLAY_EFFECT), table(batched.PLAY_COUNTS)),
        )
    return _KERNELS


def _lay_tables() -> tuple[IntArray, ...]:
    """The small tables of ``_schmaus_kernels.sample_lay`` (instead of the numpy backend's
    table of every hand key, 18 MB: a cache miss per seat), by food key: the food counts
    capped at 3, in base 4."""
    f = batched.F_KINDS
    pair_ij = np.array([(i, j) for i in range(f) for j in range(i, f)], dtype=np.int64)
    first = np.full((f, f), -1, dtype=np.int64)
    for i, j in pair_ij:
        first[i, j] = batched.PLAY_ID[(int(i), int(j), int(j))]
    keys = np.arange(4**f)
    counts = (keys[:, None] // 4 ** np.arange(f)[None, :]) % 4  # (1024, 5)
    nthird = np.full((len(keys), len(pair_ij)), -1, dtype=np.int8)
    for q, (i, j) in enumerate(pair_ij):
        left = counts.copy()
        left[:, i] -= 1
        left[:, j] -= 1
        held = (left >= 0).all(1)
        nthird[held, q] = (left[held, j:] > 0).sum(1)
    total = np.where(nthird >= 0, nthird, 0).sum(1)
    pairs = (nthird >= 0).sum(1)
    short = np.full(len(keys), -1, dtype=np.int64)
    for key in np.nonzero(counts.sum(1) < 3)[0]:  # W-5: every food card held (fewer than 3)
        short[key] = batched.PLAY_ID[tuple(int(k) for k in range(f) for _ in range(counts[key, k]))]
    return nthird, total.astype(np.int64), pairs.astype(np.int64), short, first, pair_ij


class FastSchmaus(BatchedSchmaus):
    """:class:`~spieltisch.rl.batched.BatchedSchmaus` with compiled ``step``, ``sample_legal``,
    ``deciding`` and ``reset_done`` (numba); same games for the same seed, shuffler and actions."""

    def __init__(self, batch: int, players: int, seed: int = 0, shuffler: Shuffler | None = None) -> None:
        self._kernel = _kernels()  # fails with the install command before any work
        super().__init__(batch, players, seed=seed, shuffler=shuffler)
        self._fallback = np.zeros(batch, dtype=bool)
        self._pend = np.zeros((batch, players), dtype=np.int64)
        self._pause = np.zeros(batch, dtype=np.int64)
        self._scratch = (
            np.zeros(players, dtype=np.int64),  # the individual results of one scoring
            np.zeros(MAX_CARDS, dtype=np.float64),  # one reshuffle's keys and their order
            np.zeros(MAX_CARDS, dtype=np.int64),
            np.zeros(self._kernel["kernels"].BUCKETS + 1, dtype=np.int64),
            np.zeros((10, players), dtype=np.int64),  # one game as it was (shuffler only)
            np.zeros((players, batched.KINDS), dtype=np.int64),
            np.zeros(5, dtype=np.int64),
        )

    def step(self, actions: IntArray) -> IntArray:
        """As :meth:`BatchedSchmaus.step` (trusted path: deciding seats' actions must be legal)."""
        actions = np.ascontiguousarray(actions, dtype=np.int64)
        out: IntArray = np.empty((self.batch, self.players), dtype=np.int64)
        n = self._kernel["kernels"].step(
            actions, self.hands, self.food, self.effects, self.pile, self.pile_len, self.disc,
            self.disc_len, self.scores, self.round, self.rounds, self.phase, self.plays, self.targets,
            self.x5, self.choosing, self.must, self.sealed, self.sealed_len, self.before_play,
            self.reshuffles, self._pend, self._pause, out, self._fallback, self.rng, self.shuffler is None,
            *self._scratch, *self._kernel["step_tables"],
        )  # fmt: skip
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
        out: IntArray = np.empty((self.batch, self.players), dtype=np.int64)
        self._kernel["kernels"].sample(
            rng, self.hands, self.phase, self.plays, self.choosing, self.targets, self.must,
            self.before_play, *self._kernel["sample_tables"], out,
        )  # fmt: skip
        return out

    def deciding(self) -> BoolArray:
        """As :meth:`BatchedSchmaus.deciding`."""
        out: BoolArray = np.empty((self.batch, self.players), dtype=bool)
        self._kernel["kernels"].deciding(self.phase, self.plays, self.choosing, self.must, out)
        return out

    def reset_done(self, which: BoolArray | None = None) -> None:
        """As :meth:`BatchedSchmaus.reset_done`: the same deals (numpy's shuffle of the same
        ``rng``), counted and started (W-3, W-5) in the kernel."""
        which = self.phase == OVER if which is None else which
        idx = np.flatnonzero(which)
        if not len(idx):
            return
        decks = self.rng.permuted(np.broadcast_to(batched.DECK_CARDS, (len(idx), MAX_CARDS)), axis=1)
        self._kernel["kernels"].deal(
            idx, decks, self.hands, self.food, self.effects, self.pile, self.pile_len, self.disc_len,
            self.scores, self.round, self.phase, self.plays, self.targets, self.x5, self.choosing,
            self.must, self.sealed_len, self.before_play, self.reshuffles, HAND_SIZE,
        )  # fmt: skip


__all__ = ["BACKENDS", "FastSchmaus", "make_schmaus", "numba_available", "require_numba"]
