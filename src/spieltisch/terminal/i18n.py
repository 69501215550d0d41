"""UI text of the terminal table in English and German.

Why the engine refused an action is said in the table's language too: the
translations of the engine's reasons (``refusal.*``) are shared with the web
client, whose text files are the one place they are kept.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping, Sequence
from functools import cache
from importlib.resources import files
from typing import ClassVar

from spieltisch.langs import LANGS

TEXT: dict[str, dict[str, str]] = {
    "en": {
        "title": "{game} for {players} players — seed {seed} (replay this deal with --seed={seed})",
        "seats": "Seats",
        "you": "you",
        "seat": "seat {seat}",
        "round": "Round {round}/{rounds}",
        "your_decision": "Your decision ({who})",
        "your_decision@you": "your decision",
        "player": "player #{seat}",
        "page": "Page {page}/{pages} of {n} — '+' next page, '-' previous, 'all' lists every action",
        "prompt": "Number or notation (? help, q quit)> ",
        "not_accepted": "Not accepted: {reason}",
        "unreadable": "cannot read '{text}' as a move; write e.g. {example}",
        "bad_card": "unknown card '{value}' (one of {cards})",
        "bad_positions": "positions lie within 0..{value}",
        "bad_insert": "the insert position lies within 0..{value}",
        "bad_range": "the last position comes before the first",
        "bad_seat": "seats are 0..{value}",
        "bad_x5": "the ×5 raccoon multiplies a food card",
        "since": "Since your last turn",
        "no_item": "there is no menu item {n} (choose 1..{m})",
        "empty": "type a menu number or a move in notation",
        "quit": "Game abandoned. Replay this deal with --seed={seed}.",
        "input_ended": "Input ended.",
        "fault": "Fault by {who}: {message} — a random legal action was played instead ({count} so far)",
        "final": "Final result",
        "winner": "winner",
        "winners": "Winners: {names}",
        "you_win": "You win!",
        "col_seat": "Seat",
        "col_player": "Player",
        "col_hand": "Hand",
        "col_chips": "Chips",
        "col_captured": "Captured",
        "col_tokens": "Tokens",
        "col_score": "Score",
        "col_faults": "Faults",
        "col_committed": "Decided",
        "col_penalty": "Hand penalty",
        "col_points": "Round points",
        "col_total": "Total",
        "col_laid": "Laid",
        "col_value": "Value",
        "col_won": "Won",
        "col_draws": "Draws",
        "col_card": "Card",
        "col_name": "Name",
        "col_count": "Count",
        "active_set": "Active set of {who}",
        "active_set@you": "your active set",
        "no_set": "No active set — the next player shows freely",
        "your_hand": "Your hand ({who})",
        "your_hand@you": "your hand",
        "if_flipped": "Flipped, the hand would read",
        "recent": "Recent actions",
        "legal": "Legal actions",
        "scout_show_hint": "+ {n} scout & show moves: type them, e.g. '{example}' ('all' lists them)",
        "all_legal": "All {n} legal actions",
        "help_title": "How to enter a move",
        "help_common": (
            "Type the number of a menu item, or the move in notation. 'all' lists every legal "
            "action, '?' shows this help, 'q' quits."
        ),
        "help_scout": (
            "Hand positions are counted from 0 on the left (the small numbers under the cards).\n"
            "  keep / flip             keep the hand or turn it round (before the first turn)\n"
            "  show 3-5                show the cards at positions 3 to 5; 'show 2' a single card\n"
            "  scout L @0              take the left card of the active set, insert it at 0\n"
            "  scout R flip @4         take the right card, turn it over, insert it at 4\n"
            "  scout L @0 show 1-2     scout & show: scout, then show (positions after the insert)"
        ),
        "help_schmaus": (
            "Cards are written by their ids (F1..F5, X3, X2, X5, HUNTER, GARBAGE, GROCER, GUARDIAN).\n"
            "  play F5 F4 X3           lay these cards; 'play -' lays nothing\n"
            "  target 2                your grocer picks seat 2\n"
            "  x5 F4                   your ×5 raccoon multiplies an F4\n"
            "  discard F1 F2           discard down to the hand limit"
        ),
        "decided": "{who} has decided",
        "decided@you": "you have decided",
        "shows": "{who} shows {cards}",
        "shows@you": "you show {cards}",
        "scouts": "{who} scouts {card} from the {end}{turned}",
        "scouts@you": "you scout {card} from the {end}{turned}",
        "turned": ", turned over",
        "left": "left",
        "right": "right",
        "laid": "{who} has laid their cards",
        "laid@you": "you have laid your cards",
        "targets": "{who_poss} grocer targets {target_acc}",
        "times5": "{who_poss} ×5 raccoon multiplies {card}",
        "discards": "{who} has discarded",
        "discards@you": "you have discarded",
        "flip_reveal": "Everybody has decided. The round begins.",
        "round_over": "Round {round} is over: {reason}",
        "ended_hand_empty": "{who} showed their last card",
        "ended_hand_empty@you": "you showed your last card",
        "ended_all_scouted": "every other player scouted from {who_poss} set",
        "ended_stuck": "the next player could not act; {who} is exempt",
        "ended_stuck@you": "the next player could not act; you are exempt",
        "continue": "Press Enter to continue…",
        "clock": "⏱ your time: {time}",
        "clock_bot": "then a bot ({level}) plays for you",
        "time_up": "Time is up: a bot ({level}) plays for you. Press Enter to take your seat back.",
        "bot_plays_for_you": "A bot ({level}) plays for you (Enter takes your seat back).",
        "seat_back": "You have your seat back.",
        "round_scored": "Round {round} scored",
        "exempt": "exempt",
        "draw_pile": "Draw pile: {n} cards",
        "discard_pile": "Discard pile ({n}): {cards}",
        "empty_pile": "empty",
        "revealed": "Revealed lays",
        "effects": "Effects, in order",
        "no_effects": "no effects",
        "pot": "Pot {pot}, won by {winners}",
        "pot_void": "Pot 0: the hunter voids the round (W-8), nobody scores",
        "pot_empty": "Pot 0: nobody scores",
        "effect_guardian": "the guardian: negative cards have no effect",
        "effect_hunter": "the hunter: the round is void",
        "effect_grocer": "{who_poss} angry grocer: {target_poss} food is worth 0",
        "effect_garbage": "garbage truck ×{n}: food is worth 1/{d}",
        "effect_x5": "{who_poss} ×5 raccoon on {card}",
        "effect_x3": "{who_poss} ×3 raccoon: own food ×3",
        "effect_x2": "×2 raccoon: all food ×{m}",
        "waiting": "waiting",
        "yes": "yes",
        "no": "–",
        "must_discard": "You hold too many cards: discard {n} (hand limit).",
        "must_keep_play": "Keep a legal lay after discarding (W-5).",
        "choose_after_reveal": "Choose for your effect card.",
        "nothing": "nothing",
        "bot_start_failed": "Could not start the bot of seat {seat}: {message}",
        "hint": "Hint: {move} — {reason}",
        "hints_off": "Hints are off at this table (start it with --hints).",
        "hints_on": "Hints are on: type 'hint' for the bot's suggestion.",
        "record_saved": "Game record saved to {path} (review it with: spieltisch review {path}).",
        "record_failed": "Could not save the game record to {path}: {error}",
        "review_about": "The review rates every decision from what its player could see then.",
        "review_offer": "Review the game? (y/N)> ",
        "review_bar": "review",
        "review_head": (
            "Review (budget {budget}: sampled deals x playouts + extra deals where a mark was unsure); "
            "a mistake loses at least {mistake}, a blunder at least {blunder}"
        ),
        "review_marked": "Mistakes and blunders of {who}",
        "review_marked@you": "Your mistakes and blunders",
        "review_none": "{who} made no mistakes and no blunders.",
        "review_none@you": "You made no mistakes and no blunders.",
        "review_summary": "Summary per player",
        "review_game": "{game}, {players} players, seed {seed}",
        "col_move": "#",
        "col_round": "Round",
        "col_played": "Played",
        "col_estimate": "Estimate",
        "col_best": "Best alternative",
        "col_best_estimate": "Its estimate",
        "col_loss": "Loss",
        "col_mark": "Mark",
        "col_decisions": "Decisions",
        "col_mean_loss": "Mean loss",
        "col_mistakes": "Mistakes",
        "col_blunders": "Blunders",
        "col_biggest": "Biggest losses",
        "mark_mistake": "mistake",
        "mark_blunder": "blunder",
    },
    "de": {
        "title": "{game} für {players} Spieler — Seed {seed} (dieselbe Verteilung mit --seed={seed})",
        "seats": "Sitze",
        "you": "du",
        "seat": "Sitz {seat}",
        "round": "Runde {round}/{rounds}",
        "your_decision": "Deine Entscheidung ({who})",
        "your_decision@you": "deine Entscheidung",
        "player": "Spieler #{seat}",
        "page": "Seite {page}/{pages} von {n} — '+' nächste Seite, '-' vorige, 'alle' listet jeden Zug",
        "prompt": "Nummer oder Notation (? Hilfe, q beenden)> ",
        "not_accepted": "Nicht angenommen: {reason}",
        "unreadable": "'{text}' ist kein Zug, den ich lesen kann; schreibe z. B. {example}",
        "bad_card": "unbekannte Karte '{value}' (eine von {cards})",
        "bad_positions": "Positionen liegen zwischen 0 und {value}",
        "bad_insert": "die Einfügeposition liegt zwischen 0 und {value}",
        "bad_range": "die letzte Position kommt vor der ersten",
        "bad_seat": "die Sitze sind 0 bis {value}",
        "bad_x5": "der ×5-Waschbär verfünffacht eine Futterkarte",
        "since": "Seit deinem letzten Zug",
        "no_item": "es gibt keinen Menüpunkt {n} (wähle 1..{m})",
        "empty": "gib eine Menünummer oder einen Zug in Notation ein",
        "quit": "Spiel abgebrochen. Dieselbe Verteilung gibt es mit --seed={seed}.",
        "input_ended": "Eingabe beendet.",
        "fault": (
            "Aussetzer von {who}: {message} — stattdessen wurde ein zufälliger legaler Zug gespielt "
            "(bisher {count})"
        ),
        "final": "Endergebnis",
        "winner": "Sieg",
        "winners": "Gewinner: {names}",
        "you_win": "Du gewinnst!",
        "col_seat": "Sitz",
        "col_player": "Spieler",
        "col_hand": "Hand",
        "col_chips": "Chips",
        "col_captured": "Gesammelt",
        "col_tokens": "Scout-Marker",
        "col_score": "Punkte",
        "col_faults": "Aussetzer",
        "col_committed": "Entschieden",
        "col_penalty": "Handabzug",
        "col_points": "Rundenpunkte",
        "col_total": "Gesamt",
        "col_laid": "Ausgelegt",
        "col_value": "Wert",
        "col_won": "Gewinn",
        "col_draws": "Zieht",
        "col_card": "Karte",
        "col_name": "Name",
        "col_count": "Anzahl",
        "active_set": "Aktive Kombination von {who_dat}",
        "active_set@you": "deine aktive Kombination",
        "no_set": "Keine aktive Kombination — der nächste Spieler zeigt frei aus",
        "your_hand": "Deine Hand ({who})",
        "your_hand@you": "deine Hand",
        "if_flipped": "Umgedreht sähe die Hand so aus",
        "recent": "Letzte Züge",
        "legal": "Legale Züge",
        "scout_show_hint": "+ {n} Scout & Show per Notation, z. B. '{example}' ('alle' listet sie)",
        "all_legal": "Alle {n} legalen Züge",
        "help_title": "So gibst du einen Zug ein",
        "help_common": (
            "Gib die Nummer eines Menüpunkts oder den Zug in Notation ein. 'alle' listet jeden "
            "legalen Zug, '?' zeigt diese Hilfe, 'q' beendet."
        ),
        "help_scout": (
            "Handpositionen zählen ab 0 von links (die kleinen Zahlen unter den Karten).\n"
            "  keep / flip             Hand behalten oder umdrehen (vor dem ersten Zug)\n"
            "  show 3-5                die Karten an Position 3 bis 5 ausspielen; 'show 2' eine Karte\n"
            "  scout L @0              linke Karte der aktiven Kombination nehmen, an Position 0\n"
            "  scout R flip @4         rechte Karte nehmen, umdrehen, an Position 4 einfügen\n"
            "  scout L @0 show 1-2     Scout & Show: erst scouten, dann ausspielen"
        ),
        "help_schmaus": (
            "Karten werden mit ihren Kürzeln geschrieben (F1..F5, X3, X2, X5, HUNTER, GARBAGE, "
            "GROCER, GUARDIAN).\n"
            "  play F5 F4 X3           diese Karten auslegen; 'play -' legt nichts aus\n"
            "  target 2                dein Obsthändler wählt Sitz 2\n"
            "  x5 F4                   dein ×5-Waschbär verfünffacht ein F4\n"
            "  discard F1 F2           bis zum Handlimit abwerfen"
        ),
        "decided": "{who} hat entschieden",
        "decided@you": "du hast entschieden",
        "shows": "{who} spielt {cards} aus",
        "shows@you": "du spielst {cards} aus",
        "scouts": "{who} scoutet {card} von {end}{turned}",
        "scouts@you": "du scoutest {card} von {end}{turned}",
        "turned": ", umgedreht",
        "left": "links",
        "right": "rechts",
        "laid": "{who} hat ausgelegt",
        "laid@you": "du hast ausgelegt",
        "targets": "der Obsthändler von {who_dat} trifft {target_acc}",
        "targets@you": "dein Obsthändler trifft {target_acc}",
        "times5": "der ×5-Waschbär von {who_dat} verfünffacht {card}",
        "times5@you": "dein ×5-Waschbär verfünffacht {card}",
        "discards": "{who} hat abgeworfen",
        "discards@you": "du hast abgeworfen",
        "flip_reveal": "Alle haben entschieden. Die Runde beginnt.",
        "round_over": "Runde {round} ist vorbei: {reason}",
        "ended_hand_empty": "{who} hat die letzte Karte ausgespielt",
        "ended_hand_empty@you": "du hast deine letzte Karte ausgespielt",
        "ended_all_scouted": "alle anderen haben aus der Kombination von {who_dat} gescoutet",
        "ended_all_scouted@you": "alle anderen haben aus deiner Kombination gescoutet",
        "ended_stuck": "der nächste Spieler konnte nicht ziehen; {who} ist befreit",
        "ended_stuck@you": "der nächste Spieler konnte nicht ziehen; du bist befreit",
        "continue": "Weiter mit der Eingabetaste …",
        "clock": "⏱ deine Zeit: {time}",
        "clock_bot": "danach spielt ein Bot ({level}) für dich",
        "time_up": "Die Zeit ist um: ein Bot ({level}) spielt für dich. "
        "Mit der Eingabetaste nimmst du deinen Platz zurück.",
        "bot_plays_for_you": "Ein Bot ({level}) spielt für dich (Eingabetaste: Platz zurücknehmen).",
        "seat_back": "Du hast deinen Platz zurück.",
        "round_scored": "Runde {round} gewertet",
        "exempt": "befreit",
        "draw_pile": "Nachziehstapel: {n} Karten",
        "discard_pile": "Ablagestapel ({n}): {cards}",
        "empty_pile": "leer",
        "revealed": "Aufgedeckte Auslagen",
        "effects": "Effekte, in Reihenfolge",
        "no_effects": "keine Effekte",
        "pot": "Topf {pot}, gewonnen von {winners}",
        "pot_void": "Topf 0: der Jäger macht die Runde ungültig (W-8), niemand punktet",
        "pot_empty": "Topf 0: niemand punktet",
        "effect_guardian": "die Wächterin: negative Karten wirken nicht",
        "effect_hunter": "der Jäger: die Runde zählt nicht",
        "effect_grocer": "wütender Obsthändler von {who_dat}: das Futter von {target_dat} zählt 0",
        "effect_grocer@you": "dein wütender Obsthändler: das Futter von {target_dat} zählt 0",
        "effect_garbage": "Müllabfuhr ×{n}: Futter zählt 1/{d}",
        "effect_x5": "Waschbär ×5 von {who_dat} auf {card}",
        "effect_x5@you": "dein Waschbär ×5 auf {card}",
        "effect_x3": "Waschbär ×3 von {who_dat}: eigenes Futter ×3",
        "effect_x3@you": "dein Waschbär ×3: eigenes Futter ×3",
        "effect_x2": "Waschbär ×2: alles Futter ×{m}",
        "waiting": "wartet",
        "yes": "ja",
        "no": "–",
        "must_discard": "Du hast zu viele Karten: wirf {n} ab (Handlimit).",
        "must_keep_play": "Behalte danach eine legale Auslage (W-5).",
        "choose_after_reveal": "Wähle für deine Effektkarte.",
        "nothing": "nichts",
        "bot_start_failed": "Der Bot auf Sitz {seat} ließ sich nicht starten: {message}",
        "hint": "Tipp: {move} — {reason}",
        "hints_off": "An diesem Tisch gibt es keine Tipps (starte ihn mit --hints).",
        "hints_on": "Tipps sind an: tippe 'tipp' für den Vorschlag des Bots.",
        "record_saved": "Partieprotokoll gespeichert in {path} (auswerten mit: spieltisch review {path}).",
        "record_failed": "Das Partieprotokoll ließ sich nicht in {path} speichern: {error}",
        "review_about": "Die Auswertung bewertet jede Entscheidung nach dem, was ihr Spieler damals sah.",
        "review_offer": "Partie auswerten? (j/N)> ",
        "review_bar": "Auswertung",
        "review_head": (
            "Auswertung (Budget {budget}: ausgeloste Verteilungen x Durchläufe "
            "+ weitere Verteilungen, wo eine Markierung unsicher war); "
            "ein Fehler kostet mindestens {mistake}, ein grober Fehler mindestens {blunder}"
        ),
        "review_marked": "Fehler und grobe Fehler von {who}",
        "review_marked@you": "Deine Fehler und groben Fehler",
        "review_none": "{who} hat keine Fehler und keine groben Fehler gemacht.",
        "review_none@you": "Du hast keine Fehler und keine groben Fehler gemacht.",
        "review_summary": "Übersicht je Spieler",
        "review_game": "{game}, {players} Spieler, Seed {seed}",
        "col_move": "#",
        "col_round": "Runde",
        "col_played": "Gespielt",
        "col_estimate": "Schätzung",
        "col_best": "Besser wäre",
        "col_best_estimate": "Deren Schätzung",
        "col_loss": "Verlust",
        "col_mark": "Urteil",
        "col_decisions": "Bewertet",
        "col_mean_loss": "Mittlerer Verlust",
        "col_mistakes": "Fehler",
        "col_blunders": "Grobe Fehler",
        "col_biggest": "Größte Verluste",
        "mark_mistake": "Fehler",
        "mark_blunder": "grober Fehler",
    },
}

COMMANDS: dict[str, tuple[str, ...]] = {
    "quit": ("q", "quit", "exit", "beenden", "ende"),
    "help": ("?", "h", "help", "hilfe"),
    "all": ("all", "alle", "list", "liste"),
    "next": ("+", "n", "next", "weiter"),
    "previous": ("-", "p", "prev", "previous", "zurück", "zurueck"),
    "hint": ("hint", "tipp"),
}

SEAT_VALUES = ("who", "target")
"""Template values that are seats: each comes in the forms of :meth:`Names.forms`."""


def detect_lang(env: Mapping[str, str]) -> str:
    """``de`` if the locale variables ask for German, else ``en``."""
    for name in ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG"):
        value = env.get(name, "")
        if value:
            return "de" if value.lower().startswith("de") else "en"
    return "en"


class Names:
    """The players' names at one table and their grammatical forms.

    The single person at the keyboard is "you"/"du" (the other seats are bots or,
    in a hot-seat game, "player #N"), so sentences about them need their own verb
    forms (see :meth:`Texts.say`) and cases: German "von dir", "trifft dich"."""

    YOU: ClassVar[dict[str, dict[str, str]]] = {
        "en": {"": "you", "_dat": "you", "_acc": "you", "_poss": "your"},
        "de": {"": "du", "_dat": "dir", "_acc": "dich", "_poss": "dein"},
    }

    def __init__(self, labels: list[str], you: int | None, lang: str) -> None:
        self.labels = labels
        self.you = you
        self.lang = lang

    def __getitem__(self, seat: int) -> str:
        return self.labels[seat]

    def __len__(self) -> int:
        return len(self.labels)

    def __iter__(self) -> Iterator[str]:
        return iter(self.labels)

    def is_you(self, seat: int) -> bool:
        return seat == self.you

    def forms(self, seat: int) -> dict[str, str]:
        """``{"": nominative, "_dat": dative, "_acc": accusative, "_poss": possessive}``."""
        if self.is_you(seat):
            return dict(self.YOU[self.lang])
        name = self.labels[seat]
        return {"": name, "_dat": name, "_acc": name, "_poss": f"{name}'s" if self.lang == "en" else name}

    def cell(self, seat: int) -> str:
        """The name in a table cell or list: "You"/"Du" capitalised."""
        name = self.labels[seat]
        return name[:1].upper() + name[1:] if self.is_you(seat) else name

    def starts_with_name(self, text: str) -> bool:
        """Whether ``text`` starts with a player's name other than "you" (``medium #1``:
        kept as it is at the start of a sentence, as in the tables)."""
        return any(text.startswith(label) for s, label in enumerate(self.labels) if not self.is_you(s))

    def dative_list(self, seats: Sequence[int]) -> str:
        return ", ".join(self.forms(s)["_dat"] for s in seats)


class Texts:
    """The UI text of one language: ``texts("seat", seat=2)``."""

    def __init__(self, lang: str) -> None:
        if lang not in TEXT:
            raise ValueError(f"unknown language {lang!r}: choose one of {', '.join(LANGS)}")
        self.lang = lang
        self._text = TEXT[lang]

    def __call__(self, key: str, **values: object) -> str:
        return self._text[key].format(**values)

    def say(self, key: str, names: Names, start: bool = True, **values: object) -> str:
        """A sentence about players: seat values (``who``, ``target``) become names in the
        right grammatical form, and ``key@you`` is used when ``who`` is the person at the
        keyboard ("you have decided", "du hast ausgelegt"). ``start``: capitalised."""
        who = values.get("who")
        variant = f"{key}@you" if isinstance(who, int) and names.is_you(who) else key
        template = self._text.get(variant, self._text[key])
        filled: dict[str, object] = {}
        for name, value in values.items():
            if name in SEAT_VALUES and isinstance(value, int):
                filled.update({name + suffix: form for suffix, form in names.forms(value).items()})
            else:
                filled[name] = value
        text = template.format(**filled)
        if not start or names.starts_with_name(text):  # a name is written one way everywhere
            return text
        return text[:1].upper() + text[1:]

    def hint_reason(self, reason: str, params: Mapping[str, object], names: Names) -> str:
        """A hint's reason (:mod:`spieltisch.analysis.hints`) in this language: the web
        client's ``hint.*`` texts, seats as names, a count in its plural form (as the web
        table says it: "captures 1 card", no "about 0 points")."""
        texts = _shared_texts(self.lang)
        key = f"hint.{reason}"
        count = params.get(_HINT_COUNTS.get(reason, ""))
        if isinstance(count, int):
            key = (
                "hint.lay.nothing"
                if reason == "lay.best" and count == 0
                else f"{key}.{'one' if count == 1 else 'other'}"
            )
        template = texts.get(key) or texts.get(f"hint.{reason}", reason)
        values = {
            k: names.cell(int(str(v))) if k in ("owner", "seat") and v is not None else v
            for k, v in params.items()
        }
        return template.format(**values)

    def refusal_template(self, reason: str) -> str | None:
        """The template saying an engine refusal reason in this language, if any."""
        return _shared_texts(self.lang).get(f"refusal.{reason}")


_HINT_COUNTS = {"show.beat": "count", "scoutshow.beat": "count", "lay.best": "points"}
"""The parameter a hint's reason counts (the web client's ``COUNTED`` in review.js)."""


@cache
def _shared_texts(lang: str) -> dict[str, str]:
    """The web client's UI text file of ``lang``."""
    text = files("spieltisch.web").joinpath("static", "i18n", f"{lang}.json").read_text("utf-8")
    data: dict[str, str] = json.loads(text)
    return data
