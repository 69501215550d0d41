"""Waschbär-Schmaus: state, phases, legal actions and views (rulings W-1 .. W-18)."""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar, Final, Self

from spieltisch.engine._mypyc import mypyc_attr
from spieltisch.engine.base import BaseState, shuffle
from spieltisch.engine.core import JSON, Action, IllegalActionError, OptionsError
from spieltisch.engine.schmaus import actions as A
from spieltisch.engine.schmaus.cards import (
    FOOD,
    GROCER,
    GUARDIAN,
    HUNTER,
    IDS,
    VALUE,
    X5,
    can_lay_full,
    check_choices,
    counts_to_list,
    parse_card,
    play_error,
    round_record,
    score_round,
    texts,
)
from spieltisch.engine.schmaus.hands import held, is_empty, lays_of
from spieltisch.engine.schmaus.options import deck_counts, normalize_options
from spieltisch.engine.schmaus.reasons import REASONS

PLAY: Final = "play"
TARGET: Final = "target"
DISCARD: Final = "discard"
OVER: Final = "game_over"
EMPTY_HAND_DRAW: Final = 2  # W-6
# The numbering of the actions module, as constants the compiled build reads directly.
PLAYS: Final = A.PLAYS
PLAY_ID: Final = A.PLAY_ID
TARGET_BASE: Final = A.TARGET_BASE
X5_BASE: Final = A.X5_BASE
DISCARD_BASE: Final = A.DISCARD_BASE


def _all_none(values: list[Any], n: int) -> bool:
    """Whether ``values`` is ``n`` times ``None`` (a round's lists as a new round starts)."""
    if len(values) != n:
        return False
    for v in values:  # noqa: SIM110 - a loop: no generator in pure Python
        if v is not None:
            return False
    return True


def _all_zero(values: Sequence[int], n: int) -> bool:
    """Whether ``values`` is ``n`` zeros (or ``False``s)."""
    if len(values) != n:
        return False
    for v in values:  # noqa: SIM110 - a loop: no generator in pure Python
        if v:
            return False
    return True


def _choosing(play: tuple[int, ...], target: int | None, x5: int | None) -> bool:
    """Whether a seat still has a choice to make after the reveal (W-9, W-11)."""
    for k in play:  # noqa: SIM110 - a loop: no generator in pure Python
        if (k == GROCER and target is None) or (k == X5 and x5 is None):
            return True
    return False


_MOVES: Final[list[tuple[int, int]]] = [(seat, a) for seat in range(5) for a in range(A.NUM_ACTIONS)]
"""Every ``history`` entry, made once: ``(seat, action id)`` at ``seat * NUM_ACTIONS + id``."""
NUM_ACTIONS: Final = A.NUM_ACTIONS
_SEATS: Final[list[tuple[int, ...]]] = [tuple([s for s in range(5) if (mask >> s) & 1]) for mask in range(32)]
"""The seats of every bit mask of seats (what :meth:`SchmausState.to_move` returns)."""

_DEFAULT_DECK: Final[list[int]] = counts_to_list(deck_counts({}))
"""The default deck, kind by kind (dealt from a copy)."""


class _Round:
    """A scored round, kept as it was played until somebody reads its summary
    (:attr:`SchmausState.results`): most rounds of a random playout are never read.
    It owns its lists; ``None`` stands for a list of ``None`` (targets, x5) or of
    zeros (draws), as most rounds have."""

    def __init__(
        self,
        plays: list[tuple[int, ...]],
        targets: list[int | None] | None,
        x5: list[int | None] | None,
        hunter_draw: str,
        number: int,
        short_draws: list[int] | None,
        empty_draws: list[int] | None,
        drawn: list[int],
        scores: list[int],
        discards: list[int] | None,
    ) -> None:
        self.plays, self.targets, self.x5, self.hunter_draw = plays, targets, x5, hunter_draw
        self.number, self.short_draws, self.empty_draws = number, short_draws, empty_draws
        self.drawn, self.scores, self.discards = drawn, scores, discards

    def with_discards(self, discards: list[int]) -> _Round:
        """This round with the hand-limit discards made after it (W-16)."""
        return _Round(
            self.plays, self.targets, self.x5, self.hunter_draw, self.number, self.short_draws,
            self.empty_draws, self.drawn, self.scores, discards,
        )  # fmt: skip

    def summary(self) -> dict[str, Any]:
        """The round's entry of ``results`` (W-7 .. W-16), every list its own."""
        n = len(self.plays)
        nones: list[int | None] = [None] * n
        targets = self.targets if self.targets is not None else nones
        x5 = self.x5 if self.x5 is not None else nones
        record = round_record(self.plays, targets, x5, self.hunter_draw)
        record["round"] = self.number
        short, empty, discards = self.short_draws, self.empty_draws, self.discards
        record["short_hand_draws"] = list(short) if short is not None else [0] * n
        record["empty_hand_draws"] = list(empty) if empty is not None else [0] * n
        record["drawn"] = list(self.drawn)
        record["hand_limit_discards"] = list(discards) if discards is not None else [0] * n
        record["scores"] = list(self.scores)
        return record


def reshuffle_rng(seed: int, number: int) -> random.Random:
    """W-17: the random source of reshuffle ``number`` (from 1) of the game dealt from ``seed``;
    the discards are shuffled with :func:`spieltisch.engine.base.shuffle` (a public name for
    learning code that replays the engine's games, :mod:`spieltisch.rl`)."""
    return random.Random(f"schmaus/{seed}/reshuffle/{number}")


@mypyc_attr(allow_interpreted_subclasses=True)  # e.g. spieltisch.rl.envs.chance's dealing states
class SchmausState(BaseState):
    """A Waschbär-Schmaus game in progress. Build one with :meth:`Schmaus.new_state`."""

    OVER: ClassVar[str] = OVER
    PHASES: ClassVar[tuple[str, ...]] = (PLAY, TARGET, DISCARD, OVER)
    PLAYERS_RULING: ClassVar[str] = "W-1"

    def __init__(self) -> None:
        self.players = 0
        self.seed = 0
        self.options: dict[str, Any] = {}
        # The options read every round, as typed attributes (see _use_options).
        self.draw_until_playable = True
        self.hand_limit = 12
        self.loser_draws = 2
        self.refill_to = 0
        self.hunter_draw = "everybody"
        self.rounds = 0
        self.round = 1
        self.phase = PLAY
        self.hands: list[list[int]] = []
        self.draw_pile: list[int] = []  # top is the last element
        self.discard: list[int] = []
        self.scores: list[int] = []
        self.plays: list[tuple[int, ...] | None] = []
        self.targets: list[int | None] = []
        self.x5: list[int | None] = []
        self.choosing: list[bool] = []
        self.must_discard: list[int] = []
        self.sealed_discards: list[list[int]] = []
        self.discard_before_play = False
        self.reshuffles = 0
        self.short_draws: list[int] = []
        self.empty_draws: list[int] = []
        self._summaries: list[dict[str, Any]] = []  # the rounds of results already read
        self._unread: list[_Round] = []  # the rounds after them
        self.history: list[tuple[int, int]] = []

    @property
    def results(self) -> list[dict[str, Any]]:
        """Every scored round's summary (W-7 .. W-16), made when first read."""
        if self._unread:
            summaries = self._summaries
            for r in self._unread:
                summaries.append(r.summary())
            self._unread = []
        return self._summaries

    @results.setter
    def results(self, results: list[dict[str, Any]]) -> None:
        self._summaries = results
        self._unread = []

    def _results(self) -> list[dict[str, Any]]:
        return self.results

    def _set_results(self, results: list[dict[str, Any]]) -> None:
        self.results = results

    def clone(self) -> Self:
        s = type(self).__new__(type(self))
        s.players, s.seed = self.players, self.seed
        s._use_options(self.options)  # options never change
        s.rounds, s.round, s.phase = self.rounds, self.round, self.phase
        s.hands = [h[:] for h in self.hands]
        s.draw_pile, s.discard, s.scores = self.draw_pile[:], self.discard[:], self.scores[:]
        s.plays, s.targets, s.x5 = self.plays[:], self.targets[:], self.x5[:]
        s.choosing, s.must_discard = self.choosing[:], self.must_discard[:]
        s.sealed_discards = [d[:] for d in self.sealed_discards]
        s.discard_before_play, s.reshuffles = self.discard_before_play, self.reshuffles
        s.short_draws, s.empty_draws = self.short_draws[:], self.empty_draws[:]
        s._summaries, s._unread = self._summaries[:], self._unread[:]
        s.history = self.history[:]
        self._copy_extras(s)
        return s

    # -- construction --------------------------------------------------------
    @classmethod
    def new(cls, players: int, seed: int, options: Mapping[str, Any] | None = None) -> Self:
        cls.check_players(players)
        s = cls()
        s.players, s.seed = players, seed
        s._use_options(normalize_options(options, players))
        deck = counts_to_list(deck_counts(s.options)) if s.options["deck"] else _DEFAULT_DECK[:]
        rng = random.Random(f"schmaus/{seed}/deal")
        shuffle(deck, rng)
        s.rounds = s._round_count(deck, rng)
        if s.options["rounds"] == "draw":  # W-2 variant: shuffle all 54 again
            shuffle(deck, rng)
        k = int(s.options["hand_size"])
        hands = s.hands = [[0] * 12 for _ in range(players)]
        for seat in range(players):  # W-3
            hand = hands[seat]
            for i in range(seat * k, (seat + 1) * k):
                c = deck[i]
                hand[c] = hand[c] + 1
        pile = deck[players * k :]
        pile.reverse()
        s.draw_pile = pile
        s.scores = [0] * players
        s._start_round()
        return s

    def _round_count(self, deck: list[int], rng: random.Random) -> int:
        rounds = self.options["rounds"]
        if rounds == "3x-players":  # W-2
            return 3 * self.players
        if rounds == "draw":  # W-2 variant: reveal until a food card shows
            first_food = next(c for c in deck if c < 5)
            return 3 * VALUE[first_food]
        return int(rounds)

    @classmethod
    def from_position(
        cls,
        players: int,
        hands: Sequence[Sequence[int]],
        draw_pile: Sequence[int],
        discard: Sequence[int],
        options: Mapping[str, Any] | None = None,
        scores: Sequence[int] | None = None,
        round: int = 1,
        rounds: int | None = None,
    ) -> Self:
        """A hand-made table at the start of a round, before W-5 is applied.
        ``draw_pile`` lists the top card first."""
        cls.check_players(players, hands)
        s = cls()
        s.players, s.seed = players, 0
        s._use_options(normalize_options(options))
        if rounds is None and s.options["rounds"] == "draw":
            raise OptionsError(
                "W-2: with the 'draw' round count the number of rounds is revealed from the "
                "deck before the deal, which a hand-made table does not have: give 'rounds'"
            )
        s.rounds = rounds if rounds is not None else s._round_count([], random.Random(0))
        for name, value in (("rounds", s.rounds), ("round", round)):
            if not isinstance(value, int) or isinstance(value, bool):
                raise OptionsError(f"{name!r} must be a whole number, not {value!r}")
        if s.rounds < 1:
            raise OptionsError(f"a game has at least one round, not {s.rounds}")
        if not 1 <= round <= s.rounds:
            raise OptionsError(f"round {round} is outside 1..{s.rounds}")
        s.round = round
        s.hands = [[0] * 12 for _ in range(players)]
        for seat, hand in enumerate(hands):
            for c in hand:
                s.hands[seat][c] += 1
        s.draw_pile = list(reversed(draw_pile))
        s.discard = list(discard)
        s.scores = list(scores) if scores is not None else [0] * players
        if len(s.scores) != players or not all(
            isinstance(x, int) and not isinstance(x, bool) for x in s.scores
        ):
            raise OptionsError("scores need one whole-number total per seat")
        s._start_round()
        return s

    def _use_options(self, options: dict[str, Any]) -> None:
        """Set the normalized rule options (and the typed copies the rounds read)."""
        self.options = options
        self.draw_until_playable = options["short_hand"] == "draw-until-playable"
        self.hand_limit = int(options["hand_limit"])
        self.loser_draws = int(options["loser_draws"])
        self.refill_to = int(options["refill_to"])
        self.hunter_draw = str(options["hunter_draw"])

    # -- flow ----------------------------------------------------------------
    def _draw(self, seat: int, count: int) -> int:
        """W-17: draw from the pile, reshuffling the discards when it runs out."""
        hand = self.hands[seat]
        drawn = 0
        while drawn < count:
            pile = self.draw_pile
            if not pile:
                if not self.discard:
                    break
                self.reshuffles += 1
                pile = self.draw_pile = self.discard
                self.discard = []
                shuffle(pile, reshuffle_rng(self.seed, self.reshuffles))
            c = pile.pop()
            hand[c] = hand[c] + 1
            drawn += 1
        return drawn

    def _start_round(self, limit_checked: bool = False) -> None:
        """A round's lists, and W-5 (``limit_checked``: no hand is over the limit).
        A list that is not as a round starts is made anew, never cleared: a scored
        round shares it (see :meth:`_score`). Most lists are still blank."""
        n = self.players
        if not _all_none(self.plays, n):
            self.plays = [None] * n
        if not _all_none(self.targets, n):
            self.targets = [None] * n
        if not _all_none(self.x5, n):
            self.x5 = [None] * n
        if not _all_zero(self.choosing, n):
            self.choosing = [False] * n
        if not _all_zero(self.must_discard, n):
            self.must_discard = [0] * n
        self._clear_sealed()
        self.phase = PLAY
        if not _all_zero(self.short_draws, n):
            self.short_draws = [0] * n
        if not _all_zero(self.empty_draws, n):
            self.empty_draws = [0] * n
        if self.draw_until_playable:
            hands = self.hands
            for seat in range(n):  # W-5, in seat order (W-17)
                hand = hands[seat]
                while not can_lay_full(hand) and self._draw(seat, 1):
                    short = self.short_draws
                    short[seat] = short[seat] + 1
                    limit_checked = False
            if limit_checked:  # nobody drew: nobody is over the limit (what _ask_discards would find)
                self.discard_before_play = True
            else:
                self._ask_discards(before_play=True)

    def _clear_sealed(self) -> None:
        """No discards sealed (``sealed_discards`` as a round starts)."""
        sealed = self.sealed_discards
        if len(sealed) != self.players:
            self.sealed_discards = [[] for _ in range(self.players)]
            return
        for d in sealed:
            if d:  # (empty but for a state read so; the discards reset them)
                self.sealed_discards = [[] for _ in range(self.players)]
                return

    def _ask_discards(self, before_play: bool) -> None:
        limit = self.hand_limit
        n = self.players
        hands = self.hands
        must: list[int] | None = None
        for seat in range(n):
            size = held(hands[seat])
            if size > limit:
                if must is None:
                    must = [0] * n
                must[seat] = size - limit
        if must is not None:
            self.must_discard = must
        elif not _all_zero(self.must_discard, n):
            self.must_discard = [0] * n
        self._clear_sealed()
        self.discard_before_play = before_play
        if must is not None:
            self.phase = DISCARD  # W-16
        elif not before_play:
            self._next_round()

    def _next_round(self) -> None:
        """The next round; no hand is over the limit (checked, or after the discards)."""
        self.round += 1
        self._start_round(limit_checked=True)

    def _reveal(self) -> None:
        """Every seat has laid: W-6, then the choices after the reveal (W-9, W-11) or the score."""
        n = self.players
        hands = self.hands
        for seat in range(n):  # W-6, seat order, before the reveal
            if is_empty(hands[seat]):
                self.empty_draws[seat] = self._draw(seat, EMPTY_HAND_DRAW)
        plays: list[tuple[int, ...]] = []
        guardian = hunter = choice = False
        for p in self.plays:  # is anybody to choose (W-9, W-11)? In most rounds nobody is.
            lay = p if p is not None else ()  # (every seat has laid: never None)
            plays.append(lay)
            for k in lay:
                if k == GUARDIAN:
                    guardian = True
                elif k == HUNTER:
                    hunter = True
                elif k in (GROCER, X5):
                    choice = True
        if choice and (guardian or not hunter):  # (a hunter not blocked: nobody chooses)
            targets, x5 = self.targets, self.x5
            choosing = [False] * n
            anybody = False
            for seat in range(n):  # as cards.choices_needed decides (no hunter counts here)
                lay = plays[seat]
                if GROCER in lay and not guardian:
                    if n == 2:
                        targets[seat] = 1 - seat  # W-9: the target is forced
                    if targets[seat] is None:
                        choosing[seat] = anybody = True
                elif X5 in lay:
                    food = {k for k in lay if k < 5}
                    if len(food) == 1:
                        x5[seat] = food.pop()  # only one possible card
                    if x5[seat] is None:
                        choosing[seat] = anybody = True
            self.choosing = choosing
            if anybody:
                self.phase = TARGET
                return
        elif not _all_zero(self.choosing, n):  # (all False already, but for a state read so)
            self.choosing = [False] * n
        self._score(plays)

    def _score(self, plays: list[tuple[int, ...]]) -> None:
        """Score the round (W-13 .. W-15) and keep it as a :class:`_Round`, which
        shares the round's lists that are not blank: :meth:`_start_round` makes new
        ones instead of clearing them."""
        n = self.players
        scores = self.scores
        lowest = score_round(plays, self.targets, self.x5, self.hunter_draw, scores)  # a bit a seat
        discard = self.discard
        for p in plays:  # W-15
            discard.extend(p)
        drawn = [0] * n
        loser_draws = self.loser_draws
        for seat in range(n):  # in seat order (W-17)
            if (lowest >> seat) & 1:
                drawn[seat] = self._draw(seat, loser_draws)
        refill = self.refill_to
        if refill:
            hands = self.hands
            for seat in range(n):
                missing = refill - held(hands[seat])
                drawn[seat] = drawn[seat] + self._draw(seat, missing if missing > 0 else 0)
        # The round keeps the lists that are not blank; the state keeps them too until
        # the next round starts (shown in its JSON meanwhile), which makes new ones.
        targets = self.targets if not _all_none(self.targets, n) else None
        x5 = self.x5 if not _all_none(self.x5, n) else None
        short = self.short_draws if not _all_zero(self.short_draws, n) else None
        empty = self.empty_draws if not _all_zero(self.empty_draws, n) else None
        self._unread.append(
            _Round(plays, targets, x5, self.hunter_draw, self.round, short, empty, drawn, scores[:], None)
        )
        self.plays = [None] * n
        if self.round >= self.rounds:
            self.phase = OVER  # W-18
        else:
            self._ask_discards(before_play=False)

    # -- whose decision ------------------------------------------------------
    def to_move(self) -> tuple[int, ...]:
        phase = self.phase
        n = self.players
        mask = 0
        if phase == PLAY:
            plays = self.plays
            for s in range(n):
                if plays[s] is None:
                    mask |= 1 << s
        elif phase == TARGET:
            choosing = self.choosing
            for s in range(n):
                if choosing[s]:
                    mask |= 1 << s
        elif phase == DISCARD:
            must = self.must_discard
            for s in range(n):
                if must[s]:
                    mask |= 1 << s
        return _SEATS[mask]

    def is_over(self) -> bool:
        return self.phase == OVER

    def final_scores(self) -> list[int]:
        return self.scores

    # -- legal actions -------------------------------------------------------
    def legal_action_ids(self, seat: int) -> list[int]:
        phase = self.phase
        if phase == PLAY:
            if self.plays[seat] is not None:
                return []
            return list(lays_of(self.hands[seat]))
        if phase == TARGET:
            if not self.choosing[seat]:
                return []
            play = self.plays[seat] or ()
            if self.targets[seat] is None and 10 in play:
                return [TARGET_BASE + t for t in range(self.players) if t != seat]
            return sorted({X5_BASE + k for k in play if k < 5})
        if phase == DISCARD:
            if not self.must_discard[seat]:
                return []
            hand = self.hands[seat]
            keep = self._must_keep_play(seat)
            return [
                DISCARD_BASE + k for k in range(12) if hand[k] and (not keep or self._keeps_play(hand, (k,)))
            ]
        return []

    def _must_keep_play(self, seat: int) -> bool:
        """W-5: a discard before laying keeps a legal play, when the hand has one."""
        return self.discard_before_play and can_lay_full(self.hands[seat])

    @staticmethod
    def _keeps_play(hand: Sequence[int], cards: Sequence[int]) -> bool:
        rest = list(hand)
        for k in cards:
            rest[k] -= 1
        return can_lay_full(rest)

    def check(self, seat: int, action: Action) -> None:
        act = A.parse(action)
        phase = self.phase
        if phase == OVER:
            raise REASONS("W-18", "game_over")
        if type(act) is A.Play:
            if phase != PLAY:
                raise REASONS("W-4", "not_laying_now")
            if self.plays[seat] is not None:
                raise REASONS("W-4", "already_laid")
            self._check_play(seat, act.cards)
        elif type(act) is A.Target:
            play = self.plays[seat] or ()
            if phase != TARGET or not self.choosing[seat] or 10 not in play:
                raise REASONS("W-9", "not_targeting_now")
            if self.targets[seat] is not None:
                raise REASONS("W-9", "target_done")
            if act.opponent == seat:
                raise REASONS("W-9", "target_own")
            if not 0 <= act.opponent < self.players:
                raise REASONS("W-9", "no_target", target=act.opponent)
        elif type(act) is A.Times5:
            play = self.plays[seat] or ()
            if phase != TARGET or not self.choosing[seat] or 7 not in play:
                raise REASONS("W-11", "not_x5_now")
            if act.card not in play or act.card not in FOOD:  # W-11: one of *your food* cards
                raise REASONS("W-11", "x5_not_laid", laid_cards=" ".join(texts(play)))
        else:
            assert type(act) is A.Discard
            if phase != DISCARD or not self.must_discard[seat]:
                raise REASONS("W-16", "not_discarding_now")
            need = self.must_discard[seat]
            if len(act.cards) > need:
                raise REASONS("W-16", "discard_too_many", need=need, chosen=len(act.cards))
            self._check_owns(seat, act.cards, "W-16")
            if self._must_keep_play(seat) and not self._keeps_play(self.hands[seat], act.cards):
                raise REASONS("W-5", "keep_a_play")

    def _check_owns(self, seat: int, cards: Sequence[int], rule: str) -> None:
        hand = self.hands[seat]
        for k in set(cards):
            if cards.count(k) > hand[k]:
                raise REASONS(rule, "not_held", held=hand[k], card=IDS[k], count=cards.count(k))

    def _check_play(self, seat: int, cards: tuple[int, ...]) -> None:
        error = play_error(cards)
        if error:
            raise REASONS("W-4", error)
        self._check_owns(seat, cards, "W-4")
        if PLAY_ID[cards] not in lays_of(self.hands[seat]):
            if can_lay_full(self.hands[seat]):
                raise REASONS("W-4", "lay_three")
            raise REASONS("W-5", "short_hand")

    def action_ids(self, action: Action) -> list[int]:
        act = A.parse(action)
        if type(act) is A.Discard:
            # Several cards at once = the single discards one after another.
            return [DISCARD_BASE + k for k in act.cards]
        return [A.action_id(act)]

    def _apply(self, seat: int, action_id: int) -> None:
        if action_id >= DISCARD_BASE:
            self._discard(seat, action_id - DISCARD_BASE)
            return
        self.history.append(_MOVES[seat * NUM_ACTIONS + action_id])
        plays = self.plays
        if action_id < TARGET_BASE:
            cards = PLAYS[action_id]
            hand = self.hands[seat]
            for k in cards:
                hand[k] = hand[k] - 1
            plays[seat] = cards
            for p in plays:
                if p is None:
                    return
            self._reveal()
            return
        if action_id < X5_BASE:
            self.targets[seat] = action_id - TARGET_BASE
        else:
            self.x5[seat] = action_id - X5_BASE
        choosing = self.choosing
        choosing[seat] = _choosing(plays[seat] or (), self.targets[seat], self.x5[seat])
        if _all_zero(choosing, self.players):
            self.phase = PLAY
            self._score([p if p is not None else () for p in plays])

    def _discard(self, seat: int, card: int) -> None:
        self.history.append(_MOVES[seat * NUM_ACTIONS + DISCARD_BASE + card])
        hand = self.hands[seat]
        hand[card] = hand[card] - 1
        self.sealed_discards[seat].append(card)
        must = self.must_discard
        must[seat] = must[seat] - 1
        if not _all_zero(must, self.players):
            return
        for cards in self.sealed_discards:  # W-16: revealed together, seat order
            self.discard.extend(cards)
        if not self.discard_before_play:
            counts = [len(d) for d in self.sealed_discards]
            if self._unread:
                self._unread[-1] = self._unread[-1].with_discards(counts)
            elif self._summaries:
                self._summaries[-1] = {**self._summaries[-1], "hand_limit_discards": counts}
        self.sealed_discards = [[] for _ in range(self.players)]
        if self.discard_before_play:
            self.phase = PLAY
        else:
            self._next_round()

    # -- information ---------------------------------------------------------
    def _view_options(self) -> dict[str, JSON]:
        return {"options": self.options}

    def _view_body(self, seat: int | None, over: bool, log: bool) -> dict[str, JSON]:
        n = self.players
        revealed = self.phase == TARGET
        committed: list[bool] = [False] * n
        if self.phase == PLAY:
            committed = [p is not None for p in self.plays]
        elif self.phase == TARGET:
            committed = [not c for c in self.choosing]
        elif self.phase == DISCARD:
            committed = [not m for m in self.must_discard]
        own_play = None
        if seat is not None and self.plays[seat] is not None and self.phase != OVER:
            own_play = texts(self.plays[seat] or ())
        return {
            "hand": texts(counts_to_list(self.hands[seat])) if seat is not None else None,
            "hands": [texts(counts_to_list(h)) for h in self.hands] if over else None,
            "hand_sizes": [sum(h) + len(d) for h, d in zip(self.hands, self.sealed_discards, strict=True)],
            "draw_pile_size": len(self.draw_pile),
            "discard": texts(self.discard),
            "scores": list(self.scores),
            "committed": committed,
            "my_play": own_play,
            "revealed": [texts(p or ()) for p in self.plays] if revealed else None,
            "choosing": list(self.choosing) if revealed else None,
            "must_discard": self.must_discard[seat] if seat is not None else None,
            "must_keep_play": self.discard_before_play if self.phase == DISCARD else None,
            "round_results": self.results,
        }

    def _state_json(self) -> dict[str, JSON]:
        return {
            "options": self.options,
            "rounds": self.rounds,
            "round": self.round,
            "phase": self.phase,
            "hands": [texts(counts_to_list(h)) for h in self.hands],
            "draw_pile": texts(list(reversed(self.draw_pile))),
            "discard": texts(self.discard),
            "scores": list(self.scores),
            "plays": [None if p is None else texts(p) for p in self.plays],
            "targets": list(self.targets),
            "x5": [None if k is None else IDS[k] for k in self.x5],
            "choosing": list(self.choosing),
            "must_discard": list(self.must_discard),
            "sealed_discards": [texts(d) for d in self.sealed_discards],
            "discard_before_play": self.discard_before_play,
            "reshuffles": self.reshuffles,
            "short_draws": list(self.short_draws),
            "empty_draws": list(self.empty_draws),
        }

    def _load_json(self, data: Mapping[str, JSON]) -> None:
        self._use_options(normalize_options(data["options"]))
        self.rounds = int(data["rounds"])
        self.round = int(data["round"])
        self.phase = str(data["phase"])
        self.hands = []
        for hand in data["hands"]:
            counts = [0] * 12
            for c in hand:
                counts[parse_card(c)] += 1
            self.hands.append(counts)
        self.draw_pile = [parse_card(c) for c in reversed(data["draw_pile"])]
        self.discard = [parse_card(c) for c in data["discard"]]
        self.scores = [int(x) for x in data["scores"]]
        self.plays = [None if p is None else tuple(sorted(map(parse_card, p))) for p in data["plays"]]
        self.targets = [None if t is None else int(t) for t in data["targets"]]
        self.x5 = [None if k is None else parse_card(k) for k in data["x5"]]
        self.choosing = [bool(c) for c in data["choosing"]]
        self.must_discard = [int(m) for m in data["must_discard"]]
        self.sealed_discards = [[parse_card(c) for c in d] for d in data["sealed_discards"]]
        self.discard_before_play = bool(data["discard_before_play"])
        self.reshuffles = int(data["reshuffles"])
        self.short_draws = [int(x) for x in data["short_draws"]]
        self.empty_draws = [int(x) for x in data["empty_draws"]]

    def _seat_lists(self) -> dict[str, Sequence[Any]]:
        return {
            "hands": self.hands,
            "plays": self.plays,
            "scores": self.scores,
            "targets": self.targets,
            "x5": self.x5,
            "choosing": self.choosing,
            "must_discard": self.must_discard,
            "sealed_discards": self.sealed_discards,
            "short_draws": self.short_draws,
            "empty_draws": self.empty_draws,
        }

    def _broken_rules(self) -> str | None:
        n = self.players
        if not 1 <= self.round <= self.rounds:
            return f"round {self.round} of {self.rounds} is impossible"
        if any(p is not None and p not in PLAY_ID for p in self.plays):
            return "a lay breaks W-4"
        if any(t is not None and not 0 <= t < n for t in self.targets):
            return "a grocer's target is not a seat"
        if any(m < 0 for m in self.must_discard):
            return "'must_discard' cannot be negative"
        counts = [0] * 12
        for c in self.card_locations():
            counts[c] += 1
        deck = deck_counts(self.options)
        extra = [IDS[k] for k in range(12) if counts[k] > deck[k]]
        if extra:
            return f"more {', '.join(extra)} cards than the deck holds"
        return None

    def _hand_texts(self, seat: int) -> list[str]:
        return texts(counts_to_list(self.hands[seat]))

    def _describe_more(self) -> str:
        return f"draw {len(self.draw_pile)} discard {len(self.discard)} scores {self.scores}"

    def game_options(self) -> dict[str, JSON]:
        return dict(self.options)

    def card_locations(self) -> list[int]:
        """Every card of the game, wherever it is (for conservation checks)."""
        cards = [c for h in self.hands for c in counts_to_list(h)]
        cards += self.draw_pile + self.discard
        cards += [c for p in self.plays if p is not None for c in p]
        cards += [c for d in self.sealed_discards for c in d]
        return sorted(cards)


def check_short_form(
    plays: Sequence[Sequence[int]], targets: Sequence[int | None], x5: Sequence[int | None]
) -> None:
    """Validate a round given only by the cards laid (scenario short form)."""
    for seat, p in enumerate(plays):
        error = play_error(sorted(p))
        if error:
            raise IllegalActionError("W-4", error, f"seat {{seat}}: {REASONS[error]}", {"seat": seat})
    check_choices(plays, targets, x5)
