"""Where does Waschbär-Schmaus hard lose? Hindsight regret per decision.

    .venv/bin/python scripts/diagnose_schmaus.py hindsight --games 80 --bots medium,hard@v1:samples=1024
    .venv/bin/python scripts/diagnose_schmaus.py rollout --games 16 --rollouts 16 --max-round 2
    .venv/bin/python scripts/diagnose_schmaus.py peek --games 400 --first-seed 990000

Plays ``--games`` games of ``--source`` (default hard@v1) against 3× medium
(4 players, ``scripts/measure_bots.py``'s seating) and keeps every decision
of the source bot with more than one legal action. Because the seats lay at
once (W-4) and the grocer targets and ×5 cards are chosen at once (W-9,
W-11), the opponents' real choices in that round do not depend on this
seat's: scoring each of this seat's legal actions against the opponents'
*real* lays (and real targets and ×5 cards) with hard@v1's own objective
(its chance to win the game after the round, :meth:`HardBot._score`) gives
an unbiased estimate of the objective a chooser reaches, so any chooser
shown the same view can be judged on the same decisions:

* ``oracle`` — the best legal action in hindsight (what knowing the
  opponents' hands and their lays would give under v1's objective);
* each ``--bots`` spec and the source's own choice — the hindsight value of
  its choice; the *regret* is the oracle's value minus that.

It also prints, per round, v1's predicted value of its chosen lay against
the hindsight value (a positive bias means v1 is too optimistic), its
predicted and real pot share, and how often v1 wins the pot, is lowest, and
how often an opponent's real lay was the one v1's samples predicted most.
Values are win chances in points (×100).

``peek`` bounds what better inference could give: hard@v5 told the
opponents' real hands (their hands before this round's lay; with ``lays``
also the lays already made this round) instead of sampling them, against
3× medium, beside plain hard@v5 on the same games.
"""

from __future__ import annotations

import copy
import random
import time
from collections import defaultdict
from collections.abc import Sequence
from typing import Annotated, Any

import typer

from spieltisch.bots import make_bot
from spieltisch.bots.base import View
from spieltisch.bots.schmaus import (
    _FOOD_MAX,
    KEEP_VALUE,
    HardBot,
    Sample,
    _decode,
    _revealed_lays,
    _Search,
    awards,
    model_choices,
    round_scores,
    unseen_counts,
)
from spieltisch.bots.schmaus_value import HardBotV5
from spieltisch.engine import State, get_game
from spieltisch.engine.schmaus import actions as A
from spieltisch.engine.schmaus.cards import KIND, VALUE
from spieltisch.lab.stats import wilson
from spieltisch.match import decide

app = typer.Typer(add_completion=False)
PLAYERS = 4


def lay_id(cards: Sequence[str]) -> int:
    return A.PLAY_ID[tuple(sorted(KIND[c] for c in cards))]


class Recorder(HardBot):
    """hard@v1 that remembers its search of each lay (the totals and the samples)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.searches: list[tuple[dict[int, float], list[Sample]]] = []

    def lay(self, view: View, lays: list[int]) -> int:
        samples: list[Sample] = []
        totals, _ = self._search(view, lays, samples)
        self.searches.append((totals, samples))
        return max(lays, key=lambda i: (totals[i], -i))


def hindsight_lays(view: View, lays: list[int], table: list[int], judge: HardBot) -> dict[int, float]:
    """v1's objective of each of ``lays`` against the real ``table``."""
    search = judge._prepare(view, lays)
    totals = dict.fromkeys(lays, 0.0)
    judge._score(view, search, list(table), lays, totals)
    return totals


def hindsight_choice(
    view: View, judge: HardBot, real: dict[str, Any], target: int | None, x5: int | None
) -> float:
    """v1's objective after the round with this seat's target or ×5 card and
    every other seat's real ones."""
    me = view["seat"]
    lays = _revealed_lays(view)
    targets = list(real["targets"])
    values = [_FOOD_MAX[i] for i in lays]
    for s, k in enumerate(real["x5"]):
        if k is not None:
            values[s] = VALUE[KIND[k]]
    if target is not None:
        targets[me] = target
    if x5 is not None:
        values[me] = VALUE[x5]
    individual = round_scores(lays, targets, values)
    _, draw = judge._weights(view, view["hand_sizes"][me])
    pool = unseen_counts(view)
    total = sum(pool)
    avg_keep = sum(KEEP_VALUE[k] * pool[k] for k in range(12)) / total if total else 0.0
    return judge._win_chance(view, individual, draw * avg_keep, 0.0, judge._spread(view))


@app.command()
def hindsight(
    games: Annotated[int, typer.Option(min=1)] = 40,
    first_seed: Annotated[int, typer.Option(min=0)] = 80000,
    bots: Annotated[str, typer.Option(help="Comma-separated seat specs to judge.")] = "medium",
) -> None:
    specs = [b.strip() for b in bots.split(",") if b.strip()]
    game = get_game("schmaus")
    lay_rows: list[dict[str, Any]] = []
    choice_rows: list[dict[str, Any]] = []
    wins = 0
    for g in range(games):
        seat, seed = g % PLAYERS, first_seed + g // PLAYERS
        state = game.new_state(PLAYERS, seed)
        rec = Recorder("schmaus", seat, seed)
        table = [rec if s == seat else make_bot("schmaus", "medium", s, seed) for s in range(PLAYERS)]
        pending: list[tuple[str, View, list[int], int, int]] = []
        while not state.is_over():
            for s in state.to_move():
                if s not in state.to_move():
                    continue
                view = state.view(s)
                legal = list(state.legal_action_ids(s))
                action = table[s].choose(view, legal)
                if s == seat and len(legal) > 1:
                    lays, targets, x5, discards = _decode(legal)
                    kind = "lay" if lays else "target" if targets else "x5" if x5 else "discard"
                    pending.append((kind, view, legal, action, len(rec.searches) - 1))
                state.apply_id(s, action)
                if state.is_over():
                    break
        final = state.view(seat)
        wins += seat in state.outcome().winners  # type: ignore[union-attr]
        results = final["round_results"]
        judge = HardBot("schmaus", seat, 123)
        for kind, view, legal, action, search in pending:
            real = results[view["round"] - 1]
            if kind == "lay":
                lays = [i for i in legal if i < A.TARGET_BASE]
                actual = [lay_id(p) for p in real["plays"]]
                values = hindsight_lays(view, lays, actual, judge)
                totals, samples = rec.searches[search]
                n = max(1, len(samples))
                row: dict[str, Any] = {
                    "round": view["round"],
                    "rounds": view["rounds"],
                    "choice": action,
                    "values": values,
                    "predicted": totals[action] / n,
                    "n_lays": len(lays),
                }
                # predicted pot share and opponents' lays of the chosen lay
                share_pred = 0.0
                hits = 0
                tot = 0
                for smp in samples:
                    t = list(smp.table)
                    t[seat] = action
                    ind = round_scores(t, model_choices(t), [_FOOD_MAX[i] for i in t])
                    share_pred += awards(ind)[0][seat]
                for o in range(PLAYERS):
                    if o == seat:
                        continue
                    counts: dict[int, int] = defaultdict(int)
                    for smp in samples:
                        counts[smp.table[o]] += 1
                    if counts:
                        tot += 1
                        hits += max(counts, key=counts.__getitem__) == actual[o]
                t = list(actual)
                t[seat] = action
                ind = round_scores(t, model_choices(t), [_FOOD_MAX[i] for i in t])
                shares, _ = awards(ind)
                row.update(
                    share_pred=share_pred / n,
                    share_real=real["awarded"][seat],
                    share_model=shares[seat],
                    won_pot=seat in real["winners"],
                    lowest=seat in real["lowest"],
                    hits=hits,
                    opp=tot,
                    others={},
                )
                for j, spec in enumerate(specs):
                    bot = make_bot("schmaus", spec, seat, 90000 + 7919 * g + j)
                    t0 = time.process_time()
                    a = bot.choose(view, legal)
                    row["others"][spec] = (a, time.process_time() - t0)
                lay_rows.append(row)
            elif kind in ("target", "x5"):
                options = [i - (A.TARGET_BASE if kind == "target" else A.X5_BASE) for i in legal]
                vals = {
                    o: hindsight_choice(
                        view, judge, real, o if kind == "target" else None, o if kind == "x5" else None
                    )
                    for o in options
                }
                base = A.TARGET_BASE if kind == "target" else A.X5_BASE
                row = {"kind": kind, "choice": action - base, "values": vals, "others": {}}
                for j, spec in enumerate(specs):
                    bot = make_bot("schmaus", spec, seat, 90000 + 7919 * g + j)
                    row["others"][spec] = bot.choose(view, legal) - base
                choice_rows.append(row)
            else:
                choice_rows.append({"kind": "discard", "round": view["round"]})
        print(f"game {g + 1}/{games}: {len(lay_rows)} lays so far", flush=True)
    print(f"{games} games (seeds {first_seed}..{first_seed + (games - 1) // PLAYERS}), source won {wins}")
    # -- lays per round --------------------------------------------------------
    by_round: dict[int, list[dict[str, Any]]] = defaultdict(list)
    for r in lay_rows:
        by_round[r["round"]].append(r)
    head = f"{'round':>5} {'n':>4} {'v1 regret':>9} " + " ".join(f"{s[:18]:>18}" for s in specs)
    head += f" {'bias':>6} {'pot pred':>8} {'pot real':>8} {'won pot':>7} {'lowest':>6} {'hit':>5}"
    print(head)
    tot_regret = defaultdict(float)
    for rnd in sorted(by_round):
        rows = by_round[rnd]
        n = len(rows)
        reg = sum(max(r["values"].values()) - r["values"][r["choice"]] for r in rows) / n
        tot_regret["v1"] += reg * n
        cells = []
        for s in specs:
            x = sum(max(r["values"].values()) - r["values"][r["others"][s][0]] for r in rows) / n
            tot_regret[s] += x * n
            cells.append(f"{100 * x:18.2f}")
        bias = sum(r["predicted"] - r["values"][r["choice"]] for r in rows) / n
        print(
            f"{rnd:5d} {n:4d} {100 * reg:9.2f} {' '.join(cells)} {100 * bias:6.2f} "
            f"{sum(r['share_pred'] for r in rows) / n:8.2f} {sum(r['share_model'] for r in rows) / n:8.2f} "
            f"{sum(r['won_pot'] for r in rows) / n:7.0%} {sum(r['lowest'] for r in rows) / n:6.0%} "
            f"{sum(r['hits'] for r in rows) / max(1, sum(r['opp'] for r in rows)):5.0%}"
        )
    n = len(lay_rows)
    print(
        f"all lays ({n}): mean regret (points of win chance) "
        + ", ".join(f"{k} {100 * v / n:.2f}" for k, v in tot_regret.items())
    )
    best_hits = sum(r["values"][r["choice"]] >= max(r["values"].values()) - 1e-12 for r in lay_rows)
    print(
        f"v1 chose a hindsight-best lay in {best_hits}/{n}; "
        f"mean legal lays {sum(r['n_lays'] for r in lay_rows) / n:.1f}"
    )
    for s in specs:
        cpu = sum(r["others"][s][1] for r in lay_rows) / n
        agree = sum(r["others"][s][0] == r["choice"] for r in lay_rows)
        print(f"{s}: same lay as v1 in {agree}/{n}, {cpu:.4f} CPU s per lay")
    for kind in ("target", "x5"):
        rows = [r for r in choice_rows if r["kind"] == kind]
        if not rows:
            continue
        reg = sum(max(r["values"].values()) - r["values"][r["choice"]] for r in rows) / len(rows)
        line = f"{kind}: {len(rows)} decisions, v1 regret {100 * reg:.2f}"
        for s in specs:
            x = sum(max(r["values"].values()) - r["values"][r["others"][s]] for r in rows) / len(rows)
            line += f", {s} {100 * x:.2f}"
        print(line)
    discards = [r for r in choice_rows if r["kind"] == "discard"]
    print(f"discard decisions: {len(discards)} (rounds {sorted({r['round'] for r in discards})})")


@app.command()
def rollout(
    games: Annotated[int, typer.Option(min=1)] = 20,
    first_seed: Annotated[int, typer.Option(min=0)] = 82000,
    rollouts: Annotated[int, typer.Option(min=1)] = 24,
    max_round: Annotated[int, typer.Option(min=1)] = 4,
    bots: Annotated[str, typer.Option(help="Comma-separated seat specs to judge.")] = "medium",
) -> None:
    """Real regret: every legal lay of the source's decisions in rounds up to
    ``--max-round`` played out to the end of the game ``--rollouts`` times
    from the true state (the draw pile reshuffled per play-out, the same
    shuffles for every lay; every seat's bot continues as a copy of itself),
    scored by the games won."""
    specs = [b.strip() for b in bots.split(",") if b.strip()]
    game = get_game("schmaus")
    rows: list[dict[str, Any]] = []
    t0 = time.perf_counter()
    for g in range(games):
        seat, seed = g % PLAYERS, first_seed + g // PLAYERS
        state = game.new_state(PLAYERS, seed)
        table: list[Any] = [
            HardBot("schmaus", s, seed) if s == seat else make_bot("schmaus", "medium", s, seed)
            for s in range(PLAYERS)
        ]
        while not state.is_over():
            for s in state.to_move():
                if s not in state.to_move():
                    continue
                view = state.view(s)
                legal = list(state.legal_action_ids(s))
                lays = [i for i in legal if i < A.TARGET_BASE]
                if s == seat and len(lays) > 1 and view["round"] <= max_round:
                    before = copy.deepcopy(table)
                    action = table[s].choose(view, legal)
                    q = dict.fromkeys(lays, 0.0)
                    for k in range(rollouts):
                        for lay in lays:
                            st = state.clone()
                            random.Random(f"rollout/{seed}/{view['round']}/{k}").shuffle(st.draw_pile)
                            bs = copy.deepcopy(before)
                            st.apply_id(s, lay)
                            q[lay] += _finish(st, bs, seat) / rollouts
                    others = {}
                    for j, spec in enumerate(specs):
                        bot = make_bot("schmaus", spec, seat, 90000 + 7919 * g + j)
                        others[spec] = bot.choose(view, legal)
                    rows.append({"round": view["round"], "choice": action, "q": q, "others": others})
                else:
                    action = table[s].choose(view, legal)
                state.apply_id(s, action)
                if state.is_over():
                    break
        print(f"game {g + 1}/{games}: {len(rows)} decisions, {time.perf_counter() - t0:.0f} s", flush=True)
    print(
        f"{games} games (seeds {first_seed}..{first_seed + (games - 1) // PLAYERS}), "
        f"{rollouts} play-outs per lay"
    )
    names = ["v1", *specs]
    for rnd in [*sorted({r["round"] for r in rows}), 0]:
        sel = [r for r in rows if rnd == 0 or r["round"] == rnd]
        n = len(sel)
        best = sum(max(r["q"].values()) for r in sel) / n
        mean = sum(sum(r["q"].values()) / len(r["q"]) for r in sel) / n
        line = f"round {rnd or 'all'}: {n} decisions, best lay {100 * best:.1f}, mean lay {100 * mean:.1f}"
        for name in names:
            v = sum(r["q"][r["choice"] if name == "v1" else r["others"][name]] for r in sel) / n
            line += f", {name} {100 * v:.1f}"
        print(line)


class Peeker(HardBotV5):
    """hard@v5 that is told the opponents' real hands (a bound, not a bot: it
    reads the state). With ``lays``, the lays already made this round too."""

    def __init__(self, state: State, lays: bool, *args: Any) -> None:
        super().__init__(*args)
        self.state, self.lays = state, lays

    def _deal(self, rest: Any, sizes: Any, *args: Any) -> dict[int, list[int]]:
        hands = {}
        for s in sizes:
            hand = list(self.state.hands[s])  # type: ignore[attr-defined]
            for k in self.state.plays[s] or ():  # type: ignore[attr-defined]
                hand[k] += 1
            hands[s] = hand
        return hands

    def _opponents_lays(self, search: _Search, dealt: Any) -> list[int]:
        table = super()._opponents_lays(search, dealt)
        for s in dealt:
            play = self.state.plays[s]  # type: ignore[attr-defined]
            table[s] = A.PLAY_ID[play] if self.lays and play is not None else search.medium(dealt[s])
        return table


@app.command()
def peek(
    games: Annotated[int, typer.Option(min=1)] = 400,
    first_seed: Annotated[int, typer.Option(min=0)] = 990000,
) -> None:
    """Win rates against 3× medium of hard@v5, of hard@v5 told the opponents'
    hands, and told their hands and this round's lays made so far, on the
    same games (seat ``g % 4`` of deal seed ``first_seed + g // 4``)."""
    game = get_game("schmaus")
    wins = dict.fromkeys(("hard@v5", "told the hands", "told the hands and lays"), 0)
    t0 = shown = time.perf_counter()
    for g in range(games):
        seat, seed = g % PLAYERS, first_seed + g // PLAYERS
        for mode in wins:
            state = game.new_state(PLAYERS, seed)
            hard: Any = (
                HardBotV5("schmaus", seat, seed)
                if mode == "hard@v5"
                else Peeker(state, mode.endswith("lays"), "schmaus", seat, seed)
            )
            table = [hard if s == seat else make_bot("schmaus", "medium", s, seed) for s in range(PLAYERS)]
            fallback = random.Random(seed)
            while not state.is_over():
                s = state.to_move()[0]
                state.apply_id(s, decide(table[s], state, s, fallback)[0])
            outcome = state.outcome()
            wins[mode] += outcome is not None and seat in outcome.winners
        now = time.perf_counter()
        if now - shown >= 2 or g + 1 == games:  # rate and ETA from the first seconds
            shown, rate = now, (g + 1) / (now - t0)
            print(f"{g + 1}/{games} games, {rate:.1f}/s, ETA {(games - g - 1) / rate:.0f} s", flush=True)
    for mode, won in wins.items():
        lo, hi = wilson(won, games)
        print(f"{mode}: won {won}/{games} = {won / games:.1%} (95% {lo:.1%}-{hi:.1%})")


def _finish(state: Any, bots: list[Any], seat: int) -> bool:
    while not state.is_over():
        for s in state.to_move():
            if s not in state.to_move():
                continue
            state.apply_id(s, bots[s].choose(state.view(s), list(state.legal_action_ids(s))))
            if state.is_over():
                break
    return seat in state.outcome().winners


if __name__ == "__main__":
    app()
