"""Helpers shared by the ecosystem wrappers."""

from __future__ import annotations

from typing import Any

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
