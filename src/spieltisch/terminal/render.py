"""Rendering the table for the terminal (pure: views in, Rich renderables out).

Everything here reads per-seat or spectator views only, never the state.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from spieltisch.engine import Action, IllegalActionError, RulesError
from spieltisch.engine.schmaus.actions import NOTATION_HELP as SCHMAUS_NOTATION
from spieltisch.engine.schmaus.cards import IDS, NAMES_DE, NAMES_EN
from spieltisch.engine.scout.actions import NOTATION_HELP as SCOUT_NOTATION
from spieltisch.tables import lighter, number_column, text_column
from spieltisch.terminal.i18n import Names, Texts
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


def scout_cards(
    cards: Sequence[str | None], width: int = 80, indices: bool = True, compact: bool = False
) -> Text:
    """Scout cards as little boxes: the live number on top (bold, coloured),
    the other number below (dim), the hand position underneath. ``compact``:
    no boxes, one line per row of numbers (for short terminals)."""
    if compact:
        return _compact_cards(cards, width, indices)
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
        _append_lines(out, lines)
    out.rstrip()
    return out


def _append_lines(out: Text, lines: Sequence[Text]) -> None:
    """Append ``lines`` to ``out``, each without its trailing blanks and ending a line."""
    for line in lines:
        line.rstrip()
        out.append_text(line)
        out.append("\n")


def _compact_cards(cards: Sequence[str | None], width: int, indices: bool) -> Text:
    """Three lines per row of cards: live numbers, other numbers, positions."""
    per_row = max(1, width // 4)
    out = Text()
    if not cards:
        return Text("(–)", style="dim")
    for row_start in range(0, len(cards), per_row):
        lines = [Text() for _ in range(3 if indices else 2)]
        for i in range(row_start, min(len(cards), row_start + per_row)):
            numbers = split_card(cards[i])
            colour = SCOUT_COLOURS[numbers[0]] if numbers else "grey50"
            lines[0].append(f"{numbers[0]:>3} " if numbers else " ?? ", style=f"bold {colour}")
            lines[1].append(f"{numbers[1]:>3} " if numbers else "    ", style="dim")
            if indices:
                lines[2].append(f"{'@' + str(i):>3} ", style="dim")
        _append_lines(out, lines)
    out.rstrip()
    return out


def scout_players(view: View, names: Names, texts: Texts, faults: Sequence[int]) -> Table:
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
            marker + names.cell(s),
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


def scout_status(
    view: View, names: Names, texts: Texts, faults: Sequence[int], width: int, compact: bool = False
) -> Group:
    """Players, the active set and (for a seat's view) that seat's hand;
    ``compact``: no blank lines and cards without boxes (short terminals)."""
    gap: list[RenderableType] = [] if compact else [Text("")]
    parts: list[RenderableType] = [
        Text(texts("round", round=view["round"], rounds=view["rounds"]), style="bold underline"),
        scout_players(view, names, texts, faults),
        *gap,
    ]
    table = view.get("table")
    if table:
        parts.append(Text(texts.say("active_set", names, who=int(table["owner"])), style="bold"))
        parts.append(scout_cards(table["cards"], width, indices=False, compact=compact))
    else:
        parts.append(Text(texts("no_set"), style="italic"))
    seat = view.get("seat")
    if seat is not None and view.get("hand") is not None:
        parts.extend(gap)
        parts.append(Text(texts.say("your_hand", names, who=int(seat)), style="bold"))
        parts.append(scout_cards(view["hand"], width, compact=compact))
        if view.get("phase") == "flip" and view["flip_decided"] and not view["flip_decided"][seat]:
            parts.append(Text(texts("if_flipped"), style="italic"))
            flipped = [turned(c) for c in reversed(view["hand"])]
            parts.append(scout_cards(flipped, width, compact=compact))
    return Group(*parts)


def scout_round_summary(result: Mapping[str, Any], names: Names, texts: Texts) -> Group:
    """S-11 / S-16 scoring of one round: captured, tokens or chips, hand penalty, points."""
    n = len(result["points"])
    two = n == 2
    reason = round_end_reason(result, names, texts)
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
            names.cell(s),
            str(result["collected"][s]),
            str(bonus),
            penalty,
            str(result["points"][s]),
            str(result["totals"][s]),
        )
    return Group(table)


def round_end_reason(result: Mapping[str, Any], names: Names, texts: Texts) -> str:
    """Why a Scout round ended, naming whose hand ran out or whose set ended it (S-11)."""
    ended = str(result["ended_by"])
    if ended == "hand_empty":
        empty = [s for s, left in enumerate(result["hand_sizes"]) if int(left) == 0]
        if empty:
            return texts.say("ended_hand_empty", names, start=False, who=empty[0])
    if result.get("exempt") is not None:
        return texts.say(f"ended_{ended}", names, start=False, who=int(result["exempt"]))
    return texts(f"ended_{ended}", who="?", who_dat="?", who_poss="?")


def scout_event(seat: int, action: Action, before: View, after: View, names: Names, texts: Texts) -> str:
    """One public line for the log (flip decisions stay secret, S-5)."""
    data = action.to_json()
    kind = data["type"]
    if kind == "flip":
        return texts.say("decided", names, who=seat)
    parts = []
    if kind in ("scout", "scout_show"):
        cards = (before.get("table") or {}).get("cards") or ["?/?"]
        card = cards[0] if data["end"] == "left" else cards[-1]
        parts.append(
            texts.say(
                "scouts",
                names,
                who=seat,
                card=turned(card) if data["flip"] else card,
                end=texts(data["end"]),
                turned=texts("turned") if data["flip"] else "",
            )
        )
    if kind in ("show", "scout_show"):
        shown = (after.get("table") or {}).get("cards") or []
        if not shown and after.get("round_results"):
            shown = (after["round_results"][-1].get("table") or {}).get("cards") or []
        cards = " ".join(shown) or action.to_text()
        parts.append(texts.say("shows", names, start=not parts, who=seat, cards=cards))
    return "; ".join(parts)


# -- Waschbär-Schmaus --------------------------------------------------------------


def card_name(card: str, lang: str) -> str:
    names = NAMES_DE if lang == "de" else NAMES_EN
    return names[IDS.index(card)]


_UNREADABLE: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"^unknown Waschbär-Schmaus card '([^']*)'"), "bad_card"),
    (re.compile(r"positions must lie within 0\.\.(\d+)$"), "bad_positions"),
    (re.compile(r"insert position must lie within 0\.\.(\d+)$"), "bad_insert"),
    (re.compile(r"the last position comes before the first$"), "bad_range"),
    (re.compile(r"seats are 0\.\.(\d+)$"), "bad_seat"),
    (re.compile(r"the ×5 raccoon multiplies a food card$"), "bad_x5"),
)
"""The engine's messages for a malformed action (:class:`InvalidActionError`, English
only) -> the table's own text; any other is said as "cannot read" (:func:`refusal`)."""


def refusal(error: RulesError, names: Names, texts: Texts, game: str = "", typed: str = "") -> str:
    """Why the engine refused an action, in the table's language: the ruling
    id, then the reason with seats as names and card notations as card names
    (the conventions of :class:`spieltisch.engine.Reasons`). A malformed action
    (``typed`` in ``game``'s notation) is said by its kind, never in the engine's
    English."""
    if texts.lang == "en":
        return str(error)
    if not isinstance(error, IllegalActionError):
        return _unreadable(str(error), texts, game, typed)
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


def _unreadable(message: str, texts: Texts, game: str, typed: str) -> str:
    """A malformed action's refusal by its kind (see :data:`_UNREADABLE`)."""
    for pattern, key in _UNREADABLE:
        match = pattern.search(message)
        if match:
            value = match[1] if match.groups() else ""
            return texts(key, value=value, cards=", ".join(IDS))
    example = {"scout": SCOUT_NOTATION, "schmaus": SCHMAUS_NOTATION}.get(game, "")
    return texts("unreadable", text=typed.strip(), example=example)


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


def schmaus_hand_compact(cards: Sequence[str], texts: Texts, width: int) -> Table:
    """The hand grouped by card in columns: ``F2 ×2 berries``."""
    counts = Counter(cards)
    cells = [
        Text.assemble(
            (card, "bold green" if card.startswith("F") else "bold yellow"),
            f" ×{counts[card]} {card_name(card, texts.lang)}",
        )
        for card in IDS
        if counts[card]
    ]
    col = max((len(c) for c in cells), default=10) + 2
    per_row = max(1, min(len(cells), width // col))
    grid = Table.grid(padding=(0, 2))
    for _ in range(per_row):
        grid.add_column()
    for i in range(0, len(cells), per_row):
        row = cells[i : i + per_row]
        grid.add_row(*row, *([""] * (per_row - len(row))))
    return grid


def schmaus_status(
    view: View, names: Names, texts: Texts, faults: Sequence[int], width: int = 80, compact: bool = False
) -> Group:
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
        row = [str(s), names.cell(s), str(view["hand_sizes"][s]), committed, str(view["scores"][s])]
        if any(faults):
            row.append(str(faults[s]))
        table.add_row(*row)
    parts.append(table)
    parts.append(Text(texts("draw_pile", n=view["draw_pile_size"])))
    discard = list(view["discard"])
    parts.append(Text(texts("discard_pile", n=len(discard), cards=pile_text(discard, texts))))
    gap: list[RenderableType] = [] if compact else [Text("")]
    if view.get("revealed"):
        parts.extend(gap)
        parts.append(schmaus_lays(view["revealed"], names, texts))
    seat = view.get("seat")
    if seat is not None and view.get("hand") is not None:
        parts.extend(gap)
        parts.append(Text(texts.say("your_hand", names, who=int(seat)), style="bold"))
        if compact:
            parts.append(schmaus_hand_compact(view["hand"], texts, width))
        else:
            parts.append(schmaus_hand(view["hand"], texts))
        if view.get("my_play") is not None and view.get("phase") == "target":
            parts.append(Text(texts("choose_after_reveal"), style="italic"))
        if view.get("phase") == "discard" and view.get("must_discard"):
            parts.append(Text(texts("must_discard", n=view["must_discard"]), style="bold yellow"))
            if view.get("must_keep_play"):
                parts.append(Text(texts("must_keep_play"), style="italic"))
    return Group(*parts)


def pile_text(cards: Sequence[str], texts: Texts) -> str:
    """A public pile by card names in the table's language, counted: "berries (3), nuts"
    (not "×3": some names have a × of their own)."""
    if not cards:
        return texts("empty_pile")
    counts = Counter(cards)
    return ", ".join(
        card_name(c, texts.lang) + (f" ({counts[c]})" if counts[c] > 1 else "") for c in IDS if counts[c]
    )


def _lay_text(cards: Sequence[str], texts: Texts) -> str:
    """A lay by card names (the ids are in the menu and the hand): "berries, berries, cookies"."""
    if not cards:
        return texts("nothing")
    return ", ".join(card_name(c, texts.lang) for c in cards)


def schmaus_lays(plays: Sequence[Sequence[str]], names: Names, texts: Texts) -> Table:
    table = Table(title=texts("revealed"), box=None, pad_edge=False, header_style="bold")
    table.add_column(texts("col_player"))
    table.add_column(texts("col_laid"))
    for s, cards in enumerate(plays):
        table.add_row(names.cell(s), _lay_text(cards, texts))
    return table


def schmaus_round_summary(result: Mapping[str, Any], names: Names, texts: Texts) -> Group:
    """W-7 .. W-15 of one round: lays, effects in order, values, pot, winners, draws."""
    n = len(result["plays"])
    table = Table(title=texts("round_scored", round=result["round"]), header_style="bold")
    table.add_column(texts("col_player"))
    table.add_column(texts("col_laid"))
    table.add_column(texts("col_value"), justify="right")
    table.add_column(texts("col_won"), justify="right")
    table.add_column(texts("col_draws"), justify="right")
    table.add_column(texts("col_total"), justify="right")
    void = bool(result.get("hunter")) and not result.get("guardian")  # W-8: nobody scores
    nobody = void or not result["pot"]
    for s in range(n):
        mark = " ★" if s in result["winners"] and not nobody else ""
        table.add_row(
            names.cell(s) + mark,
            _lay_text(result["plays"][s], texts),
            str(result["individual"][s]),
            str(result["awarded"][s]),
            str(result["drawn"][s]) if result["drawn"][s] else "",
            str(result["scores"][s]),
        )
    effects = [effect_text(e, names, texts) for e in result["effects"]]
    lines: list[RenderableType] = [table, Text(texts("effects") + ":", style="bold")]
    if effects:
        lines.extend(Text(f"  {i}. {e}") for i, e in enumerate(effects, 1))
    else:
        lines.append(Text(f"  {texts('no_effects')}"))
    if void:
        pot = texts("pot_void")
    elif nobody:
        pot = texts("pot_empty")
    else:
        pot = texts("pot", pot=result["pot"], winners=names.dative_list(result["winners"]))
    lines.append(Text(pot))
    return Group(*lines)


_EFFECTS: tuple[tuple[re.Pattern[str], str, tuple[str, ...]], ...] = (
    (re.compile(r"^W-7 guardian"), "effect_guardian", ()),
    (re.compile(r"^W-8 hunter"), "effect_hunter", ()),
    (re.compile(r"^W-9 grocer of seat (\d+): food of seat (\d+)"), "effect_grocer", ("who", "target")),
    (re.compile(r"^W-10 garbage ×(\d+): food is worth 1/(\d+)"), "effect_garbage", ("n", "d")),
    (re.compile(r"^W-11 ×5 of seat (\d+) on (\w+)"), "effect_x5", ("who", "card")),
    (re.compile(r"^W-11 ×3 of seat (\d+)"), "effect_x3", ("who",)),
    (re.compile(r"^W-11 ×2 raccoons?: food ×(\d+)"), "effect_x2", ("m",)),
)


def effect_text(line: str, names: Names, texts: Texts) -> str:
    """An engine effect line (``W-9 grocer of seat 1: food of seat 2 is worth 0``) in the
    table's language, with names for seats; the ruling id stays in front. Unknown lines
    are shown as the engine wrote them."""
    for pattern, key, fields in _EFFECTS:
        match = pattern.match(line)
        if match:
            values: dict[str, object] = {}
            for field, raw in zip(fields, match.groups(), strict=True):
                if field in ("who", "target"):
                    values[field] = int(raw)
                elif field == "card":
                    values[field] = card_name(raw, texts.lang)
                else:
                    values[field] = raw
            return f"{line.split()[0]} {texts.say(key, names, True, **values)}"
    return line


def schmaus_event(seat: int, action: Action, names: Names, texts: Texts) -> str:
    """One public line for the log (lays and discards stay sealed)."""
    data = action.to_json()
    kind = data["type"]
    if kind == "play":
        return texts.say("laid", names, who=seat)
    if kind == "target":
        return texts.say("targets", names, who=seat, target=int(data["opponent"]))
    if kind == "x5":
        return texts.say("times5", names, who=seat, card=card_name(str(data["card"]), texts.lang))
    return texts.say("discards", names, who=seat)


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


def menu_columns(labels: Sequence[str], width: int) -> int:
    col = max((len(label) for label in labels), default=10) + 3
    return max(1, min(len(labels), (width + 3) // col))


def menu_lines(game: str, menu: Menu, view: View, texts: Texts, width: int) -> tuple[int, int]:
    """(lines of the whole menu on one page, lines besides the numbered rows),
    counted without rendering: the title, the rows, the notation hint."""
    labels = [f"{i:>3}. {action_label(game, a, view, texts)}" for i, a in enumerate(menu.items, 1)]
    per_row = menu_columns(labels, width)
    fixed = 1 + (1 if menu.by_notation else 0)
    return fixed + (len(labels) + per_row - 1) // per_row, fixed


def menu_table(
    game: str,
    menu: Menu,
    view: View,
    texts: Texts,
    width: int,
    rows: int | None = None,
    page: int = 0,
) -> tuple[Group, int]:
    """The numbered menu in columns and the number of pages: at most ``rows``
    rows a page (``None``: one page), page ``page`` shown, with a line saying how
    to turn pages when there are several."""
    labels = [f"{i:>3}. {action_label(game, a, view, texts)}" for i, a in enumerate(menu.items, 1)]
    per_row = menu_columns(labels, width)
    all_rows = (len(labels) + per_row - 1) // per_row
    page_rows = all_rows if rows is None or rows >= all_rows else max(1, rows - 1)
    per_page = page_rows * per_row
    pages = max(1, (len(labels) + per_page - 1) // per_page)
    page = min(max(page, 0), pages - 1)
    shown = labels[page * per_page : (page + 1) * per_page]
    rows_here = (len(shown) + per_row - 1) // per_row
    grid = Table.grid(padding=(0, 3))
    for _ in range(max(1, min(per_row, len(shown)))):
        grid.add_column(no_wrap=True, overflow="ellipsis")
    for r in range(rows_here):
        grid.add_row(
            *[Text(shown[i]) if (i := c * rows_here + r) < len(shown) else "" for c in range(per_row)]
        )
    parts: list[RenderableType] = [Text(texts("legal"), style="bold"), grid]
    if pages > 1:
        parts.append(Text(texts("page", page=page + 1, pages=pages, n=len(labels)), style="italic"))
    if menu.by_notation:
        parts.append(
            Text(
                texts("scout_show_hint", n=len(menu.by_notation), example=menu.by_notation[0].to_text()),
                no_wrap=True,
                overflow="ellipsis",
            )
        )
    return Group(*parts), pages


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


def final_table(outcome: Mapping[str, Any], names: Names, faults: Sequence[int], texts: Texts) -> Table:
    table = Table(title=texts("final"), header_style="bold")
    table.add_column(texts("col_seat"), justify="right")
    table.add_column(texts("col_player"))
    table.add_column(texts("col_score"), justify="right")
    table.add_column(texts("col_faults"), justify="right")
    table.add_column("")
    order = sorted(range(len(names)), key=lambda s: -int(outcome["scores"][s]))
    for s in order:
        won = texts("winner") if s in outcome["winners"] else ""
        table.add_row(str(s), names.cell(s), str(outcome["scores"][s]), str(faults[s]), won)
    return table


def recent_log(lines: Sequence[str], texts: Texts, limit: int = 8) -> Group:
    """The last ``limit`` log lines under a title, one terminal line each."""
    shown = list(lines[-limit:]) if limit > 0 else []
    if not shown:
        return Group()
    return Group(
        Text(texts("recent"), style="bold"),
        *(Text(f"  {line}", no_wrap=True, overflow="ellipsis") for line in shown),
    )


# -- the review (docs/review.md, "Terminal") ------------------------------------------


def review_tables(
    result: Mapping[str, Any], mine: Sequence[int], names: Names, texts: Texts, width: int = 80
) -> Group:
    """A review (``Review.to_json()``): the marked decisions of the seats ``mine``
    (the people at the keyboard), then the summary of every reviewed seat; the
    tables fit ``width`` columns without cutting a figure or a header."""
    limits = result["thresholds"]
    parts: list[RenderableType] = [
        Text(
            texts("review_head", budget=result["budget"], mistake=f"{limits['mistake']:g}",
                  blunder=f"{limits['blunder']:g}"),
            style="bold",
        )
    ]  # fmt: skip
    decisions = result["decisions"]
    for seat in mine:
        marked = [d for d in decisions if d["seat"] == seat and d["mark"]]
        if not marked:
            parts.append(Text(texts.say("review_none", names, who=seat)))
            continue
        table = Table(title=texts.say("review_marked", names, who=seat), header_style="bold")
        number_column(table, texts("col_move"))
        number_column(table, texts("col_round"))
        for key in ("col_played", "col_estimate", "col_best", "col_best_estimate"):
            (text_column if key in ("col_played", "col_best") else number_column)(table, texts(key))
        number_column(table, texts("col_loss"))
        text_column(table, texts("col_mark"))
        for d in marked:
            table.add_row(
                str(d["number"]), str(d["round"]), d["played"], f"{d['played_estimate']:+.1f}",
                d["best"] or "", f"{d['best_estimate']:+.1f}", f"{d['loss']:.1f}",
                Text(texts(f"mark_{d['mark']}"), style="bold red" if d["mark"] == "blunder" else "yellow"),
            )  # fmt: skip
        parts.append(lighter(table, width))
    summary = Table(title=texts("review_summary"), header_style="bold")
    text_column(summary, texts("col_player"))
    for key in ("col_decisions", "col_mean_loss", "col_mistakes", "col_blunders"):
        number_column(summary, texts(key))
    text_column(summary, texts("col_biggest"))
    loss = {(d["seat"], d["number"]): d["loss"] for d in decisions}
    for s in result["summary"]:
        biggest = ", ".join(f"#{n}: {loss[s['seat'], n]:.1f}" for n in s["biggest"]) or "-"
        summary.add_row(
            names.cell(s["seat"]), str(s["rated"]), f"{s['accuracy']:.1f}", str(s["mistakes"]),
            str(s["blunders"]), biggest,
        )  # fmt: skip
    parts.append(lighter(summary, width))
    return Group(*parts)
