"""How much do the opponents' recorded actions tell about their hidden cards?

    .venv/bin/python scripts/diagnose_inference.py --temperature 0.5 --floor 0.05 --per-seat 4

Plays ``--games`` seeded games of 4 medium bots (seeds ``--first-seed``...)
and at every second play decision of seat 0 samples ``--worlds`` worlds as
hard does (:func:`sample_world`), weights each by hard@v4's likelihood of the
opponents' recorded actions (:func:`log_likelihood`) and counts the hidden
cards each world deals to the right opponent. Prints that count on average
over uniform worlds and over the weighted ones (the gain is what the weighting
knows about the real hands), the effective sample size of the weights, and
the CPU milliseconds per weighted world.
"""

from __future__ import annotations

import math
import random
import statistics
import time
from typing import Annotated

import typer

from spieltisch.bots import make_bot
from spieltisch.bots.scout.inference import RoundRecord, log_likelihood
from spieltisch.bots.scout.worlds import Knowledge, Position, sample_world
from spieltisch.engine.scout import ScoutState
from spieltisch.engine.scout.cards import identity

app = typer.Typer(add_completion=False)


@app.command()
def main(
    temperature: Annotated[float, typer.Option()] = 0.7,
    floor: Annotated[float, typer.Option()] = 0.1,
    per_seat: Annotated[int, typer.Option()] = 3,
    games: Annotated[int, typer.Option(min=1)] = 6,
    first_seed: Annotated[int, typer.Option(min=0)] = 100,
    worlds: Annotated[int, typer.Option(min=2)] = 100,
    players: Annotated[int, typer.Option(min=3, max=5)] = 4,
) -> None:
    spent = 0.0
    weighed = 0
    rows: list[tuple[float, float, float]] = []
    for g in range(games):
        seed = first_seed + g
        state = ScoutState.new(players, seed)
        bots = [make_bot("scout", "medium", s, g) for s in range(players)]
        rng = random.Random(g)
        k = 0
        while not state.is_over():
            seat = state.to_move()[0]
            view, legal = state.view(seat), state.legal_action_ids(seat)
            if seat == 0 and state.phase == "play":
                k += 1
                record = RoundRecord.from_view(view, Position.from_view(view))
                if k % 2 == 0 and record is not None:
                    pos = Position.from_view(view)
                    knowledge = Knowledge()
                    knowledge.update(view, pos)
                    pool = knowledge.unseen(pos)
                    truth = {s: {identity(c) for c in state.hands[s]} for s in range(1, players)}
                    right: list[int] = []
                    logs: list[float] = []
                    for _ in range(worlds):
                        w = sample_world(pos, pool, rng)
                        t = time.process_time()
                        logs.append(log_likelihood(record, w.hands, 0, per_seat, temperature, floor))
                        spent += time.process_time() - t
                        weighed += 1
                        right.append(sum(len({identity(c) for c in w.hands[s]} & truth[s]) for s in truth))
                    top = max(logs)
                    wts = [math.exp(x - top) for x in logs]
                    ess = sum(wts) ** 2 / sum(x * x for x in wts)
                    mean = sum(a * b for a, b in zip(wts, right, strict=True)) / sum(wts)
                    rows.append((statistics.mean(right), mean, ess))
            state.apply_id(seat, bots[seat].choose(view, legal))
    uniform = statistics.mean(r[0] for r in rows)
    weighted = statistics.mean(r[1] for r in rows)
    print(
        f"temperature {temperature}, floor {floor}, per seat {per_seat}: {len(rows)} decisions, "
        f"hidden cards at the right opponent {uniform:.2f} (uniform) vs {weighted:.2f} (weighted), "
        f"effective worlds {statistics.mean(r[2] for r in rows):.1f} of {worlds}, "
        f"{1000 * spent / weighed:.2f} CPU ms per weighted world"
    )


if __name__ == "__main__":
    app()
