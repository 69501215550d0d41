"""Scout: state, legal actions, rules and views (rulings S-1 .. S-16)."""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar, Final, Self

from spieltisch.engine._mypyc import mypyc_attr
from spieltisch.engine.base import BaseState, shuffle
from spieltisch.engine.core import JSON, Action, OptionsError
from spieltisch.engine.scout import actions as A
from spieltisch.engine.scout.cards import (
    ALL_CARDS,
    BOTTOM,
    TOP,
    TURNED,
    card,
    card_text,
    dashed,
    identity,
    parse_card,
    set_key,
)
from spieltisch.engine.scout.movegen import can_show, cards_key, play_ids
from spieltisch.engine.scout.options import DEALT as DEALT  # S-2 (public: learning code reads it here)
from spieltisch.engine.scout.options import NUMBERS, normalize_options
from spieltisch.engine.scout.options import TWO_PLAYER_CHIPS as TWO_PLAYER_CHIPS  # S-13
from spieltisch.engine.scout.reasons import REASONS

H: Final = A.MAX_HAND
SHOW_BASE: Final = A.SHOW_BASE
SCOUT_BASE: Final = A.SCOUT_BASE
SS_BASE: Final = A.SS_BASE
HH: Final = H * H

# S-2: removed cards, cards dealt to each player, rounds.
REMOVED: Final[dict[int, tuple[int, ...]]] = {
    2: (card(9, 10),),
    3: tuple(c for c in ALL_CARDS if BOTTOM[c] == 10),
    4: (card(9, 10),),
    5: (),
}
ROUNDS: Final = {2: 2, 3: 3, 4: 4, 5: 5}

FLIP: Final = "flip"
PLAY: Final = "play"
OVER: Final = "over"
HAND_EMPTY: Final = "hand_empty"
ALL_SCOUTED: Final = "all_scouted"
STUCK: Final = "stuck"


def _round_seed(seed: int, round_index: int) -> random.Random:
    # Every shuffle comes from an explicit seed (no global randomness).
    return random.Random(f"scout/{seed}/round/{round_index}")


def deck_cards(players: int, numbers: int = NUMBERS) -> list[int]:
    """S-1, S-2: the cards of a game (smaller number on top); ``numbers`` below 10 is the
    research option of :mod:`spieltisch.engine.scout.options` (no card removed then)."""
    if numbers == NUMBERS:
        return [c for c in ALL_CARDS if c not in REMOVED[players]]
    return [c for c in ALL_CARDS if BOTTOM[c] <= numbers]


def round_deck(players: int, seed: int, round_index: int, numbers: int = NUMBERS) -> list[int]:
    """S-1, S-2: the shuffled and turned deck of round ``round_index`` (from 0) of the game
    dealt from ``seed``, dealt in order from seat 0 (a public name for learning code that
    replays the engine's games, :mod:`spieltisch.rl`). With two players round 1 is dealt from
    the cards round 0 set aside (S-16), not from this deck."""
    return _shuffled(deck_cards(players, numbers), _round_seed(seed, round_index))


def _shuffled(cards: Sequence[int], rng: random.Random) -> list[int]:
    """S-1: shuffling also randomises each card's orientation."""
    deck = list(cards)
    shuffle(deck, rng)
    return [TURNED[c] if rng.random() < 0.5 else c for c in deck]


@mypyc_attr(allow_interpreted_subclasses=True)  # e.g. spieltisch.rl.envs.chance's dealing states
class ScoutState(BaseState):
    """A Scout game in progress. Build one with :meth:`Scout.new_state`."""

    OVER: ClassVar[str] = OVER
    PHASES: ClassVar[tuple[str, ...]] = (FLIP, PLAY, OVER)
    PLAYERS_RULING: ClassVar[str] = "S-2"

    def __init__(self) -> None:
        self.players = 0
        self.seed = 0
        self.rounds = 0
        self.round = 0
        self.first_start = 0
        self.phase = FLIP
        self.hands: list[list[int]] = []
        self.known: list[list[bool]] = []
        self.pending: list[bool] = []
        self.table: list[int] = []
        self.table_key = -1
        self.owner: int | None = None
        self.current = 0
        self.chips: list[int] = []
        self.collected: list[int] = []
        self.tokens: list[int] = []
        self.totals: list[int] = []
        self.beaten: list[int] = []
        self.set_aside: list[int] = []
        self.results: list[dict[str, Any]] = []
        self.history: list[tuple[int, int]] = []
        self.dealt = True
        self.options: dict[str, Any] = {}
        """Research options (:mod:`spieltisch.engine.scout.options`); empty: the rules' game."""

    def clone(self) -> Self:
        s = type(self).__new__(type(self))
        s.players, s.seed, s.rounds, s.round = self.players, self.seed, self.rounds, self.round
        s.first_start, s.phase, s.dealt = self.first_start, self.phase, self.dealt
        s.hands = [h[:] for h in self.hands]
        s.known = [k[:] for k in self.known]
        s.pending = self.pending[:]
        s.table, s.table_key, s.owner, s.current = self.table[:], self.table_key, self.owner, self.current
        s.chips, s.collected, s.tokens = self.chips[:], self.collected[:], self.tokens[:]
        s.totals, s.beaten, s.set_aside = self.totals[:], self.beaten[:], self.set_aside[:]
        s.results, s.history = self.results[:], self.history[:]
        s.options = self.options  # never changes
        self._copy_extras(s)
        return s

    # -- construction --------------------------------------------------------
    @classmethod
    def new(cls, players: int, seed: int, options: Mapping[str, Any] | None = None) -> Self:
        cls.check_players(players)
        opts = normalize_options(options, players)
        s = cls()
        s.players, s.seed, s.options = players, seed, opts
        s.rounds = int(opts.get("rounds", ROUNDS[players]))
        s.totals = [0] * players
        s._deal(0)
        return s

    @classmethod
    def from_position(
        cls,
        players: int,
        hands: Sequence[Sequence[int]],
        table: Sequence[int] = (),
        owner: int | None = None,
        to_move: int = 0,
        phase: str = PLAY,
        chips: Sequence[int] | None = None,
        collected: Sequence[int] | None = None,
        tokens: Sequence[int] | None = None,
    ) -> Self:
        """A hand-made position, played as the last round of a game (so it
        stays visible after the round ends). Used by rule scenarios."""
        cls.check_players(players, hands)
        seen: set[int] = set()
        for c in [c for h in hands for c in h] + list(table):
            if identity(c) in seen:
                raise OptionsError(f"card {card_text(identity(c))} appears twice (S-1)")
            seen.add(identity(c))
        if any(len(h) > H for h in hands):
            raise OptionsError(f"a hand cannot hold more than {H} cards")
        if not 0 <= to_move < players:
            raise OptionsError(f"to_move must be a seat 0..{players - 1}")
        if table and (owner is None or not 0 <= owner < players):
            raise OptionsError("an active set needs an owner seat")
        if table and set_key([TOP[c] for c in table]) < 0:
            raise OptionsError("the table cards are neither a match nor a run (S-6)")
        if phase not in (PLAY, FLIP):
            raise OptionsError(f"phase must be 'play' or 'flip', not {phase!r}")
        if table and owner == to_move:
            raise OptionsError(
                "S-10: play never comes back to the owner of the active set while their cards "
                "lie on the table (the round would have ended); nobody scouts their own set (S-8)"
            )
        empty = [seat for seat, hand in enumerate(hands) if not hand]
        if empty:
            raise OptionsError(
                f"S-10, S-15: seat {empty[0]} has no cards, but the round ends with the show "
                "that empties a hand"
            )
        s = cls()
        s.players, s.seed, s.rounds, s.round, s.dealt = players, 0, 1, 0, False
        s.first_start = to_move
        s.hands = [list(h) for h in hands]
        s.known = [[False] * len(h) for h in hands]
        s.table = list(table)
        s.table_key = set_key([TOP[c] for c in table]) if table else -1
        s.owner = owner if table else None
        s.current = to_move
        s.phase = phase
        s.pending = [phase == FLIP] * players
        default_chips = TWO_PLAYER_CHIPS if players == 2 else 1
        s.chips = [int(c) for c in chips] if chips is not None else [default_chips] * players
        s.collected = list(collected) if collected is not None else [0] * players
        s.tokens = list(tokens) if tokens is not None else [0] * players
        s.totals = [0] * players
        for name, values in (("chips", s.chips), ("collected", s.collected), ("tokens", s.tokens)):
            if len(values) != players or any(v < 0 for v in values):
                raise OptionsError(f"{name} needs one non-negative value per seat")
        if phase == PLAY and s._stuck(to_move):
            raise OptionsError(
                f"S-15: seat {to_move} can neither show nor scout, so the round would already "
                "have ended (the owner of the active set losing nothing for their hand)"
            )
        return s

    def _deal(self, round_index: int) -> None:
        n = self.players
        self.round = round_index
        if n == 2 and round_index == 1:
            deck = self.set_aside  # S-16: round 2 uses the 22 set-aside cards
            self.set_aside = []
        else:
            deck = round_deck(n, self.seed, round_index, self.numbers())
            if n == 2:
                self.set_aside = deck[2 * self.hand_size() :]
                deck = deck[: 2 * self.hand_size()]
        k = self.hand_size()
        self.hands = [deck[i * k : (i + 1) * k] for i in range(n)]
        self.known = [[False] * k for _ in range(n)]
        if round_index == 0:
            self.first_start = self._first_player()
        self.current = (self.first_start + round_index) % n  # S-4
        self.table, self.table_key, self.owner = [], -1, None
        self.chips = [self.scout_chips() if n == 2 else 1] * n  # S-9, S-13, S-16
        self.collected = [0] * n
        self.tokens = [0] * n
        self.phase = FLIP
        self.pending = [True] * n  # S-5

    def numbers(self) -> int:
        """The highest card number (10; fewer with the ``numbers`` research option)."""
        return int(self.options.get("numbers", NUMBERS))

    def hand_size(self) -> int:
        """Cards dealt to each player (S-2, or the ``hand_size`` research option)."""
        return int(self.options.get("hand_size", DEALT[self.players]))

    def scout_chips(self) -> int:
        """Two players' scout chips per round (S-13, or the ``scout_chips`` research option)."""
        return int(self.options.get("scout_chips", TWO_PLAYER_CHIPS))

    def _first_player(self) -> int:
        """S-3: the holder of the 1/2 card, else (2 players) of the lowest card."""
        best: tuple[tuple[int, int], int] | None = None
        for seat, hand in enumerate(self.hands):
            for c in hand:
                lo, hi = sorted((TOP[c], BOTTOM[c]))
                if best is None or (lo, hi) < best[0]:
                    best = ((lo, hi), seat)
        assert best is not None
        return best[1]

    # -- whose decision ------------------------------------------------------
    def to_move(self) -> tuple[int, ...]:
        if self.phase == PLAY:
            return (self.current,)
        if self.phase == FLIP:
            return tuple(s for s in range(self.players) if self.pending[s])
        return ()

    def final_scores(self) -> list[int]:
        return self.totals

    # -- legal actions -------------------------------------------------------
    def legal_action_ids(self, seat: int) -> list[int]:
        if self.phase == PLAY:
            if seat != self.current:
                return []
        elif self.phase == FLIP:
            return [0, 1] if self.pending[seat] else []
        else:
            return []
        chips = self.chips[seat]
        if self.players == 2:  # S-13, S-14: scouting costs a chip; no scout & show
            return play_ids(self.hands[seat], TOP, BOTTOM, self.table, chips > 0, False)
        return play_ids(self.hands[seat], TOP, BOTTOM, self.table, True, chips > 0)

    def action_id(self, action: Action) -> int:
        """The id of ``action`` here: a scout from the right end of a one-card
        active set is the same action as from its left end, and has its id."""
        act = A.parse(action)
        if len(self.table) == 1:
            if type(act) is A.Scout and act.end == "right":
                act = A.Scout("left", act.turn, act.insert)
            elif type(act) is A.ScoutShow and act.scout.end == "right":
                act = A.ScoutShow(A.Scout("left", act.scout.turn, act.scout.insert), act.show)
        return A.action_id(act)

    def check(self, seat: int, action: Action) -> None:
        act = A.parse(action)
        if self.phase == OVER:
            raise REASONS("S-12", "game_over")
        if self.phase == FLIP:
            if type(act) is not A.Flip:
                raise REASONS("S-5", "flip_first")
            if not self.pending[seat]:
                raise REASONS("S-5", "flip_done")
            return
        if seat != self.current:
            raise REASONS("S-4", "not_your_turn", turn_seat=self.current, seat=seat)
        hand = self.hands[seat]
        if type(act) is A.Flip:
            raise REASONS("S-5", "flip_once")
        if type(act) is A.Show:
            self._check_show([TOP[c] for c in hand], act, self.table_key, self.table, "S-6")
            return
        if type(act) is A.Scout:
            self._check_scout(seat, act)
            return
        assert type(act) is A.ScoutShow
        if self.players == 2:
            raise REASONS("S-13", "no_scout_show_2p")
        if not self.chips[seat]:
            raise REASONS("S-9", "chip_used")
        self._check_scout(seat, act.scout)
        c = self.table[0] if act.scout.end == "left" else self.table[-1]
        reduced = self.table[1:] if act.scout.end == "left" else self.table[:-1]
        vals = [TOP[x] for x in hand]
        vals.insert(act.scout.insert, BOTTOM[c] if act.scout.turn else TOP[c])
        rkey = set_key([TOP[x] for x in reduced])
        self._check_show(vals, act.show, rkey, reduced, "S-9")

    def _check_scout(self, seat: int, act: A.Scout) -> None:
        if not self.table:
            raise REASONS("S-8", "no_active_set")
        if self.players == 2 and self.chips[seat] == 0:
            raise REASONS("S-14", "no_scout_chips")
        h = len(self.hands[seat])
        if not 0 <= act.insert <= h:
            raise REASONS("S-8", "insert_outside", insert=act.insert, size=h)
        if h + 1 > H:
            raise REASONS("S-8", "hand_full", limit=H)

    @staticmethod
    def _check_show(vals: list[int], act: A.Show, table_key: int, table: Sequence[int], rule: str) -> None:
        h = len(vals)
        if act.count < 1 or act.start < 0 or act.start + act.count > h:
            raise REASONS(rule, "not_in_hand", action=act.to_text(), last=h - 1)
        shown = vals[act.start : act.start + act.count]
        key = set_key(shown)
        if key < 0:
            raise REASONS("S-6", "not_a_set", shown=dashed(shown))
        if key <= table_key:
            raise REASONS("S-7", "not_beating", shown=dashed(shown), table=dashed([TOP[c] for c in table]))

    # -- applying ------------------------------------------------------------
    def _apply(self, seat: int, action_id: int) -> None:
        self.history.append((seat, action_id))
        if action_id < SHOW_BASE:
            self._flip(seat, bool(action_id))
        elif action_id < SCOUT_BASE:
            start, n = divmod(action_id - SHOW_BASE, H)
            self._show(seat, start, n + 1)
        elif action_id < SS_BASE:
            self._scout(seat, action_id - SCOUT_BASE)
            if self.players == 2:
                self.chips[seat] -= 1  # S-14: the scout moves again
                if not self._can_act(seat):
                    self._end_round(STUCK)
            else:
                self._pass_turn(seat)
        else:
            scout_index, show_index = divmod(action_id - SS_BASE, HH)
            self._scout(seat, scout_index)
            self.chips[seat] = 0
            start, n = divmod(show_index, H)
            self._show(seat, start, n + 1)

    def apply_id(self, seat: int, action_id: int) -> None:
        self._apply(seat, action_id)

    def _flip(self, seat: int, turn: bool) -> None:
        if turn:  # S-5: mirrored order, every card shows its other number
            self.hands[seat] = [TURNED[c] for c in reversed(self.hands[seat])]
            self.known[seat].reverse()
        self.pending[seat] = False
        if not any(self.pending):
            self.phase = PLAY
            if self._stuck(self.current):  # only in hand-made positions
                self._end_round(STUCK)  # S-15 (c)

    def _show(self, seat: int, start: int, n: int) -> None:
        hand = self.hands[seat]
        shown = hand[start : start + n]
        del hand[start : start + n]
        del self.known[seat][start : start + n]
        if self.table:  # S-6: the beaten set goes to the score pile
            self.collected[seat] += len(self.table)
            self.beaten.extend(self.table)
        self.table = shown
        self.table_key = cards_key(shown, TOP)
        self.owner = seat
        if not hand:
            self._end_round(HAND_EMPTY)  # S-10 (a), S-15 (a)
        else:
            self._pass_turn(seat)

    def _scout(self, seat: int, index: int) -> None:
        side_turn, at = divmod(index, H + 1)
        end, turn = divmod(side_turn, 2)
        c = self.table.pop(0 if end == 0 else -1)
        self.hands[seat].insert(at, TURNED[c] if turn else c)
        self.known[seat].insert(at, True)
        if self.players != 2:
            assert self.owner is not None
            self.tokens[self.owner] += 1  # S-8
        if self.table:
            self.table_key = cards_key(self.table, TOP)
        else:  # S-8, S-10: a set scouted empty has no owner
            self.table_key, self.owner = -1, None

    def _pass_turn(self, seat: int) -> None:
        nxt = (seat + 1) % self.players
        self.current = nxt
        if self.players == 2:
            if not self._can_act(nxt):
                self._end_round(STUCK)  # S-15 (c)
        elif self.owner == nxt and self.table:
            self._end_round(ALL_SCOUTED)  # S-10 (b)

    def _can_act(self, seat: int) -> bool:
        """S-15 (c), two players: the seat can show or scout."""
        if self.table and self.chips[seat] > 0:
            return True
        return can_show(self.hands[seat], TOP, self.table_key)

    def _stuck(self, seat: int) -> bool:
        """The seat to move has no legal action: the round ends by S-15 (c) with
        two players; with more it cannot happen (anyone may scout a set, S-8)."""
        if self.players == 2:
            return not self._can_act(seat)
        return not self.table and not self.hands[seat]  # impossible: S-10 (a) ends the round first

    def _end_round(self, ended_by: str) -> None:
        n = self.players
        exempt = self.owner if ended_by in (ALL_SCOUTED, STUCK) else None  # S-11, S-15
        bonus = self.chips if n == 2 else self.tokens  # S-16 / S-11
        points = [self.collected[s] + bonus[s] - (0 if s == exempt else len(self.hands[s])) for s in range(n)]
        for s in range(n):
            self.totals[s] += points[s]
        self.results.append(
            {
                "round": self.round + 1,
                "ended_by": ended_by,
                "points": points,
                "exempt": exempt,
                "collected": list(self.collected),
                "tokens": list(self.tokens),
                "chips": list(self.chips),
                "hand_sizes": [len(h) for h in self.hands],
                "hands": [[card_text(c) for c in h] for h in self.hands],
                "table": self._table_json(),
                "totals": list(self.totals),
            }
        )
        if self.round + 1 >= self.rounds:
            self.phase = OVER  # S-12
        else:
            self.beaten = []
            self._deal(self.round + 1)

    # -- information ---------------------------------------------------------
    def _table_json(self) -> dict[str, Any] | None:
        if not self.table:
            return None
        return {"owner": self.owner, "cards": [card_text(c) for c in self.table]}

    def round_number(self) -> int:
        return self.round + 1

    def _view_body(self, seat: int | None, over: bool, log: bool) -> dict[str, JSON]:
        n = self.players
        hands: list[list[str | None]] = []
        for s in range(n):
            if s == seat or over:
                hands.append([card_text(c) for c in self.hands[s]])
            else:  # S-11 sizes are public, and cards scouted openly stay known
                hands.append(
                    [card_text(c) if k else None for c, k in zip(self.hands[s], self.known[s], strict=True)]
                )
        text_of = A.text_of
        secret = SHOW_BASE if not over else 0  # S-5: others' flip decisions are secret
        entries = (
            [
                {"seat": who, "action": "decided" if a < secret and who != seat else text_of(a)}
                for who, a in self.history
            ]
            if log
            else None
        )
        results = []
        for r in self.results:
            public = {k: v for k, v in r.items() if k != "hands"}
            if over:
                public["hands"] = r["hands"]
            results.append(public)
        return {
            "hand": hands[seat] if seat is not None else None,
            "hands": hands,
            "hand_sizes": [len(h) for h in self.hands],
            "flip_decided": [not p for p in self.pending] if self.phase == FLIP else None,
            "table": self._table_json(),
            "chips": list(self.chips),
            "collected": list(self.collected),
            # S-6: beaten sets lie face down, but everybody saw them on the table.
            "captured_cards": [card_text(c) for c in self.beaten],
            "tokens": list(self.tokens),
            "scores": list(self.totals),
            "round_results": results,
            "log": entries,
        }

    def _state_json(self) -> dict[str, JSON]:
        return {
            "rounds": self.rounds,
            "round": self.round,
            "first_start": self.first_start,
            "phase": self.phase,
            "hands": [[card_text(c) for c in h] for h in self.hands],
            "known": [list(k) for k in self.known],
            "pending": list(self.pending),
            "table": [card_text(c) for c in self.table],
            "owner": self.owner,
            "current": self.current,
            "chips": list(self.chips),
            "collected": list(self.collected),
            "tokens": list(self.tokens),
            "totals": list(self.totals),
            "beaten": [card_text(c) for c in self.beaten],
            "set_aside": [card_text(c) for c in self.set_aside],
            "dealt": self.dealt,
            **({"options": dict(self.options)} if self.options else {}),
        }

    def _load_json(self, data: Mapping[str, JSON]) -> None:
        self.rounds = int(data["rounds"])
        self.round = int(data["round"])
        self.first_start = int(data["first_start"])
        self.phase = str(data["phase"])
        self.hands = [[parse_card(c) for c in h] for h in data["hands"]]
        self.known = [[bool(k) for k in ks] for ks in data["known"]]
        self.pending = [bool(p) for p in data["pending"]]
        self.table = [parse_card(c) for c in data["table"]]
        self.table_key = set_key([TOP[c] for c in self.table]) if self.table else -1
        self.owner = None if data["owner"] is None else int(data["owner"])
        self.current = int(data["current"])
        self.chips = [int(x) for x in data["chips"]]
        self.collected = [int(x) for x in data["collected"]]
        self.tokens = [int(x) for x in data["tokens"]]
        self.totals = [int(x) for x in data["totals"]]
        self.beaten = [parse_card(c) for c in data["beaten"]]
        self.set_aside = [parse_card(c) for c in data["set_aside"]]
        self.dealt = bool(data.get("dealt", True))
        options = data.get("options") or {}
        if not isinstance(options, Mapping):
            raise ValueError(f"'options' must be an object, not {options!r}")
        self.options = normalize_options(options, self.players)

    def _seat_lists(self) -> dict[str, Sequence[Any]]:
        return {
            "hands": self.hands,
            "known": self.known,
            "pending": self.pending,
            "chips": self.chips,
            "collected": self.collected,
            "tokens": self.tokens,
            "totals": self.totals,
        }

    def _broken_rules(self) -> str | None:
        n = self.players
        if any(len(h) != len(k) for h, k in zip(self.hands, self.known, strict=True)):
            return "'known' does not match the hands"
        if any(len(h) > H for h in self.hands):
            return f"a hand cannot hold more than {H} cards"
        if not 0 <= self.current < n or not 0 <= self.first_start < n:
            return "'current' and 'first_start' must be seats"
        if not 1 <= self.rounds <= (10 if self.options else 5) or not 0 <= self.round < self.rounds:
            return f"round {self.round} of {self.rounds} is impossible"
        owner = self.owner
        if bool(self.table) != (owner is not None) or (owner is not None and not 0 <= owner < n):
            return "an active set needs an owner seat, and only an active set has one"
        if self.table and self.table_key < 0:
            return "the table cards are neither a match nor a run (S-6)"
        if self.phase == PLAY and owner is not None and owner == self.current:
            return "the owner of the active set is to move (S-10 would have ended the round)"
        if self.phase == PLAY and self._stuck(self.current):
            return f"seat {self.current} is to move but can neither show nor scout (S-15 ends the round)"
        cards = self.card_locations()
        if len(set(cards)) != len(cards):
            return "a card is in two places (S-1)"
        if self.dealt and not set(cards) <= set(deck_cards(n, self.numbers())):
            return f"a card removed for {n} players (or above the 'numbers' option) is in play (S-2)"
        if any(c < 0 for c in self.chips + self.collected + self.tokens):
            return "chips, captured cards and tokens cannot be negative"
        return None

    def _results(self) -> list[dict[str, Any]]:
        return self.results

    def _set_results(self, results: list[dict[str, Any]]) -> None:
        self.results = results

    def _hand_texts(self, seat: int) -> list[str]:
        return [card_text(c) for c in self.hands[seat]]

    def _describe_more(self) -> str:
        table = " ".join(card_text(c) for c in self.table) or "-"
        return f"table [{table}] owner {self.owner} chips {self.chips} scores {self.totals}"

    def game_options(self) -> dict[str, JSON]:
        return dict(self.options)

    def _view_options(self) -> dict[str, JSON]:
        return {"options": dict(self.options)} if self.options else {}

    def card_locations(self) -> list[int]:
        """Every physical card of the game, wherever it is (for conservation checks)."""
        cards = [c for h in self.hands for c in h] + self.table + self.beaten + self.set_aside
        return sorted(identity(c) for c in cards)
