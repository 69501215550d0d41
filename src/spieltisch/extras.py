"""Optional extras (``spieltisch[lab]``, ``[web]``, ...): is one installed, and how to install it.

A command that needs an extra calls :func:`missing_extras` before any work, so
a user who installed only the web table hears at once which command installs
the rest, instead of a ``ModuleNotFoundError`` after minutes of play. The
extras and their packages are read from the installed package's metadata
(``pyproject.toml``), so this module never repeats the dependency lists.
"""

from __future__ import annotations

import os
import re
import shlex
import sys
from functools import cache
from importlib import metadata
from pathlib import Path

_NAME = re.compile(r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)")
_EXTRA = re.compile(r"""extra\s*==\s*["']([A-Za-z0-9._-]+)["']""")


@cache
def extra_requirements() -> dict[str, tuple[str, ...]]:
    """Distribution names per extra, from the installed ``spieltisch`` metadata."""
    try:
        lines = metadata.metadata("spieltisch").get_all("Requires-Dist") or []
    except metadata.PackageNotFoundError:  # running from a bare source tree
        return {}
    out: dict[str, list[str]] = {}
    for line in lines:
        name, extra = _NAME.match(line), _EXTRA.search(line)
        if name and extra and name.group(1).lower() != "spieltisch":
            out.setdefault(extra.group(1), []).append(name.group(1))
    return {extra: tuple(names) for extra, names in out.items()}


def _installed(distribution: str) -> bool:
    try:
        metadata.distribution(distribution)
    except metadata.PackageNotFoundError:
        return False
    return True


def missing_extras(*extras: str) -> list[str]:
    """The extras among ``extras`` with at least one package not installed."""
    known = extra_requirements()
    return [e for e in extras if any(not _installed(d) for d in known.get(e, ()))]


def source_checkout() -> Path | None:
    """The clone this package runs from (it has ``scripts/setup``), if any."""
    root = Path(__file__).resolve().parents[2]
    return root if (root / "scripts" / "setup").is_file() and (root / "pyproject.toml").is_file() else None


def install_command(extras: list[str]) -> str:
    """The shell command that installs ``extras`` here."""
    names = ",".join(extras)
    root = source_checkout()
    if root is not None:
        setup = f"scripts/setup {names}"
        return setup if Path.cwd().resolve() == root else f"cd {shlex.quote(str(root))} && {setup}"
    python = shlex.quote(os.path.relpath(sys.executable) if " " not in sys.executable else sys.executable)
    return f"{python} -m pip install 'spieltisch[{names}]'"


def missing_message(what: str, extras: list[str]) -> str:
    """``spieltisch lab needs the extra 'lab' (not installed); install it with: ...``."""
    quoted = ", ".join(f"'{e}'" for e in extras)
    noun = "extra" if len(extras) == 1 else "extras"
    return f"{what} needs the {noun} {quoted} (not installed); install with: {install_command(extras)}"
