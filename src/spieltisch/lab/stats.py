"""Statistics of a set of games: win rates with Wilson intervals, score spread,
TrueSkill ratings, seat effects and game length.

Conventions: a shared win (W-18 / S-12 tie) counts as a win for every winner,
so win rates of one game can add up to more than 1; ``win_share`` splits it
(1/k to each of k winners) and adds up to exactly 1 per game.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence
from typing import Any

from spieltisch.lab.config import label_entries
from spieltisch.lab.play import Entrant, GameResult

Z95 = 1.959963984540054
"""Two-sided 95 % normal quantile."""


def wilson(successes: int, trials: int, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval for a proportion; ``(0, 1)`` without trials."""
    if trials <= 0:
        return 0.0, 1.0
    if not 0 <= successes <= trials:
        raise ValueError(f"successes must lie in 0..{trials}, not {successes}")
    p = successes / trials
    z2 = z * z
    centre = (p + z2 / (2 * trials)) / (1 + z2 / trials)
    half = z / (1 + z2 / trials) * math.sqrt(p * (1 - p) / trials + z2 / (4 * trials * trials))
    lo = 0.0 if successes == 0 else max(0.0, centre - half)
    hi = 1.0 if successes == trials else min(1.0, centre + half)
    return lo, hi


def spread(values: Sequence[float]) -> dict[str, float]:
    """Mean, sample standard deviation, min and max (zeros for no values)."""
    if not values:
        return {"mean": 0.0, "sd": 0.0, "min": 0.0, "max": 0.0}
    return {
        "mean": statistics.fmean(values),
        "sd": statistics.stdev(values) if len(values) > 1 else 0.0,
        "min": float(min(values)),
        "max": float(max(values)),
    }


def rate(successes: int, trials: int) -> dict[str, Any]:
    lo, hi = wilson(successes, trials)
    return {
        "wins": successes,
        "games": trials,
        "rate": successes / trials if trials else 0.0,
        "ci95": [lo, hi],
    }


def entrant_name(entrant: Entrant) -> str:
    if isinstance(entrant, str):
        return entrant
    return str(getattr(entrant, "level", None) or getattr(entrant, "__name__", repr(entrant)))


def trueskill_ratings(results: Sequence[GameResult], entries: int) -> list[dict[str, float]]:
    """TrueSkill (free-for-all, ties allowed) per line-up entry, games taken in
    index order so the ratings are reproducible."""
    import trueskill  # type: ignore[import-untyped]

    env = trueskill.TrueSkill(draw_probability=0.05, backend=None)
    ratings = [env.create_rating() for _ in range(entries)]
    for game in results:
        score_of = [game.scores[game.entry_seat(e)] for e in range(entries)]
        ranks = [sum(1 for other in score_of if other > mine) for mine in score_of]
        rated = env.rate([(r,) for r in ratings], ranks=ranks)
        ratings = [group[0] for group in rated]
    return [{"mu": r.mu, "sigma": r.sigma, "conservative": r.mu - 3 * r.sigma} for r in ratings]


def summarize(results: Sequence[GameResult], lineup: Sequence[Entrant]) -> dict[str, Any]:
    """The tournament summary (JSON-able) of ``results`` played by ``lineup``."""
    n = len(lineup)
    labels = label_entries([entrant_name(e) for e in lineup])
    specs = [entrant_name(e) for e in lineup]
    games = len(results)
    ratings = trueskill_ratings(results, n)

    entry_wins = [0] * n
    entry_share = [0.0] * n
    entry_scores: list[list[float]] = [[] for _ in range(n)]
    entry_faults = [0] * n
    entry_fault_games = [0] * n
    entry_decisions = [0] * n
    seat_wins = [0] * n
    seat_scores: list[list[float]] = [[] for _ in range(n)]
    shared = 0
    margins: list[float] = []
    for game in results:
        if len(game.winners) > 1:
            shared += 1
        ordered = sorted(game.scores, reverse=True)
        margins.append(ordered[0] - ordered[1])
        for seat in range(n):
            entry = game.seating[seat]
            won = seat in game.winners
            entry_wins[entry] += won
            entry_share[entry] += 1 / len(game.winners) if won else 0.0
            entry_scores[entry].append(game.scores[seat])
            entry_faults[entry] += game.faults[seat]
            entry_fault_games[entry] += game.faults[seat] > 0
            entry_decisions[entry] += game.decisions[seat]
            seat_wins[seat] += won
            seat_scores[seat].append(game.scores[seat])

    entries = []
    for e in range(n):
        entries.append(
            {
                "entry": e,
                "label": labels[e],
                "bot": specs[e],
                **rate(entry_wins[e], games),
                "win_share": entry_share[e] / games if games else 0.0,
                "score": spread(entry_scores[e]),
                "rating": ratings[e],
                "faults": entry_faults[e],
                "games_with_faults": entry_fault_games[e],
                "decisions": entry_decisions[e],
            }
        )

    bots = []
    for spec in dict.fromkeys(specs):
        members = [e for e in range(n) if specs[e] == spec]
        scores = [s for e in members for s in entry_scores[e]]
        bots.append(
            {
                "bot": spec,
                "entries": len(members),
                **rate(sum(entry_wins[e] for e in members), games * len(members)),
                "win_share": sum(entry_share[e] for e in members) / (games * len(members)) if games else 0.0,
                "score": spread(scores),
                "rating": {
                    key: statistics.fmean(ratings[e][key] for e in members)
                    for key in ("mu", "sigma", "conservative")
                },
                "faults": sum(entry_faults[e] for e in members),
                "games_with_faults": sum(entry_fault_games[e] for e in members),
            }
        )

    seats = [{"seat": s, **rate(seat_wins[s], games), "score": spread(seat_scores[s])} for s in range(n)]
    messages = [m for game in results for m in game.fault_messages]
    return {
        "games": games,
        "players": n,
        "lineup": specs,
        "fair_share": 1 / n,
        "shared_wins": shared,
        "bots": bots,
        "entries": entries,
        "seats": seats,
        "margin": spread(margins),
        "length": {
            "decisions": spread([float(sum(g.decisions)) for g in results]),
            "rounds": spread([float(g.rounds) for g in results]),
        },
        "faults": {"total": sum(entry_faults), "messages": messages[:20]},
    }
