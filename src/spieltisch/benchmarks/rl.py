"""``spieltisch bench rl``: the batched engine and the learning environments, one core.

Workload: every game of the batch plays uniformly random legal actions
(:meth:`~spieltisch.rl.batched.BatchedSchmaus.sample_legal`); a game that ends
is dealt anew at once. An *environment step* is one decision node of one game
(all seats that decide there act at once, e.g. all lays of a round); a *seat
decision* is one seat's action, the unit of ``spieltisch bench engine``.
Figures are per CPU second (``time.process_time``), as the machine is shared.
"""

from __future__ import annotations

import random
import time

from rich.console import Console
from rich.table import Table


def measure_batched(players: int, batch: int, seconds: float, seed: int) -> tuple[float, float]:
    """(environment steps, seat decisions) per CPU second of the batched engine."""
    import numpy as np

    from spieltisch.rl.batched import BatchedSchmaus, play_tables

    play_tables()  # built once per process, not part of the stepping figure
    env = BatchedSchmaus(batch, players, seed=seed)
    rng = np.random.default_rng(seed)
    steps = decisions = 0
    start = time.process_time()
    while True:
        deciding = env.deciding()
        env.step(env.sample_legal(rng))
        steps += batch
        decisions += int(deciding.sum())
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


def run(seconds: float = 2.0, seed: int = 1, batches: tuple[int, ...] = (256, 1024, 4096, 16384)) -> None:
    console = Console()
    table = Table(title="Batched Waschbär-Schmaus (numpy), random legal play, per CPU second")
    table.add_column("players")
    table.add_column("batch", justify="right")
    table.add_column("env steps/s", justify="right")
    table.add_column("seat decisions/s", justify="right")
    for players in (2, 3, 4, 5):
        for batch in batches:
            steps, decisions = measure_batched(players, batch, seconds, seed)
            table.add_row(str(players), str(batch), f"{steps:,.0f}", f"{decisions:,.0f}")
    console.print(table)
    envs = Table(title="One environment (Table: engine + learning ids + observation tensor), per CPU second")
    envs.add_column("game")
    envs.add_column("players")
    envs.add_column("decisions/s", justify="right")
    for game in ("scout", "schmaus"):
        for players in (2, 4):
            envs.add_row(game, str(players), f"{measure_env(game, players, seconds, seed):,.0f}")
    console.print(envs)
    console.print("Scout has no batched engine yet: its figure is the single environment above.")
