"""The terminal table: one game, humans at the keyboard and bots in the other seats.

I/O goes only through the Rich console and the input stream given to
:class:`TerminalTable`, so tests drive whole games with scripted input.
Bots decide through :func:`spieltisch.bots.match.decide` (a fault is counted and
replaced by a random legal action), humans through a menu or notation that
the engine validates.
"""

from __future__ import annotations

import json
import os
import random
import select
import time
import zlib
from collections.abc import Mapping
from typing import Any, Protocol

from rich.console import Console
from rich.text import Text

from spieltisch.bots import Bot, make_bot
from spieltisch.bots.match import BotFault, decide
from spieltisch.clocks import Clocks, ClockSettings
from spieltisch.engine import Action, OptionsError, RulesError, State, get_game
from spieltisch.terminal import render
from spieltisch.terminal.config import HUMAN, PlayConfig, PlayError
from spieltisch.terminal.i18n import Names, Texts
from spieltisch.terminal.menu import (
    AskHint,
    Choice,
    Help,
    Invalid,
    ListAll,
    Menu,
    Notation,
    Page,
    Quit,
    build_menu,
    parse_command,
)

RECENT = 8
"""Log lines shown above a decision when the terminal is tall enough."""
SINCE = 4
"""Lines at most of the "since your last turn" summary above the prompt."""
REVIEW_BUDGET = "8"
"""Sampled worlds per decision of the review offered after a game."""
REVIEW_WORKERS = min(2, os.cpu_count() or 1)
"""Processes that review after a game (the game is over: both cores are free; the
review is the same for any number)."""


class LineInput(Protocol):
    """Anything with ``readline()`` (``sys.stdin``, ``io.StringIO``); ``""`` means end of input."""

    def readline(self) -> str: ...


INTERRUPTED = 130
"""The exit code after Ctrl+C (128 + SIGINT, as shells report it)."""


class Abandoned(Exception):
    """The human quit, the input ended or Ctrl+C was pressed."""

    def __init__(self, by_input_end: bool, interrupted: bool = False) -> None:
        super().__init__("input ended" if by_input_end else "interrupted" if interrupted else "quit")
        self.by_input_end = by_input_end
        self.interrupted = interrupted


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
        pause: bool | None = None,
        offer_review: bool | None = None,
        review_budget: str = REVIEW_BUDGET,
    ) -> None:
        """``pause``: wait for Enter after each round summary (default: when the input
        is a terminal and somebody plays at the keyboard). ``offer_review``: ask at
        the end whether to review the game (default: the same as ``pause``), at
        ``review_budget`` (:class:`spieltisch.analysis.review.ReviewBudget`)."""
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
        self.seen: dict[int, int] = {}
        """Per person: how much of the log they have seen (it is summed up before their prompt)."""
        self.fallback = random.Random(f"terminal/{config.seed}/fallback")
        self.results_shown = 0
        self.clocks: Clocks | None = None
        """The people's clocks (``--clock``, ``--bank``): time out, and a bot plays for them."""
        if config.clock is not None or config.bank is not None:
            settings = ClockSettings(move=config.clock, bank=config.bank, stand_in=config.stand_in)
            self.clocks = Clocks(settings, config.players)
        self.stood_in: set[int] = set()
        """The people's seats a bot plays for, since their time ran out (Enter takes them back)."""
        self.stand_ins: dict[int, Bot] = {}
        if self.clocks is not None:  # a bad --stand-in stops the game now, not at the first time-out
            for seat in self.humans:
                try:
                    self._stand_in(seat)
                except (OptionsError, ImportError, RulesError, ValueError) as exc:
                    for bot in self.bots.values():
                        bot.close()
                    raise PlayError(f"--stand-in {config.stand_in!r}: {exc}") from exc
        isatty = getattr(stdin, "isatty", None)
        self.echo = not (callable(isatty) and isatty())
        self.pause = (not self.echo if pause is None else pause) and bool(self.humans)
        self.offer_review = (not self.echo if offer_review is None else offer_review) and bool(self.humans)
        self.review_budget = review_budget

    # -- the game loop -----------------------------------------------------------
    def run(self) -> int:
        """Play to the end (0), or until the human quits (0), input ends (1) or
        Ctrl+C (130: the seed to replay the deal is printed as after ``q``)."""
        try:
            try:
                self._header()
                if self.clocks is not None:
                    self.clocks.start(self.state.to_move(), time.monotonic())
                while not self.state.is_over():
                    self._decision_round()
                self._finish()
            except KeyboardInterrupt:
                self.console.print()
                raise Abandoned(by_input_end=False, interrupted=True) from None
            self._save_record()
            if self.offer_review:
                try:
                    self._review()
                except KeyboardInterrupt:
                    self.console.print()
                    return INTERRUPTED
            return 0
        except Abandoned as exc:
            if exc.by_input_end:
                self.console.print(self.texts("input_ended"))
            self.console.print(self.texts("quit", seed=self.config.seed), style="bold")
            self._save_record()
            return INTERRUPTED if exc.interrupted else 1 if exc.by_input_end else 0
        finally:
            for bot in [*self.bots.values(), *self.stand_ins.values()]:
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
            movers_before = self.state.to_move()
            if seat in self.humans:
                if seat in self.stood_in and self._input_waiting():
                    self._take_back()
                asked = self._ask(seat) if seat not in self.stood_in else None
                if asked is None:  # the time ran out now or before: the stand-in bot decides
                    if seat not in self.stood_in:
                        self.stood_in.add(seat)
                        self.console.print(
                            Text(self.texts("time_up", level=self.config.stand_in), style="bold yellow")
                        )
                    else:
                        self.console.print(
                            Text(self.texts("bot_plays_for_you", level=self.config.stand_in), style="dim")
                        )
                    action = self._bot_move(seat, self._stand_in(seat))
                else:
                    action = asked
                    self.state.apply(seat, action)
            else:
                action = self._bot_move(seat)
            if self.clocks is not None:
                after = self.state.to_move() if not self.state.is_over() else ()
                self.clocks.moved([seat], movers_before, after, time.monotonic())
            self._event(seat, action, before)
            if seat in self.humans:
                self.seen[seat] = len(self.log)
            self._show_results()
        self._show_reveal(key)

    def _stand_in(self, seat: int) -> Bot:
        bot = self.stand_ins.get(seat)
        if bot is None:
            bot = self.stand_ins[seat] = make_bot(
                self.config.game, self.config.stand_in, seat, self.config.seed
            )
        return bot

    def _take_back(self) -> None:
        """Enter (or any line) while a bot plays for you: your seat is yours again."""
        if self.stood_in:
            self.stood_in.clear()
            self.console.print(Text(self.texts("seat_back"), style="bold green"))

    def _fileno(self) -> int | None:
        """The input's file descriptor, to wait on with a deadline (None: scripted input,
        not a terminal: nobody is timed out)."""
        if self.echo:
            return None
        try:
            fileno = getattr(self.stdin, "fileno", None)
            return int(fileno()) if callable(fileno) else None
        except (OSError, ValueError):
            return None

    def _readline(self, deadline: float | None) -> str | None:
        """A line of input; None when the monotonic ``deadline`` passed first."""
        fileno = self._fileno() if deadline is not None else None
        if deadline is not None and fileno is not None:
            wait = deadline - time.monotonic()
            if wait <= 0 or not select.select([fileno], [], [], wait)[0]:
                return None
        return self.stdin.readline()

    def _input_waiting(self) -> bool:
        """Whether a line was typed (read and dropped: it only takes the seat back)."""
        fileno = self._fileno()
        if fileno is None or not select.select([fileno], [], [], 0)[0]:
            return False
        self.stdin.readline()
        return True

    def _bot_move(self, seat: int, bot: Bot | None = None) -> Action:
        action_id, fault = decide(bot or self.bots[seat], self.state, seat, self.fallback)
        if fault is not None:
            self.faults[seat] += 1
            self.fault_messages.append(f"seat {seat}: {fault}")
            message = self.texts("fault", who=self.names[seat], message=fault, count=self.faults[seat])
            self.console.print(Text(message, style="bold red"))
        action = self.state.action_from_id(action_id)
        self.state.apply_id(seat, action_id)
        return action

    def _event(self, seat: int, action: Action, before: Mapping[str, Any]) -> None:
        if self.game.name == "scout":
            line = render.scout_event(seat, action, before, self.state.view(None), self.names, self.texts)
        else:
            line = render.schmaus_event(seat, action, self.names, self.texts)
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
            self.seen = dict.fromkeys(self.humans, len(self.log))  # the summary tells the round's end
            self.console.print()
            if self.game.name == "scout":
                self.console.print(render.scout_round_summary(result, self.names, self.texts))
            else:
                self.console.print(render.schmaus_round_summary(result, self.names, self.texts))
            if self.pause:  # keep the summary on screen until the player has read it
                self.console.print(Text(self.texts("continue"), style="italic"), end="")
                if not self.stdin.readline():
                    self.console.print()
                    raise Abandoned(by_input_end=True)
                self._take_back()
                if self.clocks is not None:  # reading the summary is not thinking time
                    self.clocks.pause(time.monotonic())
            else:
                self.console.print()

    def _finish(self) -> None:
        outcome = self.state.outcome()
        assert outcome is not None
        data = outcome.to_json()
        self.console.print()
        self.console.print(render.final_table(data, self.names, self.faults, self.texts))
        if list(outcome.winners) == [self.names.you]:
            line = self.texts("you_win")
        else:
            line = self.texts("winners", names=", ".join(self.names[s] for s in outcome.winners))
        self.console.print(Text(line, style="bold green"))
        self.console.print(self.texts("title", game=self.game.title, players=self.config.players,
                                      seed=self.config.seed))  # fmt: skip
        for seat, bot in self.bots.items():
            game_over = getattr(bot, "game_over", None)
            if callable(game_over):
                game_over(data, self.state.view(seat))

    # -- after the game: the record and the review -------------------------------------
    def _save_record(self) -> None:
        """``--record FILE``: the game record (docs/review.md), finished or not."""
        path = self.config.record
        if path is None:
            return
        text = json.dumps(self.state.record().to_json(), indent=1, ensure_ascii=False) + "\n"
        try:
            path.write_text(text, encoding="utf-8")
        except OSError as exc:
            self.console.print(
                Text(self.texts("record_failed", path=path, error=exc.strerror or exc), style="red")
            )
            return
        self.console.print(self.texts("record_saved", path=path))

    def _review(self) -> None:
        """Offer the review; on yes, rate every seat's decisions (a progress bar
        meanwhile) and show the people's mistakes and everybody's summary."""
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

        from spieltisch.analysis.review import ReviewBudget, review

        self.console.print()
        self.console.print(self.texts("review_about"))
        self.console.print(Text(self.texts("review_offer"), style="bold"), end="")
        answer = self.stdin.readline()
        if self.echo:
            self.console.print(answer.rstrip("\n"), markup=False, highlight=False)
        if answer.strip().lower() not in ("y", "yes", "j", "ja"):
            return
        record = self.state.record()
        start = self.game.new_state(record.players, record.seed, record.options)
        bar = Progress(
            TextColumn(f"[bold]{self.texts('review_bar')}"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            console=self.console,
            transient=True,
        )
        with bar:
            task = bar.add_task("review", total=None)
            result = review(
                start, record.actions, record.seed, budget=ReviewBudget.parse(self.review_budget),
                workers=REVIEW_WORKERS, advance=lambda n: bar.advance(task, n),
                on_total=lambda n: bar.update(task, total=n),
            )  # fmt: skip
        self.console.print(
            render.review_tables(
                result.to_json(), sorted(self.humans), self.names, self.texts, self.console.width
            )
        )

    def _hint(self, seat: int) -> None:
        """``hint``: the medium bot's move for this seat and why, from its view only."""
        from spieltisch.analysis.hints import hint

        view = self.state.view(seat)
        seed = zlib.crc32(f"hint/{self.config.seed}/{len(self.state.history)}/{seat}".encode())
        h = hint(self.game.name, view, self.state.legal_action_ids(seat), seed)
        params = dict(h.params)
        if self.game.name == "schmaus":  # card names in the table's language
            lang = self.texts.lang
            if "card" in params:
                params["card"] = render.card_name(str(params["card"]), lang)
            if "cards" in params:
                cards = str(params["cards"]).split()
                params["cards"] = ", ".join(render.card_name(c, lang) for c in cards if c != "-") or "-"
        reason = self.texts.hint_reason(h.reason, params, self.names)
        self.console.print(Text(self.texts("hint", move=h.action, reason=reason), style="bold cyan"))

    # -- the human ---------------------------------------------------------------
    def _ask(self, seat: int) -> Action | None:
        """Show the seat's view and the menu; read until a legal action comes
        (None: the seat's clock ran out first)."""
        legal = self.state.legal_actions(seat)
        menu = build_menu(self.game.name, legal)
        width = self.console.width
        page = 0
        message: str | None = None
        while True:
            pages = self._screen(seat, menu, page, message)
            message = None
            self.console.print(self.texts("prompt"), end="")
            line = self._readline(self.clocks.deadline(seat) if self.clocks is not None else None)
            if line is None:
                self.console.print()
                return None
            if not line:
                self.console.print()
                raise Abandoned(by_input_end=True)
            if self.echo:  # scripted input: keep the transcript readable
                self.console.print(line.rstrip("\n"), markup=False, highlight=False)
            command = parse_command(line, menu, self.texts)
            if isinstance(command, Quit):
                raise Abandoned(by_input_end=False)
            if isinstance(command, Page):
                page = min(max(page + command.step, 0), pages - 1)
            elif isinstance(command, Help):
                self.console.print(render.help_text(self.game.name, self.texts))
                self._wait()
            elif isinstance(command, ListAll):
                self.console.print(render.all_actions(legal, self.texts, width))
                self._wait()
            elif isinstance(command, AskHint) and not self.config.hints:
                message = self.texts("hints_off")  # said like any refusal: no Enter to press
            elif isinstance(command, AskHint):
                self._hint(seat)
                self._wait()
            elif isinstance(command, Invalid):
                message = command.reason
            elif isinstance(command, Choice):
                return command.action
            elif isinstance(command, Notation):
                try:
                    action = self.game.parse_action(command.text)
                    self.state.check(seat, action)
                except RulesError as exc:
                    message = render.refusal(exc, self.names, self.texts, self.game.name, command.text)
                    continue
                return action

    def _wait(self) -> None:
        """After help or the full list at a terminal: let it be read before the table returns."""
        if not self.echo:
            self.console.print(Text(self.texts("continue"), style="italic"), end="")
            self.stdin.readline()

    def _lines(self, renderable: Any) -> int:
        return len(self.console.render_lines(renderable, self.console.options, pad=False))

    def _screen(self, seat: int, menu: Menu, page: int, message: str | None) -> int:
        """Print the decision screen so that it fits the terminal's height: the
        status (players, active set, hand), the menu (paged when it is long), the
        recent log in what is left, and the refusal ``message``; the prompt comes
        last. Returns the number of menu pages."""
        view = self.state.view(seat)
        width, height = self.console.width, self.console.height
        # One line stays free for the previous input line; one is the prompt.
        room = height - 2 - (1 if message else 0)

        def status(compact: bool) -> Any:
            if self.game.name == "scout":
                return render.scout_status(view, self.names, self.texts, self.faults, width, compact)
            return render.schmaus_status(view, self.names, self.texts, self.faults, width, compact)

        heading = Text(self.texts.say("your_decision", self.names, who=seat), style="bold green")
        whole_menu, fixed = render.menu_lines(self.game.name, menu, view, self.texts, width)
        shown = status(False)
        used = self._lines(shown) + 1
        if used + whole_menu > room:
            shown = status(True)
            used = self._lines(shown) + 1
        mark = self.seen.get(seat, 0)
        since = self._since(self.log[mark:], min(SINCE, max(1, room - used - fixed - 3)))
        used += self._lines(since) if since is not None else 0
        menu_rows = max(2, room - used - fixed)
        menu_view, pages = render.menu_table(
            self.game.name, menu, view, self.texts, width, rows=menu_rows, page=page
        )
        left = room - used - self._lines(menu_view)
        recent = render.recent_log(self.log[:mark], self.texts, min(RECENT, left - 1) if left >= 2 else 0)
        self.console.print()
        self.console.print(shown)
        self.console.print(recent)
        self.console.print(heading)
        if self.clocks is not None:
            clock = self.texts("clock", time=self.clocks.text(seat, time.monotonic()))
            then = self.texts("clock_bot", level=self.config.stand_in)
            self.console.print(Text(f"{clock} — {then}", style="bold"))
        self.console.print(menu_view)
        if since is not None:
            self.console.print(since)
        if message:
            self._refuse(message)
        return pages

    def _since(self, lines: list[str], most: int) -> Text | None:
        """What the others did since this person's last decision, on at most ``most``
        lines right above the prompt (the oldest moves give way, marked "…"), so that
        the bots' moves do not scroll away on a small terminal."""
        if not lines:
            return None
        shown = list(lines)
        while True:
            more = "… " if len(shown) < len(lines) else ""
            text = Text.assemble((f"{self.texts('since')}: ", "bold"), more, " · ".join(shown))
            if len(shown) == 1 or self._lines(text) <= most:
                return text
            shown.pop(0)

    def _refuse(self, reason: str) -> None:
        self.console.print(Text(self.texts("not_accepted", reason=reason), style="bold yellow"))

    # -- names -------------------------------------------------------------------
    def _names(self) -> Names:
        """One human: "you" (with the grammar of "you"); a hot-seat game: "player #N"."""
        labels = []
        several = len(self.humans) > 1
        for seat in range(self.config.players):
            if seat in self.humans:
                labels.append(self.texts("player", seat=seat) if several else self.texts("you"))
            else:
                # Bot names come from outside (the 'ready' line): no Rich markup in them.
                name = self.bots[seat].name.replace("[", "(").replace("]", ")")
                labels.append(f"{name} #{seat}")
        you = next(iter(self.humans)) if len(self.humans) == 1 else None
        return Names(labels, you, self.config.lang)

    def _header(self) -> None:
        title = self.texts("title", game=self.game.title, players=self.config.players, seed=self.config.seed)
        if len(title) + 6 <= self.console.width:
            self.console.rule(Text(title, style="bold"))
        else:  # a rule would cut the title, and the seed to replay the deal with it
            self.console.rule()
            self.console.print(Text(title, style="bold"))
        seats = ", ".join(f"{s}: {self.names.cell(s)}" for s in range(len(self.names)))
        self.console.print(f"{self.texts('seats')}: {seats}")
        if self.config.hints:
            self.console.print(self.texts("hints_on"))


def play(config: PlayConfig, console: Console, stdin: LineInput) -> int:
    """Build the bots and play one game; raises :class:`PlayError` for bad seats."""
    table = TerminalTable(config, console, stdin)
    return table.run()
