"""The backend factories of :mod:`spieltisch.rl.fast` (docs/rl.md): a clear error for an
unknown backend, and for the numba backend without numba the command that installs it."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

pytest.importorskip("numpy")

from spieltisch.rl import fast
from spieltisch.rl.fast import make_schmaus, make_scout

FACTORIES = [(make_schmaus, "_KERNELS"), (make_scout, "_SCOUT_KERNELS")]
"""Each engine's factory and the module's cache of its compiled kernels."""


@pytest.mark.parametrize(("make", "kernels"), FACTORIES)
def test_unknown_backend_is_refused(make: Callable[..., Any], kernels: str) -> None:
    with pytest.raises(ValueError, match="unknown backend 'jax'; choose one of numpy, numba"):
        make(4, 3, backend="jax")


@pytest.mark.parametrize(("make", "kernels"), FACTORIES)
def test_numba_backend_without_numba_names_the_install_command(
    monkeypatch: pytest.MonkeyPatch, make: Callable[..., Any], kernels: str
) -> None:
    monkeypatch.setattr(fast, "numba_available", lambda: False)
    monkeypatch.setattr(fast, kernels, {})
    with pytest.raises(
        RuntimeError, match=r"needs the extra 'rl-fast' \(not installed\); install with: .*rl-fast"
    ):
        make(4, 3, backend="numba")
