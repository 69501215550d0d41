"""``spieltisch bench bots``: decisions/s per bot level and game, and a strength
table from a short tournament (the strongest available level against the next
one, e.g. hard vs medium×3).

Levels whose module cannot be imported yet are skipped with a note. The speed
part shows a progress bar over the planned bot time (``--seconds`` per level
and game); before the tournament its length is estimated from the measured
speeds and printed, with a shorter setting.
"""

from __future__ import annotations

import multiprocessing
import random
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass

from rich.console import Console
from rich.table import Table

from spieltisch.bots import LEVELS, make_bot
from spieltisch.engine import get_game
from spieltisch.lab.config import LabError, check_bot_spec, derive_seed, round_up_games
from spieltisch.progress import Meter, planned

PLAYERS = 4
GAMES = ("scout", "schmaus")


def _duration(seconds: float) -> str:
    if seconds < 90:
        return f"{max(1, round(seconds))} s"
    return f"{seconds / 60:.0f} min"


@dataclass(frozen=True)
class Speed:
    game: str
    level: str
    decisions: int
    seconds: float
    """Time spent inside the bots' ``choose`` (engine time excluded)."""
    games: int = 0
    """Games played to the end within the time."""
    game_decisions: int = 0
    """Decisions in those games."""

    @property
    def per_second(self) -> float:
        return self.decisions / self.seconds if self.seconds > 0 else 0.0

    @property
    def seconds_per_decision(self) -> float:
        return self.seconds / self.decisions if self.decisions else 0.0


def estimate_tournament(
    speeds: dict[str, Speed], lineup: list[str], games: int, workers: int
) -> float | None:
    """Wall seconds a tournament of ``lineup`` should take, from the measured speeds;
    ``None`` when no level finished a game (nothing to estimate game length from)."""
    finished = [speeds[lv] for lv in dict.fromkeys(lineup) if speeds[lv].games]  # games like these
    finished = finished or [sp for sp in speeds.values() if sp.games]
    if not finished:
        return None
    per_game = sum(sp.game_decisions for sp in finished) / sum(sp.games for sp in finished)
    per_decision = sum(speeds[level].seconds_per_decision for level in lineup) / len(lineup)
    return games * per_game * per_decision / max(1, min(workers, games))


def available_levels(game: str) -> tuple[list[str], dict[str, str]]:
    """The levels that can be built for ``game`` and, for the others, why not."""
    ok: list[str] = []
    missing: dict[str, str] = {}
    for level in LEVELS:
        try:
            check_bot_spec(game, level)
        except LabError as exc:
            missing[level] = str(exc)
        else:
            ok.append(level)
    return ok, missing


def measure_speed(
    game: str, level: str, seconds: float, seed: int, players: int = PLAYERS, meter: Meter | None = None
) -> Speed:
    """Every seat played by ``level``, for ``seconds`` (mid-game if need be): the figure is
    decisions per second of bot time, and the measurement stops after ``seconds`` of bot
    time or of wall time, whichever comes first, so a fast bot (whose games are mostly
    engine time) takes no longer than a slow one."""
    g = get_game(game)
    decisions = 0
    spent = 0.0
    number = 0
    finished = finished_decisions = 0
    wall_start = time.perf_counter()
    if meter is not None:
        meter.last = wall_start

    def more() -> bool:
        return spent < seconds and time.perf_counter() - wall_start < seconds

    while more():
        state = g.new_state(players, derive_seed("bench", seed, game, number))
        bots = [
            make_bot(game, level, s, derive_seed("bench", seed, level, number, s)) for s in range(players)
        ]
        fallback = random.Random(number)
        in_game = 0
        try:
            while not state.is_over() and more():
                for seat in state.to_move():
                    legal = state.legal_action_ids(seat)
                    view = state.view(seat)
                    start = time.perf_counter()
                    choice = bots[seat].choose(view, legal)
                    spent += time.perf_counter() - start
                    if meter is not None:
                        meter.lap()
                    decisions += 1
                    in_game += 1
                    if choice not in legal:
                        choice = legal[fallback.randrange(len(legal))]
                    state.apply_id(seat, choice)
                    if state.is_over() or not more():
                        break
        finally:
            for bot in bots:
                bot.close()
        if state.is_over():
            finished += 1
            finished_decisions += in_game
        number += 1
    return Speed(game, level, decisions, spent, finished, finished_decisions)


def run(
    seconds: float = 2.0,
    seed: int = 1,
    games: int = 40,
    workers: int | None = None,
    console: Console | None = None,
    progress: bool = True,
) -> list[Speed]:
    """Print the speed table and the strength table; return the speeds."""
    from spieltisch.lab.runner import default_workers
    from spieltisch.lab.tournament import Tournament, pct, win_cells

    console = console or Console()
    speeds: list[Speed] = []
    notes: list[str] = []
    table = Table(title=f"Bot decisions/s, one core, {PLAYERS} players (per second of bot time)")
    for col in ("game", "level", "decisions", "seconds", "decisions/s"):
        table.add_column(col, justify="left" if col in ("game", "level") else "right")
    strength: dict[str, list[str]] = {}
    by_game: dict[str, dict[str, Speed]] = {}
    levels = {game: available_levels(game) for game in GAMES}
    planned_seconds = seconds * sum(len(ok) for ok, _ in levels.values())
    played = round_up_games(games, PLAYERS)  # every line-up entry once in each seat
    rounded = f" ({games} rounded up: each bot sits once in each seat)" if played != games else ""
    console.print(
        f"Speed: about {planned_seconds:g} s ({seconds:g} s per level and game, --seconds), "
        f"then a {played}-game strength tournament per game (--games){rounded}"
    )
    with planned(planned_seconds, "bot speed", enabled=progress) as meter:
        for game in GAMES:
            ok, missing = levels[game]
            for level, reason in missing.items():
                notes.append(f"{game} {level}: skipped — {reason}")
            for level in ok:
                meter.label(f"speed: {game} {level}")
                speed = measure_speed(game, level, seconds, seed, meter=meter)
                speeds.append(speed)
                by_game.setdefault(game, {})[level] = speed
                table.add_row(
                    game, level, f"{speed.decisions:,}", f"{speed.seconds:.2f}", _rate(speed.per_second)
                )
            built_in = [lv for lv in ok if lv != "random"] or ok
            if len(built_in) >= 2:
                strong, weak = built_in[-1], built_in[-2]
                strength[game] = [strong] + [weak] * (PLAYERS - 1)
            else:
                notes.append(
                    f"{game}: strength table skipped — needs two playable levels, has {', '.join(ok)}"
                )
    console.print(table)
    for note in notes:
        console.print(f"Note: {note}", style="yellow")
    for game, lineup in strength.items():
        t = Tournament.create(game, lineup, games, seed)
        used = workers if workers is not None else default_workers()
        estimate = estimate_tournament(by_game[game], lineup, t.games, used)
        about = f"about {_duration(estimate)}" if estimate is not None else "length unknown"
        console.print(
            f"Strength tournament, {get_game(game).title}: {t.games} games on {used} "
            f"worker{'s' if used != 1 else ''}, {about} (estimated from the speeds above)"
            + ("; shorter: --games 8" if t.games > 8 else "")
        )
        result = t.run(workers=workers, progress=progress)
        s = result.summary
        st = Table(
            title=f"Strength, {get_game(game).title}: {lineup[0]} vs {lineup[1]}×{PLAYERS - 1}, "
            f"{s['games']} games (fair share {pct(s['fair_share'])})"
        )
        for col in ("bot", "games", "wins", "win rate", "95% CI", "TrueSkill μ±σ"):
            st.add_column(col, justify="left" if col == "bot" else "right")
        for bot in s["bots"]:
            rating = bot["rating"]
            st.add_row(
                bot["bot"], str(bot["games"]), *win_cells(bot), f"{rating['mu']:.1f}±{rating['sigma']:.1f}"
            )
        console.print(st)
    return speeds


# -- ``spieltisch bench work``: CPU time per decision of bot versions at their budgets --


@dataclass(frozen=True)
class WorkRate:
    spec: str
    decisions: int
    cpu: float
    """``time.process_time`` inside the bot's ``choose``, one core."""
    work: int
    """The spec's budget per decision in work units (playouts or samples; a
    search may stop earlier once one candidate is left)."""

    @property
    def cpu_per_decision(self) -> float:
        return self.cpu / self.decisions if self.decisions else 0.0


Point = tuple[int, int, list[int]]


def decision_points(game: str, players: int, positions: int, seed: int) -> list[Point]:
    """``positions`` decisions from medium games, as (game seed, seat, actions
    played before it): every version is timed on exactly the same views."""
    g = get_game(game)
    out: list[Point] = []
    number = 0
    while len(out) < positions:
        game_seed = derive_seed("bench-work", seed, game, number)
        state = g.new_state(players, game_seed)
        bots = [make_bot(game, "medium", s, game_seed) for s in range(players)]
        played: list[int] = []
        turn = 0
        while not state.is_over() and len(out) < positions:
            seat = state.to_move()[0]
            legal = state.legal_action_ids(seat)
            if len(legal) > 2 and turn % 3 == 0:
                out.append((game_seed, seat, list(played)))
            action = bots[seat].choose(state.view(seat), legal)
            state.apply_id(seat, action)
            played.append(action)
            turn += 1
        number += 1
    return out


def time_spec(game: str, spec: str, players: int, points: list[Point], seed: int) -> WorkRate:
    """CPU seconds of ``spec``'s decisions at ``points`` (a fresh bot for each)."""
    g = get_game(game)
    cpu = 0.0
    work = 0
    for number, (game_seed, seat, played) in enumerate(points):
        state = g.new_state(players, game_seed)
        for action in played:
            state.apply_id(state.to_move()[0], action)
        bot = make_bot(game, spec, seat, derive_seed("bench-work", seed, number))
        work = bot.work
        view, legal = state.view(seat), state.legal_action_ids(seat)
        start = time.process_time()
        bot.choose(view, legal)
        cpu += time.process_time() - start
    return WorkRate(spec, len(points), cpu, work)


def measure_work(
    game: str, specs: list[str], players: int = PLAYERS, positions: int = 30, seed: int = 1
) -> list[WorkRate]:
    """CPU seconds per decision of each spec on the same decision points, each
    spec in a fresh process (so no spec finds another's memoised hand values)."""
    points = decision_points(game, players, positions, seed)
    context = multiprocessing.get_context("spawn")
    rates = []
    for spec in specs:
        with ProcessPoolExecutor(1, mp_context=context) as pool:
            rates.append(pool.submit(time_spec, game, spec, players, points, seed).result())
    return rates


def run_work(
    game: str, specs: list[str], players: int = PLAYERS, positions: int = 30, seed: int = 1,
    console: Console | None = None,
) -> list[WorkRate]:  # fmt: skip
    """Print :func:`measure_work`'s table; return the rates."""
    console = console or Console()
    rates = measure_work(game, specs, players, positions, seed)
    table = Table(
        title=f"{get_game(game).title}, {players} players: CPU time per decision on the same "
        f"{positions} decisions (time.process_time, one core)"
    )
    for col in ("bot", "budget per decision", "CPU s per decision", "budget per CPU s"):
        table.add_column(col, justify="left" if col == "bot" else "right")
    for r in rates:
        per = r.work / r.cpu_per_decision if r.cpu_per_decision else 0.0
        table.add_row(r.spec, f"{r.work:,}", f"{r.cpu_per_decision:.4f}", f"{per:,.0f}")
    console.print(table)
    return rates


def _rate(per_second: float) -> str:
    """Decisions per second: whole numbers, but a slow bot's rate below 10 with a decimal
    (a search that takes longer than a second is not "0 decisions/s")."""
    return f"{per_second:,.0f}" if per_second >= 10 else f"{per_second:.2f}"
