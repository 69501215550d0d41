"""Spieltisch: the digital table for Scout and Waschbär-Schmaus.

The names most users import first (the whole engine API is in
:mod:`spieltisch.engine`, documented in ``docs/engine.md``):

>>> import spieltisch
>>> state = spieltisch.get_game("scout").new_state(players=3, seed=1)
>>> try:
...     state.apply(0, "show 0")
... except spieltisch.IllegalActionError as error:
...     print(error.ruling)
S-5
"""

from __future__ import annotations

from spieltisch import engine
from spieltisch.engine import *  # noqa: F403 - the engine's public names (engine.__all__)


def _version() -> str:
    """The installed distribution's version, else the one in the source tree's pyproject.toml."""
    from importlib import metadata

    try:
        return metadata.version("spieltisch")
    except metadata.PackageNotFoundError:
        import tomllib
        from pathlib import Path

        pyproject = Path(__file__).resolve().parents[2] / "pyproject.toml"
        try:
            return str(tomllib.loads(pyproject.read_text(encoding="utf-8"))["project"]["version"])
        except (OSError, KeyError, tomllib.TOMLDecodeError):
            return "0+unknown"


__version__ = _version()

__all__ = ["__version__", *engine.__all__]
