"""The turn-based multi-agent adapter the RLlib example uses (tested here without Ray)."""

import numpy as np
import pytest

import kalaha
from kalaha.multiagent import KalahMultiAgent


def test_a_whole_game_in_the_rllib_dict_api():
    env = KalahMultiAgent({"rules": "international"})
    obs, infos = env.reset()
    assert list(obs) == ["player_0"]
    o = obs["player_0"]
    assert o["observations"].dtype == np.float32 and o["action_mask"].dtype == np.float32
    rng = np.random.default_rng(3)
    steps = 0
    while True:
        (agent,) = obs
        mask = obs[agent]["action_mask"]
        action = int(rng.choice(np.flatnonzero(mask)))
        obs, rewards, terms, truncs, infos = env.step({agent: action})
        steps += 1
        assert not truncs["__all__"]
        if terms["__all__"]:
            break
        assert rewards == {agent: 0.0}
        assert len(obs) == 1
    assert set(obs) == {"player_0", "player_1"} and rewards["player_0"] == -rewards["player_1"]
    s0 = infos["player_0"]["score"]
    assert rewards["player_0"] == np.sign(s0[0] - s0[1]) and sum(s0) == 48
    assert all(o["action_mask"].sum() == 0 for o in obs.values())
    assert steps > 5


def test_extra_turn_keeps_the_agent_and_wrong_agent_is_refused():
    env = KalahMultiAgent()
    env.reset()
    obs, *_ = env.step({"player_0": 2})
    assert list(obs) == ["player_0"]
    with pytest.raises(ValueError, match="player_0's move"):
        env.step({"player_1": 0})
    with pytest.raises(ValueError, match="pit 3 is empty"):
        env.step({"player_0": 2})


def test_swap_hands_the_move_to_player_0_in_the_north_seat():
    env = KalahMultiAgent({"rules": kalaha.Rules(pie=True)})
    env.reset()
    env.step({"player_0": 0})
    obs, *_ = env.step({"player_1": 6})
    assert list(obs) == ["player_0"] and env.seat("player_0") == "north"


def test_illegal_action_can_lose_instead_of_raising():
    env = KalahMultiAgent({"illegal_action": "lose"})
    env.reset()
    env.step({"player_0": 2})
    obs, rewards, terms, _, infos = env.step({"player_0": 2})
    assert terms["__all__"] and rewards == {"player_0": -1.0, "player_1": 0.0}
    assert infos["player_0"] == {"illegal_action": 2}
    with pytest.raises(RuntimeError, match="game is over"):
        env.step({"player_0": 0})
    with pytest.raises(ValueError, match="illegal_action must be"):
        KalahMultiAgent({"illegal_action": "ignore"})
