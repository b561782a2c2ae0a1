"""Masked PPO in one file of plain PyTorch, in the manner of CleanRL's ``ppo.py``, on
``kalaha/Kalah-v0`` through ``gymnasium.make_vec`` (Gymnasium's next-step autoreset).

    python examples/python/cleanrl_masked_ppo.py --total-steps 200000 --opponent random
    python examples/python/cleanrl_masked_ppo.py --minutes 5      # as many steps as 5 minutes allow

Needs ``pip install ./python torch``. Illegal actions get a logit of ``-1e8`` from
``info["action_mask"]``; the rest is CleanRL's PPO (GAE, clipped surrogate, value loss, entropy
bonus, minibatch epochs). Every ``--judge-every`` updates ``kalaha.judge`` scores the policy's
greedy move on the 1,200 solver-labelled positions (its logits of 6 actions are judged as they
are). Ctrl-C stops after the current update.
"""

from __future__ import annotations

import argparse
import time

import gymnasium as gym
import numpy as np
import torch
import torch.nn as nn
from torch.distributions import Categorical

import kalaha


def layer(n_in: int, n_out: int, std: float = np.sqrt(2)) -> nn.Linear:
    lin = nn.Linear(n_in, n_out)
    nn.init.orthogonal_(lin.weight, std)
    nn.init.zeros_(lin.bias)
    return lin


class Agent(nn.Module):
    def __init__(self, obs_dim: int, actions: int, hidden: int = 128):
        super().__init__()
        self.critic = nn.Sequential(layer(obs_dim, hidden), nn.Tanh(), layer(hidden, hidden), nn.Tanh(), layer(hidden, 1, 1.0))
        self.actor = nn.Sequential(
            layer(obs_dim, hidden), nn.Tanh(), layer(hidden, hidden), nn.Tanh(), layer(hidden, actions, 0.01)
        )

    def value(self, x: torch.Tensor) -> torch.Tensor:
        return self.critic(x).squeeze(-1)

    def act(self, x: torch.Tensor, mask: torch.Tensor, action: torch.Tensor | None = None):
        logits = self.actor(x).masked_fill(~mask, -1e8)
        dist = Categorical(logits=logits)
        if action is None:
            action = dist.sample()
        return action, dist.log_prob(action), dist.entropy(), self.value(x)

    def judge_agent(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """``kalaha.judge``'s agent: logits of this policy's actions (6 for Kalah(6,4))."""
        with torch.no_grad():
            return self.actor(torch.as_tensor(obs)).numpy()


def train(args) -> dict:
    torch.manual_seed(args.seed)
    envs = gym.make_vec("kalaha/Kalah-v0", num_envs=args.envs, opponent=args.opponent)
    n_obs = envs.single_observation_space.shape[0]
    n_act = envs.single_action_space.n
    agent = Agent(n_obs, n_act)
    opt = torch.optim.Adam(agent.parameters(), lr=args.lr, eps=1e-5)
    T, N = args.rollout, args.envs
    obs_buf = torch.zeros((T, N, n_obs))
    mask_buf = torch.zeros((T, N, n_act), dtype=torch.bool)
    act_buf = torch.zeros((T, N), dtype=torch.long)
    logp_buf, rew_buf, done_buf, val_buf = (torch.zeros((T, N)) for _ in range(4))
    valid_buf = torch.zeros((T, N), dtype=torch.bool)  # false on the step that only resets

    obs, info = envs.reset(seed=args.seed)
    obs, mask = torch.as_tensor(obs), torch.as_tensor(info["action_mask"]).bool()
    done = torch.zeros(N)
    steps, updates, curve = 0, 0, []
    started = time.monotonic()
    try:
        deadline = started + 60 * args.minutes if getattr(args, "minutes", None) else float("inf")
        while steps < args.total_steps and time.monotonic() < deadline:
            for t in range(T):
                obs_buf[t], mask_buf[t], done_buf[t] = obs, mask, done
                # Next-step autoreset: after an end, the next step only resets that game.
                valid_buf[t] = done == 0
                with torch.no_grad():
                    safe = torch.where(mask.any(1, keepdim=True), mask, torch.ones_like(mask))
                    action, logp, _, value = agent.act(obs, safe)
                act_buf[t], logp_buf[t], val_buf[t] = action, logp, value
                obs, reward, term, trunc, info = envs.step(action.numpy())
                rew_buf[t] = torch.as_tensor(reward, dtype=torch.float32)
                obs, mask = torch.as_tensor(obs), torch.as_tensor(info["action_mask"]).bool()
                done = torch.as_tensor(np.logical_or(term, trunc), dtype=torch.float32)
                steps += int(valid_buf[t].sum())
            with torch.no_grad():
                next_value = agent.value(obs)
                adv = torch.zeros((T, N))
                last = torch.zeros(N)
                for t in reversed(range(T)):
                    nv = next_value if t == T - 1 else val_buf[t + 1]
                    nd = done if t == T - 1 else done_buf[t + 1]
                    delta = rew_buf[t] + args.gamma * nv * (1 - nd) - val_buf[t]
                    last = delta + args.gamma * args.lam * (1 - nd) * last
                    adv[t] = last
                ret = adv + val_buf
            keep = valid_buf.reshape(-1)
            b_obs, b_mask = obs_buf.reshape(-1, n_obs)[keep], mask_buf.reshape(-1, n_act)[keep]
            b_act, b_logp = act_buf.reshape(-1)[keep], logp_buf.reshape(-1)[keep]
            b_adv, b_ret = adv.reshape(-1)[keep], ret.reshape(-1)[keep]
            idx = np.arange(len(b_obs))
            for _ in range(args.epochs):
                np.random.shuffle(idx)
                for s in range(0, len(idx), args.minibatch):
                    mb = idx[s : s + args.minibatch]
                    _, logp, ent, value = agent.act(b_obs[mb], b_mask[mb], b_act[mb])
                    ratio = (logp - b_logp[mb]).exp()
                    a = b_adv[mb]
                    a = (a - a.mean()) / (a.std() + 1e-8)
                    pg = torch.max(-a * ratio, -a * ratio.clamp(1 - args.clip, 1 + args.clip)).mean()
                    vloss = 0.5 * ((value - b_ret[mb]) ** 2).mean()
                    loss = pg + args.vf_coef * vloss - args.ent_coef * ent.mean()
                    opt.zero_grad()
                    loss.backward()
                    nn.utils.clip_grad_norm_(agent.parameters(), 0.5)
                    opt.step()
            updates += 1
            if args.judge_every and updates % args.judge_every == 0:
                r = kalaha.judge(agent.judge_agent)
                curve.append({"agent_steps": steps, "seconds": round(time.monotonic() - started, 1), "optimal_rate": r["optimal_rate"]})
                print(f"{steps} steps: {100 * r['optimal_rate']:.1f}% solver-optimal moves")
    except KeyboardInterrupt:
        print("stopped by Ctrl-C")
    report = kalaha.judge(agent.judge_agent)
    return {"agent_steps": steps, "updates": updates, "seconds": time.monotonic() - started, "judge": report, "curve": curve, "agent": agent}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--total-steps", type=int, default=200_000)
    ap.add_argument("--minutes", type=float, default=None, help="stop after this long (and at --total-steps)")
    ap.add_argument("--envs", type=int, default=8)
    ap.add_argument("--rollout", type=int, default=128)
    ap.add_argument("--epochs", type=int, default=4)
    ap.add_argument("--minibatch", type=int, default=256)
    ap.add_argument("--lr", type=float, default=2.5e-4)
    ap.add_argument("--gamma", type=float, default=0.99)
    ap.add_argument("--lam", type=float, default=0.95)
    ap.add_argument("--clip", type=float, default=0.2)
    ap.add_argument("--vf-coef", type=float, default=0.5)
    ap.add_argument("--ent-coef", type=float, default=0.01)
    ap.add_argument("--opponent", default="random")
    ap.add_argument("--judge-every", type=int, default=20)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    out = train(args)
    print(kalaha.research.summary(out["judge"]))


if __name__ == "__main__":
    main()
