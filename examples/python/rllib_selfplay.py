"""Self-play PPO on Kalah with Ray RLlib, env runners spread over processes.

    pip install ./python "ray[rllib]" torch
    python examples/python/rllib_selfplay.py --minutes 4 --env-runners 2 --out experiments/python-rllib

One policy (``main``) plays both seats (``player_0`` opens from South, ``player_1`` answers) of
``kalaha.multiagent.KalahMultiAgent``, the turn-based dict view of one game; illegal moves are
masked out of the policy's logits by RLlib's action-masking PPO module (the environment ends a
game lost on an illegal action only for RLlib's start-up check, which steps unmasked). Every ``--eval-every``
iterations the current policy plays greedily (its best legal move) against the ``random`` and
``greedy`` bots from both seats; each evaluation is one line of ``curve.jsonl`` in ``--out``, and a
summary goes to ``summary.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import time

import gymnasium as gym
import numpy as np

import kalaha
from kalaha.multiagent import AGENTS, KalahMultiAgent


def make_env_class():
    """The RLlib environment class: the package's adapter with RLlib's base class and spaces."""
    from ray.rllib.env.multi_agent_env import MultiAgentEnv

    class KalahRLlibEnv(KalahMultiAgent, MultiAgentEnv):
        def __init__(self, config=None):
            MultiAgentEnv.__init__(self)
            KalahMultiAgent.__init__(self, config)
            space = gym.spaces.Dict(
                {
                    "observations": gym.spaces.Box(0.0, 1.0, (self.rules.obs_dim,), np.float32),
                    "action_mask": gym.spaces.Box(0.0, 1.0, (self.rules.action_count,), np.float32),
                }
            )
            self.observation_spaces = {a: space for a in AGENTS}
            self.action_spaces = {a: gym.spaces.Discrete(self.rules.action_count) for a in AGENTS}

    return KalahRLlibEnv


def greedy_policy_action(module, obs: dict) -> int:
    """The module's most likely legal action for one observation."""
    import torch

    batch = {
        "obs": {
            "observations": torch.as_tensor(obs["observations"][None]),
            "action_mask": torch.as_tensor(obs["action_mask"][None]),
        }
    }
    with torch.no_grad():
        logits = module.forward_inference(batch)["action_dist_inputs"][0].numpy()
    logits = np.where(obs["action_mask"] > 0, logits, -np.inf)
    return int(np.argmax(logits))


def judged(module, rules) -> dict:
    """The policy's share of solver-optimal moves on the judge set of ``rules`` (``kalaha.judge``)."""
    import torch

    def agent(obs, mask):
        batch = {"obs": {"observations": torch.as_tensor(obs), "action_mask": torch.as_tensor(mask.astype(np.float32))}}
        with torch.no_grad():
            return module.forward_inference(batch)["action_dist_inputs"].numpy()

    r = kalaha.judge(agent, rules)
    return {k: r[k] for k in ("optimal_rate", "std_err", "mean_loss")} | {
        "inside_db": r["inside_db"]["optimal_rate"], "outside_db": r["outside_db"]["optimal_rate"]}


def evaluate(module, rules, opponent: str, games: int, seed: int) -> dict:
    """Score of the policy against a bot over ``games`` games from each seat."""
    wins = draws = losses = 0
    margin = 0
    bot = kalaha.Bot(opponent, seed=seed)
    for g in range(2 * games):
        me = AGENTS[g % 2]
        env = KalahMultiAgent({"rules": rules})
        obs, _ = env.reset()
        while True:
            agent = env.current_agent
            if agent == me:
                action = greedy_policy_action(module, env.observe(me))
            else:
                action = bot.act_action(env.position)
            obs, rewards, terms, _, infos = env.step({agent: action})
            if terms["__all__"]:
                r = rewards[me]
                wins += r > 0
                draws += r == 0
                losses += r < 0
                mine, theirs = infos[me]["score"]
                margin += mine - theirs
                break
    n = 2 * games
    return {"opponent": opponent, "games": n, "wins": wins, "draws": draws, "losses": losses,
            "score": (wins + 0.5 * draws) / n, "mean_margin": margin / n}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--minutes", type=float, default=4.0, help="wall-clock budget for training")
    ap.add_argument("--env-runners", type=int, default=2, help="env runner processes")
    ap.add_argument("--envs-per-runner", type=int, default=4)
    ap.add_argument("--batch", type=int, default=4000, help="train batch size (agent steps)")
    ap.add_argument("--eval-every", type=int, default=2)
    ap.add_argument("--eval-games", type=int, default=20, help="games per seat per opponent")
    ap.add_argument("--rules", default="international")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--out", default="experiments/python-rllib")
    args = ap.parse_args()

    import ray
    import torch
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.default_model_config import DefaultModelConfig
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec
    from ray.rllib.examples.rl_modules.classes.action_masking_rlm import ActionMaskingTorchRLModule

    torch.set_num_threads(1)
    out = pathlib.Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    ray.init(num_cpus=max(2, args.env_runners + 1), include_dashboard=False, log_to_driver=False)

    env_class = make_env_class()
    config = (
        PPOConfig()
        .environment(env_class, env_config={"rules": args.rules, "illegal_action": "lose"})
        .multi_agent(policies={"main"}, policy_mapping_fn=lambda agent_id, episode, **kw: "main")
        .rl_module(
            rl_module_spec=MultiRLModuleSpec(
                rl_module_specs={
                    "main": RLModuleSpec(
                        module_class=ActionMaskingTorchRLModule,
                        model_config=DefaultModelConfig(fcnet_hiddens=[128, 128], vf_share_layers=False),
                    )
                }
            )
        )
        .env_runners(num_env_runners=args.env_runners, num_envs_per_env_runner=args.envs_per_runner)
        .training(train_batch_size_per_learner=args.batch, minibatch_size=500, num_epochs=5, lr=3e-4,
                  entropy_coeff=0.01, gamma=1.0, lambda_=0.95)
        .debugging(seed=args.seed)
    )
    algo = config.build_algo() if hasattr(config, "build_algo") else config.build()

    curve_path = out / "curve.jsonl"
    curve = curve_path.open("w")
    started = time.time()
    it = 0
    last: dict = {}
    first_eval = None

    def eval_line(iteration: int, steps: int) -> dict:
        module = algo.get_module("main")
        line = {"iteration": iteration, "minutes": round((time.time() - started) / 60, 2), "env_steps": steps}
        for opp in ("random", "greedy"):
            line[opp] = evaluate(module, args.rules, opp, args.eval_games, seed=1000 + iteration)
        line["judge"] = judged(module, args.rules)
        curve.write(json.dumps(line) + "\n")
        curve.flush()
        print(f"iter {iteration:3d} {line['minutes']:5.2f} min {steps:8d} steps  "
              f"vs random {line['random']['score']:.2f}  vs greedy {line['greedy']['score']:.2f}  "
              f"solver-optimal {100 * line['judge']['optimal_rate']:.1f}%", flush=True)
        return line

    first_eval = eval_line(0, 0)
    throughput = []
    while time.time() - started < args.minutes * 60:
        t = time.time()
        result = algo.train()
        it += 1
        runners = result.get("env_runners", {})
        steps = int(result.get("num_env_steps_sampled_lifetime", runners.get("num_env_steps_sampled_lifetime", 0)))
        sampled = runners.get("num_env_steps_sampled", 0)
        if sampled:
            throughput.append(sampled / (time.time() - t))
        if it % args.eval_every == 0:
            last = eval_line(it, steps)
    if not last or last["iteration"] != it:
        last = eval_line(it, steps)
    summary = {
        "command": "python examples/python/rllib_selfplay.py " + " ".join(
            f"--{k.replace('_', '-')} {v}" for k, v in vars(args).items()),
        "ray": ray.__version__,
        "torch": torch.__version__,
        "kalaha": kalaha.__version__,
        "cpus": os.cpu_count(),
        "iterations": it,
        "env_steps": last["env_steps"],
        "minutes": last["minutes"],
        "env_steps_per_sec_per_iteration_median": float(np.median(throughput)) if throughput else None,
        "first": first_eval,
        "last": last,
    }
    (out / "summary.json").write_text(json.dumps(summary, indent=2) + "\n")
    print(json.dumps(summary, indent=2))
    algo.stop()
    ray.shutdown()


if __name__ == "__main__":
    main()
