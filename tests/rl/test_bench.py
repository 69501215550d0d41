"""``spieltisch bench rl`` prints its figures with the workload named."""

from __future__ import annotations

import pytest

pytest.importorskip("numpy")

from typer.testing import CliRunner

from spieltisch.benchmarks import rl
from spieltisch.cli import app


def test_bench_rl_prints_steps_per_cpu_second() -> None:
    args = ["bench", "rl", "--seconds", "0.02", "--batches", "8,16", "--players", "3"]
    result = CliRunner().invoke(app, args, terminal_width=200)
    assert result.exit_code == 0, result.output
    assert "random legal play" in result.output and "per CPU second" in result.output
    assert "Batched Waschbär-Schmaus" in result.output and "Batched Scout" in result.output
    assert "env steps/s" in result.output and "decisions/s" in result.output and "+ mask" in result.output


def test_bench_rl_refuses_bad_options() -> None:
    result = CliRunner().invoke(app, ["bench", "rl", "--batches", "8,x"])
    assert result.exit_code != 0 and "whole numbers" in result.output
    result = CliRunner().invoke(app, ["bench", "rl", "--players", "6"])
    assert result.exit_code != 0 and "2..5" in result.output


@pytest.mark.parametrize("game", ["schmaus", "scout"])
def test_measure_batched_counts_steps_and_decisions(game: str) -> None:
    steps, decisions = rl.measure_batched(3, 16, 0.05, seed=1, game=game)
    assert steps > 0 and decisions >= steps
    masked, _ = rl.measure_batched(3, 16, 0.05, seed=1, game=game, mask=True)
    assert masked > 0
