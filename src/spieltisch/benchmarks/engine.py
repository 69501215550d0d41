"""``spieltisch bench engine``: random playouts and Scout move generation, one core.

Workload: a random playout lists every legal action of every seat to move
(``legal_action_ids``, Scout's scout & show combinations included) and picks
one uniformly (``apply_id``), from a new game (seed 1, 2, ...) to its end.
Scout's flip decisions are played but not counted as decisions. Figures are
per CPU second of the measuring process (``time.process_time``), so they hold
on a shared, busy machine. With the compiled engine built
(``scripts/build-fast``) every playout figure is measured twice, side by side:
here with the compiled modules and in a child process that imports the very
same ``.py`` files instead (:data:`PURE_CHILD`); each table names its build.
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import time

from rich.console import Console
from rich.table import Table

from spieltisch.engine import get_game
from spieltisch.engine.core import State
from spieltisch.progress import Meter, planned

GAMES = ("scout", "schmaus")
ENGINE_MODULES = (
    "core", "base", "scout.cards", "scout.movegen", "scout.state", "schmaus.cards", "schmaus.options",
    "schmaus.hands", "schmaus.state",
)  # fmt: skip
"""The modules ``scripts/build-fast`` compiles (under ``spieltisch.engine``)."""
PURE, COMPILED = "pure Python", "compiled (mypyc)"
PLAYERS = range(2, 6)
TARGET = 200_000
"""Decisions per CPU second per core (issue #9)."""


def engine_build() -> str:
    """Which engine this process runs: :data:`COMPILED`, :data:`PURE` or a mix."""
    import importlib

    pure = [
        importlib.import_module(f"spieltisch.engine.{name}").__file__.endswith(".py")  # type: ignore[union-attr]
        for name in ENGINE_MODULES
    ]
    if all(pure):
        return PURE
    return COMPILED if not any(pure) else "partly compiled (rebuild: scripts/build-fast)"


PURE_CHILD = """
import importlib.util, json, sys
from importlib.machinery import PathFinder


class PureEngine:
    # Finds the engine's modules as the normal path finder does, but takes the
    # .py source where a compiled extension module lies beside it.
    @staticmethod
    def find_spec(name, path=None, target=None):
        if not name.startswith("spieltisch.engine."):
            return None
        spec = PathFinder.find_spec(name, path)
        if spec is None or spec.origin is None or spec.origin.endswith(".py"):
            return spec
        source = spec.origin.rsplit("/", 1)[0] + "/" + name.rpartition(".")[2] + ".py"
        return importlib.util.spec_from_file_location(name, source)


sys.meta_path.insert(0, PureEngine)
from spieltisch.benchmarks.engine import engine_build, measure_playouts

game, players, seconds, seed = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), int(sys.argv[4])
print(json.dumps([engine_build(), *measure_playouts(game, players, seconds, seed)]))
"""
"""A child process that measures :func:`measure_playouts` on the pure-Python
engine although compiled modules lie beside the sources."""


def measure_pure_playouts(game: str, players: int, seconds: float, seed: int) -> tuple[float, float, float]:
    """:func:`measure_playouts` in a child process running the pure-Python engine."""
    args = [sys.executable, "-c", PURE_CHILD, game, str(players), str(seconds), str(seed)]
    out = subprocess.run(args, capture_output=True, text=True, check=True).stdout
    build, dps, gps, per_game = json.loads(out.splitlines()[-1])
    if build != PURE:
        raise RuntimeError(f"the pure-Python child process ran the {build} engine")
    return float(dps), float(gps), float(per_game)


def cpu_with_children() -> float:
    """CPU seconds of this process and its finished children (the progress bar's clock)."""
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


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
    build = engine_build()
    both = build == COMPILED
    console = console or Console()
    playouts = len(GAMES) * len(PLAYERS) * (2 if both else 1)
    measurements = playouts + len(PLAYERS)
    shorter = "; shorter: --seconds 0.5" if seconds > 0.5 else ""
    builds = (
        f"{COMPILED} and, in a child process, {PURE}, side by side"
        if both
        else f"{build} (compiled as well after scripts/build-fast)"
    )
    console.print(
        f"Measuring {measurements} × {seconds:g} CPU s (about {measurements * seconds:.0f} s on an idle "
        f"core){shorter}. Engine build: {builds}. Workload: random playouts from new games to the end; "
        "every decision lists all legal actions and picks one uniformly; Scout's flip decisions are "
        "not counted. Figures per CPU second of one process."
    )
    title = f"Random playouts, one core: decisions per CPU second (target: {TARGET:,})"
    table = Table(title=title)
    columns = ["game", "players", *([COMPILED, PURE, "compiled ÷ pure"] if both else [build])]
    columns += ["games / CPU s", "decisions a game", "target"]
    for col in columns:
        table.add_column(col, justify="right" if col != "game" else "left")
    enum = Table(title=f"Scout legal-action enumeration on mid-game positions ({build})")
    for col in ("players", "enumerations / CPU s", "mean legal actions"):
        enum.add_column(col, justify="right")
    with planned(
        measurements * seconds, "random playouts", enabled=progress, clock=cpu_with_children
    ) as meter:
        for game in GAMES:
            for players in PLAYERS:
                meter.label(f"playouts: {game}, {players} players, {build}")
                dps, gps, per_game = measure_playouts(game, players, seconds, seed, meter)
                row = [game, str(players), f"{dps:,.0f}"]
                if both:
                    meter.label(f"playouts: {game}, {players} players, {PURE}")
                    pure, _, _ = measure_pure_playouts(game, players, seconds, seed)
                    meter.lap()
                    row += [f"{pure:,.0f}", f"{dps / pure:.2f}×"]
                met = "met" if dps >= TARGET else f"{dps / TARGET:.0%}"
                table.add_row(*row, f"{gps:,.1f}", f"{per_game:,.0f}", met)
        for players in PLAYERS:
            meter.label(f"enumeration: {players} players")
            eps, mean = measure_enumeration(players, seconds, seed, meter)
            enum.add_row(str(players), f"{eps:,.0f}", f"{mean:.1f}")
    console.print(table)
    console.print(enum)
    views = Table(title=f"A Scout view at the last decision of a random game (CPU µs, {build})")
    for col in ("players", "log entries", "view(seat)", "view(seat, log=False)"):
        views.add_column(col, justify="right")
    for players in PLAYERS:
        with_log, without, entries = late_game_view_cost(players, seed)
        views.add_row(str(players), str(entries), f"{with_log:,.0f}", f"{without:,.0f}")
    console.print(views)
