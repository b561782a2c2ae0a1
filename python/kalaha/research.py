"""Judging any agent against perfect play (``kalaha.judge``) and in games (``kalaha.evaluate``).

An *agent* is a batched callable ``agent(obs, mask)``: observations float32 ``[B, 2m + 4]`` (as
``VecEnv.obs()`` writes them) and legal-action masks bool ``[B, m + 1]`` in, and either actions
int ``[B]`` or logits ``[B, m + 1]`` out (the best legal logit is played; among equal logits the
highest action, as the Rust players choose). A ``kalaha.Network`` is such an agent, and so is a
``kalaha.Bot`` (asked position by position).
"""

from __future__ import annotations

import json
from typing import Any, Callable, Optional

import numpy as np

from ._kalaha import Bot, HeldoutSet, JudgeSet, Network
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


def _act(agent, positions_of, obs: np.ndarray, mask: np.ndarray, batch_size: int):
    """The agent's actions on every row, and its logits when it gives logits (else None)."""
    if isinstance(agent, Bot):
        positions = positions_of()
        return np.array([agent.act_action(p) for p in positions], dtype=np.int64), None
    actions = np.empty(len(obs), dtype=np.int64)
    logits = None
    for start in range(0, len(obs), batch_size):
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
) -> dict:
    """Scores ``agent`` on the judge set of ``rules``: the share of its moves the solver finds
    optimal, as ``kalaha judge --json`` reports a network.

    ``rules`` defaults to the network's own for a ``kalaha.Network``, else Kalah(6,4). The judge
    set is the one shipped with the package for each rule set of the guides (``positions``
    chooses another size, ``build=True`` solves a new one, ``time_limit`` seconds a position).

    Returns a dict with the command's keys: ``optimal_rate`` and its ``std_err``, ``positions``,
    ``mean_loss`` (seeds a move gives away), ``inside_db``/``outside_db`` (inside the 18-seed
    endgame database or not), ``phases`` (by seeds on the board), ``sources``, ``pie`` (pie rule
    decisions), ``unsolved``. ``misses=True`` adds ``misses``: each position where the move is not
    optimal. ``heldout=True`` adds ``heldout``: the two 100,000-position held-out sets (``train``
    and ``judge``, inside the database; built once into the solver cache, a minute or two the
    first time), with KL and set loss when the agent gives logits.
    """
    if rules is None and isinstance(agent, Network):
        rules = agent.rules
    if batch_size < 1:
        raise ValueError(f"batch_size must be positive, not {batch_size}")
    js = JudgeSet.load(rules, positions, build, time_limit)
    actions, _ = _act(agent, js.positions, js.obs(), js.mask(), batch_size)
    report = json.loads(js.score(actions))
    if misses:
        report["misses"] = json.loads(js.misses(actions))
    if heldout:
        report["heldout"] = []
        for hs in HeldoutSet.load_all(rules, heldout_positions):
            a, logits = _act(agent, hs.positions, hs.obs(), hs.mask(), batch_size)
            text = hs.score_logits(logits) if logits is not None else hs.score_actions(a)
            report["heldout"].append(json.loads(text))
    return report


def summary(report: dict) -> str:
    """A few lines of a ``judge`` report, as ``kalaha judge`` prints them."""
    pct = lambda r: 100.0 * r  # noqa: E731
    lines = [
        f"{pct(report['optimal_rate']):.1f}% ± {pct(report['std_err']):.1f} solver-optimal moves on "
        f"{report['positions']} positions, {report['mean_loss']:.2f} seeds lost a move"
    ]
    for name, key in (("inside the database", "inside_db"), ("outside", "outside_db")):
        r = report.get(key)
        if r and r.get("positions"):
            lines.append(f"  {name}: {pct(r['optimal_rate']):.1f}% ± {pct(r['std_err']):.1f} of {r['positions']}")
    for h in report.get("heldout", []):
        kl = "" if h.get("kl") is None else f", KL {h['kl']:.4f}"
        lines.append(
            f"held-out {h['set']} ({h['positions']} positions): {pct(h['optimal_rate']):.2f}% ± "
            f"{pct(h['std_err']):.2f}{kl}, {h['mean_loss']:.3f} seeds lost a move"
        )
    return "\n".join(lines)


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
    ``ratings.svg`` to that folder. An exception in the agent stops the evaluation and is raised;
    Ctrl-C stops it too.
    """
    if rules is None and isinstance(agent, Network):
        rules = agent.rules
    text = _evaluate(
        agent, list(opponents), rules=rules, games=games, opening_moves=opening_moves, seed=seed,
        judge=judge, name=name, anchor=anchor, judge_memory=judge_memory,
        output=None if output is None else str(output),
    )
    return json.loads(text)
