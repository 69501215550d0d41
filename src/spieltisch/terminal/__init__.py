"""Play Scout and Waschbär-Schmaus in the terminal against bots (``spieltisch play``).

* :mod:`~spieltisch.terminal.config` reads the command-line values,
* :mod:`~spieltisch.terminal.menu` turns typed input into commands,
* :mod:`~spieltisch.terminal.render` draws views as Rich renderables,
* :mod:`~spieltisch.terminal.table` runs the game loop on a console and an input stream.
"""

from __future__ import annotations

from spieltisch.terminal.config import DEFAULT_BOT, HUMAN, PlayConfig, PlayError, make_config
from spieltisch.terminal.table import TerminalTable, play

__all__ = ["DEFAULT_BOT", "HUMAN", "PlayConfig", "PlayError", "TerminalTable", "make_config", "play"]
