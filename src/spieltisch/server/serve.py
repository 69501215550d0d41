"""``spieltisch serve``: run the web table under uvicorn and say where to open it."""

from __future__ import annotations

import os

import typer
import uvicorn
from sqlalchemy.engine import make_url

from spieltisch.server.limits import Limits, uvicorn_options
from spieltisch.server.store import Store, StoreError


def describe_database(database: str) -> str:
    url = make_url(database)
    if url.get_backend_name() == "sqlite" and url.database:
        return f"SQLite file {os.path.abspath(url.database)}"
    return url.render_as_string(hide_password=True)


def run_server(
    host: str, port: int, database: str, bot_delay: float, reload: bool = False, limits: Limits | None = None
) -> None:
    limits = limits or Limits()
    if bot_delay < 0:
        raise typer.BadParameter("--bot-delay must be 0 or more seconds")
    try:
        Store(database).close()  # fail early, with the reason, on a bad URL or unreachable server
    except StoreError as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(2) from None
    shown = "localhost" if host in ("127.0.0.1", "0.0.0.0", "::") else host
    typer.echo(
        f"Spieltisch web table: open http://{shown}:{port}/  (games stored in {describe_database(database)})"
    )
    typer.echo("Press Ctrl+C to stop; unfinished games resume on the next start.")
    if reload:
        os.environ["SPIELTISCH_DATABASE"] = database
        os.environ["SPIELTISCH_BOT_DELAY"] = str(bot_delay)
        os.environ.update(limits.to_env())
        uvicorn.run(
            "spieltisch.server.app:create_app_from_env",
            factory=True,
            host=host,
            port=port,
            reload=True,
            **uvicorn_options(limits),
        )
        return
    from spieltisch.server.app import create_app

    # The limits the server enforces before the app reads anything (frame size, request head).
    app = create_app(database, bot_delay=bot_delay, limits=limits)
    uvicorn.run(app, host=host, port=port, **uvicorn_options(limits))
