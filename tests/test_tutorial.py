"""Learn to play (issue #35): every lesson step stands on a legal position, lets only
its taught moves through, and is explained in both languages with its rulings."""

from __future__ import annotations

import json
import re
from importlib.resources import files

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from spieltisch.tutorial import FINAL_GAME, GAMES, LEARNER, NOT_TAUGHT, attempt, canonical, lesson

RULINGS = {"scout": "S", "schmaus": "W"}


def _texts(lang: str) -> dict[str, str]:
    path = files("spieltisch.web").joinpath("static", "i18n", f"{lang}.json")
    data: dict[str, str] = json.loads(path.read_text("utf-8"))
    return data


def _rulings(game: str) -> set[str]:
    name = "scout" if game == "scout" else "waschbaer-schmaus"
    text = files("spieltisch.web").joinpath("rules", f"{name}.en.md").read_text("utf-8")
    return set(re.findall(rf"\b{RULINGS[game]}-\d+\b", text))


@pytest.mark.parametrize("game", GAMES)
def test_every_taught_move_is_let_through_and_the_others_reply(game: str) -> None:
    for step in lesson(game).steps:
        for text in step.teach:
            outcome = attempt(game, step, text)
            assert outcome.accepted and outcome.refusal is None, (step.id, text)
            # The move was played: the position afterwards is not the one taught.
            assert outcome.state.to_json() != step.position(game).to_json()


@pytest.mark.parametrize("game", GAMES)
def test_every_other_legal_move_is_refused_as_not_taught_and_changes_nothing(game: str) -> None:
    for step in lesson(game).steps:
        position = step.position(game)
        taught = {canonical(game, t) for t in step.teach}
        others = [a.to_text() for a in position.legal_actions(LEARNER) if a.to_text() not in taught]
        assert others, f"step {step.id}: nothing to refuse, so nothing is taught"
        for text in others:
            outcome = attempt(game, step, text)
            assert not outcome.accepted and outcome.refusal is not None
            assert outcome.refusal["reason"] == NOT_TAUGHT
            assert outcome.state.to_json() == position.to_json()


def test_an_illegal_move_is_refused_with_its_ruling() -> None:
    beat = next(s for s in lesson("scout").steps if s.id == "beat")
    outcome = attempt("scout", beat, "show 0")  # a single 9 does not beat the run 6-7
    assert not outcome.accepted and outcome.refusal is not None
    assert outcome.refusal["ruling"] == "S-7" and outcome.refusal["reason"] == "not_beating"
    lay = next(s for s in lesson("schmaus").steps if s.id == "lay")
    outcome = attempt("schmaus", lay, "play F5 HUNTER GROCER")  # two effect cards (W-4)
    assert not outcome.accepted and outcome.refusal is not None and outcome.refusal["ruling"] == "W-4"


@given(text=st.text(max_size=40))
@settings(max_examples=200, deadline=None)
def test_any_text_gets_an_answer_and_only_a_taught_move_is_accepted(text: str) -> None:
    step = lesson("scout").steps[1]
    outcome = attempt("scout", step, text)
    taught = {canonical("scout", t) for t in step.teach}
    if outcome.accepted:
        assert canonical("scout", text) in taught
    else:
        assert outcome.refusal is not None and outcome.refusal["message"]


@pytest.mark.parametrize("game", GAMES)
def test_every_step_cites_real_rulings_and_is_explained_in_both_languages(game: str) -> None:
    known = _rulings(game)
    for lang in ("en", "de"):
        texts = _texts(lang)
        for key in ("title", "intro", "final"):
            assert texts.get(f"tutorial.{game}.{key}"), (lang, key)
        for step in lesson(game).steps:
            assert step.rules and set(step.rules) <= known, step.id
            for part in ("title", "text", "done"):
                text = texts.get(f"tutorial.{game}.{step.id}.{part}")
                assert text, (lang, step.id, part)
            # The explanation names the rulings the step teaches.
            body = texts[f"tutorial.{game}.{step.id}.text"] + texts[f"tutorial.{game}.{step.id}.done"]
            for ruling in step.rules:
                assert ruling in body, (lang, step.id, ruling)


def test_the_lesson_ends_in_a_short_game_the_web_table_accepts() -> None:
    from spieltisch.engine import get_game

    for game, final in FINAL_GAME.items():
        get_game(game).normalize_options(final["options"])  # refused options would raise
        assert 2 <= final["players"] <= 5


def test_unknown_lessons_and_steps_are_refused_clearly() -> None:
    with pytest.raises(KeyError, match="no lesson for 'chess'"):
        lesson("chess")
    with pytest.raises(IndexError, match=r"steps 0\.\.5, not 9"):
        lesson("scout").step(9)
