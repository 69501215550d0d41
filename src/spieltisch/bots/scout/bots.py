"""The three built-in Scout levels.

* :class:`EasyBot` shows the largest set it can, otherwise scouts a card where
  it fits, with some noise - sensible but beatable.
* :class:`MediumBot` scores every legal action one move ahead by the hand it
  leaves (sets kept, cards left, cards captured, tokens or chips given away)
  and plays the best; it flips its hand (S-5) by the same measure.
* :class:`HardBot` runs determinized Monte-Carlo search: it samples worlds
  consistent with its view (:mod:`.worlds`), plays each of the medium
  policy's best distinct candidates out to the end of the round with the
  medium policy for every seat and picks the candidate with the best mean
  score relative to the opponents (in the last round: winning the game).
* :class:`HardBotV2` (``hard@v2``) adds deliberate long-set scouts to the
  candidates and scores every round by the chance to win the game.
* :class:`HardBotV3` (``hard@v3``) plays v1's search with cheaper playouts,
  and :class:`HardBotV4` (``hard@v4``) v3's search over worlds weighted by
  the opponents' recorded actions (:mod:`.inference`); :class:`HardBotV8`
  (``hard@v8``) weights v7's search the same way; :class:`HardBotV9`
  (``hard@v9``) looks one decision of its own deeper in every playout;
  :class:`HardBotV10` (``hard@v10``) plays its own later moves in the
  playouts with tuned weights, and :class:`HardBotV11` (``hard@v11``) does so
  over v8's weighted worlds.

All decide from the seat's view only and draw every random choice from
``self.rng`` (seeded from the bot's seed and seat).
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence

from spieltisch.bots.base import Bot, Budget, View
from spieltisch.bots.scout import policy
from spieltisch.bots.scout.inference import RoundRecord, log_likelihood
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
        sig = _signature(pos.hand, pos.table, action)
        if sig not in seen:
            seen.add(sig)
            out.append(action)
            if len(out) == k:
                break
    return out


def _signature(
    hand: Sequence[int], table: Sequence[int], action: int
) -> tuple[tuple[int, ...], tuple[int, ...]]:
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


class HardBot(Bot):
    """Determinized Monte-Carlo search with medium playouts to the round end
    (version 1: ``hard``, ``hard@v1``).

    Budget: ``iterations`` playouts per decision (default
    :attr:`default_work`); an optional ``seconds`` wall-clock cap stops it
    earlier (machine-dependent). Round horizon: each sampled world is a
    standalone last-round position (``ScoutState.from_position``).
    """

    level = "hard"
    version = "v1"
    work_unit = "playouts"
    default_work = 200
    candidates = 6
    structure: Structure | None = None
    """How the sampled opponents' hands lean towards sets (None: uniform)."""

    def __init__(self, game: str, seat: int, seed: int, budget: Budget | None = None) -> None:
        super().__init__(game, seat, seed, budget)
        self.knowledge = Knowledge()

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
        """The actions the search compares: medium's best distinct ones."""
        return distinct_candidates(pos, ranked_actions(pos, legal), self.candidates)

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
            world = sample_world(pos, pool, self.rng, self.structure)
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
            scores[i].append(self._playout(w, pos))
            done.append(i)
            if len(done) >= limit or time.perf_counter() >= deadline:
                break
        if len(done) < len(live):
            for i in done:
                scores[i].pop()
        return len(done)

    def _playout(self, w: ScoutState, pos: Position) -> float:
        """Play the sampled round out with the medium policy; score relative."""
        return self._utility(policy.play_round(w, PLAYOUT_LIMIT, FLIP_ID, KEEP_ID), pos)

    def _utility(self, points: Sequence[int], pos: Position) -> float:
        return round_utility(points, pos)


def round_utility(points: Sequence[int], pos: Position) -> float:
    """v1's score of a played-out round: its own points against the others'
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


class HardBotV2(HardBot):
    """Version 2 (``hard@v2``): v1's search with wider candidates and
    a utility over the whole game.

    * Candidates: medium's :attr:`candidates` best distinct actions plus up to
      :attr:`scout_candidates` deliberate scouts - the scouts that make the
      longest set in hand (at least three cards), which medium's one-move
      score undervalues (a long set beats more and sheds many cards at once).
    * Utility: every round, not only the last, is scored by the chance to win
      the game (S-12) after it: the totals after the played-out round, the
      rounds still to come blurring the differences (:func:`game_utility`),
      plus v1's round score as a tie-breaker.
    """

    version = "v2"
    candidates = 6
    scout_candidates = 2

    def widths(self, players: int) -> tuple[int, int]:
        """How many of medium's best distinct moves and of the long-set
        scouts the search compares at a table of ``players``."""
        return self.candidates, self.scout_candidates

    def candidate_actions(self, pos: Position, legal: Sequence[int]) -> list[int]:
        ranked = ranked_actions(pos, legal)
        best, scouts = self.widths(pos.players)
        out = distinct_candidates(pos, ranked, best)
        if not pos.table or scouts <= 0:
            return out
        seen = {_signature(pos.hand, pos.table, a) for a in out}
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
            sig = _signature(pos.hand, pos.table, action)
            if sig in seen:
                continue
            seen.add(sig)
            out.append(action)
            added += 1
            if added == scouts:
                break
        return out

    def _utility(self, points: Sequence[int], pos: Position) -> float:
        return game_utility(points, pos)


class HardBotV5(HardBotV2):
    """Version 5 (``hard@v5``): v2's search at :attr:`default_work` playouts
    per decision instead of 200 - what fits 0.3 CPU s per decision on one core
    with the compiled build (``scripts/build-fast``): about 0.19 s at 4 players,
    0.13 s at 5 (docs/bots.md, "Versions"). The games are those of
    ``hard@v2:playouts=1000``.
    """

    version = "v5"
    default_work = 1000


class HardBotV6(HardBotV5):
    """Version 6 (``hard@v6``): v5 with wider candidates - medium's
    :attr:`candidates` best distinct actions and up to :attr:`scout_candidates`
    deliberate long-set scouts (v5: six and two); 1,000 playouts."""

    version = "v6"
    candidates = 10
    scout_candidates = 3


class HardBotV7(HardBotV5):
    """Version 7 (``hard@v7``): v6's wide candidates at a 5-player table,
    where they measured stronger than v5's (docs/bots.md, "Versions"), and
    v5's everywhere else, where they did not; 1,000 playouts. Its games are
    v6's with 5 players and v5's with 2-4."""

    version = "v7"

    def widths(self, players: int) -> tuple[int, int]:
        wide = HardBotV6 if players >= 5 else HardBotV5
        return wide.candidates, wide.scout_candidates


class HardBotV3(HardBot):
    """Version 3 (``hard@v3``): v1's search with a faster playout policy and a
    bigger budget for the same CPU time.

    The playouts play exactly v1's medium policy (the pruned scores of
    :func:`policy.score_actions`), but score each action incrementally
    (:func:`policy.fast_best_action`) - a scouted card or a shown set only
    changes the sets next to it - so a playout costs about half as much CPU,
    and the default budget is :attr:`default_work` playouts instead of 200 (the
    same CPU time per decision as v1 at 200, on one core).
    """

    version = "v3"
    default_work = 300

    def _playout(self, w: ScoutState, pos: Position) -> float:
        return self._utility(policy.play_round(w, PLAYOUT_LIMIT, FLIP_ID, KEEP_ID, fast=True), pos)


class WeightedWorlds(HardBot):
    """The search over sampled worlds weighted by what the opponents did this
    round (:mod:`.inference`), for hard@v4 and hard@v8.

    Every sampled world is rewound to each opponent's last :attr:`per_seat`
    decisions of this round and weighted by how likely the medium policy would
    have taken the recorded action there (a softmax of medium's scores at
    :attr:`temperature`, at least :attr:`floor` per decision). The search is
    the plain one with weighted means and a weighted pruning test (importance
    sampling: every world is played once per live candidate). The work is
    still counted in playouts; the weighting costs about one medium move per
    rewound decision and world.
    """

    per_seat = 3
    temperature = 0.7
    floor = 0.1

    def __init__(self, game: str, seat: int, seed: int, budget: Budget | None = None) -> None:
        super().__init__(game, seat, seed, budget)
        self.record: RoundRecord | None = None

    def choose(self, view: View, legal: Sequence[int]) -> int:
        self.record = None
        if len(legal) > 1 and view["phase"] == "play":
            self.record = RoundRecord.from_view(view, Position.from_view(view))
        return super().choose(view, legal)

    def _search(self, pos: Position, cands: list[int], deadline: float, limit: int) -> int:
        record = self.record
        if record is None or not any(seat != pos.seat for seat, _, _ in record.moves):
            return super()._search(pos, cands, deadline, limit)  # nothing to weight by
        pool = self.knowledge.unseen(pos)
        scores: list[list[float]] = [[] for _ in cands]
        weights: list[float] = []
        live = list(range(len(cands)))
        playouts = 0
        while playouts < limit and len(live) > 1:
            world = sample_world(pos, pool, self.rng, self.structure)
            weight = math.exp(
                log_likelihood(record, world.hands, pos.seat, self.per_seat, self.temperature, self.floor)
            )
            played = self._play_world(world, pos, cands, live, scores, limit - playouts, deadline)
            if played < len(live):
                break
            playouts += played
            weights.append(weight)
            if len(weights) >= 12 and len(weights) % 4 == 0:
                live = _weighted_prune(scores, weights, live)
        means = [_weighted_mean(x, weights) if x else -1e9 for x in scores]
        return max(live, key=lambda i: (means[i], -i))


class HardBotV4(WeightedWorlds, HardBotV3):
    """Version 4 (``hard@v4``): v3's search over worlds in which the opponents'
    hands are weighted by what they did this round (:class:`WeightedWorlds`:
    the last three decisions per opponent, temperature 0.7, floor 0.1). The
    smaller default budget pays for the weighting (about v3's CPU time per
    decision).
    """

    version = "v4"
    default_work = 220


class HardBotV8(WeightedWorlds, HardBotV7):
    """Version 8 (``hard@v8``): v7's search (candidates, whole-game utility,
    1,000 playouts) over worlds weighted by the opponents' decisions of this
    round (:class:`WeightedWorlds`), more gently than v4: the last two
    decisions per opponent, temperature 2, at least 0.3 per decision. Sharper
    weights leave a handful of worlds carrying nearly all the weight (v4's
    and a sharper screen's effective worlds, docs/bots.md), and a search over
    a handful of worlds plays worse than one over many unweighted ones."""

    version = "v8"
    per_seat = 2
    temperature = 2.0
    floor = 0.3


class HardBotV9(HardBotV7):
    """Version 9 (``hard@v9``): v7's candidates and utility, but each playout
    looks one decision of its own further: the world is played with the
    medium policy up to this seat's next turn of the round, and there each of
    the medium policy's :attr:`replies` best moves is played out, the best of
    them counting (perfect-information Monte-Carlo two moves deep: in the
    sampled world the later choice sees the sampled hands). A playout costs
    up to :attr:`replies` times as much, so the default budget is
    :attr:`default_work` playouts.
    """

    version = "v9"
    default_work = 400
    replies = 3

    def _playout(self, w: ScoutState, pos: Position) -> float:
        me = pos.seat
        turns = 0
        while not w.is_over() and turns < PLAYOUT_LIMIT:
            if w.phase == "flip":
                for s in w.to_move():
                    w.apply_id(s, FLIP_ID if policy.wants_flip(w.hands[s]) else KEEP_ID)
                continue
            s = w.current
            if s == me:
                break
            w.apply_id(s, policy.fast_best_action(w.hands[s], w.table, w.players, w.chips[s]))
            turns += 1
        left = PLAYOUT_LIMIT - turns
        if w.is_over() or left <= 0:
            return self._utility(policy.play_round(w, left, FLIP_ID, KEEP_ID, fast=True), pos)
        scored = policy.score_actions(w.hands[me], w.table, w.players, w.chips[me], full=False)
        scored.sort(key=lambda t: (-t[0], t[1]))
        best = -math.inf
        for _, action in scored[: self.replies]:
            c = w.clone()
            c.apply_id(me, action)
            best = max(best, self._utility(policy.play_round(c, left - 1, FLIP_ID, KEEP_ID, fast=True), pos))
        return best


class HardBotV10(HardBotV7):
    """Version 10 (``hard@v10``): v7's search whose playouts play this seat's
    own later moves with weights tuned for the table (:meth:`own_weights`:
    :data:`policy.TUNED_5P` with five players, which beat medium's against
    four medium players) instead of medium's, and which also compares the
    tuned policy's own choice; the opponents still play medium. Elsewhere
    (2-4 players) it plays v7's games. 1,000 playouts."""

    version = "v10"

    def own_weights(self, players: int) -> policy.Weights | None:
        """The weights of this seat's own later moves in the playouts (None: medium's)."""
        return policy.TUNED_5P if players >= 5 else None

    def candidate_actions(self, pos: Position, legal: Sequence[int]) -> list[int]:
        out = super().candidate_actions(pos, legal)
        weights = self.own_weights(pos.players)
        if weights is None:
            return out
        tuned = policy.fast_best_action(pos.hand, pos.table, pos.players, pos.chips[pos.seat], weights)
        seen = {_signature(pos.hand, pos.table, a) for a in out}
        if tuned in legal and _signature(pos.hand, pos.table, tuned) not in seen:
            out.append(tuned)
        return out

    def _playout(self, w: ScoutState, pos: Position) -> float:
        weights = self.own_weights(pos.players)
        if weights is None:
            return super()._playout(w, pos)
        points = policy.play_round(w, PLAYOUT_LIMIT, FLIP_ID, KEEP_ID, False, pos.seat, weights)
        return self._utility(points, pos)


class HardBotV11(WeightedWorlds, HardBotV10):
    """Version 11 (``hard@v11``): hard@v10's search (v7's candidates and the
    tuned policy's choice, its own later moves with the tuned weights) over
    hard@v8's gently weighted worlds (:class:`WeightedWorlds`: the last two
    decisions per opponent this round, temperature 2, at least 0.3 per
    decision): the two kinds of help together. 1,000 playouts."""

    version = "v11"
    per_seat = HardBotV8.per_seat
    temperature = HardBotV8.temperature
    floor = HardBotV8.floor


class HardBotV12(HardBotV7):
    """Version 12 (``hard@v12``): v7's search over worlds whose opponents'
    hands lean towards sets as medium players' real hands do
    (:class:`~.worlds.Structure`: six fillings per hand, one kept by weight
    ``exp(hand value)``), instead of uniform ones. 1,000 playouts."""

    version = "v12"
    structure = Structure()


def _weighted_mean(xs: Sequence[float], weights: Sequence[float]) -> float:
    """The mean of ``xs`` weighted by the first ``len(xs)`` weights."""
    w = weights[: len(xs)]
    return sum(a * b for a, b in zip(xs, w, strict=True)) / sum(w)


def _weighted_prune(scores: Sequence[list[float]], weights: Sequence[float], live: list[int]) -> list[int]:
    """:func:`_prune` with weighted worlds: the paired differences' weighted
    mean and variance, over the effective number of worlds."""
    means = {i: _weighted_mean(scores[i], weights) for i in live}
    leader = max(live, key=lambda i: (means[i], -i))
    total = sum(weights)
    effective = total * total / sum(w * w for w in weights)
    if effective < 4:
        return live
    keep = []
    for i in live:
        if i == leader:
            keep.append(i)
            continue
        d = [a - b for a, b in zip(scores[i], scores[leader], strict=True)]
        mean = sum(x * w for x, w in zip(d, weights, strict=True)) / total
        var = sum(w * (x - mean) ** 2 for x, w in zip(d, weights, strict=True)) / total
        if mean + 2.5 * math.sqrt(var / effective) >= 0:
            keep.append(i)
    return keep


ROUND_SPREAD = 6.0
"""Spread (standard deviation) of the difference of two players' round points
in Scout, for :func:`game_utility`."""


def game_utility(points: Sequence[int], pos: Position) -> float:
    """The chance to win the game after this round, ten points' worth, plus
    v1's round score: in the last round the win itself; before it, each
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
