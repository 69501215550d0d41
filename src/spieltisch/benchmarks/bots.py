"""``spieltisch bench bots``: decisions/s per bot level and game, and a strength
table from a short tournament (the strongest available level against the next
one, e.g. hard vs medium×3).

Levels whose module cannot be imported yet are skipped with a note.
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass

from rich.console import Console
from rich.table import Table

from spieltisch.bots import LEVELS, make_bot
from spieltisch.engine import get_game
from spieltisch.lab.config import LabError, check_bot_spec, derive_seed

PLAYERS = 4


@dataclass(frozen=True)
class Speed:
    game: str
    level: str
    decisions: int
    seconds: float
    """Time spent inside the bots' ``choose`` (engine time excluded)."""

    @property
    def per_second(self) -> float:
        return self.decisions / self.seconds if self.seconds > 0 else 0.0


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


def measure_speed(game: str, level: str, seconds: float, seed: int, players: int = PLAYERS) -> Speed:
    """Every seat played by ``level``; stops after ``seconds`` of bot time (mid-game if need be)."""
    g = get_game(game)
    decisions = 0
    spent = 0.0
    number = 0
    while spent < seconds:
        state = g.new_state(players, derive_seed("bench", seed, game, number))
        bots = [
            make_bot(game, level, s, derive_seed("bench", seed, level, number, s)) for s in range(players)
        ]
        fallback = random.Random(number)
        try:
            while not state.is_over() and spent < seconds:
                for seat in state.to_move():
                    legal = state.legal_action_ids(seat)
                    view = state.view(seat)
                    start = time.perf_counter()
                    choice = bots[seat].choose(view, legal)
                    spent += time.perf_counter() - start
                    decisions += 1
                    if choice not in legal:
                        choice = legal[fallback.randrange(len(legal))]
                    state.apply_id(seat, choice)
                    if state.is_over() or spent >= seconds:
                        break
        finally:
            for bot in bots:
                bot.close()
        number += 1
    return Speed(game, level, decisions, spent)


def run(
    seconds: float = 2.0,
    seed: int = 1,
    games: int = 40,
    workers: int | None = None,
    console: Console | None = None,
) -> list[Speed]:
    """Print the speed table and the strength table; return the speeds."""
    from spieltisch.lab.tournament import Tournament, ci_text, pct

    console = console or Console()
    speeds: list[Speed] = []
    notes: list[str] = []
    table = Table(title=f"Bot decisions/s, one core, {PLAYERS} players (bot time only)")
    for col in ("game", "level", "decisions", "seconds", "decisions/s"):
        table.add_column(col, justify="left" if col in ("game", "level") else "right")
    strength: dict[str, list[str]] = {}
    for game in ("scout", "schmaus"):
        ok, missing = available_levels(game)
        for level, reason in missing.items():
            notes.append(f"{game} {level}: skipped — {reason}")
        for level in ok:
            speed = measure_speed(game, level, seconds, seed)
            speeds.append(speed)
            table.add_row(
                game, level, f"{speed.decisions:,}", f"{speed.seconds:.2f}", f"{speed.per_second:,.0f}"
            )
        built_in = [lv for lv in ok if lv != "random"] or ok
        if len(built_in) >= 2:
            strong, weak = built_in[-1], built_in[-2]
            strength[game] = [strong] + [weak] * (PLAYERS - 1)
        else:
            notes.append(f"{game}: strength table skipped — needs two playable levels, has {', '.join(ok)}")
    console.print(table)
    for note in notes:
        console.print(f"Note: {note}", style="yellow")
    for game, lineup in strength.items():
        t = Tournament.create(game, lineup, games, seed)
        result = t.run(workers=workers, progress=True)
        s = result.summary
        st = Table(
            title=f"Strength, {get_game(game).title}: {lineup[0]} vs {lineup[1]}×{PLAYERS - 1}, "
            f"{s['games']} games (fair share {pct(s['fair_share'])})"
        )
        for col in ("bot", "games", "wins", "win rate", "95% CI", "TrueSkill μ±σ"):
            st.add_column(col, justify="left" if col == "bot" else "right")
        for bot in s["bots"]:
            st.add_row(
                bot["bot"],
                str(bot["games"]),
                str(bot["wins"]),
                pct(bot["rate"]),
                ci_text(bot["ci95"]),
                f"{bot['rating']['mu']:.1f}±{bot['rating']['sigma']:.1f}",
            )
        console.print(st)
    return speeds
