"""Passkeys (WebAuthn) for accounts, with the ``webauthn`` package (py_webauthn), docs/accounts.md.

A new account may be made with a passkey instead of a password
(``/api/account/passkeys/signup-options`` with the name, then ``/api/account/passkeys/signup``);
a signed-in account adds a passkey (``/api/account/passkeys/register-options``, then
``/api/account/passkeys/register`` with the browser's answer); anyone signs in with
one (``/api/account/passkeys/login-options``, ``/api/account/passkeys/login``):
a discoverable credential, so no name is typed. Each ceremony's challenge is stored
(``challenges``, any worker may get the answer) and used once; it is valid for
:data:`CHALLENGE_SECONDS`. The relying party is the host the page was served from
(``Host`` header; behind a proxy, the proxy passes it on), the origin its scheme and host.
"""

from __future__ import annotations

import asyncio
import json
import secrets
import time
from collections.abc import Awaitable, Callable
from typing import Any

from fastapi import APIRouter, Request, Response
from pydantic import BaseModel, ConfigDict, Field
from sqlalchemy import delete, func, insert, select, update
from sqlalchemy.engine import Connection
from webauthn import (
    generate_authentication_options,
    generate_registration_options,
    options_to_json,
    verify_authentication_response,
    verify_registration_response,
)
from webauthn.helpers import base64url_to_bytes, bytes_to_base64url
from webauthn.helpers.exceptions import WebAuthnException
from webauthn.helpers.structs import (
    AuthenticatorSelectionCriteria,
    PublicKeyCredentialDescriptor,
    ResidentKeyRequirement,
    UserVerificationRequirement,
)

from spieltisch.server.accounts import Account, AccountError, Accounts, Signups
from spieltisch.server.api import client_address

CHALLENGE_SECONDS = 300.0
RP_NAME = "Spieltisch"


class ChallengeOut(BaseModel):
    id: str = Field(description="The challenge's id: send it back with the browser's answer.")
    options: dict[str, Any] = Field(description="For navigator.credentials (WebAuthn JSON, base64url).")


class CredentialIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    id: str = Field(max_length=64)
    credential: dict[str, Any] = Field(description="The browser's PublicKeyCredential as JSON (base64url).")


class NameIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: str = Field(max_length=200)


class PasskeyOut(BaseModel):
    signed_in: bool = True
    name: str
    passkeys: int = 0


def _relying_party(request: Request) -> tuple[str, str]:
    """``(rp_id, origin)`` of the page the request came from."""
    host = request.headers.get("host", request.url.netloc)
    return host.split(":")[0], f"{request.url.scheme}://{host}"


class Passkeys:
    def __init__(self, accounts: Accounts) -> None:
        self.accounts = accounts
        self.t = accounts.t

    def credentials_of(self, account: Account) -> tuple[bool, int]:
        """Whether ``account`` has a password, and how many passkeys."""
        a, p = self.t.accounts, self.t.passkeys
        with self.accounts.store.engine.connect() as conn:
            hashed = conn.execute(select(a.c.password_hash).where(a.c.id == account.id)).scalar()
            keys = conn.execute(select(func.count()).where(p.c.account == account.id)).scalar_one()
        return hashed is not None, int(keys)

    async def _challenge(self, challenge: bytes, account: str | None, name: str | None = None) -> str:
        ident = secrets.token_urlsafe(24)
        c = self.t.challenges
        now = time.time()
        values = {"id": ident, "challenge": challenge, "account": account, "name": name, "created": now}

        def write(conn: Connection) -> None:
            conn.execute(delete(c).where(c.c.created < now - CHALLENGE_SECONDS))
            conn.execute(insert(c).values(**values))

        await self.accounts._write(write)
        return ident

    async def _take_challenge(self, ident: str) -> tuple[bytes, str | None, str | None]:
        """The challenge ``ident``, its account and its name (a sign-up), deleted (used once);
        400 if none or stale."""
        c = self.t.challenges
        found: list[Any] = []

        def write(conn: Connection) -> None:
            row = conn.execute(select(c).where(c.c.id == ident)).first()
            if row is not None:
                found.append(row)
                conn.execute(delete(c).where(c.c.id == ident))

        await self.accounts._write(write)
        if not found or found[0].created < time.time() - CHALLENGE_SECONDS:
            raise AccountError(
                400, "id: no such passkey challenge (or it is older than 5 minutes): start again"
            )
        return bytes(found[0].challenge), found[0].account, found[0].name

    def _creation_options(self, request: Request, name: str, user_id: bytes, exclude: list[str]) -> Any:
        rp_id, _origin = _relying_party(request)
        return generate_registration_options(
            rp_id=rp_id,
            rp_name=RP_NAME,
            user_name=name,
            user_id=user_id,
            authenticator_selection=AuthenticatorSelectionCriteria(
                resident_key=ResidentKeyRequirement.REQUIRED,
                user_verification=UserVerificationRequirement.PREFERRED,
            ),
            exclude_credentials=[PublicKeyCredentialDescriptor(id=base64url_to_bytes(c)) for c in exclude],
        )

    @staticmethod
    def _registration(request: Request, credential: dict[str, Any], challenge: bytes) -> dict[str, Any]:
        """The new passkey's row (without its account) from the browser's answer; 400 if refused."""
        rp_id, origin = _relying_party(request)
        try:
            verified = verify_registration_response(
                credential=credential,
                expected_challenge=challenge,
                expected_rp_id=rp_id,
                expected_origin=origin,
            )
        except (WebAuthnException, ValueError, KeyError, TypeError) as exc:
            raise AccountError(400, f"credential: the passkey was not accepted ({exc})") from None
        return {
            "credential": bytes_to_base64url(verified.credential_id),
            "public_key": verified.credential_public_key,
            "sign_count": verified.sign_count,
            "created": time.time(),
        }

    def router(
        self,
        me: Callable[[Request], Awaitable[Account]],
        start_session: Callable[[Request, Response, Account], Awaitable[None]],
        signups: Signups,
    ) -> APIRouter:
        """The passkey routes; ``signups`` counts the accounts made per address (a sign-up
        with a passkey counts as one with a password does, ``accounts_per_hour``)."""
        router = APIRouter()
        p = self.t.passkeys

        @router.post("/api/account/passkeys/register-options", response_model=ChallengeOut)
        async def register_options(request: Request) -> dict[str, Any]:
            """Options for ``navigator.credentials.create()``: a new passkey for the signed-in account."""
            account = await me(request)

            def existing() -> list[str]:
                with self.accounts.store.engine.connect() as conn:
                    return list(
                        conn.execute(select(p.c.credential).where(p.c.account == account.id)).scalars()
                    )

            exclude = await asyncio.to_thread(existing)
            options = self._creation_options(request, account.name, account.id.encode(), exclude)
            ident = await self._challenge(options.challenge, account.id)
            return {"id": ident, "options": json.loads(options_to_json(options))}

        @router.post("/api/account/passkeys/register", response_model=PasskeyOut, responses={400: {}})
        async def register(body: CredentialIn, request: Request) -> dict[str, Any]:
            """Store the new passkey the browser made for the options ``id``."""
            account = await me(request)
            challenge, owner, _name = await self._take_challenge(body.id)
            if owner != account.id:
                raise AccountError(400, "id: this challenge is not for this account")
            values = {**self._registration(request, body.credential, challenge), "account": account.id}

            def write(conn: Connection) -> None:
                conn.execute(insert(p).values(**values))

            await self.accounts._write(write)
            _password, keys = await asyncio.to_thread(self.credentials_of, account)
            return {"name": account.name, "passkeys": keys}

        @router.post(
            "/api/account/passkeys/signup-options", response_model=ChallengeOut, responses={409: {}, 429: {}}
        )
        async def signup_options(body: NameIn, request: Request) -> dict[str, Any]:
            """Options for ``navigator.credentials.create()``: claim ``name`` with a passkey (no password)."""
            await signups.check(client_address(request.client))
            shown = self.accounts.checked_name(body.name)
            if await asyncio.to_thread(self.accounts.by_name, shown) is not None:
                raise AccountError(409, f"name: {shown!r} (or a name that looks the same) is taken")
            options = self._creation_options(request, shown, secrets.token_bytes(16), [])
            ident = await self._challenge(options.challenge, None, shown)
            return {"id": ident, "options": json.loads(options_to_json(options))}

        @router.post(
            "/api/account/passkeys/signup",
            response_model=PasskeyOut,
            status_code=201,
            responses={400: {}, 409: {}, 429: {}},
        )
        async def signup(body: CredentialIn, request: Request, response: Response) -> dict[str, Any]:
            """Make the account the options ``id`` named, with the passkey the browser made: signed in."""
            address = client_address(request.client)
            await signups.check(address)
            challenge, owner, name = await self._take_challenge(body.id)
            if owner is not None or name is None:
                raise AccountError(400, "id: this challenge is not for a sign-up")
            values = self._registration(request, body.credential, challenge)

            def add_passkey(conn: Connection, account: Account) -> None:
                conn.execute(insert(p).values(account=account.id, **values))

            account = await signups.create(
                address, lambda: self.accounts.create(name, None, also=add_passkey)
            )
            await start_session(request, response, account)
            return {"name": account.name, "passkeys": 1}

        @router.post("/api/account/passkeys/login-options", response_model=ChallengeOut)
        async def login_options(request: Request) -> dict[str, Any]:
            """Options for ``navigator.credentials.get()`` (any passkey of this site)."""
            rp_id, _origin = _relying_party(request)
            options = generate_authentication_options(
                rp_id=rp_id, user_verification=UserVerificationRequirement.PREFERRED
            )
            ident = await self._challenge(options.challenge, None)
            return {"id": ident, "options": json.loads(options_to_json(options))}

        @router.post("/api/account/passkeys/login", response_model=PasskeyOut, responses={400: {}, 401: {}})
        async def login(body: CredentialIn, request: Request, response: Response) -> dict[str, Any]:
            """Sign in with the passkey the browser chose for the options ``id``."""
            challenge, _owner, _name = await self._take_challenge(body.id)
            raw = str(body.credential.get("rawId") or body.credential.get("id") or "")

            def read() -> Any:
                with self.accounts.store.engine.connect() as conn:
                    return conn.execute(select(p).where(p.c.credential == raw)).first()

            row = await asyncio.to_thread(read)
            if row is None:
                raise AccountError(401, "this passkey belongs to no account here")
            rp_id, origin = _relying_party(request)
            try:
                verified = verify_authentication_response(
                    credential=body.credential, expected_challenge=challenge, expected_rp_id=rp_id,
                    expected_origin=origin, credential_public_key=bytes(row.public_key),
                    credential_current_sign_count=row.sign_count,
                )  # fmt: skip
            except (WebAuthnException, ValueError, KeyError, TypeError) as exc:
                raise AccountError(401, f"the passkey was not accepted ({exc})") from None

            def write(conn: Connection) -> None:
                conn.execute(
                    update(p).where(p.c.credential == raw).values(sign_count=verified.new_sign_count)
                )

            await self.accounts._write(write)
            account = await asyncio.to_thread(self.accounts.by_id, row.account)
            if account is None:
                raise AccountError(401, "this passkey belongs to no account here")
            await start_session(request, response, account)
            _password, keys = await asyncio.to_thread(self.credentials_of, account)
            return {"name": account.name, "passkeys": keys}

        return router
