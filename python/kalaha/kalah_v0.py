"""Kalah as a PettingZoo AEC environment, in the manner of ``pettingzoo.classic``.

.. code-block:: python

    from kalaha import kalah_v0

    env = kalah_v0.env(rules="international")
    env.reset(seed=42)
    for agent in env.agent_iter():
        observation, reward, termination, truncation, info = env.last()
        if termination or truncation:
            action = None
        else:
            mask = observation["action_mask"]
            action = env.action_space(agent).sample(mask)
        env.step(action)
    env.close()

Agents ``player_0`` (opens the game from South) and ``player_1``. The observation is a dict:
``observation`` (``float32``, ``2m + 4``: the project's encoding from that agent's seat, seed
counts divided by ``2mn``) and ``action_mask`` (``int8``, ``m + 1``; all zeros except for the
agent to move). Actions: ``p - 1`` sows pit ``p``, ``m`` is the pie answer ``swap``. An extra
turn keeps the same agent selected; after a ``swap`` the players exchange seats and ``player_0``
(now North) moves. Rewards: +1 to the winner and -1 to the loser at the end, 0 each for a draw.

``env()`` adds PettingZoo's order and bounds checks; an illegal action raises ``ValueError``
(``illegal_action="lose"`` instead ends the game with -1 for the offender, like the classic
environments). ``raw_env`` is the bare environment.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from ._kalaha import Position, Rules
from ._util import as_action as _as_action
from ._util import as_rules as _rules

__all__ = ["env", "raw_env"]


def env(illegal_action: str = "raise", **kwargs) -> AECEnv:
    """The environment with PettingZoo's standard checks; ``kwargs`` go to ``raw_env``."""
    e: AECEnv = raw_env(**kwargs)
    if illegal_action == "lose":
        e = wrappers.TerminateIllegalWrapper(e, illegal_reward=-1)
    elif illegal_action != "raise":
        raise ValueError(f"illegal_action must be 'raise' or 'lose', not {illegal_action!r}")
    e = wrappers.AssertOutOfBoundsWrapper(e)
    e = wrappers.OrderEnforcingWrapper(e)
    return e



class raw_env(AECEnv):  # noqa: N801 - PettingZoo's naming
    """Two-player Kalah under ``rules`` (a preset name, a dict of options, a ``kalaha.Rules``)."""

    metadata = {"render_modes": ["human", "ansi"], "name": "kalah_v0", "is_parallelizable": False, "render_fps": 2}

    def __init__(self, rules: Any = None, render_mode: str | None = None):
        super().__init__()
        self.rules = _rules(rules)
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be None, 'human' or 'ansi', not {render_mode!r}")
        self.render_mode = render_mode
        self.possible_agents = ["player_0", "player_1"]
        self.agents = self.possible_agents[:]
        n_actions = self.rules.action_count
        obs_space = spaces.Dict(
            {
                "observation": spaces.Box(0.0, 1.0, (self.rules.obs_dim,), np.float32),
                "action_mask": spaces.Box(0, 1, (n_actions,), np.int8),
            }
        )
        self.observation_spaces = {a: obs_space for a in self.possible_agents}
        self.action_spaces = {a: spaces.Discrete(n_actions) for a in self.possible_agents}
        self._reset_state()

    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    @property
    def position(self) -> Position:
        """The game's current position."""
        return self._pos

    def seat(self, agent: str) -> str:
        """Where ``agent`` sits now: ``"south"`` or ``"north"`` (a pie swap exchanges seats)."""
        first = agent == "player_0"
        return "south" if first != self._swapped else "north"

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        mask = np.zeros(self.rules.action_count, dtype=np.int8)
        if agent == self.agent_selection and not self._pos.is_over:
            mask[self._pos.legal_actions()] = 1
        return {"observation": self._pos.observation(self.seat(agent)), "action_mask": mask}

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        # The game itself has no randomness; the seed is accepted for the API (and spaces).
        if seed is not None:
            for i, a in enumerate(self.possible_agents):
                self.action_spaces[a].seed(seed + i)
        self._reset_state()

    def _reset_state(self) -> None:
        self.agents = self.possible_agents[:]
        self._pos = Position.start(self.rules)
        self._swapped = False
        self.rewards = dict.fromkeys(self.agents, 0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {a: {} for a in self.agents}
        self.agent_selection = self._agent_to_move()

    def _agent_to_move(self) -> str:
        south_moves = self._pos.to_move == "south"
        return "player_0" if south_moves != self._swapped else "player_1"

    def step(self, action: int | None) -> None:
        if self.terminations[self.agent_selection] or self.truncations[self.agent_selection]:
            self._was_dead_step(action)
            return
        action = _as_action(action, self.rules.action_count)
        mover = self.agent_selection
        self._pos = self._pos.play_action(action)  # ValueError if illegal; nothing changes
        if action == self.rules.pits:
            self._swapped = not self._swapped
        self._cumulative_rewards[mover] = 0
        self.rewards = dict.fromkeys(self.agents, 0)
        if self._pos.is_over:
            south, north = self._pos.score
            scores = {a: (south if self.seat(a) == "south" else north) for a in self.agents}
            p0, p1 = scores["player_0"], scores["player_1"]
            result = int(np.sign(p0 - p1))
            self.rewards = {"player_0": result, "player_1": -result}
            self.terminations = dict.fromkeys(self.agents, True)
            for a in self.agents:
                self.infos[a] = {"score": (scores[a], scores["player_1" if a == "player_0" else "player_0"])}
            # Each agent gets its last observation and reward in turn, the one to move first.
            self.agent_selection = self._agent_to_move()
        else:
            self.agent_selection = self._agent_to_move()
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def render(self) -> str | None:
        if self.render_mode is None:
            return None
        text = f"{self._pos}"
        if not self._pos.is_over:
            text += f" ({self.agent_selection} to move)"
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        pass

    def __str__(self) -> str:
        return "kalah_v0"
