"""Play a whole game with one bot per seat: the loop the lab and tests share.

Every decision goes through the same path: the seat's view and its legal
action ids go to the bot; an answer that is not legal (or a bot that fails) is
counted as a fault and replaced by a random legal action.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from spieltisch.bots.base import Bot
from spieltisch.engine import State, get_game


@dataclass
class MatchResult:
    state: State
    faults: list[int] = field(default_factory=list)
    decisions: list[int] = field(default_factory=list)
    fault_messages: list[str] = field(default_factory=list)


class BotFault(Exception):
    """A bot broke the protocol (crash, timeout, bad answer)."""


def decide(bot: Bot, state: State, seat: int, fallback: random.Random) -> tuple[int, str | None]:
    """The bot's action id for ``seat``, or a random legal one and the fault's reason."""
    legal = state.legal_action_ids(seat)
    try:
        choice = bot.choose(state.view(seat), legal)
    except BotFault as exc:
        return legal[fallback.randrange(len(legal))], str(exc)
    if choice not in legal:
        return legal[fallback.randrange(len(legal))], f"illegal action id {choice!r}"
    return choice, None


def play_match(
    game: str,
    bots: Sequence[Bot],
    seed: int,
    options: Mapping[str, Any] | None = None,
) -> MatchResult:
    """Play one game to the end; bot ``i`` sits in seat ``i``."""
    state = get_game(game).new_state(len(bots), seed, options)
    result = MatchResult(state, [0] * len(bots), [0] * len(bots))
    fallback = random.Random(f"match/{seed}/fallback")
    while not state.is_over():
        for seat in state.to_move():
            if seat not in state.to_move():
                continue
            action, fault = decide(bots[seat], state, seat, fallback)
            if fault is not None:
                result.faults[seat] += 1
                result.fault_messages.append(f"seat {seat}: {fault}")
            state.apply_id(seat, action)
            result.decisions[seat] += 1
            if state.is_over():
                break
    outcome = state.outcome()
    for seat, bot in enumerate(bots):
        bot.game_over(outcome.to_json() if outcome else None, state.view(seat))
    return result
