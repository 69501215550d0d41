"""Deals and draws as explicit chance events, one card at a time (docs/rl.md, "Chance").

The engine shuffles from a seed: every deal, draw and reshuffle of a game
follows from it. Search and game-theory code (OpenSpiel) wants the opposite:
a chance node per random card with its outcomes and probabilities. This module
gives the engine's own rules such chance events without changing them:

* :class:`ChanceScout` deals each round's hands card by card (S-1, S-2): an
  outcome is an oriented card (``top * 11 + bottom``), uniform over the cards
  not dealt yet, either way up (S-1: the shuffle randomises orientation).
* :class:`ChanceSchmaus` makes every card that enters a hand a chance event:
  the deal (W-3), short-hand draws (W-5), empty-hand draws (W-6), the lowest
  players' draws (W-15), the optional refill; an outcome is a card kind
  (0..11, ``F1`` .. ``GUARDIAN``) with probability ``count / pile size`` of the
  draw pile, so a reshuffle (W-17) needs no node of its own: it only turns the
  discards into the pile the next draws come from.

Both are the engine's state classes with the dealing step replaced; every rule
runs as in the engine. A state is driven by a :class:`ChanceQueue` of outcomes:
when a step needs more outcomes than the queue holds it raises
:class:`NeedChance` with the distribution of the next one, and the caller
(:mod:`spieltisch.rl.envs.openspiel`) replays the step from a copy once the outcome
is chosen. Without a queue (``chance=None``) the state shuffles exactly as the
engine does and records each card as the outcome it corresponds to, which is
how an engine game becomes a chance history (:func:`record_game`).

The order of cards nobody has seen is not part of a chance state: the draw
pile (and Scout's two-player set-aside cards, S-16) is kept sorted, and is
compared with the engine's as a multiset (:func:`comparable`).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Self

from spieltisch.engine import get_game
from spieltisch.engine.core import JSON
from spieltisch.engine.schmaus.cards import IDS as SCHMAUS_IDS
from spieltisch.engine.schmaus.cards import counts_to_list
from spieltisch.engine.schmaus.options import deck_counts
from spieltisch.engine.schmaus.state import SchmausState
from spieltisch.engine.scout.cards import TURNED, card_text, identity, parse_card
from spieltisch.engine.scout.state import ScoutState, deck_cards

Distribution = list[tuple[int, float]]

SCOUT_OUTCOMES = 121
"""Scout chance outcome ids are oriented cards ``top * 11 + bottom`` (< 121)."""
SCHMAUS_OUTCOMES = 12
"""Waschbär-Schmaus chance outcome ids are card kinds 0..11."""


class NeedChance(Exception):
    """The step needs one more chance outcome than the queue holds."""

    def __init__(self, distribution: Distribution) -> None:
        super().__init__(f"a chance outcome is needed ({len(distribution)} possible)")
        self.distribution = distribution


@dataclass
class ChanceQueue:
    """The chance outcomes of one step, in the order the rules need them."""

    outcomes: list[int] = field(default_factory=list)
    used: int = 0

    def take(self, distribution: Distribution) -> int:
        if self.used == len(self.outcomes):
            raise NeedChance(distribution)
        outcome = self.outcomes[self.used]
        if not any(o == outcome and p > 0 for o, p in distribution):
            raise ValueError(f"chance outcome {outcome} is impossible here")
        self.used += 1
        return outcome


def scout_distribution(remaining: Iterable[int]) -> Distribution:
    """The next dealt card: any card not dealt yet (physical ids), either way up."""
    cards = sorted(c for r in remaining for c in (r, TURNED[r]))
    p = 1.0 / len(cards)
    return [(c, p) for c in cards]


def schmaus_distribution(pile: Sequence[int]) -> Distribution:
    """The next drawn card: each kind with its share of the draw pile."""
    counts = Counter(pile)
    total = len(pile)
    return [(k, counts[k] / total) for k in sorted(counts)]


class _ChanceSource:
    """Where a state's random cards come from: ``chance`` (a queue of outcomes), or
    with ``chance=None`` the engine's own shuffles, each card also ``recorded``."""

    def __init__(self) -> None:
        super().__init__()
        self.chance: ChanceQueue | None = None
        self.recorded: list[int] = []


class ChanceScout(_ChanceSource, ScoutState):
    """Scout whose deals are chance events, card by card (S-1, S-2, S-16)."""

    @classmethod
    def dealt_by_chance(
        cls,
        players: int,
        chance: ChanceQueue,
        template: Self | None = None,
        options: Mapping[str, Any] | None = None,
    ) -> Self:
        """A new game whose first deal comes from ``chance`` (may raise :class:`NeedChance`);
        ``template``, any new game of ``players`` and these research ``options``
        (cloned), saves building one."""
        s = template.clone() if template is not None else cls.new(players, 0, options)
        s.recorded = []
        s.chance = chance
        s._chance_deal(0, deck_cards(players, s.numbers()))
        return s

    def _deal(self, round_index: int) -> None:
        if self.players == 2 and round_index == 1:
            pool = [identity(c) for c in self.set_aside]  # S-16: round 2 deals the set-aside cards
        else:
            pool = deck_cards(self.players, self.numbers())
        super()._deal(round_index)
        self._chance_deal(round_index, pool)

    def _chance_deal(self, round_index: int, pool: list[int]) -> None:
        """Replace the engine's seeded hands with chance cards (or record the engine's)."""
        n = self.players
        if self.chance is None:
            self.recorded.extend(c for hand in self.hands for c in hand)
            return
        remaining = sorted(pool)
        hands = []
        for _ in range(n):
            hand = []
            for _ in range(self.hand_size()):
                c = self.chance.take(scout_distribution(remaining))
                remaining.remove(identity(c))
                hand.append(c)
            hands.append(hand)
        self.hands = hands
        if n == 2 and round_index == 0:
            self.set_aside = remaining  # S-16: their order is decided when round 2 is dealt
        if round_index == 0:  # S-3 depends on the hands; S-4 then follows from it
            self.first_start = self._first_player()
            self.current = self.first_start


class ChanceSchmaus(_ChanceSource, SchmausState):
    """Waschbär-Schmaus whose every dealt or drawn card is a chance event (W-3, W-5, W-6, W-15, W-17)."""

    @classmethod
    def dealt_by_chance(
        cls,
        players: int,
        chance: ChanceQueue,
        options: Mapping[str, Any] | None = None,
        template: Self | None = None,
    ) -> Self:
        """A new game dealt card by card from ``chance`` (may raise :class:`NeedChance`);
        ``template``, any new game with these options (cloned), saves building one."""
        s = template.clone() if template is not None else cls.new(players, 0, options)
        if s.options["rounds"] == "draw":
            raise ValueError(
                "the chance model deals with a known number of rounds; the W-2 'draw' variant "
                "reveals it from the shuffled deck"
            )
        s.recorded = []
        s.chance = chance
        s.hands = [[0] * 12 for _ in range(players)]
        s.draw_pile = sorted(counts_to_list(deck_counts(s.options)))
        s.discard = []
        k = s.options["hand_size"]
        for seat in range(players):  # W-3: seat 0 takes the first k cards, and so on
            s._draw(seat, k)
        s._start_round()
        return s

    def _draw(self, seat: int, count: int) -> int:
        if self.chance is None:
            return self._engine_draw(seat, count)
        drawn = 0
        for _ in range(count):
            if not self.draw_pile:
                if not self.discard:
                    break  # W-17: both piles empty, the draw is skipped
                self.reshuffles += 1  # W-17: the discards become the pile; each draw from it is chance
                self.draw_pile, self.discard = sorted(self.discard), []
            card = self.chance.take(schmaus_distribution(self.draw_pile))
            self.draw_pile.remove(card)
            self.hands[seat][card] += 1
            drawn += 1
        return drawn

    def _engine_draw(self, seat: int, count: int) -> int:
        """The engine's draw, one card at a time, recording each card."""
        hand = self.hands[seat]
        drawn = 0
        for _ in range(count):
            before = hand[:]
            if not super()._draw(seat, 1):
                break
            self.recorded.append(next(k for k in range(12) if hand[k] != before[k]))
            drawn += 1
        return drawn


def outcome_text(game: str, outcome: int) -> str:
    """A chance outcome in the engine's card notation: ``deal 3/7`` or ``draw F2``."""
    if get_game(game).name == "scout":
        return f"deal {card_text(outcome)}"
    return f"draw {SCHMAUS_IDS[outcome]}"


@dataclass
class RecordedGame:
    """An engine game as chance events: the first deal's outcomes, then per engine
    action ``(seat, engine id)`` the outcomes it drew (see :func:`record_game`)."""

    deal: list[int]
    steps: list[tuple[int, int, list[int]]]


def record_game(
    game: str,
    players: int,
    seed: int,
    actions: Sequence[tuple[int, int]],
    options: Mapping[str, Any] | None = None,
) -> RecordedGame:
    """The chance outcomes behind an engine game (seed + ``(seat, engine id)`` log).

    Fed to a chance state (or the OpenSpiel game) with the same actions, they
    reach the engine's states (see :func:`comparable`). Sealed decisions must be
    logged in seat order, as the chance model takes them (turn-based, hidden).
    """
    name = get_game(game).name
    state: ChanceScout | ChanceSchmaus
    if name == "scout":
        state = ChanceScout.new(players, seed, options)
        deal = list(state.recorded)
    else:
        state = ChanceSchmaus.new(players, seed, options)
        short = list(state.recorded)  # W-5 draws of round 1 (seat order), after the deal
        dealt = [list(h) for h in state.hands]
        at = 0
        for seat in range(players):
            for _ in range(state.short_draws[seat]):
                dealt[seat][short[at]] -= 1
                at += 1
        deal = [c for h in dealt for c in counts_to_list(h)] + short
    steps = []
    for seat, engine_id in actions:
        first = state.to_move()[:1]
        if first != (seat,):
            raise ValueError(
                f"seat {seat} acts, but the chance model waits for seat {first[0] if first else '-'} "
                "(sealed decisions are taken in seat order)"
            )
        state.recorded = []
        state.apply_id(seat, engine_id)
        steps.append((seat, engine_id, list(state.recorded)))
    return RecordedGame(deal, steps)


def comparable(state: Any) -> dict[str, JSON]:
    """``state.to_json()`` without what a chance state leaves open: the seed and
    the order of unseen cards (draw pile, set-aside cards)."""
    data = dict(state.to_json())
    data.pop("seed")
    if data["game"] == "scout":
        data["set_aside"] = sorted(card_text(identity(parse_card(c))) for c in data["set_aside"])
    else:
        data["draw_pile"] = sorted(data["draw_pile"])
    return data
