"""Actions as text for the messages: each action id's notation and the ``legal`` field,
cached per game (an engine's numbering of actions is fixed, so their texts are too)."""

from __future__ import annotations

import orjson

from spieltisch.engine import State

ACTION_TEXTS: dict[str, dict[int, str]] = {}
"""Notation per game and action id (the numbering is fixed, so the text is too)."""


def action_text(game: str, state: State, action_id: int) -> str:
    """The notation of an action id (cached per game: the numbering is fixed, so the text is too)."""
    texts = ACTION_TEXTS.setdefault(game, {})
    text = texts.get(action_id)
    if text is None:
        text = texts[action_id] = state.action_from_id(action_id).to_text()
    return text


NO_LEGAL = orjson.Fragment(b"[]")
ACTION_JSON: dict[str, dict[int, bytes]] = {}
"""``[id, notation]`` as JSON per game and action id (cached like :data:`ACTION_TEXTS`)."""


def legal_json(game: str, state: State, ids: list[int]) -> orjson.Fragment:
    """The ``legal`` field of a state message, ``[[id, notation], ...]``, from the per-game
    cache of each action's JSON: the same bytes as serialising the list, without building it."""
    known = ACTION_JSON.setdefault(game, {})
    parts: list[bytes] = []
    for a in ids:
        part = known.get(a)
        if part is None:
            part = known[a] = orjson.dumps([a, action_text(game, state, a)])
        parts.append(part)
    return orjson.Fragment(b"[" + b",".join(parts) + b"]")


def verb(text: str) -> str:
    return text.split(" ", 1)[0]
