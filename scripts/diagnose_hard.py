"""Where does Scout's hard bot lose? Decision-level regret against an oracle.

    .venv/bin/python scripts/diagnose_hard.py --games 6 --bots hard@v3,hard@v3:playouts=3000,hard@v4

Plays ``--games`` seeded games of ``--source`` against 3x medium (4 players)
and keeps every ``--stride``-th decision of the source bot with more than one
legal action in the play phase: its view and the full state. For each kept
decision the *oracle* plays every legal action out once in the true world
(the real hands; the same medium playouts as hard@v3, which are
deterministic, so one playout is the exact value of an action if everybody
then plays medium) and scores it with v1's round utility.

For each bot spec (built fresh, seeded, shown only the view) it prints the
mean regret (oracle value of the best legal action minus that of the bot's
choice), how often it picked an oracle-best action, and for the candidate
list of v1/v3 the regret of the best candidate (what the candidates alone
lose). A bot that loses mostly to sampling gains with a bigger budget; one
that loses to hidden cards gains from weighting the worlds (hard@v4); one
that loses to its candidates cannot gain from either.
"""

from __future__ import annotations

import time
from typing import Annotated

import typer

from spieltisch.bots import make_bot
from spieltisch.bots.scout.bots import HardBotV3, distinct_candidates, ranked_actions
from spieltisch.bots.scout.worlds import Position
from spieltisch.engine import get_game
from spieltisch.engine.scout import ScoutState

app = typer.Typer(add_completion=False)


def oracle_values(state: ScoutState, seat: int, legal: list[int], pos: Position) -> dict[int, float]:
    judge = HardBotV3("scout", seat, 0)
    world = ScoutState.from_position(
        state.players,
        state.hands,
        table=state.table,
        owner=state.owner,
        to_move=seat,
        phase="play",
        chips=state.chips,
        collected=state.collected,
        tokens=state.tokens,
    )
    out = {}
    for a in legal:
        w = world.clone()
        w.apply_id(seat, a)
        out[a] = judge._playout(w, pos)
    return out


@app.command()
def main(
    games: Annotated[int, typer.Option(min=1)] = 6,
    first_seed: Annotated[int, typer.Option(min=0)] = 5000,
    stride: Annotated[int, typer.Option(min=1)] = 2,
    players: Annotated[int, typer.Option(min=3, max=5)] = 4,
    source: Annotated[str, typer.Option()] = "hard@v3",
    bots: Annotated[str, typer.Option(help="Comma-separated seat specs to judge.")] = "medium,hard@v3",
) -> None:
    specs = [b.strip() for b in bots.split(",") if b.strip()]
    kept: list[tuple[dict, list[int], ScoutState, int]] = []
    for g in range(games):
        seed = first_seed + g
        seat = g % players
        state = get_game("scout").new_state(players, seed)
        table = [make_bot("scout", source if s == seat else "medium", s, seed) for s in range(players)]
        n = 0
        while not state.is_over():
            for s in state.to_move():
                if s not in state.to_move():
                    continue
                view = state.view(s)
                legal = list(state.legal_action_ids(s))
                if s == seat and len(legal) > 1 and state.phase == "play":
                    n += 1
                    if n % stride == 0:
                        kept.append((view, legal, state.clone(), s))
                state.apply_id(s, table[s].choose(view, legal))
                if state.is_over():
                    break
    print(f"{len(kept)} decisions from {games} games (seeds {first_seed}..{first_seed + games - 1})")
    values = []
    for view, legal, state, seat in kept:
        pos = Position.from_view(view)
        values.append(oracle_values(state, seat, legal, pos))
    cand_regret = 0.0
    for (view, legal, _, _), vals in zip(kept, values, strict=True):
        pos = Position.from_view(view)
        cands = distinct_candidates(pos, ranked_actions(pos, legal), 6)
        cand_regret += max(vals.values()) - max(vals[a] for a in cands)
    print(f"six medium candidates: best candidate's regret {cand_regret / len(kept):.3f}")
    for spec in specs:
        regret = 0.0
        hits = 0
        cpu = 0.0
        for i, ((view, legal, _, seat), vals) in enumerate(zip(kept, values, strict=True)):
            bot = make_bot("scout", spec, seat, 90000 + i)
            t = time.process_time()
            a = bot.choose(view, legal)
            cpu += time.process_time() - t
            best = max(vals.values())
            regret += best - vals[a]
            hits += vals[a] >= best - 1e-9
        n = len(kept)
        print(
            f"{spec:32s} regret {regret / n:.3f}  oracle-best {hits}/{n} = {hits / n:.0%}  "
            f"{cpu / n:.3f} CPU s/decision"
        )


if __name__ == "__main__":
    app()
