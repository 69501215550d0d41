"""The three built-in Scout levels.

* :class:`EasyBot` shows the largest set it can, otherwise scouts a card where
  it fits, with some noise - sensible but beatable.
* :class:`MediumBot` scores every legal action one move ahead by the hand it
  leaves (sets kept, cards left, cards captured, tokens or chips given away)
  and plays the best; it flips its hand (S-5) by the same measure.
* :class:`HardBot` runs determinized Monte-Carlo search: it samples worlds
  consistent with its view (:mod:`.worlds`), plays each of its candidates
  (medium's best distinct actions plus deliberate long-set scouts) out to the
  end of the round with the medium policy for every seat and picks the
  candidate with the best mean chance to win the game. Its versions are
  configs (:class:`HardConfig`): :data:`HARD_V12` (``hard``, ``hard@v12``)
  samples structured worlds (:class:`~.worlds.Structure`), the baseline
  :data:`HARD_V7` (``hard@v7``) uniform ones.

All decide from the seat's view only and draw every random choice from
``self.rng`` (seeded from the bot's seed and seat).
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from dataclasses import dataclass

from spieltisch.bots.base import Bot, Budget, View
from spieltisch.bots.scout import policy
from spieltisch.bots.scout.worlds import FLIP_WORDS, Knowledge, Position, Structure, sample_world
from spieltisch.engine.scout import ScoutState
from spieltisch.engine.scout.actions import SCOUT_BASE, SHOW_BASE, SS_BASE, Scout, ScoutShow, Show, from_id
from spieltisch.engine.scout.cards import BOTTOM, TOP, beating_sets, card, set_key

FLIP_ID, KEEP_ID = 1, 0
H = policy.H
LONG_ROUND = 150
"""Turns after which a round looks like a cycle: single cards shown and scouted
back forever (nothing in S-10 ends that); the bots then play at random half
of the time."""
PLAYOUT_LIMIT = 150
"""Turns after which a playout stops and is scored as if the round ended."""


def round_length(view: View) -> int:
    """Turns played in this round (the log since the last flip decision, S-5)."""
    n = 0
    for entry in reversed(view["log"]):
        if entry["action"] in FLIP_WORDS:
            break
        n += 1
    return n


class EasyBot(Bot):
    """Largest set it can show, else a scouted card where it fits; 15% noise."""

    level = "easy"
    noise = 0.15

    def choose(self, view: View, legal: Sequence[int]) -> int:
        if len(legal) == 1:
            return legal[0]
        pos = Position.from_view(view)
        if pos.phase == "flip":
            return FLIP_ID if self.rng.random() < 0.5 else KEEP_ID
        allowed = set(legal)
        vals = [TOP[c] for c in pos.hand]
        key = set_key([TOP[c] for c in pos.table]) if pos.table else -1
        shows = beating_sets(vals, key)
        scouts = [a for a in legal if SCOUT_BASE <= a < SS_BASE]
        if self.rng.random() < self.noise:
            plain = [a for a in legal if a < SS_BASE]
            return plain[self.rng.randrange(len(plain))]
        if shows:
            s, n, _ = max(shows, key=lambda t: (t[1], t[2]))
            return SHOW_BASE + s * H + n - 1
        if scouts:
            return self._fitting_scout(vals, pos.table, allowed)
        return legal[self.rng.randrange(len(legal))]

    def _fitting_scout(self, vals: list[int], table: list[int], allowed: set[int]) -> int:
        options: list[int] = []
        for end in (0, 1):
            c = table[0] if end == 0 else table[-1]
            for turn in (0, 1):
                v = BOTTOM[c] if turn else TOP[c]
                for at in policy.fit_positions(vals, v):
                    touches = (at > 0 and abs(vals[at - 1] - v) <= 1) or (
                        at < len(vals) and abs(vals[at] - v) <= 1
                    )
                    a = SCOUT_BASE + (end * 2 + turn) * (H + 1) + at
                    if touches and a in allowed:
                        options.append(a)
        if not options:
            options = [a for a in allowed if SCOUT_BASE <= a < SS_BASE]
        options.sort()
        return options[self.rng.randrange(len(options))]


class MediumBot(Bot):
    """One move of lookahead over every legal action (see :mod:`policy`)."""

    level = "medium"

    def choose(self, view: View, legal: Sequence[int]) -> int:
        if len(legal) == 1:
            return legal[0]
        pos = Position.from_view(view)
        if pos.phase == "flip":
            return FLIP_ID if policy.wants_flip(pos.hand) else KEEP_ID
        if round_length(view) > LONG_ROUND and self.rng.random() < 0.5:
            return legal[self.rng.randrange(len(legal))]  # break a show/scout cycle
        ranked = ranked_actions(pos, legal)
        return ranked[0][1] if ranked else legal[self.rng.randrange(len(legal))]


def distinct_candidates(pos: Position, ranked: Sequence[tuple[float, int]], k: int) -> list[int]:
    """The ``k`` best actions that lead to different positions: actions that
    leave the same live numbers in hand and the same table are one candidate
    (a hand is never turned after the flip decision, S-5)."""
    out: list[int] = []
    seen: set[tuple[tuple[int, ...], tuple[int, ...]]] = set()
    for _, action in ranked:
        sig = signature(pos.hand, pos.table, action)
        if sig not in seen:
            seen.add(sig)
            out.append(action)
            if len(out) == k:
                break
    return out


def signature(
    hand: Sequence[int], table: Sequence[int], action: int
) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """The position ``action`` leads to: the live numbers left in hand and the table."""
    vals = [TOP[c] for c in hand]
    rest = list(table)
    act = from_id(action)
    scout = act.scout if isinstance(act, ScoutShow) else act if isinstance(act, Scout) else None
    show = act.show if isinstance(act, ScoutShow) else act if isinstance(act, Show) else None
    if scout is not None:
        c = rest.pop(0 if scout.end == "left" else -1)
        vals.insert(scout.insert, BOTTOM[c] if scout.turn else TOP[c])
    if show is not None:
        rest = [card(v, 0) for v in vals[show.start : show.start + show.count]]
        del vals[show.start : show.start + show.count]
    return tuple(vals), tuple(rest)


def ranked_actions(pos: Position, legal: Sequence[int]) -> list[tuple[float, int]]:
    """The legal actions with their medium scores, best first (ties: lower id)."""
    allowed = set(legal)
    me = pos.seat
    scored = policy.score_actions(pos.hand, pos.table, pos.players, pos.chips[me], full=True)
    scored = [(s, a) for s, a in scored if a in allowed]
    scored.sort(key=lambda t: (-t[0], t[1]))
    return scored


@dataclass(frozen=True)
class HardConfig:
    """A version of :class:`HardBot`: which candidates it compares and how it
    samples worlds."""

    version: str
    candidates: int = 6
    """How many of medium's best distinct actions the search compares."""
    scout_candidates: int = 2
    """How many deliberate long-set scouts it adds (see :meth:`HardBot.candidate_actions`)."""
    wide_from: int = 5
    """From this many players on, the wide widths below replace the two above
    (they measured stronger at 5 players, not at 2-4; docs/bots.md)."""
    wide_candidates: int = 10
    wide_scout_candidates: int = 3
    structure: Structure | None = None
    """How the sampled opponents' hands lean towards sets (None: uniform)."""

    def widths(self, players: int) -> tuple[int, int]:
        """How many of medium's best distinct moves and of the long-set scouts
        the search compares at a table of ``players``."""
        if players >= self.wide_from:
            return self.wide_candidates, self.wide_scout_candidates
        return self.candidates, self.scout_candidates


HARD_V7 = HardConfig("v7")
"""``hard@v7``, the baseline: worlds dealt uniformly from the unseen cards."""
HARD_V12 = HardConfig("v12", structure=Structure())
"""``hard@v12``, the default: worlds whose opponents' hands lean towards sets
as medium players' real hands do (:class:`~.worlds.Structure`: six fillings
per hand, one kept by weight ``exp(hand value)``)."""


class HardBot(Bot):
    """Determinized Monte-Carlo search with medium playouts to the round end.

    Candidates: medium's best distinct actions plus up to a few deliberate
    scouts - those that make the longest set in hand (at least three cards),
    which medium's one-move score undervalues (a long set beats more and
    sheds many cards at once); how many of each, :meth:`HardConfig.widths`.
    Every round is scored by the chance to win the game (S-12) after it
    (:func:`game_utility`). Budget: ``iterations`` playouts per decision
    (default :attr:`default_work`); an optional ``seconds`` wall-clock cap
    stops it earlier (machine-dependent). Round horizon: each sampled world is
    a standalone last-round position (``ScoutState.from_position``).
    """

    level = "hard"
    work_unit = "playouts"
    default_work = 1000
    """About 0.3 CPU s per decision on one core with the compiled build
    (``scripts/build-fast``): 0.19 s at 4 players, 0.13 s at 5."""

    def __init__(
        self, game: str, seat: int, seed: int, budget: Budget | None = None, config: HardConfig = HARD_V12
    ) -> None:
        super().__init__(game, seat, seed, budget)
        self.config = config
        self.knowledge = Knowledge()

    @property
    def version(self) -> str:
        """The kept version this bot plays (``v12``)."""
        return self.config.version

    def choose(self, view: View, legal: Sequence[int]) -> int:
        deadline = self.deadline()
        pos = Position.from_view(view)
        self.knowledge.update(view, pos)
        if len(legal) == 1:
            return legal[0]
        if pos.phase != "flip" and round_length(view) > LONG_ROUND and self.rng.random() < 0.5:
            return legal[self.rng.randrange(len(legal))]  # break a show/scout cycle
        if pos.phase == "flip":
            cands = [KEEP_ID, FLIP_ID] if not policy.wants_flip(pos.hand) else [FLIP_ID, KEEP_ID]
        else:
            cands = self.candidate_actions(pos, legal)
            if not cands:
                return legal[self.rng.randrange(len(legal))]
        if len(cands) == 1:
            return cands[0]
        return cands[self._search(pos, cands, deadline, self.work)]

    def candidate_actions(self, pos: Position, legal: Sequence[int]) -> list[int]:
        """The actions the search compares (see the class docs)."""
        return search_candidates(pos, ranked_actions(pos, legal), *self.config.widths(pos.players))

    def sample_world(self, pos: Position) -> ScoutState:
        """One world consistent with the view this bot saw last (its
        :class:`~.worlds.Knowledge` of the unseen cards), sampled as its search does."""
        return sample_world(pos, self.knowledge.unseen(pos), self.rng, self.config.structure)

    def _search(self, pos: Position, cands: list[int], deadline: float, limit: int) -> int:
        """Index of the candidate with the best mean over sampled worlds.

        Every world is played out once per live candidate (common random
        numbers); a candidate whose paired difference to the leader is
        clearly negative (mean + 2.5 standard errors < 0) stops being played.
        """
        pool = self.knowledge.unseen(pos)
        scores: list[list[float]] = [[] for _ in cands]
        live = list(range(len(cands)))
        playouts = 0
        worlds = 0
        while playouts < limit and len(live) > 1:
            world = sample_world(pos, pool, self.rng, self.config.structure)
            played = self._play_world(world, pos, cands, live, scores, limit - playouts, deadline)
            if played < len(live):
                break
            playouts += played
            worlds += 1
            if worlds >= 12 and worlds % 4 == 0:
                live = _prune(scores, live, worlds)
        means = [sum(x) / len(x) if x else -1e9 for x in scores]
        return max(live, key=lambda i: (means[i], -i))

    def _play_world(
        self,
        world: ScoutState,
        pos: Position,
        cands: list[int],
        live: list[int],
        scores: list[list[float]],
        limit: int,
        deadline: float,
    ) -> int:
        """Play ``world`` out once after each live candidate, appending to
        ``scores``; returns how many were played. When the budget (``limit``
        playouts) or the deadline ends it early, this world's scores are taken
        back, so that the worlds stay aligned across the live candidates."""
        done = []
        for i in live:
            w = world.clone()
            w.apply_id(pos.seat, cands[i])
            scores[i].append(game_utility(policy.play_round(w, PLAYOUT_LIMIT, FLIP_ID, KEEP_ID), pos))
            done.append(i)
            if len(done) >= limit or time.perf_counter() >= deadline:
                break
        if len(done) < len(live):
            for i in done:
                scores[i].pop()
        return len(done)


def search_candidates(
    pos: Position, ranked: Sequence[tuple[float, int]], best: int, scouts: int
) -> list[int]:
    """Medium's ``best`` best actions that lead to different positions, then up to
    ``scouts`` scouts that build the longest set (three cards or more), each to a
    new position: what hard's search compares (and neural's network). ``ranked``:
    the legal actions with medium's scores, best first (:func:`ranked_actions`)."""
    out = distinct_candidates(pos, ranked, best)
    if not pos.table or scouts <= 0:
        return out
    seen = {signature(pos.hand, pos.table, a) for a in out}
    vals = [TOP[c] for c in pos.hand]
    longest: list[tuple[int, float, int]] = []
    for score, action in ranked:
        if not SCOUT_BASE <= action < SS_BASE:
            continue
        act = from_id(action)
        assert isinstance(act, Scout)
        c = pos.table[0] if act.end == "left" else pos.table[-1]
        v = BOTTOM[c] if act.turn else TOP[c]
        n = set_through([*vals[: act.insert], v, *vals[act.insert :]], act.insert)
        if n >= 3:
            longest.append((n, score, action))
    longest.sort(key=lambda t: (-t[0], -t[1], t[2]))
    added = 0
    for _, _, action in longest:
        sig = signature(pos.hand, pos.table, action)
        if sig in seen:
            continue
        seen.add(sig)
        out.append(action)
        added += 1
        if added == scouts:
            break
    return out


def play_out(world: ScoutState) -> list[int]:
    """The round of ``world`` played out by medium's policy for every seat,
    on the state itself (no random choice; :func:`policy.fast_best_action`,
    the same moves as the hard bots' playouts up to rounding): the round's
    points per seat (S-11). A round still going after :data:`PLAYOUT_LIMIT`
    turns is a show/scout cycle and is scored as the hands are."""
    return policy.play_round(world, PLAYOUT_LIMIT, FLIP_ID, KEEP_ID, fast=True)


def candidate_moves(pos: Position, legal: Sequence[int], k: int) -> list[int]:
    """Medium's ``k`` best legal moves that lead to different positions, best first."""
    return distinct_candidates(pos, ranked_actions(pos, legal), k)


def distinct_moves(pos: Position, actions: Sequence[int]) -> list[int]:
    """``actions`` without those that lead to the position of an earlier one
    (the same live numbers in hand and the same table)."""
    return distinct_candidates(pos, [(0.0, a) for a in actions], len(actions))


def round_utility(points: Sequence[int], pos: Position) -> float:
    """The score of a played-out round: this seat's points against the others'
    (in the last round: winning the game, then the margin)."""
    me = pos.seat
    others = [p for s, p in enumerate(points) if s != me]
    if pos.round >= pos.rounds:
        # The last round decides the game (S-12): winning counts, the margin a little.
        totals = [pos.scores[s] + points[s] for s in range(pos.players)]
        best_other = max(t for s, t in enumerate(totals) if s != me)
        margin = totals[me] - best_other
        return (1.0 if margin >= 0 else 0.0) * 10.0 + margin * 0.5
    return points[me] - 0.5 * (max(others) + sum(others) / len(others))


ROUND_SPREAD = 6.0
"""Spread (standard deviation) of the difference of two players' round points
in Scout, for :func:`game_utility`."""


def game_utility(points: Sequence[int], pos: Position) -> float:
    """The chance to win the game after this round, ten points' worth, plus
    the round score (:func:`round_utility`): in the last round the win itself; before it, each
    opponent's total is compared with this seat's, with the rounds still to
    come (``ROUND_SPREAD`` each, independent) blurring the difference."""
    if pos.round >= pos.rounds:
        return round_utility(points, pos)
    me = pos.seat
    left = pos.rounds - pos.round
    scale = ROUND_SPREAD * math.sqrt(2.0 * left)
    mine = pos.scores[me] + points[me]
    chance = 1.0
    for s in range(pos.players):
        if s != me:
            chance *= 0.5 * (1.0 + math.erf((mine - pos.scores[s] - points[s] + 0.5) / scale))
    return 10.0 * chance + round_utility(points, pos)


def set_through(vals: Sequence[int], at: int) -> int:
    """The length of the longest set (S-6: a match or a run, in hand order)
    that contains position ``at``."""
    best = 1
    for step in (0, 1, -1):
        lo = at
        while lo > 0 and vals[lo] - vals[lo - 1] == step:
            lo -= 1
        hi = at
        while hi + 1 < len(vals) and vals[hi + 1] - vals[hi] == step:
            hi += 1
        best = max(best, hi - lo + 1)
    return best


def _prune(scores: Sequence[list[float]], live: list[int], worlds: int) -> list[int]:
    """Drop the live candidates that are clearly worse than the leader."""
    means = {i: sum(scores[i][-worlds:]) / worlds for i in live}
    leader = max(live, key=lambda i: (means[i], -i))
    keep = []
    for i in live:
        if i == leader:
            keep.append(i)
            continue
        d = [a - b for a, b in zip(scores[i][-worlds:], scores[leader][-worlds:], strict=True)]
        mean = sum(d) / worlds
        var = sum((x - mean) ** 2 for x in d) / (worlds - 1)
        if mean + 2.5 * math.sqrt(var / worlds) >= 0:
            keep.append(i)
    return keep
