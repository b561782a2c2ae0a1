"""A turn-based multi-agent view of one Kalah game, in the dict API of multi-agent trainers
(Ray RLlib's ``MultiAgentEnv``), with no dependency beyond numpy.

``examples/python/rllib_selfplay.py`` subclasses it together with RLlib's ``MultiAgentEnv``;
the tests check it here without Ray.

- ``reset()`` returns ``({agent: obs}, {agent: info})`` for the agent to move only.
- ``step({agent: action})`` plays the move and returns ``(obs, rewards, terminateds,
  truncateds, infos)``: while the game goes on, the observation of the agent to move next (the
  same agent after an extra turn) and a reward of 0 for the mover; at the end, both agents'
  final observations and their rewards (+1/-1, 0 for a draw), with ``terminateds["__all__"]``.
- Observations are dicts of ``observations`` (``float32``, ``2m + 4``, the project's encoding
  from the agent's seat) and ``action_mask`` (``float32``, ``m + 1``), the keys RLlib's action
  masking modules read.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ._kalaha import Position, Rules
from ._util import as_action as _as_action
from ._util import as_rules as _rules

__all__ = ["KalahMultiAgent", "AGENTS"]

AGENTS = ("player_0", "player_1")



class KalahMultiAgent:
    """One game between ``player_0`` (opens from South) and ``player_1``.

    ``config`` (a dict, as RLlib passes it) may hold ``rules`` (a preset name, a dict of options
    or a ``kalaha.Rules``) and ``illegal_action``: ``"raise"`` (the default: ``ValueError``, and
    nothing changes) or ``"lose"`` (the game ends, -1 for the offender and 0 for the other, as
    PettingZoo's classic games do; for trainers whose environment checks step with unmasked
    random actions).
    """

    def __init__(self, config: dict | None = None):
        config = dict(config or {})
        self.rules = _rules(config.get("rules"))
        self.illegal_action = config.get("illegal_action", "raise")
        if self.illegal_action not in ("raise", "lose"):
            raise ValueError(f"illegal_action must be 'raise' or 'lose', not {self.illegal_action!r}")
        self.possible_agents = list(AGENTS)
        self.agents = list(AGENTS)
        self._pos = Position.start(self.rules)
        self._swapped = False
        self._over = False

    def observation_spaces_spec(self) -> dict[str, Any]:
        """Shapes and dtypes of one agent's observation, for building spaces."""
        return {
            "observations": ((self.rules.obs_dim,), np.float32),
            "action_mask": ((self.rules.action_count,), np.float32),
        }

    @property
    def position(self) -> Position:
        """The game's current position."""
        return self._pos

    @property
    def current_agent(self) -> str:
        """The agent to move."""
        south_moves = self._pos.to_move == "south"
        return AGENTS[0] if south_moves != self._swapped else AGENTS[1]

    def seat(self, agent: str) -> str:
        """Where ``agent`` sits now (a pie swap exchanges seats)."""
        return "south" if (agent == AGENTS[0]) != self._swapped else "north"

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        mask = np.zeros(self.rules.action_count, dtype=np.float32)
        if not self._pos.is_over and not self._over and agent == self.current_agent:
            mask[self._pos.legal_actions()] = 1.0
        return {"observations": self._pos.observation(self.seat(agent)), "action_mask": mask}

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        self._over = False
        self._pos = Position.start(self.rules)
        self._swapped = False
        agent = self.current_agent
        return {agent: self.observe(agent)}, {}

    def step(self, action_dict: dict[str, Any]):
        if self._over or self._pos.is_over:
            raise RuntimeError("the game is over: call reset()")
        agent = self.current_agent
        if agent not in action_dict:
            raise ValueError(f"it is {agent}'s move; got actions for {sorted(action_dict)}")
        action = _as_action(action_dict[agent], self.rules.action_count)
        if self.illegal_action == "lose" and action not in self._pos.legal_actions():
            other = AGENTS[1] if agent == AGENTS[0] else AGENTS[0]
            obs = {a: self.observe(a) for a in AGENTS}
            self._over = True
            infos = {agent: {"illegal_action": action}, other: {}}
            return obs, {agent: -1.0, other: 0.0}, {"__all__": True}, {"__all__": False}, infos
        self._pos = self._pos.play_action(action)
        if action == self.rules.pits:
            self._swapped = not self._swapped
        if self._pos.is_over:
            south, north = self._pos.score
            s0 = south if self.seat(AGENTS[0]) == "south" else north
            s1 = south + north - s0
            result = float(np.sign(s0 - s1))
            obs = {a: self.observe(a) for a in AGENTS}
            rewards = {AGENTS[0]: result, AGENTS[1]: -result}
            infos = {AGENTS[0]: {"score": (s0, s1)}, AGENTS[1]: {"score": (s1, s0)}}
            return obs, rewards, {"__all__": True}, {"__all__": False}, infos
        nxt = self.current_agent
        return {nxt: self.observe(nxt)}, {agent: 0.0}, {"__all__": False}, {"__all__": False}, {}
