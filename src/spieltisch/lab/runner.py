"""Run game tasks in-process, on local worker processes or on a Ray cluster.

Whatever the backend and the number of workers, the results come back in task
order and every game depends only on its task, so a study is reproducible
from its seed alone.

Progress is honest from the first game: games go out one (or a few, for
thousands of quick games) at a time and each result is counted the moment it
arrives; the rate is games done over the time since the start (not a short
window, which jumps when results arrive in bursts), and the time left is the
games left at that rate. A :class:`Runner` keeps its worker pool across
several batches (the design search plays many small ones).
"""

from __future__ import annotations

import os
import signal
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from contextlib import contextmanager
from types import TracebackType
from typing import Any

from rich.console import Console, RenderableType
from rich.progress import (
    Progress,
    ProgressColumn,
    Task,
)
from rich.text import Text

from spieltisch.lab.config import LabError
from spieltisch.lab.play import GameResult, GameTask, play_game
from spieltisch.progress import count_columns

Advance = Callable[[int], None]

MAX_CHUNK = 4
"""At most this many games per unit of work: one game costs milliseconds (random
bots) to seconds (searching bots), so a few games per message keep the overhead
low and the progress bar moving."""


class Interrupted(KeyboardInterrupt):
    """Ctrl+C while games were played: the workers are stopped at once, and
    :attr:`results` holds the games finished by then (in task order). A
    :class:`KeyboardInterrupt`, so a caller that does not look for it stops as before."""

    def __init__(self, results: list[GameResult]) -> None:
        super().__init__(f"interrupted after {len(results)} game(s)")
        self.results = results


def _ignore_interrupts() -> None:
    """In a worker: Ctrl+C is the main process's to handle (it stops the workers)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def play_chunk(tasks: Sequence[GameTask]) -> list[GameResult]:
    """Play a few games one after another (the unit of work sent to a worker)."""
    return [play_game(task) for task in tasks]


def chunked(tasks: Sequence[GameTask], workers: int) -> list[list[GameTask]]:
    """Chunks of one game; :data:`MAX_CHUNK` games only for thousands of games
    per worker (quick bots, where one game is a millisecond job)."""
    size = MAX_CHUNK if len(tasks) >= workers * 1000 else 1
    return [list(tasks[i : i + size]) for i in range(0, len(tasks), size)]


def overall_rate(task: Task) -> float | None:
    """Games per second since the start, ``None`` before the first game is done."""
    elapsed = task.finished_time if task.finished else task.elapsed
    if not task.completed or not elapsed:
        return None
    return task.completed / elapsed


class RateColumn(ProgressColumn):
    """Games per second over the whole run so far."""

    def render(self, task: Task) -> Text:
        speed = overall_rate(task)
        if speed is None:
            return Text("measuring…", style="progress.data.speed")
        text = f"{speed:,.1f} games/s" if speed >= 1 else f"{1 / speed:,.1f} s/game"
        return Text(text, style="progress.data.speed")


class EtaColumn(ProgressColumn):
    """Time left: the games left at the overall rate."""

    def render(self, task: Task) -> Text:
        if task.finished:
            return Text("done", style="progress.remaining")
        speed = overall_rate(task)
        if speed is None or task.total is None:
            return Text("ETA –", style="progress.remaining")
        left = max(0.0, (task.total - task.completed) / speed)
        minutes, seconds = divmod(round(left), 60)
        hours, minutes = divmod(minutes, 60)
        text = f"{hours}:{minutes:02d}:{seconds:02d}" if hours else f"{minutes}:{seconds:02d}"
        return Text(f"ETA {text}", style="progress.remaining")


class _Progress(Progress):
    """A progress bar with an optional live panel under it (the design search's best candidates)."""

    def __init__(self, *columns: ProgressColumn, panel: Callable[[], RenderableType | None] | None = None,
                 **kwargs: Any) -> None:  # fmt: skip
        self.panel = panel
        super().__init__(*columns, **kwargs)

    def get_renderables(self) -> Iterator[RenderableType]:
        yield from super().get_renderables()
        extra = self.panel() if self.panel is not None else None
        if extra is not None:
            yield extra


class ProgressBar:
    """``advance(n)`` counts games; ``add(n)`` raises the total (sequential
    studies and the design search learn their total as they go)."""

    def __init__(self, progress: _Progress | None, task_id: Any = None) -> None:
        self._progress = progress
        self._task = task_id

    def advance(self, n: int) -> None:
        if self._progress is not None:
            self._progress.advance(self._task, n)

    def __call__(self, n: int) -> None:
        self.advance(n)

    def set_total(self, total: int) -> None:
        if self._progress is not None:
            self._progress.update(self._task, total=total)

    def describe(self, text: str) -> None:
        if self._progress is not None:
            self._progress.update(self._task, description=text)


@contextmanager
def progress_bar(
    total: int,
    description: str,
    enabled: bool,
    panel: Callable[[], RenderableType | None] | None = None,
) -> Iterator[ProgressBar]:
    """A rich progress bar (overall rate and ETA) on stderr; a no-op when disabled."""
    if not enabled:
        yield ProgressBar(None)
        return
    progress = _Progress(
        *count_columns("{task.description}", RateColumn(), EtaColumn(), percent=True),
        console=Console(stderr=True),
        transient=False,
        refresh_per_second=4,
        panel=panel,
    )
    with progress:
        yield ProgressBar(progress, progress.add_task(description, total=total))


def default_workers() -> int:
    return os.cpu_count() or 1


class Runner:
    """Plays batches of tasks on one backend, keeping its worker pool (or Ray
    connection) until closed. Use as a context manager."""

    def __init__(self, workers: int | None = None, ray_address: str | None = None) -> None:
        if workers is not None and workers < 1:
            raise LabError(f"--workers must be at least 1, not {workers}")
        self.workers = workers or default_workers()
        self.ray_address = ray_address
        self._pool: ProcessPoolExecutor | None = None
        self._ray: Any = None
        if ray_address is not None:
            self._ray = _start_ray(ray_address, workers)
            self.workers = max(1, int(self._ray.cluster_resources().get("CPU", 1)))

    def __enter__(self) -> Runner:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(cancel_futures=True)
            self._pool = None
        if self._ray is not None:
            self._ray.shutdown()
            self._ray = None

    def run(self, tasks: Sequence[GameTask], advance: Advance = lambda _n: None) -> list[GameResult]:
        """Every task played; results in task order, ``advance`` called per finished chunk."""
        if self._ray is not None:
            return self._run_ray(tasks, advance)
        if self.workers == 1 or len(tasks) <= 1:
            results: list[GameResult] = []
            try:
                for task in tasks:
                    results.append(play_game(task))
                    advance(1)
            except KeyboardInterrupt:
                raise Interrupted(results) from None
            return results
        return self._run_processes(tasks, advance)

    def _stop_workers(self) -> None:
        """Ctrl+C: end the worker processes now rather than wait for their games."""
        pool, self._pool = self._pool, None
        if pool is None:
            return
        for process in list(pool._processes.values()):
            process.kill()
        pool.shutdown(wait=True, cancel_futures=True)

    def _run_processes(self, tasks: Sequence[GameTask], advance: Advance) -> list[GameResult]:
        if self._pool is None:
            self._pool = ProcessPoolExecutor(max_workers=self.workers, initializer=_ignore_interrupts)
        chunks = chunked(tasks, self.workers)
        out: list[list[GameResult] | None] = [None] * len(chunks)
        pending: dict[Future[list[GameResult]], int] = {
            self._pool.submit(play_chunk, chunk): i for i, chunk in enumerate(chunks)
        }
        try:
            while pending:
                done, _ = wait(pending, return_when=FIRST_COMPLETED)
                for future in done:
                    i = pending.pop(future)
                    out[i] = future.result()
                    advance(len(chunks[i]))
        except KeyboardInterrupt:
            self._stop_workers()
            raise Interrupted([result for chunk in out if chunk is not None for result in chunk]) from None
        finally:
            for future in pending:
                future.cancel()
        return [result for chunk in out if chunk is not None for result in chunk]

    def _run_ray(self, tasks: Sequence[GameTask], advance: Advance) -> list[GameResult]:
        ray = self._ray
        remote = ray.remote(play_chunk)
        chunks = chunked(tasks, self.workers)
        refs = [remote.remote(chunk) for chunk in chunks]
        index = {ref: i for i, ref in enumerate(refs)}
        out: list[list[GameResult] | None] = [None] * len(chunks)
        pending = list(refs)
        try:
            while pending:
                done, pending = ray.wait(pending, num_returns=1)
                for ref in done:
                    i = index[ref]
                    out[i] = ray.get(ref)
                    advance(len(chunks[i]))
        except KeyboardInterrupt:
            for ref in pending:
                ray.cancel(ref, force=True)
            raise Interrupted([result for chunk in out if chunk is not None for result in chunk]) from None
        return [result for chunk in out if chunk is not None for result in chunk]


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
    with Runner(workers, ray_address) as runner, progress_bar(len(tasks), description, progress) as bar:
        return runner.run(tasks, bar)


def import_ray() -> Any:
    """Ray, or a clear error naming the extra to install."""
    try:
        import ray
    except ImportError as exc:
        raise LabError(
            "--ray needs the optional Ray extra: pip install 'spieltisch[ray]' (ray is not installed)"
        ) from exc
    return ray


def _start_ray(address: str, workers: int | None) -> Any:
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
    return ray
