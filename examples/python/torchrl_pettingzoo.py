"""TorchRL's ``PettingZooWrapper`` on ``kalah_v0`` (the PettingZoo AEC game), unwrapped.

    python examples/python/torchrl_pettingzoo.py --steps 300

Needs ``pip install ./python torchrl pettingzoo``. The AEC game goes in as PettingZoo makes it:
TorchRL finds the ``action_mask`` in each agent's observation dict, masks its action spec with it
(``use_mask=True`` marks which agent acts), and a rollout with random legal actions plays whole
games, resetting as they end. Prints the games played and each player's results.
"""

from __future__ import annotations

import argparse

import torch
from torchrl.envs import PettingZooWrapper
from torchrl.envs.utils import MarlGroupMapType

from kalaha import kalah_v0


def make_env(seed: int = 0) -> PettingZooWrapper:
    """``kalah_v0`` in TorchRL, one group per agent (the two players), categorical actions."""
    return PettingZooWrapper(
        env=kalah_v0.env(),
        use_mask=True,
        categorical_actions=True,
        group_map=MarlGroupMapType.ONE_GROUP_PER_AGENT,
        seed=seed,
    )


def random_games(steps: int, seed: int = 0) -> dict:
    """``steps`` steps of random legal moves; the games finished and player_0's results."""
    torch.manual_seed(seed)
    env = make_env(seed)
    rollout = env.rollout(steps, break_when_any_done=False)
    done = rollout["next", "done"].squeeze(-1)
    rewards = rollout["next", "player_0", "reward"].reshape(len(done), -1)[:, 0]
    ends = rewards[done]
    return {
        "steps": len(done),
        "games": int(done.sum()),
        "player_0": {"wins": int((ends > 0).sum()), "draws": int((ends == 0).sum()), "losses": int((ends < 0).sum())},
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--steps", type=int, default=300)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    print(random_games(args.steps, args.seed))


if __name__ == "__main__":
    main()
