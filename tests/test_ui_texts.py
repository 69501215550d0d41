"""The UI texts: German and English say the same things, and every reason the
engines can give for refusing an action can be said in both languages."""

from __future__ import annotations

import json
import string
from importlib.resources import files

import pytest

from spieltisch.engine import GAMES, get_game


def texts(lang: str) -> dict[str, str]:
    data: dict[str, str] = json.loads(
        files("spieltisch.web").joinpath("static", "i18n", f"{lang}.json").read_text("utf-8")
    )
    return data


def placeholders(template: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(template) if name}


def test_german_and_english_have_the_same_texts_and_placeholders() -> None:
    de, en = texts("de"), texts("en")
    assert de.keys() == en.keys()
    for key in en:
        assert placeholders(de[key]) == placeholders(en[key]), key


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("lang", ["de", "en"])
def test_every_refusal_reason_can_be_said(game: str, lang: str) -> None:
    ui = texts(lang)
    for reason, template in get_game(game).reasons.items():
        key = f"refusal.{reason}"
        assert key in ui, f"{lang}: no text for {game} reason {reason!r}"
        # A translation may leave a value out, never ask for one the engine does not give.
        assert placeholders(ui[key]) <= placeholders(template), key
