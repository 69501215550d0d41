"""The batched Scout learner environment (docs/rl.md, "Batched learner environments"): its
observations and masks are exactly the single-game tensors of the same position, its rewards
the totals' changes, and every step returns a legal decision (autoreset)."""

from __future__ import annotations

from typing import Any

import pytest

np = pytest.importorskip("numpy")
pytest.importorskip("numba")

from spieltisch.rl.scout.batched import engine_dealer  # noqa: E402
from spieltisch.rl.scout.episode import ScoutEpisode  # noqa: E402
from spieltisch.rl.scout.vector import ScoutVectorEnv  # noqa: E402


class Mirror:
    """The reference engine following one batch slot through the env's action log: a new
    episode (the same deal: the env's dealer is the engine's) whenever a game ends."""

    def __init__(self, players: int, seed: int) -> None:
        self.players, self.seed, self.used = players, seed, 0
        self.episode = ScoutEpisode(players, seed)
        self.finished: list[list[int]] = []
        self.last: ScoutEpisode | None = None

    def follow(self, log: list[int]) -> ScoutEpisode:
        for action in log[self.used :]:
            ep = self.episode
            ep.step(ep.to_move()[0], action)
            if ep.is_over():
                self.finished.append(ep.scores())
                self.last = ep
                self.episode = ScoutEpisode(self.players, self.seed)
        self.used = len(log)
        return self.episode


def run(players: int, learners: Any, steps: int, games: int = 8) -> dict[str, int]:
    seeds = [players * 1000 + g for g in range(games)]
    env = ScoutVectorEnv(
        games, players, learners=learners, seed=players, dealer=engine_dealer(players, seeds), log=100_000
    )
    obs, mask = env.reset()
    mirrors = [Mirror(players, s) for s in seeds]
    rng = np.random.default_rng(players)
    seen = {"half": 0, "flip": 0, "ended": 0}
    learner_seats = set(range(players)) if learners == "all" else {learners}
    scores = [m.episode.scores() for m in mirrors]
    for step in range(steps):
        logs = env.action_log
        for g, mirror in enumerate(mirrors):
            ep = mirror.follow(logs[g])
            seat = int(env.seat[g])
            assert seat in ep.to_move() and seat in learner_seats
            expected = ep.observe(seat)
            assert obs[g].tobytes() == expected.tobytes(), f"game {g}, step {step}: observations differ"
            assert (mask[g] == ep.mask(seat).astype(bool)).all() and mask[g].any()
            seen["half"] += ep.pending is not None
            seen["flip"] += ep.state.phase == "flip"
        actions = env.sample(rng)
        obs, reward, terminated, truncated, mask = env.step(actions)
        assert not truncated.any()
        logs = env.action_log
        for g, mirror in enumerate(mirrors):
            before = scores[g]
            ended = len(mirror.finished)
            ep = mirror.follow(logs[g])
            if terminated[g]:  # S-12: the final totals, then a new game (autoreset)
                assert len(mirror.finished) == ended + 1
                after = mirror.finished[-1]
                assert env.final_totals[g].tolist() == after
                assert mirror.last is not None
                final = mirror.last.observe(min(learner_seats))  # every hand shown (S-12)
                assert env.final_obs[g].tobytes() == final.tobytes()
                seen["ended"] += 1
            else:
                after = ep.scores()
            assert reward[g].tolist() == [float(a - b) for a, b in zip(after, before, strict=True)]
            scores[g] = ep.scores()
    return seen


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_observations_and_masks_are_the_single_game_tensors(players: int) -> None:
    """A learner in the last seat against random opponents inside the batch: at every learner
    decision the observation is bit for bit ``ScoutEpisode.observe`` of the same position (the
    engine replaying every decision of the slot), the mask the episode's; rewards are the
    totals' changes; whole games end and are dealt anew within the step."""
    seen = run(players, players - 1, steps=150 if players > 2 else 60)
    assert seen["flip"] and seen["ended"]
    if players > 2:
        assert seen["half"]  # S-9 show halves: the hand after the pending scout


def test_self_play_returns_the_deciding_seat() -> None:
    """Every seat a learner: each step returns the next deciding seat's tensors."""
    assert run(4, "all", steps=150)["half"]
    assert run(2, "all", steps=120)["ended"]


def test_masks_are_never_empty_and_buffers_are_filled() -> None:
    env = ScoutVectorEnv(64, 3, learners=1, seed=5, max_steps=20)
    obs, mask = env.reset(seed=2)
    buf_obs, buf_mask = np.zeros_like(obs), np.zeros_like(mask)
    rng = np.random.default_rng(1)
    truncated_any = False
    for _ in range(60):
        reward, _, truncated = env.step_into(env.sample(rng), buf_obs, buf_mask)
        assert buf_mask.any(1).all() and (env.seat == 1).all()
        truncated_any |= bool(truncated.any())
        assert reward.shape == (64, 3)
    assert truncated_any  # max_steps learner decisions: truncated and dealt anew
    again = ScoutVectorEnv(64, 3, learners=1, seed=5, max_steps=20)
    assert (again.reset(seed=2)[0] == obs).all()  # the same deals from the same seed


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"opponents": "hard"}, "opponents must be among"),
        ({"learners": 7}, "distinct seats"),
        ({"learners": "some"}, "learners must be"),
        ({"max_steps": 0}, "max_steps"),
    ],
)
def test_bad_settings_are_named(kwargs: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        ScoutVectorEnv(4, 3, **kwargs)
