"""Reading the ``spieltisch play`` options: seats, rule options, seed (pure)."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from spieltisch.engine import get_game
from spieltisch.options import OptionsInputError, read_options

HUMAN = "human"
DEFAULT_BOT = "medium"
"""The seat spec of every seat not named with ``--seat`` (a single constant on purpose)."""


class PlayError(ValueError):
    """A bad command-line value; the message says what was wrong."""


@dataclass
class PlayConfig:
    game: str
    players: int
    seed: int
    seats: list[str]
    """One seat spec per seat: ``human`` or anything ``make_bot`` accepts."""
    options: dict[str, Any] = field(default_factory=dict)
    bot_timeout: float = 10.0
    lang: str = "en"
    clock: float | None = None
    """Seconds per decision for the people at the keyboard (None: no clock)."""
    bank: float | None = None
    """Seconds of time bank per person for the game, spent after ``clock`` (None: none)."""
    stand_in: str = DEFAULT_BOT
    """The bot that plays for a person whose time ran out."""
    record: Path | None = None
    """Where to save the game record when the game ends (``--record``)."""
    hints: bool = False
    """The ``hint`` command is offered (``--hints``)."""

    @property
    def humans(self) -> list[int]:
        return [s for s, spec in enumerate(self.seats) if spec == HUMAN]


def random_seed() -> int:
    """A fresh seed from the operating system (printed, so the deal can be replayed)."""
    return int.from_bytes(os.urandom(4), "big")


def parse_options(pairs: Sequence[str], file: Path | None = None) -> dict[str, Any]:
    """Rule options from an options file (TOML or JSON) and ``key=value`` pairs (these win)."""
    try:
        return read_options(pairs, file)
    except OptionsInputError as exc:
        raise PlayError(str(exc)) from exc


def parse_seats(players: int, specs: Sequence[str], you: int) -> list[str]:
    """One spec per seat: ``you`` is human, the rest :data:`DEFAULT_BOT`, then ``--seat N=SPEC``."""
    if not 0 <= you < players:
        raise PlayError(f"--you {you}: seats are 0..{players - 1}")
    seats = [DEFAULT_BOT] * players
    seats[you] = HUMAN
    for item in specs:
        number, sep, spec = item.partition("=")
        spec = spec.strip()
        if not sep or not number.strip().isdigit() or not spec:
            raise PlayError(f"--seat {item!r}: write N=SPEC, e.g. --seat 2=medium or --seat 1=human")
        seat = int(number)
        if not 0 <= seat < players:
            raise PlayError(f"--seat {item!r}: seats are 0..{players - 1}")
        seats[seat] = spec
    return seats


def make_config(
    game: str,
    players: int,
    seed: int | None = None,
    seats: Sequence[str] = (),
    you: int = 0,
    options: Sequence[str] = (),
    options_file: Path | None = None,
    bot_timeout: float = 10.0,
    lang: str | None = None,
    env: Mapping[str, str] | None = None,
    clock: float | None = None,
    bank: float | None = None,
    stand_in: str = DEFAULT_BOT,
    record: Path | None = None,
    hints: bool = False,
) -> PlayConfig:
    """Check every option and build the configuration; raises :class:`PlayError`."""
    from spieltisch.engine import RulesError
    from spieltisch.langs import LANGS
    from spieltisch.terminal.i18n import detect_lang

    try:
        descriptor = get_game(game)
    except RulesError as exc:
        raise PlayError(str(exc)) from exc
    if not descriptor.min_players <= players <= descriptor.max_players:
        raise PlayError(
            f"--players {players}: {descriptor.title} is for "
            f"{descriptor.min_players} to {descriptor.max_players} players"
        )
    if bot_timeout <= 0:
        raise PlayError(f"--bot-timeout {bot_timeout}: must be more than 0 seconds")
    chosen = lang if lang is not None else detect_lang(os.environ if env is None else env)
    if chosen not in LANGS:
        raise PlayError(f"--lang {chosen!r}: choose one of {', '.join(LANGS)}")
    for flag, seconds in (("--clock", clock), ("--bank", bank)):
        if seconds is not None and not 0 < seconds <= 86400:
            raise PlayError(f"{flag} {seconds:g}: seconds must be more than 0 and at most 86400")
    if record is not None and (record.is_dir() or not record.parent.is_dir()):
        # Said now, not after the game: the record could not be saved there.
        where = "is a folder" if record.is_dir() else f"there is no folder {record.parent}"
        raise PlayError(f"--record {record}: {where}, so the game record could not be saved")
    rule_options = parse_options(options, options_file)
    try:
        descriptor.new_state(players, 0, rule_options)  # unknown options, impossible decks
    except RulesError as exc:
        raise PlayError(f"rule options: {exc}") from exc
    return PlayConfig(
        game=descriptor.name,
        players=players,
        seed=random_seed() if seed is None else seed,
        seats=parse_seats(players, seats, you),
        options=rule_options,
        bot_timeout=bot_timeout,
        lang=chosen,
        clock=clock,
        bank=bank,
        stand_in=stand_in,
        record=record,
        hints=hints,
    )
