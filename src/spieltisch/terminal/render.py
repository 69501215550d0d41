"""Rendering the table for the terminal (pure: views in, Rich renderables out).

Everything here reads per-seat or spectator views only, never the state.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from spieltisch.engine import Action, IllegalActionError, RulesError
from spieltisch.engine.schmaus.cards import IDS, NAMES_DE, NAMES_EN
from spieltisch.terminal.i18n import Texts
from spieltisch.terminal.menu import Menu

View = Mapping[str, Any]

SCOUT_COLOURS = {
    1: "red",
    2: "dark_orange",
    3: "yellow",
    4: "green",
    5: "cyan",
    6: "blue",
    7: "magenta",
    8: "purple",
    9: "bright_red",
    10: "bright_white",
}
CARD_WIDTH = 5
"""Characters per Scout card, the gap included."""


# -- Scout -----------------------------------------------------------------------


def split_card(text: str | None) -> tuple[int, int] | None:
    """``"3/7"`` -> ``(3, 7)``: live number first; ``None`` for an unknown card."""
    if text is None:
        return None
    live, other = text.split("/")
    return int(live), int(other)


def turned(text: str) -> str:
    live, other = text.split("/")
    return f"{other}/{live}"


def scout_cards(cards: Sequence[str | None], width: int = 80, indices: bool = True) -> Text:
    """Scout cards as little boxes: the live number on top (bold, coloured),
    the other number below (dim), the hand position underneath."""
    per_row = max(1, width // CARD_WIDTH)
    out = Text()
    for row_start in range(0, max(len(cards), 1), per_row):
        row = list(enumerate(cards))[row_start : row_start + per_row]
        if not row:
            out.append("(–)\n", style="dim")
            break
        lines = [Text() for _ in range(5 if indices else 4)]
        for i, card in row:
            numbers = split_card(card)
            colour = SCOUT_COLOURS[numbers[0]] if numbers else "grey50"
            lines[0].append("╭──╮ ", style=colour)
            lines[1].append("│", style=colour)
            lines[1].append(f"{numbers[0]:>2}" if numbers else "??", style=f"bold {colour}")
            lines[1].append("│ ", style=colour)
            lines[2].append("│", style=colour)
            lines[2].append(f"{numbers[1]:>2}" if numbers else "  ", style="dim")
            lines[2].append("│ ", style=colour)
            lines[3].append("╰──╯ ", style=colour)
            if indices:
                lines[4].append(f"{i:^4} ", style="dim")
        for line in lines:
            line.rstrip()
            out.append_text(line)
            out.append("\n")
    out.rstrip()
    return out


def scout_players(view: View, names: Sequence[str], texts: Texts, faults: Sequence[int]) -> Table:
    n = int(view["players"])
    table = Table(box=None, pad_edge=False, header_style="bold")
    for key in ("col_seat", "col_player", "col_hand", "col_chips", "col_captured", "col_tokens", "col_score"):
        table.add_column(texts(key), justify="left" if key == "col_player" else "right")
    if any(faults):
        table.add_column(texts("col_faults"), justify="right")
    to_move = set(view.get("to_move") or [])
    for s in range(n):
        marker = "▶ " if s in to_move and view.get("phase") == "play" else ""
        row = [
            str(s),
            marker + names[s],
            str(view["hand_sizes"][s]),
            str(view["chips"][s]),
            str(view["collected"][s]),
            str(view["tokens"][s]),
            str(view["scores"][s]),
        ]
        if any(faults):
            row.append(str(faults[s]))
        table.add_row(*row)
    return table


def scout_status(view: View, names: Sequence[str], texts: Texts, faults: Sequence[int], width: int) -> Group:
    """Players, the active set and (for a seat's view) that seat's hand."""
    parts: list[RenderableType] = [
        Text(texts("round", round=view["round"], rounds=view["rounds"]), style="bold underline"),
        scout_players(view, names, texts, faults),
        Text(""),
    ]
    table = view.get("table")
    if table:
        parts.append(Text(texts("active_set", owner=names[int(table["owner"])]), style="bold"))
        parts.append(scout_cards(table["cards"], width, indices=False))
    else:
        parts.append(Text(texts("no_set"), style="italic"))
    seat = view.get("seat")
    if seat is not None and view.get("hand") is not None:
        parts.append(Text(""))
        parts.append(Text(texts("your_hand", who=names[int(seat)]), style="bold"))
        parts.append(scout_cards(view["hand"], width))
        if view.get("phase") == "flip" and view["flip_decided"] and not view["flip_decided"][seat]:
            parts.append(Text(texts("if_flipped"), style="italic"))
            flipped = [turned(c) for c in reversed(view["hand"])]
            parts.append(scout_cards(flipped, width))
    return Group(*parts)


def scout_round_summary(result: Mapping[str, Any], names: Sequence[str], texts: Texts) -> Group:
    """S-11 / S-16 scoring of one round: captured, tokens or chips, hand penalty, points."""
    n = len(result["points"])
    two = n == 2
    reason = texts(f"ended_{result['ended_by']}")
    table = Table(title=texts("round_over", round=result["round"], reason=reason), header_style="bold")
    table.add_column(texts("col_player"))
    table.add_column(texts("col_captured"), justify="right")
    table.add_column(texts("col_chips") if two else texts("col_tokens"), justify="right")
    table.add_column(texts("col_penalty"), justify="right")
    table.add_column(texts("col_points"), justify="right")
    table.add_column(texts("col_total"), justify="right")
    for s in range(n):
        bonus = result["chips"][s] if two else result["tokens"][s]
        left = int(result["hand_sizes"][s])
        penalty = texts("exempt") if s == result["exempt"] else (f"-{left}" if left else "0")
        table.add_row(
            names[s],
            str(result["collected"][s]),
            str(bonus),
            penalty,
            str(result["points"][s]),
            str(result["totals"][s]),
        )
    return Group(table)


def scout_event(who: str, action: Action, before: View, after: View, texts: Texts) -> str:
    """One public line for the log (flip decisions stay secret, S-5)."""
    data = action.to_json()
    kind = data["type"]
    if kind == "flip":
        return texts("decided", who=who)
    parts = []
    if kind in ("scout", "scout_show"):
        cards = (before.get("table") or {}).get("cards") or ["?/?"]
        card = cards[0] if data["end"] == "left" else cards[-1]
        parts.append(
            texts(
                "scouts",
                who=who,
                card=turned(card) if data["flip"] else card,
                end=texts(data["end"]),
                turned=texts("turned") if data["flip"] else "",
            )
        )
    if kind in ("show", "scout_show"):
        shown = (after.get("table") or {}).get("cards") or []
        if not shown and after.get("round_results"):
            shown = (after["round_results"][-1].get("table") or {}).get("cards") or []
        parts.append(texts("shows", who=who, cards=" ".join(shown) or action.to_text()))
    return "; ".join(parts)


# -- Waschbär-Schmaus --------------------------------------------------------------


def card_name(card: str, lang: str) -> str:
    names = NAMES_DE if lang == "de" else NAMES_EN
    return names[IDS.index(card)]


def refusal(error: RulesError, names: Sequence[str], texts: Texts) -> str:
    """Why the engine refused an action, in the table's language: the ruling
    id, then the reason with seats as names and card notations as card names
    (the conventions of :class:`spieltisch.engine.Reasons`)."""
    if texts.lang == "en" or not isinstance(error, IllegalActionError):
        return str(error)
    template = texts.refusal_template(error.reason)
    if template is None:
        return str(error)

    def word(key: str, value: int | str) -> str:
        if key.endswith("seats"):
            return ", ".join(names[int(s)] for s in str(value).split(", "))
        if key.endswith("seat"):
            return names[int(value)]
        if key.endswith("cards"):
            return ", ".join(card_name(c, texts.lang) for c in str(value).split())
        if key.endswith("card"):
            return card_name(str(value), texts.lang)
        return str(value)

    text = template.format(**{k: word(k, v) for k, v in error.params.items()})
    return f"{error.ruling}: {text}" if error.ruling else text


def schmaus_hand(cards: Sequence[str], texts: Texts) -> Table:
    """The hand grouped by card: id, name, count."""
    table = Table(box=None, pad_edge=False, header_style="bold")
    table.add_column(texts("col_card"))
    table.add_column(texts("col_name"))
    table.add_column(texts("col_count"), justify="right")
    counts = Counter(cards)
    for card in IDS:
        if counts[card]:
            style = "green" if card.startswith("F") else "yellow"
            table.add_row(Text(card, style=f"bold {style}"), card_name(card, texts.lang), str(counts[card]))
    return table


def schmaus_status(view: View, names: Sequence[str], texts: Texts, faults: Sequence[int]) -> Group:
    n = int(view["players"])
    parts: list[RenderableType] = [
        Text(texts("round", round=view["round"], rounds=view["rounds"]), style="bold underline"),
    ]
    table = Table(box=None, pad_edge=False, header_style="bold")
    for key in ("col_seat", "col_player", "col_hand", "col_committed", "col_score"):
        table.add_column(texts(key), justify="left" if key == "col_player" else "right")
    if any(faults):
        table.add_column(texts("col_faults"), justify="right")
    to_move = set(view.get("to_move") or [])
    for s in range(n):
        committed = (
            texts("yes") if view["committed"][s] else (texts("waiting") if s in to_move else texts("no"))
        )
        row = [str(s), names[s], str(view["hand_sizes"][s]), committed, str(view["scores"][s])]
        if any(faults):
            row.append(str(faults[s]))
        table.add_row(*row)
    parts.append(table)
    parts.append(Text(texts("draw_pile", n=view["draw_pile_size"])))
    discard = list(view["discard"])
    shown = " ".join(discard[-12:]) if discard else texts("empty_pile")
    if len(discard) > 12:
        shown = "… " + shown
    parts.append(Text(texts("discard_pile", n=len(discard), cards=shown)))
    if view.get("revealed"):
        parts.append(Text(""))
        parts.append(schmaus_lays(view["revealed"], names, texts))
    seat = view.get("seat")
    if seat is not None and view.get("hand") is not None:
        parts.append(Text(""))
        parts.append(Text(texts("your_hand", who=names[int(seat)]), style="bold"))
        parts.append(schmaus_hand(view["hand"], texts))
        if view.get("my_play") is not None and view.get("phase") == "target":
            parts.append(Text(texts("choose_after_reveal"), style="italic"))
        if view.get("phase") == "discard" and view.get("must_discard"):
            parts.append(Text(texts("must_discard", n=view["must_discard"]), style="bold yellow"))
            if view.get("must_keep_play"):
                parts.append(Text(texts("must_keep_play"), style="italic"))
    return Group(*parts)


def _lay_text(cards: Sequence[str], texts: Texts) -> str:
    if not cards:
        return texts("nothing")
    return ", ".join(f"{c} ({card_name(c, texts.lang)})" for c in cards)


def schmaus_lays(plays: Sequence[Sequence[str]], names: Sequence[str], texts: Texts) -> Table:
    table = Table(title=texts("revealed"), box=None, pad_edge=False, header_style="bold")
    table.add_column(texts("col_player"))
    table.add_column(texts("col_laid"))
    for s, cards in enumerate(plays):
        table.add_row(names[s], _lay_text(cards, texts))
    return table


def schmaus_round_summary(result: Mapping[str, Any], names: Sequence[str], texts: Texts) -> Group:
    """W-7 .. W-15 of one round: lays, effects in order, values, pot, winners, draws."""
    n = len(result["plays"])
    table = Table(title=texts("round_scored", round=result["round"]), header_style="bold")
    table.add_column(texts("col_player"))
    table.add_column(texts("col_laid"))
    table.add_column(texts("col_value"), justify="right")
    table.add_column(texts("col_won"), justify="right")
    table.add_column(texts("col_draws"), justify="right")
    table.add_column(texts("col_total"), justify="right")
    for s in range(n):
        mark = " ★" if s in result["winners"] else ""
        table.add_row(
            names[s] + mark,
            _lay_text(result["plays"][s], texts),
            str(result["individual"][s]),
            str(result["awarded"][s]),
            str(result["drawn"][s]) if result["drawn"][s] else "",
            str(result["scores"][s]),
        )
    effects = list(result["effects"])
    lines: list[RenderableType] = [table, Text(texts("effects") + ":", style="bold")]
    if effects:
        lines.extend(Text(f"  {i}. {e}") for i, e in enumerate(effects, 1))
    else:
        lines.append(Text(f"  {texts('no_effects')}"))
    winners = ", ".join(names[s] for s in result["winners"])
    lines.append(Text(texts("pot", pot=result["pot"], winners=winners)))
    return Group(*lines)


def schmaus_event(who: str, action: Action, names: Sequence[str], texts: Texts) -> str:
    """One public line for the log (lays and discards stay sealed)."""
    data = action.to_json()
    kind = data["type"]
    if kind == "play":
        return texts("laid", who=who)
    if kind == "target":
        return texts("targets", who=who, target=names[int(data["opponent"])])
    if kind == "x5":
        return texts("times5", who=who, card=data["card"])
    return texts("discards", who=who)


# -- both games ------------------------------------------------------------------


def action_label(game: str, action: Action, view: View, texts: Texts) -> str:
    """A menu line: the notation plus what it means."""
    text = action.to_text()
    data = action.to_json()
    if game == "scout":
        hand = view.get("hand") or []
        if data["type"] == "show":
            shown = hand[data["start"] : data["start"] + data["count"]]
            return f"{text}  [{' '.join(c.split('/')[0] for c in shown)}]"
        if data["type"] == "scout":
            cards = (view.get("table") or {}).get("cards") or []
            if cards:
                card = cards[0] if data["end"] == "left" else cards[-1]
                return f"{text}  [{turned(card) if data['flip'] else card}]"
        return text
    if data["type"] in ("play", "discard") and data["cards"]:
        return f"{text}  ({', '.join(card_name(c, texts.lang) for c in data['cards'])})"
    if data["type"] == "x5":
        return f"{text}  ({card_name(data['card'], texts.lang)})"
    return text


def menu_table(game: str, menu: Menu, view: View, texts: Texts, width: int) -> Group:
    labels = [f"{i:>3}. {action_label(game, a, view, texts)}" for i, a in enumerate(menu.items, 1)]
    col = max((len(label) for label in labels), default=10) + 3
    per_row = max(1, width // col)
    grid = Table.grid(padding=(0, 3))
    for _ in range(min(per_row, max(1, len(labels)))):
        grid.add_column()
    rows = (len(labels) + per_row - 1) // per_row
    for r in range(rows):
        grid.add_row(
            *[Text(labels[c * rows + r]) if c * rows + r < len(labels) else "" for c in range(per_row)]
        )
    parts: list[RenderableType] = [Text(texts("legal"), style="bold"), grid]
    if menu.by_notation:
        parts.append(
            Text(texts("scout_show_hint", n=len(menu.by_notation), example=menu.by_notation[0].to_text()))
        )
    return Group(*parts)


def all_actions(actions: Sequence[Action], texts: Texts, width: int) -> Group:
    labels = [a.to_text() for a in actions]
    col = max((len(label) for label in labels), default=10) + 2
    per_row = max(1, width // col)
    lines = ["".join(label.ljust(col) for label in labels[i : i + per_row]).rstrip()
             for i in range(0, len(labels), per_row)]  # fmt: skip
    return Group(Text(texts("all_legal", n=len(labels)), style="bold"), Text("\n".join(lines)))


def help_text(game: str, texts: Texts) -> Group:
    return Group(
        Text(texts("help_title"), style="bold"),
        Text(texts("help_common")),
        Text(texts("help_scout") if game == "scout" else texts("help_schmaus")),
    )


def final_table(
    outcome: Mapping[str, Any], names: Sequence[str], faults: Sequence[int], texts: Texts
) -> Table:
    table = Table(title=texts("final"), header_style="bold")
    table.add_column(texts("col_seat"), justify="right")
    table.add_column(texts("col_player"))
    table.add_column(texts("col_score"), justify="right")
    table.add_column(texts("col_faults"), justify="right")
    table.add_column("")
    order = sorted(range(len(names)), key=lambda s: -int(outcome["scores"][s]))
    for s in order:
        won = texts("winner") if s in outcome["winners"] else ""
        table.add_row(str(s), names[s], str(outcome["scores"][s]), str(faults[s]), won)
    return table


def recent_log(lines: Sequence[str], texts: Texts, limit: int = 8) -> Group:
    shown = list(lines[-limit:])
    if not shown:
        return Group()
    return Group(Text(texts("recent"), style="bold"), *(Text(f"  {line}") for line in shown))
