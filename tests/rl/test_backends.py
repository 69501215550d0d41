"""The backend factories of :mod:`spieltisch.rl.fast` (docs/rl.md): a clear error for an
unknown backend, and for the numba backend without numba the command that installs it."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

pytest.importorskip("numpy")

from spieltisch.rl import _numba, fast
from spieltisch.rl.fast import make_schmaus, make_scout

FACTORIES = [make_schmaus, make_scout]
"""Each engine's factory."""


@pytest.mark.parametrize("make", FACTORIES)
def test_unknown_backend_is_refused(make: Callable[..., Any]) -> None:
    with pytest.raises(ValueError, match="unknown backend 'jax'; choose one of numpy, numba"):
        make(4, 3, backend="jax")


@pytest.mark.parametrize("make", FACTORIES)
def test_numba_backend_without_numba_names_the_install_command(
    monkeypatch: pytest.MonkeyPatch, make: Callable[..., Any]
) -> None:
    monkeypatch.setattr(_numba, "numba_available", lambda: False)
    with pytest.raises(
        RuntimeError, match=r"needs the extra 'rl-fast' \(not installed\); install with: .*rl-fast"
    ):
        make(4, 3, backend="numba")


needs_numba = pytest.mark.skipif(not fast.numba_available(), reason="numba not installed (extra rl-fast)")
ENGINES = [
    pytest.param(make, backend, id=f"{make.__name__}-{backend}", marks=marks)
    for make in (make_schmaus, make_scout)
    for backend, marks in (("numpy", ()), ("numba", needs_numba))
]


@pytest.mark.parametrize(("make", "backend"), ENGINES)
def test_legal_mask_is_a_new_array_unless_out_is_given(make: Callable[..., Any], backend: str) -> None:
    """The documented contract of ``legal_mask`` (docs/rl.md): a new array per call, which a
    learner may keep; with ``out=`` every entry of ``out`` is overwritten (C-ordered or not)
    and ``out`` is returned."""
    import numpy as np

    env = make(8, 3, seed=1, backend=backend)
    rng = np.random.default_rng(2)
    first = env.legal_mask()
    kept = first.copy()
    second = env.legal_mask()
    assert not np.shares_memory(first, second)
    assert (first == second).all() and first.any()
    second[...] = True  # changing a returned mask changes neither the engine nor an earlier mask
    assert (env.legal_mask() == kept).all()
    assert (first == kept).all()
    buffer = np.ones((3, *first.shape), dtype=bool)  # a rollout buffer, garbage in it
    wide = np.ones((*first.shape[:-1], 2 * first.shape[-1]), dtype=bool)
    for t in range(3):
        expected = env.legal_mask()
        row = buffer[t]
        assert env.legal_mask(out=row) is row
        assert (buffer[t] == expected).all()
        strided = wide[..., ::2]  # not C-ordered
        assert env.legal_mask(out=strided) is strided
        assert (strided == expected).all()
        env.step(env.sample_legal(rng))
        env.reset_done()
    assert (buffer[0] == kept).all()  # the step after it left the stored mask as it was


@pytest.mark.parametrize(("make", "backend"), ENGINES)
def test_legal_mask_refuses_an_unfit_out(make: Callable[..., Any], backend: str) -> None:
    import numpy as np

    env = make(8, 3, seed=1, backend=backend)
    shape = env.legal_mask().shape
    with pytest.raises(ValueError, match=r"out must be a bool array of shape .*, not int8"):
        env.legal_mask(out=np.zeros(shape, dtype=np.int8))
    with pytest.raises(ValueError, match=r"out must be a bool array of shape .*, not bool \(9,"):
        env.legal_mask(out=np.zeros((9, *shape[1:]), dtype=bool))
    readonly = np.zeros(shape, dtype=bool)
    readonly.flags.writeable = False
    with pytest.raises(ValueError, match="out must be writable"):
        env.legal_mask(out=readonly)
