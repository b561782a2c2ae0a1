"""Helpers shared by the ecosystem wrappers."""

from __future__ import annotations

from typing import Any

import numpy as np

from ._kalaha import Rules


def as_rules(rules: Any) -> Rules:
    """Rules from a preset name, a dict of options, a ``Rules`` or ``None`` (Kalah(6,4))."""
    if isinstance(rules, Rules):
        return rules
    if rules is None:
        return Rules()
    if isinstance(rules, str):
        return Rules(rules)
    if isinstance(rules, dict):
        return Rules(**rules)
    raise TypeError(f"rules must be None, a preset name, a dict or a kalaha.Rules, not {type(rules).__name__}")


def as_action(action: Any, n: int) -> int:
    """``action`` as an int in ``0..n``: a Python or numpy integer, or a one-element integer
    array; a float, a bool, a string or an integer out of range raises ``ValueError``."""
    a = action
    if isinstance(a, np.ndarray) and a.size == 1 and np.issubdtype(a.dtype, np.integer):
        a = a.reshape(()).item()
    if isinstance(a, (bool, np.bool_)) or not isinstance(a, (int, np.integer)):
        raise ValueError(f"action must be an integer from 0 to {n - 1}, not {action!r}")
    a = int(a)
    if not 0 <= a < n:
        raise ValueError(f"action must be an integer from 0 to {n - 1}, not {a}")
    return a
