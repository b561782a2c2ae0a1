"""AlphaZero with a PyTorch network on kalaha's vectorised environment and batched Gumbel search,
judged against perfect play as it trains.

    python examples/python/alphazero_torch.py --minutes 10 --out experiments/python-research/alphazero

Needs ``pip install ./python torch``. Self-play: ``--games`` games in a ``kalaha.VecEnv``, every
move searched by ``kalaha.search`` (``--simulations``, Gumbel noise at temperature 1 for the first
``--explore-moves`` moves of a game, then 0.25) with the PyTorch network as its evaluator; each
position's target is the search's improved policy and the game's result for its mover. Learning:
AdamW on the last ``--replay`` positions, ``--steps`` batches of ``--batch`` after every
``--moves`` moves of all games; loss = cross-entropy to the improved policy + squared error of
the value. Every ``--judge-every`` seconds ``kalaha.judge`` scores the network alone on the
1,200-position judge set (wall time and positions played beside it); the curve goes to
``OUT/curve.json`` and the weights to ``OUT/model.pt`` (written to a temporary name and renamed;
Ctrl-C stops after the current move and writes both).
"""

from __future__ import annotations

import argparse
import json
import signal
import time
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F

import kalaha
from kalaha.torch import TorchNetwork


class Replay:
    """The last ``capacity`` positions: observation, mask, policy target, value target."""

    def __init__(self, capacity: int, obs_dim: int, actions: int):
        self.obs = np.zeros((capacity, obs_dim), np.float32)
        self.mask = np.zeros((capacity, actions), bool)
        self.policy = np.zeros((capacity, actions), np.float32)
        self.value = np.zeros(capacity, np.float32)
        self.size = self.next = 0

    def add(self, obs, mask, policy, value):
        for i in range(len(obs)):
            j = self.next
            self.obs[j], self.mask[j], self.policy[j], self.value[j] = obs[i], mask[i], policy[i], value[i]
            self.next = (j + 1) % len(self.obs)
            self.size = min(self.size + 1, len(self.obs))

    def sample(self, n: int, rng: np.random.Generator):
        i = rng.integers(0, self.size, n)
        return self.obs[i], self.mask[i], self.policy[i], self.value[i]


def save_atomic(obj, path: Path, text: bool = False) -> None:
    tmp = path.with_name(path.name + ".tmp")
    if text:
        tmp.write_text(json.dumps(obj, indent=2))
    else:
        torch.save(obj, tmp)
    tmp.replace(path)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--minutes", type=float, default=10.0)
    ap.add_argument("--games", type=int, default=256)
    ap.add_argument("--simulations", type=int, default=32)
    ap.add_argument("--hidden", type=int, default=256)
    ap.add_argument("--layers", type=int, default=4)
    ap.add_argument("--explore-moves", type=int, default=30)
    ap.add_argument("--replay", type=int, default=200_000)
    ap.add_argument("--moves", type=int, default=8, help="moves of every game between learning rounds")
    ap.add_argument("--steps", type=int, default=16)
    ap.add_argument("--batch", type=int, default=1024)
    ap.add_argument("--lr", type=float, default=2e-3)
    ap.add_argument("--judge-every", type=float, default=60.0, help="seconds")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", type=Path, default=Path("alphazero-out"))
    a = ap.parse_args()
    a.out.mkdir(parents=True, exist_ok=True)
    torch.manual_seed(a.seed)
    torch.set_num_threads(a.threads)
    rng = np.random.default_rng(a.seed)

    rules = kalaha.Rules()
    m, actions = rules.pits, rules.action_count
    net = TorchNetwork(m, rules.seeds, "onehot", "plain", a.hidden, a.layers, "relu", False)
    opt = torch.optim.AdamW(net.parameters(), lr=a.lr, weight_decay=1e-4)

    @torch.inference_mode()
    def evaluator(obs):
        logits, value, margin = net(torch.from_numpy(obs))
        return logits.numpy(), value.numpy(), margin.numpy()

    def agent(obs, mask):
        with torch.inference_mode():
            return net(torch.from_numpy(obs))[0].numpy()

    env = kalaha.VecEnv(a.games, rules, seed=a.seed, threads=a.threads)
    obs, mask, to_play = env.reset(seed=a.seed)
    # Each game's positions so far: (obs, mask, policy, mover).
    games: list[list] = [[] for _ in range(a.games)]
    replay = Replay(a.replay, rules.obs_dim, actions)
    stop = {"now": False}
    signal.signal(signal.SIGINT, lambda *_: stop.update(now=True))

    start = time.perf_counter()
    curve, positions, finished, steps_done, moves = [], 0, 0, 0, 0
    next_judge = 0.0
    while not stop["now"]:
        elapsed = time.perf_counter() - start
        if elapsed >= next_judge or elapsed >= 60 * a.minutes:
            net.eval()
            r = kalaha.judge(agent)
            curve.append({
                "seconds": round(elapsed, 1), "positions": positions, "games": finished,
                "gradient_steps": steps_done, "optimal_rate": r["optimal_rate"], "std_err": r["std_err"],
                "inside_db": r["inside_db"]["optimal_rate"], "outside_db": r["outside_db"]["optimal_rate"],
            })
            print(json.dumps(curve[-1]), flush=True)
            save_atomic(curve, a.out / "curve.json", text=True)
            next_judge += a.judge_every
            if elapsed >= 60 * a.minutes:
                break
        net.eval()
        temps = np.array([1.0 if len(g) < a.explore_moves else 0.25 for g in games], np.float32)
        out = kalaha.search(env, evaluator, simulations=a.simulations, temperature=temps, seed=int(rng.integers(2**63)))
        for g in range(a.games):
            games[g].append((obs[g], mask[g], out["policy"][g], to_play[g]))
        mover = to_play
        obs, mask, to_play, reward, done = env.step(out["action"])
        positions += a.games
        moves += 1
        for g in np.flatnonzero(done):
            traj = games[g]
            z = np.array([reward[g] if p == mover[g] else -reward[g] for (_, _, _, p) in traj], np.float32)
            replay.add(np.stack([t[0] for t in traj]), np.stack([t[1] for t in traj]), np.stack([t[2] for t in traj]), z)
            games[g] = []
            finished += 1
        if moves % a.moves == 0 and replay.size >= a.batch:
            net.train()
            for _ in range(a.steps):
                o, mk, p, v = (torch.from_numpy(x) for x in replay.sample(a.batch, rng))
                logits, value, _ = net(o)
                logp = F.log_softmax(logits.masked_fill(~mk, -1e9), dim=1)
                loss = -(p * logp).sum(dim=1).mean() + F.mse_loss(value, v)
                opt.zero_grad()
                loss.backward()
                opt.step()
                steps_done += 1
    save_atomic(net.state_dict(), a.out / "model.pt")
    save_atomic(curve, a.out / "curve.json", text=True)
    print(f"wrote {a.out / 'model.pt'} and {a.out / 'curve.json'}")


if __name__ == "__main__":
    main()
