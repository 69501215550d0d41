"""Waschbär-Schmaus hard, version 3: sampled worlds weighted by what the
opponents revealed.

hard@v1 (:class:`~spieltisch.bots.schmaus.HardBot`) deals each opponent's
hand from the unseen cards so that, where it can, a medium player holding
the cards it kept beside its last lay would have chosen that lay again; when
none of its few tries fits, it keeps an unfitting deal at full weight.
hard@v3 deals the same way and then weights each sampled world by how likely
medium's decision rule makes every opponent's last lay (W-4, the lays
revealed in the last round result) given that world's hand before the lay:
a softmax over medium's expected gains (:meth:`OpponentModel.gain`) at
temperature :attr:`HardBotV3.temperature`, mixed with
:attr:`HardBotV3.epsilon` of a uniform choice among the hand's legal lays
(nobody plays exactly like the model). A lay's value is the weighted mean
of its chance to win the game over the worlds, so worlds that agree with
what the opponents showed count more.

Only the seat's view is used (the round results and hand sizes everyone
sees). The budget is v1's: ``samples`` sampled worlds (default 64), counted
in work, so a decision depends only on the seed and the view.

Measured against v1 on the same deals (docs/bots.md, "Waschbär-Schmaus
hard@v3"), it is not shown stronger, so ``hard`` stays hard@v1; v3 is kept
as a candidate.
"""

from __future__ import annotations

import math
import time
from collections.abc import Mapping, Sequence

from spieltisch.bots.base import View
from spieltisch.bots.schmaus import (
    HardBot,
    OpponentModel,
    Sample,
    legal_lays,
)


class HardBotV3(HardBot):
    """hard@v1's search with every sampled world weighted by the likelihood
    of the opponents' revealed last lays (version 3, ``hard@v3``)."""

    version = "v3"
    temperature = 1.5
    """Points of expected gain per factor e in the softmax over medium's lays."""
    epsilon = 0.1
    """Share of a uniformly random lay in the likelihood of an observed lay."""
    candidates = 1
    """Candidate worlds dealt per sample; with more than 1, the samples are
    drawn from them in proportion to their weights and count alike (1: every
    dealt world is a sample and counts by its weight)."""

    def likelihood(self, before: Sequence[int], lay: int, gain: Mapping[int, float]) -> float:
        """How likely a medium-like player holding ``before`` lays ``lay``:
        ``(1 - epsilon) * softmax(gain / temperature) + epsilon / |legal|``;
        0 when ``lay`` is not legal with ``before`` (W-4, W-5)."""
        options = legal_lays(tuple(before))
        if lay not in options:
            return 0.0
        top = max(gain[i] for i in options)
        weights = {i: math.exp((gain[i] - top) / self.temperature) for i in options}
        soft = weights[lay] / sum(weights.values())
        return (1.0 - self.epsilon) * soft + self.epsilon / len(options)

    def _search(
        self, view: View, lays: list[int], keep: list[Sample] | None = None
    ) -> tuple[dict[int, float], OpponentModel]:
        """Every lay's weighted mean chance to win the game over the sampled
        hands (see the module docs), and the opponent model used."""
        deadline = self.deadline()
        search = self._prepare(view, lays)
        worlds: list[tuple[dict[int, list[int]], list[int], float]] = []
        rest = list(search.pool)
        wanted = self.work * max(1, self.candidates)
        while len(worlds) < wanted and (not worlds or time.perf_counter() < deadline):
            self.rng.shuffle(rest)
            dealt, before_lay = self._deal_kept(
                rest, search.sizes, search.history, search.last, search.medium, search.short
            )
            weight = 1.0
            for s, before in before_lay.items():
                weight *= self.likelihood(before, search.last[s], search.gain)
            worlds.append((dealt, list(rest), weight))
        if self.candidates > 1:
            worlds = self._resample(worlds, self.work)
        totals = dict.fromkeys(lays, 0.0)
        mass = 0.0
        for dealt, shuffled, weight in worlds:
            table = self._opponents_lays(search, dealt)
            if keep is not None:
                keep.append(Sample(dealt, list(table), shuffled))
            if weight <= 0.0:
                continue
            mass += weight
            self._score(view, search, table, lays, totals, weight)
        if mass > 0.0:
            totals = {lay: t / mass for lay, t in totals.items()}
        return totals, search.model

    def _resample(
        self, worlds: list[tuple[dict[int, list[int]], list[int], float]], count: int
    ) -> list[tuple[dict[int, list[int]], list[int], float]]:
        """``count`` of the candidate worlds, drawn in proportion to their
        weights (systematic resampling, one random offset), each then of
        weight 1; all of them unweighted when every weight is 0."""
        mass = sum(w for _, _, w in worlds)
        if mass <= 0.0:
            return [(d, r, 1.0) for d, r, _ in worlds[:count]]
        step = mass / count
        point = self.rng.random() * step
        out: list[tuple[dict[int, list[int]], list[int], float]] = []
        acc = 0.0
        for dealt, shuffled, weight in worlds:
            acc += weight
            while point < acc and len(out) < count:
                out.append((dealt, shuffled, 1.0))
                point += step
        return out
