"""The terminal table: one game, humans at the keyboard and bots in the other seats.

I/O goes only through the Rich console and the input stream given to
:class:`TerminalTable`, so tests drive whole games with scripted input.
Bots decide through :func:`spieltisch.match.decide` (a fault is counted and
replaced by a random legal action), humans through a menu or notation that
the engine validates.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any, Protocol

from rich.console import Console
from rich.text import Text

from spieltisch.bots import Bot, make_bot
from spieltisch.engine import Action, OptionsError, RulesError, State, get_game
from spieltisch.match import BotFault, decide
from spieltisch.terminal import render
from spieltisch.terminal.config import HUMAN, PlayConfig, PlayError
from spieltisch.terminal.i18n import Texts
from spieltisch.terminal.menu import (
    Choice,
    Help,
    Invalid,
    ListAll,
    Notation,
    Quit,
    build_menu,
    parse_command,
)


class LineInput(Protocol):
    """Anything with ``readline()`` (``sys.stdin``, ``io.StringIO``); ``""`` means end of input."""

    def readline(self) -> str: ...


class Abandoned(Exception):
    """The human quit, or the input ended."""

    def __init__(self, by_input_end: bool) -> None:
        super().__init__("input ended" if by_input_end else "quit")
        self.by_input_end = by_input_end


def make_bots(config: PlayConfig) -> dict[int, Bot]:
    """A bot for every seat that is not ``human``; raises :class:`PlayError` with the reason."""
    bots: dict[int, Bot] = {}
    texts = Texts(config.lang)
    try:
        for seat, spec in enumerate(config.seats):
            if spec == HUMAN:
                continue
            try:
                bot = make_bot(config.game, spec, seat, config.seed, timeout=config.bot_timeout)
            except OptionsError as exc:
                raise PlayError(f"seat {seat}: {exc}") from exc
            except ImportError as exc:
                raise PlayError(f"seat {seat}: bot level {spec!r} is not available ({exc})") from exc
            except BotFault as exc:
                raise PlayError(texts("bot_start_failed", seat=seat, message=exc)) from exc
            bots[seat] = bot
            start = getattr(bot, "start", None)  # external programs: handshake now, fail early
            if callable(start):
                try:
                    start(config.players, config.options)
                except BotFault as exc:
                    raise PlayError(texts("bot_start_failed", seat=seat, message=exc)) from exc
    except PlayError:
        for bot in bots.values():
            bot.close()
        raise
    return bots


class TerminalTable:
    """Plays one game in the terminal; :meth:`run` returns the exit code."""

    def __init__(
        self,
        config: PlayConfig,
        console: Console,
        stdin: LineInput,
        bots: Mapping[int, Bot] | None = None,
    ) -> None:
        self.config = config
        self.console = console
        self.stdin = stdin
        self.texts = Texts(config.lang)
        self.game = get_game(config.game)
        self.state: State = self.game.new_state(config.players, config.seed, config.options)
        self.bots: dict[int, Bot] = dict(bots) if bots is not None else make_bots(config)
        self.humans = set(config.humans)
        self.names = self._names()
        self.faults = [0] * config.players
        self.fault_messages: list[str] = []
        self.log: list[str] = []
        self.fallback = random.Random(f"terminal/{config.seed}/fallback")
        self.results_shown = 0
        isatty = getattr(stdin, "isatty", None)
        self.echo = not (callable(isatty) and isatty())

    # -- the game loop -----------------------------------------------------------
    def run(self) -> int:
        """Play to the end (0), or until the human quits (0) or input ends (1)."""
        try:
            self._header()
            while not self.state.is_over():
                self._decision_round()
            self._finish()
            return 0
        except Abandoned as exc:
            if exc.by_input_end:
                self.console.print(self.texts("input_ended"))
            self.console.print(self.texts("quit", seed=self.config.seed), style="bold")
            return 1 if exc.by_input_end else 0
        finally:
            for bot in self.bots.values():
                bot.close()

    def _key(self) -> tuple[Any, Any]:
        view = self.state.view(None)
        return view["round"], view["phase"]

    def _decision_round(self) -> None:
        """Every seat of the current decision acts once: humans first, then bots
        (for a sealed decision nobody sees the others' choices before the reveal)."""
        key = self._key()
        movers = self.state.to_move()
        order = [s for s in movers if s in self.humans] + [s for s in movers if s not in self.humans]
        for seat in order:
            if seat not in self.state.to_move() or self._key() != key:
                break
            before = self.state.view(None)
            if seat in self.humans:
                action = self._ask(seat)
                self.state.apply(seat, action)
            else:
                action = self._bot_move(seat)
            self._event(seat, action, before)
            self._show_results()
        self._show_reveal(key)

    def _bot_move(self, seat: int) -> Action:
        action_id, fault = decide(self.bots[seat], self.state, seat, self.fallback)
        if fault is not None:
            self.faults[seat] += 1
            self.fault_messages.append(f"seat {seat}: {fault}")
            message = self.texts("fault", who=self.names[seat], message=fault, count=self.faults[seat])
            self.console.print(Text(message, style="bold red"))
        action = self.state.action_from_id(action_id)
        self.state.apply_id(seat, action_id)
        return action

    def _event(self, seat: int, action: Action, before: Mapping[str, Any]) -> None:
        who = self.names[seat]
        if self.game.name == "scout":
            line = render.scout_event(who, action, before, self.state.view(None), self.texts)
        else:
            line = render.schmaus_event(who, action, self.names, self.texts)
        self.log.append(line)
        self.console.print(Text(f"· {line}", style="dim"))

    def _show_reveal(self, key: tuple[Any, Any]) -> None:
        view = self.state.view(None)
        if (view["round"], view["phase"]) == key:
            return
        if self.game.name == "scout" and key[1] == "flip" and view["round"] == key[0]:
            self.console.print(Text(self.texts("flip_reveal"), style="bold"))
        if self.game.name == "schmaus" and view["phase"] == "target" and view.get("revealed"):
            self.console.print(render.schmaus_lays(view["revealed"], self.names, self.texts))

    def _show_results(self) -> None:
        results = self.state.view(None)["round_results"]
        while self.results_shown < len(results):
            result = results[self.results_shown]
            self.results_shown += 1
            self.console.print()
            if self.game.name == "scout":
                self.console.print(render.scout_round_summary(result, self.names, self.texts))
            else:
                self.console.print(render.schmaus_round_summary(result, self.names, self.texts))
            self.console.print()

    def _finish(self) -> None:
        outcome = self.state.outcome()
        assert outcome is not None
        data = outcome.to_json()
        self.console.print()
        self.console.print(render.final_table(data, self.names, self.faults, self.texts))
        winners = ", ".join(self.names[s] for s in outcome.winners)
        self.console.print(Text(self.texts("winners", names=winners), style="bold green"))
        self.console.print(self.texts("title", game=self.game.title, players=self.config.players,
                                      seed=self.config.seed))  # fmt: skip
        for seat, bot in self.bots.items():
            game_over = getattr(bot, "game_over", None)
            if callable(game_over):
                game_over(data, self.state.view(seat))

    # -- the human ---------------------------------------------------------------
    def _ask(self, seat: int) -> Action:
        """Show the seat's view and the menu; read until a legal action comes."""
        view = self.state.view(seat)
        legal = self.state.legal_actions(seat)
        menu = build_menu(self.game.name, legal)
        width = self.console.width
        self.console.print()
        if self.game.name == "scout":
            self.console.print(render.scout_status(view, self.names, self.texts, self.faults, width))
            self.console.print(render.recent_log(self.log, self.texts))
        else:
            self.console.print(render.schmaus_status(view, self.names, self.texts, self.faults))
        self.console.print(Text(self.texts("your_decision", who=self.names[seat]), style="bold green"))
        self.console.print(render.menu_table(self.game.name, menu, view, self.texts, width))
        while True:
            self.console.print(self.texts("prompt"), end="")
            line = self.stdin.readline()
            if not line:
                self.console.print()
                raise Abandoned(by_input_end=True)
            if self.echo:  # scripted input: keep the transcript readable
                self.console.print(line.rstrip("\n"), markup=False, highlight=False)
            command = parse_command(line, menu, self.texts)
            if isinstance(command, Quit):
                raise Abandoned(by_input_end=False)
            if isinstance(command, Help):
                self.console.print(render.help_text(self.game.name, self.texts))
            elif isinstance(command, ListAll):
                self.console.print(render.all_actions(legal, self.texts, width))
            elif isinstance(command, Invalid):
                self._refuse(command.reason)
            elif isinstance(command, Choice):
                return command.action
            elif isinstance(command, Notation):
                try:
                    action = self.game.parse_action(command.text)
                    self.state.check(seat, action)
                except RulesError as exc:
                    self._refuse(render.refusal(exc, self.names, self.texts))
                    continue
                return action

    def _refuse(self, reason: str) -> None:
        self.console.print(Text(self.texts("not_accepted", reason=reason), style="bold yellow"))

    # -- names -------------------------------------------------------------------
    def _names(self) -> list[str]:
        names = []
        several = len(self.humans) > 1
        for seat in range(self.config.players):
            if seat in self.humans:
                you = self.texts("you")
                names.append(f"{you} #{seat}" if several else you)
            else:
                # Bot names come from outside (the 'ready' line): no Rich markup in them.
                name = self.bots[seat].name.replace("[", "(").replace("]", ")")
                names.append(f"{name} #{seat}")
        return names

    def _header(self) -> None:
        title = self.texts("title", game=self.game.title, players=self.config.players, seed=self.config.seed)
        self.console.rule(Text(title, style="bold"))
        seats = ", ".join(f"{s}: {name}" for s, name in enumerate(self.names))
        self.console.print(f"{self.texts('seats')}: {seats}")


def play(config: PlayConfig, console: Console, stdin: LineInput) -> int:
    """Build the bots and play one game; raises :class:`PlayError` for bad seats."""
    table = TerminalTable(config, console, stdin)
    return table.run()
