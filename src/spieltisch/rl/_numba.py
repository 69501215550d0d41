"""What both compiled (numba) backends share: whether numba is installed, their kernel
modules, and the addresses they draw a Generator's random numbers with."""

from __future__ import annotations

import ctypes
import importlib
from types import ModuleType

import numpy as np

from spieltisch.extras import missing_message


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


def kernels(module: str) -> ModuleType:
    """The kernel module ``module`` (its kernels compiled, or loaded from numba's cache, on
    first use); without numba the :class:`RuntimeError` of :func:`require_numba`."""
    require_numba()
    return importlib.import_module(module)


def bitgen_addresses(rng: np.random.Generator) -> list[int]:
    """What the kernels call ``rng``'s bit generator with: the address of its state and of its
    ``next_double`` and ``next_uint32`` C functions (valid while ``rng`` lives)."""
    c = rng.bit_generator.ctypes
    functions = [ctypes.cast(f, ctypes.c_void_p).value or 0 for f in (c.next_double, c.next_uint32)]
    return [c.state_address, *functions]
