"""``spieltisch bench engine``: random playouts and Scout move generation, one core.

A random playout enumerates every legal action at every decision (Scout's
scout & show combinations included) and picks one uniformly.
"""

from __future__ import annotations

import random
import time

from rich.console import Console
from rich.table import Table

from spieltisch.benchmarks.progress import Meter, planned
from spieltisch.engine import get_game
from spieltisch.engine.core import State

GAMES = ("scout", "schmaus")
PLAYERS = range(2, 6)


def random_playout(state: State, rng: random.Random) -> int:
    """Play ``state`` to the end with uniformly random legal actions; return the decisions."""
    decisions = 0
    while not state.is_over():
        for seat in state.to_move():
            ids = state.legal_action_ids(seat)
            state.apply_id(seat, ids[rng.randrange(len(ids))])
            decisions += 1
            if state.is_over():
                break
    return decisions


def measure_playouts(
    game: str, players: int, seconds: float, seed: int, meter: Meter | None = None
) -> tuple[float, float]:
    """(decisions/s, games/s) of random playouts for ``seconds``."""
    g = get_game(game)
    rng = random.Random(seed)
    games = decisions = 0
    start = time.perf_counter()
    while True:
        decisions += random_playout(g.new_state(players, seed + games), rng)
        games += 1
        if meter is not None:
            meter.lap()
        elapsed = time.perf_counter() - start
        if elapsed >= seconds:
            return decisions / elapsed, games / elapsed


def midgame_positions(players: int, count: int, seed: int) -> list[tuple[State, int]]:
    """Scout positions from the middle of random games, with the seat to move."""
    g = get_game("scout")
    rng = random.Random(seed)
    out: list[tuple[State, int]] = []
    while len(out) < count:
        state = g.new_state(players, rng.randrange(1 << 30))
        steps = rng.randrange(4, 30)
        for _ in range(steps):
            if state.is_over():
                break
            seat = state.to_move()[0]
            ids = state.legal_action_ids(seat)
            state.apply_id(seat, rng.choice(ids))
        if not state.is_over() and len(state.to_move()) == 1:
            out.append((state, state.to_move()[0]))
    return out


def measure_enumeration(
    players: int, seconds: float, seed: int, meter: Meter | None = None
) -> tuple[float, float]:
    """(enumerations/s, mean legal actions) on mid-game Scout positions."""
    positions = midgame_positions(players, 200, seed)
    if meter is not None:
        meter.last = time.perf_counter()  # the bar counts measuring time only
    calls = total = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        for state, seat in positions:
            total += len(state.legal_action_ids(seat))
            calls += 1
        if meter is not None:
            meter.lap()
    elapsed = time.perf_counter() - start
    return calls / elapsed, total / calls


def run(seconds: float = 2.0, seed: int = 1, console: Console | None = None, progress: bool = True) -> None:
    """Measure and print both tables, with a progress bar (rate, ETA) on stderr meanwhile."""
    console = console or Console()
    measurements = len(GAMES) * len(PLAYERS) + len(PLAYERS)
    shorter = "; shorter: --seconds 0.5" if seconds > 0.5 else ""
    console.print(f"Measuring {measurements} × {seconds:g} s (about {measurements * seconds:.0f} s){shorter}")
    table = Table(title="Random playouts, one core (target: 50,000 decisions/s)")
    for col in ("game", "players", "decisions/s", "games/s"):
        table.add_column(col, justify="right" if col != "game" else "left")
    enum = Table(title="Scout legal-action enumeration on mid-game positions")
    for col in ("players", "enumerations/s", "mean legal actions"):
        enum.add_column(col, justify="right")
    with planned(measurements * seconds, "random playouts", enabled=progress) as meter:
        for game in GAMES:
            for players in PLAYERS:
                meter.label(f"playouts: {game}, {players} players")
                dps, gps = measure_playouts(game, players, seconds, seed, meter)
                table.add_row(game, str(players), f"{dps:,.0f}", f"{gps:,.1f}")
        for players in PLAYERS:
            meter.label(f"enumeration: {players} players")
            eps, mean = measure_enumeration(players, seconds, seed, meter)
            enum.add_row(str(players), f"{eps:,.0f}", f"{mean:.1f}")
    console.print(table)
    console.print(enum)
