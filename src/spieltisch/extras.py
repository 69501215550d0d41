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


_SELF = re.compile(r"^\s*spieltisch\s*\[([^\]]*)\]", re.IGNORECASE)


@cache
def extra_requirements() -> dict[str, tuple[str, ...]]:
    """The requirement texts per extra (``"trueskill>=0.4"``), from the installed
    ``spieltisch`` metadata; an extra naming others (``all``) has all of theirs."""
    try:
        lines = metadata.metadata("spieltisch").get_all("Requires-Dist") or []
    except metadata.PackageNotFoundError:  # running from a bare source tree
        return {}
    own: dict[str, list[str]] = {}
    nested: dict[str, list[str]] = {}
    for line in lines:
        extra = _EXTRA.search(line)
        if extra is None:
            continue
        requirement = line.split(";", 1)[0].strip()
        inner = _SELF.match(requirement)
        if inner:
            nested.setdefault(extra.group(1), []).extend(e.strip() for e in inner.group(1).split(","))
        else:
            own.setdefault(extra.group(1), []).append(requirement)
    for name, parts in nested.items():
        own.setdefault(name, []).extend(r for part in parts for r in own.get(part, []))
    return {name: tuple(dict.fromkeys(reqs)) for name, reqs in own.items()}


def _distribution(requirement: str) -> str:
    match = _NAME.match(requirement)
    return match.group(1) if match else requirement


def _installed(distribution: str) -> bool:
    try:
        metadata.distribution(distribution)
    except metadata.PackageNotFoundError:
        return False
    return True


def missing_requirements(*extras: str) -> list[str]:
    """The requirement texts of ``extras`` whose packages are not installed."""
    known = extra_requirements()
    wanted = dict.fromkeys(r for e in extras for r in known.get(e, ()))
    return [r for r in wanted if not _installed(_distribution(r))]


def missing_extras(*extras: str) -> list[str]:
    """The extras among ``extras`` with at least one package not installed."""
    return [e for e in extras if missing_requirements(e)]


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


def main(argv: list[str]) -> int:
    """``python -m spieltisch.extras web,lab``: print the missing requirements of those
    extras, one a line (``scripts/setup`` installs just these when the project is set up)."""
    names = [e.strip() for arg in argv for e in arg.split(",") if e.strip()]
    unknown = [e for e in names if e not in extra_requirements()]
    if unknown:
        known = ", ".join(extra_requirements())
        print(f"unknown extra(s): {', '.join(unknown)}; known: {known}", file=sys.stderr)
        return 2
    for requirement in missing_requirements(*names):
        print(requirement)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
