"""The session cookie of a signed-in browser (docs/accounts.md, "Sessions").

``spieltisch_session``: a random token (its SHA-256 is stored, :mod:`spieltisch.server.accounts`),
``HttpOnly`` (no script reads it), ``SameSite=Lax`` (not sent with another site's
requests that change something), ``Path=/``, and ``Secure`` when the request came over
https (directly, or ``X-Forwarded-Proto: https`` from a trusted proxy, which uvicorn
turns into the request's scheme).
"""

from __future__ import annotations

from fastapi import Request, Response

from spieltisch.server.accounts import SESSION_DAYS, Account, Accounts

COOKIE = "spieltisch_session"


def token_of(request: Request) -> str | None:
    return request.cookies.get(COOKIE)


async def signed_in(accounts: Accounts, request: Request) -> Account | None:
    """The account the request's session cookie signs in (None: anonymous)."""
    return await accounts.session(token_of(request))


def set_session(response: Response, request: Request, token: str) -> None:
    response.set_cookie(
        COOKIE,
        token,
        max_age=int(SESSION_DAYS * 86400),
        path="/",
        httponly=True,
        samesite="lax",
        secure=request.url.scheme == "https",
    )


def clear_session(response: Response, request: Request) -> None:
    response.delete_cookie(
        COOKIE, path="/", httponly=True, samesite="lax", secure=request.url.scheme == "https"
    )
