"""Train the `neural` bot level of a game from a seed (docs/bots.md, "neural").

Two steps, each reproducible from its seed:

    python examples/train_neural.py collect scout --games 400 --seed 1 --out data/scout.jsonl
    python examples/train_neural.py fit scout data/scout.jsonl --seed 1

``collect`` plays games in which some seats are ``hard`` and the rest ``medium``
and writes every decision a hard seat makes (its view, the legal ids and its
choice) as one JSON line. ``fit`` trains the level's scoring network to pick
hard's choice among the candidates the neural bot considers (imitation of the
search bot: a softmax over candidates, cross-entropy), with PyTorch on the CPU,
and writes the weights the bot loads with numpy
(``src/spieltisch/bots/<game>/neural.npz``).
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from pathlib import Path

from spieltisch.bots import make_bot
from spieltisch.bots.schmaus import neural as schmaus_neural
from spieltisch.bots.scout import bots as scout_bots
from spieltisch.bots.scout import neural as scout_neural
from spieltisch.engine import get_game
from spieltisch.engine.schmaus.actions import TARGET_BASE

HARD = {"scout": "hard:playouts=300", "schmaus": "hard"}
"""The teacher per game (Scout's at a reduced budget: its default costs ~0.4 CPU s a decision)."""


def collect(game: str, games: int, seed: int, out: Path, teacher: str | None = None) -> None:
    teacher = teacher or HARD[game]
    rng = random.Random(f"train_neural/collect/{game}/{seed}")
    out.parent.mkdir(parents=True, exist_ok=True)
    started = time.monotonic()
    written = 0
    with out.open("a", encoding="utf-8") as f:
        for g in range(games):
            players = rng.choice([4, 4, 4, 3, 5, 2] if game == "scout" else [4, 4, 4, 3, 5])
            hard = [rng.random() < 0.5 for _ in range(players)]
            if not any(hard):
                hard[rng.randrange(players)] = True
            game_seed = rng.randrange(1 << 30)
            bots = [make_bot(game, teacher if h else "medium", s, game_seed) for s, h in enumerate(hard)]
            state = get_game(game).new_state(players, game_seed, None)
            while not state.is_over():
                for seat in state.to_move():
                    if seat not in state.to_move():
                        continue
                    legal = state.legal_action_ids(seat)
                    view = state.view(seat)
                    choice = bots[seat].choose(view, legal)
                    if hard[seat] and len(legal) > 1:
                        f.write(json.dumps({"view": view, "legal": legal, "choice": choice}) + "\n")
                        written += 1
                    state.apply_id(seat, choice)
                    if state.is_over():
                        break
            f.flush()
            spent = time.monotonic() - started
            eta = spent / (g + 1) * (games - g - 1)
            print(
                f"{g + 1}/{games} games, {written} decisions, {written / spent:.1f}/s, "
                f"ETA {eta / 60:.0f} min",
                file=sys.stderr,
                flush=True,
            )


def decisions(game: str, path: Path) -> tuple[list[list[list[float]]], list[int]]:
    """Each recorded decision the network decides, as candidate rows and the teacher's index."""
    rows: list[list[list[float]]] = []
    targets: list[int] = []
    with path.open(encoding="utf-8") as f:
        for index, line in enumerate(f):
            record = json.loads(line)
            view, legal, choice = record["view"], record["legal"], record["choice"]
            if game == "scout":
                if view["phase"] == "flip" or scout_bots.round_length(view) > scout_bots.LONG_ROUND:
                    continue  # medium's decisions in the neural bot
                actions, cands = scout_neural.candidates(view, legal)
                same = (i for i, a in enumerate(actions) if scout_neural.same_position(view, a, choice))
                found = next(same, None)
            else:
                lays = [a for a in legal if a < TARGET_BASE]
                if len(lays) < 2:
                    continue
                cands = schmaus_neural.candidates(view, lays, schmaus_neural.training_rng(index))
                found = lays.index(choice)
            if found is not None and len(cands) > 1:
                rows.append(cands)
                targets.append(found)
    return rows, targets


def fit(game: str, paths: list[Path], seed: int, epochs: int, hidden: int, out: Path) -> None:
    import numpy as np
    import torch

    torch.manual_seed(seed)
    torch.set_num_threads(1)  # small batches: threads only wait for each other
    rows: list[list[list[float]]] = []
    targets: list[int] = []
    for path in paths:
        r, t = decisions(game, path)
        rows += r
        targets += t
    k = max(len(r) for r in rows)
    f = len(rows[0][0])
    x = np.zeros((len(rows), k, f), dtype=np.float32)
    valid = np.zeros((len(rows), k), dtype=bool)
    for i, r in enumerate(rows):
        x[i, : len(r)] = r
        valid[i, : len(r)] = True
    flat = x[valid]
    mean = flat.mean(axis=0)
    scale = flat.std(axis=0) + 1e-3
    order = np.random.default_rng(seed).permutation(len(rows))
    held = order[: len(rows) // 10]
    train = order[len(rows) // 10 :]
    xt = torch.from_numpy((x - mean) / scale) * torch.from_numpy(valid[..., None].astype(np.float32))
    vt = torch.from_numpy(valid)
    yt = torch.tensor(targets)
    net = torch.nn.Sequential(
        torch.nn.Linear(f, hidden),
        torch.nn.ReLU(),
        torch.nn.Linear(hidden, hidden),
        torch.nn.ReLU(),
        torch.nn.Linear(hidden, 1),
    )
    opt = torch.optim.Adam(net.parameters(), lr=1e-3, weight_decay=1e-4)

    def loss_and_accuracy(index: np.ndarray) -> tuple[torch.Tensor, float]:
        scores = net(xt[index]).squeeze(-1).masked_fill(~vt[index], -1e9)
        loss = torch.nn.functional.cross_entropy(scores, yt[index])
        return loss, float((scores.argmax(-1) == yt[index]).float().mean())

    medium = (scout_neural if game == "scout" else schmaus_neural).MEDIUM_INPUT
    picks = [int(np.argmax([c[medium] for c in r])) for r in rows]
    agrees = np.mean([pick == y for pick, y in zip(picks, targets, strict=True)])
    print(
        f"{len(rows)} decisions, {f} inputs, up to {k} candidates; medium agrees with the teacher "
        f"in {agrees:.1%}",
        file=sys.stderr,
    )
    started = time.monotonic()
    batches = np.random.default_rng(seed + 1)
    for epoch in range(epochs):
        net.train()
        shuffled = train[batches.permutation(len(train))]
        for start in range(0, len(train), 256):
            loss, _ = loss_and_accuracy(shuffled[start : start + 256])
            opt.zero_grad()
            loss.backward()
            opt.step()
        net.eval()
        with torch.no_grad():
            tl, ta = loss_and_accuracy(train)
            hl, ha = loss_and_accuracy(held)
        spent = time.monotonic() - started
        print(
            f"epoch {epoch + 1}/{epochs}: train loss {tl:.3f} agrees {ta:.1%}, held-out loss {hl:.3f} "
            f"agrees {ha:.1%} ({spent:.0f} s, ETA {spent / (epoch + 1) * (epochs - epoch - 1):.0f} s)",
            file=sys.stderr,
            flush=True,
        )
    layers = [m for m in net if isinstance(m, torch.nn.Linear)]
    arrays = {"mean": mean, "scale": scale}
    for i, m in enumerate(layers, 1):
        arrays[f"W{i}"] = m.weight.detach().numpy().T.astype(np.float32)
        arrays[f"b{i}"] = m.bias.detach().numpy().astype(np.float32)
    np.savez(out, **arrays)
    print(f"wrote {out}", file=sys.stderr)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    c = sub.add_parser("collect", help="record the teacher's decisions")
    c.add_argument("game", choices=["scout", "schmaus"])
    c.add_argument("--games", type=int, default=400)
    c.add_argument("--seed", type=int, default=1)
    c.add_argument("--out", type=Path, required=True)
    c.add_argument("--teacher", help="the teacher's bot spec (default: hard; Scout at 300 playouts)")
    t = sub.add_parser("fit", help="train the network on recorded decisions")
    t.add_argument("game", choices=["scout", "schmaus"])
    t.add_argument("data", type=Path, nargs="+")
    t.add_argument("--seed", type=int, default=1)
    t.add_argument("--epochs", type=int, default=30)
    t.add_argument("--hidden", type=int, default=32)
    t.add_argument("--out", type=Path, help="default: the package's weights file")
    args = parser.parse_args(argv)
    if args.command == "collect":
        collect(args.game, args.games, args.seed, args.out, args.teacher)
    else:
        out = args.out or Path(__file__).parent.parent / "src/spieltisch/bots" / args.game / "neural.npz"
        fit(args.game, args.data, args.seed, args.epochs, args.hidden, out)


if __name__ == "__main__":
    main()
