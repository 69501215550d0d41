"""Tune the weights of Scout's one-move policy against medium (hard@v10's own playout moves).

    .venv/bin/python scripts/tune_scout_policy.py search --players 5 --trials 80 --deals 300 --log tune5.jsonl
    .venv/bin/python scripts/tune_scout_policy.py check --players 5 --first-seed 700000 --deals 1000

The players are the policies themselves, without views or bots, so a game
costs a few milliseconds (about 200 games per CPU second with the compiled
build, ``scripts/build-fast``): one seat plays ``policy.fast_best_action``
under the weights being tried and turns its hand (S-5) by them, every other
seat plays medium's one-move lookahead (``policy.best_action`` over every
legal action: medium's scores, the first best action in the order they are
generated, where ``MediumBot`` breaks an exact tie by the lower id) and
medium's flip. After 150 turns of one round (a show/scout cycle, S-10 ends
none) every seat plays a seeded random legal move, as the bots do.

Duplicate deals, as in ``scripts/measure_bots.py``: every deal from
``--first-seed`` on is played once with the tried weights in every seat. A
tie counts as a win for every tied winner (S-12), so the fair share is
``1 / players``. ``search`` runs Optuna's TPE sampler (seeded, so the same
command gives the same trials) around medium's weights, the first trial being
medium's own; its objective is the win rate on the training deals. Measure
the result with ``check`` on deals that were not used to choose it:
``policy.TUNED_5P`` is the rounded best of such a search (docs/bots.md,
hard@v10).
"""

from __future__ import annotations

import inspect
import json
import math
import random
import time
from pathlib import Path
from typing import Annotated

import typer

from spieltisch.bots.scout import policy
from spieltisch.bots.scout.bots import LONG_ROUND
from spieltisch.engine.scout import ScoutState
from spieltisch.lab.stats import wilson

app = typer.Typer(add_completion=False)

SPACE: dict[str, tuple[float, float]] = {
    "card": (0.3, 0.8),
    "token": (0.3, 1.0),
    "ss_chip": (0.2, 1.5),
    "empty_bonus": (1.0, 6.0),
    "match": (0.75, 1.2),
    "run": (0.65, 1.1),
    "growth": (0.0, 0.2),
    "slope": (0.0, 0.08),
    "low": (0.0, 0.05),
    "exposure": (0.3, 1.4),
}
"""The searched range of each :class:`policy.Weights` argument (medium's value lies inside)."""
MEDIUM = {name: inspect.signature(policy.Weights).parameters[name].default for name in SPACE}
"""Medium's weights (``policy.Weights()``'s defaults), the search's first trial."""
NAMED = {"medium": policy.MEDIUM, "tuned-5p": policy.TUNED_5P}


def play(players: int, seed: int, seat: int, w: policy.Weights) -> bool:
    """One game: ``seat`` plays under ``w``, the others medium; whether ``seat`` won."""
    state = ScoutState.new(players, seed)
    rng = random.Random(f"tune/{seed}/{seat}")
    turns = 0
    while not state.is_over():
        movers = state.to_move()
        if state.phase == "flip":
            for s in movers:
                flip = policy.wants_flip(state.hands[s], w if s == seat else None)
                state.apply_id(s, 1 if flip else 0)
            turns = 0
            continue
        s = movers[0]
        turns += 1
        hand, table, chips = state.hands[s], state.table, state.chips[s]
        if turns > LONG_ROUND:
            legal = state.legal_action_ids(s)
            action = legal[rng.randrange(len(legal))]
        elif s == seat:
            action = policy.fast_best_action(hand, table, players, chips, w)
        else:
            action = policy.best_action(hand, table, players, chips, True)
        state.apply_id(s, action)
    outcome = state.outcome()
    assert outcome is not None
    return seat in outcome.winners


def results(w: policy.Weights, players: int, first_seed: int, deals: int) -> list[bool]:
    """Won or not, per game: every deal once with ``w`` in every seat."""
    return [play(players, first_seed + d, seat, w) for d in range(deals) for seat in range(players)]


def weights_of(text: str) -> policy.Weights:
    if text in NAMED:
        return NAMED[text]
    try:
        values = json.loads(text)
        return policy.Weights(**values)
    except (json.JSONDecodeError, TypeError) as exc:
        raise typer.BadParameter(
            f"--weights takes {' or '.join(NAMED)} or a JSON object of Weights arguments "
            f"({', '.join(SPACE)}): {exc}"
        ) from None


@app.command()
def search(
    players: Annotated[int, typer.Option(min=3, max=5, help="Players per game.")] = 5,
    trials: Annotated[int, typer.Option(min=1, help="Optuna trials (the first is medium's weights).")] = 80,
    deals: Annotated[int, typer.Option(min=1, help="Training deals per trial (each in every seat).")] = 300,
    first_seed: Annotated[int, typer.Option(min=0, help="Seed of the first training deal.")] = 500000,
    log: Annotated[Path | None, typer.Option(help="Append a JSON line per trial here.")] = None,
) -> None:
    """Search the weights that win most against medium on the training deals."""
    import optuna

    optuna.logging.set_verbosity(optuna.logging.WARNING)
    sampler = optuna.samplers.TPESampler(seed=1, n_startup_trials=8, multivariate=True)
    study = optuna.create_study(direction="maximize", sampler=sampler)
    study.enqueue_trial(MEDIUM)
    start = time.perf_counter()

    def objective(trial: optuna.Trial) -> float:
        values = {name: trial.suggest_float(name, lo, hi) for name, (lo, hi) in SPACE.items()}
        won = results(policy.Weights(**values), players, first_seed, deals)
        rate = sum(won) / len(won)
        if log is not None:
            with log.open("a") as out:
                out.write(json.dumps({"trial": trial.number, "rate": rate, **values}) + "\n")
        return rate

    def report(study: optuna.Study, trial: optuna.trial.FrozenTrial) -> None:
        done = trial.number + 1
        spent = time.perf_counter() - start
        print(
            f"trial {done}/{trials}: {trial.value:.1%} (best {study.best_value:.1%}), "
            f"{spent / done:.1f} s a trial, ETA {spent / done * (trials - done):.0f} s",
            flush=True,
        )

    study.optimize(objective, n_trials=trials, callbacks=[report])
    best = ", ".join(f"{k}={v:.3f}" for k, v in study.best_params.items())
    print(f"best of {trials} trials on {deals * players} games: {study.best_value:.1%}")
    print(f"policy.Weights({best})")


@app.command()
def check(
    players: Annotated[int, typer.Option(min=3, max=5, help="Players per game.")] = 5,
    deals: Annotated[int, typer.Option(min=1, help="Deals (each in every seat).")] = 1000,
    first_seed: Annotated[int, typer.Option(min=0, help="Seed of the first deal.")] = 700000,
    weights: Annotated[
        str, typer.Option(help="tuned-5p, medium or a JSON object of Weights arguments.")
    ] = "tuned-5p",
) -> None:
    """Medium's weights and the given ones against medium on the same deals, paired game by game."""
    tried = weights_of(weights)
    rows: dict[str, list[bool]] = {}
    for name, w in (("medium", policy.Weights()), (weights, tried)):
        start = time.process_time()
        rows[name] = results(w, players, first_seed, deals)
        won = rows[name]
        lo, hi = wilson(sum(won), len(won))
        rate = len(won) / max(time.process_time() - start, 1e-9)
        print(
            f"{name}: won {sum(won)}/{len(won)} = {sum(won) / len(won):.1%} "
            f"(Wilson 95% {lo:.1%}-{hi:.1%}), {rate:.0f} games per CPU s",
            flush=True,
        )
    a, b = rows[weights], rows["medium"]
    d = [int(x) - int(y) for x, y in zip(a, b, strict=True)]
    mean = sum(d) / len(d)
    sd = math.sqrt(sum((x - mean) ** 2 for x in d) / max(len(d) - 1, 1))
    print(
        f"{weights} - medium: {100 * mean:+.1f} ± {196 * sd / math.sqrt(len(d)):.1f} points "
        f"(paired, 95%; {sum(1 for x in d if x)} of {len(d)} games changed; deal seeds "
        f"{first_seed}..{first_seed + deals - 1}, fair share {1 / players:.0%})"
    )


if __name__ == "__main__":
    app()
