"""Golden digest of 520 seeded Waschbär-Schmaus games, for engine speed work (issue #9).

13 rule-option sets x 2-5 players x 10 seeds, random legal actions (half through
``apply``, half through ``apply_id``); at every decision it digests every seat's
and the spectator's view, the full JSON state, the seats to move, every seat's
legal ids and mask, the legality of one random action id, and checks that a
clone and a JSON round trip play on identically; at the end the history, final
state, view, round summaries and outcome. The engine must give the digest below
before and after a change that is meant to keep every game the same:

    .venv/bin/python scripts/schmaus_golden.py            # the build Python imports
    scripts/build-fast --clean && .venv/bin/python scripts/schmaus_golden.py

About 50 CPU seconds in pure Python. A change to the views or the JSON form
changes the digest too: then check the games otherwise and update ``EXPECTED``.
"""

from __future__ import annotations

import hashlib
import json
import random
import sys
from typing import Any

from spieltisch.benchmarks.engine import engine_build
from spieltisch.engine import get_game

EXPECTED = "aac3c64ebd9b8845fd2123aabdb56a6bacfe3ffbe46148552abb60b7cadda4ee"
OPTIONS: list[dict[str, Any]] = [
    {}, {"short_hand": "play-what-you-can"}, {"hunter_draw": "nobody"}, {"rounds": "draw"},
    {"rounds": 7}, {"refill_to": 5, "hand_limit": 9}, {"hand_limit": 3, "hand_size": 3},
    {"loser_draws": 0}, {"loser_draws": 5, "hand_limit": 8}, {"deck": {"HUNTER": 0, "GUARDIAN": 5}},
    {"deck": {"GROCER": 6, "X5": 6}, "hand_size": 9},
    {"hand_size": 2, "short_hand": "play-what-you-can", "deck": {"F1": 2}},
    {"refill_to": 12, "loser_draws": 3, "rounds": 20, "deck": {"X2": 5, "GARBAGE": 5}},
]  # fmt: skip


def digest() -> str:
    g = get_game("schmaus")
    total = hashlib.sha256()
    for oi, opts in enumerate(OPTIONS):
        for players in (2, 3, 4, 5):
            d = hashlib.sha256()
            for seed in range(10):
                try:
                    state = g.new_state(players, 1000 * oi + seed, opts)
                except Exception as e:  # an impossible deck for this many players
                    d.update(repr(e).encode())
                    continue
                rng = random.Random(seed)
                while not state.is_over():
                    for seat in [None, *range(players)]:
                        d.update(json.dumps(state.view(seat), sort_keys=True).encode())
                    js = state.to_json()
                    d.update(json.dumps(js, sort_keys=True).encode())
                    back = g.state_from_json(js)
                    assert back.to_json() == js
                    copy = state.clone()
                    movers = state.to_move()
                    d.update(repr(movers).encode())
                    seat = rng.choice(movers)
                    ids = state.legal_action_ids(seat)
                    d.update(repr([state.legal_action_ids(s) for s in range(players)]).encode())
                    probe = rng.randrange(g.num_actions(players))
                    d.update(repr(state.is_legal(seat, state.action_from_id(probe))).encode())
                    d.update(repr(state.legal_mask(seat)).encode())
                    a = ids[rng.randrange(len(ids))]
                    if rng.random() < 0.5:
                        state.apply(seat, state.action_from_id(a))
                    else:
                        state.apply_id(seat, a)
                    copy.apply_id(seat, a)
                    assert copy.to_json() == state.to_json()
                    assert copy.results == state.results  # type: ignore[attr-defined]
                    back.apply_id(seat, a)
                    assert back.to_json() == state.to_json()
                end = [state.history, state.to_json(), state.view(None), state.results, state.outcome()]  # type: ignore[attr-defined]
                d.update(json.dumps(end, sort_keys=True, default=repr).encode())
            total.update(d.digest())
    return total.hexdigest()


if __name__ == "__main__":
    found = digest()
    print(
        f"{engine_build()}: {found} ({'as expected' if found == EXPECTED else 'DIFFERENT from ' + EXPECTED})"
    )
    sys.exit(0 if found == EXPECTED else 1)
