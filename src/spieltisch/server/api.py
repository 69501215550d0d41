"""The HTTP API of the rooms (``/api/...``): open, join, rematch, claim, replay, review.

Each change of a room is a typed command (:mod:`spieltisch.server.commands`) that the
room directory runs on the room's owner; see docs/protocol.md.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from fastapi import APIRouter, Depends, Header, HTTPException, Request

from spieltisch.server.accounts import Accounts
from spieltisch.server.codes import new_secret, split_name
from spieltisch.server.commands import Claim, Join, Rematch
from spieltisch.server.directory import RoomDirectory, SeatSpec
from spieltisch.server.games import games_info
from spieltisch.server.limits import Addresses, CountUnavailable, retry_after
from spieltisch.server.messages import (
    ClaimIn,
    ClaimOut,
    CreateIn,
    CreateOut,
    ErrorOut,
    GamesOut,
    JoinIn,
    JoinOut,
    RematchIn,
    RematchOut,
    ReplayOut,
    ReviewOut,
    RoomInfo,
    SeatIn,
)
from spieltisch.server.replay import record, replay_of
from spieltisch.server.reviews import Reviewer
from spieltisch.server.sessions import signed_in

SEAT_HEADER = "Spieltisch-Seat"
SECRET_HEADER = "Spieltisch-Secret"
"""A seat's secret (or a remote bot's token) travels in these headers or in the
first WebSocket message, never in a URL (docs/protocol.md, "Secrets")."""
SECRET_PARAMS = ("secret", "token")
SECRET_IN_URL = (
    "secrets are never accepted in a URL (it ends up in logs and browser history): "
    f"send the seat and secret in the {SEAT_HEADER}/{SECRET_HEADER} headers"
)


def _errors(*codes: int) -> dict[int | str, dict[str, Any]]:
    texts = {
        400: "a secret in the URL",
        403: "wrong or missing secret",
        404: "no such room (or seat)",
        409: "the room's state does not allow it (full, taken, not over yet)",
        422: "an invalid body or parameter, or a rule option the engine refuses",
        413: "the request body is over max_body",
        429: "a per-address or per-room limit was hit (the detail names it; Retry-After says when to "
        "try again)",
        503: "the database refused the write (or, for a review: too many reviews running)",
    }
    # 422 everywhere: a bad parameter is answered {"detail": "..."} too (validation_error below).
    return {c: {"model": ErrorOut, "description": texts[c]} for c in sorted({*codes, 422})}


def no_secret_in_url(request: Request) -> None:
    if any(p in request.query_params for p in SECRET_PARAMS):
        raise HTTPException(400, SECRET_IN_URL)


def client_address(client: Any) -> str:
    """The client's IP address (uvicorn takes it from X-Forwarded-For behind a trusted proxy)."""
    return str(client.host) if client is not None and client.host else "unknown"


async def charge_room(addresses: Addresses, request: Request) -> None:
    """Count a new room (or quick-play ticket) against the client's ``rooms_per_minute``;
    raises ``429`` with ``Retry-After`` when it is used up (``503`` when it cannot be counted)."""
    try:
        wait = await addresses.take_room_async(client_address(request.client))
    except CountUnavailable as exc:  # not let through uncounted (docs/deploy.md)
        raise HTTPException(503, str(exc)) from None
    if wait is not None:
        raise HTTPException(
            429,
            f"rooms_per_minute: at most {addresses.limits.rooms_per_minute} new rooms per minute from one "
            f"address; try again in {wait:.0f} s",
            headers=retry_after(wait),
        )


def rated_room(seats: list[SeatIn] | None, creator_signed_in: bool) -> None:
    """Refuse a rated room (403, 422) that its creator may not open: rated games are played
    between signed-in accounts and the built-in bots (docs/accounts.md)."""
    if not creator_signed_in:
        raise HTTPException(403, "rated: only a signed-in player can open a rated room (docs/accounts.md)")
    if any(s.kind == "remote" for s in seats or ()):
        raise HTTPException(422, "rated: a rated room takes accounts and built-in bots, no remote seats")


def rooms_api(
    directory: RoomDirectory,
    reviewer: Reviewer,
    addresses: Addresses,
    accounts: Accounts,
    lobby_changed: Callable[[], None],
) -> APIRouter:
    """The routes of ``/api``: games, rooms and their reviews (``lobby_changed``: a public room
    was opened or a seat taken, see :mod:`spieltisch.server.lobby`). An address that has used up
    ``misses_per_hour`` (rooms that do not exist, wrong secrets: counted by the app's
    :class:`RoomError` handler) is refused every room until its oldest miss is an hour old.
    A signed-in person (``accounts``, docs/accounts.md) sits under the account's name."""

    async def not_guessing(request: Request) -> None:
        if "code" in request.path_params:
            try:
                wait = await addresses.locked_out_async(client_address(request.client))
            except CountUnavailable as exc:  # not let through uncounted (docs/deploy.md)
                raise HTTPException(503, str(exc)) from None
            if wait is not None:
                raise HTTPException(429, addresses.locked_text(wait), headers=retry_after(wait))

    router = APIRouter(dependencies=[Depends(not_guessing)])

    @router.get("/api/games", response_model=GamesOut)
    async def list_games() -> dict[str, Any]:
        return games_info()

    @router.post("/api/rooms", response_model=CreateOut, responses=_errors(403, 413, 429, 503))
    async def create_room(body: CreateIn, request: Request) -> dict[str, Any]:
        """Open a table. ``remote`` seats get a bot token each (in ``remote``): give it to the
        program that plays the seat over the WebSocket (docs/bot-protocol.md, "Remote bots")."""
        seats: list[SeatSpec] | None = None
        tokens: dict[int, str] = {}
        if body.seats is not None:
            seats = []
            for i, s in enumerate(body.seats):
                if s.kind == "remote":
                    tokens[i] = new_secret()
                seats.append(SeatSpec(s.kind, s.level, s.name, tokens.get(i)))
        clock = body.clock.model_dump() if body.clock is not None else None
        account = await signed_in(accounts, request)
        if body.rated:
            rated_room(body.seats, account is not None)
        # A refused room (a bad option, 422) is refused before it is counted: only rooms
        # that would be opened use up the address's budget (issue #34).
        plan = directory.plan(
            body.game, body.players, body.options, seats, body.name, body.bot_delay, body.seed,
            clock, allow_hints=body.hints, public=body.public, email=body.email, lang=body.lang,
        )  # fmt: skip
        if account is not None:  # the creator's seat is the account's
            creator = plan.template.seats[plan.seat]
            creator.name, creator.account = account.name, account.id
        plan.template.rated = body.rated
        await charge_room(addresses, request)
        room = await directory.insert(plan.template)
        if room.row.public:
            lobby_changed()
        return {
            "room": room.code,
            "seat": plan.seat,
            "secret": plan.secret,
            "invite": room.invite,
            "remote": [{"seat": s, "token": t} for s, t in tokens.items()],
        }

    @router.get(
        "/api/rooms/{code}",
        response_model=RoomInfo,
        response_model_exclude_unset=True,
        responses=_errors(404, 429),
    )
    async def room_info(
        code: str,
        seat: int | None = Header(default=None, alias=SEAT_HEADER),
        secret: str | None = Header(default=None, alias=SECRET_HEADER),
    ) -> dict[str, Any]:
        """The room named ``code`` (its code, or ``CODE-KEY`` from its invite link; a seat's
        secret in the headers opens a started game by its code too: docs/protocol.md)."""
        return (await directory.find(code, seat, secret)).info()

    @router.post(
        "/api/rooms/{code}/join", response_model=JoinOut, responses=_errors(403, 404, 409, 413, 503, 429)
    )
    async def join(code: str, body: JoinIn, request: Request) -> dict[str, Any]:
        account = await signed_in(accounts, request)
        room = await directory.find(code)
        if account is None and room.row.rated:  # (not a miss: the room exists)
            raise HTTPException(403, f"room {room.code} is rated: sign in to take a seat (docs/accounts.md)")
        if account is not None:
            opener = next(s.account for s in room.row.seats if s.kind == "human")  # (the creator's seat)
            if await asyncio.to_thread(accounts.blocked, opener, account.id):
                raise HTTPException(403, f"room {room.code} is not open to you")
        name, who = (account.name, account.id) if account is not None else (body.name, None)
        seat, secret = await directory.run(Join(room.code, name, body.seat, body.email, body.lang, who))
        lobby_changed()
        return {"seat": seat, "secret": secret}

    @router.post(
        "/api/rooms/{code}/rematch", response_model=RematchOut, responses=_errors(403, 404, 409, 503, 429)
    )
    async def rematch(code: str, body: RematchIn) -> dict[str, Any]:
        room = await directory.find(code, body.seat, body.secret)
        return {"room": await directory.run(Rematch(room.code, body.seat, body.secret))}

    @router.post("/api/rooms/{code}/claim", response_model=ClaimOut, responses=_errors(403, 404, 429))
    async def claim(code: str, body: ClaimIn) -> dict[str, Any]:
        """A seat's secret in the rematch room ``code``, from its secret in the old room."""
        old = await directory.find(body.from_, body.seat, body.secret)
        room, _key = split_name(code)
        secret = await directory.run(Claim(room, old.code, body.seat, body.secret))
        return {"room": room, "seat": body.seat, "secret": secret}

    @router.get("/api/rooms/{code}/claim", include_in_schema=False)
    async def claim_by_url(code: str, request: Request) -> None:
        no_secret_in_url(request)
        raise HTTPException(405, "claim a rematch seat with POST and a JSON body {from, seat, secret}")

    @router.get(
        "/api/rooms/{code}/replay", response_model=ReplayOut, responses=_errors(400, 403, 404, 409, 429)
    )
    async def replay(
        code: str,
        request: Request,
        seat: int | None = Header(default=None, alias=SEAT_HEADER),
        secret: str | None = Header(default=None, alias=SECRET_HEADER),
    ) -> dict[str, Any]:
        """The finished game step by step, as seen by the seat in the headers (none: a spectator)."""
        no_secret_in_url(request)
        return await replay_of(await directory.find(code, seat, secret), seat, secret)

    @router.get("/api/rooms/{code}/review", response_model=ReviewOut, responses=_errors(404, 409, 429))
    async def review_status(
        code: str,
        seat: int | None = Header(default=None, alias=SEAT_HEADER),
        secret: str | None = Header(default=None, alias=SECRET_HEADER),
    ) -> dict[str, Any]:
        """The review of a finished game (docs/review.md): ``done`` with every seat's
        review when it is stored, ``running`` with the progress, or ``none``."""
        room = await directory.find(code, seat, secret)
        return await reviewer.status(room.code, record(room), start=False)

    @router.post("/api/rooms/{code}/review", response_model=ReviewOut, responses=_errors(404, 409, 503, 429))
    async def review_start(
        code: str,
        seat: int | None = Header(default=None, alias=SEAT_HEADER),
        secret: str | None = Header(default=None, alias=SECRET_HEADER),
    ) -> dict[str, Any]:
        """Start the review of a finished game (or answer the stored one at once). The
        game is over and every card public: any seat or spectator may ask (by the invite
        link, or by the code with a seat's secret in the headers)."""
        room = await directory.find(code, seat, secret)
        return await reviewer.status(room.code, record(room), start=True)

    return router
