"""Line-ups, rule options and seeds: everything a study is made of, validated
up front so that a bad option or bot spec fails before any game is played."""

from __future__ import annotations

import hashlib
import importlib
import shlex
import shutil
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from spieltisch.engine import RulesError, get_game
from spieltisch.options import (
    OptionsInputError,
    load_options_file,
    merge_options,
    parse_option_pairs,
    parse_value,
    read_table_file,
    set_dotted,
)

__all__ = [
    "LabError",
    "OptionsInputError",
    "load_options_file",
    "merge_options",
    "parse_option_pairs",
    "parse_value",
    "read_table_file",
    "set_dotted",
]


class LabError(OptionsInputError):
    """Bad input to the lab (options, bot specs, files); the message says what."""


AVOID_PREFIX = "avoid="


def derive_seed(*parts: object) -> int:
    """A 63-bit seed from its parts only (never from global state or order of use)."""
    digest = hashlib.sha256("/".join(map(str, parts)).encode()).digest()
    return int.from_bytes(digest[:8], "big") >> 1


def validate_options(game: str, players: int, options: Mapping[str, Any]) -> dict[str, Any]:
    """The engine's verdict on ``options`` for ``players``: the normalised options
    (defaults filled in) or a :class:`LabError` with the engine's message."""
    g = get_game(game)
    try:
        state = g.new_state(players, 0, options)
    except RulesError as exc:
        raise LabError(f"bad rule options for {g.title} with {players} players: {exc}") from exc
    return state.game_options()


def split_bots(bots: Sequence[str]) -> list[str]:
    """``--bot hard --bots medium,easy`` -> ``["hard", "medium", "easy"]`` (cmd: and py: specs
    are never split at commas)."""
    out: list[str] = []
    for item in bots:
        whole = any(
            item.strip().startswith(p) or (AVOID_PREFIX in item and p in item) for p in ("cmd:", "py:")
        )
        if whole:
            out.append(item.strip())
            continue
        out.extend(part.strip() for part in item.split(","))
    if any(not spec for spec in out):
        raise LabError("empty bot spec in the line-up (check for doubled or trailing commas)")
    return out


def avoided_card(spec: str) -> tuple[str, str] | None:
    """``avoid=HUNTER:hard`` -> ``("HUNTER", "hard")``; ``None`` for other specs."""
    if not spec.startswith(AVOID_PREFIX):
        return None
    card, sep, inner = spec[len(AVOID_PREFIX) :].partition(":")
    if not sep or not card or not inner:
        raise LabError(f"bad bot spec {spec!r}: write avoid=CARD:SPEC, e.g. avoid=HUNTER:medium")
    return card.upper(), inner


def check_bot_spec(game: str, spec: str) -> None:
    """Raise :class:`LabError` unless ``make_bot`` (or the lab's ``avoid=``) can build ``spec``."""
    from spieltisch.bots import LEVELS, check_spec

    avoid = avoided_card(spec)
    if avoid is not None:
        card, inner = avoid
        if get_game(game).name != "schmaus":
            raise LabError(f"bot spec {spec!r}: avoid=CARD works for Waschbär-Schmaus only")
        from spieltisch.engine.schmaus.cards import IDS

        if card not in IDS:
            raise LabError(f"bot spec {spec!r}: unknown card {card!r} (one of {', '.join(IDS)})")
        check_bot_spec(game, inner)
        return
    if spec.startswith("cmd:"):
        try:
            argv = shlex.split(spec[4:])
        except ValueError as exc:
            raise LabError(f"bot spec {spec!r}: the command does not parse: {exc}") from exc
        if not argv:
            raise LabError(f"bot spec {spec!r}: give the command after cmd:, e.g. cmd:python mybot.py")
        if shutil.which(argv[0]) is None and not Path(argv[0]).exists():
            raise LabError(f"bot spec {spec!r}: command {argv[0]!r} not found")
        try:
            importlib.import_module("spieltisch.bots.external")
        except ImportError as exc:
            raise LabError(f"bot spec {spec!r}: external bots are not available: {exc}") from exc
        return
    if spec.startswith("py:"):
        try:
            check_spec(game, spec)
        except RulesError as exc:
            raise LabError(str(exc)) from exc
        return
    if spec.split(":", 1)[0].partition("@")[0].strip() not in LEVELS:
        raise LabError(
            f"unknown bot spec {spec!r}: use one of {', '.join(LEVELS)} (LEVEL:KEY=VALUE for a budget), "
            "cmd:COMMAND, py:MODULE:FACTORY[:ARG] or avoid=CARD:SPEC"
        )
    try:
        check_spec(game, spec)
    except (ImportError, AttributeError) as exc:
        raise LabError(f"bot spec {spec!r} for {get_game(game).title} is not available (yet): {exc}") from exc
    except RulesError as exc:
        raise LabError(str(exc)) from exc


def round_up_games(games: int, players: int) -> int:
    """The smallest multiple of ``players`` that is at least ``games`` (and at least one round)."""
    if games < 1:
        raise LabError(f"the number of games must be at least 1, not {games}")
    return -(-games // players) * players


def seating(index: int, players: int) -> tuple[int, ...]:
    """Line-up entry in each seat for game ``index``: rotation ``index mod players``,
    so in every ``players`` consecutive games each entry sits once in each seat."""
    rotation = index % players
    return tuple((seat - rotation) % players for seat in range(players))


def label_entries(lineup: Sequence[str]) -> list[str]:
    """Unique names for the line-up entries: ``hard``, ``medium``, ``medium #2``."""
    seen: dict[str, int] = {}
    out = []
    for spec in lineup:
        seen[spec] = seen.get(spec, 0) + 1
        out.append(spec if seen[spec] == 1 else f"{spec} #{seen[spec]}")
    return out
