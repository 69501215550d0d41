"""``mypyc_attr`` for the optional compiled build (``scripts/build-fast``).

mypyc reads the decorator from ``mypy_extensions`` (which comes with mypy);
pure Python, where it does nothing, runs without that package. This module is
never compiled itself.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from mypy_extensions import mypyc_attr
else:
    try:
        from mypy_extensions import mypyc_attr
    except ImportError:

        def mypyc_attr(*_: object, **__: object) -> Any:
            return lambda cls: cls


__all__ = ["mypyc_attr"]
