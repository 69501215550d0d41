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
from rich.text import Text

from spieltisch.analysis.review import Review, ReviewBudget, ReviewError, load_record, review
from spieltisch.engine import get_game
from spieltisch.progress import EtaColumn, count_columns
from spieltisch.terminal.i18n import Names, Texts
from spieltisch.terminal.render import review_tables


def run_review(
    path: Path,
    seats: Sequence[int] | None,
    budget_text: str,
    json_out: Path | None,
    workers: int,
    lang: str = "en",
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
    print_review(result, out, lang)
    if json_out is not None:
        try:
            json_out.write_text(json.dumps(result.to_json(), indent=1, ensure_ascii=False) + "\n", "utf-8")
        except OSError as exc:
            raise ReviewError(f"cannot write {json_out}: {exc.strerror or exc}") from None
    return result


def print_review(result: Review, console: Any, lang: str = "en") -> None:
    """The marked decisions of every reviewed seat and the summary per player, in
    ``lang`` (the tables ``spieltisch play`` shows after a game, with seats by number)."""
    texts = Texts(lang)
    title = get_game(result.game).title
    console.print(texts("review_game", game=title, players=result.players, seed=result.seed))
    names = Names([texts("seat", seat=s) for s in range(result.players)], None, lang)
    seats = [s.seat for s in result.summary]
    console.print(review_tables(result.to_json(), seats, names, texts, console.width))


class RateColumn(ProgressColumn):
    """Decisions per second since the start."""

    def render(self, task: ProgressTask) -> Text:
        elapsed = task.elapsed or 0.0
        if not task.completed or not elapsed:
            return Text("measuring…", style="progress.data.speed")
        rate = task.completed / elapsed
        text = f"{rate:,.1f} decisions/s" if rate >= 1 else f"{1 / rate:,.1f} s/decision"
        return Text(text, style="progress.data.speed")
