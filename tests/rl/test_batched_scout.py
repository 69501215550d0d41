"""The batched Scout engine plays exactly like the reference engine (docs/rl.md).

Thousands of seeded random trajectories at 2 to 5 players: flips (S-5), shows,
scouts, scout & show as two decisions (S-9), round ends (S-10, S-15) and the
scoring (S-11, S-16) are compared game by game, node by node, with the legal
masks against :func:`spieltisch.rl.scout.actions.legal` of the engine's list.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

np = pytest.importorskip("numpy")

from spieltisch.engine import get_game  # noqa: E402
from spieltisch.rl.fast import BACKENDS, make_scout, numba_available  # noqa: E402
from spieltisch.rl.replay import replay_in_engine  # noqa: E402
from spieltisch.rl.scout import actions as scout_actions  # noqa: E402
from spieltisch.rl.scout import batched as batched_scout  # noqa: E402
from spieltisch.rl.scout.batched import BatchedScout, engine_dealer  # noqa: E402

needs_numba = pytest.mark.skipif(not numba_available(), reason="numba not installed (extra rl-fast)")

SCOUT = get_game("scout")
PHASES = {batched_scout.FLIP: "flip", batched_scout.PLAY: "play", batched_scout.OVER: "over"}


def snapshot(state: Any) -> dict[str, Any]:
    return {
        "hands": [list(h) for h in state.hands],
        "table": list(state.table),
        "owner": state.owner,
        "current": state.current,
        "phase": state.phase,
        "pending": list(state.pending) if state.phase == "flip" else None,
        "chips": list(state.chips),
        "collected": list(state.collected),
        "tokens": list(state.tokens),
        "totals": list(state.totals),
        "round": state.round,
    }


def card_ids(top: Any, bottom: Any) -> list[int]:
    """The engine's ids (top * 11 + bottom) of the cards with these faces, in order."""
    ids: list[int] = (top.astype(np.int64) * 11 + bottom).tolist()
    return ids


def batched_table(env: BatchedScout, g: int) -> list[int]:
    n = int(env.table_size[g])
    return card_ids(env.table_top[g, :n], env.table_bottom[g, :n])


def batched_snapshot(env: BatchedScout, g: int) -> dict[str, Any]:
    phase = PHASES[int(env.phase[g])]
    sizes = env.size[g].tolist()
    return {
        "hands": [
            card_ids(env.top[g, s, : sizes[s]], env.bottom[g, s, : sizes[s]]) for s in range(env.players)
        ],
        "table": batched_table(env, g),
        "owner": None if env.owner[g] < 0 else int(env.owner[g]),
        "current": int(env.current[g]),
        "phase": phase,
        "pending": env.pending[g].tolist() if phase == "flip" else None,
        "chips": env.chips[g].tolist(),
        "collected": env.collected[g].tolist(),
        "tokens": env.tokens[g].tolist(),
        "totals": env.totals[g].tolist(),
        "round": int(env.round[g]),
    }


def public(state: Any) -> tuple[Any, ...]:
    return (
        state.phase,
        state.current,
        state.owner,
        list(state.table),
        state.totals,
        [len(h) for h in state.hands],
    )


def batched_public(env: BatchedScout, g: int) -> tuple[Any, ...]:
    """:func:`public` of game ``g`` (the same fields as :func:`batched_snapshot` gives)."""
    return (
        PHASES[int(env.phase[g])],
        int(env.current[g]),
        None if env.owner[g] < 0 else int(env.owner[g]),
        batched_table(env, g),
        env.totals[g].tolist(),
        env.size[g].tolist(),
    )


def run_against_engine(
    players: int, games: int, seed: int, full_every: int = 4, backend: str = "numpy"
) -> tuple[int, set[str]]:
    """Random legal play in both engines. Every ``full_every``-th game is compared in
    full at every node (state and mask against the engine's legal list); the others
    at every node on the public state, in full at every deal and at the end, and each
    of their ids is applied through the engine's checked path (an illegal id raises).
    Returns (decisions, kinds of decision and round end seen)."""
    seeds = [seed * 100_000 + i for i in range(games)]
    states = [SCOUT.new_state(players, s) for s in seeds]
    env = make_scout(games, players, dealer=engine_dealer(players, seeds), backend=backend)
    rng = random.Random(seed)
    pending: list[int | None] = [None] * games
    legal: list[scout_actions.ScoutLegal | None] = [None] * games
    kinds: set[str] = set()
    decisions = 0
    while not all(s.is_over() for s in states):
        mask = env.legal_mask()
        to_move = env.to_move()
        actions = np.full(games, -1)
        for g, state in enumerate(states):
            if state.is_over():
                assert env.phase[g] == batched_scout.OVER and to_move[g] == -1
                assert not mask[g].any()
                continue
            seat = int(to_move[g])
            full = g % full_every == 0
            if pending[g] is None:
                if full or state.phase == "flip":
                    assert batched_snapshot(env, g) == snapshot(state), f"game {g} differs after {decisions}"
                else:
                    assert batched_public(env, g) == public(state), f"game {g} differs after {decisions}"
                assert seat in state.to_move()
            ids = np.nonzero(mask[g])[0].tolist()
            choice = rng.choice(ids)
            actions[g] = choice
            kinds.add(scout_actions.decode(choice).kind)
            if full:
                if pending[g] is None:
                    legal[g] = scout_actions.legal(state.legal_action_ids(seat), len(state.table))
                here = legal[g]
                assert here is not None
                assert ids == here.ids(pending[g]), f"game {g}: masks differ after {decisions} decisions"
                engine_id = here.engine_id(choice, pending[g])
                if engine_id is not None:
                    state.apply_id(seat, engine_id)
            elif choice < scout_actions.SCOUT_SHOW_BASE:
                state.apply(seat, scout_actions.to_text(choice, pending[g]))
            pending[g] = choice if choice >= scout_actions.SCOUT_SHOW_BASE else None
        before = env.totals.copy()
        change = env.step(actions)
        assert (change == env.totals - before).all()
        decisions += int((actions >= 0).sum())
    for g, state in enumerate(states):
        assert batched_snapshot(env, g) == snapshot(state)
        kinds.update(f"ended_by {r['ended_by']}" for r in state.results)
    return decisions, kinds


@pytest.mark.slow  # about 10-25 s each: the reference engine's Python side dominates
@pytest.mark.parametrize(("players", "games"), [(2, 1200), (3, 400), (4, 300), (5, 250)])
def test_batched_scout_matches_the_reference_engine(players: int, games: int) -> None:
    """2,150 seeded random games in all, every decision compared."""
    decisions, kinds = run_against_engine(players, games, seed=players)
    assert decisions > games * players * 10
    assert {"keep", "flip", "show", "scout"} <= kinds
    if players == 2:
        assert "ended_by stuck" in kinds  # S-15 (c)
    else:  # S-9, S-10 (a), S-10 (b)
        assert {"scout_show", "ended_by all_scouted", "ended_by hand_empty"} <= kinds


@needs_numba
@pytest.mark.slow  # a few seconds each: the reference engine's Python side dominates
@pytest.mark.parametrize(("players", "games"), [(2, 200), (3, 40), (4, 30), (5, 24)])
def test_numba_backend_matches_the_reference_engine(players: int, games: int) -> None:
    """The same comparison for the numba backend (its kernels; deals by the engine's dealer)."""
    decisions, kinds = run_against_engine(players, games, seed=players + 10, full_every=2, backend="numba")
    assert decisions > games * players * 10
    assert {"keep", "flip", "show", "scout"} <= kinds
    if players > 2:
        assert "scout_show" in kinds


STATE = (
    "top", "bottom", "size", "table_top", "table_bottom", "table_size", "table_key", "owner",
    "current", "phase", "pending", "chips", "collected", "tokens", "totals", "round",
    "first_start", "set_aside", "half_at",
)  # fmt: skip


@needs_numba
@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_numba_backend_plays_the_same_games_as_numpy(players: int) -> None:
    """Same seed, same sampling rng, own deals (S-1 .. S-5 from the engine's Generator): the
    same masks, sampled ids, total changes and every state array at every step, over
    hundreds of whole games with new deals."""
    games = 96
    envs = [make_scout(games, players, seed=players, backend=b) for b in BACKENDS]
    rngs = [np.random.default_rng(players + 100) for _ in BACKENDS]
    finished = halves = 0
    for step in range(250 + 150 * players):  # a 5-player random game takes 590-980 decisions
        if step % 4 == 0:
            masks = [env.legal_mask() for env in envs]
            assert (masks[0] == masks[1]).all(), f"masks differ at step {step}"
        actions = [env.sample_legal(rng) for env, rng in zip(envs, rngs, strict=True)]
        assert (actions[0] == actions[1]).all(), f"sampled ids differ at step {step}"
        if step % 4 == 0:
            live = envs[0].phase != batched_scout.OVER
            assert masks[0][np.arange(games), actions[0]][live].all()
        halves += int((actions[0] >= scout_actions.SCOUT_SHOW_BASE).sum())
        changes = [env.step(a) for env, a in zip(envs, actions, strict=True)]
        assert (changes[0] == changes[1]).all(), f"total changes differ at step {step}"
        finished += int((envs[0].phase == batched_scout.OVER).sum())
        for env in envs:
            env.reset_done()
        for name in STATE:
            assert np.array_equal(getattr(envs[0], name), getattr(envs[1], name)), f"{name}, step {step}"
    assert finished > 0
    assert (halves > 0) == (players > 2)


@needs_numba
def test_numba_backend_resets_the_games_asked_for() -> None:
    envs = [make_scout(32, 3, seed=5, backend=b) for b in BACKENDS]
    rngs = [np.random.default_rng(6) for _ in BACKENDS]
    for _ in range(40):
        for env, rng in zip(envs, rngs, strict=True):
            env.step(env.sample_legal(rng))
    which = np.arange(32) % 3 == 0
    for env in envs:
        env.reset_done(which)
    for name in STATE:
        assert np.array_equal(getattr(envs[0], name), getattr(envs[1], name)), name
    assert (envs[1].phase[which] == batched_scout.FLIP).all() and (envs[1].totals[which] == 0).all()


def assert_uniform(env: BatchedScout, rng: Any) -> set[int]:
    """All games at one position: the sampled ids are exactly the legal ones, about equally often."""
    mask = env.legal_mask()
    assert (mask == mask[0]).all()
    legal = set(np.nonzero(mask[0])[0].tolist())
    counts = np.bincount(env.sample_legal(rng), minlength=scout_actions.NUM_ACTIONS)
    assert set(np.nonzero(counts)[0].tolist()) == legal
    expected = env.batch / len(legal)
    assert counts[sorted(legal)].min() > expected / 3 and counts.max() < expected * 3
    return legal


def test_sampling_is_uniform_over_the_legal_ids() -> None:
    """Many copies of one position, then of one scout half: shows, scouts, scout halves, show halves."""
    deck = engine_dealer(4, [7])(0, 0)
    games = 12_000
    env = BatchedScout(games, 4, dealer=lambda g, r: deck)
    rng = np.random.default_rng(3)
    for _ in range(4):
        env.step(np.full(games, scout_actions.KEEP))  # S-5, one seat at a time
    env.step(np.full(games, int(np.nonzero(env.legal_mask()[0])[0][0])))  # the same first show everywhere
    legal = assert_uniform(env, rng)
    halves = sorted(i for i in legal if i >= scout_actions.SCOUT_SHOW_BASE)
    assert halves and any(scout_actions.SHOW_BASE <= i < scout_actions.SCOUT_BASE for i in legal)
    env.step(np.full(games, halves[len(halves) // 2]))  # S-9: the same scout half everywhere
    shows = assert_uniform(env, rng)
    assert all(scout_actions.SHOW_BASE <= i < scout_actions.SCOUT_BASE for i in shows)


def test_random_play_with_own_deals_and_reset() -> None:
    env = BatchedScout(64, 4, seed=1)
    rng = np.random.default_rng(2)
    finished = 0
    for _ in range(600):
        mask = env.legal_mask()
        actions = env.sample_legal(rng)
        assert mask[np.arange(64), actions].all()
        env.step(actions)
        held = env.size.sum(1) + env.table_size + env.collected.sum(1)
        assert (held == 4 * 11).all()  # every dealt card in a hand, on the table or captured (S-2, S-6)
        finished += int((env.phase == batched_scout.OVER).sum())
        env.reset_done()
    assert finished > 0


@pytest.mark.parametrize("backend", ["numpy", pytest.param("numba", marks=needs_numba)])
def test_bad_sizes_are_refused(backend: str) -> None:
    with pytest.raises(ValueError, match="2 to 5 players"):
        make_scout(4, 6, backend=backend)
    with pytest.raises(ValueError, match="at least one game"):
        make_scout(0, 3, backend=backend)


@pytest.mark.parametrize("backend", ["numpy", pytest.param("numba", marks=needs_numba)])
@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_replay_in_engine_reaches_the_batched_states(players: int, backend: str) -> None:
    """Whole batched games (own random ids) replayed in the reference engine with the public
    helper: the same state after every step (S-1 .. S-16)."""
    games = 6
    seeds = [players * 1000 + g for g in range(games)]
    env = make_scout(games, players, dealer=engine_dealer(players, seeds), backend=backend)
    rng = np.random.default_rng(players)
    log: list[list[int]] = [[] for _ in range(games)]
    seen: list[list[dict[str, Any]]] = [[] for _ in range(games)]
    while (env.phase != batched_scout.OVER).any():
        actions = env.sample_legal(rng)
        env.step(actions)
        for g in np.nonzero(actions >= 0)[0]:
            log[g].append(int(actions[g]))
            seen[g].append(batched_snapshot(env, g) if env.half_at[g] < 0 else {})
    for g in range(games):
        states = replay_in_engine("scout", players, seeds[g], log[g])
        assert len(states) == len(log[g]) and states[-1].is_over()
        for step, (state, snap) in enumerate(zip(states, seen[g], strict=True)):
            if snap:  # after a scout half the engine waits for the show half
                assert snapshot(state) == snap, f"game {g} differs at step {step}"


def test_replay_in_engine_refuses_an_illegal_id() -> None:
    with pytest.raises(ValueError):  # three keeps, then a scout with no active set (S-8)
        replay_in_engine("scout", 3, 1, [0, 0, 0, scout_actions.SCOUT_BASE])
