"""Fit hard@v5's (and hard@v6's) value of a Waschbär-Schmaus position from played games.

    .venv/bin/python scripts/fit_schmaus_value.py gen --first-seed 110000 --games 2000 --out value.jsonl
    .venv/bin/python scripts/fit_schmaus_value.py fit value.jsonl [more.jsonl ...]
    .venv/bin/python scripts/fit_schmaus_value.py pooled value.jsonl

``gen`` plays ``--games`` games of ``--bot`` (default hard@v1) against 3×
medium (4 players, ``scripts/measure_bots.py``'s seating) and records, at the
start of every round from the second on (after that round's W-5 draws), the
measured seat's features (:func:`spieltisch.bots.schmaus_value.features`:
the score differences to the opponents, its hand's keep value, size and
plan value, the opponents' mean keep value and size) and whether it won the
game (W-18, a tie counts). The features use the whole state (the opponents'
real hands), as hard@v5 evaluates them in its sampled worlds.

``fit`` fits one logistic regression per number of rounds left (Newton's
method, a small L2 penalty) to the rows of one or more files and prints the
coefficients as the Python literal ``spieltisch.bots.schmaus_value.COEFFICIENTS``
(hard@v5's) or ``COEFFICIENTS_V6`` (hard@v6's) holds; with ``--effects``
the inputs add the seat's count of each effect card (``COEFFICIENTS_V7``,
hard@v7's; rows need the hand counts ``gen`` records since hard@v6). Use training
seeds disjoint from every measurement seed.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from spieltisch.bots import make_bot
from spieltisch.bots.schmaus import OpponentModel, _opponent_hand_size, counts_of, unseen_counts
from spieltisch.bots.schmaus_value import HardBotV5, effect_counts, hand_features
from spieltisch.engine import get_game

app = typer.Typer(add_completion=False)
PLAYERS = 4


@app.command()
def gen(
    first_seed: Annotated[int, typer.Option(min=0)] = 110000,
    games: Annotated[int, typer.Option(min=1)] = 2000,
    bot: Annotated[str, typer.Option()] = "hard@v1",
    out: Annotated[Path, typer.Option()] = Path("value.jsonl"),
) -> None:
    game = get_game("schmaus")
    planner = HardBotV5("schmaus", 0, 0)
    with out.open("w") as fh:
        for g in range(games):
            seat, seed = g % PLAYERS, first_seed + g // PLAYERS
            state = game.new_state(PLAYERS, seed)
            table = [make_bot("schmaus", bot if s == seat else "medium", s, seed) for s in range(PLAYERS)]
            rows = []
            seen_round = 1
            while not state.is_over():
                if state.round != seen_round and state.phase == "play":
                    seen_round = state.round
                    view = state.view(seat)
                    model = OpponentModel(
                        unseen_counts(view), _opponent_hand_size(view), PLAYERS, 24, planner.rng
                    )
                    left = state.rounds - state.round + 1
                    hands = [list(h) for h in state.hands]
                    plan = planner._plan_value(
                        counts_of(view["hand"]), model, min(left, planner.plan_rounds), {}
                    )
                    counts = counts_of(view["hand"])
                    rows.append((left, hand_features(seat, list(state.scores), hands, plan), counts))
                for s in state.to_move():
                    if s not in state.to_move():
                        continue
                    state.apply_id(s, table[s].choose(state.view(s), list(state.legal_action_ids(s))))
                    if state.is_over():
                        break
            won = seat in state.outcome().winners  # type: ignore[union-attr]
            for left, f, counts in rows:
                fh.write(json.dumps({"left": left, "x": f, "hand": counts, "won": won}) + "\n")
            if (g + 1) % 100 == 0:
                print(f"{g + 1}/{games} games", flush=True)


@app.command()
def fit(
    data: list[Path],
    l2: Annotated[float, typer.Option()] = 1.0,
    effects: Annotated[bool, typer.Option(help="Add the seat's effect-card counts (hard@v7).")] = False,
) -> None:
    """Fit one model per number of rounds left to the rows of every ``data``
    file together (pooled); with ``--effects`` the inputs are hard@v7's
    (the rows need the hand counts ``gen`` records)."""
    import numpy as np

    rows = [json.loads(line) for path in data for line in path.read_text().splitlines() if line.strip()]
    if effects:
        rows = [{**r, "x": r["x"] + effect_counts(r["hand"])} for r in rows]
    out: dict[int, list[float]] = {}
    for left in sorted({r["left"] for r in rows}):
        sel = [r for r in rows if r["left"] == left]
        x = np.array([r["x"] for r in sel], dtype=float)
        y = np.array([float(r["won"]) for r in sel])
        w = np.zeros(x.shape[1])
        pen = l2 * np.eye(x.shape[1])
        pen[0, 0] = 0.0
        for _ in range(30):
            p = 1 / (1 + np.exp(-(x @ w)))
            grad = x.T @ (p - y) + pen @ w
            hess = (x * (p * (1 - p))[:, None]).T @ x + pen
            w -= np.linalg.solve(hess, grad)
        p = 1 / (1 + np.exp(-(x @ w)))
        ll = float(np.mean(y * np.log(p + 1e-12) + (1 - y) * np.log(1 - p + 1e-12)))
        base = y.mean()
        ll0 = float(base * np.log(base) + (1 - base) * np.log(1 - base))
        print(f"left {left}: {len(sel)} rows, win {base:.3f}, log-lik {ll:.4f} (constant {ll0:.4f})")
        out[left] = [round(float(v), 4) for v in w]
    print("COEFFICIENTS = {")
    for left, w in out.items():
        print(f"    {left}: {tuple(w)},")
    print("}")


@app.command()
def pooled(data: Path, l2: Annotated[float, typer.Option()] = 1.0) -> None:
    """One logistic regression over every number of rounds left, each weight
    quadratic in the rounds left (the screen "fits smoothed over the rounds
    left", docs/bots.md); prints the weights per number of rounds left."""
    import numpy as np

    rows = [json.loads(line) for line in data.read_text().splitlines() if line.strip()]
    x = np.array([r["x"] for r in rows], dtype=float)
    scale = np.array([r["left"] for r in rows], dtype=float) / 11
    y = np.array([float(r["won"]) for r in rows])
    z = np.hstack([x, x * scale[:, None], x * (scale**2)[:, None]])
    w = np.zeros(z.shape[1])
    pen = l2 * np.eye(z.shape[1])
    for _ in range(40):
        p = 1 / (1 + np.exp(-(z @ w)))
        w -= np.linalg.solve((z * (p * (1 - p))[:, None]).T @ z + pen, z.T @ (p - y) + pen @ w)
    k = x.shape[1]
    print("SMOOTH = {")
    for left in range(1, 12):
        t = left / 11
        c = w[:k] + w[k : 2 * k] * t + w[2 * k :] * t * t
        print(f"    {left}: {tuple(round(float(v), 4) for v in c)},")
    print("}")


if __name__ == "__main__":
    app()
