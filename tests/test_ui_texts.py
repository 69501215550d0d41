"""The UI texts: German and English say the same things, and every reason the
engines can give for refusing an action can be said in both languages."""

from __future__ import annotations

import json
import re
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


def test_every_text_the_web_client_names_exists_in_both_languages() -> None:
    """Each quoted text key in the client's code ("scout.takeLeft", or the
    .one/.other pair of a count) has a text in German and English."""
    js = "\n".join(
        f.read_text("utf-8")
        for f in files("spieltisch.web").joinpath("static", "js").iterdir()
        if f.name.endswith(".js")
    )
    de, en = texts("de"), texts("en")
    spaces = {key.split(".")[0] for key in en}
    named = {
        m.group(1)
        for m in re.finditer(r'"([a-z][A-Za-z0-9]*(?:\.[A-Za-z0-9_]+)+)"', js)
        if m.group(1).split(".")[0] in spaces
    }
    counted = set(re.findall(r'\btn\(\s*"([^"]+)"', js))
    assert len(named) > 100, "the scan should find the client's text keys"
    for ui, lang in ((de, "de"), (en, "en")):
        missing = sorted(
            key
            for key in named
            if key not in ui and not (key in counted and {f"{key}.one", f"{key}.other"} <= ui.keys())
        )
        assert not missing, f"{lang}: no text for {missing}"


def test_every_hint_reason_can_be_said() -> None:
    """The web table says each hint's reason from its key (``hint.KEY``), with the
    parameters the server sends; the server's English sentence is the same text."""
    from spieltisch.analysis.hints import TEXTS

    de, en = texts("de"), texts("en")
    for reason, sentence in TEXTS.items():
        assert en[f"hint.{reason}"] == sentence, reason
        assert placeholders(de[f"hint.{reason}"]) == placeholders(sentence), reason
