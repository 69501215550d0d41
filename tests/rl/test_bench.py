"""``spieltisch bench rl`` prints its figures with the workload named."""

from __future__ import annotations

import pytest

pytest.importorskip("numpy")

from typer.testing import CliRunner

from spieltisch.benchmarks import rl
from spieltisch.cli import app


def test_bench_rl_prints_steps_per_cpu_second() -> None:
    args = ["bench", "rl", "--seconds", "0.02", "--batches", "8,16", "--players", "3", "--backend", "numpy"]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    assert "random legal play" in result.output and "per CPU second" in result.output
    assert "Batched Waschbär-Schmaus" in result.output and "Batched Scout" in result.output
    # (the headers fold to the numbers' width: "env" and "steps/s" on lines of their own)
    assert "steps/s" in result.output and "decisions/s" in result.output and "+ mask" in result.output


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
    if game == "schmaus":
        fused, fused_decisions = rl.measure_batched(3, 16, 0.05, seed=1, game=game, fused=True)
        assert fused > 0 and fused_decisions >= fused


def test_bench_rl_prints_both_backends_side_by_side() -> None:
    pytest.importorskip("numba")
    args = ["bench", "rl", "--seconds", "0.02", "--batches", "8", "--players", "3", "--game", "schmaus"]
    result = CliRunner().invoke(app, [*args, "--backend", "numpy", "--backend", "numba"], terminal_width=250)
    assert result.exit_code == 0, result.output
    text = " ".join(result.output.split())  # rich wraps titles and headers at spaces
    assert "Batched Waschbär-Schmaus (numpy, numba, one core)" in text
    assert text.count("numba") >= 3  # the title and both numba columns
    assert "compiled or loaded from the cache" in result.output and "not in the figures" in result.output


def test_bench_rl_backend_errors(monkeypatch: pytest.MonkeyPatch) -> None:
    result = CliRunner().invoke(app, ["bench", "rl", "--backend", "jax"])
    assert result.exit_code != 0 and "unknown backend 'jax'" in result.output
    from spieltisch.rl import fast

    monkeypatch.setattr(fast, "numba_available", lambda: False)
    result = CliRunner().invoke(app, ["bench", "rl", "--backend", "numba"], terminal_width=250)
    assert result.exit_code != 0
    assert "needs the extra 'rl-fast' (not installed)" in result.output and "rl-fast" in result.output


def test_bench_rl_prints_both_scout_backends_side_by_side() -> None:
    pytest.importorskip("numba")
    args = ["bench", "rl", "--seconds", "0.02", "--batches", "8", "--players", "3", "--game", "scout"]
    result = CliRunner().invoke(app, [*args, "--backend", "numpy", "--backend", "numba"], terminal_width=250)
    assert result.exit_code == 0, result.output
    text = " ".join(result.output.split())
    assert "Batched Scout (numpy, numba, one core)" in text
    assert text.count("numba") >= 3  # the title and both numba columns


def test_bench_help_lists_rl() -> None:
    result = CliRunner().invoke(app, ["bench", "--help"], terminal_width=200)
    assert result.exit_code == 0 and "\n  rl " in result.output


def test_bench_rl_prints_learner_steps_beside_one_gym_env() -> None:
    pytest.importorskip("numba")
    args = ["bench", "rl", "--seconds", "0.02", "--batches", "8", "--players", "3", "--game", "scout"]
    result = CliRunner().invoke(app, [*args, "--backend", "numba"], env={"COLUMNS": "250"})
    assert result.exit_code == 0, result.output
    text = " ".join(result.output.split())
    assert "Scout learner steps per CPU second" in text and "one Gym" in text
    assert all(f"vs {o}" in text for o in ("random", "easy", "medium"))
    start = result.output.index("Scout learner steps")
    row = [line for line in result.output[start:].splitlines() if line.strip().startswith("│ 3")][-1]
    cells = [c.strip().replace(",", "") for c in row.split("│") if c.strip()]
    assert cells[0] == "3" and len(cells) == 7  # random, + sampling, easy, medium, two Gym envs
    assert min(float(cells[i]) for i in range(1, 7)) > 0
