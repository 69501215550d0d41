"""The small Scout action space (docs/rl.md): exact, complete, no two ids for one action."""

from __future__ import annotations

import random

import pytest

pytest.importorskip("numpy")

from spieltisch.engine import InvalidActionError, get_game
from spieltisch.engine.scout import ScoutState
from spieltisch.rl.scout import actions as SA

SCOUT = get_game("scout")


def positions(players: int, games: int, seed: int) -> list[ScoutState]:
    """Every position (seat to move known) of a few seeded random games."""
    rng = random.Random(seed)
    out: list[ScoutState] = []
    for g in range(games):
        state = SCOUT.new_state(players, seed * 100 + g)
        while not state.is_over():
            seat = state.to_move()[0]
            out.append(state.clone())
            ids = state.legal_action_ids(seat)
            state.apply_id(seat, rng.choice(ids))
    return out


def table_size(state: ScoutState) -> int:
    table = state.view(None, log=False)["table"]
    return len(table["cards"]) if table else 0


def after(state: ScoutState, seat: int, engine_id: int) -> dict[str, object]:
    s = state.clone()
    s.apply_id(seat, engine_id)
    data = s.to_json()
    del data["history"]
    return data


def test_layout_is_a_few_thousand_ids() -> None:
    assert SA.NUM_ACTIONS == 1405
    assert SA.show_id(0, 1) == SA.SHOW_BASE and SA.show_id(44, 1) == SA.SCOUT_BASE - 1
    assert SA.decode(SA.SCOUT_SHOW_BASE - 1) == SA.Decoded("scout", end="right", turn=True, insert=45)


def test_every_id_decodes_and_its_notation_reads_back() -> None:
    seen = set()
    for rl_id in range(SA.NUM_ACTIONS):
        d = SA.decode(rl_id)
        seen.add(d)
        if d.kind == "scout_show":
            pair = SA.from_text(SA.to_text(rl_id).replace("…", "0"))
            assert pair[0] == rl_id
        else:
            assert SA.from_text(SA.to_text(rl_id)) == (rl_id,)
    assert len(seen) == SA.NUM_ACTIONS
    assert SA.from_text("scout R flip @3 show 1-2") == (SA.SCOUT_SHOW_BASE + 3 * 46 + 3, SA.show_id(1, 2))
    assert SA.to_text(SA.show_id(1, 2), pending=SA.SCOUT_SHOW_BASE + 3) == "scout L @3 show 1-2"


def test_bad_ids_are_refused_clearly() -> None:
    with pytest.raises(InvalidActionError, match=r"outside 0\.\.1404"):
        SA.decode(1405)
    with pytest.raises(InvalidActionError, match="not the scout half"):
        SA.to_text(SA.show_id(0, 1), pending=SA.KEEP)


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_every_engine_action_is_reachable_and_no_two_ids_mean_the_same(players: int) -> None:
    compared = 0
    for state in positions(players, 2, seed=players):
        seat = state.to_move()[0]
        engine_ids = state.legal_action_ids(seat)
        legal = SA.legal(engine_ids, table_size(state))
        mapped = list(legal.complete.values()) + [e for h in legal.halves.values() for e in h.values()]
        assert len(mapped) == len(set(mapped)), "two learning ids for one engine id"
        assert set(mapped) <= set(engine_ids)
        # Every engine id left out is the same action as a mapped one (a one-card set's other
        # end, or a scout & show that shows the scouted card alone from another insert position).
        missing = set(engine_ids) - set(mapped)
        if (missing or table_size(state) == 1) and compared < 12:
            compared += 1
            results = [repr(after(state, seat, e)) for e in mapped]
            assert len(results) == len(set(results)), "two learning ids lead to the same position"
            for e in missing:
                assert repr(after(state, seat, e)) in set(results)
        # A scout half is offered only with at least one show after it.
        assert all(legal.halves.values())
        for rl_id in legal.ids():
            assert legal.mask()[rl_id] == 1
        assert int(legal.mask().sum()) == len(legal.ids())
    assert compared > 0


def test_mask_is_the_same_whether_a_one_card_scout_is_listed_once_or_from_both_ends() -> None:
    """The engine lists a one-card set's scout once, from the left end (issue #9); the
    fixed numbering still has the right-end ids. Adding them back changes no learning id."""
    checked = 0
    for state in positions(4, 1, seed=11)[:150]:
        if table_size(state) != 1:
            continue
        seat = state.to_move()[0]
        engine_ids = state.legal_action_ids(seat)
        right = []
        for e in engine_ids:
            data = SCOUT.action_from_id(e).to_json()
            if data["type"] in ("scout", "scout_show"):
                assert data["end"] == "left", "a one-card set is scouted from one end only"
                right.append(SCOUT.action_id({**data, "end": "right"}))
        assert right and not set(right) & set(engine_ids)
        once = SA.legal(engine_ids, 1)
        both = SA.legal(engine_ids + right, 1)
        assert once.ids() == both.ids()
        assert {h: sorted(s) for h, s in once.halves.items()} == {
            h: sorted(s) for h, s in both.halves.items()
        }
        for rl_id in once.ids():
            if rl_id in once.complete:
                assert after(state, seat, once.complete[rl_id]) == after(state, seat, both.complete[rl_id])
        checked += 1
    assert checked > 0
