"""Golden games: the default ``hard`` of each game, its one kept baseline and
the other built-in levels play these seeded games exactly as pinned here.

Each case plays whole games with one spec per seat and digests the action
history (sha256). A change meant to keep the bots' play must leave every
digest as it is; a change meant to change a level's play updates the digests
of that level's cases (and says so in the changelog). The budgets are small
so that the games take seconds; ``test_default_budgets`` plays one game of
each game's default ``hard`` at its default budget.

The ``slow`` engine digest (``test_schmaus_engine_digest``) pins the
Waschbär-Schmaus engine itself over 520 random games under 13 rule-option
sets: views, JSON states, legal ids and masks, clones and round trips.
"""

from __future__ import annotations

import hashlib
import json
import random
from collections.abc import Sequence
from typing import Any

import pytest

from spieltisch.bots import make_bot
from spieltisch.bots.match import play_match
from spieltisch.engine import get_game


def game_digest(game: str, specs: Sequence[str], seed: int, options: dict[str, Any] | None = None) -> str:
    """The sha256 of the action history of one game of ``specs`` (seat order)."""
    bots = [make_bot(game, spec, seat, seed) for seat, spec in enumerate(specs)]
    result = play_match(game, bots, seed, options)
    assert not any(result.faults), result.fault_messages
    return hashlib.sha256(json.dumps(result.state.history, sort_keys=True, default=repr).encode()).hexdigest()


def digests(
    game: str, specs: Sequence[str], seeds: Sequence[int], options: dict[str, Any] | None = None
) -> str:
    """Per seed, the first 16 hex digits of its game's digest."""
    return " ".join(game_digest(game, specs, seed, options)[:16] for seed in seeds)


GOLDEN: list[tuple[str, tuple[str, ...], tuple[int, ...], str]] = [
    # Scout: the default hard (v12) and the baseline v7, with the candidates of
    # 2-4 players (6 + 2) and of 5 (10 + 3).
    (
        "scout",
        ("hard:playouts=40", "hard@v7:playouts=40", "medium"),
        (1, 2),
        "e5903c95ed4b6589 cba07ab21e9b8c3f",
    ),
    ("scout", ("hard@v12:playouts=30", "medium", "hard@v7:playouts=30", "easy"), (3,), "0c724706538fb235"),
    (
        "scout",
        ("hard:playouts=30", "hard@v7:playouts=30", "medium", "easy", "random"),
        (4,),
        "e71e041bdb7c5adf",
    ),
    ("scout", ("easy", "medium", "random", "medium"), (5, 6), "e6facb1e8a9d5882 7721dc22cf55f5fd"),
    # Waschbär-Schmaus: the default hard (v8) and the baseline v5, at 4 players
    # (where v5's fitted value applies) and at 3 and 5 (where it does not).
    (
        "schmaus",
        ("hard:samples=16", "hard@v5:samples=16", "medium", "easy"),
        (1, 2, 3, 4, 5, 6),
        "050f46e63ba5a93e 51448271efed85ab eb2a6055c5dbd11a "
        "b8bb35aa3729b6bf 9248bd08857ef338 62566fcda4647427",
    ),
    (
        "schmaus",
        ("hard@v8:samples=8", "medium", "hard@v5:samples=8", "hard@v8:samples=8"),
        (7, 8),
        "38655622b5d64a5d eee6b44ebcfa94aa",
    ),
    ("schmaus", ("hard@v8:samples=5", "medium:samples=8", "hard@v5:samples=5"), (3,), "9ad604f458ca0a37"),
    (
        "schmaus",
        ("hard:samples=4", "hard@v5:samples=4", "medium", "easy", "random"),
        (4,),
        "d42a2e8724a431e2",
    ),
    (
        "schmaus",
        ("easy", "medium", "random", "medium:samples=4"),
        (5, 6),
        "5e68553da0eff683 fa7251b6b5a7ecc2",
    ),
]


@pytest.mark.parametrize(("game", "specs", "seeds", "expected"), GOLDEN, ids=lambda v: str(v))
def test_golden_games(game: str, specs: tuple[str, ...], seeds: tuple[int, ...], expected: str) -> None:
    assert digests(game, specs, seeds) == expected


def test_golden_schmaus_rule_options() -> None:
    """Under other rule options hard@v5's fitted value gives way to its fallback objective."""
    specs = ("hard:samples=12", "hard@v5:samples=12", "medium", "medium")
    options = {"hunter_draw": "nobody", "short_hand": "play-what-you-can"}
    assert digests("schmaus", specs, (1, 2), options) == "0b49c7a8004b6a72 4cbbc9cda36589b4"


def test_default_budgets() -> None:
    """One game each of the default ``hard`` at its default budget against medium."""
    assert game_digest("schmaus", ("hard", "medium", "medium", "medium"), 7)[:16] == "f92db9b95c561e20"
    assert game_digest("scout", ("hard", "medium", "medium"), 7)[:16] == "eaa81b52d08aa736"


SCHMAUS_ENGINE_DIGEST = "aac3c64ebd9b8845fd2123aabdb56a6bacfe3ffbe46148552abb60b7cadda4ee"
SCHMAUS_OPTIONS: list[dict[str, Any]] = [
    {}, {"short_hand": "play-what-you-can"}, {"hunter_draw": "nobody"}, {"rounds": "draw"},
    {"rounds": 7}, {"refill_to": 5, "hand_limit": 9}, {"hand_limit": 3, "hand_size": 3},
    {"loser_draws": 0}, {"loser_draws": 5, "hand_limit": 8}, {"deck": {"HUNTER": 0, "GUARDIAN": 5}},
    {"deck": {"GROCER": 6, "X5": 6}, "hand_size": 9},
    {"hand_size": 2, "short_hand": "play-what-you-can", "deck": {"F1": 2}},
    {"refill_to": 12, "loser_draws": 3, "rounds": 20, "deck": {"X2": 5, "GARBAGE": 5}},
]  # fmt: skip


def schmaus_engine_digest() -> str:
    """13 rule-option sets x 2-5 players x 10 seeds, random legal actions (half
    through ``apply``, half through ``apply_id``); at every decision it digests
    every seat's and the spectator's view, the full JSON state, the seats to
    move, every seat's legal ids and mask and the legality of one random action
    id, and checks that a clone and a JSON round trip play on identically; at
    the end the history, final state, view, round summaries and outcome."""
    g = get_game("schmaus")
    total = hashlib.sha256()
    for oi, opts in enumerate(SCHMAUS_OPTIONS):
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


@pytest.mark.slow
def test_schmaus_engine_digest() -> None:
    """The Waschbär-Schmaus engine plays 520 random games as pinned (about 50 CPU s)."""
    assert schmaus_engine_digest() == SCHMAUS_ENGINE_DIGEST
