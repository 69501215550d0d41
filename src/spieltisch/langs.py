"""The languages Spieltisch's text comes in (UI text in English and German):
one list for the terminal's texts and the lab's reports."""

from __future__ import annotations

from typing import Final

LANGS: Final = ("en", "de")
