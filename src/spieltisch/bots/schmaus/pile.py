"""What a reshuffled draw pile holds (W-17), from the public record.

When the draw pile runs out, the face-up discard pile becomes the new draw
pile. Its cards are public at that moment, so after a reshuffle the cards a
seat cannot see are no longer alike: the draw pile holds only cards of the
reshuffled discards, and every unseen card beyond those (the cards the
opponents held when it happened) must be in an opponent's hand. Waschbär-Schmaus
hard (from ``hard@v8``) deals its sampled opponents' hands apart from the
pile's cards (:class:`~.bots.HardConfig`).
"""

from __future__ import annotations

from spieltisch.bots.base import View
from spieltisch.bots.schmaus.model import counts_of, short_draws
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
