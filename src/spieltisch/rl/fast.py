"""The batched engines' backends (docs/rl.md): ``numpy`` (default) and ``numba`` (the extra
``rl-fast``: :class:`~spieltisch.rl.schmaus.fast.FastSchmaus`,
:class:`~spieltisch.rl.scout.fast.FastScout`, same games for the same seed and actions)."""

from __future__ import annotations

from spieltisch.rl._numba import numba_available, require_numba
from spieltisch.rl.schmaus.batched import BatchedSchmaus, Shuffler
from spieltisch.rl.schmaus.fast import FastSchmaus
from spieltisch.rl.scout.batched import BatchedScout, Dealer
from spieltisch.rl.scout.fast import FastScout

BACKENDS = ("numpy", "numba")


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


def make_scout(
    batch: int, players: int, seed: int = 0, dealer: Dealer | None = None, backend: str = "numpy"
) -> BatchedScout:
    """A batched Scout engine with ``backend`` ``"numpy"`` (default) or ``"numba"``."""
    engine = FastScout if _compiled(backend) else BatchedScout
    return engine(batch, players, seed=seed, dealer=dealer)


__all__ = [
    "BACKENDS",
    "FastSchmaus",
    "FastScout",
    "make_schmaus",
    "make_scout",
    "numba_available",
    "require_numba",
]
