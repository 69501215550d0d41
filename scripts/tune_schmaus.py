"""Screen and tune Waschbär-Schmaus hard variants against 3× medium, paired with a baseline.

    .venv/bin/python scripts/tune_schmaus.py play --bot hard@v1 --first-seed 100000 --games 800 --log v1.jsonl
    .venv/bin/python scripts/tune_schmaus.py play --bot hard@v4 --set draw_weight=0.9 --log v4.jsonl
    .venv/bin/python scripts/tune_schmaus.py compare v4.jsonl v1.jsonl
    .venv/bin/python scripts/tune_schmaus.py optuna --baseline v1.jsonl --trials 8 --games 800

Games are seated as in ``scripts/measure_bots.py`` (game ``i`` deals from seed
``first_seed + i // players`` with the measured bot in seat ``i mod players``,
every other seat ``medium`` with the same seeds), so two runs over the same
seeds play the same deals against the same opponents and are compared game by
game: the paired difference of the win rates with a 95% interval (normal
approximation of the mean of the per-game differences). A tie counts as a win
for every tied winner (W-18). ``--set NAME=VALUE`` changes a class attribute of
the measured bot (a screen; refused if the class has no such attribute).
Everything runs in this one process (the machine is shared); budgets are in
work, so every figure is reproducible from the seeds.

``optuna`` tunes hard@v4's weights with Optuna's TPE sampler (seeded) on the
training seeds; its objective is the number of games won there. Tune on seeds
disjoint from the ones you measure on, and measure the result on fresh seeds.
"""

from __future__ import annotations

import json
import math
import time
from pathlib import Path
from typing import Annotated, Any

import typer

from spieltisch.bots import Bot, bot_class, make_bot
from spieltisch.match import play_match

app = typer.Typer(add_completion=False)

PLAYERS = 4


def _value(text: str) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return text


def build(spec: str, settings: dict[str, Any]) -> type[Bot]:
    """The class of a built-in Waschbär-Schmaus level with ``settings`` as class attributes."""
    base = bot_class("schmaus", spec)
    for name in settings:
        if not hasattr(base, name):
            raise typer.BadParameter(f"{base.__name__} has no setting {name!r}")
    return type(f"{base.__name__}Variant", (base,), dict(settings))


def play_games(cls: type[Bot], first_seed: int, games: int, against: str = "medium") -> list[dict[str, Any]]:
    """Play ``games`` games (the seating above); one row per game."""
    rows = []
    for i in range(games):
        seat, seed = i % PLAYERS, first_seed + i // PLAYERS
        bots = [
            cls("schmaus", s, seed) if s == seat else make_bot("schmaus", against, s, seed)
            for s in range(PLAYERS)
        ]
        spent = [0.0]
        choose = bots[seat].choose

        def timed(view: Any, legal: Any, choose: Any = choose, spent: list[float] = spent) -> int:
            start = time.process_time()
            try:
                return int(choose(view, legal))
            finally:
                spent[0] += time.process_time() - start

        bots[seat].choose = timed  # type: ignore[method-assign]
        result = play_match("schmaus", bots, seed)
        outcome = result.state.outcome()
        assert outcome is not None
        rows.append(
            {
                "index": i,
                "seed": seed,
                "seat": seat,
                "won": seat in outcome.winners,
                "cpu": spent[0],
                "decisions": result.decisions[seat],
                "faults": sum(result.faults),
            }
        )
    return rows


def paired(a: list[bool], b: list[bool]) -> tuple[float, float]:
    """Mean of ``a - b`` and the half-width of its 95% interval."""
    n = len(a)
    d = [int(x) - int(y) for x, y in zip(a, b, strict=True)]
    mean = sum(d) / n
    var = sum((x - mean) ** 2 for x in d) / max(1, n - 1)
    return mean, 1.96 * math.sqrt(var / n)


def wilson(wins: int, n: int, z: float = 1.96) -> tuple[float, float]:
    p = wins / n
    d = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / d
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / d
    return centre - half, centre + half


def _load(path: Path) -> dict[int, bool]:
    rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    return {r["index"]: bool(r["won"]) for r in rows}


@app.command()
def play(
    bot: Annotated[str, typer.Option(help="The measured level, e.g. hard@v1 or hard@v4.")] = "hard@v4",
    setting: Annotated[list[str] | None, typer.Option("--set", help="NAME=VALUE class attribute.")] = None,
    first_seed: Annotated[int, typer.Option(min=0)] = 100000,
    games: Annotated[int, typer.Option(min=1)] = 800,
    log: Annotated[Path | None, typer.Option(help="Write one JSON line per game here.")] = None,
) -> None:
    """Play the games and print the win rate (and CPU s per decision)."""
    settings = {}
    for item in setting or []:
        name, sep, value = item.partition("=")
        if not sep:
            raise typer.BadParameter(f"--set wants NAME=VALUE, not {item!r}")
        settings[name] = _value(value)
    rows = play_games(build(bot, settings), first_seed, games)
    if log is not None:
        with log.open("w") as out:
            for r in rows:
                out.write(json.dumps({"bot": bot, "settings": settings, **r}) + "\n")
    wins = sum(r["won"] for r in rows)
    lo, hi = wilson(wins, len(rows))
    print(
        f"{bot} {settings}: won {wins}/{len(rows)} = {wins / len(rows):.1%} (95% {lo:.1%}-{hi:.1%}), "
        f"deal seeds {first_seed}..{first_seed + (games - 1) // PLAYERS}; "
        f"{sum(r['cpu'] for r in rows) / max(1, sum(r['decisions'] for r in rows)):.4f} CPU s per decision "
        f"(process time inside the measured bot); faults {sum(r['faults'] for r in rows)}"
    )


@app.command()
def compare(first: Path, second: Path) -> None:
    """Paired difference of two logs over the games both played."""
    a, b = _load(first), _load(second)
    common = sorted(set(a) & set(b))
    if not common:
        raise typer.BadParameter("the logs share no game")
    x, y = [a[i] for i in common], [b[i] for i in common]
    mean, half = paired(x, y)
    changed = sum(p != q for p, q in zip(x, y, strict=True))
    print(
        f"{len(common)} games: {sum(x)} vs {sum(y)} wins, difference {100 * mean:+.1f} ± {100 * half:.1f} "
        f"points (95%), {changed} games changed"
    )


@app.command()
def optuna(
    baseline: Annotated[Path, typer.Option(help="The baseline's log on the same games (for the report).")],
    trials: Annotated[int, typer.Option(min=1)] = 20,
    first_seed: Annotated[int, typer.Option(min=0)] = 100000,
    games: Annotated[int, typer.Option(min=1)] = 800,
    seed: Annotated[int, typer.Option()] = 0,
    log: Annotated[Path, typer.Option(help="One JSON line per trial.")] = Path("tune.jsonl"),
    models: Annotated[int, typer.Option(min=0, help="hard@v4's medium models per opponent.")] = 0,
    timeout: Annotated[float | None, typer.Option(help="Start no trial after this many seconds.")] = None,
) -> None:
    """Tune hard@v4's weights on the training games (TPE, seeded)."""
    import optuna as opt

    base = _load(baseline)
    sampler = opt.samplers.TPESampler(seed=seed)
    study = opt.create_study(direction="maximize", sampler=sampler)
    # The best single change of the earlier screens (docs/bots.md) first.
    study.enqueue_trial({"draw_weight": 0.9, "card_weight": 0.6, "short_draw": 1.5, "late_blur": 2.5})

    def objective(trial: opt.Trial) -> float:
        settings: dict[str, Any] = {
            "models": models,
            "draw_weight": trial.suggest_float("draw_weight", 0.4, 1.6),
            "card_weight": trial.suggest_float("card_weight", 0.3, 1.0),
            "short_draw": trial.suggest_float("short_draw", 1.0, 2.5),
            "late_blur": trial.suggest_float("late_blur", 0.7, 4.0, log=True),
        }
        rows = play_games(build("hard@v4", settings), first_seed, games)
        won = [r["won"] for r in rows]
        mean, half = paired(won, [base[r["index"]] for r in rows])
        with log.open("a") as out:
            out.write(
                json.dumps(
                    {
                        "trial": trial.number,
                        "settings": settings,
                        "wins": sum(won),
                        "games": games,
                        "diff": mean,
                        "half": half,
                    }
                )
                + "\n"
            )
        print(
            f"trial {trial.number}: {sum(won)}/{games}, "
            f"{100 * mean:+.1f} ± {100 * half:.1f} vs baseline, {settings}",
            flush=True,
        )
        return float(sum(won))

    study.optimize(objective, n_trials=trials, timeout=timeout)
    print("best", study.best_trial.number, study.best_value, study.best_params)


if __name__ == "__main__":
    app()
