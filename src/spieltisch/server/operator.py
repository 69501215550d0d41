"""The operator's page: ``spieltisch lab real`` on the server's own database, in the browser
(docs/lab.md, "How people really play"; docs/deploy.md, "The operator's page").

Enabled by ``SPIELTISCH_OPERATOR_TOKEN`` (a secret of at least 16 characters): ``GET
/operator`` is a small form that asks for it and sends it in the
``Spieltisch-Operator`` header (never in a URL) with ``POST /api/operator/real``
(the page is ``web/static/operator.html``, English or German by the browser's language),
which answers the HTML report of :mod:`spieltisch.lab.real` - people's finished games
beside bot games of the same rules. The study runs in a process of its own at a low
priority (it plays bot games: the event loop and the bots of live games are not kept
waiting), one at a time. A wrong token counts as a miss of the address (guessing,
docs/deploy.md). Without the variable both routes answer ``404``.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import hmac
import multiprocessing
import os
from pathlib import Path
from typing import Any

from fastapi import APIRouter, Header, HTTPException, Request
from fastapi.responses import FileResponse, HTMLResponse
from pydantic import BaseModel, ConfigDict, Field

from spieltisch.server.api import client_address
from spieltisch.server.limits import Addresses

OPERATOR_HEADER = "Spieltisch-Operator"
MIN_TOKEN = 16
NICENESS = 15
"""The report's process runs below the bots (docs/web.md: reviews run at a lower priority too)."""


class RealIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    games: int = Field(default=100, ge=1, le=2000, description="Bot games per set of rules.")
    bots: str = Field(default="medium", max_length=200)
    lang: str = Field(default="en", pattern="^(en|de)$")


def _report(database: str, prefix: str, games: int, bots: str, lang: str) -> str:
    """The report, made in a process of its own (the lab and the store are imported there)."""
    os.nice(NICENESS)
    from spieltisch.lab.real import study
    from spieltisch.lab.real_report import real_html
    from spieltisch.server.played import played_games
    from spieltisch.server.store import Store

    store = Store(database, prefix)
    try:
        result = study(played_games(store), bots, games, seed=1, workers=1)
    finally:
        store.close()
    return real_html(result, lang)


def operator_routes(
    token: str | None, database: str, prefix: str, addresses: Addresses, static: Path
) -> APIRouter:
    """The page (``static/operator.html``) and its report, when ``token`` is set."""
    router = APIRouter(include_in_schema=False)
    busy = asyncio.Lock()

    def enabled() -> str:
        if not token:
            raise HTTPException(404, "the operator's page is off (set SPIELTISCH_OPERATOR_TOKEN)")
        return token

    @router.get("/operator")
    async def page() -> FileResponse:
        enabled()
        return FileResponse(static / "operator.html")

    @router.post("/api/operator/real")
    async def real(
        body: RealIn, request: Request, given: str | None = Header(default=None, alias=OPERATOR_HEADER)
    ) -> HTMLResponse:
        expected = enabled()
        if given is None or not hmac.compare_digest(given.encode(), expected.encode()):
            addresses.miss(client_address(request.client))
            raise HTTPException(403, f"wrong or missing operator token (header {OPERATOR_HEADER})")
        if busy.locked():
            raise HTTPException(409, "a report is being made; try again when it is done")
        async with busy:
            ctx = multiprocessing.get_context("spawn")
            with concurrent.futures.ProcessPoolExecutor(1, mp_context=ctx) as pool:
                try:
                    html: Any = await asyncio.get_running_loop().run_in_executor(
                        pool, _report, database, prefix, body.games, body.bots, body.lang
                    )
                except ValueError as exc:  # a bad line-up (LabError)
                    raise HTTPException(422, str(exc)) from None
        return HTMLResponse(str(html))

    return router


def check_token(token: str | None) -> str | None:
    """``SPIELTISCH_OPERATOR_TOKEN`` as the server takes it; raises ValueError when too short."""
    if token and len(token) < MIN_TOKEN:
        raise ValueError(f"SPIELTISCH_OPERATOR_TOKEN: at least {MIN_TOKEN} characters")
    return token or None
