#!/usr/bin/env python3
"""CleanRL-style PPO for Waschbär-Schmaus on PyTorch (CPU), one file.

The learner plays one seat of ``spieltisch/Schmaus-v0`` (the Gymnasium
environment of ``spieltisch.rl``); the other seats are built-in bots. The
policy is a small MLP over the 143-entry observation tensor with **masked
logits** (illegal ids get ``-inf``), trained with PPO (GAE, clipped
objective, value loss, entropy bonus). Needs the extras ``rl`` and ``train``::

    pip install -e ".[rl,train]"
    python examples/ppo_schmaus.py train --minutes 30 --players 2 --opponents easy --out schmaus.pt
    python examples/ppo_schmaus.py train --minutes 60 --players 4 --opponents easy --league 8 --out league.pt
    python examples/ppo_schmaus.py eval --model schmaus.pt --games 400
    spieltisch play schmaus --seat 1="cmd:python examples/ppo_schmaus.py bot --model schmaus.pt"

**Self-play with a league** (``--league N``): every ``--snapshot-every`` updates the
policy is saved as a league member (``OUT.league/UPDATE.pt``, the newest ``N`` kept);
at every new game each opponent seat is, with probability ``--league-share``, a
member drawn at random (seated in-process as ``py:THIS_FILE:league_bot:MEMBER``,
playing greedily), otherwise ``--opponents``. Everything random comes from
``--seed``. A progress bar shows updates, speed and the recent win rate; at the
end the learning curve (training games' win rate and, every ``--eval-every``
updates, the greedy policy's against ``--opponents`` with its 95% interval) is
written as ``OUT.png`` and ``OUT.csv``.

``bot`` speaks the JSON-lines bot protocol (docs/bot-protocol.md), so the
learned policy can sit at any table or in the lab as a ``cmd:`` seat.
Win rates come with a 95% Wilson interval; a shared win (W-18) counts as a win.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import torch
from rich.console import Console
from rich.progress import BarColumn, Progress, TaskProgressColumn, TextColumn, TimeElapsedColumn
from torch import nn

from spieltisch.progress import EtaColumn
from spieltisch.rl.envs.gym_env import SpieltischEnv
from spieltisch.rl.schmaus import obs as schmaus_obs

OBS = schmaus_obs.OBS_SIZE
ACTIONS = schmaus_obs.NUM_ACTIONS


class Agent(nn.Module):
    """Actor-critic MLP; the actor's logits are masked to the legal ids."""

    def __init__(self, hidden: int = 256) -> None:
        super().__init__()
        self.hidden = hidden
        self.body = nn.Sequential(nn.Linear(OBS, hidden), nn.Tanh(), nn.Linear(hidden, hidden), nn.Tanh())
        self.actor = nn.Linear(hidden, ACTIONS)
        self.critic = nn.Linear(hidden, 1)
        nn.init.orthogonal_(self.actor.weight, 0.01)
        nn.init.zeros_(self.actor.bias)

    def logits(self, obs: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        raw: torch.Tensor = self.actor(self.body(obs))
        return raw.masked_fill(~mask, -1e9)

    def value(self, obs: torch.Tensor) -> torch.Tensor:
        out: torch.Tensor = self.critic(self.body(obs))
        return out.squeeze(-1)

    def act(
        self, obs: torch.Tensor, mask: torch.Tensor, action: torch.Tensor | None = None
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
        """Sample (or score) an action: (action, log-prob, entropy, value)."""
        hidden: torch.Tensor = self.body(obs)
        logits: torch.Tensor = self.actor(hidden)
        logp_all = torch.log_softmax(logits.masked_fill(~mask, -1e9), dim=-1)
        if action is None:
            action = torch.multinomial(logp_all.exp(), 1).squeeze(-1)
        logp = logp_all.gather(-1, action.unsqueeze(-1)).squeeze(-1)
        entropy = -(logp_all.exp() * logp_all).sum(-1)
        value: torch.Tensor = self.critic(hidden)
        return action, logp, entropy, value.squeeze(-1)


def save(agent: Agent, path: Path, meta: dict[str, Any]) -> None:
    torch.save({"state_dict": agent.state_dict(), "hidden": agent.hidden, "meta": meta}, path)


def load(path: Path) -> Agent:
    data = torch.load(path, map_location="cpu", weights_only=True)
    agent = Agent(int(data["hidden"]))
    agent.load_state_dict(data["state_dict"])
    agent.eval()
    return agent


def greedy(agent: Agent, obs: np.ndarray, legal: Sequence[int]) -> int:
    """The policy's most likely legal id (deterministic play for eval and bot)."""
    mask = torch.zeros(ACTIONS, dtype=torch.bool)
    mask[list(legal)] = True
    with torch.no_grad():
        logits = agent.logits(torch.as_tensor(obs).unsqueeze(0), mask.unsqueeze(0))
    return int(logits.argmax(-1).item())


_MEMBERS: dict[str, Agent] = {}
"""League members loaded in this process, by file."""


class LeaguePlayer:
    """A saved policy at a table: the greedy legal id from the seat's view."""

    def __init__(self, agent: Agent) -> None:
        self.agent = agent

    def choose(self, view: Any, legal: Sequence[int]) -> int:
        return greedy(self.agent, schmaus_obs.observation(view), legal)


def league_bot(game: str, seat: int, seed: int, arg: str | None = None) -> LeaguePlayer:
    """The factory of a ``py:examples/ppo_schmaus.py:league_bot:MODEL`` seat."""
    if game != "schmaus" or arg is None:
        raise ValueError("league_bot plays Waschbär-Schmaus and needs a model file: league_bot:MODEL.pt")
    if arg not in _MEMBERS:
        torch.set_num_threads(1)
        _MEMBERS[arg] = load(Path(arg))
    return LeaguePlayer(_MEMBERS[arg])


def wilson(wins: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """95% Wilson score interval of a win rate."""
    if n == 0:
        return 0.0, 1.0
    p = wins / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def evaluate(agent: Agent, players: int, opponents: str, games: int, seed: int) -> tuple[int, int]:
    """Wins of the greedy policy at seat 0 over ``games`` games (seeds seed, seed+1, ...)."""
    env = SpieltischEnv("schmaus", players=players, opponents=opponents)
    wins = 0
    for g in range(games):
        obs, _ = env.reset(seed=seed + g)
        info: dict[str, Any] = {}
        done = False
        while not done:
            legal = np.flatnonzero(obs["action_mask"]).tolist()
            obs, _, over, truncated, info = env.step(greedy(agent, obs["observation"], legal))
            done = over or truncated
        wins += int(0 in info.get("winners", []))
    env.close()
    return wins, games


def train(args: argparse.Namespace) -> Agent:
    torch.manual_seed(args.seed)
    torch.set_num_threads(1)
    rng = np.random.default_rng(args.seed)
    envs = [
        SpieltischEnv("schmaus", players=args.players, opponents=args.opponents) for _ in range(args.num_envs)
    ]
    agent = Agent(args.hidden)
    optimizer = torch.optim.Adam(agent.parameters(), lr=args.lr, eps=1e-5)
    n, t_len = args.num_envs, args.num_steps
    obs_buf = torch.zeros((t_len, n, OBS))
    mask_buf = torch.zeros((t_len, n, ACTIONS), dtype=torch.bool)
    act_buf = torch.zeros((t_len, n), dtype=torch.long)
    logp_buf = torch.zeros((t_len, n))
    rew_buf = torch.zeros((t_len, n))
    done_buf = torch.zeros((t_len, n))
    val_buf = torch.zeros((t_len, n))

    league: list[Path] = []
    league_dir = args.out.parent / f"{args.out.name}.league"

    def new_game(env: SpieltischEnv) -> dict[str, Any]:
        """Reset ``env`` with this game's opponents: league members or ``--opponents``."""
        specs = []
        for _ in range(args.players - 1):
            if league and rng.random() < args.league_share:
                specs.append(
                    f"py:{Path(__file__).resolve()}:league_bot:{league[int(rng.integers(len(league)))]}"
                )
            else:
                specs.append(args.opponents)
        env.specs = specs
        return env.reset(seed=int(rng.integers(2**31)))[0]

    current = [new_game(env) for env in envs]
    finished: list[int] = []  # 1 per won training game, 0 per lost
    curve: list[dict[str, float]] = []
    start_wall, start_cpu = time.monotonic(), time.process_time()
    deadline = start_wall + args.minutes * 60
    update = 0
    steps = 0
    bar = Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        TaskProgressColumn(),
        TimeElapsedColumn(),
        EtaColumn(),
        console=Console(stderr=True),
        disable=args.quiet,
    )
    task = bar.add_task("training", total=args.updates if args.updates is not None else args.minutes * 60)
    bar.start()
    while time.monotonic() < deadline and (args.updates is None or update < args.updates):
        update += 1
        for t in range(t_len):
            obs_buf[t] = torch.as_tensor(np.stack([o["observation"] for o in current]))
            mask_buf[t] = torch.as_tensor(np.stack([o["action_mask"] for o in current]) > 0)
            with torch.no_grad():
                action, logp, _, value = agent.act(obs_buf[t], mask_buf[t])
            act_buf[t], logp_buf[t], val_buf[t] = action, logp, value
            for i, env in enumerate(envs):
                obs, reward, over, truncated, info = env.step(int(action[i]))
                shaped = float(reward) / args.score_scale
                if over or truncated:
                    won = 0 in info.get("winners", [])
                    finished.append(int(won))
                    shaped += 1.0 if won else -1.0
                    obs = new_game(env)
                rew_buf[t, i] = shaped
                done_buf[t, i] = float(over or truncated)
                current[i] = obs
        steps += t_len * n

        with torch.no_grad():  # GAE; done_buf[t] means the game ended after step t
            next_value = agent.value(torch.as_tensor(np.stack([o["observation"] for o in current])))
            adv = torch.zeros((t_len, n))
            last = torch.zeros(n)
            for t in reversed(range(t_len)):
                nonterminal = 1.0 - done_buf[t]
                nv = next_value if t == t_len - 1 else val_buf[t + 1]
                delta = rew_buf[t] + args.gamma * nv * nonterminal - val_buf[t]
                last = delta + args.gamma * args.gae_lambda * nonterminal * last
                adv[t] = last
            returns = adv + val_buf

        b_obs, b_mask = obs_buf.reshape(-1, OBS), mask_buf.reshape(-1, ACTIONS)
        b_act, b_logp = act_buf.reshape(-1), logp_buf.reshape(-1)
        b_adv, b_ret = adv.reshape(-1), returns.reshape(-1)
        batch = t_len * n
        mb = max(1, batch // args.minibatches)
        for _ in range(args.epochs):
            order = torch.randperm(batch)
            for s in range(0, batch, mb):
                idx = order[s : s + mb]
                _, new_logp, entropy, new_value = agent.act(b_obs[idx], b_mask[idx], b_act[idx])
                ratio = (new_logp - b_logp[idx]).exp()
                a = b_adv[idx]
                a = (a - a.mean()) / (a.std() + 1e-8) if len(idx) > 1 else a
                pg = torch.max(-a * ratio, -a * ratio.clamp(1 - args.clip, 1 + args.clip)).mean()
                v_loss = 0.5 * ((new_value - b_ret[idx]) ** 2).mean()
                loss = pg + args.vf_coef * v_loss - args.ent_coef * entropy.mean()
                optimizer.zero_grad()
                loss.backward()
                nn.utils.clip_grad_norm_(agent.parameters(), 0.5)
                optimizer.step()

        if args.league and update % args.snapshot_every == 0:
            league_dir.mkdir(parents=True, exist_ok=True)
            member = league_dir / f"{update:05d}.pt"
            save(agent, member, {"update": update, "steps": steps})
            league.append(member)
            del league[: -args.league]  # the newest N past policies
        wall = time.monotonic() - start_wall
        recent = finished[-200:]
        rate = sum(recent) / len(recent) if recent else float("nan")
        point = {"update": update, "steps": steps, "train_win_rate": rate, "league": len(league)}
        if args.eval_every and update % args.eval_every == 0:
            agent.eval()
            wins, games = evaluate(agent, args.players, args.opponents, args.curve_games, 2_000_000 + update)
            agent.train()
            low, high = wilson(wins, games)
            point |= {"eval_win_rate": wins / games, "eval_low": low, "eval_high": high}
        curve.append(point)
        bar.update(
            task,
            completed=update if args.updates is not None else min(wall, args.minutes * 60),
            description=f"update {update} · {steps / max(wall, 1e-9):,.0f} steps/s · win rate {rate:.2f} "
            f"(last {len(recent)}) · league {len(league)}",
        )
    bar.stop()
    for env in envs:
        env.close()
    write_curve(curve, args.out, args.players, args.opponents)
    cpu = time.process_time() - start_cpu
    print(
        f"trained {update} updates, {steps} steps, {len(finished)} games in "
        f"{time.monotonic() - start_wall:.0f} s wall / {cpu:.0f} s CPU",
        file=sys.stderr,
    )
    agent.eval()
    return agent


def write_curve(curve: list[dict[str, float]], out: Path, players: int, opponents: str) -> None:
    """The learning curve as ``OUT.csv`` and, with matplotlib, a plot ``OUT.png``."""
    keys = ["update", "steps", "train_win_rate", "league", "eval_win_rate", "eval_low", "eval_high"]
    with out.with_suffix(".csv").open("w", encoding="utf-8") as f:
        f.write(",".join(keys) + "\n")
        for point in curve:
            f.write(",".join(str(point.get(k, "")) for k in keys) + "\n")
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        from matplotlib.ticker import FuncFormatter
    except ImportError:
        print("no matplotlib (pip install 'spieltisch[lab]'): the curve is only in the CSV", file=sys.stderr)
        return
    fig, ax = plt.subplots(figsize=(8, 4.5))
    steps = [p["steps"] for p in curve]
    ax.plot(steps, [p["train_win_rate"] for p in curve], label="training games (last 200)", color="#888")
    evals = [p for p in curve if "eval_win_rate" in p]
    if evals:
        x = [p["steps"] for p in evals]
        ax.plot(
            x,
            [p["eval_win_rate"] for p in evals],
            "o-",
            color="#1f6feb",
            label=f"greedy policy vs {opponents}",
        )
        ax.fill_between(
            x,
            [p["eval_low"] for p in evals],
            [p["eval_high"] for p in evals],
            color="#1f6feb",
            alpha=0.2,
            label="95% interval",
        )
    ax.axhline(1 / players, linestyle="--", color="#c00", label=f"fair share ({1 / players:.0%})")
    ax.set_xlabel("training decisions")
    ax.xaxis.set_major_formatter(FuncFormatter(lambda x, _: f"{x:,.0f}"))
    ax.set_ylabel("share of games won")
    ax.set_ylim(0, 1)
    ax.set_title(f"Waschbär-Schmaus PPO, {players} players: how often the policy wins")
    ax.legend(loc="upper left")
    fig.tight_layout()
    fig.savefig(out.with_suffix(".png"), dpi=110)
    plt.close(fig)


def report(agent: Agent, players: int, opponents: str, games: int, seed: int) -> None:
    wins, n = evaluate(agent, players, opponents, games, seed)
    low, high = wilson(wins, n)
    print(
        f"vs {opponents} ({players} players, learner at seat 0, greedy): won {wins}/{n} = "
        f"{wins / n:.3f}, 95% Wilson interval [{low:.3f}, {high:.3f}]; "
        f"an even share is {1 / players:.3f}"
    )


def bot(agent: Agent) -> int:
    """The JSON-lines bot protocol (version 1) on stdin/stdout; logs to stderr."""

    def send(message: dict[str, object]) -> None:
        sys.stdout.write(json.dumps(message) + "\n")
        sys.stdout.flush()

    for line in sys.stdin:
        if not line.strip():
            continue
        message = json.loads(line)
        kind = message.get("type")
        if kind == "hello":
            if message.get("protocol") != 1 or message.get("game") != "schmaus":
                print(
                    f"ppo_schmaus: needs protocol 1 and game 'schmaus', got {message.get('protocol')} "
                    f"and {message.get('game')!r}",
                    file=sys.stderr,
                )
                return 1
            send({"type": "ready", "name": "ppo_schmaus"})
        elif kind == "decide":
            legal = [int(entry["id"]) for entry in message["legal"]]
            obs = schmaus_obs.observation(message["view"])
            send({"type": "action", "id": greedy(agent, obs, legal)})
        elif kind == "error":
            print(f"ppo_schmaus: the table refused an answer: {message.get('message')}", file=sys.stderr)
        elif kind in ("game_over", "quit"):
            return 0
    return 0


def parse(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0] if __doc__ else None)
    sub = parser.add_subparsers(dest="command", required=True)
    tr = sub.add_parser("train", help="train a policy and save it")
    tr.add_argument("--minutes", type=float, default=30.0, help="wall-clock training budget")
    tr.add_argument("--updates", type=int, default=None, help="stop after this many PPO updates")
    tr.add_argument("--seed", type=int, default=0)
    tr.add_argument("--players", type=int, default=2)
    tr.add_argument("--opponents", default="easy", help="seat spec of every other seat")
    tr.add_argument("--out", type=Path, default=Path("schmaus_ppo.pt"))
    tr.add_argument("--num-envs", type=int, default=8)
    tr.add_argument("--num-steps", type=int, default=128)
    tr.add_argument("--hidden", type=int, default=256)
    tr.add_argument("--lr", type=float, default=2.5e-4)
    tr.add_argument("--gamma", type=float, default=0.995)
    tr.add_argument("--gae-lambda", type=float, default=0.95)
    tr.add_argument("--clip", type=float, default=0.2)
    tr.add_argument("--epochs", type=int, default=4)
    tr.add_argument("--minibatches", type=int, default=4)
    tr.add_argument("--ent-coef", type=float, default=0.01)
    tr.add_argument("--vf-coef", type=float, default=0.5)
    tr.add_argument("--score-scale", type=float, default=100.0, help="score change per reward unit")
    tr.add_argument("--league", type=int, default=0, help="past policies kept as opponents (0: no league)")
    tr.add_argument("--snapshot-every", type=int, default=10, help="updates between league members")
    tr.add_argument("--league-share", type=float, default=0.5, help="chance an opponent seat is a member")
    tr.add_argument("--eval-every", type=int, default=0, help="updates between curve evaluations (0: none)")
    tr.add_argument("--curve-games", type=int, default=40, help="games per curve evaluation")
    tr.add_argument("-q", "--quiet", action="store_true", help="no progress bar")
    tr.add_argument(
        "--eval-games", type=int, default=200, help="games vs --opponents after training (0: none)"
    )
    ev = sub.add_parser("eval", help="win rate of a saved policy with a 95%% Wilson interval")
    ev.add_argument("--model", type=Path, required=True)
    ev.add_argument("--games", type=int, default=400)
    ev.add_argument("--players", type=int, default=2)
    ev.add_argument("--opponents", default="easy")
    ev.add_argument("--seed", type=int, default=1_000_000, help="first game seed (apart from training's)")
    bt = sub.add_parser("bot", help="play as a bot-protocol program (cmd: seat)")
    bt.add_argument("--model", type=Path, required=True)
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    args = parse(argv)
    if args.command == "train":
        agent = train(args)
        meta = {
            "players": args.players,
            "opponents": args.opponents,
            "seed": args.seed,
            "minutes": args.minutes,
        }
        save(agent, args.out, meta)
        print(f"saved {args.out}", file=sys.stderr)
        if args.eval_games > 0:
            report(agent, args.players, args.opponents, args.eval_games, 1_000_000)
        return 0
    torch.set_num_threads(1)
    agent = load(args.model)
    if args.command == "eval":
        report(agent, args.players, args.opponents, args.games, args.seed)
        return 0
    return bot(agent)


if __name__ == "__main__":
    sys.exit(main())
