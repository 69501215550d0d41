"""Compile the numba kernels of both batched engines and of their learner environments into
numba's on-disk cache.

scripts/test runs this in the background beside the type check, one process per game
(``compile_kernels.py scout`` and ``compile_kernels.py schmaus``: numba compiles on one
core, so the two games side by side take half the time of one after the other), so that
the tests (in every pytest-xdist worker and every process they start) load the kernels
from the cache instead of each compiling them again. Numba compiles a kernel once per set
of argument types, whatever the values, and the engines pass the same types whatever the
batch, players, ``dealer`` or ``shuffler``: calling each compiled method once compiles
all that the tests use. Without numba (extra ``rl-fast``) it says so and does nothing.

Every module a part needs is imported before its first compile, so that a build of the
compiled engine (scripts/build-fast) started afterwards cannot replace one under it.
"""

from __future__ import annotations

import sys
import time

from spieltisch.rl.fast import make_schmaus, make_scout, numba_available

GAMES = ("scout", "schmaus")


def compile_scout() -> None:
    import numpy as np

    from spieltisch.rl.scout.vector import ScoutVectorEnv  # the learner environment's kernels

    scout = make_scout(4, 3, seed=1, backend="numba")
    scout.legal_mask()
    scout.step(scout.sample_legal(np.random.default_rng(1)))
    scout.reset_done(np.ones(4, dtype=bool))
    scout.reset_done()
    for learners in (0, "all"):
        vector = ScoutVectorEnv(4, 3, learners=learners, seed=1)
        vector.reset()
        vector.step(vector.sample(np.random.default_rng(1)))


def compile_schmaus() -> None:
    import numpy as np

    from spieltisch.rl.schmaus.vector import SchmausVectorEnv

    schmaus = make_schmaus(4, 3, seed=1, backend="numba")
    schmaus.deciding()
    schmaus.legal_mask()
    schmaus.step(schmaus.sample_legal(np.random.default_rng(1)))
    schmaus.play_random(np.random.default_rng(2))
    schmaus.reset_done(np.ones(4, dtype=bool))
    schmaus.reset_done(np.array([True, False, False, False]))  # one game: a C-ordered deck array
    for learners in (0, "all"):
        vector = SchmausVectorEnv(4, 3, learners=learners, seed=1)
        vector.reset()
        vector.step(vector.sample(np.random.default_rng(1)))


def main(argv: list[str]) -> int:
    games = argv or list(GAMES)
    unknown = [game for game in games if game not in GAMES]
    if unknown:
        print(f"unknown game {unknown[0]!r}: choose from {', '.join(GAMES)}", file=sys.stderr)
        return 2
    if not numba_available():
        print("numba is not installed (extra rl-fast): no kernels to compile")
        return 0
    for game in games:
        start = time.process_time()
        compile_scout() if game == "scout" else compile_schmaus()
        spent = time.process_time() - start
        print(f"{game}: numba kernels compiled or loaded from the cache in {spent:.1f} CPU s")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
