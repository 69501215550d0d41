"""Waschbär-Schmaus cards and the round resolution (W-4, W-7 .. W-15); the rule options are
in :mod:`spieltisch.engine.schmaus.options`.

A card is its kind, a small int (``F1`` = 0 .. ``GUARDIAN`` = 11); hands are
multisets kept as count vectors of length 12.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final

from spieltisch.engine.core import InvalidActionError
from spieltisch.engine.schmaus.reasons import REASONS

# Tables as variable-length tuples: mypyc boxes a fixed-length tuple at every index.
IDS: Final[tuple[str, ...]] = (
    "F1", "F2", "F3", "F4", "F5", "X3", "X2", "X5", "HUNTER", "GARBAGE", "GROCER", "GUARDIAN",
)  # fmt: skip
KIND = {name: i for i, name in enumerate(IDS)}
# The kinds, as constants the compiled build inlines.
F1: Final = 0
F2: Final = 1
F3: Final = 2
F4: Final = 3
F5: Final = 4
X3: Final = 5
X2: Final = 6
X5: Final = 7
HUNTER: Final = 8
GARBAGE: Final = 9
GROCER: Final = 10
GUARDIAN: Final = 11
FOOD = range(0, 5)
EFFECTS = range(5, 12)
VALUE: Final[tuple[int, ...]] = (1, 2, 3, 4, 5, 0, 0, 0, 0, 0, 0, 0)
BASE: Final[tuple[int, ...]] = (0, 0, 0, 0, 0, 3, 3, 3, 0, 0, 0, 3)  # W-12
DECK = {"F1": 15, "F2": 12, "F3": 6, "F4": 4, "F5": 3, "X3": 2, "X2": 2, "X5": 2,
        "HUNTER": 2, "GARBAGE": 2, "GROCER": 2, "GUARDIAN": 2}  # fmt: skip
DECK_SIZE: Final = sum(DECK.values())

NAMES_EN = ("food 1", "berries", "nuts", "cookies", "grapes", "raccoon ×3 own",
            "raccoon ×2 all", "raccoon ×5 one", "hunter", "garbage truck", "angry grocer",
            "the guardian")  # fmt: skip
NAMES_DE = ("Futter 1", "Beeren", "Nüsse", "Kekse", "Weintrauben", "Waschbär ×3 selbst",
            "Waschbär ×2 alle", "Waschbär ×5 eine", "Jäger", "Müllabfuhr",
            "Wütender Obsthändler", "Die Wächterin")  # fmt: skip


def parse_card(text: object) -> int:
    if isinstance(text, str) and text.upper() in KIND:
        return KIND[text.upper()]
    raise InvalidActionError(f"unknown Waschbär-Schmaus card {text!r} (one of {', '.join(IDS)})")


def parse_cards(items: object) -> tuple[int, ...]:
    if not isinstance(items, list | tuple):
        raise InvalidActionError(f"expected a list of cards, got {items!r}")
    return tuple(sorted(parse_card(x) for x in items))


def texts(kinds: Sequence[int]) -> list[str]:
    return [IDS[k] for k in kinds]


def counts_to_list(counts: Sequence[int]) -> list[int]:
    return [k for k in range(12) for _ in range(counts[k])]


DECK_COUNTS: Final[tuple[int, ...]] = tuple(DECK[name] for name in IDS)
"""The counts of the default deck, by kind."""


# -- plays (W-4, W-5) -----------------------------------------------------------


def play_error(cards: Sequence[int]) -> str | None:
    """Why (a W-4 reason key) ``cards`` is no lay at all, or ``None``: three food cards (option A),
    two food and one effect (option B), or fewer food cards only (W-5 short hand)."""
    effects = sum(1 for k in cards if k >= 5)
    if len(cards) > 3:
        return "play_size"
    if effects > 1:
        return "two_effects"
    if len(cards) < 3 and effects:
        return "effect_alone"
    return None


def can_play_full(counts: Sequence[int]) -> bool:
    """Option A or B is possible with this hand (W-4)."""
    return can_lay_full(list(counts))


def can_lay_full(hand: list[int]) -> bool:
    """:func:`can_play_full` of a hand's count list (the state's: a C loop when compiled)."""
    food = hand[0] + hand[1] + hand[2] + hand[3] + hand[4]
    if food >= 3:
        return True
    return food == 2 and (
        hand[5] != 0 or hand[6] != 0 or hand[7] != 0 or hand[8] != 0 or hand[9] != 0 or hand[10] != 0
        or hand[11] != 0
    )  # fmt: skip


# -- round resolution (W-7 .. W-14) ---------------------------------------------


@dataclass(frozen=True)
class RoundResult:
    plays: tuple[tuple[int, ...], ...]
    targets: tuple[int | None, ...]
    x5: tuple[int | None, ...]
    guardian: bool
    hunter: bool
    zeroed: tuple[int, ...]
    effects: tuple[str, ...]
    individual: tuple[int, ...]
    pot: int
    awarded: tuple[int, ...]
    winners: tuple[int, ...]
    lowest: tuple[int, ...]

    def to_json(self) -> dict[str, Any]:
        return {
            "plays": [texts(p) for p in self.plays],
            "targets": list(self.targets),
            "x5": [None if k is None else IDS[k] for k in self.x5],
            "guardian": self.guardian,
            "hunter": self.hunter,
            "zeroed": list(self.zeroed),
            "effects": list(self.effects),
            "individual": list(self.individual),
            "pot": self.pot,
            "awarded": list(self.awarded),
            "winners": list(self.winners),
            "lowest": list(self.lowest),
        }


def choices_needed(plays: Sequence[Sequence[int]]) -> tuple[list[bool], list[bool]]:
    """Which seats pick a grocer target, and which a ×5 card, after the reveal."""
    guardian = hunter = False
    for p in plays:
        guardian = guardian or GUARDIAN in p
        hunter = hunter or HUNTER in p
    hunter = hunter and not guardian
    grocer = [not guardian and not hunter and GROCER in p for p in plays]
    x5 = [not hunter and X5 in p for p in plays]
    return grocer, x5


def resolve(
    plays: Sequence[Sequence[int]],
    targets: Sequence[int | None],
    x5: Sequence[int | None],
    hunter_draw: str = "everybody",
) -> RoundResult:
    """Score one round from the cards laid and the choices made after the reveal."""
    r = _resolution([tuple(p) for p in plays], list(targets), list(x5), hunter_draw, True)
    return RoundResult(
        plays=tuple(tuple(p) for p in plays),
        targets=tuple(targets),
        x5=tuple(x5),
        guardian=r.guardian,
        hunter=r.hunter,
        zeroed=tuple(r.zeroed),
        effects=tuple(r.effects),
        individual=tuple(r.individual),
        pot=r.pot,
        awarded=tuple(r.awarded),
        winners=tuple(r.winners),
        lowest=tuple(r.lowest),
    )


def round_record(
    plays: Sequence[Sequence[int]],
    targets: Sequence[int | None],
    x5: Sequence[int | None],
    hunter_draw: str = "everybody",
) -> dict[str, Any]:
    """``resolve(...).to_json()``, made directly (the state's round summary:
    no frozen dataclass on the way)."""
    r = _resolution([tuple(p) for p in plays], list(targets), list(x5), hunter_draw, True)
    return {
        "plays": [texts(p) for p in plays],
        "targets": list(targets),
        "x5": [None if k is None else IDS[k] for k in x5],
        "guardian": r.guardian,
        "hunter": r.hunter,
        "zeroed": r.zeroed,
        "effects": r.effects,
        "individual": r.individual,
        "pot": r.pot,
        "awarded": r.awarded,
        "winners": r.winners,
        "lowest": r.lowest,
    }


def _count_effects(plays: list[tuple[int, ...]]) -> tuple[bool, bool, bool, int, int]:
    """The effect cards laid in a round, in one pass over the cards: whether a guardian, a
    hunter and a grocer are among them, and how many garbage trucks and ×2 raccoons."""
    guardian = False
    hunter = False
    grocer = False
    garbage = 0
    doubling = 0
    for p in plays:
        for k in p:
            if k == GUARDIAN:
                guardian = True
            elif k == HUNTER:
                hunter = True
            elif k == GARBAGE:
                garbage += 1
            elif k == X2:
                doubling += 1
            elif k == GROCER:
                grocer = True
    return guardian, hunter, grocer, garbage, doubling


def score_round(
    plays: list[tuple[int, ...]],
    targets: list[int | None],
    x5: list[int | None],
    hunter_draw: str,
    totals: list[int],
) -> int:
    """Add every seat's share of the pot (W-14) to ``totals`` and return the seats
    that draw for being lowest (W-15) as a bit mask (bit ``s`` for seat ``s``):
    the arithmetic of :func:`resolve`, for the state, which needs nothing else at
    once (it makes the round summary only when it is read). One pass over the
    cards, then small ints and bit masks: no lists (a C loop when compiled)."""
    n = len(plays)
    guardian, hunter, grocer, garbage, doubling = _count_effects(plays)
    if hunter and not guardian:  # W-8: every score 0, so everybody ties for lowest (W-15)
        return 0 if hunter_draw == "nobody" else (1 << n) - 1
    zeroed = 0  # W-9: a bit per seat whose food is worth 0
    if guardian:  # W-7
        garbage = 0
    elif grocer:
        for seat in range(n):
            if GROCER in plays[seat]:
                target = targets[seat]
                assert target is not None
                zeroed |= 1 << target
    pot = 0
    best = low = 0
    winners = lows = 0  # bit masks of the seats with the best and the lowest score
    for seat in range(n):
        score = seat_score(plays[seat], (zeroed >> seat) & 1 != 0, x5[seat], doubling, garbage)
        pot += score
        bit = 1 << seat
        if seat == 0 or score > best:
            best, winners = score, bit
        elif score == best:
            winners |= bit
        if seat == 0 or score < low:
            low, lows = score, bit
        elif score == low:
            lows |= bit
    count = 0
    for seat in range(n):
        if (winners >> seat) & 1:
            count += 1
    share = pot // count  # W-14: the remainder is lost
    for seat in range(n):
        if (winners >> seat) & 1:
            totals[seat] = totals[seat] + share
    return lows


def seat_score(play: tuple[int, ...], zeroed: bool, chosen: int | None, doubling: int, garbage: int) -> int:
    """One seat's score of a round (W-11 .. W-13): its food with its own raccoon (``chosen``:
    the card a ×5 multiplies), ×2 for each of the ``doubling`` global raccoons, halved for each
    of the ``garbage`` trucks and rounded down once, plus the effect cards' base points; the
    food is worth 0 when ``zeroed`` (a grocer's target, W-9)."""
    food = 0
    base = 0
    times5 = times3 = False
    for k in play:
        food += VALUE[k]  # a food card is worth at least 1, an effect 0
        base += BASE[k]  # W-12
        if k == X5:
            times5 = True
        elif k == X3:
            times3 = True
    total = 0
    if food and not zeroed:
        if times5:
            assert chosen is not None
            total = food + 4 * VALUE[chosen]
        elif times3:
            total = 3 * food
        else:
            total = food
        total <<= doubling
    return (total >> garbage) + base  # W-13: rounded down once


class _Resolution:
    """What :func:`resolve` finds, in plain lists (see :class:`RoundResult`)."""

    def __init__(
        self,
        guardian: bool,
        hunter: bool,
        zeroed: list[int],
        effects: list[str],
        individual: list[int],
        pot: int,
        awarded: list[int],
        winners: list[int],
        lowest: list[int],
    ) -> None:
        self.guardian, self.hunter, self.zeroed, self.effects = guardian, hunter, zeroed, effects
        self.individual, self.pot, self.awarded = individual, pot, awarded
        self.winners, self.lowest = winners, lowest


def _resolution(
    plays: list[tuple[int, ...]],
    targets: list[int | None],
    x5: list[int | None],
    hunter_draw: str,
    explain: bool,
) -> _Resolution:
    """The round's arithmetic (W-7 .. W-15), and with ``explain`` the effects'
    texts. Once a round of every playout, so it counts the cards in one pass
    and then works on small ints only (no generators or sets: a C loop when
    compiled)."""
    n = len(plays)
    guardian, hunter_laid, _, garbage, doubling = _count_effects(plays)
    hunter = hunter_laid and not guardian  # W-7, W-8
    effects: list[str] = []
    if guardian and explain:
        effects.append("W-7 guardian: negative cards have no effect")
    zeroed = [False] * n
    individual = [0] * n
    if hunter:
        if explain:
            effects.append("W-8 hunter: the round is void")
    else:
        if guardian:
            garbage = 0
        else:
            for seat in range(n):
                if GROCER in plays[seat]:  # W-9
                    target = targets[seat]
                    assert target is not None
                    zeroed[target] = True
                    if explain:
                        effects.append(f"W-9 grocer of seat {seat}: food of seat {target} is worth 0")
            if garbage and explain:  # W-10
                effects.append(f"W-10 garbage ×{garbage}: food is worth 1/{2**garbage}")
        for seat in range(n):  # W-11: the individual raccoons, then the global ×2
            play = plays[seat]
            individual[seat] = seat_score(play, zeroed[seat], x5[seat], doubling, garbage)
            if explain and not zeroed[seat] and any(VALUE[k] for k in play):
                chosen = x5[seat]
                if X5 in play and chosen is not None:
                    effects.append(f"W-11 ×5 of seat {seat} on {IDS[chosen]}")
                elif X3 in play:
                    effects.append(f"W-11 ×3 of seat {seat}")
        if doubling and explain:
            effects.append(f"W-11 ×2 raccoon{'s' if doubling > 1 else ''}: food ×{2**doubling}")
    pot = 0  # W-14
    best = individual[0]
    low = individual[0]
    for score in individual:
        pot += score
        if score > best:
            best = score
        if score < low:
            low = score
    winners = [s for s in range(n) if individual[s] == best]
    share = pot // len(winners)
    awarded = [share if individual[s] == best else 0 for s in range(n)]
    lowest = [s for s in range(n) if individual[s] == low]  # W-15
    if hunter and hunter_draw == "nobody":
        lowest = []
    hit = [s for s in range(n) if zeroed[s]]
    return _Resolution(guardian, hunter, hit, effects, individual, pot, awarded, winners, lowest)


def check_choices(
    plays: Sequence[Sequence[int]], targets: Sequence[int | None], x5: Sequence[int | None]
) -> None:
    """Raise if a grocer target or ×5 card is impossible (W-9, W-11)."""
    grocer, times5 = choices_needed(plays)
    n = len(plays)
    for seat in range(n):
        t = targets[seat]
        if grocer[seat]:
            if t is None:
                raise REASONS("W-9", "grocer_without_target", seat=seat)
            if t == seat:
                raise REASONS("W-9", "grocer_own", seat=seat)
            if not 0 <= t < n:
                raise REASONS("W-9", "no_target", target=t)
        c = x5[seat]
        if times5[seat] and (c is None or c not in plays[seat] or c >= 5):
            chosen = "nothing" if c is None else IDS[c]
            raise REASONS("W-11", "x5_without_card", seat=seat, chosen=chosen)
