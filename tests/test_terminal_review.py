"""After a terminal game (docs/review.md, "Terminal"): ``--record`` saves the record,
the review is offered and shown in the table's language, ``hint`` obeys ``--hints``."""

from __future__ import annotations

import io
import json
from pathlib import Path

from rich.console import Console

from spieltisch.analysis.review import Decision, Review, Summary
from spieltisch.engine import GameRecord
from spieltisch.terminal import TerminalTable, make_config


class Lines:
    """Scripted input: ``first`` lines, then ``"1"`` (the first menu item) for ever."""

    def __init__(self, first: list[str]) -> None:
        self.first = list(first)

    def readline(self) -> str:
        return (self.first.pop(0) if self.first else "1") + "\n"


def play(lang: str, answers: list[str], tmp_path: Path, **kw: object) -> tuple[str, Path]:
    record = tmp_path / "game.json"
    config = make_config(
        "schmaus",
        2,
        seed=7,
        options=["rounds=2"],
        env={},
        lang=lang,
        record=record,
        **kw,  # type: ignore[arg-type]
    )
    out = io.StringIO()
    table = TerminalTable(
        config,
        Console(file=out, width=120, color_system=None),
        Lines(answers),
        offer_review=True,
        review_budget="2",
    )
    assert table.run() == 0
    return " ".join(out.getvalue().split()), record


def test_the_record_is_saved_and_the_review_is_shown_in_german(tmp_path: Path) -> None:
    said, record = play("de", [], tmp_path)
    assert f"Partieprotokoll gespeichert in {record}" in said
    saved = GameRecord.from_json(json.loads(record.read_text(encoding="utf-8")))
    assert (saved.game, saved.players, saved.seed) == ("schmaus", 2, 7)
    assert saved.replay().is_over()
    assert "Partie auswerten? (j/N)>" in said and "Übersicht je Spieler" not in said  # "1" is no
    decisions = said.count("Nummer oder Notation (? Hilfe, q beenden)>")
    said, _ = play("de", ["1"] * decisions + ["j"], tmp_path)
    assert "Übersicht je Spieler" in said and "Mittlerer Verlust" in said
    assert "Deine Fehler und groben Fehler" in said or "Du hast keine Fehler" in said


def test_yes_shows_the_peoples_marks_and_everybodys_summary(tmp_path: Path) -> None:
    said, _ = play("en", [], tmp_path)  # every answer "1": no review at the end
    assert "Review the game? (y/N)>" in said and "Summary per player" not in said
    # The same game again (same seed, same answers), now "y" at the offer.
    decisions = said.count("Number or notation (? help, q quit)>")
    said, _ = play("en", ["1"] * decisions + ["y"], tmp_path)
    assert "Summary per player" in said and "Mean loss" in said
    assert "Your mistakes and blunders" in said or "You made no mistakes and no blunders." in said


def test_hint_only_with_hints(tmp_path: Path) -> None:
    said, _ = play("en", ["hint"], tmp_path)
    assert "Hints are off at this table (start it with --hints)." in said
    said, _ = play("de", ["tipp"], tmp_path, hints=True)
    assert "Tipps sind an" in said
    # (the reason: the lay expected to win most, or - expected to win nothing - that no lay is likely to)
    assert "Tipp: play " in said
    assert "von deinen Auslagen erwartet sie am meisten" in said or "keine deiner Auslagen gewinnt" in said


def _review() -> Review:
    decisions = [
        Decision(seat, number, 2, "scout R flip @10 show 3-5", 12.345, "scout L flip @0 show 10-11",
                 17.891, -5.546, 5.546, 0.4, "blunder", better=True, worlds=64)
        for seat, number in ((0, 101), (1, 102), (0, 103))
    ]  # fmt: skip
    summary = [Summary(s, 40, 38, 1.234, 12, 11, [101, 103] if s == 0 else [102]) for s in (0, 1)]
    return Review("scout", 2, 4129934871, "8x1+56", "round points", {"mistake": 2.0, "blunder": 4.0},
                  decisions, summary)  # fmt: skip


def test_review_tables_keep_headers_and_figures_whole_at_80_columns() -> None:
    from spieltisch.terminal.i18n import Names, Texts
    from spieltisch.terminal.render import review_tables
    from spieltisch.terminal.review import print_review

    for lang in ("en", "de"):
        console = Console(width=80, record=True, color_system=None, file=io.StringIO())
        names = Names(["du" if lang == "de" else "you", "medium #1"], 0, lang)
        console.print(review_tables(_review().to_json(), [0, 1], names, Texts(lang), 80))
        out = console.export_text()
        assert "…" not in out and all(len(line) <= 80 for line in out.splitlines())
        words = out.split()
        for figure in ("+12.3", "+17.9", "5.5", "1.2", "#101:", "#103:", "101", "102"):
            assert figure in words, (figure, out)
        texts = Texts(lang)
        for key in ("col_estimate", "col_best_estimate", "col_played", "col_best", "col_loss", "col_mark",
                    "col_mistakes", "col_blunders", "col_decisions"):
            assert all(word in words for word in texts(key).split()), (key, out)
    # `spieltisch review` prints the same tables, seats by number, in either language.
    heads = {"en": "Scout, 2 players, seed 4129934871", "de": "Scout, 2 Spieler, Seed 4129934871"}
    for lang, head in heads.items():
        console = Console(width=80, record=True, color_system=None, file=io.StringIO())
        print_review(_review(), console, lang)
        out = console.export_text()
        assert "…" not in out and head in " ".join(out.split())
        for figure in ("+12.3", "+17.9", "5.5", "1.2", "101", "102", "103"):
            assert figure in out.split(), (figure, out)
        assert ("Sitz 1" if lang == "de" else "seat 1") in out
