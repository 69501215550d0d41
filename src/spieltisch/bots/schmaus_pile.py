"""Waschbär-Schmaus hard, version 8: hard@v5 that knows what a reshuffled
draw pile holds.

When the draw pile runs out, the face-up discard pile becomes the new draw
pile (W-17). Its cards are public at that moment, so after a reshuffle the
cards this seat cannot see are no longer alike: the draw pile holds only
cards of the reshuffled discards, and every unseen card beyond those (the
cards the opponents held when it happened) must be in an opponent's hand.
hard@v1..v7 deal the opponents' hands from all unseen cards alike, so after
the first reshuffle (in round 4 or 5 of a 4-player game, again about every
four rounds) they mix the pile's strong played cards into the opponents'
weak kept ones.

hard@v8 (:class:`HardBotV8`) reconstructs the draw pile's history from the
public record (:func:`pile_source`: the deal, every W-5, W-6 and W-15 draw
in seat order, every lay to the discards), and in each sample first draws
the pile's remaining cards from the reshuffled discards still unseen, then
deals the opponents' hands (as hard@v5, fitted to their last lay and W-5
draws) from the unseen cards left. Cards drawn for being lowest or for a
short hand are worth the pile's mean keep value, and a sampled opponent
lays like medium in 95% of the samples (v5: 85%). Where the record cannot
say what the pile holds (before the first reshuffle, after a W-16 discard
of unknown cards before it, or when the record does not add up) it plays
as hard@v5 with that share.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from spieltisch.bots.base import View
from spieltisch.bots.schmaus import KEEP_VALUE, _Search, counts_of, short_draws, unseen_counts
from spieltisch.bots.schmaus_value import HardBotV5, _SearchV5
from spieltisch.engine.schmaus.options import deck_counts


def pile_source(view: View) -> list[int] | None:
    """The cards (a count vector) of the discard pile that last became the
    draw pile (W-17), or None before the first reshuffle or when the public
    record cannot tell: when unknown cards (W-16 discards) were among them,
    or when the reconstruction does not match the view's pile and discards.

    Draws happen in the rules' order: each round's W-5 short-hand draws in
    seat order, W-6 empty-hand draws in seat order, the lays to the discards,
    then the W-15 draws of the lowest (and any refill) in seat order."""
    options = view["options"]
    n = view["players"]
    pile = sum(deck_counts(options)) - n * int(options["hand_size"])
    discard = [0] * 12
    unknown = 0  # W-16 discards in the discard pile (their cards are not in the record)
    source: list[int] | None = None
    source_unknown = False

    def draw(count: int) -> None:
        nonlocal pile, discard, unknown, source, source_unknown
        for _ in range(count):
            if pile == 0:  # W-17: the discards become the draw pile
                source, source_unknown = discard, unknown > 0
                pile = sum(discard) + unknown
                discard, unknown = [0] * 12, 0
            pile -= 1

    for r in view["round_results"]:
        for s in range(n):
            draw(r["short_hand_draws"][s])
        for s in range(n):
            draw(r["empty_hand_draws"][s])
        for play in r["plays"]:
            for k, c in enumerate(counts_of(play)):
                discard[k] += c
        for s in range(n):
            draw(r["drawn"][s])
        unknown += sum(r["hand_limit_discards"])
    if view["phase"] == "play":
        for s in range(n):
            drew = short_draws(view, s)
            draw(drew or 0)
    if pile != view["draw_pile_size"] or source is None or source_unknown:
        return None
    if not unknown and discard != counts_of(view["discard"]) and view["phase"] == "play":
        return None
    return source


class HardBotV8(HardBotV5):
    """hard@v5 with the opponents' hands dealt apart from what a reshuffled
    draw pile holds (version 8, ``hard@v8``; see the module)."""

    version = "v8"
    noise = 0.05
    """Share of sampled opponent lays that are random instead of medium's
    (v5: 0.15). Given the real hand, v5's model of medium makes medium's lay
    in 96% of its lays; with the pile told apart, a lower share measured
    stronger (docs/bots.md)."""

    def _prepare(self, view: View, lays: list[int]) -> _Search:
        """hard@v5's search, with the pile's possible cards when a reshuffle
        tells them (kept for :meth:`_deal`, which the search calls next)."""
        search = super()._prepare(view, lays)
        self._pile: tuple[list[int], int] | None = None
        source = pile_source(view) if view["phase"] == "play" else None
        if source is None or not isinstance(search, _SearchV5):
            return search
        unseen = unseen_counts(view)
        pool = [min(a, b) for a, b in zip(source, unseen, strict=True)]
        size = int(view["draw_pile_size"])
        if sum(pool) < size:
            return search
        self._pile = ([k for k in range(12) for _ in range(pool[k])], size)
        if size:  # the cards drawn (W-5, W-15) at the pile's mean keep value
            avg = sum(KEEP_VALUE[k] * c for k, c in enumerate(pool)) / sum(pool)
            return replace(search, avg_keep=avg)
        return search

    def _deal(
        self,
        rest: Sequence[int],
        sizes: Mapping[int, int],
        history: Mapping[int, tuple[int, tuple[bool, ...]]],
        last: Mapping[int, int],
        medium: Any,
        short: Mapping[int, int | None],
    ) -> dict[int, list[int]]:
        """The opponents' hands of one sample: the draw pile's cards are first
        drawn from the reshuffled discards still unseen, and the hands are
        dealt (as hard@v5) from the unseen cards left, in ``rest``'s order."""
        if self._pile is not None:
            pool, size = self._pile
            self.rng.shuffle(pool)
            taken = [0] * 12
            for k in pool[:size]:
                taken[k] += 1
            left = []
            for c in rest:
                if taken[c]:
                    taken[c] -= 1
                else:
                    left.append(c)
            rest = left
        return super()._deal(rest, sizes, history, last, medium, short)
