"""The HTML report of ``spieltisch lab real`` (English or German): per group of rules,
people's games beside bot games, each figure as a plot and a table."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from spieltisch.lab import plots
from spieltisch.lab.real import Group, RealResult, mean_text, rate_text
from spieltisch.lab.report import ci, pct, render, section, table

TEXT: dict[str, dict[str, str]] = {
    "en": {
        "title": "How people really play",
        "people": "People",
        "bots": "Bots ({lineup})",
        "summary": "Summary",
        "intro_summary": "The finished games people played at the web table, replayed from their records, "
        "beside games of bots under the very same rules and player count. Where people and bots differ, "
        "the bots (and the lab's answers that rest on them) do not play like people. Nothing here "
        "identifies a player.",
        "group": "Rules",
        "games": "games",
        "left_out": "Left out",
        "seats": "Win rate by seat",
        "intro_seats": "How often each seat won, whoever sat there. The black lines are 95% ranges "
        "(Wilson); the dashed line is the fair share. People's ranges are wide until many games are "
        "stored.",
        "seat": "Seat",
        "win_rate": "Win rate (%)",
        "fair": "fair share",
        "length": "Game length",
        "intro_length": "Rounds and decisions per game, and the winning margin (first minus second "
        "score): mean ± standard deviation.",
        "rounds": "Rounds",
        "decisions": "Decisions per game",
        "margin": "Winning margin",
        "shared": "Shared wins",
        "versus": "People against bots",
        "intro_versus": "At tables where people and bots played together: how often a person's seat won, "
        "against the share it would win if people and bots were equally strong.",
        "versus_line": "People's seats won {rate} ({ci}) of {games} seat-games; fair share {fair}.",
        "rulings": "Rulings",
        "intro_rulings": "Share of rounds in which each ruling fired.",
        "round_share": "Rounds (%)",
        "hands": "Hand sizes",
        "intro_hands": "Cards in hand when laying, by round (mean over every seat).",
        "round": "Round",
        "cards_in_hand": "Cards in hand",
        "cards": "Cards and pots",
        "intro_cards": "For each card: how often a lay holding it won the round's pot (a round voided by "
        "the hunter awards none). A card people win with more often than bots do is one people "
        "use better — or one the bots misjudge.",
        "pot_share": "Lays that won the pot (%)",
        "card": "Card",
        "figure": "Figure",
        "lays": "lays",
    },
    "de": {
        "title": "Wie Menschen wirklich spielen",
        "people": "Menschen",
        "bots": "Bots ({lineup})",
        "summary": "Überblick",
        "intro_summary": "Die zu Ende gespielten Partien von Menschen am Web-Tisch, aus ihren "
        "Aufzeichnungen nachgespielt, neben Partien von Bots mit genau denselben Regeln und derselben "
        "Spielerzahl. Wo Menschen und Bots sich unterscheiden, spielen die Bots (und die Antworten des "
        "Labors, die auf ihnen beruhen) nicht wie Menschen. Nichts hier verrät, wer gespielt hat.",
        "group": "Regeln",
        "games": "Partien",
        "left_out": "Nicht berücksichtigt",
        "seats": "Siegquote nach Platz",
        "intro_seats": "Wie oft jeder Platz gewann, wer auch immer dort saß. Die schwarzen Striche sind "
        "95-%-Bereiche (Wilson); die gestrichelte Linie ist der faire Anteil. Bei Menschen sind die "
        "Bereiche breit, bis viele Partien gespeichert sind.",
        "seat": "Platz",
        "win_rate": "Siegquote (%)",
        "fair": "fairer Anteil",
        "length": "Partielänge",
        "intro_length": "Runden und Entscheidungen je Partie und der Vorsprung des Siegers (erste minus "
        "zweite Punktzahl): Mittelwert ± Standardabweichung.",
        "rounds": "Runden",
        "decisions": "Entscheidungen je Partie",
        "margin": "Vorsprung des Siegers",
        "shared": "Geteilte Siege",
        "versus": "Menschen gegen Bots",
        "intro_versus": "An Tischen, an denen Menschen und Bots zusammen spielten: wie oft der Platz eines "
        "Menschen gewann, verglichen mit dem Anteil bei gleich starken Menschen und Bots.",
        "versus_line": "Plätze von Menschen gewannen {rate} ({ci}) von {games} Platz-Partien; fairer "
        "Anteil {fair}.",
        "rulings": "Regeln im Einsatz",
        "intro_rulings": "Anteil der Runden, in denen jede Regel griff.",
        "round_share": "Runden (%)",
        "hands": "Handgrößen",
        "intro_hands": "Karten auf der Hand beim Auslegen, nach Runde (Mittel über alle Plätze).",
        "round": "Runde",
        "cards_in_hand": "Karten auf der Hand",
        "cards": "Karten und Töpfe",
        "intro_cards": "Für jede Karte: wie oft eine Auslage mit ihr den Topf der Runde gewann (eine vom "
        "Jäger ungültige Runde vergibt keinen). Eine Karte, mit der Menschen öfter gewinnen als Bots, "
        "nutzen Menschen besser — oder die Bots schätzen sie falsch ein.",
        "pot_share": "Auslagen, die den Topf gewannen (%)",
        "card": "Karte",
        "figure": "Kennzahl",
        "lays": "Auslagen",
    },
}


def real_html(result: RealResult, lang: str = "en") -> str:
    t = TEXT[lang]
    sections = [_summary(result, t)]
    for number, group in enumerate(result.groups, 1):
        sections += _group_sections(group, f"g{number}", t)
    return render(t["title"], sections, lang)


def _summary(result: RealResult, t: Mapping[str, str]) -> dict[str, Any]:
    rows = [[g.title, len(g.people), len(g.bots)] for g in result.groups]
    lines = [f"{t['left_out']}: {n} ({why})" for why, n in result.skipped.items() if n]
    return section(
        "summary",
        t["summary"],
        t["intro_summary"],
        lines,
        tables=[table([t["group"], t["people"], t["bots"].format(lineup=result.bots)], rows)],
    )


def _group_sections(group: Group, sid: str, t: Mapping[str, str]) -> list[dict[str, Any]]:
    f = group.figures()
    people, bots = f["people"], f["bots"]
    sides = {t["people"]: people, t["bots"].format(lineup=",".join(dict.fromkeys(group.lineup))): bots}
    note = f"{group.title} · n = {people['games']} / {bots['games']} {t['games']}"
    seat_labels = [f"{t['seat']} {s + 1}" for s in range(group.players)]
    out = [
        section(
            f"{sid}-seats",
            f"{t['seats']}: {group.title}",
            t["intro_seats"],
            images=[
                plots.vbars(
                    seat_labels,
                    {name: [100 * r["rate"] for r in side["seats"]] for name, side in sides.items()},
                    t["win_rate"],
                    note,
                    errors={
                        name: [(100 * r["ci95"][0], 100 * r["ci95"][1]) for r in side["seats"]]
                        for name, side in sides.items()
                    },
                    ref=100 / group.players,
                    ref_label=t["fair"],
                )
            ],
            tables=[_rates_table(seat_labels, [side["seats"] for side in sides.values()], sides, t)],
        ),
        section(
            f"{sid}-length",
            f"{t['length']}: {group.title}",
            t["intro_length"],
            tables=[
                table(
                    [t["figure"], *sides],
                    [
                        *(
                            [t[key], *(mean_text(side[key]) for side in sides.values())]
                            for key in ("rounds", "decisions", "margin")
                        ),
                        [t["shared"], *(rate_text(side["shared_wins"]) for side in sides.values())],
                    ],
                )
            ],
        ),
    ]
    versus = people["versus_bots"]
    if versus["games"]:
        line = t["versus_line"].format(
            rate=pct(versus["rate"]), ci=ci(versus["ci95"]), games=versus["games"], fair=pct(versus["fair"])
        )
        out.append(section(f"{sid}-versus", f"{t['versus']}: {group.title}", t["intro_versus"], [line]))
    if group.game == "schmaus":
        out += _schmaus_sections(group, sid, sides, note, t)
    return out


def _schmaus_sections(
    group: Group, sid: str, sides: Mapping[str, Mapping[str, Any]], note: str, t: Mapping[str, str]
) -> list[dict[str, Any]]:
    first = next(iter(sides.values()))
    rulings = [f"{r['rule']} {r['meaning']}" for r in first["rulings"]]
    cards = sorted({c["card"] for side in sides.values() for c in side["cards"]})
    by_card = [{c["card"]: c for c in side["cards"]} for side in sides.values()]
    empty = {"rate": 0.0, "ci95": [0.0, 1.0], "games": 0, "wins": 0}
    return [
        section(
            f"{sid}-rulings",
            f"{t['rulings']}: {group.title}",
            t["intro_rulings"],
            images=[
                plots.hbars(
                    rulings,
                    {name: [100 * r["round_share"] for r in side["rulings"]] for name, side in sides.items()},
                    t["round_share"],
                    note,
                )
            ],
            tables=[
                table(
                    [t["rulings"], *sides],
                    [
                        [label, *(pct(side["rulings"][i]["round_share"]) for side in sides.values())]
                        for i, label in enumerate(rulings)
                    ],
                )
            ],
        ),
        section(
            f"{sid}-hands",
            f"{t['hands']}: {group.title}",
            t["intro_hands"],
            images=[
                plots.lines(
                    {name: side["hand_sizes"] for name, side in sides.items()},
                    t["round"],
                    t["cards_in_hand"],
                    note,
                )
            ],
        ),
        section(
            f"{sid}-cards",
            f"{t['cards']}: {group.title}",
            t["intro_cards"],
            images=[
                plots.hbars(
                    cards,
                    {
                        name: [100 * table_.get(c, empty)["rate"] for c in cards]
                        for name, table_ in zip(sides, by_card, strict=True)
                    },
                    t["pot_share"],
                    note,
                )
            ],
            tables=[
                _rates_table(
                    cards, [[table_.get(c, empty) for c in cards] for table_ in by_card], sides, t, t["card"]
                )
            ],
        ),
    ]


def _rates_table(
    labels: Sequence[str],
    columns: Sequence[Sequence[Mapping[str, Any]]],
    sides: Mapping[str, Any],
    t: Mapping[str, str],
    head: str = "",
) -> dict[str, Any]:
    return table(
        [head or t["seat"], *sides],
        [[label, *(rate_text(column[i]) for column in columns)] for i, label in enumerate(labels)],
    )
