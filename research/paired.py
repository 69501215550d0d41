"""Paired difference of two bots' win rates on the same games, from two per-game logs.

    .venv/bin/python research/measure_bots.py --game scout --players 5 --games 400 --first-seed 480 \
        --bot hard --against medium --log v12.jsonl
    .venv/bin/python research/measure_bots.py --game scout --players 5 --games 400 --first-seed 480 \
        --bot hard@v7 --against medium --log v7.jsonl
    .venv/bin/python research/paired.py v12.jsonl v7.jsonl

Each log holds one JSON line per game with its ``index`` and whether the measured
bot ``won`` (``research/measure_bots.py --log``). Two runs over the same seeds play
the same deals with the measured bot in the same seat against the same opponents,
so they are compared game by game over the indices both logs hold: the mean of the
per-game differences (first minus second) with a 95% interval (normal approximation,
z = 1.96), and how many games came out differently. Pairing removes most of the
deals' luck: a paired interval is several times narrower than the difference of two
Wilson intervals of the same games.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import typer

app = typer.Typer(add_completion=False)


def load(path: Path) -> dict[int, bool]:
    """Game index -> won, from a per-game log."""
    rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    return {int(r["index"]): bool(r["won"]) for r in rows}


def paired(a: list[bool], b: list[bool]) -> tuple[float, float]:
    """Mean of ``a - b`` and the half-width of its 95% interval."""
    n = len(a)
    d = [int(x) - int(y) for x, y in zip(a, b, strict=True)]
    mean = sum(d) / n
    var = sum((x - mean) ** 2 for x in d) / max(1, n - 1)
    return mean, 1.96 * math.sqrt(var / n)


@app.command()
def main(first: Path, second: Path) -> None:
    """Paired difference of two logs over the games both played."""
    a, b = load(first), load(second)
    common = sorted(set(a) & set(b))
    if not common:
        raise typer.BadParameter("the logs share no game")
    x, y = [a[i] for i in common], [b[i] for i in common]
    mean, half = paired(x, y)
    changed = sum(p != q for p, q in zip(x, y, strict=True))
    print(
        f"{len(common)} games: {sum(x)} vs {sum(y)} wins, difference {100 * mean:+.1f} ± {100 * half:.1f} "
        f"points (95%), {changed} games changed"
    )


if __name__ == "__main__":
    app()
