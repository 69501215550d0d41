"""The HTTP API of the rooms (``/api/...``): open, join, rematch, claim, replay, review.

Each change of a room is a typed command (:mod:`spieltisch.server.commands`) that the
room directory runs on the room's owner; see docs/protocol.md.
"""

from __future__ import annotations

import asyncio
from typing import Any

from fastapi import APIRouter, Depends, Header, HTTPException, Request

from spieltisch.server.accounts import Accounts
from spieltisch.server.codes import new_secret
from spieltisch.server.commands import Claim, Join, Rematch
from spieltisch.server.directory import RoomDirectory, SeatSpec
from spieltisch.server.games import games_info
from spieltisch.server.limits import Addresses, CountUnavailable
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
        429: "a per-address limit was hit (the detail names it; Retry-After says when to try again)",
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


def rated_room(seats: list[SeatIn] | None, creator_signed_in: bool) -> None:
    """Refuse a rated room (403, 422) that its creator may not open: rated games are played
    between signed-in accounts and the built-in bots (docs/accounts.md)."""
    if not creator_signed_in:
        raise HTTPException(403, "rated: only a signed-in player can open a rated room (docs/accounts.md)")
    if any(s.kind == "remote" for s in seats or ()):
        raise HTTPException(422, "rated: a rated room takes accounts and built-in bots, no remote seats")


def rooms_api(
    directory: RoomDirectory, reviewer: Reviewer, addresses: Addresses, accounts: Accounts
) -> APIRouter:
    """The routes of ``/api``: games, rooms and their reviews. An address that has used up
    ``misses_per_hour`` (rooms that do not exist, wrong secrets: counted by the app's
    :class:`RoomError` handler) is refused every room until its oldest miss is an hour old.
    A signed-in person (``accounts``, docs/accounts.md) sits under the account's name."""

    def not_guessing(request: Request) -> None:
        if "code" in request.path_params:
            wait = addresses.locked_out(client_address(request.client))
            if wait is not None:
                retry = {"Retry-After": str(max(1, round(wait)))}
                raise HTTPException(429, addresses.locked_text(wait), headers=retry)

    router = APIRouter(dependencies=[Depends(not_guessing)])
    limits = addresses.limits

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
            clock, allow_hints=body.hints,
        )  # fmt: skip
        if account is not None:  # the creator's seat is the account's
            creator = plan.template.seats[plan.seat]
            creator.name, creator.account = account.name, account.id
        plan.template.rated = body.rated
        address = client_address(request.client)
        try:
            wait = await addresses.take_room_async(address)
        except CountUnavailable as exc:  # not let through uncounted (docs/deploy.md)
            raise HTTPException(503, str(exc)) from None
        if wait is not None:
            raise HTTPException(
                429,
                f"rooms_per_minute: at most {limits.rooms_per_minute} new rooms per minute from one "
                f"address; try again in {wait:.0f} s",
                headers={"Retry-After": str(max(1, round(wait)))},
            )
        room = await directory.insert(plan.template)
        return {
            "room": room.code,
            "seat": plan.seat,
            "secret": plan.secret,
            "invite": f"/r/{room.code}",
            "remote": [{"seat": s, "token": t} for s, t in tokens.items()],
        }

    @router.get(
        "/api/rooms/{code}",
        response_model=RoomInfo,
        response_model_exclude_unset=True,
        responses=_errors(404),
    )
    async def room_info(code: str) -> dict[str, Any]:
        return (await directory.room(code)).info()

    @router.post("/api/rooms/{code}/join", response_model=JoinOut, responses=_errors(403, 404, 409, 413, 503))
    async def join(code: str, body: JoinIn, request: Request) -> dict[str, Any]:
        account = await signed_in(accounts, request)
        room = await directory.room(code)
        if account is None and room.row.rated:  # (not a miss: the room exists)
            raise HTTPException(403, f"room {room.code} is rated: sign in to take a seat (docs/accounts.md)")
        if account is not None:
            opener = next(s.account for s in room.row.seats if s.kind == "human")  # (the creator's seat)
            if await asyncio.to_thread(accounts.blocked, opener, account.id):
                raise HTTPException(403, f"room {room.code} is not open to you")
        name, who = (account.name, account.id) if account is not None else (body.name, None)
        seat, secret = await directory.run(Join(code, name, body.seat, who))
        return {"seat": seat, "secret": secret}

    @router.post(
        "/api/rooms/{code}/rematch", response_model=RematchOut, responses=_errors(403, 404, 409, 503)
    )
    async def rematch(code: str, body: RematchIn) -> dict[str, Any]:
        return {"room": await directory.run(Rematch(code, body.seat, body.secret))}

    @router.post("/api/rooms/{code}/claim", response_model=ClaimOut, responses=_errors(403, 404))
    async def claim(code: str, body: ClaimIn) -> dict[str, Any]:
        """A seat's secret in the rematch room ``code``, from its secret in the old room."""
        secret = await directory.run(Claim(code, body.from_, body.seat, body.secret))
        return {"room": code.upper(), "seat": body.seat, "secret": secret}

    @router.get("/api/rooms/{code}/claim", include_in_schema=False)
    async def claim_by_url(code: str, request: Request) -> None:
        no_secret_in_url(request)
        raise HTTPException(405, "claim a rematch seat with POST and a JSON body {from, seat, secret}")

    @router.get("/api/rooms/{code}/replay", response_model=ReplayOut, responses=_errors(400, 403, 404, 409))
    async def replay(
        code: str,
        request: Request,
        seat: int | None = Header(default=None, alias=SEAT_HEADER),
        secret: str | None = Header(default=None, alias=SECRET_HEADER),
    ) -> dict[str, Any]:
        """The finished game step by step, as seen by the seat in the headers (none: a spectator)."""
        no_secret_in_url(request)
        return await replay_of(await directory.room(code), seat, secret)

    @router.get("/api/rooms/{code}/review", response_model=ReviewOut, responses=_errors(404, 409))
    async def review_status(code: str) -> dict[str, Any]:
        """The review of a finished game (docs/review.md): ``done`` with every seat's
        review when it is stored, ``running`` with the progress, or ``none``."""
        room = await directory.room(code)
        return await reviewer.status(room.code, record(room), start=False)

    @router.post("/api/rooms/{code}/review", response_model=ReviewOut, responses=_errors(404, 409, 503))
    async def review_start(code: str) -> dict[str, Any]:
        """Start the review of a finished game (or answer the stored one at once). The
        game is over and every card public: any seat or spectator may ask."""
        room = await directory.room(code)
        return await reviewer.status(room.code, record(room), start=True)

    return router
