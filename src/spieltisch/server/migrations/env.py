"""Alembic's environment for the store's migrations (docs/storage.md).

The server runs it programmatically (:func:`spieltisch.server.migrate.upgrade`)
with a :class:`alembic.config.Config` built in code, no ``alembic.ini``:

* ``config.attributes["connection"]``: the open SQLAlchemy connection to migrate,
  inside a transaction the caller holds (and commits);
* ``config.attributes["prefix"]``: the table-name prefix of the store ("" by default).
  Revisions read it through :func:`spieltisch.server.migrations.table` (or
  ``op.get_context().opts["prefix"]``); the version table is ``{prefix}alembic_version``;
* ``config.attributes["target_metadata"]`` (optional): the store's tables, for autogenerate.

Without a connection (the plain ``alembic`` command) it connects to
``sqlalchemy.url`` from the config; offline (``--sql``) it writes the SQL.
"""

from __future__ import annotations

from typing import Any

from alembic import context
from sqlalchemy import MetaData, create_engine
from sqlalchemy.engine import Connection

config = context.config
prefix: str = config.attributes.get("prefix", "")
target_metadata: MetaData | None = config.attributes.get("target_metadata")


def include_name(name: str | None, type_: str, _parent: Any) -> bool:
    """Only this store's tables count (others may share the database, under other prefixes)."""
    if type_ != "table" or name is None:
        return True
    if target_metadata is not None and name in target_metadata.tables:
        return True
    return bool(prefix) and name.startswith(prefix)


def options(dialect: str) -> dict[str, Any]:
    return {
        "target_metadata": target_metadata,
        "version_table": f"{prefix}alembic_version",
        "render_as_batch": dialect == "sqlite",  # SQLite's ALTER TABLE needs batch mode (copy and move)
        "include_name": include_name,
        "prefix": prefix,  # op.get_context().opts["prefix"] in a revision
    }


def run(connection: Connection) -> None:
    context.configure(connection=connection, **options(connection.dialect.name))
    with context.begin_transaction():
        context.run_migrations()


if context.is_offline_mode():
    url = config.get_main_option("sqlalchemy.url") or "sqlite://"
    context.configure(url=url, literal_binds=True, **options(url.split(":", 1)[0].split("+", 1)[0]))
    with context.begin_transaction():
        context.run_migrations()
elif (connection := config.attributes.get("connection")) is not None:
    run(connection)
else:
    engine = create_engine(config.get_main_option("sqlalchemy.url") or "sqlite://")
    with engine.begin() as conn:
        run(conn)
    engine.dispose()
