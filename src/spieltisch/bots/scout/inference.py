"""Opponents' hands weighted by what they did (hard@v4, hard@v8).

A sampled world deals the unseen cards at random. But the opponents did not
play at random: someone who scouted instead of beating the set probably could
not beat it. :class:`RoundRecord` reads this round's public record from the
seat's view (the log, the table, the captured cards, S-6 .. S-9); for a
sampled world, :func:`past_decisions` rewinds it - undoing the actions newest
first, every shown set put back where it came from, every scouted card back on
the table - to each opponent's hand and the table at their past decisions of
this round, and :func:`log_likelihood` scores how likely the medium policy
would have chosen the action actually taken there: a softmax of medium's
scores (:func:`policy.fast_best_score`, :func:`policy.action_score`) around
the best one, floored so that a player who does not play like medium never
makes a world impossible.

Only public information is used: the hidden cards come from the sampled
world, everything else from the view.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from spieltisch.bots.scout import policy
from spieltisch.bots.scout.worlds import FLIP_WORDS, Position
from spieltisch.engine.scout import parse_card
from spieltisch.engine.scout.actions import SCOUT_BASE, SHOW_BASE, SS_BASE, action_id, parse_text
from spieltisch.engine.scout.cards import TURNED

H = policy.H
HH = H * H


@dataclass(frozen=True)
class RoundRecord:
    """This round's public record, ready to be rewound in a sampled world."""

    moves: list[tuple[int, int, int]]
    """(seat, action id, table size before it), oldest first (no flip decisions)."""
    table: list[int]
    captured: list[int]
    """The cards beaten this round, in the order they went to the score piles (S-6)."""
    chips: list[int]
    players: int

    @classmethod
    def from_view(cls, view: Mapping[str, Any], pos: Position) -> RoundRecord | None:
        """The record of the round the view is in; ``None`` when it cannot be read
        consistently (then no world is weighted)."""
        entries: list[tuple[int, int]] = []
        for entry in reversed(view["log"]):
            if entry["action"] in FLIP_WORDS:
                break
            entries.append((int(entry["seat"]), action_id(parse_text(str(entry["action"])))))
        entries.reverse()
        moves: list[tuple[int, int, int]] = []
        size = 0
        for seat, a in entries:
            moves.append((seat, a, size))
            if a < SCOUT_BASE:
                size = (a - SHOW_BASE) % H + 1
            elif a < SS_BASE:
                size -= 1
            else:
                size = (a - SS_BASE) % HH % H + 1
            if size < 0:
                return None
        if size != len(pos.table):
            return None
        captured = [parse_card(t) for t in view.get("captured_cards", ())]
        return cls(moves, list(pos.table), captured, list(pos.chips), pos.players)


def past_decisions(
    record: RoundRecord, hands: Sequence[Sequence[int]], me: int, per_seat: int
) -> list[tuple[int, list[int], list[int], int, int]]:
    """The opponents' decisions of this round in the world dealt ``hands``
    (their hands now), newest first, at most ``per_seat`` for each:
    ``(seat, hand, table, chips, action id)`` as they were before the action."""
    hands_now = [list(h) for h in hands]
    table = list(record.table)
    captured = list(record.captured)
    chips = list(record.chips)
    two = record.players == 2
    count = [0] * record.players
    out: list[tuple[int, list[int], list[int], int, int]] = []
    for seat, a, size in reversed(record.moves):
        hand = hands_now[seat]
        if a < SCOUT_BASE:
            start, n = divmod(a - SHOW_BASE, H)
            if not _unshow(hand, table, captured, start, n + 1, size):
                break
            table = captured[len(captured) - size :] if size else []
            del captured[len(captured) - size :]
        else:
            if a >= SS_BASE:
                scout_index, show_index = divmod(a - SS_BASE, HH)
                start, n = divmod(show_index, H)
                if not _unshow(hand, table, captured, start, n + 1, size - 1):
                    break
                table = captured[len(captured) - (size - 1) :] if size > 1 else []
                del captured[len(captured) - (size - 1) :]
                chips[seat] = 1  # S-9: the chip was there before it was used
            else:
                scout_index = a - SCOUT_BASE
                if two:
                    chips[seat] += 1  # S-14: a 2-player scout spends a chip
            side_turn, at = divmod(scout_index, H + 1)
            end, turn = divmod(side_turn, 2)
            if not 0 <= at < len(hand):
                break
            c = hand.pop(at)
            c = TURNED[c] if turn else c
            table = [c, *table] if end == 0 else [*table, c]
        if seat != me and count[seat] < per_seat:
            count[seat] += 1
            out.append((seat, list(hand), list(table), chips[seat], a))
    return out


def _unshow(hand: list[int], table: list[int], captured: list[int], start: int, n: int, before: int) -> bool:
    """Put the shown set (the table) back into ``hand`` at ``start``; ``False``
    when the record does not fit (then the rewinding stops)."""
    if len(table) != n or not 0 <= start <= len(hand) or before > len(captured):
        return False
    hand[start:start] = table
    return True


def log_likelihood(
    record: RoundRecord,
    hands: Sequence[Sequence[int]],
    me: int,
    per_seat: int,
    temperature: float,
    floor: float,
) -> float:
    """How likely the medium policy, in the world dealt ``hands``, would have
    taken the opponents' recorded actions: per decision the softmax weight of
    the action taken relative to the best one, ``exp((score - best) /
    temperature)``, at least ``floor``; the sum of their logarithms."""
    total = 0.0
    low = math.log(floor)
    for _, hand, table, chips, a in past_decisions(record, hands, me, per_seat):
        best = policy.fast_best_score(hand, table, record.players, chips)
        score = policy.action_score(hand, table, record.players, chips, a)
        total += max(low, min(0.0, (score - best) / temperature))
    return total
