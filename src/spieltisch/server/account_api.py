"""The HTTP API and pages of accounts, ratings and profiles (docs/accounts.md).

``/api/account/...``: sign up, sign in (password or passkey), sign out (here or
everywhere), delete the account, the block list; ``/api/leaderboard/{game}`` and
``/api/players/{name}``: public ratings and profiles; ``/account``,
``/leaderboard/{game}`` and ``/players/{name}``: their pages (``account.html``).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from fastapi import APIRouter, Request, Response
from fastapi.responses import FileResponse, HTMLResponse
from pydantic import BaseModel, ConfigDict, Field

from spieltisch.engine import RulesError, get_game
from spieltisch.server.accounts import DELETED_NAME, Account, AccountError, Accounts, Signups
from spieltisch.server.api import client_address
from spieltisch.server.directory import RoomDirectory
from spieltisch.server.games import games_info
from spieltisch.server.limits import Addresses, CountUnavailable
from spieltisch.server.messages import ErrorOut
from spieltisch.server.passkeys import Passkeys
from spieltisch.server.ratings import (
    BOT_RATINGS,
    PROVISIONAL_GAMES,
    PROVISIONAL_SIGMA,
    leaderboard,
    ratings_of,
)
from spieltisch.server.room import Room
from spieltisch.server.sessions import clear_session, set_session, signed_in, token_of


class SignUpIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: str = Field(max_length=200)
    password: str = Field(max_length=1000)


class LoginIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: str = Field(max_length=200)
    password: str = Field(max_length=1000)


class DeleteIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    confirm: str = Field(description="The account's name, typed again: deleting cannot be undone.")


class NameIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: str = Field(max_length=200)


class AccountOut(BaseModel):
    signed_in: bool
    name: str | None = None
    password: bool = False
    passkeys: int = 0


class BlocksOut(BaseModel):
    blocked: list[str]


class RatingOut(BaseModel):
    name: str
    bot: bool
    place: int | None = Field(description="Place among the accounts (bots have none).")
    rating: float = Field(description="The ordinal mu - 3 sigma: what the board is ordered by.")
    mu: float
    sigma: float
    games: int
    provisional: bool


class LeaderboardOut(BaseModel):
    game: str
    provisional_games: int
    provisional_sigma: float
    entries: list[RatingOut]


class HistoryPoint(BaseModel):
    room: str
    at: float
    rating: float
    mu: float
    sigma: float


class GameRatingOut(BaseModel):
    game: str
    rating: float
    mu: float
    sigma: float
    games: int
    provisional: bool
    history: list[HistoryPoint]


class RecentGame(BaseModel):
    room: str
    game: str
    status: str
    ended: str | None
    created: float
    rated: bool
    seat: int


class ProfileOut(BaseModel):
    name: str
    ratings: list[GameRatingOut]
    games: list[RecentGame]


def _errors(*codes: int) -> dict[int | str, dict[str, Any]]:
    return {c: {"model": ErrorOut} for c in sorted({*codes, 422})}


def forget_account(rooms: Iterable[Room], account: str) -> int:
    """The seats of ``account`` in ``rooms`` (in memory) as its deletion stored them: named
    :data:`DELETED_NAME`, no longer linked; every room that changed sends its players fresh
    views. Returns how many rooms changed."""
    changed = 0
    for room in list(rooms):
        seats = [s for s in room.row.seats if s.account == account]
        for s in seats:
            s.account, s.name = None, DELETED_NAME
        if seats:
            room.broadcast()
            changed += 1
    return changed


def accounts_api(
    accounts: Accounts,
    directory: RoomDirectory,
    addresses: Addresses,
    signups: Signups,
    static: Path,
    account_gone: Callable[[str], None] | None = None,
) -> APIRouter:
    """The account routes and pages; ``signups`` counts the accounts per address, and a wrong
    password is a miss of its address (``misses_per_hour``, as a wrong seat secret is).
    ``account_gone(id)`` after an account was deleted: its seats in the rooms in memory
    change (default: this process's rooms, :func:`forget_account`; with several workers
    the app tells every worker)."""
    if account_gone is None:

        def account_gone(account: str) -> None:
            forget_account(directory.rooms.values(), account)

    router = APIRouter()
    passkeys = Passkeys(accounts)

    async def me(request: Request) -> Account:
        account = await signed_in(accounts, request)
        if account is None:
            raise AccountError(401, "not signed in")
        return account

    async def start_session(request: Request, response: Response, account: Account) -> None:
        set_session(response, request, await accounts.new_session(account))

    @router.get("/api/account", response_model=AccountOut)
    async def account_info(request: Request) -> dict[str, Any]:
        """Who the session cookie signs in (``signed_in`` false: nobody)."""
        account = await signed_in(accounts, request)
        if account is None:
            return {"signed_in": False}
        password, keys = await asyncio.to_thread(passkeys.credentials_of, account)
        return {"signed_in": True, "name": account.name, "password": password, "passkeys": keys}

    @router.post(
        "/api/account/signup", response_model=AccountOut, status_code=201, responses=_errors(409, 429)
    )
    async def signup(body: SignUpIn, request: Request, response: Response) -> dict[str, Any]:
        """Claim a name with a password (Argon2id): the account is signed in at once (the
        session cookie). ``429`` after ``accounts_per_hour`` accounts from one address."""
        account = await signups.create(
            client_address(request.client), lambda: accounts.create(body.name, body.password)
        )
        await start_session(request, response, account)
        return {"signed_in": True, "name": account.name, "password": True}

    @router.post("/api/account/login", response_model=AccountOut, responses=_errors(401, 429))
    async def login(body: LoginIn, request: Request, response: Response) -> dict[str, Any]:
        address = client_address(request.client)
        try:  # the misses of every worker together (docs/deploy.md)
            wait = await addresses.locked_out_async(address)
        except CountUnavailable as exc:  # a password guess is not let through uncounted
            raise AccountError(503, str(exc)) from None
        if wait is not None:
            raise AccountError(429, addresses.locked_text(wait), {"Retry-After": str(max(1, round(wait)))})
        try:
            account = await accounts.check_login(body.name, body.password)
        except AccountError:
            await addresses.miss_async(address)
            raise
        await start_session(request, response, account)
        return {"signed_in": True, "name": account.name, "password": True}

    @router.post("/api/account/logout", status_code=204)
    async def logout(request: Request, response: Response) -> None:
        """End this browser's session."""
        token = token_of(request)
        if token:
            await accounts.end_session(token)
        clear_session(response, request)

    @router.post("/api/account/logout-everywhere", status_code=204, responses=_errors(401))
    async def logout_everywhere(request: Request, response: Response) -> None:
        """End every session of the account, on every device."""
        await accounts.end_all_sessions(await me(request))
        clear_session(response, request)

    @router.delete("/api/account", status_code=204, responses=_errors(401))
    async def delete_account(body: DeleteIn, request: Request, response: Response) -> None:
        """Delete the account (``confirm``: its name): its sessions, passkeys, blocks and
        ratings go; its past games stay, its seats there anonymised."""
        account = await me(request)
        if body.confirm.strip() != account.name:
            raise AccountError(422, "confirm: type the account's name to delete it")
        await accounts.delete(account)
        # The copies in memory, as stored: here, and on every other worker (the cluster).
        account_gone(account.id)
        clear_session(response, request)

    @router.get("/api/account/blocks", response_model=BlocksOut, responses=_errors(401))
    async def blocks(request: Request) -> dict[str, Any]:
        return {"blocked": await asyncio.to_thread(accounts.blocks, await me(request))}

    @router.post("/api/account/blocks", response_model=BlocksOut, responses=_errors(401, 404))
    async def block(body: NameIn, request: Request) -> dict[str, Any]:
        """Block a player: quick play never seats you together, and they cannot join a room you opened."""
        account = await me(request)
        await accounts.block(account, body.name)
        return {"blocked": await asyncio.to_thread(accounts.blocks, account)}

    @router.delete("/api/account/blocks/{name}", response_model=BlocksOut, responses=_errors(401, 404))
    async def unblock(name: str, request: Request) -> dict[str, Any]:
        account = await me(request)
        await accounts.unblock(account, name)
        return {"blocked": await asyncio.to_thread(accounts.blocks, account)}

    @router.get("/api/leaderboard/{game}", response_model=LeaderboardOut, responses=_errors(404))
    async def board(game: str, limit: int = 100) -> dict[str, Any]:
        """The accounts rated at ``game``, best first, with the built-in bots at their fixed ratings."""
        name = _game(game)
        entries = await asyncio.to_thread(leaderboard, accounts.store, name, max(1, min(limit, 500)))
        return {"game": name, "provisional_games": PROVISIONAL_GAMES, "provisional_sigma": PROVISIONAL_SIGMA,
                "entries": entries}  # fmt: skip

    @router.get("/api/players/{name}", response_model=ProfileOut, responses=_errors(404))
    async def profile(name: str) -> dict[str, Any]:
        """A player's public profile: ratings per game with their history, and recent games."""
        account = await asyncio.to_thread(accounts.by_name, name)
        if account is None:
            raise AccountError(404, f"no player named {name!r}")
        ratings = await asyncio.to_thread(ratings_of, accounts.store, account.id)
        games = await asyncio.to_thread(accounts.recent_games, account.id)
        return {"name": account.name, "ratings": ratings, "games": games}

    router.include_router(passkeys.router(me, start_session, signups))

    def page() -> Response:
        path = static / "account.html"
        if not path.is_file():
            return HTMLResponse("<h1>Spieltisch</h1><p>The web client is not installed.</p>", status_code=503)
        return FileResponse(path)

    for path in ("/account", "/leaderboard", "/leaderboard/{game}", "/players/{name}"):
        router.add_api_route(path, page, methods=["GET"], include_in_schema=False)
    return router


def _game(game: str) -> str:
    try:
        name = get_game(game).name
    except RulesError:
        known = ", ".join(g["name"] for g in games_info()["games"])
        raise AccountError(404, f"no game {game!r} (games: {known})") from None
    if name not in BOT_RATINGS:
        raise AccountError(404, f"no ratings for {game!r}")
    return name
