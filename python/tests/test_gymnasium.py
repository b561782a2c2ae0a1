"""The Gymnasium environments: check_env, same-step auto-reset, final observations, pickling."""

import pickle

import numpy as np
import pytest

gymnasium = pytest.importorskip("gymnasium")

import kalaha  # noqa: E402
from kalaha.gym import KalahEnv, KalahVectorEnv  # noqa: E402


@pytest.mark.parametrize("opponent", ["random", "greedy", "minimax:2"])
def test_kalah_env_passes_check_env(opponent):
    from gymnasium.utils.env_checker import check_env

    env = gymnasium.make("kalaha/Kalah-v0", opponent=opponent)
    check_env(env.unwrapped)


@pytest.mark.parametrize("seat", ["south", "north", "random"])
def test_kalah_env_plays_whole_games_against_a_bot(seat):
    env = KalahEnv(opponent="greedy", agent_seat=seat)
    rng = np.random.default_rng(0)
    results = []
    for episode in range(20):
        obs, info = env.reset(seed=episode)
        done = False
        while not done:
            assert env.observation_space.contains(obs)
            action = env.action_space.sample(mask=info["action_mask"])
            obs, reward, done, truncated, info = env.step(action)
            assert not truncated
        mine, theirs = info["score"]
        assert reward == np.sign(mine - theirs)
        results.append(reward)
    assert min(results) == -1.0  # random play loses to greedy at least once


def test_kalah_env_pie_rule_and_illegal_actions():
    env = KalahEnv(rules={"pie": True}, opponent="random", agent_seat="north")
    assert env.action_space.n == 7
    obs, info = env.reset(seed=3)
    assert info["action_mask"][6] == 1  # the agent, North, may answer swap
    obs, reward, done, _, info = env.step(6)
    assert not done and env.position.to_move in ("south", "north")
    obs, info = env.reset(seed=3)
    with pytest.raises(ValueError, match="out of range"):
        env.step(99)
    env = KalahEnv(opponent="random", agent_seat="south")
    env.reset(seed=0)
    obs, _, _, _, info = env.step(2)  # pit 3: extra turn, pit 3 now empty
    assert info["action_mask"][2] == 0
    before = str(env.position)
    with pytest.raises(ValueError, match="pit 3 is empty"):
        env.step(2)
    assert str(env.position) == before
    with pytest.raises(ValueError, match="unknown bot"):
        KalahEnv(opponent="nobody")


def test_kalah_env_pickles_mid_game():
    env = KalahEnv(opponent="minimax:2")
    obs, info = env.reset(seed=1)
    env.step(int(np.flatnonzero(info["action_mask"])[0]))
    clone = pickle.loads(pickle.dumps(env))
    assert str(clone.position) == str(env.position)


def test_vector_env_declares_same_step_autoreset_and_reports_final_observations():
    env = KalahVectorEnv(64, seed=0, threads=1)
    assert "autoreset_mode" in env.metadata
    mode = env.metadata["autoreset_mode"]
    assert getattr(mode, "value", mode) == "SameStep"
    obs, infos = env.reset(seed=7)
    assert obs.shape == (64, 16) and env.observation_space.contains(obs)
    finished = 0
    native = kalaha.VecEnv(64, seed=7, threads=1)
    for _ in range(200):
        actions = np.array([np.random.default_rng(0).choice(np.flatnonzero(m)) for m in infos["action_mask"]])
        obs, reward, terminated, truncated, infos = env.step(actions)
        n_obs, n_mask, n_to_play, n_reward, n_done = native.step(actions)
        np.testing.assert_array_equal(obs, n_obs)
        np.testing.assert_array_equal(reward, n_reward)
        np.testing.assert_array_equal(terminated, n_done)
        assert not truncated.any()
        if terminated.any():
            finished += int(terminated.sum())
            assert (infos["_final_obs"] == terminated).all()
            np.testing.assert_array_equal(infos["final_obs"][terminated], native.final_obs()[terminated])
            scores = infos["final_info"]["score"][terminated]
            assert (scores.sum(axis=1) == 48).all()
            # The reset game starts afresh in the same step.
            start = kalaha.Position.start().observation()
            assert (obs[terminated] == start).all()
    assert finished > 0


def test_vector_env_through_make_vec_and_pickle():
    env = gymnasium.make_vec("kalaha/Kalah-v0", num_envs=8, vectorization_mode="vector_entry_point", threads=1)
    env.reset(seed=1)
    env.step(np.zeros(8, dtype=np.int64))
    clone = pickle.loads(pickle.dumps(env.unwrapped if hasattr(env, "unwrapped") else env))
    native, copy = env.unwrapped.native, clone.native
    assert [str(p) for p in native.positions()] == [str(p) for p in copy.positions()]


def test_vector_env_refuses_illegal_actions():
    env = KalahVectorEnv(4, threads=1)
    env.reset(seed=0)
    with pytest.raises(ValueError, match="game 0: action 6 \\(swap\\) is illegal"):
        env.step([6, 0, 0, 0])
