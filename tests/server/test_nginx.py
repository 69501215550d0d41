"""``deploy/nginx.conf`` in a real nginx (Debian's ``nginx-light``, installed by
``scripts/test``) in front of ``spieltisch serve --workers 2 --port-per-worker``
(docs/deploy.md, "Room routing and handoffs"): the shipped file is valid, every
request naming a room reaches one worker, the game WebSocket passes the proxy,
the room moves to that worker, and a body over the server's limit is refused by
nginx. Only the hosts, the port and where nginx keeps its files are changed."""

from __future__ import annotations

import os
import random
import re
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest
import redis
from conftest import ClusterEnv
from server_harness import (
    Player,
    SeatUrl,
    answers,
    connect_seat,
    lease_owners,
    open_room,
    pid_behind,
    serve_port_per_worker,
    stop_tree,
)

CONF = Path(__file__).resolve().parents[2] / "deploy" / "nginx.conf"
NGINX = shutil.which("nginx", path=f"{os.environ.get('PATH', '')}{os.pathsep}/usr/sbin")

if NGINX is None:
    if os.environ.get("SPIELTISCH_REQUIRE_NGINX"):  # CI: a skip would hide a missing nginx
        raise RuntimeError("nginx is not installed (scripts/test installs Debian's nginx-light)")
    pytest.skip("nginx is not installed", allow_module_level=True)


def render(workers: list[str], port: int, home: Path) -> Path:
    """``deploy/nginx.conf`` with the workers at ``workers`` (base URLs) instead of the
    compose service ``app``, listening on ``port`` of 127.0.0.1, its logs and temporary
    files under ``home``, and an access log of where each request went."""
    text = CONF.read_text()
    for upstream, http in zip(("server app:8000;", "server app:8001;"), workers, strict=True):
        assert upstream in text, f"deploy/nginx.conf no longer names {upstream!r}"
        text = text.replace(upstream, f"server {http.removeprefix('http://')};")
    assert "listen 80;" in text
    text = text.replace("listen 80;", f"listen 127.0.0.1:{port};")
    local = [
        "log_format routed '$request_method $uri $status $upstream_addr';",
        f"access_log {home}/access.log routed;",
        *(
            f"{kind}_temp_path {home}/{kind};"
            for kind in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi")
        ),
    ]
    text = text.replace("http {", "http {\n  " + "\n  ".join(local), 1)
    conf = home / "nginx.conf"
    conf.write_text(text)
    return conf


def nginx(conf: Path, *args: str, main: str = "") -> list[str]:
    """The command line of nginx with ``conf``, its pid and error log beside it, and the
    main-context directives ``main`` (nginx takes one ``-g``)."""
    main += f" pid {conf.parent}/nginx.pid; error_log {conf.parent}/error.log;"
    if os.geteuid() == 0:
        # nginx's workers would run as www-data, which cannot enter pytest's private
        # temporary directory: they stay root here.
        main += " user root;"
    assert NGINX is not None
    return [NGINX, "-p", str(conf.parent), "-c", str(conf), "-g", main.strip(), *args]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextmanager
def running(conf: Path, port: int) -> Iterator[str]:
    """nginx with ``conf`` in the foreground, until the block ends: its base URL."""
    proc = subprocess.Popen(nginx(conf, main="daemon off;"))
    http = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 30
        while not answers(http):
            assert proc.poll() is None, f"nginx stopped: {(conf.parent / 'error.log').read_text()}"
            assert time.monotonic() < deadline, "nginx did not answer"
            time.sleep(0.1)
        yield http
    finally:
        stop_tree(proc)


def routed_to(access_log: Path, room: str) -> str:
    """The upstream (host:port) that nginx sent the last request naming ``room`` to."""
    lines = [line.split() for line in access_log.read_text().splitlines() if f"/{room}" in line]
    assert lines, f"no request for room {room} in nginx's access log"
    return lines[-1][-1]


def test_the_shipped_config_is_valid_nginx(tmp_path: Path) -> None:
    """``nginx -t``: every directive of deploy/nginx.conf exists in this nginx and the
    file parses (only the hosts and port differ from what is shipped)."""
    conf = render(["http://127.0.0.1:8000", "http://127.0.0.1:8001"], 8080, tmp_path)
    out = subprocess.run(nginx(conf, "-t"), capture_output=True, text=True, timeout=30)
    assert out.returncode == 0, out.stderr
    assert "test is successful" in out.stderr


@pytest.mark.slow
def test_nginx_routes_a_room_to_one_worker_and_its_game_plays_through_it(
    cluster_env: ClusterEnv, tmp_path: Path
) -> None:
    """Through the shipped config: a room made through nginx and played over its
    WebSocket ends on the worker the room's hash picks, which every request naming
    the room reached (nginx's access log); a body over ``client_max_body_size``
    (64 KiB, the server's limit) gets 413 from nginx."""
    with serve_port_per_worker(cluster_env, "nginx_") as (workers, prefix):
        port = free_port()
        conf = render(workers, port, tmp_path)
        with running(conf, port) as proxy:
            with httpx.Client(base_url=proxy, timeout=10) as client:
                room, secrets = open_room(
                    client, "scout", [{"kind": "human"}] + [{"kind": "bot", "level": "random"}] * 2, 7
                )
                for _ in range(3):
                    assert client.get(f"/r/{room}").status_code == 200
                assert client.post("/api/rooms", content=b"x" * 70_000).status_code == 413
            seat0 = SeatUrl(f"{proxy.replace('http', 'ws')}/ws/{room}", 0, secrets[0])
            lease = f"{prefix}spieltisch:lease:{room}"
            # The room was made on whichever worker took the POST; with its player connected
            # through nginx, affinity moves it to the worker the room's hash picks. Wait for
            # that before playing: a game of random moves may otherwise end first.
            routed = routed_to(tmp_path / "access.log", room)
            with connect_seat(seat0), redis.Redis.from_url(cluster_env.redis) as r:
                deadline = time.monotonic() + 10
                while not (r.get(lease) or b"").startswith(f"pid{pid_behind(f'http://{routed}')}-".encode()):
                    assert time.monotonic() < deadline, f"room {room} stayed away from {routed}"
                    time.sleep(0.05)
            player = Player(seat0, 0, random.Random(3))
            owners = lease_owners(cluster_env.redis, lease, player.run())
        assert player.last is not None and player.last["room"]["status"] == "over"
        # a move sent while the room moves may be answered "stale" (the client resyncs)
        assert all(e["code"] == "stale" for e in player.errors), player.errors
        log = (tmp_path / "access.log").read_text().splitlines()
        naming = [line.split() for line in log if re.search(rf"/(ws|r|api/rooms)/{room}\b", line)]
        assert {uri.split("/")[1] for _, uri, _, _ in naming} >= {"ws", "r"}, log
        assert {status for _, uri, status, _ in naming if uri.startswith("/ws/")} == {"101"}, log
        upstreams = {upstream for *_, upstream in naming}
        assert upstreams == {routed}, f"the room's requests went to {upstreams}"
        assert owners[-1].startswith(f"pid{pid_behind(f'http://{routed}')}-"), (owners, routed)


def test_a_spoofed_forwarded_for_through_nginx_changes_nothing(tmp_path: Path) -> None:
    """Issue #34: behind the shipped config, with nginx as the one trusted proxy, a client
    that writes its own ``X-Forwarded-For`` is still counted as itself: the third room
    in a minute is refused (``--rooms-per-minute 2``), whatever address it claims."""
    db = f"sqlite:///{tmp_path / 'spoof.db'}"
    cmd = [
        sys.executable, "-c", "from spieltisch.cli import main; main()", "serve", "--port", "0",
        "--database", db, "--rooms-per-minute", "2", "--trusted-proxy", "127.0.0.1",
    ]  # fmt: skip
    server = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        assert server.stdout is not None
        banner = server.stdout.readline()
        found = re.search(r"http://localhost:(\d+)/", banner)
        assert found, banner
        worker = f"http://127.0.0.1:{found.group(1)}"
        port = free_port()
        with (
            running(render([worker, worker], port, tmp_path), port) as proxy,
            httpx.Client(base_url=proxy, timeout=10) as client,
        ):
            codes = [
                client.post(
                    "/api/rooms", json={"game": "scout", "players": 2},
                    headers={"X-Forwarded-For": f"203.0.113.{k}"},
                ).status_code
                for k in range(4)
            ]  # fmt: skip
        assert codes == [200, 200, 429, 429]
    finally:
        stop_tree(server)
