"""``spieltisch bench rl``: the batched engines and the learning environments, one core.

Workload: every game of the batch plays uniformly random legal actions
(``sample_legal`` of :class:`~spieltisch.rl.batched.BatchedSchmaus` and
:class:`~spieltisch.rl.batched_scout.BatchedScout`); a game that ends is dealt
anew at once (the deal is timed, but counts no step). An *environment step* is
one decision of one game of the batch:

* Waschbär-Schmaus: one decision node (all seats that decide there act at
  once, e.g. all lays of a round);
* Scout: one seat's decision (flips are taken seat by seat; a scout & show is
  two decisions, its scout half and its show half, as in the learning action
  space).

A *seat decision* is one seat's action, the unit of ``spieltisch bench engine``.
"+ mask" also builds the full legal mask of every game at every step (what a
learner's policy needs). Figures are per CPU second (``time.process_time``), as
the machine is shared.
"""

from __future__ import annotations

import random
import time
from typing import Any

from rich.console import Console
from rich.table import Table

BATCHES = (64, 256, 1024, 4096, 16384)
PLAYERS = (2, 3, 4, 5)


def _engine(game: str, batch: int, players: int, seed: int) -> Any:
    if game == "schmaus":
        from spieltisch.rl.batched import BatchedSchmaus, play_tables

        play_tables()  # built once per process, not part of the stepping figure
        return BatchedSchmaus(batch, players, seed=seed)
    from spieltisch.rl.batched_scout import BatchedScout

    return BatchedScout(batch, players, seed=seed)


def measure_batched(
    players: int, batch: int, seconds: float, seed: int, game: str = "schmaus", mask: bool = False
) -> tuple[float, float]:
    """(environment steps, seat decisions) per CPU second of a batched engine."""
    import numpy as np

    env = _engine(game, batch, players, seed)
    rng = np.random.default_rng(seed)
    steps = decisions = 0
    start = time.process_time()
    while True:
        if mask:
            env.legal_mask()
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
    """Decisions per CPU second of one :class:`~spieltisch.rl.tables.Table` (PettingZoo's core),
    tensors and masks included."""
    from spieltisch.rl.tables import make_table

    rng = random.Random(seed)
    decisions = 0
    start = time.process_time()
    games = 0
    while True:
        table = make_table(game, players, seed + games)
        games += 1
        while not table.is_over():
            seat = table.to_move()[0]
            table.observe(seat)
            ids = table.legal_ids(seat)
            table.step(seat, ids[rng.randrange(len(ids))])
            decisions += 1
            elapsed = time.process_time() - start
            if elapsed >= seconds:
                return decisions / elapsed


TITLES = {"schmaus": "Batched Waschbär-Schmaus", "scout": "Batched Scout"}


def run(
    seconds: float = 2.0,
    seed: int = 1,
    batches: tuple[int, ...] = BATCHES,
    players: tuple[int, ...] = PLAYERS,
    games: tuple[str, ...] = ("schmaus", "scout"),
) -> None:
    console = Console()
    for game in games:
        step = "decision node of one game" if game == "schmaus" else "one seat's decision in one game"
        table = Table(
            title=f"{TITLES[game]} (numpy, one core): random legal play, per CPU second; env step = {step}"
        )
        table.add_column("players")
        table.add_column("batch", justify="right")
        table.add_column("env steps/s", justify="right")
        table.add_column("+ mask", justify="right")
        table.add_column("seat decisions/s", justify="right")
        for p in players:
            for batch in batches:
                steps, decisions = measure_batched(p, batch, seconds, seed, game)
                masked, _ = measure_batched(p, batch, seconds, seed, game, mask=True)
                table.add_row(str(p), str(batch), f"{steps:,.0f}", f"{masked:,.0f}", f"{decisions:,.0f}")
        console.print(table)
    envs = Table(title="One environment (Table: engine + learning ids + observation tensor), per CPU second")
    envs.add_column("game")
    envs.add_column("players")
    envs.add_column("decisions/s", justify="right")
    for game in games:
        for p in sorted({min(players), max(players)}):
            envs.add_row(game, str(p), f"{measure_env(game, p, seconds, seed):,.0f}")
    console.print(envs)
