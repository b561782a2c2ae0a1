"""The PettingZoo AEC environment: api_test, seed_test, extra turns, the pie rule, pickling."""

import pickle

import numpy as np
import pytest

pytest.importorskip("pettingzoo")

from pettingzoo.test import api_test, seed_test  # noqa: E402

import kalaha  # noqa: E402
from kalaha import kalah_v0  # noqa: E402


@pytest.mark.parametrize("rules", [None, {"pie": True}, "norwegian", {"pits": 3, "seeds": 2, "leftover": "emptier"}])
def test_api_test(rules):
    api_test(kalah_v0.env(rules=rules), num_cycles=300)


def test_seed_test():
    seed_test(lambda: kalah_v0.env(), num_cycles=300)
    seed_test(lambda: kalah_v0.env(rules={"pie": True}), num_cycles=300)


def test_extra_turn_keeps_the_same_agent_and_swap_hands_over():
    env = kalah_v0.env(rules={"pie": True})
    env.reset(seed=0)
    assert env.agent_selection == "player_0"
    env.step(2)  # pit 3: last seed in South's store
    assert env.agent_selection == "player_0"
    env.step(0)
    assert env.agent_selection == "player_1"
    obs, *_ = env.last()
    assert obs["action_mask"][6] == 1  # swap
    assert env.observe("player_0")["action_mask"].sum() == 0
    env.step(6)
    # player_0 now sits North, which is the seat to move.
    assert env.agent_selection == "player_0"
    assert env.unwrapped.seat("player_0") == "north"


def test_observation_is_the_encoder_from_each_agents_seat():
    env = kalah_v0.env()
    env.reset()
    env.step(0)
    pos = env.unwrapped.position
    np.testing.assert_array_equal(env.observe("player_0")["observation"], pos.observation("south"))
    np.testing.assert_array_equal(env.observe("player_1")["observation"], pos.observation("north"))
    assert env.observe("player_1")["action_mask"].dtype == np.int8


def test_rewards_at_the_end_and_pickling():
    env = kalah_v0.env()
    env.reset(seed=1)
    rng = np.random.default_rng(1)
    seen = {}
    for agent in env.agent_iter():
        obs, reward, term, trunc, info = env.last()
        if term or trunc:
            seen[agent] = (reward, info["score"])
            env.step(None)
            continue
        if len(seen) == 0 and rng.random() < 0.05:
            clone = pickle.loads(pickle.dumps(env))
            assert str(clone.unwrapped.position) == str(env.unwrapped.position)
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    (r0, s0), (r1, s1) = seen["player_0"], seen["player_1"]
    assert r0 == -r1 == np.sign(s0[0] - s0[1]) and s0 == s1[::-1]


def test_illegal_actions_raise_or_lose():
    env = kalah_v0.env()
    env.reset()
    env.step(2)
    before = str(env.unwrapped.position)
    with pytest.raises(ValueError, match="pit 3 is empty"):
        env.step(2)
    assert str(env.unwrapped.position) == before
    env = kalah_v0.env(illegal_action="lose")
    env.reset()
    env.step(2)
    env.step(2)
    assert all(env.terminations.values())
    assert env.rewards == {"player_0": -1, "player_1": 0}


def test_registered_in_pettingzoos_registry_by_import_kalaha():
    registration = pytest.importorskip("pettingzoo.env_registry.registration")
    env = registration.make("aec", "kalaha/kalah-v0", rules="swedish")
    env.reset(seed=0)
    assert env.unwrapped.rules == kalaha.Rules("swedish")
    api_test(env, num_cycles=50)


@pytest.mark.parametrize("bad", [2.7, "2", True])
def test_an_action_that_is_not_an_integer_is_refused_naming_it(bad):
    env = kalah_v0.raw_env()
    env.reset()
    with pytest.raises(ValueError, match="action must be an integer from 0 to 6"):
        env.step(bad)
