"""Seat specs: which built-in bot, which version, and how much work it may do.

Grammar (the same in terminal play, the lab and the web table)::

    LEVEL[@VERSION][:KEY=VALUE]...

* ``LEVEL`` - ``random``, ``easy``, ``medium`` or ``hard``;
* ``@VERSION`` - a kept version of that level (``hard@v7``, or ``hard@baseline``
  for the level's kept baseline); without it, the default;
* ``KEY=VALUE`` - the budget per decision. Each searching level counts its
  work in one unit (:attr:`~spieltisch.bots.base.Bot.work_unit`): Scout hard
  in ``playouts``, Waschbär-Schmaus medium and hard in ``samples``. ``cap=S``
  adds a wall-clock cap of ``S`` seconds on top, for live play where a bot
  must answer in time: a capped bot stops early on a slow or busy machine, so
  its play then depends on the machine. Without ``cap`` a bot's decisions
  depend only on its seed and the views it was shown.

Examples: ``hard``, ``hard:playouts=1200``, ``hard@baseline``,
``hard:playouts=4000:cap=2``, ``medium:samples=64``.
``cmd:PROGRAM`` specs (external bots) are not parsed here.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from spieltisch.bots.base import Budget
from spieltisch.engine import OptionsError

CAP = "cap"
"""The key of the optional wall-clock cap (seconds per decision)."""

MAX_WORK = 10_000_000
"""The largest work count a spec may ask for (a typo guard, ~hours per decision)."""


@dataclass(frozen=True)
class BotSpec:
    """A parsed seat spec of a built-in bot."""

    level: str
    version: str | None = None
    work: int | None = None
    """Work per decision in the level's own unit; ``None``: the level's default."""
    cap: float | None = None
    """Wall-clock cap in seconds per decision; ``None``: none (reproducible)."""

    def budget(self, base: Budget | None = None) -> Budget:
        """The budget this spec states; what it leaves open comes from ``base``."""
        base = base or Budget()
        return Budget(
            seconds=self.cap if self.cap is not None else base.seconds,
            iterations=self.work if self.work is not None else base.iterations,
        )


def parse_spec(text: str, work_unit: str | None = None) -> BotSpec:
    """Split ``text`` into level, version and budget; ``work_unit`` is the key
    the level accepts for its work (``None``: the level takes no budget).

    Raises :class:`OptionsError` naming what is wrong."""
    head, *pairs = text.strip().split(":")
    level, at, version = head.partition("@")
    level = level.strip()
    if not level:
        raise OptionsError(f"bot spec {text!r}: name a level first, e.g. hard or hard:playouts=800")
    if at and not version.strip():
        raise OptionsError(f"bot spec {text!r}: give a version after @, e.g. {level}@baseline")
    work: int | None = None
    cap: float | None = None
    seen: set[str] = set()
    for pair in pairs:
        key, eq, value = pair.partition("=")
        key, value = key.strip(), value.strip()
        if not eq or not key or not value:
            raise OptionsError(f"bot spec {text!r}: write KEY=VALUE after ':', e.g. {level}:playouts=800")
        if key in seen:
            raise OptionsError(f"bot spec {text!r}: {key} is given twice")
        seen.add(key)
        if work_unit is None:
            raise OptionsError(f"bot spec {text!r}: {level} does no search and takes no budget")
        if key == CAP:
            cap = _seconds(text, value)
        elif key == work_unit:
            work = _count(text, key, value)
        else:
            raise OptionsError(f"bot spec {text!r}: unknown key {key!r}; {level} takes {work_unit} and {CAP}")
    return BotSpec(level=level, version=version.strip() or None, work=work, cap=cap)


def _count(text: str, key: str, value: str) -> int:
    try:
        n = int(value)
    except ValueError:
        raise OptionsError(f"bot spec {text!r}: {key} must be a whole number, not {value!r}") from None
    if not 1 <= n <= MAX_WORK:
        raise OptionsError(f"bot spec {text!r}: {key} must be between 1 and {MAX_WORK:,}, not {n}")
    return n


def _seconds(text: str, value: str) -> float:
    try:
        s = float(value)
    except ValueError:
        raise OptionsError(
            f"bot spec {text!r}: {CAP} must be seconds, e.g. {CAP}=1.5, not {value!r}"
        ) from None
    if not math.isfinite(s) or s <= 0:
        raise OptionsError(f"bot spec {text!r}: {CAP} must be more than 0 seconds, not {value!r}")
    return s
