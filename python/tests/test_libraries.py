"""The environments in the libraries people train with, unwrapped: Stable-Baselines3's
check_env and sb3-contrib's MaskablePPO on kalaha/Kalah-v0, judged as trained (Discrete(6), no
padding); TorchRL's PettingZooWrapper on kalah_v0; the single-file masked PPO in plain PyTorch.
Each example in examples/python runs a few hundred steps here."""

import importlib.util
import sys
from pathlib import Path

import numpy as np
import pytest

gymnasium = pytest.importorskip("gymnasium")

import kalaha  # noqa: E402

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "python"


def _example(name: str):
    spec = importlib.util.spec_from_file_location(name, EXAMPLES / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("kwargs", [{}, {"observation_mode": "dict"}, {"rules": {"pie": True}, "agent_seat": "random"}])
def test_stable_baselines3_check_env_passes_on_the_made_env(kwargs):
    sb3_checker = pytest.importorskip("stable_baselines3.common.env_checker")
    sb3_checker.check_env(gymnasium.make("kalaha/Kalah-v0", **kwargs).unwrapped, warn=True)


def test_check_env_fails_with_illegal_actions_raising():
    """The reason "lose" is the default: SB3's checker steps with unmasked random actions."""
    sb3_checker = pytest.importorskip("stable_baselines3.common.env_checker")
    with pytest.raises(ValueError, match="is illegal|is empty"):
        for seed in range(20):
            env = gymnasium.make("kalaha/Kalah-v0", illegal_action="raise").unwrapped
            env.action_space.seed(seed)
            sb3_checker.check_env(env, warn=False)


def test_maskable_ppo_learns_on_the_env_unwrapped_and_is_judged_as_trained():
    sb3_contrib = pytest.importorskip("sb3_contrib")
    from sb3_contrib.common.maskable.utils import get_action_masks, is_masking_supported
    from stable_baselines3.common.env_util import make_vec_env

    env = gymnasium.make("kalaha/Kalah-v0")
    assert is_masking_supported(env)  # action_masks(), no ActionMasker wrapper
    vec = make_vec_env("kalaha/Kalah-v0", n_envs=2, seed=0)
    model = sb3_contrib.MaskablePPO("MlpPolicy", vec, n_steps=64, batch_size=64, n_epochs=1, seed=0)
    model.learn(total_timesteps=256)
    assert model.num_timesteps >= 256
    masks = get_action_masks(vec)
    assert masks.shape == (2, 6) and masks.dtype == bool
    report = kalaha.judge(model)
    assert report["positions"] == 1200 and 0.0 < report["optimal_rate"] < 1.0
    # The model as an agent: its Discrete(6) moves, each legal, are what judge scored.
    agent = kalaha.research.as_agent(model)
    js = kalaha.JudgeSet.load()
    actions = agent(js.obs()[:64], js.mask()[:64])
    assert (js.mask()[:64][np.arange(64), actions]).all()
    games = kalaha.evaluate(model, ["random"], games=4, judge=False)
    assert games["pairings"][0]["games"] == 4


def test_maskable_ppo_on_dict_observations():
    sb3_contrib = pytest.importorskip("sb3_contrib")
    env = gymnasium.make("kalaha/Kalah-v0", observation_mode="dict")
    model = sb3_contrib.MaskablePPO("MultiInputPolicy", env, n_steps=64, batch_size=32, n_epochs=1, seed=0)
    model.learn(total_timesteps=128)
    assert kalaha.judge(model, positions=None)["positions"] == 1200


def test_judge_takes_logits_of_m_actions_as_they_are():
    rng = np.random.default_rng(0)
    table = rng.normal(size=(1200, 6))

    def six(obs, mask):
        return table[: len(obs)]

    def seven(obs, mask):
        return np.concatenate([table[: len(obs)], np.full((len(obs), 1), -np.inf)], axis=1)

    a, b = kalaha.judge(six, batch_size=4096), kalaha.judge(seven, batch_size=4096)
    assert a["optimal_rate"] == b["optimal_rate"] and a["positions"] == 1200


def test_torchrl_pettingzoo_wrapper_plays_kalah_v0():
    pytest.importorskip("torchrl")
    pytest.importorskip("pettingzoo")
    out = _example("torchrl_pettingzoo").random_games(300, seed=0)
    assert out["steps"] == 300 and out["games"] >= 3
    assert sum(out["player_0"].values()) == out["games"]


def test_the_single_file_masked_ppo_runs_and_is_judged():
    pytest.importorskip("torch")
    import argparse

    ex = _example("cleanrl_masked_ppo")
    args = argparse.Namespace(
        total_steps=512, envs=4, rollout=64, epochs=1, minibatch=128, lr=2.5e-4, gamma=0.99, lam=0.95,
        clip=0.2, vf_coef=0.5, ent_coef=0.01, opponent="random", judge_every=0, seed=0,
    )
    out = ex.train(args)
    assert out["agent_steps"] >= 512 and out["judge"]["positions"] == 1200


def test_the_sb3_example_trains_and_reports(tmp_path, monkeypatch):
    pytest.importorskip("sb3_contrib")
    ex = _example("sb3_maskable_ppo")
    monkeypatch.setattr(sys, "argv", ["x", "--steps", "512", "--envs", "2", "--games", "4", "--out", str(tmp_path)])
    ex.main()
    import json

    result = json.loads((tmp_path / "result.json").read_text())
    assert result["agent_steps"] >= 512
    assert set(result["games"]) == {"random", "greedy", "minimax:4"}
    assert all(g["games"] == 4 for g in result["games"].values())
