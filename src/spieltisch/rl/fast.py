"""An optional compiled (numba) backend of the batched Waschbär-Schmaus engine (docs/rl.md).

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

from typing import Any

import numpy as np

from spieltisch.extras import missing_message
from spieltisch.rl import batched
from spieltisch.rl.batched import (
    DISCARD,
    OVER,
    PLAY,
    TARGET,
    BatchedSchmaus,
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


__all__ = ["BACKENDS", "FastSchmaus", "make_schmaus", "numba_available", "require_numba"]
