"""``spieltisch bench rl``: the batched engines and the learning environments, one core.

Workload: every game of the batch plays uniformly random legal actions
(``sample_legal`` of :class:`~spieltisch.rl.schmaus.batched.BatchedSchmaus` and
:class:`~spieltisch.rl.scout.batched.BatchedScout`); a game that ends is dealt
anew at once (the deal is timed, but counts no step). An *environment step* is
one decision of one game of the batch:

* Waschbär-Schmaus: one decision node (all seats that decide there act at
  once, e.g. all lays of a round);
* Scout: one seat's decision (flips are taken seat by seat; a scout & show is
  two decisions, its scout half and its show half, as in the learning action
  space).

A *seat decision* is one seat's action, the unit of ``spieltisch bench engine``.
A *learner step* (the last tables, with numba) is one decision of the learner's seat
with the opponents' decisions until its next one, the observation tensor and the mask
included: :class:`~spieltisch.rl.scout.vector.ScoutVectorEnv` (random, easy and medium
opponents inside the batch) and :class:`~spieltisch.rl.schmaus.vector.SchmausVectorEnv`
(random, easy and medium) at 1,024 games beside one ``gymnasium.make("spieltisch/Scout-v0")``
/ ``("spieltisch/Schmaus-v0")`` environment, in the same run.
"+ mask" also builds the full legal mask of every game at every step (what a
learner's policy needs). Figures are per CPU second (``time.process_time``), as
the machine is shared.

Backends: ``numpy`` (default) and ``numba`` (:mod:`spieltisch.rl.fast`, extra
``rl-fast``), side by side, for both games; numba's compile (or cache load)
time is measured once before and excluded from the figures. Every backend runs
the same workload: ``sample_legal`` (which counts the legal ids, as the mask
would, and picks one uniformly), ``step`` and ``reset_done``, plus
``legal_mask`` in the "+ mask" column. For Waschbär-Schmaus the "play_random"
column times the same games through the one-call path
:meth:`~spieltisch.rl.schmaus.batched.BatchedSchmaus.play_random` (``sample_legal`` and
``step`` in one pass; the numba backend's is one kernel) plus ``reset_done``.
"""

from __future__ import annotations

import random
import time
from typing import Any

from rich.console import Console
from rich.table import Table

from spieltisch.tables import fits, lighter, number_column

BATCHES = (64, 256, 1024, 4096, 16384)
PLAYERS = (2, 3, 4, 5)


def _engine(game: str, batch: int, players: int, seed: int, backend: str = "numpy") -> Any:
    if game == "schmaus":
        from spieltisch.rl.fast import make_schmaus
        from spieltisch.rl.schmaus.batched import play_tables

        play_tables()  # built once per process, not part of the stepping figure
        return make_schmaus(batch, players, seed=seed, backend=backend)
    from spieltisch.rl.fast import make_scout

    return make_scout(batch, players, seed=seed, backend=backend)


def compile_seconds(games: tuple[str, ...] = ("schmaus", "scout")) -> float:
    """CPU seconds to compile (or load from numba's cache) the numba kernels of ``games``
    and run them once (mask included; for Scout also the learner environment's, its
    opponents' included)."""
    import numpy as np

    start = time.process_time()
    for game in games:
        env = _engine(game, 2, 3, 0, backend="numba")
        env.legal_mask()
        env.step(env.sample_legal(np.random.default_rng(0)))
        if game == "schmaus":
            env.play_random(np.random.default_rng(0))
        env.reset_done()
        if game == "scout":
            from spieltisch.rl.scout.vector import ScoutVectorEnv

            learner = ScoutVectorEnv(2, 3, opponents="medium")  # the same kernels for every level
            learner.reset()
            learner.step(learner.sample(np.random.default_rng(0)))
    return time.process_time() - start


def measure_batched(
    players: int,
    batch: int,
    seconds: float,
    seed: int,
    game: str = "schmaus",
    mask: bool = False,
    backend: str = "numpy",
    fused: bool = False,
) -> tuple[float, float]:
    """(environment steps, seat decisions) per CPU second of a batched engine; ``fused``
    (Waschbär-Schmaus): through ``play_random`` instead of ``sample_legal`` + ``step``."""
    import numpy as np

    env = _engine(game, batch, players, seed, backend)
    rng = np.random.default_rng(seed)
    steps = decisions = 0
    start = time.process_time()
    while True:
        if mask:
            env.legal_mask()
        if fused:
            actions, _ = env.play_random(rng)
            decisions += int(np.count_nonzero(actions >= 0))
        else:
            actions = env.sample_legal(rng)
            if game == "schmaus":
                decisions += int(env.deciding().sum())
            else:
                decisions += batch
            env.step(actions)
        steps += batch  # every game is at a decision: finished games were dealt anew
        env.reset_done()
        elapsed = time.process_time() - start
        if elapsed >= seconds:
            return steps / elapsed, decisions / elapsed


def measure_env(game: str, players: int, seconds: float, seed: int) -> float:
    """Decisions per CPU second of one :class:`~spieltisch.rl.episode.Episode` (PettingZoo's core),
    tensors and masks included."""
    from spieltisch.rl.envs.frame import make_episode

    rng = random.Random(seed)
    decisions = 0
    start = time.process_time()
    games = 0
    while True:
        episode = make_episode(game, players, seed + games)
        games += 1
        while not episode.is_over():
            seat = episode.to_move()[0]
            episode.observe(seat)
            ids = episode.legal_ids(seat)
            episode.step(seat, ids[rng.randrange(len(ids))])
            decisions += 1
            elapsed = time.process_time() - start
            if elapsed >= seconds:
                return decisions / elapsed


LEARNER_BATCH = 1024
"""Games in the batch of the learner environment's figures."""


def measure_learner(
    players: int, batch: int, seconds: float, seed: int, opponents: str = "random"
) -> tuple[float, float]:
    """Learner steps per CPU second of :class:`~spieltisch.rl.scout.vector.ScoutVectorEnv`
    (learner in seat 0, ``opponents`` inside the batch), observations and masks written
    into reused buffers (``step_into``): (the environment's time only, with the learner's ids
    drawn by ``sample`` too)."""
    import numpy as np

    from spieltisch.rl.scout.vector import ScoutVectorEnv

    env = ScoutVectorEnv(batch, players, opponents=opponents, seed=seed)
    obs, mask = env.reset()
    rng = np.random.default_rng(seed)
    steps = 0
    in_env = 0.0
    start = time.process_time()
    while True:
        actions = env.sample(rng)
        before = time.process_time()
        env.step_into(actions, obs, mask)
        in_env += time.process_time() - before
        steps += batch
        elapsed = time.process_time() - start
        if elapsed >= seconds:
            return steps / in_env, steps / elapsed


SCOUT_V0 = "spieltisch/Scout-v0"
GYM_OPPONENTS = ("random", "medium")


def learner_table(players: tuple[int, ...], seconds: float, seed: int) -> Table:
    """Scout learner steps per CPU second, batched (numba) and through one Gymnasium env."""
    table = Table(
        title=f"Scout learner steps per CPU second, one core (learner in seat 0; batched: "
        f"ScoutVectorEnv, {LEARNER_BATCH:,} games, observations + masks; targets 1,000,000 vs "
        "random, 100,000 vs medium)"
    )
    number_column(table, "players", justify="left")
    for name in ("batched\nvs random", "+ learner\nsampling", "batched\nvs easy", "batched\nvs medium"):
        number_column(table, name)
    for name in ("one Gym\nvs random", "one Gym\nvs medium"):
        number_column(table, name)
    for p in players:
        env_only, with_sampling = measure_learner(p, LEARNER_BATCH, seconds, seed)
        easy, medium = (measure_learner(p, LEARNER_BATCH, seconds, seed, o)[0] for o in ("easy", "medium"))
        gym_random, gym_medium = (measure_gym_env(SCOUT_V0, p, o, seconds, seed) for o in GYM_OPPONENTS)
        table.add_row(
            str(p), f"{env_only:,.0f}", f"{with_sampling:,.0f}", f"{easy:,.0f}", f"{medium:,.0f}",
            f"{gym_random:,.0f}", f"{gym_medium:,.0f}",
        )  # fmt: skip
    return table


def measure_schmaus_learner(
    players: int, batch: int, seconds: float, seed: int, opponents: str = "random"
) -> tuple[float, float]:
    """Learner steps per CPU second of :class:`~spieltisch.rl.schmaus.vector.SchmausVectorEnv`
    (learner in seat 0, ``opponents`` inside the batch), observations and masks written
    into reused buffers (``step_into``): (the environment's time only, with the learner's ids
    drawn by ``sample`` too)."""
    import numpy as np

    from spieltisch.rl.schmaus.vector import SchmausVectorEnv

    env = SchmausVectorEnv(batch, players, opponents=opponents, seed=seed)
    obs, mask = env.reset()
    rng = np.random.default_rng(seed)
    env.sample(rng)  # its kernel compiled or loaded before the clock starts
    steps = 0
    in_env = 0.0
    start = time.process_time()
    while True:
        actions = env.sample(rng)
        before = time.process_time()
        env.step_into(actions, obs, mask)
        in_env += time.process_time() - before
        steps += batch
        elapsed = time.process_time() - start
        if elapsed >= seconds:
            return steps / in_env, steps / elapsed


def measure_gym_env(env_id: str, players: int, opponents: str, seconds: float, seed: int) -> float:
    """Learner steps per CPU second of one ``gymnasium.make(env_id)`` (today's path: the
    reference engine, the opponents' bots and the tensors in Python), the learner picking a
    random legal id from the mask."""
    import gymnasium
    import numpy as np

    import spieltisch.rl  # noqa: F401 - registers the environments

    env = gymnasium.make(env_id, players=players, opponents=opponents)
    rng = np.random.default_rng(seed)
    obs, _ = env.reset(seed=seed)
    steps = 0
    start = time.process_time()
    while True:
        obs, _, terminated, truncated, _ = env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        steps += 1
        if terminated or truncated:
            obs, _ = env.reset()
        elapsed = time.process_time() - start
        if elapsed >= seconds:
            return steps / elapsed


def schmaus_learner_table(players: tuple[int, ...], seconds: float, seed: int) -> Table:
    """Waschbär-Schmaus learner steps per CPU second, batched (numba) and through one
    Gymnasium env."""
    table = Table(
        title=f"Waschbär-Schmaus learner steps per CPU second, one core (learner in seat 0; batched: "
        f"SchmausVectorEnv, {LEARNER_BATCH:,} games, observations + masks; targets 1,000,000 vs random, "
        "100,000 vs medium)"
    )
    table.add_column("players")
    names = ("batched vs random", "+ learner sampling", "batched vs easy", "batched vs medium")
    for name in (*names, "one Gym env vs random", "one Gym env vs medium"):
        table.add_column(name, justify="right")
    for p in players:
        env_only, with_sampling = measure_schmaus_learner(p, LEARNER_BATCH, seconds, seed)
        easy, _ = measure_schmaus_learner(p, LEARNER_BATCH, seconds, seed, opponents="easy")
        medium, _ = measure_schmaus_learner(p, LEARNER_BATCH, seconds, seed, opponents="medium")
        gym = [measure_gym_env("spieltisch/Schmaus-v0", p, o, seconds, seed) for o in ("random", "medium")]
        cells = (env_only, with_sampling, easy, medium, *gym)
        table.add_row(str(p), *(f"{x:,.0f}" for x in cells))
    return table


TITLES = {"schmaus": "Batched Waschbär-Schmaus", "scout": "Batched Scout"}


def _batched_table(
    title: str, game: str, kinds: tuple[str, ...], rows: list[tuple[int, int, str, list[float]]], long: bool
) -> Table:
    """The batched figures: a column per backend and figure, or (``long``) a row per backend."""
    table = Table(title=title)
    number_column(table, "players", justify="left")
    number_column(table, "batch")
    heads = ["env\nsteps/s", "+ mask", *(["play_random"] if game == "schmaus" else [])]
    if long:
        table.add_column("backend")
        for head in [*heads, "seat\ndecisions/s"]:
            number_column(table, head)
        for p, batch, backend, figures in rows:
            table.add_row(str(p), str(batch), backend, *(f"{x:,.0f}" for x in figures))
        return table
    for backend in kinds:
        for head in heads:
            number_column(table, f"{backend}\n{head}")
    number_column(table, f"{kinds[-1]} seat\ndecisions/s")
    for i in range(0, len(rows), len(kinds)):
        group = rows[i : i + len(kinds)]
        cells = [f"{x:,.0f}" for *_, figures in group for x in figures[:-1]]
        table.add_row(str(group[0][0]), str(group[0][1]), *cells, f"{group[-1][3][-1]:,.0f}")
    return table


def run(
    seconds: float = 2.0,
    seed: int = 1,
    batches: tuple[int, ...] = BATCHES,
    players: tuple[int, ...] = PLAYERS,
    games: tuple[str, ...] = ("schmaus", "scout"),
    backends: tuple[str, ...] = ("numpy",),
) -> None:
    console = Console()
    if "numba" in backends:
        console.print(
            f"numba kernels compiled or loaded from the cache in {compile_seconds(games):.1f} CPU s "
            "(once per process; not in the figures)"
        )
    for game in games:
        step = "decision node of one game" if game == "schmaus" else "one seat's decision in one game"
        kinds = backends or ("numpy",)
        title = (
            f"{TITLES[game]} ({', '.join(kinds)}, one core): random legal play, per CPU second; "
            f"env step = {step}"
        )
        rows: list[tuple[int, int, str, list[float]]] = []
        for p in players:
            for batch in batches:
                for backend in kinds:
                    steps, decisions = measure_batched(p, batch, seconds, seed, game, backend=backend)
                    masked, _ = measure_batched(p, batch, seconds, seed, game, mask=True, backend=backend)
                    figures = [steps, masked]
                    if game == "schmaus":
                        figures.append(measure_batched(p, batch, seconds, seed, game, backend=backend,
                                                       fused=True)[0])  # fmt: skip
                    rows.append((p, batch, backend, [*figures, decisions]))
        table = _batched_table(title, game, kinds, rows, long=False)
        if not fits(table, console.width):  # a row per backend: the figures stay whole at 80 columns
            table = _batched_table(title, game, kinds, rows, long=True)
        console.print(lighter(table, console.width))
    envs = Table(title="One environment (an episode: engine + learning ids + observation tensor), per CPU s")
    envs.add_column("game")
    number_column(envs, "players", justify="left")
    number_column(envs, "decisions/s")
    for game in games:
        for p in sorted({min(players), max(players)}):
            envs.add_row(game, str(p), f"{measure_env(game, p, seconds, seed):,.0f}")
    console.print(envs)
    if "scout" in games and "numba" in backends:
        console.print(lighter(learner_table(players, seconds, seed), console.width))
    if "schmaus" in games and "numba" in backends:
        console.print(lighter(schmaus_learner_table(players, seconds, seed), console.width))
