"""The batched Scout opponents ``easy`` and ``medium`` (docs/rl.md, "Batched learner
environments"): every decision they take inside :class:`ScoutVectorEnv` is the decision the
single-state bot (:class:`EasyBot`, :class:`MediumBot`) takes from that seat's view in the
reference engine, its random draws being the batched bots' (:class:`BotDraws`)."""

from __future__ import annotations

from typing import Any

import pytest

np = pytest.importorskip("numpy")
pytest.importorskip("numba")

from spieltisch.bots.base import Bot  # noqa: E402
from spieltisch.bots.scout.bots import EasyBot, MediumBot  # noqa: E402
from spieltisch.rl.scout import actions as SA  # noqa: E402
from spieltisch.rl.scout.batched import engine_dealer  # noqa: E402
from spieltisch.rl.scout.episode import ScoutEpisode  # noqa: E402
from spieltisch.rl.scout.vector import BotDraws, ScoutVectorEnv  # noqa: E402

BOTS: dict[str, type[Bot]] = {"easy": EasyBot, "medium": MediumBot}


class Follower:
    """The reference engine following one batch slot through the env's action log, checking
    every easy or medium decision against the single-state bot of that seat."""

    def __init__(self, env: ScoutVectorEnv, seed: int, draws: BotDraws) -> None:
        self.env, self.seed, self.draws = env, seed, draws
        self.episode = ScoutEpisode(env.players, seed)
        self.used = 0
        self.checked: dict[str, int] = {"easy": 0, "medium": 0, "scout&show": 0, "games": 0}

    def follow(self, log: list[int]) -> None:
        while self.used < len(log):
            ep = self.episode
            seat = ep.to_move()[0]
            level = self.env.opponents[seat]
            if level in BOTS and ep.pending is None:
                self.used += self.check(seat, level, log)
            else:
                ep.step(seat, log[self.used])
                self.used += 1
            if ep.is_over():
                self.checked["games"] += 1
                self.episode = ScoutEpisode(self.env.players, self.seed)

    def check(self, seat: int, level: str, log: list[int]) -> int:
        """The bot's decision from the seat's view, with the batched bots' draws, is the next
        entry (or pair, a scout & show) of the log; returns how many entries it took."""
        ep = self.episode
        bot = BOTS[level]("scout", seat, 0)
        bot.rng = self.draws  # type: ignore[assignment]
        legal = sorted(ep.state.legal_action_ids(seat))  # the batched bots' order (documented)
        choice = bot.choose(ep.state.view(seat), legal)
        ids = expected_ids(ep, seat, choice)
        assert tuple(log[self.used : self.used + len(ids)]) == ids, (level, seat, choice)
        for a in ids:
            ep.step(seat, a)
        self.checked[level] += 1
        self.checked["scout&show"] += len(ids) == 2
        return len(ids)


def expected_ids(ep: ScoutEpisode, seat: int, engine_id: int) -> tuple[int, ...]:
    """The learning id (or scout & show pair) of an engine action at this position (folded as
    the learning action space folds the ids that mean the same action)."""
    table = ep.public_view()["table"]
    ids = SA._canonical(SA.from_engine_id(engine_id), bool(table) and len(table["cards"]) == 1)
    assert ids in {(a,) for a in ep.legal(seat).complete} | {
        (h, s) for h, shows in ep.legal(seat).halves.items() for s in shows
    }
    return ids


def play(players: int, opponents: Any, steps: int, games: int = 3, learner: int = 0) -> dict[str, int]:
    seeds = [players * 100 + g for g in range(games)]
    env = ScoutVectorEnv(
        games, players, learners=learner, opponents=opponents, seed=players,
        dealer=engine_dealer(players, seeds), log=1_000_000,
    )  # fmt: skip
    draws = BotDraws(np.random.default_rng())
    draws.rng.bit_generator.state = env.bot_rng.bit_generator.state  # the same stream
    followers = [Follower(env, s, draws) for s in seeds]
    env.reset()
    rng = np.random.default_rng(players)
    for _ in range(steps):
        for g, follower in enumerate(followers):  # the kernel's order: game by game
            follower.follow(env.action_log[g])
        env.step(env.sample(rng))
    for g, follower in enumerate(followers):
        follower.follow(env.action_log[g])
    return {k: sum(f.checked[k] for f in followers) for k in followers[0].checked}


@pytest.mark.parametrize("players", [2, 3, 4, 5])
@pytest.mark.parametrize("level", ["easy", "medium"])
def test_batched_bots_decide_as_the_single_state_bots(players: int, level: str) -> None:
    """Every decision of the batched opponents (flips, shows, scouts, scout & shows) over
    whole seeded games is the single-state bot's from that seat's view in the engine."""
    seen = play(players, level, steps=120 if players > 2 else 80)
    assert seen[level] > 100 and seen["games"] >= 1
    if players > 2 and level == "medium":  # easy never scouts & shows
        assert seen["scout&show"]


def test_mixed_opponents_per_seat() -> None:
    """A level per other seat: random ones among them draw from the engine's Generator, the
    bots from theirs (still the single-state bots' decisions)."""
    seen = play(4, ["medium", "random", "easy"], steps=120, learner=2)
    assert seen["easy"] and seen["medium"]


def test_bad_opponents_are_named() -> None:
    with pytest.raises(ValueError, match="among"):
        ScoutVectorEnv(2, 3, opponents="hard")
    with pytest.raises(ValueError, match="one per other seat"):
        ScoutVectorEnv(2, 3, opponents=["easy"])
