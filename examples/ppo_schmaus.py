#!/usr/bin/env python3
"""CleanRL-style PPO for Waschbär-Schmaus on PyTorch (CPU), one file.

The learner plays one seat of ``spieltisch/Schmaus-v0`` (the Gymnasium
environment of ``spieltisch.rl``); the other seats are built-in bots. The
policy is a small MLP over the 143-entry observation tensor with **masked
logits** (illegal ids get ``-inf``), trained with PPO (GAE, clipped
objective, value loss, entropy bonus). Needs the extras ``rl`` and ``train``::

    pip install -e ".[rl,train]"
    python examples/ppo_schmaus.py train --minutes 30 --players 2 --opponents easy --out schmaus.pt
    python examples/ppo_schmaus.py eval --model schmaus.pt --games 400
    spieltisch play schmaus --seat 1="cmd:python examples/ppo_schmaus.py bot --model schmaus.pt"

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
from torch import nn

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

    current = [env.reset(seed=int(rng.integers(2**31)))[0] for env in envs]
    finished: list[int] = []  # 1 per won training game, 0 per lost
    start_wall, start_cpu = time.monotonic(), time.process_time()
    deadline = start_wall + args.minutes * 60
    update = 0
    steps = 0
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
                    obs, _ = env.reset(seed=int(rng.integers(2**31)))
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

        wall = time.monotonic() - start_wall
        if update % args.log_every == 0 or time.monotonic() >= deadline:
            recent = finished[-200:]
            rate = sum(recent) / len(recent) if recent else float("nan")
            left = max(0.0, deadline - time.monotonic())
            print(
                f"update {update}: {steps} steps, {steps / max(wall, 1e-9):.0f} steps/s wall, "
                f"{len(finished)} games, win rate (last {len(recent)} training games) {rate:.2f}, "
                f"{left / 60:.1f} min left",
                file=sys.stderr,
                flush=True,
            )
    for env in envs:
        env.close()
    cpu = time.process_time() - start_cpu
    print(
        f"trained {update} updates, {steps} steps, {len(finished)} games in "
        f"{time.monotonic() - start_wall:.0f} s wall / {cpu:.0f} s CPU",
        file=sys.stderr,
    )
    agent.eval()
    return agent


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
    tr.add_argument("--log-every", type=int, default=5)
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
