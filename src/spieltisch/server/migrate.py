"""Schema migrations of the store, run in code (Alembic, ``server/migrations/``).

:func:`upgrade` brings a database to the newest schema: the server calls it
when it opens its store (:class:`~spieltisch.server.store.Store`), operators
through ``spieltisch db upgrade``. It needs no ``alembic.ini``: the
:class:`~alembic.config.Config` is built here, with the connection and the
store's table-name prefix in ``config.attributes`` (see ``migrations/env.py``).

Several server processes may open one database at once: the upgrade runs in one
transaction that first takes a lock - ``pg_advisory_xact_lock`` on PostgreSQL,
``BEGIN IMMEDIATE`` (the database's write lock) on SQLite - so one process
migrates while the others wait and then find the schema at its head. Both
databases change their schema transactionally, so a failed upgrade leaves the
schema as it was.

A database made by the first release (its tables, no version table) is stamped
at ``0001_baseline`` first and then upgraded like any other.
"""

from __future__ import annotations

import io
import logging
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from alembic.util.exc import CommandError
from sqlalchemy import Engine, MetaData, create_engine, event, inspect, text
from sqlalchemy.engine import Connection, make_url

from spieltisch.server.migrations import SCRIPT_LOCATION

__all__ = [
    "BASELINE",
    "SCRIPT_LOCATION",
    "MigrationError",
    "Revision",
    "alembic_config",
    "current",
    "differences",
    "head",
    "upgrade",
    "upgrade_sql",
    "version_table",
]

log = logging.getLogger("spieltisch.server.migrate")

BASELINE = "0001_baseline"
"""The first release's tables (made by ``metadata.create_all`` before migrations)."""
LOCK_NAME = "spieltisch-migrate"


class MigrationError(RuntimeError):
    """The schema cannot be brought to this release's head."""


@dataclass(frozen=True)
class Revision:
    """Where a database's schema stands."""

    current: str | None
    """Its revision (``None``: no version table)."""
    head: str
    """This release's newest revision."""
    first_release: bool = False
    """It has the first release's tables but no version table yet (the next upgrade stamps it)."""

    @property
    def up_to_date(self) -> bool:
        return self.current == self.head


def version_table(prefix: str) -> str:
    return f"{prefix}alembic_version"


def alembic_config(
    connection: Connection | None = None, prefix: str = "", metadata: MetaData | None = None
) -> Config:
    """The Alembic configuration of the store's migrations, built in code."""
    config = Config()
    config.set_main_option("script_location", str(SCRIPT_LOCATION))
    config.attributes["prefix"] = prefix
    if connection is not None:
        config.attributes["connection"] = connection
    if metadata is not None:
        config.attributes["target_metadata"] = metadata
    return config


def head() -> str:
    """This release's newest schema revision."""
    heads = ScriptDirectory.from_config(alembic_config()).get_heads()
    if len(heads) != 1:  # pragma: no cover - a merge of branches forgot its merge revision
        raise MigrationError(f"the migrations have {len(heads)} heads ({', '.join(heads)}): merge them")
    return heads[0]


def upgrade(url: str, prefix: str = "", engine: Engine | None = None, revision: str = "head") -> Revision:
    """Bring the store at ``url`` (tables named ``{prefix}...``) to ``revision``;
    returns where it stood before. ``engine``: the store's own engine, used for
    databases a second engine cannot reach (in-memory SQLite) and for PostgreSQL."""
    with _locked(url, engine) as conn:
        before = _revision(conn, prefix)
        config = alembic_config(conn, prefix)
        try:
            if before.first_release:
                log.info("stamping the first release's tables (prefix %r) at %s", prefix, BASELINE)
                command.stamp(config, BASELINE)
            command.upgrade(config, revision)
        except CommandError as exc:
            raise MigrationError(_explain(before, exc)) from exc
    if before.current != before.head:
        log.info("database schema (prefix %r): %s -> %s", prefix, before.current or "empty", revision)
    return before


def upgrade_sql(url: str, prefix: str = "") -> str:
    """The SQL that :func:`upgrade` would run on the store at ``url``, from its current
    revision (read, nothing changed) to the head: for an operator to read or run by hand
    (Alembic's offline mode). Empty when the schema is up to date."""
    rev = current(url, prefix)
    if rev.up_to_date:
        return ""
    start = rev.current or (BASELINE if rev.first_release else None)
    buffer = io.StringIO()
    config = Config(output_buffer=buffer)
    config.set_main_option("script_location", str(SCRIPT_LOCATION))
    config.set_main_option("sqlalchemy.url", url.replace("%", "%%"))
    config.attributes["prefix"] = prefix
    try:
        if rev.first_release:  # the first release's tables exist: only stamp the baseline
            command.stamp(config, BASELINE, sql=True)
        command.upgrade(config, f"{start}:head" if start else "head", sql=True)
    except CommandError as exc:
        raise MigrationError(_explain(rev, exc)) from exc
    return buffer.getvalue()


def current(url: str, prefix: str = "", engine: Engine | None = None) -> Revision:
    """Where the schema of the store at ``url`` stands (changes nothing)."""
    own = engine is None
    if own and url.startswith("sqlite"):
        path = make_url(url).database
        if path and path != ":memory:" and not Path(path).exists():  # connecting would make the file
            return Revision(current=None, head=head())
    eng = engine if engine is not None else create_engine(url)
    try:
        with eng.connect() as conn:
            return _revision(conn, prefix)
    finally:
        if own:
            eng.dispose()


def differences(conn: Connection, metadata: MetaData, prefix: str = "") -> list[Any]:
    """What the database's schema lacks or has beyond ``metadata`` (the store's
    tables), as Alembic's autogenerate sees it: empty when the migrations' head
    and the code agree."""
    names = set(metadata.tables)

    def include_name(name: str | None, type_: str, _parent: Any) -> bool:
        if type_ != "table" or name is None:
            return True
        return name in names or (bool(prefix) and name.startswith(prefix))

    context = MigrationContext.configure(
        conn,
        opts={
            "version_table": version_table(prefix),
            "include_name": include_name,
            "compare_type": True,
            "compare_server_default": False,
        },
    )
    return list(compare_metadata(context, metadata))


def _revision(conn: Connection, prefix: str) -> Revision:
    context = MigrationContext.configure(conn, opts={"version_table": version_table(prefix)})
    rev = context.get_current_revision()
    first = False
    if rev is None:
        tables = set(inspect(conn).get_table_names())
        first = version_table(prefix) not in tables and f"{prefix}rooms" in tables
    return Revision(current=rev, head=head(), first_release=first)


def _explain(before: Revision, exc: CommandError) -> str:
    text_ = str(exc)
    if "Can't locate revision" in text_:
        return (
            f"the database's schema is at revision {before.current!r}, which this release does not "
            f"know (its newest is {before.head!r}): was it migrated by a newer release? ({text_})"
        )
    return f"migrating the database schema failed: {text_}"


@contextmanager
def _locked(url: str, engine: Engine | None) -> Iterator[Connection]:
    """A connection in a transaction that holds the database's migration lock."""
    memory = url in ("sqlite://", "sqlite:///:memory:") or "mode=memory" in url
    if url.startswith("sqlite") and not memory:
        # pysqlite sends no BEGIN before DDL: take over the transaction, and begin
        # IMMEDIATE, which waits for and then holds SQLite's one write lock.
        eng = create_engine(url, connect_args={"timeout": 60})
        event.listen(eng, "connect", _sqlite_autocommit)
        event.listen(eng, "begin", lambda conn: conn.exec_driver_sql("BEGIN IMMEDIATE"))
        try:
            with eng.begin() as conn:
                yield conn
        finally:
            eng.dispose()
        return
    own = engine is None
    eng = engine if engine is not None else create_engine(url)
    try:
        with eng.begin() as conn:
            if conn.dialect.name == "postgresql":  # held until the transaction ends
                conn.execute(text("SELECT pg_advisory_xact_lock(hashtext(:name))"), {"name": LOCK_NAME})
            yield conn
    finally:
        if own:
            eng.dispose()


def _sqlite_autocommit(dbapi_conn: Any, _record: Any) -> None:
    dbapi_conn.isolation_level = None
