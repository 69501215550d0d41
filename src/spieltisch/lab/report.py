"""Self-contained HTML reports: plots as inline base64 PNG (matplotlib, Agg
backend), no external assets, plain-language section intros in English or
German (``lang="de"``).

Over 800 lines because of its texts: the three reports (tournament, variants,
design) share one table of section intros and labels in two languages (``TEXT``,
about 220 lines) and the section helpers; a split would separate each report
from the words it is written in."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from spieltisch.engine import get_game
from spieltisch.lab import plots
from spieltisch.lab.play import RULINGS
from spieltisch.lab.stats import entrant_name
from spieltisch.langs import LANGS

if TYPE_CHECKING:
    from spieltisch.lab.tournament import TournamentResult
    from spieltisch.lab.variants import VariantsResult

TEXT: dict[str, dict[str, str]] = {
    "en": {
        "title_tournament": "Tournament report",
        "title_variants": "Rule variants report",
        "Summary": "Summary",
        "Win rates": "Win rates",
        "Scores": "Scores",
        "Ratings": "Ratings",
        "Seats": "Seats",
        "Game length": "Game length",
        "Faults": "Faults",
        "Skill": "Skill",
        "Rulings": "Rulings",
        "Hand sizes": "Hand sizes",
        "Card impact": "Card impact",
        "intro_summary": "Who played, how many games, and the headline numbers. Every bot played every "
        "seat equally often; games with the same seed are identical, so you can rerun this report.",
        "intro_win_rates": "How often each bot won. The bar is the share of its games it won (a shared "
        "first place counts as a win); the black line is the range the true rate lies in with 95% "
        "confidence (Wilson interval). The dashed line is the fair share: what a bot would win if "
        "everybody were equally strong. Bars whose ranges do not overlap differ for real; overlapping "
        "ranges may just be luck — play more games to tell.",
        "intro_scores": "Final scores per bot: the box holds the middle half of the games, the line in "
        "it is the median, the whiskers the usual range. A wide box means very different games.",
        "intro_ratings": "TrueSkill ratings from the finishing order of every game (25 is the starting "
        "value; ± is the remaining uncertainty). Higher is stronger. Unlike Elo, TrueSkill rates a "
        "whole table at once, handles ties and says how sure it is.",
        "intro_seats": "Win rate by seat, whoever sat there. If the game is fair, every seat wins about "
        "the fair share; a seat far above it has an advantage.",
        "intro_game_length": "How long the games were: decisions (every choice of every player) and rounds.",
        "intro_faults": "Decisions where a bot failed (crash, timeout, illegal answer); a random legal "
        "action was played instead.",
        "intro_skill": "How much skill decides: the win rates of the different bots at the same table "
        "under each variant. A big gap between the strong and the weak bot means skill matters; "
        "rates near the fair share mean luck decides.",
        "intro_seats_v": "Win rate by seat under each variant: does sitting first (seat 0) help?",
        "intro_scores_v": "Final scores under each variant, and how far apart the players of one game "
        "end up (the standard deviation of the final scores within a game).",
        "intro_rulings": "How often each ruling comes into play: the share of all rounds in which it "
        "fired. A ruling that almost never fires hardly matters; one that fires in most rounds shapes "
        "the game.",
        "intro_hand_sizes": "Cards in hand at the moment of laying, by round: the mean over every player "
        "of every game (the axis starts near the data, so small differences show). Falling lines show "
        "hands running short. The table adds the smallest and the largest hand seen in that round.",
        "intro_game_length_v": "Game length in rounds and decisions under each variant.",
        "intro_impact": "What each card is worth: the first bot of the line-up played the very same "
        "games once normally and once without ever laying that card (whenever it had another choice). "
        "The bar is how many percentage points of wins the card is worth; a negative bar means the "
        "bot does better without laying it. 'Bites' counts how often per game the ban changed the "
        "choices at all.",
        "fair": "fair share",
        "bot": "bot",
        "seat": "seat",
        "win_rate": "win rate",
        "games": "games",
        "interrupted": "{done} of {games} (interrupted: the games finished by then)",
        "wins": "wins",
        "ci": "95% range",
        "mean": "mean",
        "sd": "sd",
        "min": "min",
        "max": "max",
        "rating": "rating",
        "variant": "variant",
        "round": "round",
        "rounds": "rounds",
        "decisions": "decisions",
        "score": "final score",
        "rule": "ruling",
        "meaning": "what happens",
        "round_share": "share of rounds",
        "game_share": "games with it",
        "per_game": "per game",
        "with": "with the card",
        "without": "never lays it",
        "delta": "worth (points)",
        "bites": "bites per game",
        "options": "rule options",
        "defaults": "defaults",
        "lineup": "line-up",
        "seed": "seed",
        "game": "game",
        "headline_bot": "{bot} won {rate} of its games (95% range {ci}); fair share {fair}.",
        "headline_gap": "Skill gap (best minus worst bot): {gap}.",
        "measure": "measure",
        "margin": "winning margin",
        "spread_in_game": "score spread in a game",
        "entry": "line-up entry",
        "no_faults": "No faults.",
        "cards_in_hand": "cards in hand",
        "skill_gap": "skill gap",
        "per_card": "per card and variant (a card whose difference is settled stops early)",
        "card": "card",
        "how_to_read": "How to read this:",
        "per_variant": "per variant",
        "seat_games": "seat-games",
        "wins_of": "wins / seat-games",
        "Paired differences": "Paired differences",
        "intro_paired": "Each variant against the first one, played on the very same deals with the same "
        "bot seeds, so luck cancels out deal by deal. A dot is the change (variant minus the first); "
        "the line through it is the 95% range the true change lies in (paired bootstrap over deals). "
        'Where the range crosses the zero line the dot is hollow and the table says "no measurable '
        'difference": more games might still find one, but these did not. p is an exact sign test '
        "over the deals.",
        "change": "change",
        "change_from": "change from",
        "pts_axis": "change (percentage points)",
        "sign_p": "sign test p",
        "rating_note": "TrueSkill orders entries by skill estimates that still carry uncertainty: {names} "
        "have overlapping ranges (μ ± 2σ), so their order here is not established — a weaker bot can sit "
        "above a stronger one by luck. The win rates and their intervals are the primary measure.",
        "rating_axis": "TrueSkill μ (line: ± 2σ, the 95% range)",
    },
    "de": {
        "title_tournament": "Turnierbericht",
        "title_variants": "Bericht Regelvarianten",
        "Summary": "Überblick",
        "Win rates": "Siegquoten",
        "Scores": "Punkte",
        "Ratings": "Wertungen",
        "Seats": "Sitzplätze",
        "Game length": "Spieldauer",
        "Faults": "Fehler",
        "Skill": "Können",
        "Rulings": "Regeln",
        "Hand sizes": "Handgrößen",
        "Card impact": "Kartenwert",
        "intro_summary": "Wer gespielt hat, wie viele Partien, und die wichtigsten Zahlen. Jeder Bot saß "
        "gleich oft auf jedem Platz; gleicher Seed ergibt dieselben Partien.",
        "intro_win_rates": "Wie oft jeder Bot gewonnen hat (ein geteilter erster Platz zählt als Sieg). "
        "Der schwarze Strich zeigt den Bereich, in dem die wahre Quote mit 95 % Sicherheit liegt "
        "(Wilson-Intervall). Die gestrichelte Linie ist der faire Anteil bei gleich starken Spielern. "
        "Überlappen sich die Bereiche, kann der Unterschied Zufall sein.",
        "intro_scores": "Endpunkte je Bot: Die Box enthält die mittlere Hälfte der Partien, der Strich "
        "darin den Median.",
        "intro_ratings": "TrueSkill-Wertungen aus der Platzierung jeder Partie (Startwert 25; ± ist die "
        "verbleibende Unsicherheit). Höher ist stärker.",
        "intro_seats": "Siegquote je Sitzplatz, egal wer dort saß. Bei einem fairen Spiel liegt jeder "
        "Platz nahe am fairen Anteil.",
        "intro_game_length": "Wie lange die Partien dauerten: Entscheidungen aller Spieler und Runden.",
        "intro_faults": "Entscheidungen, bei denen ein Bot versagte; stattdessen wurde zufällig gespielt.",
        "intro_skill": "Wie viel Können entscheidet: die Siegquoten der verschiedenen Bots am selben "
        "Tisch in jeder Variante. Ein großer Abstand heißt: Können zählt; Quoten nahe am fairen "
        "Anteil heißen: das Glück entscheidet.",
        "intro_seats_v": "Siegquote je Sitzplatz in jeder Variante: Hilft es, als Erster zu sitzen?",
        "intro_scores_v": "Endpunkte in jeder Variante und wie weit die Spieler einer Partie "
        "auseinanderliegen (Standardabweichung der Endpunkte innerhalb einer Partie).",
        "intro_rulings": "Wie oft jede Regel greift: Anteil aller Runden, in denen sie zum Tragen kam.",
        "intro_hand_sizes": "Karten auf der Hand beim Auslegen, je Runde: Mittel über alle Spieler aller "
        "Partien (die Achse beginnt nahe bei den Daten). Fallende Linien: die Hände werden knapp. Die "
        "Tabelle nennt die kleinste und größte Hand der Runde.",
        "intro_game_length_v": "Spieldauer in Runden und Entscheidungen je Variante.",
        "intro_impact": "Was jede Karte wert ist: Der erste Bot der Aufstellung spielte dieselben "
        "Partien einmal normal und einmal, ohne diese Karte je auszulegen (wenn er eine andere Wahl "
        "hatte). Der Balken zeigt, wie viele Prozentpunkte Siegquote die Karte wert ist.",
        "fair": "fairer Anteil",
        "bot": "Bot",
        "seat": "Platz",
        "win_rate": "Siegquote",
        "games": "Partien",
        "interrupted": "{done} von {games} (abgebrochen: die bis dahin beendeten Partien)",
        "wins": "Siege",
        "ci": "95-%-Bereich",
        "mean": "Mittel",
        "sd": "Std.-abw.",
        "min": "Min.",
        "max": "Max.",
        "rating": "Wertung",
        "variant": "Variante",
        "round": "Runde",
        "rounds": "Runden",
        "decisions": "Entscheidungen",
        "score": "Endpunkte",
        "rule": "Regel",
        "meaning": "was passiert",
        "round_share": "Anteil der Runden",
        "game_share": "Partien damit",
        "per_game": "je Partie",
        "with": "mit der Karte",
        "without": "legt sie nie",
        "delta": "Wert (Punkte)",
        "bites": "Eingriffe je Partie",
        "options": "Regeloptionen",
        "defaults": "Standard",
        "lineup": "Aufstellung",
        "seed": "Seed",
        "game": "Spiel",
        "headline_bot": "{bot} gewann {rate} seiner Partien (95-%-Bereich {ci}); fairer Anteil {fair}.",
        "headline_gap": "Abstand zwischen bestem und schwächstem Bot: {gap}.",
        "measure": "Größe",
        "margin": "Vorsprung des Siegers",
        "spread_in_game": "Punktestreuung in einer Partie",
        "entry": "Eintrag",
        "no_faults": "Keine Fehler.",
        "cards_in_hand": "Karten auf der Hand",
        "skill_gap": "Könnensabstand",
        "per_card": "je Karte und Variante (eine Karte mit entschiedenem Unterschied stoppt früh)",
        "card": "Karte",
        "how_to_read": "So liest man das:",
        "per_variant": "je Variante",
        "seat_games": "Platz-Partien",
        "wins_of": "Siege / Platz-Partien",
        "Paired differences": "Gepaarte Unterschiede",
        "intro_paired": "Jede Variante gegen die erste, gespielt mit genau denselben Kartenverteilungen "
        "und Bot-Seeds, sodass sich das Glück Verteilung für Verteilung aufhebt. Ein Punkt ist die "
        "Änderung (Variante minus erste); der Strich ist der 95-%-Bereich der wahren Änderung (gepaartes "
        "Bootstrap über die Verteilungen). Kreuzt der Bereich die Nulllinie, ist der Punkt hohl und die "
        "Tabelle sagt „kein messbarer Unterschied“. p ist ein exakter Vorzeichentest.",
        "change": "Änderung",
        "change_from": "Änderung gegenüber",
        "pts_axis": "Änderung (Prozentpunkte)",
        "sign_p": "Vorzeichentest p",
        "rating_note": "TrueSkill ordnet nach Schätzungen, die noch unsicher sind: {names} haben "
        "überlappende Bereiche (μ ± 2σ), ihre Reihenfolge ist also nicht belegt – ein schwächerer Bot "
        "kann durch Glück oben stehen. Maßgeblich sind die Siegquoten mit ihren Bereichen.",
        "rating_axis": "TrueSkill μ (Strich: ± 2σ, der 95-%-Bereich)",
    },
}


def pct(x: float) -> str:
    return f"{100 * x:.1f}%"


def ci(c: Sequence[float]) -> str:
    return f"{100 * c[0]:.1f}–{100 * c[1]:.1f}%"


def count_note(t: Mapping[str, str], games: int, per: str = "") -> str:
    """``n = 400 games`` (``per variant``): the title every figure carries."""
    return f"n = {games} {t['games']}" + (f" {per}" if per else "")


PAGE = """<!DOCTYPE html>
<html lang="{{ lang }}"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{ title }}</title>
<style>
body { font-family: system-ui, sans-serif; max-width: 70rem; margin: 2rem auto; padding: 0 1rem;
       color: #222; line-height: 1.45; }
h1 { font-size: 1.6rem; } h2 { border-bottom: 1px solid #ccc; padding-bottom: .2rem; margin-top: 2.2rem; }
p.intro { color: #444; max-width: 48rem; }
table { border-collapse: collapse; margin: .8rem 0; font-size: .92rem; }
th, td { border: 1px solid #ddd; padding: .25rem .6rem; text-align: right; }
th:first-child, td:first-child { text-align: left; }
th { background: #f3f3f3; }
img { max-width: 100%; height: auto; display: block; margin: .6rem 0; }
caption { text-align: left; color: #555; padding: .2rem 0; }
td.diff-none { color: #666; } td.diff-yes { font-weight: 600; }
code { background: #f3f3f3; padding: 0 .2rem; }
nav a { margin-right: .8rem; }
</style></head><body>
<h1>{{ title }}</h1>
<nav>{% for s in sections %}<a href="#{{ s.id }}">{{ s.title }}</a>{% endfor %}</nav>
{% for s in sections %}
<section id="{{ s.id }}">
<h2>{{ s.title }}</h2>
<p class="intro"><strong>{{ how }}</strong> {{ s.intro }}</p>
{% for line in s.lines %}<p>{{ line }}</p>{% endfor %}
{% for img in s.images %}<img src="{{ img }}" alt="{{ s.title }}">{% endfor %}
{% for table in s.tables %}
<table>{% if table.caption %}<caption>{{ table.caption }}</caption>{% endif %}
<thead><tr>{% for h in table.head %}<th>{{ h }}</th>{% endfor %}</tr></thead>
<tbody>{% for row in table.rows %}<tr>{% for c in row %}<td>{{ c }}</td>{% endfor %}</tr>{% endfor %}</tbody>
</table>
{% endfor %}
</section>
{% endfor %}
</body></html>
"""


def section(
    sid: str,
    title: str,
    intro: str,
    lines: Sequence[str] = (),
    images: Sequence[str] = (),
    tables: Sequence[Mapping[str, Any]] = (),
) -> dict[str, Any]:
    return {
        "id": sid,
        "title": title,
        "intro": intro,
        "lines": list(lines),
        "images": list(images),
        "tables": list(tables),
    }


def table(head: Sequence[str], rows: Sequence[Sequence[Any]], caption: str = "") -> dict[str, Any]:
    return {"head": list(head), "rows": [list(r) for r in rows], "caption": caption}


def render(title: str, sections: Sequence[Mapping[str, Any]], lang: str) -> str:
    import jinja2

    env = jinja2.Environment(autoescape=True)
    how = TEXT[lang]["how_to_read"] if lang in TEXT else TEXT["en"]["how_to_read"]
    return env.from_string(PAGE).render(title=title, sections=sections, lang=lang, how=how)


def _texts(lang: str) -> dict[str, str]:
    if lang not in TEXT:
        from spieltisch.lab.config import LabError

        raise LabError(f"unknown report language {lang!r}: choose {' or '.join(LANGS)}")
    return TEXT[lang]


def tournament_html(result: TournamentResult, lang: str = "en") -> str:
    t = _texts(lang)
    s = result.summary
    cfg = result.tournament.config_json()
    bots = s["bots"]
    fair = s["fair_share"]
    labels = [b["bot"] for b in bots]
    entry_labels = [e["label"] for e in s["entries"]]
    headline = [
        t["headline_bot"].format(bot=b["bot"], rate=pct(b["rate"]), ci=ci(b["ci95"]), fair=pct(fair))
        for b in bots
    ]
    sections = [
        section(
            "summary",
            t["Summary"],
            t["intro_summary"],
            headline,
            tables=[
                table(
                    [t["measure"], ""],
                    [
                        [t["game"], get_game(cfg["game"]).title],
                        [t["lineup"], ", ".join(cfg["lineup"])],
                        [
                            t["games"],
                            cfg["games"]
                            if not result.interrupted
                            else t["interrupted"].format(done=len(result.games), games=cfg["games"]),
                        ],
                        [t["seed"], cfg["seed"]],
                        [t["options"], json.dumps(cfg["options"]) if cfg["options"] else t["defaults"]],
                    ],
                )
            ],
        ),
        section(
            "win-rates",
            t["Win rates"],
            t["intro_win_rates"],
            images=[
                plots.vbars(
                    labels,
                    {"": [100 * b["rate"] for b in bots]},
                    t["win_rate"],
                    count_note(t, s["games"]),
                    errors={"": [(100 * b["ci95"][0], 100 * b["ci95"][1]) for b in bots]},
                    ref=100 * fair,
                    ref_label=t["fair"],
                )
            ],
            tables=[_bot_table(bots, s["games"], t)],
        ),
        section(
            "scores",
            t["Scores"],
            t["intro_scores"],
            [f"{t['margin']}: {s['margin']['mean']:.1f} ({t['sd']} {s['margin']['sd']:.1f})"],
            images=[
                plots.boxes(
                    entry_labels,
                    [[g.scores[g.entry_seat(e)] for g in result.games] for e in range(len(entry_labels))],
                    t["score"],
                    count_note(t, s["games"]),
                )
            ],
            tables=[
                table(
                    [t["bot"], t["mean"], t["sd"], t["min"], t["max"]],
                    [
                        [
                            b["bot"],
                            f"{b['score']['mean']:.1f}",
                            f"{b['score']['sd']:.1f}",
                            f"{b['score']['min']:.0f}",
                            f"{b['score']['max']:.0f}",
                        ]
                        for b in bots
                    ],
                )
            ],
        ),
        section(
            "ratings",
            t["Ratings"],
            t["intro_ratings"],
            _rating_notes(s["entries"], t),
            images=[_rating_plot(s["entries"], t, s["games"])],
            tables=[
                table(
                    [t["entry"], "μ", "σ", "μ − 3σ"],
                    [
                        [
                            e["label"],
                            f"{e['rating']['mu']:.2f}",
                            f"{e['rating']['sigma']:.2f}",
                            f"{e['rating']['conservative']:.2f}",
                        ]
                        for e in s["entries"]
                    ],
                )
            ],
        ),
        section(
            "seats",
            t["Seats"],
            t["intro_seats"],
            images=[
                plots.vbars(
                    [f"{t['seat']} {x['seat']}" for x in s["seats"]],
                    {"": [100 * x["rate"] for x in s["seats"]]},
                    t["win_rate"],
                    count_note(t, s["games"]),
                    errors={"": [(100 * x["ci95"][0], 100 * x["ci95"][1]) for x in s["seats"]]},
                    ref=100 * fair,
                    ref_label=t["fair"],
                )
            ],
            tables=[
                table(
                    [t["seat"], t["games"], t["wins"], t["win_rate"], t["ci"], t["mean"]],
                    [
                        [
                            x["seat"],
                            x["games"],
                            x["wins"],
                            pct(x["rate"]),
                            ci(x["ci95"]),
                            f"{x['score']['mean']:.1f}",
                        ]
                        for x in s["seats"]
                    ],
                )
            ],
        ),
        section(
            "game-length",
            t["Game length"],
            t["intro_game_length"],
            images=[
                plots.counts(
                    [
                        (t["rounds"], {"": [float(g.rounds) for g in result.games]}),
                        (t["decisions"], {"": [float(sum(g.decisions)) for g in result.games]}),
                    ],
                    t["games"],
                    count_note(t, s["games"]),
                )
            ],
            tables=[
                table(
                    [t["measure"], t["mean"], t["sd"], t["min"], t["max"]],
                    [
                        [t[k], *(f"{s['length'][k][f]:.1f}" for f in ("mean", "sd", "min", "max"))]
                        for k in ("decisions", "rounds")
                    ],
                )
            ],
        ),
        section(
            "faults",
            t["Faults"],
            t["intro_faults"],
            [t["no_faults"]] if not s["faults"]["total"] else s["faults"]["messages"],
            tables=[table([t["bot"], t["Faults"]], [[b["bot"], b["faults"]] for b in bots])],
        ),
    ]
    return render(f"{t['title_tournament']} — {get_game(cfg['game']).title}", sections, lang)


def _bot_table(bots: Sequence[Mapping[str, Any]], games: int, t: Mapping[str, str]) -> dict[str, Any]:
    """Per bot: the games (as in the summary), its wins out of its seat-games (a bot
    listed twice plays two seats of every game), the rate and its 95 % range."""
    return table(
        [t["bot"], t["games"], t["wins_of"], t["win_rate"], t["ci"]],
        [[b["bot"], games, f"{b['wins']} / {b['games']}", pct(b["rate"]), ci(b["ci95"])] for b in bots],
    )


def _rating_plot(entries: Sequence[Mapping[str, Any]], t: Mapping[str, str], games: int) -> str:
    mus = [(e["rating"]["mu"], 2 * e["rating"]["sigma"]) for e in entries]
    values = [(mu, mu - r, mu + r) for mu, r in mus]
    return plots.dots([e["label"] for e in entries], values, t["rating_axis"], count_note(t, games))


def _rating_notes(entries: Sequence[Mapping[str, Any]], t: Mapping[str, str]) -> list[str]:
    """Say so when TrueSkill's order of two entries is not established (their
    μ ± 2σ ranges overlap) and disagrees with their win rates."""
    unsure: list[str] = []
    for a in entries:
        for b in entries:
            ra, rb = a["rating"], b["rating"]
            if a["label"] >= b["label"] or (ra["mu"] > rb["mu"]) == (a["rate"] > b["rate"]):
                continue
            if abs(ra["mu"] - rb["mu"]) < 2 * (ra["sigma"] + rb["sigma"]):
                unsure.append(f"{a['label']} / {b['label']}")
    return [t["rating_note"].format(names=", ".join(unsure))] if unsure else []


def variants_html(result: VariantsResult, lang: str = "en") -> str:
    t = _texts(lang)
    study = result.study
    names = [v.name for v in study.variants]
    sums = [result.summaries[n] for n in names]
    fair = sums[0]["fair_share"]
    bot_names = [b["bot"] for b in sums[0]["bots"]]
    played = result.played or sums[0]["games"]
    per = count_note(t, played, t["per_variant"])

    def bot_rate(summary: Mapping[str, Any], bot: str) -> Mapping[str, Any]:
        return next(b for b in summary["bots"] if b["bot"] == bot)

    overview_rows = []
    for v, s in zip(study.variants, sums, strict=True):
        overview_rows.append(
            [
                v.name,
                json.dumps(v.options) if v.options else t["defaults"],
                v.description,
                s["games"],
                *(pct(bot_rate(s, b)["rate"]) for b in bot_names),
                "–" if s["skill_gap"] is None else pct(s["skill_gap"]),
                pct(s["seats"][0]["rate"]),
                f"{s['length']['rounds']['mean']:.1f}",
            ]
        )
    sections = [
        section(
            "summary",
            t["Summary"],
            t["intro_summary"],
            [
                f"{t['lineup']}: {', '.join(map(entrant_name, study.lineup))} · "
                f"{t['games']}: {played} {t['per_variant']} · "
                f"{t['seed']}: {study.seed}",
                result.stop_note(lang),
            ],
            tables=[
                table(
                    [
                        t["variant"],
                        t["options"],
                        "",
                        t["games"],
                        *(f"{t['win_rate']} {b}" for b in bot_names),
                        t["skill_gap"],
                        f"{t['seat']} 0",
                        t["rounds"],
                    ],
                    overview_rows,
                )
            ],
        ),
    ]
    if len(names) > 1:
        sections.append(_paired_section(result, t, lang))
    sections += [
        section(
            "skill",
            t["Skill"],
            t["intro_skill"],
            [
                f"{n}: "
                + t["headline_gap"].format(gap="–" if s["skill_gap"] is None else pct(s["skill_gap"]))
                for n, s in zip(names, sums, strict=True)
            ],
            images=[
                plots.vbars(
                    names,
                    {b: [100 * bot_rate(s, b)["rate"] for s in sums] for b in bot_names},
                    t["win_rate"],
                    per,
                    errors={
                        b: [(100 * bot_rate(s, b)["ci95"][0], 100 * bot_rate(s, b)["ci95"][1]) for s in sums]
                        for b in bot_names
                    },
                    ref=100 * fair,
                    ref_label=t["fair"],
                )
            ],
            tables=[
                table(
                    [t["variant"], t["bot"], t["games"], t["wins_of"], t["win_rate"], t["ci"]],
                    [
                        [
                            n,
                            b,
                            s["games"],
                            f"{bot_rate(s, b)['wins']} / {bot_rate(s, b)['games']}",
                            pct(bot_rate(s, b)["rate"]),
                            ci(bot_rate(s, b)["ci95"]),
                        ]
                        for n, s in zip(names, sums, strict=True)
                        for b in bot_names
                    ],
                )
            ],
        ),
        section(
            "seats",
            t["Seats"],
            t["intro_seats_v"],
            images=[
                plots.vbars(
                    [f"{t['seat']} {i}" for i in range(study.players)],
                    {n: [100 * x["rate"] for x in s["seats"]] for n, s in zip(names, sums, strict=True)},
                    t["win_rate"],
                    per,
                    ref=100 * fair,
                    ref_label=t["fair"],
                )
            ],
            tables=[
                table(
                    [t["variant"], t["games"], *(f"{t['seat']} {i}" for i in range(study.players))],
                    [
                        [n, s["games"], *(f"{pct(x['rate'])} ({ci(x['ci95'])})" for x in s["seats"])]
                        for n, s in zip(names, sums, strict=True)
                    ],
                )
            ],
        ),
        section(
            "scores",
            t["Scores"],
            t["intro_scores_v"],
            images=[
                plots.boxes(
                    names,
                    [[float(sc) for g in result.games if g.group == n for sc in g.scores] for n in names],
                    t["score"],
                    per,
                )
            ],
            tables=[
                table(
                    [t["variant"], t["games"], t["mean"], t["sd"], t["spread_in_game"], t["margin"]],
                    [
                        [
                            n,
                            s["games"],
                            f"{_mean_score(s):.1f}",
                            f"{_pooled_sd(result, n):.1f}",
                            f"{s['score_spread_in_game']['mean']:.1f}",
                            f"{s['margin']['mean']:.1f}",
                        ]
                        for n, s in zip(names, sums, strict=True)
                    ],
                )
            ],
        ),
        section(
            "rulings",
            t["Rulings"],
            t["intro_rulings"],
            images=[
                plots.hbars(
                    [f"{rule} {_ruling_meaning(rule, meaning, lang)}" for rule, meaning in RULINGS],
                    {
                        n: [100 * r["round_share"] for r in s["rulings"]]
                        for n, s in zip(names, sums, strict=True)
                    },
                    t["round_share"],
                    per,
                )
            ],
            tables=[
                table(
                    [
                        t["rule"],
                        t["meaning"],
                        *(f"{n}: {t['round_share']} / {t['game_share']}" for n in names),
                    ],
                    [
                        [
                            rule,
                            _ruling_meaning(rule, meaning, lang),
                            *(
                                pct(s["rulings"][i]["round_share"])
                                + " / "
                                + pct(s["rulings"][i]["game_share"])
                                for s in sums
                            ),
                        ]
                        for i, (rule, meaning) in enumerate(RULINGS)
                    ],
                    caption=per,
                )
            ],
        ),
        section(
            "hand-sizes",
            t["Hand sizes"],
            t["intro_hand_sizes"],
            images=[
                plots.lines(
                    {n: s["hand_sizes"] for n, s in zip(names, sums, strict=True)},
                    t["round"],
                    t["cards_in_hand"],
                    per,
                )
            ],
            tables=[
                table(
                    [t["round"], *names],
                    [
                        [r, *(_hand_cell(s, r) for s in sums)]
                        for r in range(1, 1 + max((len(s["hand_sizes"]) for s in sums), default=0))
                    ],
                    caption=per,
                )
            ],
        ),
        section(
            "game-length",
            t["Game length"],
            t["intro_game_length_v"],
            images=[
                plots.counts(
                    [
                        (
                            t["rounds"],
                            {n: [float(g.rounds) for g in result.games if g.group == n] for n in names},
                        ),
                        (
                            t["decisions"],
                            {
                                n: [float(sum(g.decisions)) for g in result.games if g.group == n]
                                for n in names
                            },
                        ),
                    ],
                    t["games"],
                    per,
                )
            ],
            tables=[
                table(
                    [
                        t["variant"],
                        t["games"],
                        f"{t['rounds']} ({t['mean']})",
                        f"{t['decisions']} ({t['mean']})",
                        f"{t['decisions']} ({t['sd']})",
                    ],
                    [
                        [
                            n,
                            s["games"],
                            f"{s['length']['rounds']['mean']:.1f}",
                            f"{s['length']['decisions']['mean']:.1f}",
                            f"{s['length']['decisions']['sd']:.1f}",
                        ]
                        for n, s in zip(names, sums, strict=True)
                    ],
                )
            ],
        ),
    ]
    if study.impact_cards:
        counts = sorted({c["with"]["games"] for s in sums for c in s["impact"]})
        impact_games = counts[-1] if counts else 0
        shown = f"{counts[0]}–{counts[-1]}" if len(counts) > 1 else str(impact_games)
        sections.append(
            section(
                "card-impact",
                t["Card impact"],
                t["intro_impact"],
                [
                    f"{t['bot']}: {entrant_name(study.lineup[0])} · {t['games']}: {shown} {t['per_card']}",
                ],
                images=[
                    plots.forest(
                        list(study.impact_cards),
                        {
                            n: [_interval_of(c.get("paired"), 100 * c["delta"]) for c in s["impact"]]
                            for n, s in zip(names, sums, strict=True)
                        },
                        t["pts_axis"],
                        f"n = {shown} {t['games']} {t['per_card']}",
                    )
                ],
                tables=[
                    table(
                        [
                            t["variant"],
                            t["card"],
                            t["games"],
                            t["with"],
                            t["without"],
                            t["delta"],
                            t["bites"],
                        ],
                        [
                            [
                                n,
                                c["card"],
                                c["with"]["games"],
                                f"{pct(c['with']['rate'])} ({ci(c['with']['ci95'])})",
                                f"{pct(c['without']['rate'])} ({ci(c['without']['ci95'])})",
                                _diff_cell(c.get("paired"), "pts", lang, 100 * c["delta"]),
                                f"{c['bites_per_game']:.1f}",
                            ]
                            for n, s in zip(names, sums, strict=True)
                            for c in s["impact"]
                        ],
                    )
                ],
            )
        )
    return render(f"{t['title_variants']} — Waschbär-Schmaus", sections, lang)


def _ruling_meaning(rule: str, meaning: str, lang: str) -> str:
    from spieltisch.lab.paired import RULING_NAMES_DE

    return RULING_NAMES_DE[rule] if lang == "de" else meaning


def _interval_of(d: Mapping[str, Any] | None, value: float) -> tuple[float, float, float]:
    if not d:
        return value, value, value
    return d["value"], d["ci95"][0], d["ci95"][1]


def _diff_cell(d: Mapping[str, Any] | None, unit: str, lang: str, value: float) -> str:
    from spieltisch.lab.paired import describe_diff, estimate_from_json

    if not d:
        return f"{value:+.1f}"
    return describe_diff(estimate_from_json(d), unit, lang)


def _paired_section(result: VariantsResult, t: Mapping[str, str], lang: str) -> dict[str, Any]:
    """Every measure's paired difference from the first variant: a forest plot of
    the percentage-point measures and a table of all of them."""
    from spieltisch.lab.paired import estimate_from_json

    study = result.study
    base = study.variants[0].name
    others = [v.name for v in study.variants[1:]]
    keys = study.paired_keys()
    known = study.measures()
    cells = {n: result.summaries[n]["paired"]["measures"] for n in others}
    pts_keys = [k for k in keys if known[k].unit in ("pts", "%", "% of rounds")]
    rows = []
    for k in keys:
        row: list[Any] = [known[k].title(lang)]
        for n in others:
            d = cells[n][k]
            e = estimate_from_json(d)
            p = "" if e.p_value is None else f"{e.p_value:.3f}"
            row += [_diff_cell(d, known[k].unit, lang, e.value), p]
        rows.append(row)
    return section(
        "paired",
        t["Paired differences"],
        t["intro_paired"],
        [result.stop_note(lang)],
        images=[
            plots.forest(
                [known[k].title(lang) for k in pts_keys],
                {n: [_interval_of(cells[n][k], 0.0) for k in pts_keys] for n in others},
                t["pts_axis"],
                f"{count_note(t, result.played, t['per_variant'])} · {t['change_from']} {base}",
                first_color=1,
            )
        ],
        tables=[
            table(
                [t["measure"], *(h for n in others for h in (f"{n} − {base}", t["sign_p"]))],
                rows,
                caption=count_note(t, result.played, t["per_variant"]),
            )
        ],
    )


def _mean_score(summary: Mapping[str, Any]) -> float:
    total = sum(b["score"]["mean"] * b["games"] for b in summary["bots"])
    count = sum(b["games"] for b in summary["bots"])
    return total / count if count else 0.0


def _pooled_sd(result: VariantsResult, name: str) -> float:
    import statistics

    scores = [float(sc) for g in result.games if g.group == name for sc in g.scores]
    return statistics.stdev(scores) if len(scores) > 1 else 0.0


def _hand_cell(summary: Mapping[str, Any], r: int) -> str:
    sizes = summary["hand_sizes"]
    if r > len(sizes):
        return "–"
    p = sizes[r - 1]
    return f"{p['mean']:.1f} ({p['min']:.0f}–{p['max']:.0f})"


DESIGN_TEXT: dict[str, dict[str, str]] = {
    "en": {
        "title": "Rule design report",
        "Answer": "The answer",
        "intro_answer": "What the search found, in plain words. Each candidate was confirmed by a fresh "
        "run: new deals, played both with the candidate and with the printed rules (the same deals and "
        "seeds for both), so the numbers below are not the lucky draws the search happened to see. "
        "± is half the 95% range.",
        "Goals": "Goals and the printed rules",
        "intro_goals": "The goals from your file, and how the printed rules do on them in the "
        "confirmation games. A goal is met (✓) when the whole 95% range lies inside it, likely met (✓?) "
        "when the value does but the range reaches outside, missed (✗) otherwise.",
        "Candidates": "Candidates",
        "intro_candidates": "Each panel is one goal: the shaded band is what you asked for, every row a "
        "candidate (the printed rules first), the dot its value in the confirmation games and the line "
        "its 95% range. Green dots meet the goal, red ones miss it. The table gives the same numbers and "
        'the change from the printed rules with its own 95% range (paired, deal by deal); "no measurable '
        'difference" means these games cannot tell the candidate from the printed rules on that goal.',
        "Search": "The search",
        "intro_search": "Every dot is one candidate the optimiser (Optuna's TPE sampler) tried: how far it "
        "missed the goals in total (0 = every goal met, 1 = missed by the width of a goal). The line is the "
        "best so far. A candidate proposed again adds games to the ones it already has.",
        "Sensitivity": "Sensitivity",
        "intro_sensitivity": "What each option does on its own: one option varied over its values, every "
        "other option kept at the best candidate's. The circled value is the best candidate's; the shaded "
        "band is the goal. A flat line means the option hardly matters for that goal; a steep one is a "
        "lever.",
        "candidate": "candidate",
        "printed": "printed rules",
        "goal": "goal",
        "value": "value (95% range)",
        "status": "status",
        "change": "change from the printed rules",
        "games": "games",
        "trial": "trial",
        "total_miss": "total miss of the goals",
        "best": "best so far",
        "setting": "setting",
        "budget": "budget (search games)",
        "played": "games played in all",
        "time": "time",
        "bots": "bots",
        "players": "players",
        "seed": "seed",
        "game": "game",
        "space": "options searched",
        "n_confirm": "n = {n} fresh games per candidate",
        "n_sens": "n = {n} games per point · circled",
        "n_trials": "{n} trials, {g} search games",
        "met": "met",
        "likely": "likely met",
        "missed": "missed",
        "no_options": "Nothing to vary.",
    },
    "de": {
        "title": "Bericht Regelentwurf",
        "Answer": "Die Antwort",
        "intro_answer": "Was die Suche gefunden hat, in einfachen Worten. Jeder Kandidat wurde in einem "
        "neuen Lauf bestätigt: neue Kartenverteilungen, gespielt mit dem Kandidaten und mit den gedruckten "
        "Regeln (dieselben Verteilungen und Seeds für beide). ± ist die halbe Breite des 95-%-Bereichs.",
        "Goals": "Ziele und die gedruckten Regeln",
        "intro_goals": "Die Ziele aus Ihrer Datei und wie die gedruckten Regeln sie in den "
        "Bestätigungspartien erreichen. Erfüllt (✓): der ganze 95-%-Bereich liegt im Ziel; wahrscheinlich "
        "(✓?): der Wert, aber nicht der ganze Bereich; verfehlt (✗) sonst.",
        "Candidates": "Kandidaten",
        "intro_candidates": "Jedes Feld ist ein Ziel: das schattierte Band ist Ihr Wunsch, jede Zeile ein "
        "Kandidat (zuerst die gedruckten Regeln), der Punkt sein Wert in den Bestätigungspartien, der "
        "Strich sein 95-%-Bereich. Grün erfüllt das Ziel, Rot verfehlt es. Die Tabelle zeigt dieselben "
        "Zahlen und die Änderung gegenüber den gedruckten Regeln mit eigenem 95-%-Bereich (gepaart); "
        "„kein messbarer Unterschied“ heißt: diese Partien unterscheiden Kandidat und gedruckte Regeln "
        "bei diesem Ziel nicht.",
        "Search": "Die Suche",
        "intro_search": "Jeder Punkt ist ein Kandidat, den der Optimierer (Optunas TPE) versucht hat: wie "
        "weit er die Ziele insgesamt verfehlte (0 = alle erfüllt, 1 = um die Breite eines Ziels verfehlt). "
        "Die Linie ist das bisher Beste. Wird ein Kandidat erneut vorgeschlagen, kommen Partien hinzu.",
        "Sensitivity": "Empfindlichkeit",
        "intro_sensitivity": "Was jede Option allein bewirkt: eine Option über ihre Werte variiert, alle "
        "anderen auf dem Wert des besten Kandidaten. Der umkreiste Wert ist der des besten Kandidaten, das "
        "Band das Ziel. Eine flache Linie: die Option ist für dieses Ziel fast egal; eine steile: ein Hebel.",
        "candidate": "Kandidat",
        "printed": "gedruckte Regeln",
        "goal": "Ziel",
        "value": "Wert (95-%-Bereich)",
        "status": "Stand",
        "change": "Änderung gegenüber den gedruckten Regeln",
        "games": "Partien",
        "trial": "Versuch",
        "total_miss": "Verfehlung der Ziele insgesamt",
        "best": "bisher bester",
        "setting": "Einstellung",
        "budget": "Budget (Suchpartien)",
        "played": "Partien insgesamt",
        "time": "Zeit",
        "bots": "Bots",
        "players": "Spieler",
        "seed": "Seed",
        "game": "Spiel",
        "space": "durchsuchte Optionen",
        "n_confirm": "n = {n} neue Partien je Kandidat",
        "n_sens": "n = {n} Partien je Punkt · umkreist",
        "n_trials": "{n} Versuche, {g} Suchpartien",
        "met": "erfüllt",
        "likely": "wahrscheinlich",
        "missed": "verfehlt",
        "no_options": "Nichts zu variieren.",
    },
}

_MARK = {"met": "✓", "likely": "✓?", "missed": "✗"}


def design_html(result: Any, lang: str = "en") -> str:
    """The design search's report (:class:`spieltisch.lab.design.DesignResult`)."""
    from spieltisch.lab.design import describe_changes
    from spieltisch.lab.paired import estimate_from_json, fmt, units

    _texts(lang)
    t = DESIGN_TEXT[lang]
    spec = result.spec
    rows = result.rows()

    def name(c: Mapping[str, Any]) -> str:
        changes = [(x["option"], x["printed"], x["candidate"]) for x in c["changes"]]
        return describe_changes(changes, lang) or t["printed"]

    def label(gl: Mapping[str, Any]) -> str:
        return str(gl["label_de"] if lang == "de" and gl["label_de"] else gl["label"])

    def value_cell(gl: Mapping[str, Any]) -> str:
        e = gl["estimate"]
        return units(f"{fmt(e['value'], gl['unit'])} ({e['ci95'][0]:.1f} … {e['ci95'][1]:.1f}) "
                     f"{_MARK[gl['status']]}", lang)  # fmt: skip

    confirm_n = result.printed["confirm_games"]
    short = [t["printed"], *(f"{t['candidate']} {i}" for i in range(1, len(rows)))]
    names = [t["printed"], *(f"{t['candidate']} {i}: {name(c)}" for i, c in enumerate(rows[1:], 1))]
    sections = [
        section(
            "answer",
            t["Answer"],
            t["intro_answer"],
            result.summary_lines(lang),
            tables=[
                table(
                    [t["setting"], ""],
                    [
                        [t["game"], get_game(spec.game).title],
                        [t["players"], spec.players],
                        [t["bots"], ", ".join(spec.lineup(spec.players))],
                        [t["seed"], spec.seed],
                        [t["space"], ", ".join(d.key for d in spec.space)],
                        [t["budget"], f"{result.budget} ({result.search_games})"],
                        [t["played"], result.games_played],
                        [t["time"], f"{result.seconds:.0f} s"],
                    ],
                )
            ],
        ),
        section(
            "goals",
            t["Goals"],
            t["intro_goals"],
            tables=[
                table(
                    [t["goal"], "", t["printed"], t["status"]],
                    [
                        [label(gl), units(gl["goal"]["text"], lang), value_cell(gl), t[gl["status"]]]
                        for gl in result.printed["goals"]
                    ],
                    caption=t["n_confirm"].format(n=confirm_n),
                )
            ],
        ),
        section(
            "candidates",
            t["Candidates"],
            t["intro_candidates"],
            images=[
                plots.goal_check(
                    [
                        (
                            units(f"{label(gl)}: {gl['goal']['text']}", lang),
                            (gl["goal"]["min"], gl["goal"]["max"]),
                            [
                                (
                                    c["goals"][i]["estimate"]["value"],
                                    *c["goals"][i]["estimate"]["ci95"],
                                )
                                for c in rows
                            ],
                        )
                        for i, gl in enumerate(result.printed["goals"])
                    ],
                    short,
                    t["n_confirm"].format(n=confirm_n),
                )
            ],
            tables=[
                table(
                    [t["candidate"], t["games"], *(label(gl) for gl in result.printed["goals"])],
                    [
                        [
                            n,
                            c["confirm_games"],
                            *(
                                value_cell(gl)
                                + (
                                    "; "
                                    + t["change"]
                                    + ": "
                                    + describe_diff_text(
                                        estimate_from_json(gl["difference"]), gl["unit"], lang
                                    )
                                    if "difference" in gl
                                    else ""
                                )
                                for gl in c["goals"]
                            ),
                        ]
                        for n, c in zip(names, rows, strict=True)
                    ],
                )
            ],
        ),
    ]
    valid = [tr for tr in result.trials if tr.get("valid")]
    if valid:
        misses = [
            sum(next(g for g in spec.goals if g.measure == m).miss(v) for m, v in tr["values"].items())
            for tr in valid
        ]
        sections.append(
            section(
                "search",
                t["Search"],
                t["intro_search"],
                images=[
                    plots.history(
                        misses,
                        t["trial"],
                        t["total_miss"],
                        t["best"],
                        t["n_trials"].format(n=len(result.trials), g=result.search_games),
                    )
                ],
            )
        )
    if result.sensitivity:
        images = []
        goal_of = {g.measure: g for g in spec.goals}
        for entry in result.sensitivity:
            points = [p for p in entry["points"] if p["valid"]]
            if len(points) < 2:
                continue
            xs = [str(p["value"]) for p in points]
            mark = next((i for i, p in enumerate(points) if p["value"] == entry["candidate_value"]), -1)
            panels = []
            for gl in result.printed["goals"]:
                m = gl["measure"]
                panels.append(
                    (
                        label(gl),
                        xs,
                        [(p["measures"][m]["value"], *p["measures"][m]["ci95"]) for p in points],
                        (goal_of[m].low, goal_of[m].high),
                        float(mark),
                    )
                )
            n = min(p["games"] for p in points)
            best = result.confirmed[0]
            marked = short[rows.index(best)] if best in rows else t["printed"]
            images.append(plots.sensitivity(panels, f"{entry['option']} · {t['n_sens'].format(n=n)}", marked))
        sections.append(section("sensitivity", t["Sensitivity"], t["intro_sensitivity"],
                                [] if images else [t["no_options"]], images=images))  # fmt: skip
    return render(f"{t['title']} — {get_game(spec.game).title}", sections, lang)


def describe_diff_text(e: Any, unit: str, lang: str) -> str:
    from spieltisch.lab.paired import describe_diff

    return describe_diff(e, unit, lang)
