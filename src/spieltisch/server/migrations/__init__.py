"""The Alembic migrations of the web table's store (docs/storage.md).

``env.py`` is run by Alembic; ``versions/`` holds one file per schema change.
The store's tables carry a name prefix (tests isolate on one PostgreSQL
database that way), so a revision never writes a table name literally: it asks
:func:`table` for the prefixed name, e.g. ``op.add_column(table("rooms"), ...)``.
"""

from __future__ import annotations

from pathlib import Path

SCRIPT_LOCATION = Path(__file__).resolve().parent
"""The Alembic script directory (``env.py``, ``script.py.mako``, ``versions/``)."""


def prefix() -> str:
    """The table-name prefix of the migration that is running (inside a revision only)."""
    from alembic import op

    return str(op.get_context().opts.get("prefix", ""))


def table(name: str) -> str:
    """The store's name for table ``name`` (``rooms`` -> ``{prefix}rooms``), inside a revision."""
    return prefix() + name
