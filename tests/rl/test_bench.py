"""``spieltisch bench rl`` prints its figures with the workload named."""

from __future__ import annotations

import pytest

pytest.importorskip("numpy")

from typer.testing import CliRunner

from spieltisch.benchmarks import rl
from spieltisch.cli import app


def test_bench_rl_prints_steps_per_cpu_second(monkeypatch: pytest.MonkeyPatch) -> None:
    original = rl.run
    monkeypatch.setattr(rl, "run", lambda seconds, seed: original(seconds=seconds, seed=seed, batches=(8,)))
    result = CliRunner().invoke(app, ["bench", "rl", "--seconds", "0.02"])
    assert result.exit_code == 0, result.output
    assert "random legal play" in result.output and "per CPU second" in result.output
    assert "env steps/s" in result.output and "decisions/s" in result.output


def test_measure_batched_counts_steps_and_decisions() -> None:
    steps, decisions = rl.measure_batched(3, 16, 0.05, seed=1)
    assert steps > 0 and decisions >= steps
