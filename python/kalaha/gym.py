"""Gymnasium environments over the native ones.

- ``KalahVectorEnv``: ``G`` games in one native ``kalaha.VecEnv``, self-play (every step moves
  whoever is to move in each game), same-step auto-reset (declared in ``metadata``).
- ``KalahEnv``: one game against a bot (``opponent="minimax:4"``, any ``kalaha.Bot`` spec).

Both are registered: ``gymnasium.make("kalaha/Kalah-v0", opponent="greedy")`` and
``gymnasium.make_vec("kalaha/Kalah-v0", num_envs=1024, vectorization_mode="vector_entry_point")``.

Observations are the environment's encoding (``float32``, ``2m + 4``: the mover's pits, the
opponent's pits, the two stores, two pie flags, seed counts divided by ``2mn``); actions are
``p - 1`` for pit ``p`` and ``m`` for the pie answer. Legal actions are in ``info["action_mask"]``
(sample with ``action_space.sample(mask=...)``); an illegal action raises ``ValueError`` and
changes nothing.
"""

from __future__ import annotations

from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces
from gymnasium.vector import VectorEnv
from gymnasium.vector.utils import batch_space

try:  # gymnasium >= 1.1
    from gymnasium.vector import AutoresetMode

    _SAME_STEP: Any = AutoresetMode.SAME_STEP
except ImportError:  # pragma: no cover - older gymnasium
    _SAME_STEP = "SameStep"

from ._kalaha import Bot, Position, Rules, VecEnv
from ._util import as_rules as _rules

__all__ = ["KalahEnv", "KalahVectorEnv"]

_SEED_BOUND = 2**63



def _obs_space(rules: Rules) -> spaces.Box:
    return spaces.Box(0.0, 1.0, (rules.obs_dim,), np.float32)


class KalahVectorEnv(VectorEnv):
    """``num_envs`` Kalah games stepped together in native code (self-play).

    Every step plays one move in every game for whoever is to move there (``infos["to_play"]``:
    0 for the player who opened the game, 1 for the other; an extra turn keeps the same player).
    The reward goes to the player who made the move: +1/0/-1 when that move ended the game.

    Same-step auto-reset: a game that ends is reset within the step; ``terminated`` is true,
    ``obs`` already shows the new game, and ``infos["final_obs"]`` (a dense ``[G, obs_dim]``
    array, rows valid where ``infos["_final_obs"]``) holds the final position seen by the last
    mover; ``infos["final_info"]`` holds each finished game's ``score`` (player 0, player 1) and
    ``length``. Games never truncate.

    ``threads`` sets the native pool's size (default: ``RAYON_NUM_THREADS``, else every core).
    """

    metadata = {"autoreset_mode": _SAME_STEP, "render_modes": []}

    def __init__(self, num_envs: int = 1024, rules: Any = None, threads: int | None = None, seed: int | None = None):
        self.rules = _rules(rules)
        self._env = VecEnv(num_envs, self.rules, seed=0 if seed is None else seed, threads=threads)
        self.num_envs = num_envs
        self.single_observation_space = _obs_space(self.rules)
        self.single_action_space = spaces.Discrete(self.rules.action_count)
        self.observation_space = batch_space(self.single_observation_space, num_envs)
        self.action_space = batch_space(self.single_action_space, num_envs)
        self.render_mode = None
        self._seeded = seed is not None

    @property
    def native(self) -> VecEnv:
        """The native ``kalaha.VecEnv`` underneath."""
        return self._env

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        """Starts every game afresh. ``seed`` (an int) seeds the games' native random streams
        exactly as ``kalaha.VecEnv(G, rules, seed)`` does; ``None`` draws one from
        ``self.np_random``."""
        if isinstance(seed, (list, tuple)):
            raise ValueError("KalahVectorEnv takes one int seed for all its games, not a list")
        super().reset(seed=seed)
        if seed is None:
            seed = int(self.np_random.integers(_SEED_BOUND))
        obs, mask, to_play = self._env.reset(seed)
        return obs, {"action_mask": mask, "to_play": to_play}

    def step(self, actions):
        obs, mask, to_play, reward, done = self._env.step(np.asarray(actions))
        infos: dict[str, Any] = {"action_mask": mask, "to_play": to_play}
        if done.any():
            infos["final_obs"] = self._env.final_obs()
            infos["_final_obs"] = done
            infos["final_info"] = {
                "score": self._env.final_score(),
                "_score": done,
                "length": self._env.final_len(),
                "_length": done,
            }
            infos["_final_info"] = done
        return obs, reward, done, np.zeros(self.num_envs, dtype=bool), infos

    def __repr__(self) -> str:
        return f"KalahVectorEnv(num_envs={self.num_envs}, rules={self.rules!r})"


class KalahEnv(gymnasium.Env):
    """One game of Kalah against a bot (``opponent``: any ``kalaha.Bot`` spec such as
    ``"random"``, ``"greedy"``, ``"minimax:4"``, ``"mcts:200"``, ``"solver"``).

    The agent sits South and opens (``agent_seat="south"``), sits North (``"north"``: the bot
    opens) or is placed at random each reset (``"random"``). The bot's moves are played inside
    ``step``, so every observation is the agent's turn, seen from the agent's seat; an extra turn
    simply means the agent is asked again. Reward: +1/0/-1 at the end (win, draw, loss).

    ``info``: ``action_mask`` (int8, length ``action_space.n``), ``position`` (notation), and at
    the end ``score`` (agent, bot). Without the pie rule the action space is ``Discrete(m)``
    (pits only); with it ``Discrete(m + 1)`` (the last action is ``swap``).
    """

    metadata = {"render_modes": ["ansi"], "render_fps": 4}

    def __init__(
        self,
        rules: Any = None,
        opponent: str = "random",
        agent_seat: str = "south",
        render_mode: str | None = None,
    ):
        self.rules = _rules(rules)
        if agent_seat not in ("south", "north", "random"):
            raise ValueError(f"agent_seat must be 'south', 'north' or 'random', not {agent_seat!r}")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be None or 'ansi', not {render_mode!r}")
        self.opponent = opponent
        self.agent_seat = agent_seat
        self.render_mode = render_mode
        self._bot = Bot(opponent, seed=0)  # checks the spec now; reseeded at reset
        m = self.rules.pits
        self._actions = m + 1 if self.rules.pie else m
        self.observation_space = _obs_space(self.rules)
        self.action_space = spaces.Discrete(self._actions)
        self._pos = Position.start(self.rules)
        self._seat = "south"

    @property
    def position(self) -> Position:
        """The game's current position."""
        return self._pos

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        super().reset(seed=seed)
        self._bot = Bot(self.opponent, seed=int(self.np_random.integers(_SEED_BOUND)))
        if self.agent_seat == "random":
            self._seat = "south" if self.np_random.integers(2) == 0 else "north"
        else:
            self._seat = self.agent_seat
        self._pos = Position.start(self.rules)
        self._play_opponent()
        return self._observation(), self._info()

    def step(self, action):
        if self._pos.is_over:
            raise RuntimeError("the game is over: call reset()")
        action = int(action)
        if not 0 <= action < self._actions:
            raise ValueError(f"action {action} is out of range (actions are 0 to {self._actions - 1})")
        self._play(action)
        self._play_opponent()
        over = self._pos.is_over
        reward = 0.0
        if over:
            mine, theirs = self._scores()
            reward = float(np.sign(mine - theirs))
        return self._observation(), reward, over, False, self._info()

    def render(self):
        if self.render_mode == "ansi":
            return f"{self._pos} (agent: {self._seat})\n"
        return None

    # The game against the bot.

    def _play(self, action: int) -> None:
        self._pos = self._pos.play_action(action)
        if action == self.rules.pits:  # swap: the players exchange seats
            self._seat = "north" if self._seat == "south" else "south"

    def _play_opponent(self) -> None:
        while not self._pos.is_over and self._pos.to_move != self._seat:
            self._play(self._bot.act_action(self._pos))

    def _scores(self) -> tuple[int, int]:
        south, north = self._pos.score
        return (south, north) if self._seat == "south" else (north, south)

    def _observation(self) -> np.ndarray:
        return self._pos.observation(self._seat)

    def _info(self) -> dict[str, Any]:
        mask = np.zeros(self._actions, dtype=np.int8)
        if not self._pos.is_over:
            mask[self._pos.legal_actions()] = 1
        info: dict[str, Any] = {"action_mask": mask, "position": str(self._pos)}
        if self._pos.is_over:
            info["score"] = self._scores()
        return info


def _register() -> None:
    if "kalaha/Kalah-v0" not in gymnasium.registry:
        gymnasium.register(
            id="kalaha/Kalah-v0",
            entry_point="kalaha.gym:KalahEnv",
            vector_entry_point="kalaha.gym:KalahVectorEnv",
        )


_register()
