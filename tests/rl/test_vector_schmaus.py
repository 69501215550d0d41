"""The batched Waschbär-Schmaus learner environment (docs/rl.md, "Batched learner
environments"): its observations and masks are exactly the single-game tensors of the same
position in the AEC order, its rewards the totals' changes, and every step returns a legal
decision (autoreset)."""

from __future__ import annotations

from typing import Any

import pytest

np = pytest.importorskip("numpy")
pytest.importorskip("numba")

from spieltisch.bots.schmaus import EasyBot, MediumBot  # noqa: E402
from spieltisch.engine import State, get_game  # noqa: E402
from spieltisch.rl.replay import replay_in_engine  # noqa: E402
from spieltisch.rl.schmaus.batched import X5_BASE  # noqa: E402
from spieltisch.rl.schmaus.episode import SchmausEpisode  # noqa: E402
from spieltisch.rl.schmaus.vector import SchmausVectorEnv  # noqa: E402


class Mirror:
    """The reference engine following one batch slot through the env's action log (each id
    for the lowest seat to move, as the AEC environment asks): a new episode (the same deal)
    whenever a game ends."""

    def __init__(self, players: int, seed: int) -> None:
        self.players, self.seed, self.used = players, seed, 0
        self.episode = SchmausEpisode(players, seed)
        self.finished: list[list[int]] = []
        self.last: SchmausEpisode | None = None

    def follow(self, log: list[int]) -> SchmausEpisode:
        for action in log[self.used :]:
            ep = self.episode
            ep.step(ep.to_move()[0], action)
            if ep.is_over():
                self.finished.append(ep.scores())
                self.last = ep
                self.episode = SchmausEpisode(self.players, self.seed)
        self.used = len(log)
        return self.episode


def crowded(players: int, seed: int, extra: int) -> State:
    """The engine's deal of ``seed`` with the top ``extra`` cards of the draw pile in seat 0's
    hand as well, so seat 0 must discard before laying (W-16, W-5 keeps a lay)."""
    game = get_game("schmaus")
    data = game.new_state(players, seed).to_json()
    pile = data["draw_pile"]  # the top first
    data["hands"][0] = data["hands"][0] + pile[:extra]
    data["draw_pile"] = pile[extra:]
    data["must_discard"] = [max(0, len(h) - 12) for h in data["hands"]]
    data["phase"], data["discard_before_play"] = "discard", True
    return game.state_from_json(data)


def run(players: int, learners: Any, steps: int, games: int = 6, crowd: int = 0) -> dict[str, int]:
    """``crowd``: the first game of every slot starts with that many more cards in seat 0's
    hand (:func:`crowded`), loaded into the batched state as ``BatchedSchmaus.load_states``."""
    seeds = [players * 1000 + g for g in range(games)]
    env = SchmausVectorEnv(games, players, learners=learners, seed=players, engine_seeds=seeds, log=100_000)
    obs, mask = env.reset()
    mirrors = [Mirror(players, s) for s in seeds]
    if crowd:
        starts = [crowded(players, s, crowd) for s in seeds]
        env.engine.load_states(np.arange(games), starts)
        for mirror, state in zip(mirrors, starts, strict=True):
            mirror.episode = SchmausEpisode(players, mirror.seed, state=state.clone())
        env.observe_into(obs, mask)
    rng = np.random.default_rng(players)
    seen = {"play": 0, "target": 0, "discard": 0, "ended": 0, "reshuffled": 0}
    learner_seats = set(range(players)) if learners == "all" else {learners}
    scores = [m.episode.scores() for m in mirrors]
    for step in range(steps):
        logs = env.action_log
        for g, mirror in enumerate(mirrors):
            ep = mirror.follow(logs[g])
            seat = int(env.seat[g])
            assert seat == ep.to_move()[0] and seat in learner_seats
            expected = ep.observe(seat)
            assert obs[g].tobytes() == expected.tobytes(), (
                f"game {g}, step {step}: observations differ at {np.nonzero(obs[g] != expected)[0]}"
            )
            legal = np.zeros(mask.shape[1], dtype=bool)
            legal[ep.legal_ids(seat)] = True
            assert (mask[g] == legal).all() and mask[g].any()
            seen[ep.public_view()["phase"]] += 1
            seen["reshuffled"] += ep.state.reshuffles > 0
        actions = env.sample(rng)
        obs, reward, terminated, truncated, mask = env.step(actions)
        assert not truncated.any()
        logs = env.action_log
        for g, mirror in enumerate(mirrors):
            before = scores[g]
            ended = len(mirror.finished)
            ep = mirror.follow(logs[g])
            if terminated[g]:  # W-18: the final totals, then a new game (autoreset)
                assert len(mirror.finished) == ended + 1
                after = mirror.finished[-1]
                assert env.final_totals[g].tolist() == after
                assert mirror.last is not None
                final = mirror.last.observe(min(learner_seats))
                assert env.final_obs[g].tobytes() == final.tobytes()
                seen["ended"] += 1
            else:
                assert len(mirror.finished) == ended
                after = ep.scores()
            assert reward[g].tolist() == [float(a - b) for a, b in zip(after, before, strict=True)]
            scores[g] = ep.scores()
    return seen


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_observations_and_masks_are_the_single_game_tensors(players: int) -> None:
    """A learner in the last seat against random opponents inside the batch: at every learner
    decision the observation is bit for bit ``SchmausEpisode.observe`` of the same position (the
    engine replaying every decision of the slot in the AEC order), the mask the episode's;
    rewards are the totals' changes; whole games end and are dealt anew within the step."""
    seen = run(players, players - 1, steps=80 if players < 4 else 110)
    assert seen["play"] and seen["ended"]
    assert seen["reshuffled"] or players == 2  # W-17 (two players seldom run the pile out)


def test_self_play_returns_the_deciding_seat() -> None:
    """Every seat a learner: each step returns the next deciding seat's tensors, through
    grocer / ×5 choices and discards too."""
    seen = run(3, "all", steps=400, games=4)
    assert seen["target"] and seen["ended"]


@pytest.mark.parametrize("players", [2, 5])
def test_discards_are_sealed_one_at_a_time(players: int) -> None:
    """W-16 (rare in random play): seat 0 starts over the hand limit and discards one card per
    decision, sealed (the others see its hand size, not the cards) until the last is made;
    the tensors stay the episode's through the game."""
    seen = run(players, "all", steps=60, games=3, crowd=8)
    assert seen["discard"] >= 3 * 3  # three games, 15 cards or more: three discards each


def test_a_slot_replays_in_the_engine() -> None:
    """``replay_in_engine`` takes the env's action log (one id per decision) and plays the
    slot's first game to its end with the same totals."""
    env = SchmausVectorEnv(2, 3, learners=1, seed=4, engine_seeds=[7, 8], log=10_000)
    env.reset()
    rng = np.random.default_rng(0)
    ended = np.zeros(2, dtype=bool)
    totals = np.zeros((2, 3), dtype=np.int64)
    while not ended.all():
        _, _, terminated, _, _ = env.step(env.sample(rng))
        totals[terminated & ~ended] = env.final_totals[terminated & ~ended]
        ended |= terminated
    for g, seed in enumerate([7, 8]):
        states = replay_in_engine("schmaus", 3, seed, env.action_log[g])
        assert states[-1].is_over() and states[-1].final_scores() == totals[g].tolist()


def test_masks_are_never_empty_and_buffers_are_filled() -> None:
    env = SchmausVectorEnv(64, 4, learners=2, seed=5, max_steps=8)
    obs, mask = env.reset(seed=2)
    buf_obs, buf_mask = np.zeros_like(obs), np.zeros_like(mask)
    rng = np.random.default_rng(1)
    truncated_any = False
    for _ in range(60):
        reward, _, truncated = env.step_into(env.sample(rng), buf_obs, buf_mask)
        assert buf_mask.any(1).all() and (env.seat == 2).all()
        truncated_any |= bool(truncated.any())
        assert reward.shape == (64, 4)
    assert truncated_any  # max_steps learner decisions: truncated and dealt anew
    again = SchmausVectorEnv(64, 4, learners=2, seed=5, max_steps=8)
    assert (again.reset(seed=2)[0] == obs).all()  # the same deals from the same seed


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"opponents": "hard"}, "opponents must be one of"),
        ({"learners": 7}, "distinct seats"),
        ({"learners": "some"}, "learners must be"),
        ({"max_steps": 0}, "max_steps"),
        ({"engine_seeds": [1]}, "one seed per game"),
    ],
)
def test_bad_settings_are_named(kwargs: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        SchmausVectorEnv(4, 3, **kwargs)


class Draws:
    """An ``rng`` for a bot that gives the two numbers the kernel's easy policy uses."""

    def __init__(self, u1: float, u2: float) -> None:
        self.u1, self.u2 = u1, u2

    def random(self) -> float:
        return self.u1

    def randrange(self, n: int) -> int:
        return int(self.u2 * n)


@pytest.mark.parametrize(("players", "crowd"), [(2, 0), (3, 0), (4, 8), (5, 0)])
def test_easy_opponents_decide_as_the_easy_bot(players: int, crowd: int) -> None:
    """The kernel's easy policy, at every decision of self-play games (lays, grocer targets, ×5
    cards; with ``crowd`` discards too), is ``EasyBot.choose`` of the seat's view given the same
    two random numbers."""
    games = 8
    seeds = [players * 77 + g for g in range(games)]
    env = SchmausVectorEnv(games, players, learners="all", seed=players, engine_seeds=seeds, log=100_000)
    env.reset()
    mirrors = [Mirror(players, s) for s in seeds]
    if crowd:
        starts = [crowded(players, s, crowd) for s in seeds]
        env.engine.load_states(np.arange(games), starts)
        for mirror, state in zip(mirrors, starts, strict=True):
            mirror.episode = SchmausEpisode(players, mirror.seed, state=state.clone())
        env.observe_into(np.zeros_like(env.final_obs), np.zeros((games, 183), dtype=bool))
    rng = np.random.default_rng(players)
    kinds: dict[str, int] = {}
    out = np.zeros(games, dtype=np.int64)
    for _ in range(150):
        u1, u2 = rng.random(games), rng.random(games)
        env._k.easy(env.engine._state(), env._tb, env.seat, u1, u2, out)
        logs = env.action_log
        for g, mirror in enumerate(mirrors):
            ep = mirror.follow(logs[g])
            seat = int(env.seat[g])
            bot = EasyBot("schmaus", seat, 0)
            bot.rng = Draws(float(u1[g]), float(u2[g]))  # type: ignore[assignment]
            state = ep.state
            assert out[g] == bot.choose(state.view(seat), state.legal_action_ids(seat))
            phase = ep.public_view()["phase"]
            kinds[phase] = kinds.get(phase, 0) + 1
        env.step(out)
    assert kinds["play"] > 500 and kinds.get("target", 0) > 10
    assert kinds.get("discard", 0) >= (3 * games if crowd else 0)


class Samples:
    """An ``rng`` for a bot whose ``sample(pool, k)`` draws as the kernel's medium policy does
    from the given uniform numbers (``us[t, i]``: pick i of call t): CPython's list variant of
    ``random.sample`` with ``randbelow(m)`` taken as ``int(u * m)``."""

    def __init__(self, us: Any) -> None:
        self.us, self.calls, self.pools = us, 0, []

    def sample(self, population: list[int], k: int) -> list[int]:
        pool = list(population)
        self.pools.append(len(pool))
        out = []
        for i in range(k):
            m = len(pool) - i
            j = int(float(self.us[self.calls, i]) * m)
            out.append(pool[j])
            pool[j] = pool[m - 1]
        self.calls += 1
        return out


@pytest.mark.parametrize(("players", "crowd"), [(2, 0), (3, 0), (4, 8), (5, 0)])
def test_medium_opponents_decide_as_the_medium_bot(players: int, crowd: int) -> None:
    """The kernel's medium policy, at every decision of self-play games (lays, grocer targets,
    ×5 cards; with ``crowd`` discards too), is ``MediumBot.choose`` of the seat's view when its
    opponent model's 32 ``rng.sample`` calls return the hands the kernel sampled from the same
    uniform numbers: the same pool of unseen cards, hand size, scores and gains."""
    games = 6
    seeds = [players * 91 + g for g in range(games)]
    env = SchmausVectorEnv(games, players, learners="all", seed=players, engine_seeds=seeds, log=100_000)
    env.reset()
    mirrors = [Mirror(players, s) for s in seeds]
    if crowd:
        starts = [crowded(players, s, crowd) for s in seeds]
        env.engine.load_states(np.arange(games), starts)
        for mirror, state in zip(mirrors, starts, strict=True):
            mirror.episode = SchmausEpisode(players, mirror.seed, state=state.clone())
        env.observe_into(np.zeros_like(env.final_obs), np.zeros((games, 183), dtype=bool))
    rng = np.random.default_rng(players + 10)
    kinds: dict[str, int] = {}
    sampled = 0
    out = np.zeros(games, dtype=np.int64)
    bits = np.zeros(10, dtype=np.uint64)
    for _ in range(120):
        us = rng.random((games, 32, 54))
        env._k.medium(env.engine._state(), env._tb, env._scratch, env.seat, us, bits, out)
        logs = env.action_log
        for g, mirror in enumerate(mirrors):
            ep = mirror.follow(logs[g])
            seat = int(env.seat[g])
            bot = MediumBot("schmaus", seat, 0)
            draws = Samples(us[g])
            bot.rng = draws  # type: ignore[assignment]
            state = ep.state
            legal = state.legal_action_ids(seat)
            assert out[g] == bot.choose(state.view(seat), legal)
            assert draws.calls in (0, 32)
            sampled += draws.calls > 0
            phase = ep.public_view()["phase"]
            if phase == "target":  # a grocer's target (W-9) or a ×5 card (W-11)
                phase = "grocer" if min(legal) < X5_BASE else "x5"
            kinds[phase] = kinds.get(phase, 0) + 1
        env.step(out)
    assert kinds["play"] > 400 and sampled > 300
    assert kinds.get("x5", 0) >= 3
    assert kinds.get("grocer", 0) >= 3 or players == 2  # at 2 players a target has one choice
    assert kinds.get("discard", 0) >= (3 * games if crowd else 0)


def test_easy_opponents_play_inside_the_batch() -> None:
    """``opponents="easy"`` and ``"medium"``: whole games against the kernel's bots, every
    returned position the learner's own with a legal mask; easy outscores random opponents,
    medium outscores easy."""
    totals = {}
    for level in ("random", "easy", "medium"):
        env = SchmausVectorEnv(256, 4, learners=0, opponents=level, seed=3)
        _, mask = env.reset(seed=1)
        rng = np.random.default_rng(2)
        finals = []
        for _ in range(60):
            _, _, terminated, _, mask = env.step(env.sample(rng))
            assert mask.any(1).all() and (env.seat == 0).all()
            finals.append(env.final_totals[terminated])
        totals[level] = np.concatenate(finals)[:, 1:].mean()
    assert totals["medium"] > totals["easy"] > totals["random"]


def test_bench_rl_prints_learner_steps_beside_one_gym_env() -> None:
    """``spieltisch bench rl --game schmaus --backend numba`` ends with the learner table:
    batched against random and easy beside one Gymnasium env, every figure positive."""
    from typer.testing import CliRunner

    from spieltisch.cli import app

    args = ["bench", "rl", "--seconds", "0.02", "--batches", "8", "--players", "3", "--game", "schmaus"]
    result = CliRunner().invoke(app, [*args, "--backend", "numba"], env={"COLUMNS": "250"})
    assert result.exit_code == 0, result.output
    text = " ".join(result.output.split())
    assert "Waschbär-Schmaus learner steps per CPU second" in text
    assert "batched vs easy" in text and "batched vs medium" in text and "Gym env vs medium" in text
    row = [line for line in result.output.splitlines() if line.startswith("│ 3 ")][-1]
    cells = [c.strip().replace(",", "") for c in row.split("│") if c.strip()]
    assert cells[0] == "3" and len(cells) == 7 and min(float(c) for c in cells[1:]) > 0
