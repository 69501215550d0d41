"""What both batched numpy engines (:class:`~spieltisch.rl.scout.batched.BatchedScout`,
:class:`~spieltisch.rl.schmaus.batched.BatchedSchmaus`) share: the batch, its seats and
Generator, the narrower arrays of the compiled backends, which games a reset deals, and the
check of a mask buffer."""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any, ClassVar

import numpy as np
import numpy.typing as npt

IntArray = npt.NDArray[np.int64]
BoolArray = npt.NDArray[np.bool_]


class BatchedGames(ABC):
    """B games of one game, ``players`` seats each, dealt from one Generator (``rng``)."""

    _dtypes: ClassVar[dict[str, type[np.integer[Any]]]] = {}
    """Narrower dtypes for some state arrays (the numba backends', :mod:`spieltisch.rl.fast`)."""
    _over: ClassVar[int]
    """The phase of a game that is over."""
    phase: npt.NDArray[np.integer[Any]]

    def __init__(self, batch: int, players: int, seed: int, title: str, ruling: str) -> None:
        if not 2 <= players <= 5:
            raise ValueError(f"{title} is for 2 to 5 players, not {players} ({ruling})")
        if batch < 1:
            raise ValueError("the batch needs at least one game")
        self.batch, self.players = batch, players
        self.rng = np.random.default_rng(seed)

    def _deal_all(self) -> None:
        """The end of ``__init__``, once every state array is made: the narrower dtypes, then a
        deal of every game."""
        for name, dtype in self._dtypes.items():
            setattr(self, name, getattr(self, name).astype(dtype))
        self.reset_done(np.ones(self.batch, dtype=bool))

    @abstractmethod
    def reset_done(self, which: BoolArray | None = None) -> None:
        """Deal new games where ``which`` (default: every game that is over)."""

    def _to_deal(self, which: BoolArray | None) -> IntArray:
        """The games ``reset_done(which)`` deals, in order."""
        return np.nonzero(self.phase == self._over if which is None else which)[0]


def check_mask_out(out: BoolArray, shape: tuple[int, ...]) -> None:
    """A :class:`ValueError` unless ``out`` can take a legal mask of ``shape`` (``legal_mask(out=…)``
    of both batched engines and backends)."""
    if not isinstance(out, np.ndarray) or out.dtype != np.bool_ or out.shape != shape:
        got = f"{out.dtype} {out.shape}" if isinstance(out, np.ndarray) else type(out).__name__
        raise ValueError(f"out must be a bool array of shape {shape}, not {got}")
    if not out.flags.writeable:
        raise ValueError("out must be writable")
