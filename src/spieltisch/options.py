"""Rule options as people type them: ``key=value`` pairs and TOML/JSON files.

Shared by terminal play and the lab; the engine validates the result
(``game.normalize_options``).
"""

from __future__ import annotations

import json
import tomllib
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any


class OptionsInputError(ValueError):
    """An option given on the command line or in a file cannot be read."""


def parse_value(text: str) -> Any:
    """``3`` -> 3, ``true`` -> True, ``{"HUNTER": 1}`` -> dict; anything else stays text."""
    text = text.strip()
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return text


def set_dotted(target: dict[str, Any], key: str, value: Any) -> None:
    """``deck.HUNTER`` = 6 sets ``target["deck"]["HUNTER"]``."""
    parts = [p.strip() for p in key.split(".")]
    if not all(parts):
        raise OptionsInputError(f"bad option name {key!r}")
    node = target
    for part in parts[:-1]:
        child = node.setdefault(part, {})
        if not isinstance(child, dict):
            raise OptionsInputError(f"option {key!r}: {part!r} is already set to a value, not a table")
        node = child
    node[parts[-1]] = value


def parse_option_pairs(pairs: Iterable[str]) -> dict[str, Any]:
    """Options from ``key=value`` texts (``--option``); dotted keys nest."""
    out: dict[str, Any] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            raise OptionsInputError(
                f"--option {pair!r}: write key=value, e.g. --option rounds=6 or --option deck.HUNTER=1"
            )
        set_dotted(out, key.strip(), parse_value(value))
    return out


def merge_options(base: Mapping[str, Any], extra: Mapping[str, Any]) -> dict[str, Any]:
    """``extra`` over ``base``, merging nested tables (the deck) key by key."""
    out = dict(base)
    for key, value in extra.items():
        old = out.get(key)
        if isinstance(old, Mapping) and isinstance(value, Mapping):
            out[key] = merge_options(old, value)
        else:
            out[key] = value
    return out


def read_table_file(path: Path) -> dict[str, Any]:
    """A TOML (``.toml``) or JSON file holding one table."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise OptionsInputError(f"cannot read {path}: {exc.strerror or exc}") from exc
    kind = "TOML" if path.suffix.lower() == ".toml" else "JSON"
    try:
        data: Any = tomllib.loads(text) if kind == "TOML" else json.loads(text)
    except (tomllib.TOMLDecodeError, json.JSONDecodeError) as exc:
        raise OptionsInputError(f"{path} is not valid {kind}: {exc}") from exc
    if not isinstance(data, dict):
        raise OptionsInputError(f"{path} must hold a table/object of options, not {type(data).__name__}")
    return data


def load_options_file(path: Path) -> dict[str, Any]:
    """Rule options from a TOML or JSON file (the whole file, or its ``options`` table)."""
    data = read_table_file(path)
    if set(data) == {"options"} and isinstance(data["options"], dict):
        return dict(data["options"])
    return data


def read_options(pairs: Iterable[str], file: Path | None = None) -> dict[str, Any]:
    """Options from a file, then ``key=value`` pairs over them."""
    base = load_options_file(file) if file is not None else {}
    return merge_options(base, parse_option_pairs(pairs))
