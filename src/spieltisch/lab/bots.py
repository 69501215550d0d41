"""Bots as the lab builds them: every ``make_bot`` spec, plus ``avoid=CARD:SPEC``,
a Waschbär-Schmaus bot that may never lay one card kind (for card-impact
studies)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from spieltisch.bots import Bot, Budget, View, make_bot
from spieltisch.lab.config import avoided_card


class AvoidCardBot(Bot):
    """Wraps a bot and hides every lay containing ``card`` from it, whenever
    another legal action remains (a forced W-5 short lay is still played).

    Only lays (phase 1, W-4/W-5) are filtered; grocer targets, ×5 choices and
    W-16 discards are left alone. ``bites`` counts the decisions where the
    filter removed something, ``overrides`` the answers outside the filtered
    list (replaced by the first allowed action)."""

    level = "avoid"

    def __init__(self, inner: Bot, card: str) -> None:
        super().__init__(inner.game_name, inner.seat, inner.seed, inner.budget)
        from spieltisch.engine.schmaus.actions import PLAYS, TARGET_BASE
        from spieltisch.engine.schmaus.cards import KIND

        self.inner = inner
        self.card = card
        kind = KIND[card]
        self._banned = frozenset(i for i in range(TARGET_BASE) if kind in PLAYS[i])
        self.bites = 0
        self.overrides = 0

    def choose(self, view: View, legal: Sequence[int]) -> int:
        allowed = [a for a in legal if a not in self._banned]
        if not allowed or len(allowed) == len(legal):
            return self.inner.choose(view, legal)
        self.bites += 1
        choice = self.inner.choose(view, allowed)
        if choice not in allowed:
            self.overrides += 1
            return allowed[0]
        return choice

    def close(self) -> None:
        self.inner.close()

    @property
    def name(self) -> str:
        return f"avoid={self.card}:{self.inner.name}"

    def lab_stats(self) -> dict[str, Any]:
        return {"bites": self.bites, "overrides": self.overrides}


def make_lab_bot(
    game: str, spec: str, seat: int, seed: int, budget: Budget | None = None, timeout: float = 10.0
) -> Bot:
    """A bot from a lab seat spec (``make_bot`` specs and ``avoid=CARD:SPEC``)."""
    avoid = avoided_card(spec)
    if avoid is None:
        return make_bot(game, spec, seat, seed, budget, timeout)
    card, inner = avoid
    return AvoidCardBot(make_lab_bot(game, inner, seat, seed, budget, timeout), card)
