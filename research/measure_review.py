"""Measure the review's marks against a reference review at a large budget.

    .venv/bin/python research/measure_review.py reference --game scout --games 2 --out ref-scout.json
    .venv/bin/python research/measure_review.py compare ref-scout.json --budget 8 [--before OLD_REVIEW.py]

``reference`` plays ``--games`` games of bots (``--seats``, default random,
easy, medium; game ``i`` from seed ``first_seed + i``), cuts out every
decision of every seat and rates it at the reference budget (default
``64+0``: 64 worlds for every candidate, no adaptive extra worlds); it writes
the records and each decision's reference loss. ``compare`` rates the same
decisions at ``--budget`` (the review of this checkout, or of another copy of
``review.py`` given with ``--before``, e.g. ``git show REV:src/spieltisch/analysis/review.py``)
and prints, against the reference:

* recall: of the decisions whose reference loss reaches the mistake (blunder)
  threshold, the share the tested budget marks (as a mistake or a blunder;
  as a blunder);
* precision: of the tested budget's marks, the share whose reference loss
  reaches the mistake threshold (blunder marks: the blunder threshold);
* CPU seconds per reviewed decision (``time.process_time``, one process).

Budgets are counted in work, so the marks do not depend on the machine or its
load; the CPU figures do a little (cache pressure), so compare them side by
side in one session.
"""

from __future__ import annotations

import json
import sys
import time
from dataclasses import replace
from pathlib import Path
from types import ModuleType
from typing import Annotated, Any

import typer

from spieltisch.analysis import review as current
from spieltisch.benchmarks.review import load_review
from spieltisch.bots import make_bot
from spieltisch.bots.match import play_match
from spieltisch.engine import get_game

app = typer.Typer(add_completion=False, no_args_is_help=True)


def _records(game: str, players: int, seats: list[str], games: int, first_seed: int) -> list[dict[str, Any]]:
    out = []
    for i in range(games):
        seed = first_seed + i
        lineup = [seats[s % len(seats)] for s in range(players)]
        bots = [make_bot(game, spec, s, seed * 10 + s) for s, spec in enumerate(lineup)]
        record = play_match(game, bots, seed=seed).state.record().to_json()
        out.append({"lineup": lineup, "record": record})
    return out


def _tasks(module: ModuleType, record: dict[str, Any], budget: Any) -> list[Any]:
    game = get_game(record["game"])
    start = game.new_state(record["players"], record["seed"], record.get("options") or {})
    actions = [(int(s), str(t)) for s, t in record["actions"]]
    tasks: list[Any] = module.collect(start, actions, range(record["players"]), budget, record["seed"])
    return tasks


@app.command()
def reference(
    out: Annotated[Path, typer.Option(help="Write the records and reference losses here.")],
    game: Annotated[str, typer.Option()] = "scout",
    players: Annotated[int, typer.Option()] = 3,
    games: Annotated[int, typer.Option()] = 2,
    first_seed: Annotated[int, typer.Option()] = 1,
    seats: Annotated[str, typer.Option(help="Comma-separated seat specs, cycled over the seats.")] = (
        "random,easy,medium"
    ),
    budget: Annotated[str, typer.Option(help="The reference budget.")] = "64+0",
) -> None:
    ref_budget = current.ReviewBudget.parse(budget)
    data: dict[str, Any] = {"game": game, "players": players, "budget": str(ref_budget), "games": []}
    total_cpu = 0.0
    for g in _records(game, players, seats.split(","), games, first_seed):
        decisions = []
        for task in _tasks(current, g["record"], ref_budget):
            t0 = time.process_time()
            d = current.rate(task)
            total_cpu += time.process_time() - t0
            decisions.append({"number": d.number, "seat": d.seat, "loss": d.loss, "error": d.error,
                              "rated": d.rated, "best": d.best, "played": d.played})  # fmt: skip
            print(f"{g['record']['seed']} #{d.number} seat {d.seat}: loss {d.loss} ± {d.error}",
                  file=sys.stderr, flush=True)  # fmt: skip
        data["games"].append({**g, "decisions": decisions})
    data["cpu"] = total_cpu
    out.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")


@app.command()
def compare(
    reference_file: Annotated[Path, typer.Argument(metavar="REFERENCE.json")],
    budget: Annotated[str, typer.Option(help="The budget under test.")] = "8",
    before: Annotated[
        Path | None, typer.Option(help="Another review.py to test instead of this one.")
    ] = None,
    out: Annotated[Path | None, typer.Option(help="Also write every decision's figures here.")] = None,
) -> None:
    module = load_review(before)
    data = json.loads(reference_file.read_text(encoding="utf-8"))
    limits = current.thresholds(data["game"], data["players"])
    tested_budget = (getattr(module, "ReviewBudget", None) or module.Budget).parse(budget)  # older: Budget
    rows = []
    cpu = 0.0
    reviewed = 0
    for g in data["games"]:
        ref = {(d["seat"], d["number"]): d for d in g["decisions"]}
        for task in _tasks(module, g["record"], tested_budget):
            t0 = time.process_time()
            d = module.rate(replace(task))
            cpu += time.process_time() - t0
            reviewed += 1
            r = ref[d.seat, d.number]
            if not (d.rated and r["rated"]):
                continue
            rows.append({"seed": g["record"]["seed"], "lineup": g["lineup"][d.seat], "seat": d.seat,
                         "number": d.number, "ref_loss": r["loss"], "ref_error": r["error"],
                         "loss": d.loss, "error": d.error, "mark": d.mark,
                         "worlds": getattr(d, "worlds", tested_budget.worlds)})  # fmt: skip
    which = "the review.py given" if before else "this checkout"
    _report(rows, limits, f"{tested_budget} ({which})", data)
    print(f"CPU per reviewed decision: {cpu / max(1, reviewed):.3f} s ({cpu:.1f} s for {reviewed} decisions)")
    if out is not None:
        out.write_text(json.dumps(rows, indent=1) + "\n", encoding="utf-8")


@app.command()
def dump(
    reference_file: Annotated[Path, typer.Argument(metavar="REFERENCE.json")],
    out: Annotated[Path, typer.Option(help="Write every decision's per-world values here.")],
    budget: Annotated[str, typer.Option(help="Worlds for every candidate (no extra worlds).")] = "64+0",
) -> None:
    """Rate the reference's decisions at another seed, keeping every candidate's
    per-world values, for ``simulate``."""
    data = json.loads(reference_file.read_text(encoding="utf-8"))
    tested = current.ReviewBudget.parse(budget)
    kept: list[list[list[float]]] = []
    real = current.sample_adaptively

    def keep(*args: Any) -> tuple[list[list[float]], list[int]]:
        values, live = real(*args)
        kept.append(values)
        return values, live

    current.sample_adaptively = keep  # type: ignore[assignment]
    rows = []
    cpu = 0.0
    playouts = 0
    for g in data["games"]:
        for task in _tasks(current, g["record"], tested):
            kept.clear()
            t0 = time.process_time()
            d = current.rate(task)
            cpu += time.process_time() - t0
            values = kept[0] if kept else []
            playouts += sum(len(v) for v in values)
            rows.append({"seed": g["record"]["seed"], "seat": d.seat, "number": d.number, "values": values})
            print(f"{g['record']['seed']} #{d.number}", file=sys.stderr, flush=True)
    out.write_text(json.dumps({"cpu": cpu, "playouts": playouts, "decisions": rows}) + "\n", encoding="utf-8")


@app.command()
def simulate(
    reference_file: Annotated[Path, typer.Argument(metavar="REFERENCE.json")],
    dump_file: Annotated[Path, typer.Argument(metavar="DUMP.json")],
    budget: Annotated[str, typer.Option()] = "8",
    settled: Annotated[float, typer.Option()] = current.SETTLED,
    contenders: Annotated[int, typer.Option()] = current.CONTENDERS,
) -> None:
    """The marks and the work of ``budget`` replayed from a dump's worlds
    (:func:`spieltisch.analysis.review.sample_adaptively` on them), against the reference."""
    data = json.loads(reference_file.read_text(encoding="utf-8"))
    dumped = json.loads(dump_file.read_text(encoding="utf-8"))
    current.SETTLED, current.CONTENDERS = settled, contenders
    limits = current.thresholds(data["game"], data["players"])
    tested = current.ReviewBudget.parse(budget)
    ref = {(g["record"]["seed"], d["seat"], d["number"]): d for g in data["games"] for d in g["decisions"]}
    per_playout = dumped["cpu"] / dumped["playouts"]
    rows = []
    spent = 0
    for d in dumped["decisions"]:
        r = ref[d["seed"], d["seat"], d["number"]]
        full = d["values"]
        if not full or len(full) < 2 or not r["rated"]:
            continue
        k = 0

        def play(which: Any, full: Any = full) -> list[float] | None:
            nonlocal k, spent
            if k >= len(full[0]):
                return None
            spent += len(which)
            k += 1
            return [full[i][k - 1] for i in which]

        values, live = current.sample_adaptively(len(full), tested, limits, play)
        loss, se, _ = current._paired_loss(values, live)
        mark = None
        if loss > 2 * se and loss >= limits.blunder:
            mark = "blunder"
        elif loss > 2 * se and loss >= limits.mistake:
            mark = "mistake"
        rows.append({"ref_loss": r["loss"], "mark": mark, "worlds": len(values[0])})
    _report(rows, limits, f"{tested} simulated (settled {settled}, contenders {contenders})", data)
    each = spent / len(rows)
    print(f"playouts per decision {each:.1f}; CPU per decision about {each * per_playout:.3f} s")


def _report(rows: list[dict[str, Any]], limits: Any, what: str, data: dict[str, Any]) -> None:
    def share(part: int, whole: int) -> str:
        return f"{part}/{whole} = {part / whole:.0%}" if whole else "0/0"

    want_m = [r for r in rows if r["ref_loss"] >= limits.mistake]
    want_b = [r for r in rows if r["ref_loss"] >= limits.blunder]
    marked = [r for r in rows if r["mark"]]
    blunders = [r for r in rows if r["mark"] == "blunder"]
    games = len(data["games"])
    print(f"{data['game']}, {data['players']} players, {games} games, {len(rows)} rated decisions; "
          f"reference {data['budget']}, tested {what}")  # fmt: skip
    lines = [
        ("recall (reference loss >= mistake, marked)", sum(bool(r["mark"]) for r in want_m), len(want_m)),
        ("recall (reference loss >= blunder, marked blunder)",
         sum(r["mark"] == "blunder" for r in want_b), len(want_b)),
        ("precision (marked, reference loss >= mistake)",
         sum(r["ref_loss"] >= limits.mistake for r in marked), len(marked)),
        ("precision (blunder, reference loss >= blunder)",
         sum(r["ref_loss"] >= limits.blunder for r in blunders), len(blunders)),
    ]  # fmt: skip
    for label, part, whole in lines:
        print(f"{label + ':':52} {share(part, whole)}")
    print(f"mean worlds per rated decision: {sum(r['worlds'] for r in rows) / max(1, len(rows)):.1f}")


if __name__ == "__main__":
    app()
