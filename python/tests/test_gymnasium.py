"""The Gymnasium environments: registration on `import kalaha`, one id one game (make and
make_vec agree), action masks, illegal actions, every autoreset mode checked step for step
against Gymnasium's own SyncVectorEnv, Gymnasium's vector wrappers, pickling."""

import pickle
import subprocess
import sys

import numpy as np
import pytest

gymnasium = pytest.importorskip("gymnasium")

import kalaha  # noqa: E402
from gymnasium.vector import AutoresetMode  # noqa: E402
from kalaha.gym import KalahEnv, KalahSelfPlayEnv, KalahVectorEnv  # noqa: E402


def test_ids_are_registered_by_import_kalaha_alone():
    code = (
        "import kalaha, gymnasium as gym\n"
        "e = gym.make('kalaha/Kalah-v0'); v = gym.make_vec('kalaha/KalahSelfPlay-v0', 4)\n"
        "print(type(e.unwrapped).__name__, type(v.unwrapped).__name__)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["KalahEnv", "KalahVectorEnv"]


@pytest.mark.parametrize("env_id", ["kalaha/Kalah-v0", "kalaha/KalahSelfPlay-v0"])
@pytest.mark.parametrize("rules", [None, "swedish", {"pie": True}])
def test_make_and_make_vec_of_one_id_give_the_same_spaces(env_id, rules):
    single = gymnasium.make(env_id, rules=rules)
    vec = gymnasium.make_vec(env_id, num_envs=3, rules=rules)
    assert vec.single_observation_space == single.observation_space
    assert vec.single_action_space == single.action_space
    obs, info = vec.reset(seed=0)
    assert vec.observation_space.contains(obs)
    assert info["action_mask"].shape == (3, single.action_space.n)
    assert info["action_mask"].dtype == np.int8
    np.testing.assert_array_equal(vec.unwrapped.call("action_masks")[0] if env_id.endswith("Kalah-v0") else vec.unwrapped.action_masks()[0],
                                  info["action_mask"][0].astype(bool))


def test_the_bot_game_has_m_actions_and_the_self_play_game_m_plus_1():
    assert gymnasium.make("kalaha/Kalah-v0").action_space.n == 6
    assert gymnasium.make("kalaha/Kalah-v0", rules={"pie": True}).action_space.n == 7
    assert gymnasium.make("kalaha/KalahSelfPlay-v0").action_space.n == 7


@pytest.mark.parametrize("opponent", ["random", "greedy", "minimax:2"])
@pytest.mark.parametrize("mode", ["vector", "dict"])
def test_kalah_env_passes_gymnasiums_check_env(opponent, mode):
    from gymnasium.utils.env_checker import check_env

    env = gymnasium.make("kalaha/Kalah-v0", opponent=opponent, observation_mode=mode)
    check_env(env.unwrapped)


@pytest.mark.parametrize("seat", ["south", "north", "random"])
def test_kalah_env_plays_whole_games_against_a_bot(seat):
    env = KalahEnv(opponent="greedy", agent_seat=seat)
    results = []
    for episode in range(20):
        obs, info = env.reset(seed=episode)
        done = False
        while not done:
            assert env.observation_space.contains(obs)
            np.testing.assert_array_equal(env.action_masks(), info["action_mask"].astype(bool))
            action = env.action_space.sample(mask=info["action_mask"])
            obs, reward, done, truncated, info = env.step(action)
            assert not truncated
        mine, theirs = info["score"]
        assert reward == np.sign(mine - theirs)
        assert not env.action_masks().any()
        results.append(reward)
    assert min(results) == -1.0  # random play loses to greedy at least once


def test_dict_observations_hold_the_mask():
    env = KalahEnv(observation_mode="dict", opponent="random")
    obs, info = env.reset(seed=0)
    assert env.observation_space.contains(obs)
    np.testing.assert_array_equal(obs["action_mask"], info["action_mask"])
    obs, *_ = env.step(2)  # pit 3: extra turn, pit 3 empty now
    assert obs["action_mask"][2] == 0 and obs["action_mask"].sum() == 5


def test_an_illegal_action_loses_by_default_and_raises_when_asked():
    env = KalahEnv(opponent="random")
    env.reset(seed=0)
    env.step(2)  # pit 3 is empty now (extra turn)
    obs, reward, terminated, truncated, info = env.step(2)
    assert (reward, terminated, truncated) == (-1.0, True, False)
    assert info["illegal_action"] == 2 and not info["action_mask"].any()
    with pytest.raises(RuntimeError, match="reset"):
        env.step(0)
    env = KalahEnv(opponent="random", illegal_action="raise")
    env.reset(seed=0)
    env.step(2)
    before = str(env.position)
    with pytest.raises(ValueError, match="pit 3 is empty"):
        env.step(2)
    assert str(env.position) == before
    with pytest.raises(ValueError, match="illegal_action must be one of"):
        KalahEnv(illegal_action="ignore")


@pytest.mark.parametrize("bad", [2.7, "2", True, None, 6, -1, np.float32(1.0), np.array([1, 2])])
def test_an_action_outside_the_space_is_refused_naming_it(bad):
    for illegal in ("lose", "raise"):
        env = KalahEnv(opponent="random", illegal_action=illegal)
        env.reset(seed=0)
        before = str(env.position)
        with pytest.raises(ValueError, match="action must be an integer from 0 to 5"):
            env.step(bad)
        assert str(env.position) == before


def test_integer_actions_of_numpy_are_taken():
    env = KalahEnv(opponent="random")
    env.reset(seed=0)
    for a in (np.int64(0), np.array(1), np.array([3], dtype=np.int32)):
        obs, reward, terminated, *_ = env.step(a)
        assert not terminated


def test_kalah_env_pie_rule():
    env = KalahEnv(rules={"pie": True}, opponent="random", agent_seat="north")
    assert env.action_space.n == 7
    obs, info = env.reset(seed=3)
    assert info["action_mask"][6] == 1  # the agent, North, may answer swap
    obs, reward, done, _, info = env.step(6)
    assert not done
    with pytest.raises(ValueError, match="unknown bot"):
        KalahEnv(opponent="nobody")


def test_kalah_env_pickles_mid_game():
    env = KalahEnv(opponent="minimax:2")
    obs, info = env.reset(seed=1)
    env.step(int(np.flatnonzero(info["action_mask"])[0]))
    clone = pickle.loads(pickle.dumps(env))
    assert str(clone.position) == str(env.position)


def _choose(masks: np.ndarray, rng: np.random.Generator, illegal: float = 0.0) -> np.ndarray:
    """A random legal action in each game; with probability `illegal` an illegal one."""
    out = []
    for m in masks:
        bad = np.flatnonzero(m == 0)
        if rng.random() < illegal and len(bad) and m.any():
            out.append(rng.choice(bad))
        else:
            out.append(rng.choice(np.flatnonzero(m)) if m.any() else 0)
    return np.array(out)


@pytest.mark.parametrize("mode", [AutoresetMode.NEXT_STEP, AutoresetMode.SAME_STEP, AutoresetMode.DISABLED])
@pytest.mark.parametrize("rules", [None, {"pits": 3, "seeds": 2, "pie": True}])
def test_vector_env_matches_gymnasiums_sync_vector_env_in_every_autoreset_mode(mode, rules):
    """KalahVectorEnv (native) and Gymnasium's SyncVectorEnv over KalahSelfPlayEnv, driven by the
    same actions (one in 50 illegal: the game is lost), return the same observations, rewards,
    terminations, masks and final scores step for step."""
    n = 6
    native = KalahVectorEnv(n, rules=rules, threads=1, autoreset_mode=mode)
    assert native.metadata["autoreset_mode"] == mode
    sync = gymnasium.vector.SyncVectorEnv([lambda: KalahSelfPlayEnv(rules=rules)] * n, autoreset_mode=mode)
    o1, i1 = native.reset(seed=5)
    o2, i2 = sync.reset(seed=5)
    np.testing.assert_array_equal(o1, o2)
    rng = np.random.default_rng(1)
    ended = lost = 0
    for _ in range(300):
        np.testing.assert_array_equal(i1["action_mask"], i2["action_mask"])
        actions = _choose(i1["action_mask"], rng, illegal=0.02)
        o1, r1, t1, u1, i1 = native.step(actions)
        o2, r2, t2, u2, i2 = sync.step(actions)
        np.testing.assert_array_equal(o1, o2)
        np.testing.assert_array_equal(r1, r2)
        np.testing.assert_array_equal(t1, t2)
        assert not u1.any()
        np.testing.assert_array_equal(i1["to_play"][~t1], i2["to_play"][~t1])
        if t1.any():
            ended += int(t1.sum())
            lost += int(i1.get("illegal_action", np.zeros(n, bool)).sum())
            scores = i1["final_info"]["score"][t1]
            np.testing.assert_array_equal(scores, np.stack(i2["final_info"]["score"][t1]) if mode == AutoresetMode.SAME_STEP else np.stack(i2["score"][t1]))
            if mode == AutoresetMode.SAME_STEP:
                np.testing.assert_array_equal(i1["final_obs"][t1], np.stack(i2["final_obs"][t1]))
            if mode == AutoresetMode.DISABLED:
                with pytest.raises(ValueError, match="reset_mask"):
                    native.step(_choose(i1["action_mask"], rng))
                before = i2["action_mask"]
                o1, i1 = native.reset(options={"reset_mask": t1})
                o2, i2 = sync.reset(options={"reset_mask": t1})
                np.testing.assert_array_equal(o1, o2)
                # Gymnasium reports the infos of the games it reset only.
                i2 = {"action_mask": np.where(t1[:, None], i2["action_mask"], before)}
    assert ended >= 20 and lost >= 3


def test_next_step_autoreset_ignores_the_action_after_the_end():
    env = KalahVectorEnv(1, rules={"pits": 1, "seeds": 1}, threads=1)  # South's one move ends it
    obs, info = env.reset(seed=0)
    obs, reward, terminated, _, info = env.step(np.array([0]))
    assert terminated[0] and reward[0] == 0.0 and not info["action_mask"].any()  # 1-1: a draw
    assert tuple(info["final_info"]["score"][0]) == (1, 1)
    # Any action is ignored now (even an illegal one): the new game starts.
    obs, reward, terminated, _, info = env.step(np.array([1]))
    assert not terminated[0] and reward[0] == 0.0
    np.testing.assert_array_equal(obs[0], kalaha.Position.start(kalaha.Rules(pits=1, seeds=1)).observation())


@pytest.mark.parametrize(
    "wrapper",
    ["NormalizeObservation", "FlattenObservation", "DtypeObservation", "RescaleObservation", "NormalizeReward", "RecordEpisodeStatistics"],
)
@pytest.mark.parametrize("env_id", ["kalaha/Kalah-v0", "kalaha/KalahSelfPlay-v0"])
def test_gymnasiums_vector_wrappers_take_the_vector_envs(wrapper, env_id):
    from gymnasium.wrappers import vector as vw

    env = gymnasium.make_vec(env_id, num_envs=8)
    args = {"DtypeObservation": (np.float64,), "RescaleObservation": (-1.0, 1.0)}.get(wrapper, ())
    env = getattr(vw, wrapper)(env, *args)
    obs, info = env.reset(seed=0)
    rng = np.random.default_rng(0)
    for _ in range(60):
        obs, reward, terminated, truncated, info = env.step(_choose(info["action_mask"], rng))
        assert obs.shape[0] == 8 and np.isfinite(obs).all()


def test_vector_env_reset_mask_restarts_only_those_games():
    env = KalahVectorEnv(4, threads=1)
    obs, info = env.reset(seed=0)
    start = obs[0].copy()
    obs, *_ = env.step(np.array([0, 1, 2, 3]))
    obs, info = env.reset(options={"reset_mask": np.array([True, False, True, False])})
    np.testing.assert_array_equal(obs[0], start)
    np.testing.assert_array_equal(obs[2], start)
    assert (obs[1] != start).any() and (obs[3] != start).any()
    with pytest.raises(ValueError, match="reset_mask"):
        env.reset(options={"reset_mask": [1, 0, 1, 0]})


def test_vector_env_through_make_vec_and_pickle():
    env = gymnasium.make_vec("kalaha/KalahSelfPlay-v0", num_envs=8, threads=1)
    env.reset(seed=1)
    env.step(np.zeros(8, dtype=np.int64))
    clone = pickle.loads(pickle.dumps(env.unwrapped))
    native, copy = env.unwrapped.native, clone.native
    assert [str(p) for p in native.positions()] == [str(p) for p in copy.positions()]


def test_vector_env_refuses_illegal_and_malformed_actions():
    env = KalahVectorEnv(4, threads=1, illegal_action="raise")
    env.reset(seed=0)
    with pytest.raises(ValueError, match="game 0: action 6 \\(swap\\) is illegal"):
        env.step([6, 0, 0, 0])
    with pytest.raises(ValueError, match="actions must be an integer array of shape"):
        env.step([0.5, 0, 0, 0])
    with pytest.raises(ValueError, match="game 2: action 7 is out of range"):
        KalahVectorEnv(4, threads=1).step([0, 0, 7, 0])
    with pytest.raises(ValueError, match="autoreset_mode must be"):
        KalahVectorEnv(4, autoreset_mode="sometimes")
