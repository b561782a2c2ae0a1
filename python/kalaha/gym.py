"""Gymnasium environments over the native ones, registered on ``import kalaha``:

- ``kalaha/Kalah-v0``: ``KalahEnv``, one game against a bot (``opponent="random"``, any
  ``kalaha.Bot`` spec). ``gymnasium.make_vec("kalaha/Kalah-v0", n)`` gives ``n`` of the same
  game in Gymnasium's ``SyncVectorEnv``: the same spaces, every autoreset mode.
- ``kalaha/KalahSelfPlay-v0``: self-play, whoever is to move is the agent. ``make`` gives
  ``KalahSelfPlayEnv`` (one game); ``make_vec`` gives ``KalahVectorEnv`` (``n`` games stepped in
  native code), with the same spaces.

Observations are the environment's encoding (``float32``, ``2m + 4``: the mover's pits, the
opponent's pits, the two stores, two pie flags, seed counts divided by ``2mn``); actions are
``p - 1`` for pit ``p`` and ``m`` for the pie answer ``swap``. Legal actions: ``action_masks()``
(bool, Stable-Baselines3's convention: sb3-contrib's ``MaskablePPO`` takes the environments
unwrapped) and ``info["action_mask"]`` (int8, for ``action_space.sample(mask=...)``).

``KalahEnv(observation_mode="dict")`` puts the mask in the observation too, a ``Dict`` of
``observation`` and ``action_mask``, for libraries that read it there.
"""

from __future__ import annotations

from typing import Any, Optional

import gymnasium
import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from ._kalaha import Bot, Position, Rules, VecEnv
from ._util import as_action as _action
from ._util import as_rules as _rules

__all__ = ["KalahEnv", "KalahSelfPlayEnv", "KalahVectorEnv", "ENV_ID", "SELF_PLAY_ID"]

ENV_ID = "kalaha/Kalah-v0"
SELF_PLAY_ID = "kalaha/KalahSelfPlay-v0"

_SEED_BOUND = 2**63
_ILLEGAL = ("raise", "lose")


def _obs_space(rules: Rules) -> spaces.Box:
    return spaces.Box(0.0, 1.0, (rules.obs_dim,), np.float32)


def board_image(pos: Position, cell: int = 24) -> np.ndarray:
    """The board as an RGB image (``uint8 [2 * cell, (m + 2) * cell, 3]``, the ``rgb_array``
    render): North's pits on top (right to left), South's below, the stores at the ends (North's
    left, South's right); each cell's brightness is its share of all seeds, the side to move in
    green, the other in blue."""
    m, total = pos.rules.pits, pos.rules.total_seeds
    img = np.zeros((2 * cell, (m + 2) * cell, 3), dtype=np.uint8)

    def fill(row: int, col: int, seeds: int, side: str) -> None:
        level = int(40 + 215 * min(1.0, seeds / max(1, total) * 4))
        channel = 1 if side == pos.to_move else 2
        img[row * cell + 1 : (row + 1) * cell - 1, col * cell + 1 : (col + 1) * cell - 1, channel] = level

    for i, seeds in enumerate(pos.pits("south")):
        fill(1, i + 1, seeds, "south")
    for i, seeds in enumerate(pos.pits("north")):
        fill(0, m - i, seeds, "north")
    fill(1, m + 1, pos.store("south"), "south")
    fill(0, 0, pos.store("north"), "north")
    return img


def _check_choice(name: str, value: Any, allowed: tuple) -> None:
    if not isinstance(value, str) or value not in allowed:
        options = ", ".join(repr(a) for a in allowed)
        raise ValueError(f"{name} must be one of {options}, not {value!r}")


def _seed(seed: Any) -> Optional[int]:
    if seed is None:
        return None
    if isinstance(seed, (bool, np.bool_)) or not isinstance(seed, (int, np.integer)) or not 0 <= seed < 2**64:
        raise ValueError(f"seed must be None or an integer from 0 to 2**64 - 1, not {seed!r}")
    return int(seed)


class KalahEnv(gymnasium.Env):
    """One game of Kalah against a bot (``opponent``: any ``kalaha.Bot`` spec such as
    ``"random"``, ``"greedy"``, ``"minimax:4"``, ``"mcts:200"``, ``"solver"``,
    ``"policy:auto:64"``).

    The agent sits South and opens (``agent_seat="south"``), sits North (``"north"``: the bot
    opens) or is placed at random each reset (``"random"``). The bot's moves are played inside
    ``step``, so every observation is the agent's turn, seen from the agent's seat; an extra turn
    simply means the agent is asked again. Reward: +1/0/-1 at the end (win, draw, loss).

    Actions: ``Discrete(m)`` (pits) without the pie rule, ``Discrete(m + 1)`` with it (the last is
    ``swap``). ``action_masks()`` gives the legal ones (bool).

    ``illegal_action``: ``"lose"`` (the default) ends the game with -1 for an action of the
    space that is not legal now (``info["illegal_action"]``), as PettingZoo's classic games do, so
    that checkers stepping with unmasked random actions (Stable-Baselines3's ``check_env``) pass;
    ``"raise"`` raises ``ValueError`` and changes nothing. An action outside the space (a float, a
    string, an integer out of range) always raises ``ValueError``.

    ``observation_mode``: ``"vector"`` (the default, a ``Box``) or ``"dict"`` (``observation``
    and ``action_mask``, int8).

    ``info``: ``action_mask`` (int8, length ``action_space.n``), ``position`` (notation), and at
    the end ``score`` (agent, bot).
    """

    metadata = {"render_modes": ["ansi", "rgb_array"], "render_fps": 4}

    def __init__(
        self,
        rules: Any = None,
        opponent: str = "random",
        agent_seat: str = "south",
        render_mode: Optional[str] = None,
        illegal_action: str = "lose",
        observation_mode: str = "vector",
    ):
        self.rules = _rules(rules)
        _check_choice("agent_seat", agent_seat, ("south", "north", "random"))
        _check_choice("illegal_action", illegal_action, _ILLEGAL)
        _check_choice("observation_mode", observation_mode, ("vector", "dict"))
        if render_mode is not None:
            _check_choice("render_mode", render_mode, tuple(self.metadata["render_modes"]))
        if not isinstance(opponent, str):
            raise ValueError(f"opponent must be a bot spec (a str), not {opponent!r}")
        self.opponent = opponent
        self.agent_seat = agent_seat
        self.render_mode = render_mode
        self.illegal_action = illegal_action
        self.observation_mode = observation_mode
        self._bot = Bot(opponent, seed=0)  # checks the spec now; reseeded at reset
        m = self.rules.pits
        self._actions = m + 1 if self.rules.pie else m
        obs = _obs_space(self.rules)
        if observation_mode == "dict":
            mask = spaces.Box(0, 1, (self._actions,), np.int8)
            self.observation_space = spaces.Dict({"observation": obs, "action_mask": mask})
        else:
            self.observation_space = obs
        self.action_space = spaces.Discrete(self._actions)
        self._pos = Position.start(self.rules)
        self._seat = "south"
        self._lost_by: Optional[int] = None  # the illegal action that ended the game

    @property
    def position(self) -> Position:
        """The game's current position."""
        return self._pos

    @property
    def is_over(self) -> bool:
        """Whether the game has ended (by the rules, or by an illegal action under ``"lose"``)."""
        return self._pos.is_over or self._lost_by is not None

    def action_masks(self) -> np.ndarray:
        """The legal actions now, bool ``[action_space.n]`` (all false once the game is over)."""
        mask = np.zeros(self._actions, dtype=bool)
        if not self.is_over:
            mask[self._pos.legal_actions()] = True
        return mask

    def reset(self, *, seed: Optional[int] = None, options: Optional[dict] = None):
        super().reset(seed=_seed(seed))
        self._bot = Bot(self.opponent, seed=int(self.np_random.integers(_SEED_BOUND)))
        if self.agent_seat == "random":
            self._seat = "south" if self.np_random.integers(2) == 0 else "north"
        else:
            self._seat = self.agent_seat
        self._pos = Position.start(self.rules)
        self._lost_by = None
        self._play_opponent()
        return self._observation(), self._info()

    def step(self, action):
        if self.is_over:
            raise RuntimeError("the game is over: call reset()")
        action = _action(action, self._actions)
        if self.illegal_action == "lose" and action not in self._pos.legal_actions():
            self._lost_by = action
            return self._observation(), -1.0, True, False, self._info()
        self._play(action)  # an illegal action raises ValueError here, and nothing changes
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
        if self.render_mode == "rgb_array":
            return board_image(self._pos)
        return None

    # The game against the bot.

    def _play(self, action: int) -> None:
        self._pos = self._pos.play_action(action)
        if action == self.rules.pits:  # swap: the players exchange seats
            self._seat = "north" if self._seat == "south" else "south"

    def _play_opponent(self) -> None:
        while not self._pos.is_over and self._pos.to_move != self._seat:
            self._play(self._bot.act_action(self._pos))

    def _scores(self) -> tuple:
        south, north = self._pos.score
        return (south, north) if self._seat == "south" else (north, south)

    def _observation(self):
        obs = self._pos.observation(self._seat)
        if self.observation_mode == "dict":
            return {"observation": obs, "action_mask": self.action_masks().astype(np.int8)}
        return obs

    def _info(self) -> dict:
        info: dict[str, Any] = {
            "action_mask": self.action_masks().astype(np.int8),
            "position": str(self._pos),
        }
        if self._lost_by is not None:
            info["illegal_action"] = self._lost_by
        elif self._pos.is_over:
            info["score"] = self._scores()
        return info


class KalahSelfPlayEnv(gymnasium.Env):
    """One game of Kalah in self-play: every step plays the move of whoever is to move, and the
    observation is always from the seat of the player to move next. The single-game form of
    ``KalahVectorEnv`` (same spaces, same rewards): ``gymnasium.make("kalaha/KalahSelfPlay-v0")``.

    Actions: ``Discrete(m + 1)`` (the last is the pie answer, legal only where the pie rule
    offers it). Reward: +1/0/-1 to the player who made the move, when it ended the game.
    ``info``: ``action_mask`` (int8), ``to_play`` (0 for the player who opened the game, 1 for
    the other), and at the end ``score`` (player 0, player 1). ``illegal_action`` as in
    ``KalahEnv`` (``"lose"`` by default; the player who made it gets -1).
    """

    metadata = {"render_modes": ["ansi", "rgb_array"], "render_fps": 4}

    def __init__(self, rules: Any = None, render_mode: Optional[str] = None, illegal_action: str = "lose"):
        self.rules = _rules(rules)
        _check_choice("illegal_action", illegal_action, _ILLEGAL)
        if render_mode is not None:
            _check_choice("render_mode", render_mode, tuple(self.metadata["render_modes"]))
        self.render_mode = render_mode
        self.illegal_action = illegal_action
        self.observation_space = _obs_space(self.rules)
        self.action_space = spaces.Discrete(self.rules.action_count)
        self._pos = Position.start(self.rules)
        self._swapped = False
        self._lost_by: Optional[int] = None

    @property
    def position(self) -> Position:
        """The game's current position."""
        return self._pos

    @property
    def to_play(self) -> int:
        """0 if the player who opened the game is to move, else 1."""
        south = self._pos.to_move == "south"
        return 0 if south != self._swapped else 1

    def action_masks(self) -> np.ndarray:
        """The legal actions now, bool ``[m + 1]`` (all false once the game is over)."""
        mask = np.zeros(self.rules.action_count, dtype=bool)
        if not self._pos.is_over and self._lost_by is None:
            mask[self._pos.legal_actions()] = True
        return mask

    def reset(self, *, seed: Optional[int] = None, options: Optional[dict] = None):
        super().reset(seed=_seed(seed))
        self._pos = Position.start(self.rules)
        self._swapped = False
        self._lost_by = None
        return self._pos.observation(), self._info()

    def step(self, action):
        if self._pos.is_over or self._lost_by is not None:
            raise RuntimeError("the game is over: call reset()")
        action = _action(action, self.rules.action_count)
        mover_seat = self._pos.to_move
        if self.illegal_action == "lose" and action not in self._pos.legal_actions():
            self._lost_by = action
            return self._pos.observation(mover_seat), -1.0, True, False, self._info()
        self._pos = self._pos.play_action(action)  # ValueError if illegal; nothing changes
        if action == self.rules.pits:
            self._swapped = not self._swapped
            mover_seat = "north" if mover_seat == "south" else "south"
        if self._pos.is_over:
            south, north = self._pos.score
            mine = south if mover_seat == "south" else north
            reward = float(np.sign(mine - (south + north - mine)))
            # The final board, seen by the player who made the last move (as the vector env).
            return self._pos.observation(mover_seat), reward, True, False, self._info()
        return self._pos.observation(), 0.0, False, False, self._info()

    def render(self):
        if self.render_mode == "ansi":
            return f"{self._pos}\n"
        if self.render_mode == "rgb_array":
            return board_image(self._pos)
        return None

    def _info(self) -> dict:
        info: dict[str, Any] = {"action_mask": self.action_masks().astype(np.int8), "to_play": self.to_play}
        if self._lost_by is not None:
            info["illegal_action"] = self._lost_by
        if self._pos.is_over or self._lost_by is not None:
            # The final scores (the stores as they stand after an illegal action).
            south, north = self._pos.score
            info["score"] = (south, north) if not self._swapped else (north, south)
        return info


class KalahVectorEnv(VectorEnv):
    """``num_envs`` Kalah games stepped together in native code, in self-play (the vector form of
    ``KalahSelfPlayEnv``: ``gymnasium.make_vec("kalaha/KalahSelfPlay-v0", num_envs)``).

    Every step plays one move in every game for whoever is to move there (``infos["to_play"]``:
    0 for the player who opened the game, 1 for the other; an extra turn keeps the same player).
    The reward goes to the player who made the move: +1/0/-1 when that move ended the game.
    Games never truncate. ``action_masks()`` gives the legal actions (bool ``[G, m + 1]``),
    ``infos["action_mask"]`` the same as int8.

    ``autoreset_mode`` (declared in ``metadata["autoreset_mode"]``, Gymnasium's
    ``AutoresetMode`` or its name):

    - ``NEXT_STEP`` (the default, Gymnasium's): a game that ends returns its final observation
      (seen by the last mover) with ``terminated``; the next step ignores that game's action
      and returns the new game's first observation (reward 0, not terminated).
    - ``SAME_STEP``: the game is reset within the step; ``obs`` already shows the new game,
      ``infos["final_obs"]`` (rows valid where ``infos["_final_obs"]``) the final one and
      ``infos["final_info"]`` each finished game's ``score`` (player 0, player 1) and ``length``.
      The fastest mode.
    - ``DISABLED``: a game that ends stays ended (its final observation, an all-false mask)
      until ``reset(options={"reset_mask": mask})`` starts it again; stepping it before raises
      ``ValueError``.

    In every mode ``infos["final_info"]`` holds ``score`` and ``length`` of the games that ended
    in the step. ``reset(options={"reset_mask": mask})`` (bool ``[G]``) restarts only those games.
    ``threads`` sets the native pool's size (default: ``RAYON_NUM_THREADS``, else every core).

    ``illegal_action``: ``"lose"`` (the default, as ``KalahSelfPlayEnv``) ends a game whose
    action is not legal there, with -1 for its mover (``infos["illegal_action"]`` marks those
    games; their final observation is the one the mover was shown, their score the stores as
    they stand); ``"raise"`` raises ``ValueError`` naming the first such game, and no game
    changes. An action outside ``0..m`` always raises.
    """

    metadata = {"autoreset_mode": AutoresetMode.NEXT_STEP, "render_modes": []}

    def __init__(
        self,
        num_envs: int = 1024,
        rules: Any = None,
        threads: Optional[int] = None,
        seed: Optional[int] = None,
        autoreset_mode: Any = AutoresetMode.NEXT_STEP,
        illegal_action: str = "lose",
    ):
        self.rules = _rules(rules)
        self.autoreset_mode = _autoreset_mode(autoreset_mode)
        _check_choice("illegal_action", illegal_action, _ILLEGAL)
        self.illegal_action = illegal_action
        self.metadata = {**type(self).metadata, "autoreset_mode": self.autoreset_mode}
        self._env = VecEnv(num_envs, self.rules, seed=0 if seed is None else _seed(seed), threads=threads)
        self.num_envs = int(num_envs)
        self.single_observation_space = _obs_space(self.rules)
        self.single_action_space = spaces.Discrete(self.rules.action_count)
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        self.render_mode = None
        # NEXT_STEP: games that ended in the last step (their next action is ignored).
        # DISABLED: games that ended and were not reset since.
        self._ended = np.zeros(self.num_envs, dtype=bool)
        self._mask = np.zeros((self.num_envs, self.rules.action_count), dtype=bool)
        self._obs = np.zeros((self.num_envs, self.rules.obs_dim), dtype=np.float32)

    @property
    def native(self) -> VecEnv:
        """The native ``kalaha.VecEnv`` underneath."""
        return self._env

    def action_masks(self) -> np.ndarray:
        """The legal actions of every game now, bool ``[G, m + 1]``."""
        return self._mask.copy()

    def reset(self, *, seed: Optional[int] = None, options: Optional[dict] = None):
        """Starts every game afresh (``options["reset_mask"]``: only those games). ``seed`` (an
        int) seeds the games' native random streams exactly as ``kalaha.VecEnv(G, rules, seed)``
        does; ``None`` draws one from ``self.np_random``."""
        if isinstance(seed, (list, tuple)):
            raise ValueError("seed must be one int for all the games of a KalahVectorEnv, not a list")
        options = dict(options or {})
        reset_mask = options.pop("reset_mask", None)
        if options:
            raise ValueError(f"options may hold only 'reset_mask', not {sorted(options)}")
        super().reset(seed=_seed(seed))
        if reset_mask is not None:
            reset_mask = np.asarray(reset_mask)
            if reset_mask.shape != (self.num_envs,) or reset_mask.dtype != np.bool_:
                raise ValueError(
                    f"options['reset_mask'] must be a bool array of shape ({self.num_envs},), "
                    f"not {reset_mask.dtype} {reset_mask.shape}"
                )
            obs, mask, to_play = self._env.reset_games(reset_mask)
            self._ended &= ~reset_mask
            obs, mask = self._hold_ended(obs, mask)
        else:
            if seed is None:
                seed = int(self.np_random.integers(_SEED_BOUND))
            obs, mask, to_play = self._env.reset(seed)
            self._ended[:] = False
        self._obs, self._mask = obs, mask
        return obs, {"action_mask": mask.view(np.int8), "to_play": to_play}

    def step(self, actions):
        actions = np.asarray(actions)
        if actions.shape != (self.num_envs,) or not (
            np.issubdtype(actions.dtype, np.integer) and actions.dtype != np.bool_
        ):
            raise ValueError(
                f"actions must be an integer array of shape ({self.num_envs},), not {actions.dtype} {actions.shape}"
            )
        n_actions = self.rules.action_count
        if actions.size and (actions.min() < 0 or actions.max() >= n_actions):
            game = int(np.flatnonzero((actions < 0) | (actions >= n_actions))[0])
            raise ValueError(f"game {game}: action {int(actions[game])} is out of range (actions are 0 to {n_actions - 1})")
        ended = self._ended.copy()
        illegal = np.zeros(self.num_envs, dtype=bool)
        if self.illegal_action == "lose":
            illegal = ~self._mask[np.arange(self.num_envs), actions] & ~ended
            if illegal.any():
                seen_obs = self._obs[illegal]
                scores = np.array([self._env.position(int(i)).score for i in np.flatnonzero(illegal)], dtype=np.uint8)
                swapped = self._env.swapped()[illegal]
                scores[swapped] = scores[swapped][:, ::-1]  # (player 0, player 1)
                lengths = self._env.game_len()[illegal]
                # Play any legal move there (put back below), so that the native step goes on.
                first_legal = np.argmax(self._mask, axis=1)
                actions = np.where(illegal, first_legal, actions)
        if ended.any():
            if self.autoreset_mode == AutoresetMode.DISABLED:
                games = np.flatnonzero(ended)[:8].tolist()
                raise ValueError(
                    f"games {games} have ended and the auto-reset is disabled: "
                    "reset them with reset(options={'reset_mask': mask}) first"
                )
            # NEXT_STEP: the native env reset these games when they ended; this step leaves them
            # there (their actions are not played), so they show the new game's start.
            actions = np.where(ended, 0, actions)
            obs, mask, to_play, reward, done = self._env.step(actions, ended)
        else:
            obs, mask, to_play, reward, done = self._env.step(actions)
        infos: dict[str, Any] = {}
        if done.any():
            final_obs = self._env.final_obs()
            score, length = self._env.final_score(), self._env.final_len()
        if illegal.any():
            obs, mask, to_play = self._env.reset_games(illegal)
            reward[illegal] = -1.0
            if not done.any():
                final_obs = np.zeros_like(obs)
                score = np.zeros((self.num_envs, 2), dtype=np.uint8)
                length = np.zeros(self.num_envs, dtype=np.uint32)
            done = done | illegal
            final_obs[illegal], score[illegal], length[illegal] = seen_obs, scores, lengths
            infos["illegal_action"] = illegal
        if done.any():
            infos["final_info"] = {"score": score, "_score": done, "length": length, "_length": done}
            infos["_final_info"] = done
            if self.autoreset_mode == AutoresetMode.SAME_STEP:
                infos["final_obs"] = final_obs
                infos["_final_obs"] = done
            else:
                obs[done] = final_obs[done]
                mask[done] = False
        if self.autoreset_mode != AutoresetMode.SAME_STEP:
            self._ended = done if self.autoreset_mode == AutoresetMode.NEXT_STEP else (self._ended | done)
        self._obs, self._mask = obs, mask
        infos["action_mask"] = mask.view(np.int8)
        infos["to_play"] = to_play
        return obs, reward, done, np.zeros(self.num_envs, dtype=bool), infos

    def _hold_ended(self, obs: np.ndarray, mask: np.ndarray):
        """DISABLED: ended games that were not reset keep their final observation and an
        all-false mask."""
        if self._ended.any():
            obs[self._ended] = self._obs[self._ended]
            mask[self._ended] = False
        return obs, mask

    def __repr__(self) -> str:
        return f"KalahVectorEnv(num_envs={self.num_envs}, rules={self.rules!r}, autoreset_mode={self.autoreset_mode.name})"


def _autoreset_mode(mode: Any) -> AutoresetMode:
    if isinstance(mode, AutoresetMode):
        return mode
    if isinstance(mode, str):
        for m in AutoresetMode:
            if mode.replace("_", "").lower() in (m.name.replace("_", "").lower(), str(m.value).lower()):
                return m
    names = ", ".join(m.name for m in AutoresetMode)
    raise ValueError(f"autoreset_mode must be a gymnasium AutoresetMode or one of {names}, not {mode!r}")


def register() -> None:
    """Registers ``kalaha/Kalah-v0`` and ``kalaha/KalahSelfPlay-v0`` with Gymnasium (done on
    ``import kalaha`` when Gymnasium is installed)."""
    from ._registration import register_gymnasium

    register_gymnasium()


register()
