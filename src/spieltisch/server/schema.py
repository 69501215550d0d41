"""Write the JSON Schema of every protocol message, and the HTTP API's OpenAPI, to ``docs/schema/``.

    python -m spieltisch.server.schema            # (re)write docs/schema/
    python -m spieltisch.server.schema --check    # exit 1 if a file is out of date

The files are generated from the pydantic models in
:mod:`spieltisch.server.messages` (the game WebSocket) and
:mod:`spieltisch.bots.messages` (the bot protocol), and from the FastAPI app;
``tests/server/test_schema.py`` regenerates them and compares.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from pydantic import TypeAdapter

from spieltisch.bots import messages as bot
from spieltisch.server import messages as ws

DRAFT = "https://json-schema.org/draft/2020-12/schema"
DOCS = Path(__file__).resolve().parents[3] / "docs" / "schema"


def _schema(kind: Any, title: str, description: str, mode: str) -> dict[str, Any]:
    schema = TypeAdapter(kind).json_schema(mode=mode)  # type: ignore[arg-type]
    return {"$schema": DRAFT, "title": title, "description": description, **schema}


def schemas() -> dict[str, dict[str, Any]]:
    """File name -> document."""
    from spieltisch.server.app import create_app

    return {
        "websocket-client.json": _schema(
            ws.ClientMessage,
            "Spieltisch WebSocket: client to server",
            "Every message a client sends on /ws/{room} (docs/protocol.md). The first one is a hello.",
            "validation",
        ),
        "websocket-server.json": _schema(
            ws.ServerMessage,
            "Spieltisch WebSocket: server to client",
            "Every message the server sends on /ws/{room} (docs/protocol.md).",
            "serialization",
        ),
        "bot-table.json": _schema(
            bot.TableMessage,
            "Spieltisch bot protocol: table to bot",
            "Every line the table writes to an external bot's stdin (docs/bot-protocol.md).",
            "serialization",
        ),
        "bot-answers.json": _schema(
            bot.BotMessage,
            "Spieltisch bot protocol: bot to table",
            "Every line an external bot writes to its stdout (docs/bot-protocol.md).",
            "validation",
        ),
        "openapi.json": create_app("sqlite://").openapi(),
    }


def render(document: dict[str, Any]) -> str:
    return json.dumps(document, indent=2, ensure_ascii=False, sort_keys=False) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("folder", nargs="?", type=Path, default=DOCS, help="where to write (docs/schema)")
    parser.add_argument("--check", action="store_true", help="only compare; exit 1 if a file differs")
    args = parser.parse_args(argv)
    folder: Path = args.folder
    stale = []
    for name, document in schemas().items():
        path = folder / name
        text = render(document)
        if args.check:
            if not path.is_file() or path.read_text(encoding="utf-8") != text:
                stale.append(name)
            continue
        folder.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        print(f"wrote {path}")
    if stale:
        print(
            f"out of date in {folder}: {', '.join(stale)} (run: python -m spieltisch.server.schema)",
            file=sys.stderr,
        )
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
