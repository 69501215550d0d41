"""The ``neural`` levels' shared part: a small scoring network run with numpy.

Each game's neural bot (``bots/scout/neural.py``, ``bots/schmaus/neural.py``)
turns a decision into a few **candidates**, each a row of numbers about the
position and what the candidate does (:func:`candidates` in each module), and
plays the candidate the network scores highest. The network is a multilayer
perceptron with ReLU hidden layers; its weights are a small ``.npz`` file
beside the bot, written by ``examples/train_neural.py`` (which trains it with
PyTorch; playing needs numpy only, docs/bots.md).
"""

from __future__ import annotations

from functools import cache
from importlib import resources
from typing import Any

from spieltisch.engine import OptionsError

try:
    import numpy as np
except ImportError:  # pragma: no cover - numpy is in the lab and rl extras
    np = None  # type: ignore[assignment]


class Network:
    """An MLP ``x -> relu(x W1 + b1) -> ... -> score`` over standardised inputs."""

    def __init__(self, arrays: dict[str, Any]) -> None:
        self.mean = np.asarray(arrays["mean"], dtype=np.float32)
        self.scale = np.asarray(arrays["scale"], dtype=np.float32)
        layers = sorted({k[1:] for k in arrays if k.startswith("W")}, key=int)
        self.layers = [
            (np.asarray(arrays[f"W{i}"], dtype=np.float32), np.asarray(arrays[f"b{i}"], dtype=np.float32))
            for i in layers
        ]

    @property
    def inputs(self) -> int:
        return int(self.mean.shape[0])

    def scores(self, rows: list[list[float]]) -> Any:
        """One score per row (a candidate)."""
        x = (np.asarray(rows, dtype=np.float32) - self.mean) / self.scale
        for i, (w, b) in enumerate(self.layers):
            x = x @ w + b
            if i < len(self.layers) - 1:
                np.maximum(x, 0.0, out=x)
        return x[:, 0]


def available() -> bool:
    """Whether the neural levels can play here (numpy is installed)."""
    return np is not None


def require() -> None:
    """Raise :class:`OptionsError` (when a neural bot is made, not mid-game) without numpy."""
    if np is None:
        raise OptionsError("the neural bot level needs numpy: pip install numpy (or scripts/setup lab)")


@cache
def load(package: str, name: str = "neural.npz") -> Network:
    """The network shipped as ``name`` in ``package`` (loaded once per process)."""
    require()
    with resources.files(package).joinpath(name).open("rb") as f, np.load(f) as arrays:
        return Network({k: arrays[k] for k in arrays.files})
