"""Scout's ``neural`` level: hard's candidates, chosen by a network taught by hard.

Medium scores every legal action one move ahead (:func:`~.bots.ranked_actions`).
The neural bot takes the candidates hard's search compares
(:func:`~.bots.search_candidates`: medium's best moves that lead to different
positions, and the scouts that build the longest sets) and lets a small network
(:mod:`spieltisch.bots.neural`) score each from :func:`candidates`' inputs: the
position (table size, hands, scores, chips, how far the game is) and what the
candidate does (its medium score and rank, what it shows or scouts, the set a
scout builds, what it captures, the hand it leaves). The network was trained to
pick what ``hard`` picks among the same candidates (``examples/train_neural.py``),
so it plays much of hard's judgement without its search. The hand-turn decision
(S-5) is medium's.
"""

from __future__ import annotations

from collections.abc import Sequence

from spieltisch.bots.base import Bot, Budget, View
from spieltisch.bots.neural import load, require
from spieltisch.bots.scout import policy
from spieltisch.bots.scout.bots import (
    FLIP_ID,
    HARD_V12,
    KEEP_ID,
    LONG_ROUND,
    ranked_actions,
    round_length,
    search_candidates,
    set_through,
    signature,
)
from spieltisch.bots.scout.worlds import Position
from spieltisch.engine.scout.actions import SCOUT_BASE, SS_BASE, Scout, from_id
from spieltisch.engine.scout.cards import BOTTOM, TOP, set_key

MEDIUM_INPUT = 17
"""The input that holds a candidate's medium score (the first after :func:`position_features`)."""


def position_features(pos: Position, view: View) -> list[float]:
    """What the network knows of the position, the same for every candidate."""
    me, n = pos.seat, pos.players
    others = [s for s in range(n) if s != me]
    sizes = [len(h) for h in pos.hands]
    live = [pos.collected[s] + pos.tokens[s] for s in range(n)]
    progress = (pos.round - 1) / max(1, pos.rounds - 1)
    return [
        *(1.0 if n == k else 0.0 for k in (2, 3, 4, 5)),
        progress,
        1.0 if pos.round == pos.rounds else 0.0,
        len(pos.hand) / 11,
        min(sizes[s] for s in others) / 11,
        sum(sizes[s] for s in others) / len(others) / 11,
        sizes[(me + 1) % n] / 11,
        len(pos.table) / 6,
        1.0 if pos.owner is not None and pos.owner == (me + 1) % n else 0.0,
        (pos.scores[me] - max(pos.scores[s] for s in others)) / 10,
        (pos.scores[me] - sum(pos.scores[s] for s in others) / len(others)) / 10,
        (live[me] - max(live[s] for s in others)) / 10,
        float(pos.chips[me]),
        min(round_length(view), 80) / 40,
    ]


def action_features(
    pos: Position, action: int, score: float, best: float, rank: int, medium: int
) -> list[float]:
    """What candidate ``action`` does (its medium ``score``, ``best`` the best one's;
    ``rank`` its place among the candidates, the first ``medium`` of which are medium's best)."""
    vals, table = signature(pos.hand, pos.table, action)
    show = action < SCOUT_BASE or action >= SS_BASE
    scout = action >= SCOUT_BASE
    shown = len(table) if show else 0
    key = set_key([TOP[c] for c in table]) if show and table else -1
    scouted = builds = 0.0
    if scout and not show:
        act = from_id(action)
        assert isinstance(act, Scout)
        c = pos.table[0] if act.end == "left" else pos.table[-1]
        v = BOTTOM[c] if act.turn else TOP[c]
        scouted = v / 10
        builds = set_through(vals, act.insert) / 6
    return [
        score / 5,
        (score - best) / 5,
        rank / 8,
        1.0 if rank >= medium else 0.0,
        builds,
        1.0 if show and not scout else 0.0,
        1.0 if scout and not show else 0.0,
        1.0 if scout and show else 0.0,
        shown / 6,
        (key % 16) / 10 if show else 0.0,
        policy.exposure(shown, key) if show else 0.0,
        len(pos.table) / 6 if show else 0.0,
        len(vals) / 11,
        policy.hand_value(vals) / 5,
        1.0 if show and not vals else 0.0,
        scouted,
    ]


def candidates(view: View, legal: Sequence[int]) -> tuple[list[int], list[list[float]]]:
    """The actions the network chooses among and one row of inputs per action."""
    pos = Position.from_view(view)
    ranked = ranked_actions(pos, legal)
    width, scouts = HARD_V12.widths(pos.players)
    chosen = search_candidates(pos, ranked, width, scouts)
    scores = {a: s for s, a in ranked}
    best = ranked[0][0] if ranked else 0.0
    base = position_features(pos, view)
    medium = min(width, len(chosen))
    rows = [base + action_features(pos, a, scores[a], best, i, medium) for i, a in enumerate(chosen)]
    return chosen, rows


def same_position(view: View, a: int, b: int) -> bool:
    """Whether actions ``a`` and ``b`` lead to the same position (one candidate)."""
    pos = Position.from_view(view)
    return signature(pos.hand, pos.table, a) == signature(pos.hand, pos.table, b)


class NeuralBot(Bot):
    """Hard's candidates, the best by the network (see the module docs)."""

    level = "neural"

    def __init__(self, game: str, seat: int, seed: int, budget: Budget | None = None) -> None:
        require()
        super().__init__(game, seat, seed, budget)

    def choose(self, view: View, legal: Sequence[int]) -> int:
        if len(legal) == 1:
            return legal[0]
        if view["phase"] == "flip":
            hand = Position.from_view(view).hand
            return FLIP_ID if policy.wants_flip(hand) else KEEP_ID
        if round_length(view) > LONG_ROUND and self.rng.random() < 0.5:
            return legal[self.rng.randrange(len(legal))]  # break a show/scout cycle, as medium does
        actions, rows = candidates(view, legal)
        if not actions:
            return legal[self.rng.randrange(len(legal))]
        if len(actions) == 1:
            return actions[0]
        scores = load("spieltisch.bots.scout").scores(rows)
        return actions[int(scores.argmax())]
