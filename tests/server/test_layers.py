"""The server's layers (docs/server.md, "Server layout"): the cluster is one owner of the
rooms among two, so only the wiring imports it - the room directory, the rooms and the
command path know it only through the owner interface."""

from __future__ import annotations

import ast
from pathlib import Path

import spieltisch.server

SERVER = Path(spieltisch.server.__file__).parent
WIRING = {"app.py"}
"""The modules that may import the cluster: they pick the rooms' owner."""


def imported(path: Path) -> set[str]:
    """Every module ``path`` imports (``from a import b`` counts as ``a`` and ``a.b``)."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module is not None:
            names.add(node.module)
            names.update(f"{node.module}.{alias.name}" for alias in node.names)
    return names


def test_only_the_wiring_imports_the_cluster() -> None:
    importers = sorted(
        str(path.relative_to(SERVER))
        for path in SERVER.rglob("*.py")
        if path.parent.name != "cluster"
        and any(name.startswith("spieltisch.server.cluster") for name in imported(path))
    )
    assert importers == sorted(WIRING)


def test_the_room_modules_import_neither_the_wiring_nor_the_routers() -> None:
    """The directory, the rooms and the command path sit below the app and its routers."""
    above = ("spieltisch.server.app", "spieltisch.server.api", "spieltisch.server.game_socket")
    for name in ("directory", "room", "commands", "command_path", "owner", "bot_seats", "replay"):
        names = imported(SERVER / f"{name}.py")
        assert not [n for n in names if n.startswith(above)], name


def test_the_check_finds_an_import_of_the_cluster(tmp_path: Path) -> None:
    """(The check itself: an import of the cluster, in any form, is found.)"""
    for line in (
        "from spieltisch.server.cluster import Cluster",
        "import spieltisch.server.cluster.worker",
        "from spieltisch.server import cluster",
    ):
        module = tmp_path / "module.py"
        module.write_text(line + "\n")
        assert any(name.startswith("spieltisch.server.cluster") for name in imported(module)), line
