"""The architecture is checked (issue #33): the import contracts in pyproject.toml
(``[tool.importlinter]``: layers, no cycles, a pure engine, the server's cluster known only
to the wiring) hold for the tree, and each fails when a forbidden import is added to a copy
of it - so none of them is vacuous."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
LINT = Path(sys.executable).with_name("lint-imports")


def lint(tree: Path) -> subprocess.CompletedProcess[str]:
    """``lint-imports`` on the package under ``tree/src`` with the project's contracts."""
    env = {**os.environ, "PYTHONPATH": str(tree / "src"), "COLUMNS": "250"}  # one line per contract
    return subprocess.run(
        [str(LINT), "--no-cache", "--no-logo"], cwd=tree, env=env, capture_output=True, text=True, timeout=300
    )


@pytest.fixture(scope="module")
def tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of the package and its contracts."""
    copy = tmp_path_factory.mktemp("tree")
    shutil.copy(ROOT / "pyproject.toml", copy)
    shutil.copytree(
        ROOT / "src" / "spieltisch",
        copy / "src" / "spieltisch",
        ignore=shutil.ignore_patterns("__pycache__", "*.so"),
    )
    return copy


def test_the_tree_keeps_every_contract(tree: Path) -> None:
    out = lint(tree)
    assert out.returncode == 0, out.stdout + out.stderr
    assert re.search(r"Contracts: \d+ kept, 0 broken\.", out.stdout), out.stdout


@pytest.mark.parametrize(
    ("module", "line", "contract"),
    [
        ("engine/core.py", "import spieltisch.server.store", "Layers"),  # the engine reaching up
        ("bots/base.py", "import spieltisch.analysis.review", "Layers"),  # a bot reading the review
        ("lab/stats.py", "import spieltisch.rl", "Layers"),  # independent siblings
        ("engine/core.py", "import numpy", "The engine is pure rules"),
        ("bots/base.py", "import spieltisch.bots.external", "No import cycles"),  # external imports base
        ("server/directory.py", "import spieltisch.server.cluster", "Only the wiring imports the cluster"),
        ("server/room.py", "from spieltisch.server import game_socket", "The room directory, the rooms"),
    ],
)
def test_a_forbidden_import_breaks_its_contract(tree: Path, module: str, line: str, contract: str) -> None:
    path = tree / "src" / "spieltisch" / module
    original = path.read_text()
    path.write_text(f"{original}\n{line}  # added by the test\n")
    try:
        out = lint(tree)
    finally:
        path.write_text(original)
    assert out.returncode != 0, out.stdout
    broken = [line for line in out.stdout.splitlines() if line.endswith(" BROKEN")]
    assert any(b.startswith(contract) for b in broken), out.stdout
