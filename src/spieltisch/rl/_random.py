"""Random numbers inside the numba kernels of both batched engines, the very numbers numpy's
``Generator`` draws (imported only when numba is installed).

* ``bitgen`` (uint64, 3): a bit generator's state address and its ``next_double`` and
  ``next_uint32`` C functions (:func:`spieltisch.rl._numba.bitgen_addresses`):
  :func:`bitgen_double`, :func:`bitgen_interval` call them on the Generator's own state, so
  the stream is shared with numpy exactly (Scout's kernels).
* ``bits`` (uint64, 10, Waschbär-Schmaus' kernels): the same three words, then ``RNG_*``: the
  mode (1: numpy's PCG64 computed here, on a copy of its state that the caller loads before
  and stores back after the call, about 2 ns a number instead of 8 through the C function; 0:
  any other bit generator, through its C functions), and PCG64's state, increment and
  buffered 32-bit half: :func:`next_double`, :func:`random_interval`, :func:`shuffle`.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.extending import intrinsic

_OPTIONS: dict[str, Any] = {"cache": True, "_nrt": False}
_kernel = njit(**_OPTIONS)
"""Compiled once into numba's on-disk cache, without reference counting (nothing allocates)."""
_helper = njit(inline="always", **_OPTIONS)
"""Inlined into the kernels that call it (numba IR)."""


def _bitgen_call(ret: Any) -> Any:
    """An intrinsic ``call(function address, state address) -> ret``: one of the bit
    generator's ``next_*`` C functions (numba's own Generator support does the same)."""

    @intrinsic
    def call(typingctx: Any, fnptr: Any, state: Any) -> Any:
        def codegen(context: Any, builder: Any, sig: Any, args: Any) -> Any:
            address, st = args
            fnty = ir.FunctionType(context.get_value_type(ret), (st.type,))
            return builder.call(builder.inttoptr(address, fnty.as_pointer()), (st,))

        return ret(fnptr, state), codegen

    return call


_next_double = _bitgen_call(types.double)
_next_uint32 = _bitgen_call(types.uint32)
BITGEN_STATE, BITGEN_DOUBLE, BITGEN_UINT32 = 0, 1, 2
"""Places in ``bitgen``: the state address, ``next_double``, ``next_uint32``."""


@_kernel
def bitgen_double(bitgen: Any) -> float:
    """The Generator's ``random()``."""
    return _next_double(bitgen[BITGEN_DOUBLE], bitgen[BITGEN_STATE])  # type: ignore[no-any-return]


@_helper
def interval_mask(most: int) -> int:
    """The smallest all-ones bit mask covering ``most`` (numpy's ``random_interval``)."""
    mask = most
    for shift in (1, 2, 4, 8, 16):
        mask |= mask >> shift
    return mask


@_kernel
def bitgen_interval(bitgen: Any, most: int) -> int:
    """numpy's ``random_interval(bitgen, most)`` for ``most < 2**32``: a uniform number in
    0 .. most by masked rejection of 32-bit draws (what its shuffles use)."""
    if most == 0:
        return 0
    mask = interval_mask(most)
    while True:
        value = np.int64(_next_uint32(bitgen[BITGEN_UINT32], bitgen[BITGEN_STATE])) & mask
        if value <= most:
            return int(value)


PCG_HI = np.uint64(0x2360ED051FC65DA4)
PCG_LO = np.uint64(0x4385DF649FCCF645)
"""numpy's PCG64 multiplier (``PCG_DEFAULT_MULTIPLIER_128``), high and low 64 bits."""
M32 = np.uint64(0xFFFFFFFF)
U11, U32, U58, U63, U64 = np.uint64(11), np.uint64(32), np.uint64(58), np.uint64(63), np.uint64(64)
RNG_MODE, RNG_HI, RNG_LO, RNG_INC_HI, RNG_INC_LO, RNG_HAS32, RNG_U32 = range(3, 10)
"""Places in ``bits`` after the three words of ``bitgen`` (see the module)."""


@_helper
def mulhi(a: Any, b: Any) -> Any:
    """The high 64 bits of the 128-bit product of two uint64."""
    ll = (a & M32) * (b & M32)
    hl = (a >> U32) * (b & M32)
    lh = (a & M32) * (b >> U32)
    cross = (ll >> U32) + (hl & M32) + lh
    return (a >> U32) * (b >> U32) + (hl >> U32) + (cross >> U32)


@_helper
def pcg_next64(bits: Any) -> Any:
    """numpy's ``pcg64_next64``: the 128-bit LCG step (state * multiplier + increment), then
    the XSL-RR output of the new state."""
    hi, lo = bits[RNG_HI], bits[RNG_LO]
    low = lo * PCG_LO
    high = mulhi(lo, PCG_LO) + lo * PCG_HI + hi * PCG_LO
    lo2 = low + bits[RNG_INC_LO]
    hi2 = high + bits[RNG_INC_HI] + (np.uint64(1) if lo2 < low else np.uint64(0))
    bits[RNG_HI] = hi2
    bits[RNG_LO] = lo2
    x = hi2 ^ lo2
    rot = hi2 >> U58
    return (x >> rot) | (x << ((U64 - rot) & U63))


@_helper
def next_double(bits: Any) -> float:
    """The Generator's ``random()``: numpy's ``next_double`` (53 bits of one 64-bit draw)."""
    if bits[RNG_MODE] == 1:
        return float(pcg_next64(bits) >> U11) * (1.0 / 9007199254740992.0)
    return float(bitgen_double(bits))


@_helper
def random_interval(bits: Any, most: int) -> int:
    """numpy's ``random_interval(bitgen, most)`` for ``most < 2**32`` (as
    ``bitgen_interval``), its 32-bit draws buffered as numpy's PCG64 does."""
    if bits[RNG_MODE] != 1:
        return int(bitgen_interval(bits, most))
    if most == 0:
        return 0
    mask = interval_mask(most)
    while True:
        if bits[RNG_HAS32] != 0:
            bits[RNG_HAS32] = 0
            word = bits[RNG_U32]
        else:
            n = pcg_next64(bits)
            bits[RNG_HAS32] = 1
            bits[RNG_U32] = n >> U32
            word = n & M32
        value = np.int64(word) & mask
        if value <= most:
            return int(value)


@_helper
def shuffle(bits: Any, row: Any, n: int) -> None:
    """numpy's ``Generator.shuffle`` of ``row[:n]`` (one row of ``permuted``)."""
    for i in range(n - 1, 0, -1):
        j = random_interval(bits, i)
        row[i], row[j] = row[j], row[i]
