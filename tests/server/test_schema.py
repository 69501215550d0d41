"""The published JSON Schema (docs/schema/) matches the models, and recorded whole games of
both protocols validate against it; the API page needs no third-party host."""

from __future__ import annotations

import json
import random
import re
import shlex
import sys
import textwrap
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from server_harness import Player, ServerThread, open_room, play, seat_headers, ws_url

from spieltisch.bots import make_bot
from spieltisch.bots.base import Bot
from spieltisch.bots.match import play_match
from spieltisch.server import schema
from spieltisch.server.messages import server_message

ROOT = Path(__file__).resolve().parents[2]
SCHEMA = ROOT / "docs" / "schema"


def validator(name: str) -> jsonschema.protocols.Validator:
    document = json.loads((SCHEMA / name).read_text(encoding="utf-8"))
    cls = jsonschema.validators.validator_for(document)
    cls.check_schema(document)
    return cls(document)  # type: ignore[no-any-return]


def test_the_checked_in_schema_is_what_the_models_generate(tmp_path: Path) -> None:
    assert schema.main(["--check", str(SCHEMA)]) == 0, "run: python -m spieltisch.server.schema"
    assert schema.main([str(tmp_path)]) == 0
    for name in schema.schemas():
        assert (tmp_path / name).read_text(encoding="utf-8") == (SCHEMA / name).read_text(encoding="utf-8")
    (tmp_path / "websocket-client.json").write_text("{}", encoding="utf-8")
    assert schema.main(["--check", str(tmp_path)]) == 1  # a stale file is found


def test_a_recorded_game_validates_against_the_websocket_schema(server: ServerThread) -> None:
    to_client, to_server = validator("websocket-server.json"), validator("websocket-client.json")
    seats = [{"kind": "human"}, {"kind": "human"}, {"kind": "bot", "level": "random"}]
    with server.client() as client:
        room, secrets = open_room(client, "schmaus", seats, 12, options={"rounds": 2})
        players = [Player(ws_url(server, room, s, secrets[s]), s, random.Random(s)) for s in sorted(secrets)]
        spectator = Player(ws_url(server, room), None, random.Random(0))
        play([*players, spectator])
        replay = client.get(f"/api/rooms/{room}/replay", headers=seat_headers(0, secrets[0])).json()
    received = [m for p in [*players, spectator] for m in p.messages]
    sent = [json.loads(p.url.hello()) for p in [*players, spectator]] + [m for p in players for m in p.sent]
    assert spectator.last is not None and spectator.last["room"]["status"] == "over"  # a whole game
    assert {m["type"] for m in sent} >= {"hello", "act"}
    for message in received:
        to_client.validate(message)
        server_message.validate_python(message)  # the models forbid fields they do not name
    for message in sent:
        to_server.validate(message)
    # Every error code of the schema is documented in the protocol's table.
    codes = json.loads((SCHEMA / "websocket-server.json").read_text())["$defs"]["Error"]["properties"]["code"]
    documented = set(re.findall(r"^\| `([a-z_]+)` \|", (ROOT / "docs" / "protocol.md").read_text(), re.M))
    assert set(codes["enum"]) <= documented, set(codes["enum"]) - documented
    assert replay["frames"]


RECORDER = """
import json, random, sys
record = open(sys.argv[1], "a")
rng = random.Random(5)
n = 0
def send(m):
    line = json.dumps(m)
    record.write("< " + line + "\\n"); record.flush()
    sys.stdout.write(line + "\\n"); sys.stdout.flush()
for line in sys.stdin:
    record.write("> " + line); record.flush()
    m = json.loads(line)
    if m["type"] == "hello":
        send({"type": "ready", "name": "recorder"})
    elif m["type"] == "decide":
        n += 1
        choice = rng.choice(m["legal"])
        if n % 3 == 0:
            send({"type": "action", "text": choice["text"]})
        elif n % 3 == 1:
            send({"type": "action", "id": choice["id"]})
        else:
            send({"type": "action", "action": choice["action"]})
    elif m["type"] in ("game_over", "quit"):
        break
"""


@pytest.mark.parametrize("game,players", [("scout", 3), ("schmaus", 2)])
def test_a_recorded_bot_game_validates_against_the_bot_schema(
    tmp_path: Path, game: str, players: int
) -> None:
    program = tmp_path / "recorder.py"
    program.write_text(textwrap.dedent(RECORDER), encoding="utf-8")
    record = tmp_path / "record.txt"
    spec = "cmd:" + shlex.join([sys.executable, str(program), str(record)])
    bots: list[Bot] = [make_bot(game, spec, 0, 4, timeout=10)]
    bots += [make_bot(game, "random", s, 4) for s in range(1, players)]
    options: dict[str, Any] = {"rounds": 1} if game == "schmaus" else {}
    try:
        result = play_match(game, bots, seed=4, options=options)
    finally:
        for bot in bots:
            bot.close()
    assert result.faults == [0] * players, result.fault_messages
    lines = record.read_text(encoding="utf-8").splitlines()
    table, answers = validator("bot-table.json"), validator("bot-answers.json")
    kinds = set()
    for line in lines:
        direction, text = line[:2], line[2:]
        message = json.loads(text)
        kinds.add(message["type"])
        (table if direction == "> " else answers).validate(message)
    assert {"hello", "decide", "game_over", "ready", "action"} <= kinds


def test_the_api_page_loads_nothing_from_another_host(server: ServerThread) -> None:
    with server.client() as client:
        page = client.get("/api/docs")
        assert page.status_code == 200
        urls = re.findall(r"""(?:src|href)=["']([^"']+)["']|url: *["']([^"']+)["']""", page.text)
        found = [u for pair in urls for u in pair if u]
        assert found and all(u.startswith("/") for u in found), found
        for url in found:
            assert client.get(url).status_code == 200, url
        api = client.get("/openapi.json").json()
        create = api["paths"]["/api/rooms"]["post"]["responses"]
        assert {"200", "422", "429"} <= set(create)
        assert create["200"]["content"]["application/json"]["schema"]["$ref"].endswith("/CreateOut")
        assert create["429"]["content"]["application/json"]["schema"]["$ref"].endswith("/ErrorOut")
