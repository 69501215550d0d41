"""The bot workers' decision in tests/server/test_bot_memory.py: the real one, with the
"hard" seats at a small budget. A module of its own, importing nothing from the tests'
conftest files, because the bot pool's worker processes import it by name."""

from __future__ import annotations

import dataclasses
import tempfile
import time
from pathlib import Path

from spieltisch.server.botpool import ThinkRequest, think

SPEC = "hard:playouts=16"
"""What the "hard" seats play here: the hard bot (its Knowledge and rng carry from one
decision to the next) at a small budget, counted in work (the same on any machine)."""


def quick_think(request: ThinkRequest) -> tuple[int, bytes]:
    """The bot workers' real decision, the "hard" seats (and stand-ins) at :data:`SPEC`."""
    return think(dataclasses.replace(request, spec=SPEC if request.spec == "hard" else request.spec))


def gate_file(seed: int) -> Path:
    return Path(tempfile.gettempdir()) / f"spieltisch-test-memory-gate-{seed}"


def gated_think(request: ThinkRequest) -> tuple[int, bytes]:
    """:func:`quick_think`; a new stand-in of seat 0 (no memory yet) waits while the test's
    gate file exists (at most a minute)."""
    if request.seat == 0 and request.memory is None:
        deadline = time.monotonic() + 60
        while gate_file(request.seed).exists() and time.monotonic() < deadline:
            time.sleep(0.02)
    return quick_think(request)
