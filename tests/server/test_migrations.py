"""Schema migrations (docs/storage.md): an empty database and the previous
release's database (frozen in previous_release.py, with games in it) reach the
head, the head equals the store's tables, concurrent upgrades migrate once, and
the previous release's games load, replay and play on."""

from __future__ import annotations

import os
import random
import subprocess
import sys
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import previous_release
import pytest
import sqlalchemy as sa
from alembic import command as alembic_command
from click.testing import CliRunner
from server_harness import Player, ServerThread, play, seat_headers, ws_url

from spieltisch.cli import command
from spieltisch.engine import GameRecord
from spieltisch.server import migrate
from spieltisch.server.store import Store, StoreError

ROOT = Path(__file__).resolve().parents[2]
POSTGRES = "postgresql+psycopg://postgres@127.0.0.1:5432/test"


def _postgres_or_skip() -> None:
    try:
        sa.create_engine(POSTGRES).connect().close()
    except Exception as exc:  # pragma: no cover - depends on the machine
        if os.environ.get("SPIELTISCH_REQUIRE_POSTGRES"):
            raise
        pytest.skip(f"PostgreSQL not reachable: {exc}")


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def database(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[tuple[str, str]]:
    """``(url, prefix)`` of an empty database: a SQLite file, or fresh tables on PostgreSQL."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'store.db'}", ""
        return
    _postgres_or_skip()
    prefix = f"m{uuid.uuid4().hex[:10]}_"
    yield POSTGRES, prefix
    engine = sa.create_engine(POSTGRES)
    with engine.begin() as conn:
        mine = [name for name in sa.inspect(conn).get_table_names() if name.startswith(prefix)]
        if mine:
            conn.execute(sa.text("DROP TABLE " + ", ".join(f'"{n}"' for n in mine) + " CASCADE"))
    engine.dispose()


def _differences(store: Store) -> list[object]:
    with store.engine.connect() as conn:
        return migrate.differences(conn, store.metadata, _prefix(store))


def _prefix(store: Store) -> str:
    return store.rooms.name.removesuffix("rooms")


def test_an_empty_database_migrates_to_the_head_which_equals_the_tables(database: tuple[str, str]) -> None:
    url, prefix = database
    assert migrate.current(url, prefix).current is None
    store = Store(url, prefix=prefix)
    try:
        rev = migrate.current(url, prefix)
        assert rev.current == rev.head == migrate.head()
        assert _differences(store) == []
        # The comparison sees a table change that has no migration.
        changed = sa.MetaData()
        for table in store.metadata.tables.values():
            table.to_metadata(changed)
        changed.tables[f"{prefix}rooms"].append_column(sa.Column("not_migrated", sa.Integer, nullable=True))
        sa.Table(f"{prefix}extra", changed, sa.Column("id", sa.Integer, primary_key=True))
        with store.engine.connect() as conn:
            found = migrate.differences(conn, changed, prefix)
        kinds = {d[0] if isinstance(d, tuple) else d[0][0] for d in found}  # type: ignore[index]
        assert kinds == {"add_column", "add_table"}
        # Opening it again changes nothing (and does not fail on the existing tables).
        Store(url, prefix=prefix).close()
        assert migrate.current(url, prefix).current == migrate.head()
    finally:
        store.close()


def test_the_revisions_form_one_chain_from_the_baseline() -> None:
    """Revision ids are fixed in advance (docs/storage.md): every file is named by its
    revision, and each one's down_revision is the one before it."""
    from alembic.script import ScriptDirectory

    script = ScriptDirectory.from_config(migrate.alembic_config())
    chain = [rev.revision for rev in reversed(list(script.walk_revisions()))]
    assert chain[:2] == ["0001_baseline", "0002_rules_version"] and chain[-1] == migrate.head()
    files = sorted(p.stem for p in (migrate.SCRIPT_LOCATION / "versions").glob("*.py"))
    assert files == sorted(chain)


def test_every_revision_downgrades_and_upgrades_again(database: tuple[str, str]) -> None:
    url, prefix = database
    migrate.upgrade(url, prefix)
    engine = sa.create_engine(url)
    try:
        with engine.begin() as conn:
            alembic_command.downgrade(migrate.alembic_config(conn, prefix), "0001_baseline")
            assert "rules_version" not in {c["name"] for c in sa.inspect(conn).get_columns(f"{prefix}rooms")}
            alembic_command.downgrade(migrate.alembic_config(conn, prefix), "base")
            assert not {f"{prefix}rooms", f"{prefix}seats", f"{prefix}actions"} & set(
                sa.inspect(conn).get_table_names()
            )
    finally:
        engine.dispose()
    store = Store(url, prefix=prefix)
    try:
        assert _differences(store) == []
    finally:
        store.close()


def test_the_previous_release_database_upgrades_and_its_games_load_replay_and_play_on(
    database: tuple[str, str],
) -> None:
    url, prefix = database
    previous_release.make(url, prefix)
    before = migrate.current(url, prefix)
    assert before.current is None and before.first_release
    stored = previous_release.rows()
    srv = ServerThread(url, table_prefix=prefix)
    try:
        with srv.client() as client:
            finished = client.get("/api/rooms/SCTEND").json()
            assert finished["status"] == "over" and finished["rules_version"] == "1"
            assert not finished["archived"] and finished["outcome"] is not None
            replay = client.get(
                "/api/rooms/SCTEND/replay", headers=seat_headers(0, previous_release.SECRETS[0])
            )
            assert replay.status_code == 200, replay.text
            body = replay.json()
            logged = [[a["seat"], a["text"]] for a in stored["actions"] if a["room"] == "SCTEND"]
            assert body["record"]["actions"] == logged and body["record"]["rules_version"] == "1"
            assert body["rules_version"] == "1" and len(body["frames"]) == len(logged) + 1
            assert GameRecord.from_json(body["record"]).replay().is_over()

            # The unfinished games play on with the previous release's secrets; their bots move.
            for code in ("SCHMPL", "SCTPLA"):
                info = client.get(f"/api/rooms/{code}").json()
                assert info["status"] == "playing" and not info["archived"]
                goal = info["version"] + 6
                players = [
                    Player(
                        ws_url(srv, code, s, previous_release.SECRETS[s]), s, random.Random(s), stop_at=goal
                    )
                    for s in (0, 1)
                ]
                play(players)
                assert all(p.last is not None and p.last["version"] >= goal for p in players), code
                assert {e["code"] for p in players for e in p.errors} <= {"stale"}
            joined = client.post("/api/rooms/WARTEN/join", json={"name": "Cleo"})
            assert joined.status_code == 200 and joined.json()["seat"] == 1
    finally:
        srv.stop()
    store = Store(url, prefix=prefix)
    try:
        assert migrate.current(url, prefix).current == migrate.head()
        assert _differences(store) == []
        for code in ("SCTEND", "SCHMPL", "SCTPLA", "WARTEN"):
            row = store.load(code)
            assert row is not None and row.rules_version == "1"
            logged = [(a["seat"], a["text"]) for a in stored["actions"] if a["room"] == code]
            assert row.actions[: len(logged)] == logged  # nothing stored was lost or changed
            GameRecord(row.game, row.players, row.seed, row.options, row.actions).replay()
    finally:
        store.close()


_UPGRADE = """
import sys
from spieltisch.server import migrate
before = migrate.upgrade(sys.argv[1], sys.argv[2])
print(before.current or ("first" if before.first_release else "empty"))
"""


def _upgrade_in_processes(url: str, prefix: str, n: int) -> list[str]:
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", _UPGRADE, url, prefix],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            cwd=ROOT,
        )
        for _ in range(n)
    ]
    out = []
    for p in procs:
        stdout, stderr = p.communicate(timeout=120)
        assert p.returncode == 0, stderr
        out.append(stdout.strip())
    return out


@pytest.mark.parametrize("start", ["empty", "first"])
def test_concurrent_upgrades_migrate_once(database: tuple[str, str], start: str) -> None:
    url, prefix = database
    if start == "first":
        previous_release.make(url, prefix)
    seen = _upgrade_in_processes(url, prefix, 2)
    # One process found the database as it was and migrated it; the other waited
    # for the lock and found it at the head.
    assert sorted(seen) == sorted([start, migrate.head()])
    engine = sa.create_engine(url)
    try:
        with engine.connect() as conn:
            versions = conn.execute(sa.text(f'SELECT version_num FROM "{prefix}alembic_version"')).all()
    finally:
        engine.dispose()
    assert versions == [(migrate.head(),)]
    store = Store(url, prefix=prefix)
    try:
        assert _differences(store) == []
        if start == "first":
            assert {store.load(c).rules_version for c in ("SCTEND", "SCHMPL")} == {"1"}  # type: ignore[union-attr]
    finally:
        store.close()


def test_a_database_of_a_newer_release_is_refused_clearly(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'newer.db'}"
    Store(url).close()
    engine = sa.create_engine(url)
    with engine.begin() as conn:
        conn.execute(sa.text("UPDATE alembic_version SET version_num = '0099_future'"))
    engine.dispose()
    with pytest.raises(StoreError, match=r"revision '0099_future', which this release does not know"):
        Store(url)


@dataclass
class _Ran:
    returncode: int
    stdout: str
    stderr: str


def _cli(*args: str) -> _Ran:
    """``spieltisch db ...`` in this process (Click's runner: faster than a subprocess)."""
    result = CliRunner().invoke(command(), ["db", *args], prog_name="spieltisch")
    return _Ran(result.exit_code, result.stdout, result.stderr)


def test_db_commands(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'old.db'}"
    none = _cli("current", "--database", url)
    assert none.returncode == 1 and "no Spieltisch tables" in none.stdout
    fresh = _cli("upgrade", "--database", url, "--sql")
    assert fresh.returncode == 0 and "CREATE TABLE rooms" in fresh.stdout
    assert "ADD COLUMN rules_version" in fresh.stdout
    assert not (tmp_path / "old.db").exists()  # asking changed nothing
    previous_release.make(url)
    old = _cli("current", "--database", url)
    assert old.returncode == 1 and "the first release's tables" in old.stdout
    sql = _cli("upgrade", "--database", url, "--sql").stdout
    assert "CREATE TABLE rooms" not in sql and "VALUES ('0001_baseline')" in sql
    assert "ALTER TABLE rooms ADD COLUMN rules_version VARCHAR(32) DEFAULT '1' NOT NULL" in sql
    assert migrate.current(url).first_release  # printing the SQL changed nothing
    up = _cli("upgrade", "--database", url)
    assert up.returncode == 0, up.stderr
    assert f"upgraded from the first release's tables to {migrate.head()}" in up.stdout
    again = _cli("upgrade", "--database", url)
    assert again.returncode == 0 and "up to date, nothing to do" in again.stdout
    assert "nothing to do" in _cli("upgrade", "--database", url, "--sql").stdout
    now = _cli("current", "--database", url)
    assert (
        now.returncode == 0 and f"schema at {migrate.head()}" in now.stdout and "(up to date)" in now.stdout
    )
    bad = _cli("upgrade", "--database", "nosuchdb://x")
    assert bad.returncode == 2 and bad.stderr.startswith("Error: cannot upgrade nosuchdb://x")
    assert len(bad.stderr.strip().splitlines()) == 1
