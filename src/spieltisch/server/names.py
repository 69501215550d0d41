"""The rules of an account's name (docs/accounts.md, "Names").

A name is 3 to 24 characters after NFKC normalisation: letters and digits of one
script (Latin, Greek, Cyrillic, ... - not mixed, the commonest trick of look-alike
names such as a Cyrillic "а" in a Latin name), with single spaces, ``-``, ``_`` or
``.`` between them. Two names that fold to the same key (:func:`name_key`: NFKC,
casefold, separators dropped, common look-alike letters of other scripts folded to
Latin) are the same name, so "Anna", "ANNA", "Ａｎｎａ"
(full-width) and "an-na" cannot belong to two accounts. Names that pass for one of
the built-in bots ("easy", "Medium", "bot hard", "Bot (random)", "SpieltischBot") or
for the server itself are refused.
"""

from __future__ import annotations

import re
import unicodedata

MIN_LENGTH = 3
MAX_LENGTH = 24
BOT_WORDS = frozenset({"bot", "bots", "robot", "computer", "cpu", "ai", "ki"})
"""Words that make a name pass for a built-in bot anywhere in it ("Bot Anna", "anna_bot")."""
RESERVED = frozenset(
    {"random", "easy", "medium", "hard", "expert", "strong", "weak", "admin", "spieltisch", "server",
     "system", "moderator", "anonymous", "deleted", "deletedplayer", "guest", "nobody"}
)  # fmt: skip
"""Names (as keys) nobody may claim: bot levels, the server's own words."""
_LOOK_ALIKES = str.maketrans(
    "аеорсхуіјѕԁһӏвнкмтзϲαοριτυνκχβεηζ0",  # (casefolded) Cyrillic and Greek letters, and 0
    "aeopcxyijsdhlbhkmt3caopitunkxbenzo",  # the Latin letters they pass for
)
"""A few of the letters of other scripts that look like Latin ones (Unicode's confusables,
UTS #39, in small): folded in the key, so that a name written wholly in Cyrillic
look-alikes ("Аnnа") is the same name as the Latin one."""
_SEPARATORS = re.compile(r"[ \-_.]")
_ALLOWED_SEPARATOR = re.compile(r"^[^ \-_.]+(?:[ \-_.][^ \-_.]+)*$")


class BadName(ValueError):
    """A name that may not be claimed; the message says why."""


def normalize(name: str) -> str:
    """The name as it is stored and shown: NFKC, outer whitespace stripped."""
    return unicodedata.normalize("NFKC", name).strip()


def name_key(name: str) -> str:
    """The key two names are compared by: NFKC, casefolded, NFKC again (casefolding can
    leave a string that NFKC changes), separators dropped, look-alikes folded to Latin."""
    folded = unicodedata.normalize("NFKC", normalize(name).casefold())
    return _SEPARATORS.sub("", folded).translate(_LOOK_ALIKES)


def _script(ch: str) -> str:
    """A character's script, by the first word of its Unicode name (LATIN, GREEK, ...);
    digits belong to every script ("COMMON")."""
    if ch.isdigit():
        return "COMMON"
    return unicodedata.name(ch, "UNKNOWN").split(" ")[0]


def check_name(name: str, bot_levels: frozenset[str] = frozenset()) -> str:
    """The name to store (normalised); raises :class:`BadName` saying what is wrong.
    ``bot_levels``: every built-in bot level of the server's games (also refused)."""
    shown = normalize(name)
    if not MIN_LENGTH <= len(shown) <= MAX_LENGTH:
        raise BadName(f"name: {MIN_LENGTH} to {MAX_LENGTH} characters, not {len(shown)}")
    if not _ALLOWED_SEPARATOR.match(shown):
        raise BadName("name: separators (space - _ .) only one at a time between letters or digits")
    for ch in shown:
        if _SEPARATORS.match(ch):
            continue
        if not (ch.isalpha() or ch.isdigit()) or unicodedata.category(ch) in ("Lm", "Mn", "Me", "Mc"):
            raise BadName(f"name: only letters, digits and single separators (space - _ .), not {ch!r}")
    scripts = {_script(ch) for ch in shown if not _SEPARATORS.match(ch)} - {"COMMON"}
    if len(scripts) > 1:
        raise BadName(
            f"name: letters of one script only (found {', '.join(sorted(s.title() for s in scripts))}): "
            "mixed scripts make look-alike names"
        )
    key = name_key(shown)
    if key.isdigit():
        raise BadName("name: at least one letter")
    levels = {name_key(level) for level in bot_levels}
    words = {name_key(w) for w in _SEPARATORS.split(shown.casefold()) if w}
    if key in RESERVED or key in levels:
        raise BadName(f"name: {shown!r} is reserved (a bot level or the server's own)")
    rest = key.removeprefix("bot") if key.startswith("bot") else key.removesuffix("bot")
    if words & BOT_WORDS or (rest != key and (rest.isdigit() or rest in RESERVED or rest in levels)):
        raise BadName(f"name: {shown!r} would pass for a built-in bot")
    return shown
