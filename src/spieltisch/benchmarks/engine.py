"""``spieltisch bench engine``: random playouts and Scout move generation, one core.

Workload: a random playout lists every legal action of every seat to move
(``legal_action_ids``, Scout's scout & show combinations included) and picks
one uniformly (``apply_id``), from a new game (seed 1, 2, ...) to its end.
Scout's flip decisions are played but not counted as decisions. Figures are
per CPU second of this process (``time.process_time``), so they hold on a
shared, busy machine; the engine build (compiled or pure Python) is named.
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
TARGET = 200_000
"""Decisions per CPU second per core (issue #9)."""


def random_playout(state: State, rng: random.Random, count_flips: bool = False) -> int:
    """Play ``state`` to the end with uniformly random legal actions; return the
    decisions made (Scout's flip decisions only with ``count_flips``)."""
    decisions = 0
    scout = state.game.name == "scout"
    while not state.is_over():
        for seat in state.to_move():
            ids = state.legal_action_ids(seat)
            state.apply_id(seat, ids[rng.randrange(len(ids))])
            if count_flips or not scout or ids[0] > 1:  # ids 0 and 1: keep, flip (S-5)
                decisions += 1
            if state.is_over():
                break
    return decisions


def measure_playouts(
    game: str, players: int, seconds: float, seed: int, meter: Meter | None = None
) -> tuple[float, float, float]:
    """(decisions, games, mean decisions a game) per CPU second of random playouts."""
    g = get_game(game)
    rng = random.Random(seed)
    games = decisions = 0
    start = time.process_time()
    while True:
        decisions += random_playout(g.new_state(players, seed + games), rng)
        games += 1
        if meter is not None:
            meter.lap()
        elapsed = time.process_time() - start
        if elapsed >= seconds:
            return decisions / elapsed, games / elapsed, decisions / games


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
    """(enumerations per CPU second, mean legal actions) on mid-game Scout positions."""
    positions = midgame_positions(players, 200, seed)
    if meter is not None:
        meter.last = meter.clock()  # the bar counts measuring time only
    calls = total = 0
    start = time.process_time()
    while time.process_time() - start < seconds:
        for state, seat in positions:
            total += len(state.legal_action_ids(seat))
            calls += 1
        if meter is not None:
            meter.lap()
    elapsed = time.process_time() - start
    return calls / elapsed, total / calls


def late_game_view_cost(players: int, seed: int, repeat: int = 200) -> tuple[float, float, int]:
    """CPU µs of one Scout view with and without the game log, late in a game
    (the last decision of a random game), and the log's length."""
    state = get_game("scout").new_state(players, seed)
    rng = random.Random(seed)
    last = state.clone()
    while not state.is_over():
        last = state.clone()
        seat = state.to_move()[0]
        ids = state.legal_action_ids(seat)
        state.apply_id(seat, ids[rng.randrange(len(ids))])
    seat = last.to_move()[0]
    costs = []
    for log in (True, False):
        start = time.process_time()
        for _ in range(repeat):
            last.view(seat, log=log)
        costs.append((time.process_time() - start) / repeat * 1e6)
    return costs[0], costs[1], len(last.history)


def run(seconds: float = 2.0, seed: int = 1, console: Console | None = None, progress: bool = True) -> None:
    """Measure and print the tables, with a progress bar (rate, ETA) on stderr meanwhile."""
    from spieltisch.engine.scout import movegen

    build = "compiled (mypyc)" if not movegen.__file__.endswith(".py") else "pure Python"
    console = console or Console()
    measurements = len(GAMES) * len(PLAYERS) + len(PLAYERS)
    shorter = "; shorter: --seconds 0.5" if seconds > 0.5 else ""
    console.print(
        f"Measuring {measurements} × {seconds:g} CPU s (about {measurements * seconds:.0f} s on an idle "
        f"core){shorter}. Engine build: {build}. Workload: random playouts from new games to the end; "
        "every decision lists all legal actions and picks one uniformly; Scout's flip decisions are "
        "not counted. Figures per CPU second of one process."
    )
    table = Table(title=f"Random playouts, one core (target: {TARGET:,} decisions per CPU second)")
    for col in ("game", "players", "decisions / CPU s", "games / CPU s", "decisions a game", "target"):
        table.add_column(col, justify="right" if col != "game" else "left")
    enum = Table(title="Scout legal-action enumeration on mid-game positions")
    for col in ("players", "enumerations / CPU s", "mean legal actions"):
        enum.add_column(col, justify="right")
    cpu = time.process_time
    with planned(measurements * seconds, "random playouts", enabled=progress, clock=cpu) as meter:
        for game in GAMES:
            for players in PLAYERS:
                meter.label(f"playouts: {game}, {players} players")
                dps, gps, per_game = measure_playouts(game, players, seconds, seed, meter)
                table.add_row(
                    game,
                    str(players),
                    f"{dps:,.0f}",
                    f"{gps:,.1f}",
                    f"{per_game:,.0f}",
                    "met" if dps >= TARGET else f"{dps / TARGET:.0%}",
                )
        for players in PLAYERS:
            meter.label(f"enumeration: {players} players")
            eps, mean = measure_enumeration(players, seconds, seed, meter)
            enum.add_row(str(players), f"{eps:,.0f}", f"{mean:.1f}")
    console.print(table)
    console.print(enum)
    views = Table(title="A Scout view at the last decision of a random game (CPU µs)")
    for col in ("players", "log entries", "view(seat)", "view(seat, log=False)"):
        views.add_column(col, justify="right")
    for players in PLAYERS:
        with_log, without, entries = late_game_view_cost(players, seed)
        views.add_row(str(players), str(entries), f"{with_log:,.0f}", f"{without:,.0f}")
    console.print(views)
