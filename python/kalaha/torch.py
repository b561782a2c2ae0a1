"""The trained networks in PyTorch: ``kalaha.torch.TorchNetwork``.

``TorchNetwork.from_network(kalaha.Network.load("auto"))`` (or ``TorchNetwork.load(path)`` of a
checkpoint folder or of an ``.npz`` written by ``export``) is a ``torch.nn.Module`` holding the
Rust network's weights. It reads the environment's observations (float32 ``[B, 2m + 4]``), builds
the network's one-hot input from them exactly as the Rust encoder does, and returns ``(logits,
value, margin)``: policy logits ``[B, m + 1]`` (mask illegal actions yourself), the expected
result and the expected final margin divided by all seeds, each ``[B]`` in [-1, 1] (a network of
margin bins reads both from its distribution over final margins, ``margin_distribution``). Within 1e-4 of
the Rust network (tested; float32 sums in another order). Fine-tune it, or use it as the evaluator of ``kalaha.search``.

``export(network, path)`` writes the weights and the shape as one ``.npz`` (numpy only, no torch).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Union

import numpy as np
import torch
from torch import nn

from ._kalaha import Network

_ACTIVATIONS = {"relu": torch.relu, "gelu": nn.functional.gelu, "silu": nn.functional.silu, "tanh": torch.tanh}


def _shape(net: Network) -> dict:
    r = net.rules
    return {
        "pits": r.pits,
        "seeds": r.seeds,
        "input": net.input,
        "block": net.block,
        "hidden": net.hidden,
        "layers": net.layers,
        "activation": net.activation,
        "moves": net.has_moves,
        "margin_bins": net.margin_bins,
    }


def export(network: Network, path: Union[str, Path]) -> Path:
    """Writes ``network``'s weights (PyTorch layout) and shape to ``path`` (``.npz``), by way of a
    temporary file renamed into place. Returns the path written."""
    path = Path(path)
    if path.suffix != ".npz":
        path = path.with_suffix(".npz")
    arrays = dict(network.weights())
    arrays["__shape__"] = np.frombuffer(json.dumps(_shape(network)).encode(), dtype=np.uint8)
    tmp = path.with_name(path.name + ".tmp.npz")
    np.savez(tmp, **arrays)
    tmp.replace(path)
    return path


class TorchNetwork(nn.Module):
    """A kalaha network (plain or residual MLP) as a PyTorch module; see the module text."""

    def __init__(self, pits: int, seeds: int, input: str, block: str, hidden: int, layers: int, activation: str, moves: bool,
                 margin_bins: int = 0):
        super().__init__()
        if block not in ("plain", "residual"):
            raise ValueError(f"a {block} network has no PyTorch form here (plain and residual do)")
        if input not in ("onehot", "onehot_wide", "counts"):
            raise ValueError(f"a network reading '{input}' cannot be built from observations")
        if activation not in _ACTIVATIONS:
            raise ValueError(f"unknown activation '{activation}'")
        self.pits, self.seeds, self.input, self.block = pits, seeds, input, block
        self.total = 2 * pits * seeds
        self.act = _ACTIVATIONS[activation]
        bins = {"onehot": 2 * pits + 2, "onehot_wide": 4 * pits + 3}.get(input, 0)
        self.bins = bins
        width = 2 * pits + 4 + 2 * pits * bins
        trunk = []
        if block == "plain":
            for _ in range(layers):
                trunk.append(nn.Linear(width, hidden))
                width = hidden
            self.norms = nn.ModuleList()
        else:
            trunk.append(nn.Linear(width, hidden))
            for _ in range(layers):
                trunk += [nn.Linear(hidden, hidden), nn.Linear(hidden, hidden)]
            self.norms = nn.ModuleList(nn.LayerNorm(hidden, eps=1e-5) for _ in range(layers + 1))
            width = hidden
        self.trunk = nn.ModuleList(trunk)
        self.policy = nn.Linear(width, pits + 1)
        if margin_bins < 0 or (margin_bins and margin_bins % 2 == 0):
            raise ValueError(f"margin_bins must be 0 or odd, not {margin_bins}")
        self.margin_bins = margin_bins
        # A margin distribution: bin i is the final margin (2i / (bins - 1) - 1) * all seeds.
        self.value = nn.Linear(width, margin_bins or 2)
        if margin_bins:
            i = torch.arange(margin_bins, dtype=torch.float32)
            self.register_buffer("centres", 2.0 * i / (margin_bins - 1) - 1.0, persistent=False)
            self.register_buffer("signs", torch.sign(i - margin_bins // 2), persistent=False)
        self.moves = nn.Linear(width, pits + 1) if moves else None

    @classmethod
    def from_network(cls, network: Network) -> "TorchNetwork":
        """The module with ``network``'s weights."""
        module = cls(**_shape(network))
        module.load_state_dict({k: torch.from_numpy(np.array(v)) for k, v in network.weights().items()})
        return module.eval()

    @classmethod
    def load(cls, path: Union[str, Path]) -> "TorchNetwork":
        """From an ``.npz`` written by ``export``, or a checkpoint (folder, ``meta.json``, weights,
        ``"auto"``) read by ``kalaha.Network.load``."""
        p = Path(path)
        if p.suffix == ".npz" and p.is_file():
            with np.load(p) as z:
                shape = json.loads(bytes(z["__shape__"]).decode())
                module = cls(**shape)
                module.load_state_dict({k: torch.from_numpy(z[k]) for k in z.files if k != "__shape__"})
            return module.eval()
        return cls.from_network(Network.load(str(path)))

    def encode(self, obs: torch.Tensor) -> torch.Tensor:
        """What the network reads, from observations ``[B, 2m + 4]``."""
        m = self.pits
        obs = torch.as_tensor(obs, dtype=torch.float32)
        counts = torch.round(obs[:, : 2 * m + 2] * self.total)
        flags = obs[:, 2 * m + 2 :]
        base = torch.cat([counts * torch.tensor(1.0 / self.total, dtype=torch.float32), flags], dim=1)
        if not self.bins:
            return base
        idx = counts[:, : 2 * m].clamp(max=self.bins - 1).long()
        hot = nn.functional.one_hot(idx, self.bins).reshape(len(obs), -1).to(torch.float32)
        return torch.cat([base, hot], dim=1)

    def trunk_forward(self, x: torch.Tensor) -> torch.Tensor:
        """The shared hidden layers."""
        if self.block == "plain":
            for layer in self.trunk:
                x = self.act(layer(x))
            return x
        h = self.trunk[0](x)
        for b in range(len(self.norms) - 1):
            h = h + self.trunk[2 + 2 * b](self.act(self.trunk[1 + 2 * b](self.norms[b](h))))
        return self.act(self.norms[-1](h))

    def forward(self, obs: torch.Tensor):
        """``(logits [B, m + 1], value [B], margin [B])`` of observations ``[B, 2m + 4]``."""
        h = self.trunk_forward(self.encode(obs))
        if self.margin_bins:
            p = torch.softmax(self.value(h), dim=1)
            return self.policy(h), (p @ self.signs).clamp(-1.0, 1.0), (p @ self.centres).clamp(-1.0, 1.0)
        heads = torch.tanh(self.value(h))
        return self.policy(h), heads[:, 0], heads[:, 1]

    def margin_distribution(self, obs: torch.Tensor) -> torch.Tensor:
        """The chances of the final margins ``[B, margin_bins]`` (bin i: ``(2i / (bins - 1) - 1)``
        times all seeds), for a network of margin bins."""
        if not self.margin_bins:
            raise ValueError("this network has value and margin outputs, no margin distribution")
        return torch.softmax(self.value(self.trunk_forward(self.encode(obs))), dim=1)

    def lost(self, obs: torch.Tensor) -> torch.Tensor:
        """The move head: each action's predicted seeds lost against the best move ``[B, m + 1]``."""
        if self.moves is None:
            raise ValueError("this network has no move head")
        return self.moves(self.trunk_forward(self.encode(obs)))
