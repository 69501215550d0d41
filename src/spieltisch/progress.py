"""Honest progress for benchmarks: a bar over the planned measuring time.

A benchmark knows up front how long it will measure (``--seconds`` per
measurement times the measurements), so the bar's total is that time and it
moves as measuring time passes. The ETA is the remaining planned time scaled
by the rate observed since the start (not a short window), so it is right
from the first seconds and stays steady. The bar goes to stderr: the figures
on stdout stay clean for a pipe.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    ProgressColumn,
    Task,
    TaskProgressColumn,
    TextColumn,
    TimeElapsedColumn,
)
from rich.text import Text

Tick = Callable[[float], None]
"""``tick(seconds)``: that much of the planned measuring time is done."""


class EtaColumn(ProgressColumn):
    """Remaining time from the average rate since the start: ``ETA 0:00:12``."""

    def render(self, task: Task) -> Text:
        elapsed = task.elapsed or 0.0
        if task.finished:
            return Text("done", style="progress.remaining")
        if task.total is None or task.completed <= 0 or elapsed < 0.5:
            return Text("ETA –:––:––", style="progress.remaining")
        left = int((task.total - task.completed) * elapsed / task.completed + 0.5)
        return Text(f"ETA {left // 3600}:{left % 3600 // 60:02d}:{left % 60:02d}", style="progress.remaining")


def count_columns(
    description: str, rate: ProgressColumn, eta: ProgressColumn, percent: bool = False
) -> tuple[ProgressColumn, ...]:
    """The columns of a bar that counts things done (games, decisions):
    ``description`` in bold, the bar, ``done/total``, the percentage if
    ``percent``, then ``rate``, the time elapsed and ``eta``."""
    return (
        TextColumn(f"[bold]{description}"),
        BarColumn(),
        MofNCompleteColumn(),
        *((TaskProgressColumn(),) if percent else ()),
        rate,
        TimeElapsedColumn(),
        eta,
    )


class Meter:
    """What a measurement reports to the bar: ``meter.label("scout, 3 players")``, ``meter.advance(s)``."""

    def __init__(self, progress: Progress | None, clock: Callable[[], float] = time.perf_counter) -> None:
        self.progress = progress
        self.clock = clock  # the time the measurement counts (wall, or CPU for per-CPU-second figures)
        self.last = clock()

    def label(self, text: str) -> None:
        if self.progress is not None:
            self.progress.update(self.progress.task_ids[0], description=text)

    def advance(self, seconds: float) -> None:
        if self.progress is not None:
            self.progress.advance(self.progress.task_ids[0], seconds)

    def lap(self) -> None:
        """Advance by the measured time (``clock``) since the last lap."""
        now = self.clock()
        self.advance(now - self.last)
        self.last = now


@contextmanager
def planned(
    total_seconds: float,
    description: str,
    console: Console | None = None,
    enabled: bool = True,
    clock: Callable[[], float] = time.perf_counter,
) -> Iterator[Meter]:
    """A progress bar whose total is ``total_seconds`` of planned measuring time."""
    if not enabled:
        yield Meter(None, clock)
        return
    progress = Progress(
        TextColumn("{task.description}"),
        BarColumn(bar_width=24),
        TextColumn("{task.percentage:>3.0f}%"),
        TimeElapsedColumn(),
        EtaColumn(),
        console=console or Console(stderr=True),
        transient=True,
    )
    with progress:
        progress.add_task(description, total=max(total_seconds, 1e-9))
        yield Meter(progress, clock)
