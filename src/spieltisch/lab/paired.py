"""Honest numbers for rule studies: measures with 95 % intervals and paired
differences between two rule sets played on the same deals and seeds.

The unit of resampling is a *block*: the ``players`` seat rotations of one
duplicate deal (or one game with fresh deals). Games within a block share
their cards, so they are not independent; blocks are. Side A's block *b* and
side B's block *b* use the same deal seed and bot seeds, so a difference is
measured block by block (common random numbers) and resampled jointly: the
paired bootstrap (:func:`scipy.stats.bootstrap` with ``paired=True``, BCa,
percentile where BCa is undefined). An exact sign test on the block
differences gives a p-value that needs no assumption at all. Where the
interval covers 0 the verdict is "no measurable difference".

A measure is a function of per-game *features* (a bot's win, a seat's win
share, rounds, rulings fired...) averaged over games, so ratio measures (a
ruling's share of all rounds) resample correctly too. Every measure is in the
unit a designer reads: rates in percentage points, lengths in rounds.
"""

from __future__ import annotations

import statistics
import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from spieltisch.lab.config import LabError, derive_seed
from spieltisch.lab.play import RULINGS, GameResult

CONFIDENCE = 0.95
RESAMPLES = 2000

Means = Mapping[str, Any]
"""Feature name -> mean over games (a float, or a numpy array over resamples)."""


@dataclass(frozen=True)
class Measure:
    """A number about a set of games, from the means of per-game features."""

    key: str
    label: str
    unit: str
    features: tuple[str, ...]
    value: Callable[[Means], Any]
    label_de: str = ""

    def title(self, lang: str) -> str:
        return self.label_de if lang == "de" and self.label_de else self.label


RULING_NAMES_DE = {
    "W-5": "Kurze-Hand-Nachziehen",
    "W-6": "Leere-Hand-Nachziehen",
    "W-7": "Wächterin blockt",
    "W-8": "Jäger macht die Runde ungültig",
    "W-9": "Obsthändler nullt",
    "W-10": "Müllabfuhr halbiert",
    "W-14": "Gleichstand um den Topf",
    "W-15": "Gleichstand der Niedrigsten",
    "W-16": "Abwerfen aufs Handlimit",
}


def measures(
    lineup: Sequence[str], players: int, strong: str | None = None, weak: str | None = None
) -> dict[str, Measure]:
    """Every measure the lab knows for a line-up of ``players`` bots (by key)."""
    bots = list(dict.fromkeys(lineup))
    strong = strong or bots[0]
    weak = weak or bots[-1]
    for name in (strong, weak):
        if name not in bots:
            raise LabError(f"skill gap: bot {name!r} is not in the line-up ({', '.join(bots)})")
    fair = 100 / players
    seat_keys = tuple(f"seat_share:{s}" for s in range(players))

    def seat_advantage(m: Means) -> Any:
        import numpy as np

        return np.max([abs(100 * m[k] - fair) for k in seat_keys], axis=0)

    out = {
        "skill_gap": Measure(
            "skill_gap",
            f"skill gap ({strong} − {weak} win rate)",
            "pts",
            (f"win:{strong}", f"win:{weak}"),
            lambda m: 100 * (m[f"win:{strong}"] - m[f"win:{weak}"]),
            f"Könnensabstand (Siegquote {strong} − {weak})",
        ),
        "seat_advantage": Measure(
            "seat_advantage",
            "largest seat advantage (win share − fair share)",
            "pts",
            seat_keys,
            seat_advantage,
            "größter Platzvorteil (Siegquote − fairer Anteil)",
        ),
        "seat0": Measure(
            "seat0",
            "seat 0 win share",
            "%",
            ("seat_share:0",),
            lambda m: 100 * m["seat_share:0"],
            "Siegquote Platz 0",
        ),
        "rounds": Measure(
            "rounds", "rounds per game", "rounds", ("rounds",), lambda m: m["rounds"], "Runden je Partie"
        ),
        "decisions": Measure(
            "decisions",
            "decisions per game",
            "",
            ("decisions",),
            lambda m: m["decisions"],
            "Entscheidungen je Partie",
        ),
        "score_spread": Measure(
            "score_spread",
            "score spread in a game (sd)",
            "",
            ("score_sd",),
            lambda m: m["score_sd"],
            "Punktestreuung in einer Partie (Std.-abw.)",
        ),
        "margin": Measure(
            "margin", "winning margin", "", ("margin",), lambda m: m["margin"], "Vorsprung des Siegers"
        ),
    }
    for bot in bots:
        out[f"win:{bot}"] = Measure(
            f"win:{bot}",
            f"{bot} win rate",
            "%",
            (f"win:{bot}",),
            _share(f"win:{bot}"),
            f"Siegquote {bot}",
        )
    for rule, meaning in RULINGS:
        out[f"ruling:{rule}"] = Measure(
            f"ruling:{rule}",
            f"{rule} {meaning} (% of rounds)",
            "% of rounds",
            (f"ruling:{rule}", "rounds"),
            _per_round(f"ruling:{rule}"),
            f"{rule} {RULING_NAMES_DE[rule]} (% der Runden)",
        )
    # Friendly aliases for goal files.
    out["void_rounds"] = out["ruling:W-8"]
    out["hand_limit_rounds"] = out["ruling:W-16"]
    return out


def _share(key: str) -> Callable[[Means], Any]:
    return lambda m: 100 * m[key]


def _per_round(key: str) -> Callable[[Means], Any]:
    return lambda m: 100 * m[key] / m["rounds"]


def game_features(game: GameResult, lineup: Sequence[str]) -> dict[str, float]:
    """The per-game numbers every measure is built from."""
    n = len(game.scores)
    wins = set(game.winners)
    out: dict[str, float] = {}
    for bot in dict.fromkeys(lineup):
        entries = [e for e, spec in enumerate(lineup) if spec == bot]
        out[f"win:{bot}"] = sum(game.entry_seat(e) in wins for e in entries) / len(entries)
    for entry, seat in enumerate(game.seating.index(e) for e in range(n)):
        out[f"entry_win:{entry}"] = float(seat in wins)
    for seat in range(n):
        out[f"seat_share:{seat}"] = 1 / len(wins) if seat in wins else 0.0
    ordered = sorted(game.scores, reverse=True)
    out["rounds"] = float(game.rounds)
    out["decisions"] = float(sum(game.decisions))
    out["score_sd"] = statistics.pstdev(game.scores)
    out["margin"] = float(ordered[0] - ordered[1]) if n > 1 else 0.0
    fired = (game.detail or {}).get("rulings", {})
    for rule, _ in RULINGS:
        out[f"ruling:{rule}"] = float(fired.get(rule, 0))
    return out


def block_means(
    games: Sequence[GameResult], lineup: Sequence[str], players: int, duplicate: bool, keys: Sequence[str]
) -> dict[int, list[float]]:
    """Block id -> the mean of each feature in ``keys`` over the block's games."""
    blocks: dict[int, list[dict[str, float]]] = {}
    for game in games:
        block = game.index // players if duplicate else game.index
        blocks.setdefault(block, []).append(game_features(game, lineup))
    return {b: [statistics.fmean(f[k] for f in fs) for k in keys] for b, fs in sorted(blocks.items())}


@dataclass
class Estimate:
    """A measure's value with its interval (``games`` games in ``blocks`` blocks)."""

    value: float
    low: float
    high: float
    games: int
    blocks: int
    confidence: float = CONFIDENCE
    p_value: float | None = None
    """Exact sign test on the block differences (paired comparisons only)."""
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def covers_zero(self) -> bool:
        return self.low <= 0 <= self.high

    def verdict(self) -> str:
        """``"higher"``, ``"lower"`` or ``"none"`` (no measurable difference)."""
        if self.covers_zero:
            return "none"
        return "higher" if self.value > 0 else "lower"

    def to_json(self) -> dict[str, Any]:
        out = {
            "value": self.value,
            "ci95" if self.confidence == CONFIDENCE else "ci": [self.low, self.high],
            "confidence": self.confidence,
            "games": self.games,
            "blocks": self.blocks,
        }
        if self.p_value is not None:
            out["sign_test_p"] = self.p_value
            out["verdict"] = self.verdict()
        out.update(self.extra)
        return out


def _interval(
    data: Sequence[Any], statistic: Callable[..., Any], point: float, seed: int, confidence: float
) -> tuple[float, float]:
    """Paired bootstrap interval of ``statistic`` (BCa; percentile where BCa is undefined)."""
    import numpy as np
    from scipy import stats  # type: ignore[import-untyped]

    if all(np.ptp(np.asarray(d)) == 0 for d in data) or len(data[0]) < 2:
        return point, point  # no variation at all (e.g. identical rule sets): the interval is a point
    for method in ("BCa", "percentile"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            res = stats.bootstrap(
                tuple(np.asarray(d) for d in data),
                statistic,
                paired=True,
                vectorized=True,
                n_resamples=RESAMPLES,
                confidence_level=confidence,
                method=method,
                rng=np.random.default_rng(seed),
            )
        low, high = float(res.confidence_interval.low), float(res.confidence_interval.high)
        if np.isfinite(low) and np.isfinite(high):
            return min(low, point), max(high, point)
    return point, point


def _statistic(measure: Measure, count: int) -> Callable[..., Any]:
    """Vectorised ``measure`` of ``count`` feature columns (scipy passes them as arrays)."""

    def value(*columns: Any, axis: int = -1) -> Any:
        means = {k: c.mean(axis=axis) for k, c in zip(measure.features, columns[:count], strict=True)}
        return measure.value(means)

    return value


def point_value(games: Sequence[GameResult], measure: Measure, lineup: Sequence[str]) -> float:
    """``measure`` over ``games`` (no interval: the search's quick look)."""
    feats = [game_features(g, lineup) for g in games]
    return float(measure.value({k: statistics.fmean(f[k] for f in feats) for k in measure.features}))


def estimate(
    games: Sequence[GameResult],
    measure: Measure,
    lineup: Sequence[str],
    players: int,
    duplicate: bool = True,
    seed: int = 0,
    confidence: float = CONFIDENCE,
) -> Estimate:
    """``measure`` over ``games`` with its bootstrap interval (blocks resampled)."""
    if not games:
        raise LabError(f"no games to measure {measure.label}")
    blocks = block_means(games, lineup, players, duplicate, measure.features)
    columns = list(zip(*blocks.values(), strict=True))
    point = float(
        measure.value({k: statistics.fmean(c) for k, c in zip(measure.features, columns, strict=True)})
    )
    low, high = _interval(
        columns,
        _statistic(measure, len(columns)),
        point,
        derive_seed("estimate", seed, measure.key),
        confidence,
    )
    return Estimate(point, low, high, len(games), len(blocks), confidence)


def paired_difference(
    base: Sequence[GameResult],
    other: Sequence[GameResult],
    measure: Measure,
    lineup: Sequence[str],
    players: int,
    duplicate: bool = True,
    seed: int = 0,
    confidence: float = CONFIDENCE,
    other_lineup: Sequence[str] | None = None,
    other_players: int | None = None,
    other_measure: Measure | None = None,
) -> Estimate:
    """``measure(other) − measure(base)`` over the blocks both played (same deal
    and bot seeds), with its paired bootstrap interval and an exact sign test.

    ``other_*``: the other side's line-up, player count and measure when they
    differ (a design candidate with another player count; its deals then differ
    too, and the blocks pair by seed only, which keeps the interval valid)."""
    from scipy import stats

    mb = other_measure or measure
    a = block_means(base, lineup, players, duplicate, measure.features)
    b = block_means(other, other_lineup or lineup, other_players or players, duplicate, mb.features)
    common = sorted(set(a) & set(b))
    if not common:
        raise LabError(f"no paired games to compare {measure.label}")
    ka, kb = len(measure.features), len(mb.features)
    cols_a = [[a[blk][i] for blk in common] for i in range(ka)]
    cols_b = [[b[blk][i] for blk in common] for i in range(kb)]
    value_a, value_b = _statistic(measure, ka), _statistic(mb, kb)

    def diff(*columns: Any, axis: int = -1) -> Any:
        return value_b(*columns[ka:], axis=axis) - value_a(*columns[:ka], axis=axis)

    def point_of(m: Measure, cols: Sequence[Sequence[float]]) -> float:
        return float(m.value({key: statistics.fmean(c) for key, c in zip(m.features, cols, strict=True)}))

    point = point_of(mb, cols_b) - point_of(measure, cols_a)
    interval_seed = derive_seed("paired", seed, measure.key)
    low, high = _interval([*cols_a, *cols_b], diff, point, interval_seed, confidence)
    per_block = [
        point_of(mb, [[c[j]] for c in cols_b]) - point_of(measure, [[c[j]] for c in cols_a])
        for j in range(len(common))
    ]
    up = sum(1 for d in per_block if d > 0)
    down = sum(1 for d in per_block if d < 0)
    p = float(stats.binomtest(up, up + down, 0.5).pvalue) if up + down else 1.0
    paired = set(common)
    size = other_players or players
    games = sum(1 for g in other if (g.index // size if duplicate else g.index) in paired)
    return Estimate(
        point,
        low,
        high,
        games,
        len(common),
        confidence,
        p,
        {"base": point_of(measure, cols_a), "other": point_of(mb, cols_b)},
    )


def fmt(value: float, unit: str) -> str:
    """A measure's value as a designer reads it."""
    if unit in ("%", "% of rounds"):
        return f"{value:.1f}%"
    if unit == "pts":
        return f"{value:.1f} pts"
    return f"{value:.1f}"


def fmt_diff(e: Estimate, unit: str) -> str:
    """``+4.2 pts (95%: +1.0 … +7.5)``."""
    u = " pts" if unit in ("pts", "%", "% of rounds") else ""
    return f"{e.value:+.1f}{u} ({100 * e.confidence:.0f}%: {e.low:+.1f} … {e.high:+.1f})"


NO_DIFFERENCE = {"en": "no measurable difference", "de": "kein messbarer Unterschied"}


def units(text: str, lang: str) -> str:
    """Unit words in the report's language (``pts`` -> ``Pkt.`` in German)."""
    if lang != "de":
        return text
    return text.replace("% of rounds", "% der Runden").replace(" pts", " Pkt.")


def describe_diff(e: Estimate, unit: str, lang: str = "en") -> str:
    """A paired difference as a designer reads it: the change with its interval,
    or "no measurable difference" (with the interval) where it covers 0."""
    if e.covers_zero:
        if e.low == e.high:
            return NO_DIFFERENCE[lang]
        return units(f"{NO_DIFFERENCE[lang]} ({fmt_diff(e, unit)})", lang)
    return units(fmt_diff(e, unit), lang)


def estimate_from_json(d: Mapping[str, Any]) -> Estimate:
    low, high = d.get("ci95", d.get("ci"))
    return Estimate(
        d["value"], low, high, d["games"], d["blocks"], d.get("confidence", CONFIDENCE), d.get("sign_test_p")
    )
