"""External bots: any program that speaks the bot protocol (``docs/bot-protocol.md``).

The table starts the program (``shlex`` split of the command), greets it with
a ``hello`` line and, whenever the seat must decide, sends a ``decide`` line
with the seat's view and every legal action; the program answers one
``action`` line. A reader thread moves the program's stdout lines into a queue
so every answer can be awaited with a timeout; a second thread keeps the tail
of its stderr for error messages.

Faults (a crash, a timeout, a malformed or an illegal answer) raise
:class:`spieltisch.bots.match.BotFault`; :func:`spieltisch.bots.match.decide` then plays
a random legal action and counts the fault. Crash policy: a program that exits
or times out is stopped; it is started again (with a fresh handshake) on the
next decision, but only ``max_restarts`` times (default once) per game. After
that the bot is dead and every further decision is a fault straight away.
"""

from __future__ import annotations

import contextlib
import json
import os
import queue
import shlex
import subprocess
import threading
import time
from collections import deque
from collections.abc import Mapping, Sequence
from typing import IO, Any

from pydantic import ValidationError

from spieltisch.bots.base import Bot, Budget, View
from spieltisch.bots.match import BotFault
from spieltisch.bots.messages import Action, Ready
from spieltisch.engine import RulesError

PROTOCOL = 1
"""The bot protocol version this table speaks."""

STARTUP_TIMEOUT = 10.0
"""Seconds a program gets to answer ``hello`` (interpreters take a while to start)."""

_STDERR_LINES = 20


class ExternalBot(Bot):
    """A seat played by an external program (``cmd:COMMAND`` seat spec)."""

    level = "external"

    def __init__(
        self,
        game: str,
        seat: int,
        seed: int,
        command: str,
        timeout: float = 10.0,
        budget: Budget | None = None,
        startup_timeout: float = STARTUP_TIMEOUT,
        max_restarts: int = 1,
    ) -> None:
        super().__init__(game, seat, seed, budget)
        try:
            self.argv = shlex.split(command)
        except ValueError as exc:
            raise BotFault(f"seat {seat} bot command {command!r} cannot be read: {exc}") from exc
        if not self.argv:
            raise BotFault(f"seat {seat}: empty bot command (write cmd:PROGRAM ARGS...)")
        self.command = command
        self.timeout = timeout
        self.startup_timeout = max(startup_timeout, timeout)
        self.max_restarts = max_restarts
        self.starts = 0
        self.dead_reason: str | None = None
        self.bot_name: str | None = None
        self._proc: subprocess.Popen[str] | None = None
        self._lines: queue.Queue[str | None] = queue.Queue()
        self._outbox: queue.Queue[str | None] = queue.Queue()
        self._write_failed = threading.Event()
        self._stderr: deque[str] = deque(maxlen=_STDERR_LINES)
        self._threads: list[threading.Thread] = []
        self._players: int | None = None
        self._options: dict[str, Any] = {}
        self._finished = False

    # -- public --------------------------------------------------------------
    @property
    def name(self) -> str:
        return self.bot_name or self.command

    def start(self, players: int, options: Mapping[str, Any] | None = None) -> None:
        """Start the program and do the handshake now (it otherwise happens on
        the first decision); raises :class:`BotFault` if that fails."""
        self._players = players
        self._options = dict(options or {})
        if self._proc is None:
            self._launch()

    def choose(self, view: View, legal: Sequence[int]) -> int:
        if self.dead_reason is not None:
            raise BotFault(f"{self._who()} is out of the game ({self.dead_reason})")
        if self._players is None:
            self._players = int(view["players"])
            options = view.get("options")
            self._options = dict(options) if isinstance(options, Mapping) else {}
        if self._proc is None or self._proc.poll() is not None:
            self._launch()
        entries = self._legal_entries(legal)
        self._send({"type": "decide", "view": dict(view), "legal": entries})
        line = self._receive(self.timeout, "to a decide message")
        return self._read_answer(line, entries)

    def game_over(self, outcome: Mapping[str, Any] | None, view: View | None = None) -> None:
        """Tell the program the game has ended (it should exit afterwards)."""
        if self._finished:
            return
        self._finished = True
        message: dict[str, Any] = {"type": "game_over", "outcome": dict(outcome) if outcome else None}
        if view is not None:
            message["view"] = dict(view)
        if self._running():
            with contextlib.suppress(BotFault):
                self._send(message)

    def close(self) -> None:
        """Stop the program: ``quit`` (unless ``game_over`` was sent), then
        end of input, then terminate, then kill."""
        proc = self._proc
        if proc is None:
            return
        if proc.poll() is None and not self._finished:
            with contextlib.suppress(BotFault):
                self._send({"type": "quit"})
        self._stop(grace=1.0)

    # -- process handling ------------------------------------------------------
    def _who(self) -> str:
        return f"seat {self.seat} bot {self.command!r}"

    def _running(self) -> bool:
        return self._proc is not None and self._proc.poll() is None

    def _launch(self) -> None:
        if self._proc is not None:
            self._stop(grace=0.2)
            if self.starts > self.max_restarts:
                reason = f"stopped after {self.starts} start(s)"
                self.dead_reason = reason
                raise BotFault(f"{self._who()} is out of the game ({reason})")
        self.starts += 1
        self._lines = queue.Queue()
        self._stderr = deque(maxlen=_STDERR_LINES)
        try:
            proc = subprocess.Popen(
                self.argv,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
                encoding="utf-8",
                errors="replace",
                bufsize=1,
                env={**os.environ, "PYTHONUNBUFFERED": "1"},
            )
        except OSError as exc:
            self.dead_reason = f"cannot start: {exc.strerror or exc}"
            raise BotFault(f"{self._who()} cannot be started: {exc.strerror or exc}") from exc
        self._proc = proc
        assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
        # A writer thread, so a program that stops reading cannot block the
        # table on a full pipe (a Scout decide line can exceed the pipe buffer).
        self._outbox = queue.Queue()
        self._write_failed = threading.Event()
        self._threads = [
            threading.Thread(target=_pump_lines, args=(proc.stdout, self._lines), daemon=True),
            threading.Thread(target=_pump_stderr, args=(proc.stderr, self._stderr), daemon=True),
            threading.Thread(
                target=_write_lines, args=(proc.stdin, self._outbox, self._write_failed), daemon=True
            ),
        ]
        for thread in self._threads:
            thread.start()
        self._handshake()

    def _handshake(self) -> None:
        hello = {
            "type": "hello",
            "protocol": PROTOCOL,
            "game": self.game_name,
            "seat": self.seat,
            "players": self._players,
            "options": self._options,
            "seed": self.seed,
            "timeout": self.timeout,
            "budget": {"seconds": self.budget.seconds, "iterations": self.budget.iterations},
        }
        self._send(hello)
        line = self._receive(self.startup_timeout, "to hello")
        try:
            message = self._json_line(line)
        except BotFault:
            self._stop(grace=0.2)
            raise
        if message.get("type") != "ready":
            raise self._fault_and_stop(f"answered hello with {_short(line)} instead of a 'ready' line")
        try:
            ready = Ready.model_validate(message)
        except ValidationError:
            raise self._fault_and_stop(
                f"answered hello with a 'ready' line whose 'name' is not text: {_short(line)}"
            ) from None
        self.bot_name = ready.name or None

    def _send(self, message: Mapping[str, Any]) -> None:
        if self._write_failed.is_set():
            raise self._crashed()
        self._outbox.put(json.dumps(message, separators=(",", ":")) + "\n")

    def _receive(self, timeout: float, what: str) -> str:
        deadline = time.monotonic() + timeout
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise self._fault_and_stop(f"timed out after {timeout:g} s (no answer {what})")
            try:
                line = self._lines.get(timeout=remaining)
            except queue.Empty:
                continue
            if line is None:  # end of output: the program has exited
                raise self._crashed()
            if line.strip():
                return line.strip()

    def _crashed(self) -> BotFault:
        proc = self._proc
        code: int | None = None
        if proc is not None:
            try:
                code = proc.wait(timeout=1.0)
            except subprocess.TimeoutExpired:
                code = None
        self._threads[1].join(timeout=0.5)  # collect the rest of stderr
        tail = " | ".join(line.rstrip() for line in self._stderr if line.strip())
        status = f"exit code {code}" if code is not None else "closed its output"
        message = f"{self._who()} crashed ({status})"
        if tail:
            message += f"; stderr: {tail[-600:]}"
        self._stop(grace=0.2)
        return BotFault(message)

    def _fault_and_stop(self, what: str) -> BotFault:
        """A fault after which the program is out of step: stop it (a restart may follow)."""
        self._stop(grace=0.2)
        return BotFault(f"{self._who()} {what}")

    def _stop(self, grace: float) -> None:
        proc = self._proc
        if proc is None:
            return
        self._outbox.put(None)  # the writer closes stdin after what is queued
        try:
            proc.wait(timeout=grace)
        except subprocess.TimeoutExpired:
            proc.terminate()
            try:
                proc.wait(timeout=1.0)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        for thread in self._threads:
            thread.join(timeout=0.5)
        if not any(thread.is_alive() for thread in self._threads):
            # Close only streams no thread uses (a grandchild may hold them open).
            for stream in (proc.stdin, proc.stdout, proc.stderr):
                if stream is not None:
                    with contextlib.suppress(OSError):
                        stream.close()

    # -- messages --------------------------------------------------------------
    def _legal_entries(self, legal: Sequence[int]) -> list[dict[str, Any]]:
        entries = []
        for action_id in legal:
            action = self.game.action_from_id(action_id)
            entries.append({"id": action_id, "text": action.to_text(), "action": action.to_json()})
        return entries

    def _json_line(self, line: str) -> dict[str, Any]:
        try:
            message = json.loads(line)
        except ValueError:
            message = None
        if not isinstance(message, dict):
            self._tell_error(f"not a JSON object: {_short(line)}")
            raise BotFault(f"{self._who()} answered garbage {_short(line)} (expected a JSON object line)")
        return message

    def _read_answer(self, line: str, entries: Sequence[Mapping[str, Any]]) -> int:
        """Validate the answer with :class:`spieltisch.bots.messages.Action` and map it to a legal id."""
        message = self._json_line(line)
        if message.get("type") != "action":
            self._tell_error("expected an 'action' message")
            raise BotFault(f"{self._who()} answered {_short(line)} instead of an 'action' message")
        ids = {int(e["id"]): e for e in entries}
        try:
            answer = Action.model_validate(message)
        except ValidationError as exc:
            wrong = {str(e["loc"][0]) for e in exc.errors() if e["loc"]}
            if "id" in wrong:
                self._tell_error("'id' must be a whole number")
                raise BotFault(f"{self._who()} answered a non-numeric action id {message['id']!r}") from None
            why = "'text' must be a string (or 'action' a JSON object)"
            self._tell_error(why)
            wrong_value = message.get("text", message.get("action"))
            raise BotFault(f"{self._who()} answered an unreadable action {wrong_value!r}: {why}") from None
        if answer.id is not None:
            chosen = answer.id
            if chosen not in ids:
                self._tell_error(f"action id {chosen} is not legal")
                raise BotFault(f"{self._who()} answered illegal action id {chosen} (not among the legal ids)")
            return chosen
        if answer.text is not None or answer.action is not None:
            raw: str | Mapping[str, Any] = answer.text if answer.text is not None else answer.action or {}
            try:
                parsed = self.game.parse_action(raw)
            except RulesError as exc:
                self._tell_error(str(exc))
                raise BotFault(f"{self._who()} answered an unreadable action {raw!r}: {exc}") from exc
            text = parsed.to_text()
            for action_id, entry in ids.items():
                if entry["text"] == text:
                    return action_id
            self._tell_error(f"{text!r} is not legal now")
            raise BotFault(
                f"{self._who()} answered illegal action {text!r} (not one of the {len(ids)} legal actions)"
            )
        self._tell_error("an action message needs 'id' or 'text'")
        raise BotFault(f"{self._who()} answered {_short(line)} without 'id' or 'text'")

    def _tell_error(self, message: str) -> None:
        """Tell the program why its answer was refused (it may ignore this)."""
        if self._running():
            with contextlib.suppress(BotFault):
                self._send({"type": "error", "message": message})


def _pump_lines(stream: IO[str], lines: queue.Queue[str | None]) -> None:
    try:
        for line in stream:
            lines.put(line)
    except (OSError, ValueError):
        pass
    finally:
        lines.put(None)


def _write_lines(stream: IO[str], outbox: queue.Queue[str | None], failed: threading.Event) -> None:
    try:
        while (line := outbox.get()) is not None:
            stream.write(line)
            stream.flush()
    except (OSError, ValueError):
        failed.set()
    finally:
        with contextlib.suppress(OSError, ValueError):
            stream.close()


def _pump_stderr(stream: IO[str], tail: deque[str]) -> None:
    try:
        for line in stream:
            tail.append(line)
    except (OSError, ValueError):
        pass


def _short(line: str, limit: int = 80) -> str:
    return repr(line if len(line) <= limit else line[: limit - 3] + "...")


__all__ = ["PROTOCOL", "STARTUP_TIMEOUT", "ExternalBot"]
