"""The human's input: numbered menus of legal actions and command parsing (pure).

For Scout the menu lists the flip decision, every show and every scout; the
scout & show moves (often hundreds) are entered in notation, and ``all``
lists them, so every legal action stays reachable.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from spieltisch.engine import Action
from spieltisch.terminal.i18n import COMMANDS, Texts


@dataclass(frozen=True)
class Menu:
    """Numbered actions (item ``n`` is ``items[n - 1]``) and the ones left to notation."""

    items: tuple[Action, ...]
    by_notation: tuple[Action, ...] = ()


@dataclass(frozen=True)
class Quit:
    pass


@dataclass(frozen=True)
class Help:
    pass


@dataclass(frozen=True)
class ListAll:
    pass


@dataclass(frozen=True)
class AskHint:
    """``hint``: the bot's suggested move and why (``spieltisch play --hints``)."""


@dataclass(frozen=True)
class Page:
    """Turn the menu's page: ``+1`` next, ``-1`` previous."""

    step: int


@dataclass(frozen=True)
class Choice:
    """A menu item, already a legal action."""

    action: Action


@dataclass(frozen=True)
class Notation:
    """A move typed in notation; the engine validates it."""

    text: str


@dataclass(frozen=True)
class Invalid:
    reason: str


Command = Quit | Help | ListAll | AskHint | Page | Choice | Notation | Invalid


def build_menu(game: str, legal: Sequence[Action]) -> Menu:
    """Every legal action in the menu, except Scout's scout & show moves."""
    if game == "scout":
        items = tuple(a for a in legal if a.to_json()["type"] != "scout_show")
        rest = tuple(a for a in legal if a.to_json()["type"] == "scout_show")
        return Menu(items, rest)
    return Menu(tuple(legal))


def parse_command(text: str, menu: Menu, texts: Texts) -> Command:
    """What the human typed: a command, a menu number or a notation."""
    word = " ".join(text.strip().split())
    low = word.lower()
    if not word:
        return Invalid(texts("empty"))
    if low in COMMANDS["quit"]:
        return Quit()
    if low in COMMANDS["help"]:
        return Help()
    if low in COMMANDS["all"]:
        return ListAll()
    if low in COMMANDS["hint"]:
        return AskHint()
    if low in COMMANDS["next"]:
        return Page(1)
    if low in COMMANDS["previous"]:
        return Page(-1)
    if low.isdigit():
        n = int(low)
        if not 1 <= n <= len(menu.items):
            return Invalid(texts("no_item", n=n, m=len(menu.items)))
        return Choice(menu.items[n - 1])
    return Notation(word)
