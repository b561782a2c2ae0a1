"""Judging any agent against perfect play (``kalaha.judge``) and in games (``kalaha.evaluate``).

An *agent* is a batched callable ``agent(obs, mask)``: observations float32 ``[B, 2m + 4]`` (as
``VecEnv.obs()`` writes them) and legal-action masks bool ``[B, m + 1]`` in, and either actions
int ``[B]`` or logits ``[B, m + 1]`` out (the best legal logit is played; among equal logits the
highest action, as the Rust players choose). A ``kalaha.Network`` is such an agent, and so is a
``kalaha.Bot`` (asked position by position).
"""

from __future__ import annotations

import json
import threading
from typing import Any, Callable, Optional

import numpy as np

from ._kalaha import Bot, HeldoutSet, JudgeReport, JudgeSet, Network
from ._kalaha import best_logits as _best_logits
from ._kalaha import evaluate as _evaluate

Agent = Callable[[np.ndarray, np.ndarray], Any]


def pick(logits: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """The best legal action of each row of ``logits`` ``[B, m + 1]`` under ``mask``: the highest
    logit, ties to the highest action, by the library's one rule (``kalaha::search::best_logit``,
    which the Rust players use; logits compare as float64 by IEEE total order, so ``-0.0 < 0.0``
    and a NaN is an extreme). int64 ``[B]``; a row with no legal action raises ``ValueError``."""
    return _best_logits(
        np.ascontiguousarray(logits, dtype=np.float64), np.ascontiguousarray(mask, dtype=bool)
    )


def _int(name: str, value: Any, lo: int, hi: Optional[int] = None) -> int:
    """``value`` as an int in ``lo..hi``, else ``ValueError`` naming ``name``."""
    ok = isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))
    if ok and value >= lo and (hi is None or value <= hi):
        return int(value)
    upper = "" if hi is None else f" to {hi}"
    raise ValueError(f"{name} must be an integer from {lo}{upper}, not {value!r}")


def as_agent(agent: Any) -> Any:
    """``agent`` as a batched callable ``agent(obs, mask)`` as ``judge`` and ``evaluate`` ask.

    - A ``kalaha.Network``, a ``kalaha.Bot`` or a bot spec (a str) is returned as it is.
    - A Stable-Baselines3 model (anything with ``predict`` and ``action_space``, e.g.
      sb3-contrib's ``MaskablePPO`` trained on ``kalaha/Kalah-v0``) is asked for its
      deterministic action, given the mask as wide as its action space (``action_masks=`` when
      its ``predict`` takes one) and a ``Dict`` observation when it was trained on
      ``observation_mode="dict"``.
    - A callable that returns logits as wide as the single-agent env's actions (``m``, without
      the pie answer) has them widened with ``-inf`` for the pie answer: an agent of ``m``
      actions is judged as it is.
    """
    if isinstance(agent, (str, Bot, Network)):
        return agent
    if hasattr(agent, "predict") and hasattr(agent, "action_space") and not callable(agent):
        return _sb3_agent(agent)
    if hasattr(agent, "predict") and hasattr(agent, "policy") and hasattr(agent, "action_space"):
        return _sb3_agent(agent)
    if not callable(agent):
        raise ValueError(
            f"agent must be a callable agent(obs, mask), a kalaha.Network, a kalaha.Bot, a bot spec "
            f"or a Stable-Baselines3 model, not {type(agent).__name__}"
        )
    return _Widened(agent)


class _Widened:
    """A callable agent whose logits of ``m`` columns get a ``-inf`` column for the pie answer."""

    def __init__(self, f):
        self.f = f

    def __call__(self, obs: np.ndarray, mask: np.ndarray):
        out = np.asarray(self.f(obs, mask))
        if out.ndim == 2 and out.shape[1] == mask.shape[1] - 1 and out.shape[0] == mask.shape[0]:
            pad = np.full((out.shape[0], 1), -np.inf, dtype=np.float64)
            out = np.concatenate([out.astype(np.float64), pad], axis=1)
        return out


def _sb3_agent(model):
    import inspect

    n = int(model.action_space.n)
    takes_masks = "action_masks" in inspect.signature(model.predict).parameters
    space = getattr(model, "observation_space", None)
    dict_obs = space is not None and hasattr(space, "spaces") and "action_mask" in getattr(space, "spaces", {})

    # `evaluate` asks from several threads at once, and a policy's `predict` is not safe to run
    # concurrently (sb3-contrib's masked distribution is one object the calls share).
    lock = threading.Lock()

    def agent(obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        m = mask[:, :n]
        o: Any = {"observation": obs, "action_mask": m.astype(np.int8)} if dict_obs else obs
        kwargs = {"action_masks": m} if takes_masks else {}
        with lock:
            actions, _ = model.predict(o, deterministic=True, **kwargs)
        return np.asarray(actions, dtype=np.int64).reshape(len(obs))

    return agent


def _act(agent, positions_of, obs: np.ndarray, mask: np.ndarray, batch_size: int, progress=None):
    """The agent's actions on every row, and its logits when it gives logits (else None)."""
    if isinstance(agent, Bot):
        positions = positions_of()
        return np.array([agent.act_action(p) for p in positions], dtype=np.int64), None
    agent = as_agent(agent)
    actions = np.empty(len(obs), dtype=np.int64)
    logits = None
    for start in range(0, len(obs), batch_size):
        if progress is not None:
            progress(start, len(obs))
        o, m = obs[start : start + batch_size], mask[start : start + batch_size]
        out = np.asarray(agent(o, m))
        if out.ndim == 2 and out.shape == m.shape:
            if logits is None:
                if start > 0:
                    raise ValueError("the agent gave actions for one batch and logits for another")
                logits = np.empty(mask.shape, dtype=np.float32)
            logits[start : start + len(o)] = out
            actions[start : start + len(o)] = pick(out, m)
        elif out.ndim == 1 and out.shape[0] == len(o):
            if logits is not None:
                raise ValueError("the agent gave logits for one batch and actions for another")
            if not np.issubdtype(out.dtype, np.integer):
                if not np.all(np.equal(np.mod(out, 1), 0)):
                    raise ValueError(f"the agent's actions must be integers, got {out.dtype}")
            actions[start : start + len(o)] = out.astype(np.int64)
        else:
            raise ValueError(
                f"the agent returned shape {out.shape} for a batch of {len(o)}: "
                f"expected actions [{len(o)}] or logits [{len(o)}, {m.shape[1]}]"
            )
    if progress is not None:
        progress(len(obs), len(obs))
    return actions, logits


def judge(
    agent: Agent,
    rules=None,
    positions: Optional[int] = None,
    *,
    heldout: bool = False,
    heldout_positions: int = 100_000,
    misses: bool = False,
    batch_size: int = 4096,
    build: bool = False,
    time_limit: Optional[float] = None,
    progress: Any = None,
) -> JudgeReport:
    """Scores ``agent`` on the judge set of ``rules``: the share of its moves the solver finds
    optimal, as ``kalaha judge --json`` reports a network.

    ``rules`` defaults to the network's own for a ``kalaha.Network``, else Kalah(6,4). The judge
    set is the one shipped with the package for each rule set of the guides (``positions``
    chooses another size, ``build=True`` solves a new one, ``time_limit`` seconds a position).

    Returns a ``kalaha.JudgeReport``, the report type of ``kalaha judge``: ``print(report)``
    prints the command's text, ``report.to_dict()`` is its ``--json`` and the report reads like
    that dict (``report["optimal_rate"]``). Its keys: ``optimal_rate`` and its ``std_err``,
    ``positions``, ``mean_loss`` (seeds a move gives away), ``inside_db``/``outside_db`` (inside
    the 18-seed endgame database or not), ``phases`` (by seeds on the board), ``sources``, ``pie``
    (pie rule decisions), ``unsolved``, ``network`` (the agent: a network's path, a bot's spec or
    the callable's name) and ``network_id`` (its release id). ``misses=True`` adds ``misses``: each
    position where the move is not optimal. ``heldout=True`` adds ``heldout``: the two
    100,000-position held-out sets (``train`` and ``judge``, inside the database; built once into
    the solver cache, a minute or two the first time), with KL and set loss when the agent gives
    logits.

    ``agent`` may also be a Stable-Baselines3 model trained on ``kalaha/Kalah-v0`` (see
    ``as_agent``); logits of ``m`` columns (no pie answer) are taken as they are. Ctrl-C stops it
    (``KeyboardInterrupt``); ``progress=True`` shows a bar on stderr, or give a callable
    ``f(done, total, stage)``.
    """
    if rules is None and isinstance(agent, Network):
        rules = agent.rules
    batch_size = _int("batch_size", batch_size, 1)
    heldout_positions = _int("heldout_positions", heldout_positions, 100, 1_000_000)
    report_to = _progress_callback(progress, "judge")
    js = JudgeSet.load(rules, positions, build, time_limit)
    stage = None if report_to is None else (lambda d, t: report_to(d, t, "judge set"))
    actions, _ = _act(agent, js.positions, js.obs(), js.mask(), batch_size, stage)
    scored = []
    if heldout:
        for hs in HeldoutSet.load_all(rules, heldout_positions):
            name = f"held-out {hs.kind}"
            stage = None if report_to is None else (lambda d, t, n=name: report_to(d, t, n))
            a, logits = _act(agent, hs.positions, hs.obs(), hs.mask(), batch_size, stage)
            scored.append((hs, logits if logits is not None else a))
    name, network_id = _identity(agent)
    return js.report(actions, network=name, network_id=network_id, misses=misses, heldout=scored)


def _identity(agent: Any) -> tuple:
    """The agent's name in a report (a network's path, a bot's spec, a callable's name) and its
    release id (None: not a released network)."""
    if isinstance(agent, Network):
        return agent.path, agent.id
    if isinstance(agent, Bot):
        return agent.spec, None
    name = getattr(agent, "__name__", None) or type(agent).__name__
    return ("agent" if name == "<lambda>" else name), None


def _progress_callback(progress: Any, title: str):
    """``progress`` as a callable ``f(done, total, stage)``: ``True`` the package's bar."""
    if progress is None or progress is False:
        return None
    if progress is True:
        from ._progress import Bar

        return Bar(title)
    if not callable(progress):
        raise ValueError("progress must be True, False, None or a callable f(done, total, stage)")
    return progress


def summary(report: JudgeReport) -> str:
    """The report as ``kalaha judge`` prints it: ``str(report)`` (kept for older scripts)."""
    return str(report)


def evaluate(
    agent,
    opponents=("random", "greedy", "minimax:4"),
    *,
    rules=None,
    games: int = 20,
    opening_moves: int = 4,
    seed: int = 0,
    judge: bool = True,
    name: str = "agent",
    anchor: Optional[str] = None,
    judge_memory: int = 1024,
    output=None,
    progress: Any = None,
) -> dict:
    """The arena's gauntlet, as ``kalaha eval --player AGENT --opponents ... --json`` reports it:
    ``agent`` against each of ``opponents`` (bot specs: ``random``, ``greedy``, ``minimax:D``,
    ``mcts:N``, ``solver``, ``policy:PATH[:SIMS]``), ``games`` games a pairing from random
    openings of ``opening_moves`` moves, each opening played from both seats.

    ``agent`` is a batched callable as for ``judge`` (asked one position at a time here), a
    ``kalaha.Bot`` or a bot spec. Returns a dict: ``ratings`` (Elo with 95% intervals, ``anchor``
    at 0), ``pairings`` (wins, draws, losses, seed margins), and with ``judge=True`` ``judge``:
    the solver's verdict on every move the agent made (optimal share by phase, seeds lost, the
    games whose result it changed). ``output`` writes ``report.json``, ``report.md`` and
    ``ratings.svg`` to that folder. An exception in the agent stops the evaluation and is raised.
    Ctrl-C stops it within a second (``KeyboardInterrupt``), games and judging alike;
    ``progress=True`` shows a bar on stderr (games, then judged positions), or give a callable
    ``f(done, total, stage)``. A Stable-Baselines3 model is taken as ``judge`` takes it.
    """
    if rules is None and isinstance(agent, Network):
        rules = agent.rules
    if isinstance(opponents, str):
        raise ValueError(f"opponents must be a list of bot specs, not the string {opponents!r}")
    text = _evaluate(
        as_agent(agent), list(opponents), rules=rules, games=games, opening_moves=opening_moves,
        seed=seed, judge=judge, name=name, anchor=anchor, judge_memory=judge_memory,
        output=None if output is None else str(output), progress=progress,
    )
    return json.loads(text)
