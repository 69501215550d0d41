"""The terminal table: whole games driven by scripted input, menus, parsing and rendering."""

from __future__ import annotations

import io
import re
import shlex
import sys
import textwrap
from pathlib import Path

import pytest
from rich.console import Console
from typer.testing import CliRunner

from spieltisch.cli import app
from spieltisch.engine import get_game
from spieltisch.terminal import DEFAULT_BOT, HUMAN, PlayError, TerminalTable, make_config
from spieltisch.terminal.i18n import Names, Texts, detect_lang
from spieltisch.terminal.menu import Choice, Invalid, Notation, Page, build_menu, parse_command
from spieltisch.terminal.render import scout_cards

ROOT = Path(__file__).resolve().parents[1]


class Script:
    """Input that answers the given lines first, then ``then`` for ever (None: end of input)."""

    def __init__(self, lines: list[str], then: str | None = "1") -> None:
        self.lines = list(lines)
        self.then = then
        self.asked = 0

    def readline(self) -> str:
        self.asked += 1
        if self.lines:
            return self.lines.pop(0) + "\n"
        return "" if self.then is None else self.then + "\n"


def run(game: str, players: int, script: Script, **kw: object) -> tuple[int, str, TerminalTable]:
    config = make_config(game, players, seed=kw.pop("seed", 5), env={}, **kw)  # type: ignore[arg-type]
    out = io.StringIO()
    table = TerminalTable(config, Console(file=out, width=110, color_system=None), script)
    code = table.run()
    return code, out.getvalue(), table


def test_whole_scout_game_with_menu_answers_and_wrong_inputs() -> None:
    code, out, table = run("scout", 4, Script(["99", "show 99", "?", "all"]))
    assert code == 0
    assert "Not accepted: there is no menu item 99 (choose 1..2)" in out
    assert "Not accepted: S-5:" in out  # the engine's reason, with the ruling id
    assert "How to enter a move" in out and "All 2 legal actions" in out
    assert table.state.is_over()
    assert out.count("Round 4 is over") == 1  # S-11 round summary
    assert "Final result" in out and "Winners:" in out
    assert "--seed=5" in out


def test_whole_schmaus_game_in_german() -> None:
    code, out, table = run("schmaus", 3, Script(["play F5 F5 F5"]), lang="de")
    assert code == 0
    assert "Nicht angenommen: W-4: Du hast 1 × Weintrauben, nicht 3" in out  # the engine's reason, in German
    assert "Deine Hand" in out and "Futter 1" in out  # cards grouped with German names
    assert "Runde 9 gewertet" in out and "Effekte, in Reihenfolge" in out
    assert "Endergebnis" in out and "Gewinner:" in out
    assert table.state.is_over()


def test_scout_scout_and_show_is_entered_by_notation() -> None:
    """Every legal action is reachable: menu items plus scout & show by notation."""
    state = get_game("scout").new_state(3, 2)
    for seat in state.to_move():
        state.apply(seat, "keep")
    texts = Texts("en")
    found_scout_show = False
    for _ in range(40):
        if state.is_over():
            break
        seat = state.to_move()[0]
        legal = state.legal_actions(seat)
        menu = build_menu("scout", legal)
        assert set(menu.items) | set(menu.by_notation) == set(legal)
        for action in menu.by_notation:
            found_scout_show = True
            command = parse_command(action.to_text(), menu, texts)
            assert isinstance(command, Notation)
            assert get_game("scout").parse_action(command.text) == action
        chosen = parse_command("1", menu, texts)
        assert isinstance(chosen, Choice)
        state.apply(seat, chosen.action)
    assert found_scout_show


@pytest.mark.parametrize(
    ("lang", "one", "two", "nothing"),
    [
        ("en", "captures 1 card.", "captures 2 cards.", "none of your lays is likely to win"),
        ("de", "erbeutet 1 Karte.", "erbeutet 2 Karten.", "keine deiner Auslagen gewinnt"),
    ],
)
def test_hint_reasons_say_counts_in_their_plural_form(lang: str, one: str, two: str, nothing: str) -> None:
    texts = Texts(lang)
    names = Names(["Ann", "Bob", "Cy"], 0, lang)
    assert texts.hint_reason("show.beat", {"cards": "5", "count": 1}, names).endswith(one)
    assert texts.hint_reason("show.beat", {"cards": "5-5", "count": 2}, names).endswith(two)
    lay = texts.hint_reason("lay.best", {"cards": "F1 F2 F3", "points": 0}, names)
    assert nothing in lay and "0 " not in lay
    assert "(s)" not in texts.hint_reason(
        "scoutshow.beat", {"card": "7", "cards": "7-7", "count": 3, "owner": 1}, names
    )


def test_quit_and_end_of_input() -> None:
    code, out, _ = run("scout", 3, Script(["q"]))
    assert code == 0 and "Game abandoned. Replay this deal with --seed=5." in out
    code, out, _ = run("schmaus", 2, Script([], then=None), lang="de")
    assert code == 1 and "Eingabe beendet." in out


def test_parse_command_refuses_with_reasons() -> None:
    texts = Texts("en")
    menu = build_menu("schmaus", [get_game("schmaus").parse_action("play F1 F1 F1")])
    assert parse_command("  ", menu, texts) == Invalid("type a menu number or a move in notation")
    assert parse_command("0", menu, texts) == Invalid("there is no menu item 0 (choose 1..1)")
    assert isinstance(parse_command("1", menu, texts), Choice)
    assert parse_command("play  F1 F1   F1", menu, texts) == Notation("play F1 F1 F1")


def test_external_bot_faults_are_printed_and_counted(tmp_path: Path) -> None:
    bot = tmp_path / "garbage.py"
    bot.write_text(
        textwrap.dedent(
            """
            import json, sys
            for line in sys.stdin:
                kind = json.loads(line)["type"]
                if kind == "hello":
                    print(json.dumps({"type": "ready", "name": "garbage"}), flush=True)
                elif kind == "decide":
                    print("no idea", flush=True)
                else:
                    break
            """
        )
    )
    spec = "cmd:" + shlex.join([sys.executable, str(bot)])
    code, out, table = run("schmaus", 2, Script([]), seats=[f"1={spec}"], options=["rounds=2"])
    assert code == 0
    flat = " ".join(out.split())  # the message wraps where the (temporary) path makes it
    assert "Fault by garbage #1: seat 1 bot" in flat and "answered garbage 'no idea'" in flat
    assert table.faults == [0, 2]
    assert "Faults" in out  # the final table has the fault column


def test_example_random_bot_in_a_terminal_game() -> None:
    spec = "cmd:" + shlex.join([sys.executable, str(ROOT / "examples" / "random_bot.py"), "3"])
    code, out, table = run("scout", 3, Script([]), seats=[f"2={spec}"])
    assert code == 0 and table.faults == [0, 0, 0]
    assert "random_bot.py #2" in out


def test_make_config_seats_options_and_language(tmp_path: Path) -> None:
    config = make_config("schmaus", 3, seed=1, seats=["2=human"], you=1, options=["rounds=2"], env={})
    assert config.seats == [DEFAULT_BOT, HUMAN, HUMAN]
    assert config.options == {"rounds": 2} and config.lang == "en"
    toml = tmp_path / "rules.toml"
    toml.write_text('rounds = 4\nshort_hand = "play-what-you-can"\n[deck]\nF1 = 20\n')
    config = make_config(
        "schmaus", 3, seed=1, options=["rounds=5"], options_file=toml, env={"LANG": "de_DE.UTF-8"}
    )
    assert config.options == {"rounds": 5, "short_hand": "play-what-you-can", "deck": {"F1": 20}}
    assert config.lang == "de"
    assert isinstance(make_config("scout", 2, env={}).seed, int)
    assert detect_lang({"LANGUAGE": "en_GB", "LANG": "de_DE"}) == "en"


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"seats": ["2medium"]}, "--seat '2medium': write N=SPEC"),
        ({"seats": ["7=medium"]}, "--seat '7=medium': seats are 0..2"),
        ({"you": 3}, "--you 3: seats are 0..2"),
        ({"options": ["rounds"]}, "--option 'rounds': write key=value"),
        ({"options": ["colour=red"]}, "rule options: unknown rule option(s) 'colour'"),
        ({"lang": "fr"}, "--lang 'fr': choose one of en, de"),
        ({"bot_timeout": 0.0}, "--bot-timeout 0.0: must be more than 0 seconds"),
    ],
)
def test_make_config_errors_say_what_was_wrong(kwargs: dict[str, object], message: str) -> None:
    with pytest.raises(PlayError, match=message.replace("(", r"\(").replace(")", r"\)")):
        make_config("schmaus", 3, seed=1, env={}, **kwargs)  # type: ignore[arg-type]


def test_scout_cards_show_both_numbers_and_positions() -> None:
    out = io.StringIO()
    Console(file=out, width=80, color_system=None).print(scout_cards(["3/7", "10/2", None]))
    lines = out.getvalue().splitlines()
    assert lines[1].split() == ["│", "3│", "│10│", "│??│"]
    assert lines[2].split() == ["│", "7│", "│", "2│", "│", "│"]
    assert lines[4].split() == ["0", "1", "2"]


def test_cli_play_runs_a_short_game_and_rejects_bad_seats() -> None:
    runner = CliRunner()
    done = runner.invoke(
        app, ["play", "schmaus", "--players", "2", "--seed", "9", "--option", "rounds=1", "--lang", "en"],
        input="1\n" * 20,
    )  # fmt: skip
    assert done.exit_code == 0, done.output
    assert "seed 9" in done.output and "Final result" in done.output
    bad = runner.invoke(app, ["play", "scout", "--seat", "1=wizard"])
    assert bad.exit_code == 2
    assert "unknown bot level 'wizard'" in bad.output


def _table(
    game: str, players: int, lang: str, height: int = 24, script: Script | None = None, **kw: object
) -> tuple[str, TerminalTable]:
    config = make_config(game, players, seed=kw.pop("seed", 11), env={}, lang=lang, **kw)  # type: ignore[arg-type]
    out = io.StringIO()
    console = Console(file=out, width=80, height=height, color_system=None)
    table = TerminalTable(config, console, script or Script([]))
    table.run()
    return out.getvalue(), table


def test_sentences_about_you_have_the_grammar_of_you() -> None:
    out, _ = _table("scout", 3, "en", seed=4)
    assert "You have decided" in out and "you has" not in out.lower()
    assert re.search(r"· You (show|scout) ", out)
    assert "you shows" not in out and "you scouts" not in out
    de, _ = _table("schmaus", 4, "de", options=["rounds=3"])
    assert "Du hast ausgelegt" in de and "du hat" not in de.lower()
    assert "von du" not in de and "gewonnen von dir" in de  # seed 11: you win round 2's pot
    assert "Dein ×5-Waschbär verfünffacht Beeren" in de


def test_german_effect_lines_are_german_and_name_players() -> None:
    de, _ = _table("schmaus", 4, "de", options=["rounds=3"])
    assert "W-7 Die Wächterin: negative Karten wirken nicht" in de
    assert "W-11 Waschbär ×3 von medium #1: eigenes Futter ×3" in de
    assert "W-11 Dein Waschbär ×5 auf Beeren" in de
    assert "guardian" not in de and "of seat" not in de
    en, _ = _table("schmaus", 4, "en", options=["rounds=3"])
    assert "W-11 Your ×5 raccoon on berries" in en and "medium #1's ×3 raccoon" in en.lower()


def test_scout_round_summary_says_whose_hand_ran_out() -> None:
    out, _ = _table("scout", 3, "en", seed=4)
    reasons = re.findall(r"Round \d is over: (.*)", out)
    assert len(reasons) == 3
    assert all("a hand is empty" not in r for r in reasons)
    assert all(re.search(r"(medium #\d|you) showed (their|your) last card|scouted from|could not act", r)
               for r in reasons), reasons  # fmt: skip


def test_long_menus_are_paged_to_fit_24_lines() -> None:
    out, _ = _table("scout", 5, "en", seed=3)
    assert "Page 1/" in out  # a Scout menu longer than a 24-line screen is paged
    state = get_game("scout").new_state(5, 3)
    menu = build_menu("scout", state.legal_actions(state.to_move()[0]))
    texts = Texts("en")
    assert parse_command("+", menu, texts) == Page(1) and parse_command("-", menu, texts) == Page(-1)
    # Every screen (from one blank line to the prompt) fits in 24 lines.
    screens = out.split("\n\nRound ")[1:]
    assert screens
    for screen in screens:
        body = screen.split("Number or notation")[0]
        assert body.count("\n") <= 22, body


def test_hot_seat_players_are_named_in_the_third_person() -> None:
    out, _ = _table("scout", 3, "en", seed=2, seats=["1=human"], script=Script(["1"] * 6, then="q"))
    assert "Seats: 0: player #0, 1: player #1, 2: medium #2" in out
    assert "Your hand (player #1)" in out and "· player #1 has decided" in out  # one spelling of a name
    assert "You have decided" not in out


def test_clock_options_are_checked_with_the_reason() -> None:
    from spieltisch.terminal.config import PlayError, make_config

    with pytest.raises(PlayError, match=r"--clock 0: seconds must be more than 0"):
        make_config("schmaus", 3, clock=0)
    with pytest.raises(PlayError, match=r"--bank -5: seconds must be more than 0"):
        make_config("schmaus", 3, bank=-5)
    config = make_config("schmaus", 3, seed=1, clock=30, bank=120, stand_in="random")
    assert (config.clock, config.bank, config.stand_in) == (30, 120, "random")


# -- issue #35: a new user at 80×24, in English and German ---------------------------


def test_german_refusals_of_unreadable_moves_are_german() -> None:
    """The engine's malformed-action messages are English; the table says them by kind."""
    script = Script(["xyz", "play ZZ F1 F2", "scout L @0", "2"])
    code, out, _ = run("schmaus", 3, script, lang="de", options=["rounds=1"])
    assert code == 0
    said = " ".join(out.split())
    assert "Nicht angenommen: 'xyz' ist kein Zug, den ich lesen kann; schreibe z. B. play F5 F4 X3" in said
    assert "Nicht angenommen: unbekannte Karte 'ZZ' (eine von F1, F2," in said
    assert "Nicht angenommen: 'scout L @0' ist kein Zug, den ich lesen kann" in said  # another game's
    assert "cannot read" not in out and "unknown Waschbär-Schmaus card" not in out
    assert "a play is exactly" not in out


def test_english_refusals_keep_the_engines_words() -> None:
    _, out, _ = run("schmaus", 3, Script(["xyz", "2"]), lang="en", options=["rounds=1"])
    assert "Not accepted: cannot read Waschbär-Schmaus action 'xyz'" in " ".join(out.split())


def test_the_discard_pile_is_named_in_the_tables_language() -> None:
    out, _ = _table("schmaus", 3, "de", options=["rounds=3"], script=Script([], then="1"))
    piles = re.findall(r"Ablagestapel \((\d+)\): (.*)", out)
    assert any(int(n) > 0 for n, _ in piles), piles
    for _, cards in piles:
        assert not re.search(r"\b(F[1-5]|X[235]|HUNTER|GARBAGE|GROCER|GUARDIAN)\b", cards), cards
    assert any(re.search(r"Beeren|Nüsse|Kekse|Weintrauben|Futter 1", cards) for _, cards in piles)


def test_a_hunter_round_says_nobody_scores_and_marks_no_winner() -> None:
    """W-8: an unblocked hunter voids the round: every score and the pot are 0."""
    from spieltisch.engine.schmaus.cards import KIND, round_record
    from spieltisch.terminal.i18n import Names
    from spieltisch.terminal.render import schmaus_round_summary

    plays = [(KIND["HUNTER"], KIND["F1"], KIND["F2"]), (KIND["F5"], KIND["F4"], KIND["F3"]), (1, 1, 1)]
    result = {**round_record(plays, [None] * 3, [None] * 3), "round": 2, "drawn": [2, 2, 2],
              "scores": [10, 20, 30]}  # fmt: skip
    names = Names(["du", "medium #1", "medium #2"], 0, "de")
    out = io.StringIO()
    Console(file=out, width=80, color_system=None).print(schmaus_round_summary(result, names, Texts("de")))
    text = out.getvalue()
    assert "Topf 0: der Jäger macht die Runde ungültig (W-8), niemand punktet" in text
    assert "★" not in text and "gewonnen von" not in text
    result["plays"][0] = ["F1", "F2", "GUARDIAN"]  # W-7: the guardian blocks the hunter
    blocked = round_record([(1, 2, KIND["GUARDIAN"]), *plays[1:]], [None] * 3, [None] * 3)
    out = io.StringIO()
    Console(file=out, width=80, color_system=None).print(
        schmaus_round_summary({**result, **blocked}, names, Texts("de"))
    )
    assert re.search(r"Topf \d+, gewonnen von medium #1", out.getvalue()) and "★" in out.getvalue()


def test_german_words_are_distinct_and_names_have_one_spelling() -> None:
    de, _ = _table("schmaus", 4, "de", options=["rounds=3"])
    assert "Sitz  Spieler" in de and "Platz  Spieler" not in de  # a seat, not a ranking
    assert "Medium #" not in de and "medium #1 hat ausgelegt" in de
    texts = Texts("de")
    assert texts("col_faults") != texts("col_mistakes") and texts("col_faults") != texts("mark_mistake")


def test_the_others_moves_since_your_last_turn_stay_above_the_prompt() -> None:
    """At 80×24 the bots' moves would scroll away: they are summed up before the prompt."""
    out, _ = _table("scout", 4, "en", seed=3, script=Script(["keep", "1", "1", "1"], then="q"))
    screens = out.split("Number or notation")[:-1]
    later = [s for s in screens[1:] if "Round 1/" in s]
    assert later
    for screen in later:
        tail = screen.rstrip("\n").splitlines()[-3:]
        assert any(line.startswith("Since your last turn:") for line in tail), tail
        block = " ".join(screen.split("Since your last turn:")[1].split())
        assert re.search(r"medium #\d (shows|scouts)", block), block


def test_the_title_with_the_seed_to_replay_is_never_cut_at_80_columns() -> None:
    out, _ = _table("schmaus", 5, "de", seed=4129934871, script=Script([], then="q"))
    head = " ".join(out.split("\n\n")[0].split())
    assert "(dieselbe Verteilung mit --seed=4129934871)" in head and "…" not in head
    # The option and its value are one word: a line break never parts them (issue #35).
    assert any("--seed=4129934871" in line for line in out.splitlines()[:4]), out[:400]
