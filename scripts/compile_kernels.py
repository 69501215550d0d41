"""Compile the numba kernels of both batched engines and of Scout's learner environment into
numba's on-disk cache.

scripts/test runs this in the background beside the type check, so that the tests (in
every pytest-xdist worker and every process they start) load the kernels from the cache
instead of each compiling them again (about 100 CPU s for both sets). Numba
compiles a kernel once per set of argument types, whatever the values, and the engines
pass the same types whatever the batch, players, ``dealer`` or ``shuffler``: calling each
compiled method once compiles all that the tests use. Without numba (extra ``rl-fast``)
it says so and does nothing.
"""

from __future__ import annotations

import sys
import time

from spieltisch.rl.fast import make_schmaus, make_scout, numba_available


def main() -> int:
    if not numba_available():
        print("numba is not installed (extra rl-fast): no kernels to compile")
        return 0
    import numpy as np

    start = time.process_time()
    schmaus = make_schmaus(4, 3, seed=1, backend="numba")
    schmaus.deciding()
    schmaus.legal_mask()
    schmaus.step(schmaus.sample_legal(np.random.default_rng(1)))
    schmaus.play_random(np.random.default_rng(2))
    schmaus.reset_done(np.ones(4, dtype=bool))
    schmaus.reset_done(np.array([True, False, False, False]))  # one game: a C-ordered deck array
    scout = make_scout(4, 3, seed=1, backend="numba")
    scout.legal_mask()
    scout.step(scout.sample_legal(np.random.default_rng(1)))
    scout.reset_done(np.ones(4, dtype=bool))
    scout.reset_done()
    from spieltisch.rl.scout.vector import ScoutVectorEnv  # the learner environment's kernels

    for learners in (0, "all"):
        vector = ScoutVectorEnv(4, 3, learners=learners, seed=1)
        vector.reset()
        vector.step(vector.sample(np.random.default_rng(1)))
    from spieltisch.rl.schmaus.vector import SchmausVectorEnv

    for learners in (0, "all"):
        schmaus_vector = SchmausVectorEnv(4, 3, learners=learners, seed=1)
        schmaus_vector.reset()
        schmaus_vector.step(schmaus_vector.sample(np.random.default_rng(1)))
    print(f"numba kernels compiled or loaded from the cache: {time.process_time() - start:.1f} CPU s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
