"""Run game tasks in-process, on local worker processes or on a Ray cluster.

Whatever the backend and the number of workers, the results come back in task
order and every game depends only on its task, so a study is reproducible
from its seed alone.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from contextlib import contextmanager
from typing import Any

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
    TimeRemainingColumn,
)
from rich.text import Text

from spieltisch.lab.config import LabError
from spieltisch.lab.play import GameResult, GameTask, play_game

Advance = Callable[[int], None]


def play_chunk(tasks: Sequence[GameTask]) -> list[GameResult]:
    """Play a few games one after another (the unit of work sent to a worker)."""
    return [play_game(task) for task in tasks]


def chunked(tasks: Sequence[GameTask], workers: int) -> list[list[GameTask]]:
    """Small chunks: few enough to keep the overhead low, many enough for a smooth
    progress bar and balanced workers."""
    size = max(1, min(16, len(tasks) // (workers * 8)))
    return [list(tasks[i : i + size]) for i in range(0, len(tasks), size)]


class RateColumn(ProgressColumn):
    """Games per second."""

    def render(self, task: Task) -> Text:
        speed = task.finished_speed or task.speed
        return Text("–/s" if speed is None else f"{speed:,.1f} games/s", style="progress.data.speed")


@contextmanager
def progress_bar(total: int, description: str, enabled: bool) -> Iterator[Advance]:
    """A rich progress bar (rate and ETA) on stderr; a no-op when disabled."""
    if not enabled:
        yield lambda _n: None
        return
    progress = Progress(
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TaskProgressColumn(),
        RateColumn(),
        TimeElapsedColumn(),
        TextColumn("ETA"),
        TimeRemainingColumn(),
        console=Console(stderr=True),
        transient=False,
    )
    with progress:
        task_id = progress.add_task(description, total=total)
        yield lambda n: progress.advance(task_id, n)


def default_workers() -> int:
    return os.cpu_count() or 1


def run_tasks(
    tasks: Sequence[GameTask],
    workers: int | None = None,
    ray_address: str | None = None,
    progress: bool = False,
    description: str = "games",
) -> list[GameResult]:
    """Play every task; results in task order.

    ``workers``: local processes (default: every core; 1 plays in this
    process). ``ray_address``: a Ray cluster address, or ``"local"`` to start a
    small Ray instance here (then ``workers`` is its CPU count)."""
    if workers is not None and workers < 1:
        raise LabError(f"--workers must be at least 1, not {workers}")
    with progress_bar(len(tasks), description, progress) as advance:
        if ray_address is not None:
            return _run_ray(tasks, ray_address, workers, advance)
        n = workers or default_workers()
        if n == 1 or len(tasks) <= 1:
            results = []
            for task in tasks:
                results.append(play_game(task))
                advance(1)
            return results
        return _run_processes(tasks, n, advance)


def _run_processes(tasks: Sequence[GameTask], workers: int, advance: Advance) -> list[GameResult]:
    chunks = chunked(tasks, workers)
    out: list[list[GameResult] | None] = [None] * len(chunks)
    with ProcessPoolExecutor(max_workers=min(workers, len(chunks))) as pool:
        pending: dict[Future[list[GameResult]], int] = {
            pool.submit(play_chunk, chunk): i for i, chunk in enumerate(chunks)
        }
        while pending:
            done, _ = wait(pending, return_when=FIRST_COMPLETED)
            for future in done:
                i = pending.pop(future)
                out[i] = future.result()
                advance(len(chunks[i]))
    return [result for chunk in out if chunk is not None for result in chunk]


def import_ray() -> Any:
    """Ray, or a clear error naming the extra to install."""
    try:
        import ray
    except ImportError as exc:
        raise LabError(
            "--ray needs the optional Ray extra: pip install 'spieltisch[ray]' (ray is not installed)"
        ) from exc
    return ray


def _run_ray(
    tasks: Sequence[GameTask], address: str, workers: int | None, advance: Advance
) -> list[GameResult]:
    ray = import_ray()
    import logging

    if address == "local":
        ray.init(
            num_cpus=workers or default_workers(),
            include_dashboard=False,
            log_to_driver=False,
            logging_level=logging.WARNING,
        )
    else:
        import spieltisch

        try:
            # Ship this checkout of spieltisch to the cluster's workers.
            ray.init(
                address=address,
                runtime_env={"py_modules": [spieltisch]},
                log_to_driver=False,
                logging_level=logging.WARNING,
            )
        except ConnectionError as exc:
            raise LabError(f"cannot reach the Ray cluster at {address!r}: {exc}") from exc
    try:
        remote = ray.remote(play_chunk)
        cluster_cpus = int(ray.cluster_resources().get("CPU", 1))
        chunks = chunked(tasks, max(1, cluster_cpus))
        refs = [remote.remote(chunk) for chunk in chunks]
        index = {ref: i for i, ref in enumerate(refs)}
        out: list[list[GameResult] | None] = [None] * len(chunks)
        pending = list(refs)
        while pending:
            done, pending = ray.wait(pending, num_returns=1)
            for ref in done:
                i = index[ref]
                out[i] = ray.get(ref)
                advance(len(chunks[i]))
        return [result for chunk in out if chunk is not None for result in chunk]
    finally:
        ray.shutdown()
