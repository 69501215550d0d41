"""The package's face: ``spieltisch.__version__``, ``get_game`` and the error types."""

from __future__ import annotations

import random
import subprocess
import sys
import tomllib
from importlib import metadata
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

import spieltisch
from spieltisch.engine.base import shuffle

ROOT = Path(__file__).resolve().parents[1]
PYPROJECT_VERSION = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["version"]


def test_version_prints_from_a_fresh_interpreter() -> None:
    out = subprocess.run(
        [sys.executable, "-c", "import spieltisch; print(spieltisch.__version__)"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert out.stdout.strip() == PYPROJECT_VERSION == metadata.version("spieltisch")


def test_version_falls_back_to_the_pyproject_of_the_source_tree(monkeypatch: pytest.MonkeyPatch) -> None:
    def not_installed(name: str) -> str:
        raise metadata.PackageNotFoundError(name)

    monkeypatch.setattr(metadata, "version", not_installed)
    assert spieltisch._version() == PYPROJECT_VERSION


def test_the_first_names_a_user_imports() -> None:
    state = spieltisch.get_game("scout").new_state(players=3, seed=1)
    with pytest.raises(spieltisch.IllegalActionError) as info:
        state.apply(0, "show 0")
    assert info.value.ruling == "S-5"
    with pytest.raises(spieltisch.WrongSeatError):
        state.apply(7, "keep")
    with pytest.raises(spieltisch.InvalidActionError):
        state.apply(0, "jump")
    with pytest.raises(spieltisch.OptionsError, match="unknown game"):
        spieltisch.get_game("chess")
    with pytest.raises(spieltisch.RecordError):
        spieltisch.GameRecord.from_json({"game": "scout"})
    for error in (
        spieltisch.InvalidActionError,
        spieltisch.IllegalActionError,
        spieltisch.WrongSeatError,
        spieltisch.GameOverError,
        spieltisch.OptionsError,
        spieltisch.RecordError,
    ):
        assert issubclass(error, spieltisch.RulesError) and issubclass(error, ValueError)
    assert spieltisch.GAMES == ("scout", "schmaus")
    assert [name for name in spieltisch.__all__ if not hasattr(spieltisch, name)] == []
    game = spieltisch.get_game("Waschbär-Schmaus")
    assert game.name == "schmaus" and isinstance(game.new_state(2, 1), spieltisch.State)


@given(seed=st.integers(0, 2**64) | st.text(max_size=20), size=st.integers(0, 60))
def test_the_engines_shuffle_is_exactly_pythons(seed: int | str, size: int) -> None:
    """Every deal and reshuffle goes through ``base.shuffle``: the same order as
    ``random.Random.shuffle``, so every seed deals what it always dealt."""
    deck = list(range(size))
    expected = deck[:]
    random.Random(seed).shuffle(expected)
    mine = random.Random(seed)
    shuffle(deck, mine)
    assert deck == expected
    reference = random.Random(seed)
    reference.shuffle(list(range(size)))
    assert mine.random() == reference.random()  # and it drew the same random bits
