"""Every message of the web table protocol (``docs/protocol.md``) as a typed model.

* :data:`ClientMessage` — what a client sends on the game WebSocket; the server
  reads every message with :func:`parse_client`, which keeps the protocol's
  precise error texts.
* :data:`ServerMessage` — what the server sends on it (``state``, ``error``,
  ``pong``). The server writes these with orjson for speed; tests validate
  recorded games against the models and the published schema.
* The HTTP API's bodies and answers (``CreateIn`` …, ``CreateOut`` …), used
  by the FastAPI routes, so the OpenAPI page lists real models.

``python -m spieltisch.server.schema`` writes their JSON Schema to ``docs/schema/``.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

import orjson
from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    StrictInt,
    StrictStr,
    TypeAdapter,
    ValidationError,
    model_validator,
)

from spieltisch.bots.messages import JSONObject, Outcome

MAX_REF = 64
MAX_SECRET = 256

Ref = Annotated[StrictStr, Field(max_length=MAX_REF, description="Echoed in the answer (ack or error).")]
ErrorCode = Literal[
    "illegal",
    "stale",
    "not_your_turn",
    "bad_message",
    "forbidden",
    "too_large",
    "rate_limited",
    "too_many_sockets",
    "too_slow",
    "no_room",
    "hints_off",
    "archived",
    "internal",
    "unavailable",
]
"""Every ``error`` code (docs/protocol.md has the table)."""


class _In(BaseModel):
    model_config = ConfigDict(extra="ignore")


class _Out(BaseModel):
    model_config = ConfigDict(extra="forbid")


# -- client -> server (WebSocket) ---------------------------------------------------


class Hello(_In):
    """The first message of every socket: the seat it plays, or neither field to watch."""

    type: Literal["hello"]
    seat: StrictInt | None = Field(default=None, description="The seat (0-based); omit to watch.")
    secret: StrictStr | None = Field(
        default=None, max_length=MAX_SECRET, description="The seat's secret (or a remote bot's token)."
    )
    ref: Ref | None = None


class Act(_In):
    """One action: ``id`` from ``legal`` or ``action`` (notation text or the JSON form), not both."""

    type: Literal["act"]
    version: StrictInt = Field(description="The version of the last state received.")
    id: StrictInt | None = None
    action: StrictStr | JSONObject | None = None
    ref: Ref | None = None

    @model_validator(mode="after")
    def _one_of(self) -> Act:
        if (self.id is None) == (self.action is None):
            raise ValueError("exactly one of 'id' or 'action'")
        return self


class Ping(_In):
    type: Literal["ping"]
    ref: Ref | None = None


class Sync(_In):
    """Ask for a fresh state with the whole log."""

    type: Literal["sync"]
    ref: Ref | None = None


class HintIn(_In):
    """Ask for a hint: the bot's suggested move for this seat now (rooms with ``hints`` on)."""

    type: Literal["hint"]
    ref: Ref | None = None


class TakeBack(_In):
    """Take the seat back from the bot that stands in after a time-out (any act does too)."""

    type: Literal["take_back"]
    ref: Ref | None = None


class Leave(_In):
    """Resign and leave the game: a bot of the room's stand-in level plays the seat from now on."""

    type: Literal["leave"]
    ref: Ref | None = None


class EndGame(_In):
    """After a player left: end the game instead of going on with the bot."""

    type: Literal["end_game"]
    ref: Ref | None = None


AnyClientMessage = Hello | Act | Ping | Sync | TakeBack | Leave | EndGame | HintIn

ClientMessage = Annotated[AnyClientMessage, Field(discriminator="type")]
"""A message a client sends on the game WebSocket."""

_CLIENT_TYPES: dict[str, type[AnyClientMessage]] = {
    "hello": Hello,
    "act": Act,
    "ping": Ping,
    "sync": Sync,
    "take_back": TakeBack,
    "leave": Leave,
    "end_game": EndGame,
    "hint": HintIn,
}


class MessageError(Exception):
    """A client message that is not one of :data:`ClientMessage` (error code ``bad_message``)."""

    def __init__(self, message: str, ref: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.ref = ref


def _field_text(kind: str, field: str, msg: dict[str, Any]) -> str:
    if kind == "act":
        if field == "version":
            return "an act needs 'version': the version of the last state you received"
        if field == "id":
            return f"'id' must be a whole number from the legal list, not {msg.get('id')!r}"
        if field == "action":
            return "'action' must be notation text or the JSON form of an action"
        return "an act needs exactly one of 'id' (from legal) or 'action'"
    if kind == "hello":
        if field == "seat":
            return f"'seat' must be a seat number, not {msg.get('seat')!r}"
        if field == "secret":
            return f"'secret' must be a string of at most {MAX_SECRET} characters"
    return f"{field or kind}: invalid"


def ref_of(raw: str | bytes) -> str | None:
    """The ``ref`` of a message that is refused before it is read (``rate_limited``,
    ``too_large``), so that the client can match the refusal to what it sent; ``None`` when
    the message is no JSON object or its ``ref`` is not a valid one."""
    try:
        msg = orjson.loads(raw)
    except orjson.JSONDecodeError:
        return None
    ref = msg.get("ref") if isinstance(msg, dict) else None
    return ref if isinstance(ref, str) and len(ref) <= MAX_REF else None


def parse_client(raw: str | bytes) -> AnyClientMessage:
    """Read one client message; raises :class:`MessageError` saying what was wrong.

    JSON is read with orjson, which refuses documents nested deeper than 1,024
    levels with an error instead of exhausting the stack."""
    try:
        msg = orjson.loads(raw)
    except orjson.JSONDecodeError as exc:
        if "depth" in str(exc).lower() or "recursion" in str(exc).lower():
            raise MessageError("not JSON this server reads: nested deeper than 1024 levels") from None
        raise MessageError(f"not JSON: {exc}") from None
    if not isinstance(msg, dict):
        raise MessageError("a message must be a JSON object with a 'type'")
    ref = msg.get("ref")
    if ref is not None and (not isinstance(ref, str) or len(ref) > MAX_REF):
        raise MessageError(f"'ref' must be a string of at most {MAX_REF} characters")
    kind = msg.get("type")
    model = _CLIENT_TYPES.get(kind) if isinstance(kind, str) else None
    if model is None:
        raise MessageError(
            f"unknown message type {kind!r}: use hello, act, ping, sync, take_back, leave, end_game or hint",
            ref,
        )
    try:
        return model.model_validate(msg)
    except ValidationError as exc:
        errors = exc.errors()
        order = ("version", "", "id", "action", "seat", "secret")
        fields = [str(e["loc"][0]) if e["loc"] else "" for e in errors]
        first = min(fields, key=lambda f: order.index(f) if f in order else len(order))
        raise MessageError(_field_text(str(kind), first, msg), ref) from None


# -- server -> client (WebSocket) ---------------------------------------------------


class SeatInfo(_Out):
    seat: int
    kind: Literal["human", "bot", "remote"] = Field(
        description="human: a person; bot: a built-in bot; remote: a program connected with a bot token."
    )
    level: str | None = Field(default=None, description="Built-in bots only: the level.")
    name: str | None = Field(description="null while a human seat is free.")
    taken: bool
    connected: bool
    stand_in: str | None = Field(
        default=None,
        description="The level of the bot playing for this person's seat now (time out, away, left).",
    )
    left: bool = Field(default=False, description="The seat's player resigned and left the game.")
    signed_in: bool = Field(
        default=False, description="A signed-in account sits here (its name is claimed, docs/accounts.md)."
    )


class ClockInfo(_Out):
    """A room's clock settings (docs/web.md, "Clocks and stand-in bots")."""

    move: float | None = Field(description="Seconds per decision (null: none).")
    bank: float | None = Field(
        description="Seconds per player for the game, spent after 'move' (null: none)."
    )
    grace: float | None = Field(
        description="Seconds a player may be away on their turn before a bot stands in."
    )
    stand_in: str = Field(description="The level of the bot that stands in.")


class SeatClock(_Out):
    """One seat's clock as of the message (count down from its arrival while ``running``)."""

    seat: int
    running: bool = Field(description="The seat is deciding: its clock runs.")
    move: float | None = Field(description="Seconds left of this decision's own time (null: no move time).")
    bank: float | None = Field(description="Seconds left in the bank (null: no bank).")
    stand_in_after: float | None = Field(
        default=None,
        description="The seat's player is away on their turn: seconds until the stand-in bot "
        "plays for them (null: not away, or no deadline).",
    )


class RoomInfo(_Out):
    """A room as ``GET /api/rooms/{room}`` returns it (and every ``state`` carries it)."""

    room: str
    game: Literal["scout", "schmaus"]
    title: str
    players: int
    options: JSONObject
    status: Literal["waiting", "playing", "over"]
    seats: list[SeatInfo]
    version: int
    bot_delay: float
    rematch: str | None
    rematch_of: str | None
    outcome: Outcome | None
    hints: bool = Field(default=False, description="The room allows hints (shown to everybody).")
    rated: bool = Field(default=False, description="A rated game between accounts (docs/accounts.md).")
    rules_version: str = Field(description="The rules version of the engine that played the game.")
    archived: bool = Field(
        description="The stored game no longer replays under this engine: a record to read, not to play."
    )
    archived_reason: str | None = Field(description="Why it is archived (null unless archived).")
    clock: ClockInfo | None = Field(default=None, description="The room's clock; null: no clock.")
    ended: str | None = Field(
        default=None,
        description="Why the game is over without an outcome: 'ended' (ended after a player left) "
        "or 'left' (every person left).",
    )
    invite: str = Field(
        description="The room's invite link (a path, /r/CODE-KEY): it opens the room at any time; "
        "the 6-letter code alone opens it only while it waits for players (docs/protocol.md, 'Room names')."
    )


class LogEntry(_Out):
    n: int
    seat: int
    text: str
    hidden: bool
    by: str | None = Field(
        default=None,
        description="Who played it: null for the seat's own player, 'bot:LEVEL' for a stand-in bot.",
    )
    cards: list[str] | None = Field(
        default=None, description="Scout: the set the move showed (public on the table, S-7)."
    )
    card: str | None = Field(
        default=None, description="Scout: the card the move scouted, as it went into the hand (S-8)."
    )


class State(_Out):
    """This connection's view of the game: sent after the hello and after every change."""

    type: Literal["state"]
    version: int
    room: RoomInfo
    view: JSONObject = Field(description="The engine's view for this seat without its log (docs/engine.md).")
    legal: list[tuple[int, str]] = Field(description="[id, notation] of every legal action of this seat now.")
    log_from: int
    log: list[LogEntry]
    clocks: list[SeatClock] | None = Field(default=None, description="Every seat's clock; null: no clock.")
    ack: str | None = Field(default=None, description="The ref of the act or sync this state answers.")


class Error(_Out):
    """A refusal; nothing changed. ``ruling``/``reason``/``params`` come with rules refusals."""

    type: Literal["error"]
    code: ErrorCode
    message: str
    ref: str | None = None
    ruling: str | None = None
    reason: str | None = None
    params: JSONObject | None = None


class Pong(_Out):
    type: Literal["pong"]


class Hint(_Out):
    """The answer to a ``hint``: the medium bot's choice from this seat's view, and why."""

    type: Literal["hint"]
    version: int = Field(description="The version the hint is for (a later state makes it stale).")
    id: int = Field(description="The suggested action's id (one of ``legal``).")
    action: str = Field(description="The suggested action in notation.")
    reason: str = Field(description='The key of the reason (docs/review.md, "Hints").')
    params: JSONObject = Field(description="The reason's parameters (seats, cards, counts).")
    text: str = Field(description="The reason as an English sentence.")
    ref: str | None = None


ServerMessage = Annotated[State | Error | Pong | Hint, Field(discriminator="type")]
"""A message the server sends on the game WebSocket."""

server_message: TypeAdapter[State | Error | Pong | Hint] = TypeAdapter(ServerMessage)


# -- HTTP API -----------------------------------------------------------------------


class SeatIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    kind: Literal["human", "bot", "remote"] = Field(
        description="remote: reserved for a program that connects with the bot token returned."
    )
    level: str | None = Field(default=None, description="Built-in bots: one of the game's bot_levels.")
    name: str | None = Field(default=None, description="Remote bots: the name shown at the table.")


class ClockIn(BaseModel):
    """A room's clock at creation; every field is optional (no field at all: no clock)."""

    model_config = ConfigDict(extra="forbid")
    move: float | None = Field(
        default=None, strict=True, gt=0, le=7 * 86400, description="Seconds per decision (turn-based: hours)."
    )
    bank: float | None = Field(
        default=None, strict=True, gt=0, le=7 * 86400, description="Seconds per player for the game."
    )
    grace: float | None = Field(
        default=None, strict=True, ge=0, le=86400, description="Seconds a player may be away on their turn."
    )
    stand_in: str | None = Field(default=None, description="The stand-in bot's level (default medium).")


Email = Annotated[str, Field(max_length=254, pattern=r"^[^@\s]+@[^@\s]+\.[^@\s]+$")]
Lang = Literal["en", "de"]
EMAIL_HELP = (
    "Optional: in a turn-based room (an hour or more per decision) and with SMTP configured on the "
    "server, an e-mail tells the player when it is their turn and they are not at the table. Never "
    "shown to anybody."
)


class CreateIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    game: str
    players: int
    options: JSONObject | None = None
    seats: list[SeatIn] | None = None
    name: str | None = None
    bot_delay: float | None = Field(default=None, ge=0, le=10)
    seed: int | None = Field(default=None, ge=0, lt=2**62)
    clock: ClockIn | None = Field(default=None, description="Turn clocks and stand-in bots; omit for none.")
    hints: bool = Field(default=False, description="Allow hints at this table (everybody sees it is on).")
    public: bool = Field(default=False, description="List the table in the lobby while it waits for players.")
    email: Email | None = Field(default=None, description=EMAIL_HELP)
    lang: Lang | None = Field(default=None, description="The language of that e-mail (default en).")
    rated: bool = Field(
        default=False,
        description="A rated game: the creator must be signed in, and every person's seat is taken by a "
        "signed-in account (bots allowed, remote seats not; docs/accounts.md).",
    )


class RemoteSeat(_Out):
    seat: int
    token: str = Field(description="The bot token: the remote program's secret for this seat.")


class CreateOut(_Out):
    room: str
    seat: int
    secret: str
    invite: str
    remote: list[RemoteSeat] = Field(default_factory=list, description="One token per remote seat.")


class JoinIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: str | None = None
    seat: int | None = None
    email: Email | None = Field(default=None, description=EMAIL_HELP)
    lang: Lang | None = Field(default=None, description="The language of that e-mail (default en).")


class JoinOut(_Out):
    seat: int
    secret: str


class RematchIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    seat: int
    secret: str


class RematchOut(_Out):
    room: str


class ClaimIn(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True)
    from_: str = Field(alias="from", description="The room this one is the rematch of.")
    seat: int
    secret: str = Field(description="The seat's secret in the old room.")


class ClaimOut(_Out):
    room: str
    seat: int
    secret: str


class Frame(_Out):
    index: int
    action: str | None
    seat: int | None
    by: str | None = Field(default=None, description="null: the seat's own player; 'bot:LEVEL': a stand-in.")
    view: JSONObject
    hands: list[Any]
    plays: list[Any] | None = Field(
        default=None, description="Waschbär-Schmaus: every seat's sealed lay (the game is over)."
    )


class ReplayOut(_Out):
    room: str
    seat: int | None
    record: JSONObject = Field(
        description="The game record: game, players, seed, options, actions, rules_version."
    )
    frames: list[Frame] = Field(description="Step by step; an archived record's as far as it replays.")
    rules_version: str = Field(description="The rules version of the engine that played the game.")
    archived: bool = Field(description="The record no longer replays under this engine (docs/storage.md).")
    archived_reason: str | None = Field(description="Why it is archived (null unless archived).")


class ReviewedDecision(_Out):
    seat: int
    number: int = Field(description="The decision's action number in the record (1-based).")
    round: int
    played: str
    played_estimate: float | None
    best: str | None = Field(description="The best alternative (notation).")
    best_estimate: float | None
    difference: float | None = Field(description="Estimate of the move played minus the best's.")
    loss: float | None = Field(description="What the move played gives away to the best (>= 0).")
    error: float | None = Field(description="Standard error of the difference over the worlds.")
    mark: Literal["mistake", "blunder"] | None
    rated: bool
    better: bool = Field(
        default=False,
        description="The best alternative is clearly better: its loss is clear of the sampling noise and "
        "at least 0.1 (false in a review stored before reviews reported it).",
    )
    worlds: int = Field(
        default=0,
        description="Sampled worlds the move played was rated in: the budget's, more where the mark was "
        "uncertain (0 in a review stored before reviews reported it).",
    )
    candidates: list[JSONObject]


class ReviewSummary(_Out):
    seat: int
    decisions: int
    rated: int
    accuracy: float = Field(description="Mean loss per rated decision (lower is better).")
    mistakes: int
    blunders: int
    biggest: list[int] = Field(description="Action numbers of the three biggest losses.")


class SeatReview(_Out):
    """One seat's review (docs/review.md), as stored."""

    seat: int
    created: float = Field(description="When it was computed and stored (epoch seconds).")
    game: Literal["scout", "schmaus"]
    players: int
    seed: int
    budget: str
    utility: str
    thresholds: dict[str, float]
    decisions: list[ReviewedDecision]
    summary: list[ReviewSummary]


class ReviewOut(_Out):
    """A finished game's review: stored (``done``), in progress, or not asked for yet."""

    room: str
    budget: str = Field(
        description="The server's review budget: WORLDSxPLAYOUTS+EXTRA (sampled worlds x playouts per "
        "decision, plus at most EXTRA worlds where the mark is uncertain)."
    )
    status: Literal["none", "running", "done", "failed"]
    done: int = Field(description="Decisions rated so far.")
    total: int | None = Field(description="Decisions to rate (null until counted).")
    error: str | None = None
    reviews: list[SeatReview] | None = Field(default=None, description="Every seat's review, once done.")


class GameInfo(_Out):
    name: str
    title: str
    min_players: int
    max_players: int
    options: list[JSONObject]
    bot_levels: list[str]


class GamesOut(_Out):
    games: list[GameInfo]


class LobbySeat(_Out):
    seat: int
    kind: str = Field(description="human, bot or remote")
    name: str | None = Field(description="The player's name once the seat is taken (bots: none).")
    level: str | None = Field(description="A bot seat's level.")
    taken: bool


class LobbyTable(_Out):
    room: str
    game: str
    title: str
    players: int
    free: int = Field(description="Seats still open for people.")
    seats: list[LobbySeat]
    options: JSONObject = Field(description="The rule options that differ from the defaults.")
    clock: JSONObject | None = Field(description="The room's clock settings; null: no clock.")
    turn_based: bool = Field(description="An hour or more per decision: played over days.")
    rated: bool = Field(description="A rated game: only signed-in players take its seats (docs/accounts.md).")
    hints: bool
    created: float = Field(description="When the room was opened (server wall time, s).")


class LobbyQueue(_Out):
    game: str
    players: int
    waiting: int = Field(description="Players waiting in this quick-play queue.")
    longest: float = Field(description="Seconds the longest-waiting of them has waited.")


class LobbyOut(_Out):
    """The lobby: open public tables with free seats (oldest first) and the quick-play queues."""

    tables: list[LobbyTable]
    quickplay: list[LobbyQueue]


class QuickPlayIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    game: str
    players: int
    name: str | None = None
    bots: str = Field(default="medium", description="The level of the bots that fill seats after bots_after.")
    bots_after: float | None = Field(
        default=None,
        ge=0,
        le=600,
        description="Seconds to wait for people before bots fill the other seats; "
        "null: wait for people only.",
    )


class QuickPlayOut(_Out):
    ticket: str = Field(
        description="The player's ticket: send it in the header named by `header`; once seated it is the "
        "seat's secret."
    )
    header: str


class QuickPlayStatus(_Out):
    status: Literal["waiting", "seated"]
    game: str | None = None
    players: int | None = None
    waiting: int | None = Field(default=None, description="Players waiting in the queue (you included).")
    waited: float | None = Field(default=None, description="Seconds you have waited.")
    bots_after: float | None = None
    room: str | None = None
    seat: int | None = None
    secret: str | None = Field(default=None, description="The seat's secret (the ticket).")


class MySeat(BaseModel):
    model_config = ConfigDict(extra="forbid")
    room: str = Field(max_length=16)
    seat: int = Field(ge=0, le=9)
    secret: str = Field(max_length=128)


class MyGamesIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    seats: list[MySeat] = Field(max_length=100, description="The seats this browser holds (at most 100).")


class MyGame(_Out):
    room: str
    seat: int
    status: Literal["waiting", "playing", "over", "gone"] = Field(
        description="gone: no such room, or the secret does not match."
    )
    game: str | None = None
    title: str | None = None
    names: list[str | None] | None = Field(default=None, description="The names at the table, by seat.")
    your_turn: bool | None = Field(default=None, description="This seat decides now (not a stand-in bot).")
    turn_based: bool | None = Field(default=None, description="The room gives an hour or more per decision.")
    time_left: float | None = Field(default=None, description="Seconds left for the decision (with a clock).")
    won: bool | None = Field(default=None, description="A finished game: this seat won (or shared the win).")


class MyGamesOut(_Out):
    games: list[MyGame]


class ErrorOut(_Out):
    """Every HTTP error body."""

    detail: str = Field(description="A sentence saying what was wrong.")


# -- learn to play (``/api/tutorial``) ------------------------------------------------


class TutorialStepInfo(_Out):
    id: str = Field(description="The step's name; its texts are tutorial.<game>.<id>.* in the client.")
    rules: list[str] = Field(description="The rulings it teaches, e.g. ['S-6', 'S-7'].")


class TutorialGame(_Out):
    players: int
    options: JSONObject


class TutorialOut(_Out):
    game: str
    steps: list[TutorialStepInfo]
    final: TutorialGame = Field(description="The short game against easy bots that ends the lesson.")


class TutorialStepOut(_Out):
    step: int
    id: str
    rules: list[str]
    view: JSONObject = Field(description="The learner's view (seat 0), as in a state message.")
    legal: list[tuple[int, str]] = Field(description="The learner's legal actions, [id, notation].")
    teach: list[str] = Field(description="The moves this step lets through (notation).")


class TutorialMoveIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    action: StrictStr = Field(max_length=200, description="The learner's move in the game's notation.")


class TutorialRefusal(_Out):
    reason: str = Field(description="not_taught (legal, but not what the step teaches), a refusal reason "
                        "of the engine (as in an illegal error), or malformed.")
    message: str
    ruling: str | None = None
    params: JSONObject | None = None


class TutorialMoveOut(_Out):
    accepted: bool
    refusal: TutorialRefusal | None = Field(default=None, description="Why the move was not let through.")
    view: JSONObject | None = Field(
        default=None, description="After a taught move: the learner's view once the others replied."
    )
