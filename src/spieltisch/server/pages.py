"""The pages: the web client (``/``, ``/r/{code}``, ``/lobby``, ``/learn/{game}``), the rules,
the API docs and static files."""

from __future__ import annotations

from pathlib import Path

from fastapi import APIRouter, FastAPI
from fastapi.openapi.docs import get_swagger_ui_html
from fastapi.responses import FileResponse, HTMLResponse, JSONResponse, Response
from fastapi.staticfiles import StaticFiles

STATIC_DIR = Path(__file__).resolve().parent.parent / "web" / "static"
RULES_DIR = Path(__file__).resolve().parent.parent / "web" / "rules"
"""A link to docs/rules (one source for the docs and the table)."""
RULES_PAGES = frozenset(
    f"{game}.{lang}.md" for game in ("scout", "waschbaer-schmaus") for lang in ("en", "de")
)


def pages(static: Path) -> APIRouter:
    """The client's pages from ``static``, and the players' rules."""
    router = APIRouter(include_in_schema=False)

    def index() -> Response:
        page = static / "index.html"
        if not page.is_file():
            return HTMLResponse(
                "<h1>Spieltisch</h1><p>The web client is not installed (no web/static/index.html).</p>",
                status_code=503,
            )
        return FileResponse(page)

    @router.get("/")
    async def root() -> Response:
        return index()

    @router.get("/r/{code}")
    async def invite(code: str) -> Response:
        return index()

    @router.get("/lobby")
    async def lobby() -> Response:
        return index()

    @router.get("/learn/{game}")
    async def learn(game: str) -> Response:
        return index()

    @router.get("/rules/{page}")
    async def rules_page(page: str) -> Response:
        """The players' rules pages (docs/rules/GAME.LANG.md) for the table's rules dialog."""
        if page not in RULES_PAGES:
            return JSONResponse({"detail": f"no rules page {page!r}"}, status_code=404)
        return FileResponse(RULES_DIR / page, media_type="text/markdown; charset=utf-8")

    return router


def mount_files(app: FastAPI, static: Path) -> None:
    """The API docs page (Swagger UI, if installed) and the static files."""
    swagger = _swagger_files()
    if swagger is not None:

        @app.get("/api/docs", include_in_schema=False)
        async def api_docs() -> HTMLResponse:
            """Swagger UI from the swagger-ui-bundle package: no third-party CDN."""
            return get_swagger_ui_html(
                openapi_url="/openapi.json",
                title="Spieltisch API",
                swagger_js_url="/api/docs/files/swagger-ui-bundle.js",
                swagger_css_url="/api/docs/files/swagger-ui.css",
                swagger_favicon_url="/api/docs/files/favicon-32x32.png",
            )

        app.mount("/api/docs/files", StaticFiles(directory=swagger), name="swagger-ui")

    app.mount("/static", StaticFiles(directory=static, check_dir=False), name="static")


def _swagger_files() -> Path | None:
    """Swagger UI's files, shipped by the ``swagger-ui-bundle`` package (the ``web`` extra)."""
    try:
        from swagger_ui_bundle import swagger_ui_path  # type: ignore[import-untyped]
    except ImportError:  # pragma: no cover - the docs page is optional
        return None
    return Path(swagger_ui_path)
