"""``spieltisch bench review``: how long the review of a whole game takes.

Workload: the game of four ``medium`` bots from seed 5 (Scout: 106 decisions;
Waschbär-Schmaus: 53), or a record you give, reviewed for every seat at the web
table's budget (``8``) as the web table and ``spieltisch review`` do it: in a
fresh process (the bots' memos would carry over from playing the game and make
the review look cheaper), with ``-j`` worker processes. Printed: wall seconds
(the figure a player waits for), CPU seconds of the process and its workers,
and, with ``--before OLD_review.py``, the same review by that older module side
by side in the same run (its marks compared with today's). The machine is
shared: compare figures of one run.
"""

from __future__ import annotations

import importlib.util
import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from types import ModuleType
from typing import Any

from rich.console import Console
from rich.table import Table

from spieltisch.analysis import review as current
from spieltisch.bots import make_bot
from spieltisch.bots.match import play_match

GAMES = ("scout", "schmaus")
SEED = 5
TARGET_SECONDS = 15.0
"""Issue #35: a whole Scout game reviewed at the default budget within 15 s on two cores."""


def standard_record(game: str) -> dict[str, Any]:
    """The game of four medium bots from seed 5, as a record."""
    bots = [make_bot(game, "medium", seat, SEED * 10 + seat) for seat in range(4)]
    return play_match(game, bots, seed=SEED).state.record().to_json()


def once(record: Path, budget: str, workers: int, before: Path | None) -> dict[str, Any]:
    """One whole review in this process (a fresh one): wall and CPU seconds, the marks."""
    module = load_review(before)
    start, actions, seed = module.load_record(record)
    kwargs = {"workers": workers} if workers > 1 else {}
    t0, cpu0 = time.monotonic(), time.process_time()
    result = module.review(start, actions, seed, budget=module.ReviewBudget.parse(budget), **kwargs)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = time.process_time() - cpu0 + children.ru_utime + children.ru_stime
    marks = [[d.seat, d.number, d.mark] for d in result.decisions]
    return {"wall": time.monotonic() - t0, "cpu": cpu, "decisions": len(marks), "marks": marks}


def load_review(path: Path | None) -> ModuleType:
    """The review module in ``path`` (an older ``analysis/review.py``), or today's (``None``)."""
    if path is None:
        return current
    spec = importlib.util.spec_from_file_location("review_before", path)
    if spec is None or spec.loader is None:
        raise ValueError(f"--before: cannot load {path} as a Python module")
    module = importlib.util.module_from_spec(spec)
    sys.modules["review_before"] = module  # (dataclasses look their module up)
    spec.loader.exec_module(module)
    return module


def _fresh(record: Path, budget: str, workers: int, before: Path | None) -> dict[str, Any]:
    args = [sys.executable, "-m", "spieltisch.benchmarks.review", str(record), budget, str(workers)]
    done = subprocess.run([*args, str(before or "")], capture_output=True, text=True, check=False)
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["no output"])[-1]
        raise ValueError(f"the review of {record} failed: {last}")
    result: dict[str, Any] = json.loads(done.stdout)
    return result


def run(
    games: tuple[str, ...] = GAMES,
    budget: str = "8",
    workers: int = 2,
    record: Path | None = None,
    before: Path | None = None,
) -> None:
    console = Console()
    current.ReviewBudget.parse(budget)  # a bad budget stops here, with its message
    table = Table(title=f"Whole-game review, every seat, budget {budget}, {workers} processes")
    older = ("before: wall s", "CPU s", "same marks") if before else ()
    for col in ("game", "decisions", "wall s", "CPU s", *older):
        table.add_column(col, justify="left" if col == "game" else "right")
    with tempfile.TemporaryDirectory() as tmp:
        jobs: list[tuple[str, Path]] = []
        if record is not None:
            jobs.append((record.name, record))
        else:
            for game in games:
                path = Path(tmp) / f"{game}-medium-seed{SEED}.json"
                path.write_text(json.dumps(standard_record(game)))
                jobs.append((f"{game} (4 medium, seed {SEED})", path))
        for name, path in jobs:
            console.print(f"reviewing {name} ...")
            now = _fresh(path, budget, workers, None)
            row = [name, str(now["decisions"]), f"{now['wall']:.1f}", f"{now['cpu']:.1f}"]
            if before is not None:
                old = _fresh(path, budget, workers, before)
                same = "yes" if old["marks"] == now["marks"] else "no"
                row += [f"{old['wall']:.1f}", f"{old['cpu']:.1f}", same]
            table.add_row(*row)
    console.print(table)
    console.print(
        f"Target: a whole Scout game within {TARGET_SECONDS:g} s wall on two cores (-j 2). Wall time "
        "depends on the machine and its load; CPU seconds a little."
    )


if __name__ == "__main__":  # one review in a fresh process, for run(): JSON on stdout
    path, budget_text, processes, old_module = sys.argv[1:5]
    out = once(Path(path), budget_text, int(processes), Path(old_module) if old_module else None)
    print(json.dumps(out))
