"""hard@v8 (Waschbär-Schmaus): the opponents' hands dealt apart from what a
reshuffled draw pile holds (W-17)."""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import replace

from spieltisch.bots import Bot, Budget, make_bot
from spieltisch.bots.match import decide, play_match
from spieltisch.bots.schmaus import HARD_V5, HARD_V8, HardBot, HardConfig, unseen_counts
from spieltisch.bots.schmaus.pile import pile_source
from spieltisch.engine.schmaus.cards import KIND
from spieltisch.engine.schmaus.state import SchmausState


def _positions(seeds: range) -> Iterator[SchmausState]:
    """Every position of 4-player games of medium bots where seat 0 lays."""
    for seed in seeds:
        state = SchmausState.new(4, seed)
        bots = [make_bot("schmaus", "medium", s, seed) for s in range(4)]
        fallback = random.Random(seed)
        while not state.is_over():
            seat = state.to_move()[0]
            if seat == 0 and state.phase == "play":
                yield state
            state.apply_id(seat, decide(bots[seat], state, seat, fallback)[0])


def test_the_source_is_the_reshuffled_discards_and_holds_the_real_pile() -> None:
    """Before the first reshuffle there is none; after it, every card still in
    the real draw pile is one of the reshuffled discards that seat 0 cannot see."""
    before = after = 0
    for state in _positions(range(6)):
        view = state.view(0)
        source = pile_source(view)
        if not state.reshuffles:
            assert source is None
            before += 1
            continue
        assert source is not None
        unseen = unseen_counts(view)
        pile = [state.draw_pile.count(k) for k in range(12)]
        assert all(p <= min(s, u) for p, s, u in zip(pile, source, unseen, strict=True)), (pile, source)
        after += 1
    assert before and after


def test_a_position_without_its_history_has_no_source() -> None:
    """A table set up mid-game (its draws not in the record) cannot tell the
    pile: hard@v8 then plays as hard@v5 (with v8's share of random opponent lays)."""

    def cards(text: str) -> list[int]:
        return [KIND[c] for c in text.split()]

    hands = [cards("F5 F4 F3 F2 F1 F1 X3"), cards("F1 F1 F2 F2 GUARDIAN F3 F4")]
    hands += [cards("F1 F2 F2 F3 F1 X3 F1"), cards("F5 F5 F4 X2 F2 F1 F3")]
    state = SchmausState.from_position(4, hands, cards("F1 F1 F2 F3"), cards("F1 F2 HUNTER"), round=6)
    assert pile_source(state.view(0)) is None
    view, lays = state.view(0), state.legal_action_ids(0)
    v8 = HardBot("schmaus", 0, 3, config=HARD_V8).choose(view, lays)
    assert v8 == HardBot("schmaus", 0, 3, config=V5_LOW_NOISE).choose(view, lays)


V5_LOW_NOISE = replace(HARD_V5, noise=HARD_V8.noise)
"""hard@v5 with v8's share of random opponent lays."""


def _record(config: HardConfig, seed: int) -> list[tuple[int, str]]:
    bots: list[Bot] = [HardBot("schmaus", 0, seed, Budget(iterations=8), config)]
    bots += [make_bot("schmaus", "medium", s, seed) for s in range(1, 4)]
    return list(play_match("schmaus", bots, seed).state.record().actions)


def _actions_before_the_first_reshuffle(seed: int, actions: list[tuple[int, str]]) -> int:
    state = SchmausState.new(4, seed)
    for done, action in enumerate(actions):
        if state.reshuffles:
            return done
        state.apply(*action)
    return len(actions)


def test_plays_as_v5_with_its_noise_until_the_first_reshuffle_and_differs_after() -> None:
    """Before a reshuffle the record cannot tell the pile: the lays are
    hard@v5's (with v8's share of random opponent lays); after it they differ."""
    differs = False
    for seed in range(3):
        before, after = _record(V5_LOW_NOISE, seed), _record(HARD_V8, seed)
        same = _actions_before_the_first_reshuffle(seed, before)
        assert 0 < same < len(before)
        assert after[:same] == before[:same]
        differs = differs or after != before
    assert differs


def _twin_after_a_reshuffle() -> tuple[SchmausState, SchmausState]:
    """A real position after a reshuffle, and a copy where a card of seat 1's
    hand and a card of the draw pile (of another kind) are swapped: seat 0's
    view is the same."""
    for state in _positions(range(20)):
        if not state.reshuffles or not state.draw_pile:
            continue
        data = state.to_json()
        hand, pile = data["hands"][1], data["draw_pile"]
        for i, card in enumerate(hand):
            j = next((j for j, other in enumerate(pile) if other != card), None)
            if j is not None:
                hand[i], pile[j] = pile[j], card
                twin = SchmausState.from_json(data)
                assert twin.view(0) == state.view(0)
                assert twin.to_json() != state.to_json()
                return state, twin
    raise AssertionError("no position after a reshuffle")


def test_hidden_cards_do_not_change_the_lay_after_a_reshuffle() -> None:
    """W-3: the same view gives the same lay, for each of three seeds."""
    first, second = _twin_after_a_reshuffle()
    assert pile_source(first.view(0)) is not None
    for seed in range(3):
        a = HardBot("schmaus", 0, seed).choose(first.view(0), first.legal_action_ids(0))
        b = HardBot("schmaus", 0, seed).choose(second.view(0), second.legal_action_ids(0))
        assert a == b
