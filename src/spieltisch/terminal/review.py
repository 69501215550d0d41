"""``spieltisch review`` on the terminal: a progress bar while the review
(:mod:`spieltisch.analysis.review`) rates the decisions, then its tables."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.progress import (
    Progress,
    ProgressColumn,
)
from rich.progress import Task as ProgressTask
from rich.table import Table
from rich.text import Text

from spieltisch.analysis.review import Review, ReviewBudget, ReviewError, load_record, review
from spieltisch.engine import get_game
from spieltisch.progress import EtaColumn, count_columns
from spieltisch.tables import lighter, number_column, text_column


def run_review(
    path: Path,
    seats: Sequence[int] | None,
    budget_text: str,
    json_out: Path | None,
    workers: int,
    console: Any = None,
    progress: bool = True,
) -> Review:
    """``spieltisch review``: review, print the tables, optionally write JSON."""
    out = console or Console()
    budget = ReviewBudget.parse(budget_text)
    start, actions, seed = load_record(path)
    if progress:
        bar = Progress(
            *count_columns("review", RateColumn(), EtaColumn()),
            console=Console(stderr=True),
            transient=True,
        )
        with bar:
            task = bar.add_task("review", total=None)
            result = review(
                start, actions, seed, seats, budget, workers,
                advance=lambda n: bar.advance(task, n),
                on_total=lambda n: bar.update(task, total=n),
            )  # fmt: skip
    else:
        result = review(start, actions, seed, seats, budget, workers)
    print_review(result, out)
    if json_out is not None:
        try:
            json_out.write_text(json.dumps(result.to_json(), indent=1, ensure_ascii=False) + "\n", "utf-8")
        except OSError as exc:
            raise ReviewError(f"cannot write {json_out}: {exc.strerror or exc}") from None
    return result


def print_review(result: Review, console: Any) -> None:
    """The marked decisions and the summary per player as Rich tables."""
    title = get_game(result.game).title
    console.print(
        f"{title}, {result.players} players, seed {result.seed}; budget {result.budget} "
        f"(worlds x playouts); utility: {result.utility}; mistake ≥ {result.thresholds['mistake']:g}, "
        f"blunder ≥ {result.thresholds['blunder']:g}"
    )
    width = console.width
    marked = [d for d in result.decisions if d.mark]
    if marked:
        table = Table(title="Mistakes and blunders")
        for col in ("#", "seat", "round", "played", "estimate", "best", "its\nestimate", "loss", "mark"):
            (text_column if col in ("played", "best", "mark") else number_column)(table, col)
        for d in marked:
            table.add_row(
                str(d.number), str(d.seat), str(d.round), d.played, f"{d.played_estimate:+.2f}",
                d.best or "", f"{d.best_estimate:+.2f}", f"{d.loss:.2f}", d.mark or "",
            )  # fmt: skip
        console.print(lighter(table, width))
    summary = Table(title="Summary per player")
    for col in ("seat", "decisions", "rated", "mean loss", "mistakes", "blunders"):
        number_column(summary, col)
    text_column(summary, "biggest (action #: loss)")
    by_number = {(d.seat, d.number): d for d in result.decisions}
    for s in result.summary:
        biggest = ", ".join(f"#{n}: {by_number[s.seat, n].loss:.2f}" for n in s.biggest)
        summary.add_row(
            str(s.seat), str(s.decisions), str(s.rated), f"{s.accuracy:.2f}",
            str(s.mistakes), str(s.blunders), biggest or "-",
        )  # fmt: skip
    console.print(lighter(summary, width))


class RateColumn(ProgressColumn):
    """Decisions per second since the start."""

    def render(self, task: ProgressTask) -> Text:
        elapsed = task.elapsed or 0.0
        if not task.completed or not elapsed:
            return Text("measuring…", style="progress.data.speed")
        rate = task.completed / elapsed
        text = f"{rate:,.1f} decisions/s" if rate >= 1 else f"{1 / rate:,.1f} s/decision"
        return Text(text, style="progress.data.speed")
