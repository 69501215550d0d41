"""The ``neural`` levels (docs/bots.md): numpy inference of a shipped network,
reproducible, legal, no torch at play time; the training script makes weights the
bot plays with."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

pytest.importorskip("numpy")

from spieltisch.bots import make_bot
from spieltisch.bots.match import play_match
from spieltisch.bots.neural import Network, load

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "examples" / "train_neural.py"


@pytest.mark.parametrize(("game", "players"), [("scout", 4), ("scout", 2), ("schmaus", 4), ("schmaus", 3)])
def test_neural_plays_whole_games_legally_and_the_same_from_the_same_seed(game: str, players: int) -> None:
    def game_log(seed: int) -> list[object]:
        bots = [make_bot(game, "neural" if s == 0 else "medium", s, seed) for s in range(players)]
        result = play_match(game, bots, seed)
        assert result.faults == [0] * players, result.fault_messages
        return list(result.state.to_json()["history"])

    assert game_log(3) == game_log(3)
    assert game_log(3) != game_log(4)


@pytest.mark.parametrize("game", ["scout", "schmaus"])
def test_the_shipped_network_loads_without_torch(game: str) -> None:
    code = (
        "import sys; sys.modules['torch'] = None\n"  # any import of torch now fails
        "from spieltisch.bots import make_bot\n"
        "from spieltisch.bots.match import play_match\n"
        f"bots = [make_bot({game!r}, 'neural', s, 1) for s in range(3)]\n"
        f"assert play_match({game!r}, bots, 1).faults == [0, 0, 0]\n"
        "print('played')\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert done.returncode == 0 and done.stdout.strip() == "played", done.stderr


def test_network_scores_rows_as_its_layers_say() -> None:
    import numpy as np

    net = Network(
        {
            "mean": np.array([1.0, 0.0]),
            "scale": np.array([2.0, 1.0]),
            "W1": np.array([[1.0, -1.0], [0.0, 1.0]]),
            "b1": np.array([0.0, 0.5]),
            "W2": np.array([[2.0], [1.0]]),
            "b2": np.array([-1.0]),
        }
    )
    # x = ((3 - 1) / 2, 1) = (1, 1); hidden = relu(1, -1 + 1 + 0.5) = (1, 0.5); 2 + 0.5 - 1
    assert net.scores([[3.0, 1.0], [1.0, -2.0]]).tolist() == pytest.approx([1.5, -1.0])
    assert load("spieltisch.bots.scout").inputs == 33 and load("spieltisch.bots.schmaus").inputs == 29


def _script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("train_neural", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["train_neural"] = module
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("game", ["scout", "schmaus"])
def test_the_training_script_collects_and_fits_weights_the_level_reads(game: str, tmp_path: Path) -> None:
    pytest.importorskip("torch")
    train = _script()
    data = tmp_path / "data.jsonl"
    train.main(["collect", game, "--games", "1", "--seed", "5", "--out", str(data), "--teacher", "medium"])
    rows, targets = train.decisions(game, data)
    assert rows and len(rows) == len(targets)
    assert all(0 <= t < len(r) for r, t in zip(rows, targets, strict=True))
    out = tmp_path / "neural.npz"
    train.main(["fit", game, str(data), "--epochs", "3", "--out", str(out)])
    import numpy as np

    with np.load(out) as arrays:
        net = Network({k: arrays[k] for k in arrays.files})
    assert net.inputs == len(rows[0][0])
    assert np.isfinite(net.scores(rows[0])).all()


def test_without_numpy_the_level_is_refused_when_made_not_mid_game() -> None:
    code = (
        "import sys; sys.modules['numpy'] = None\n"
        "from spieltisch.bots import make_bot\n"
        "from spieltisch.engine import OptionsError\n"
        "try:\n"
        "    make_bot('scout', 'neural', 0, 1)\n"
        "except OptionsError as exc:\n"
        "    print(exc)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "the neural bot level needs numpy: pip install numpy (or scripts/setup lab)"
