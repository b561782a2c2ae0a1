"""Registration of the package's environments with Gymnasium and PettingZoo, by name only (the
entry points are strings, so nothing heavy is imported until an environment is made).

``import kalaha`` calls ``register_all()``: each registry is filled when its library is
installed. Gymnasium 1.x has no plugin entry points, so ``gymnasium.make("kalaha/Kalah-v0")``
works after ``import kalaha`` (or as ``gymnasium.make("kalaha:kalaha/Kalah-v0")``, which imports
it).
"""

from __future__ import annotations

import importlib.util
from typing import Optional

# id: (entry point, vector entry point or None: Gymnasium's SyncVectorEnv of the entry point)
GYM_IDS: dict[str, tuple[str, Optional[str]]] = {
    "kalaha/Kalah-v0": ("kalaha.gym:KalahEnv", None),
    "kalaha/KalahSelfPlay-v0": ("kalaha.gym:KalahSelfPlayEnv", "kalaha.gym:KalahVectorEnv"),
}

PETTINGZOO_IDS = {"kalaha/kalah-v0": "kalaha.kalah_v0:env"}


def register_gymnasium() -> bool:
    """Registers the Gymnasium ids (once); False if Gymnasium is not installed."""
    if importlib.util.find_spec("gymnasium") is None:
        return False
    import gymnasium

    for env_id, (entry, vector_entry) in GYM_IDS.items():
        if env_id not in gymnasium.registry:
            gymnasium.register(id=env_id, entry_point=entry, vector_entry_point=vector_entry)
    return True


def register_pettingzoo() -> bool:
    """Registers ``kalaha/kalah-v0`` (the AEC game, ``kalaha.kalah_v0.env``) in PettingZoo's
    registry (``pettingzoo.make("aec", "kalaha/kalah-v0")``) where the installed PettingZoo has
    one; False otherwise."""
    if importlib.util.find_spec("pettingzoo") is None:
        return False
    try:
        from pettingzoo.env_registry.registration import aec_registry, register
    except ImportError:  # PettingZoo without a registry (before 1.26)
        return False
    for env_id, entry in PETTINGZOO_IDS.items():
        if env_id not in aec_registry:
            register("aec", env_id, entry)
    return True


def register_all() -> None:
    register_gymnasium()
    register_pettingzoo()
