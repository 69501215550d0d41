"""What the table's log may say to each seat: which sealed decisions are public by now,
and the cards a Scout move made public.

A Waschbär-Schmaus decision is sealed until everybody's decision of its kind is in:
the lays of a round are revealed together (W-4), the grocers' targets and the ×5
cards once every choice is made (W-9, W-11), the hand-limit discards once every
discard is in (W-16). A Scout flip decision stays secret until the game is over
(S-5); a shown set lies face up on the table (S-7) and a scouted card leaves the
table in everybody's sight (S-8), so their log entries name those cards.
Everything here is read from the seats' own views, never from hidden state.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from spieltisch.engine import Game, RulesError, State
from spieltisch.engine.base import BaseState
from spieltisch.server.notation import verb

_KIND = {"play": "play", "target": "choice", "x5": "choice", "discard": "discard"}
"""The kinds of sealed Waschbär-Schmaus decisions (target and ×5 are chosen together)."""
_PHASE = {"choice": "target", "discard": "discard"}
"""The phase in which a kind is still being decided."""


def phase_of(state: State) -> str:
    """The game's phase (public: every view says it)."""
    return state.phase if isinstance(state, BaseState) else str(state.view(None, log=False)["phase"])


def schmaus_public(actions: Sequence[tuple[int, str]], players: int, phase: str) -> list[bool]:
    """Per action: whether every seat may read it now (its kind's decisions are all in)."""
    out = [False] * len(actions)
    plays = sum(1 for _, text in actions if verb(text) == "play")
    # W-4: each round every seat lays once ("play -" too), so the lays come in groups of `players`.
    complete = plays - plays % players
    seen = 0
    for i, (_, text) in enumerate(actions):
        if verb(text) == "play":
            out[i] = seen < complete
            seen += 1
    # The choices and discards of one kind lie together in the log: all but the last
    # group are complete, and the last one is once the phase has moved on.
    trailing = True
    last_kind: str | None = None
    for i in range(len(actions) - 1, -1, -1):
        kind = _KIND.get(verb(actions[i][1]), "play")
        if last_kind is not None and kind != last_kind:
            trailing = False
        last_kind = kind
        if kind != "play":
            out[i] = not trailing or phase != _PHASE[kind]
    return out


def _scout_card(card: str, flip: bool) -> str:
    top, bottom = card.split("/")
    return f"{bottom}/{top}" if flip else card


def scout_note(before: State, seat: int, text: str) -> dict[str, Any] | None:
    """The cards a Scout action made public, read from the acting seat's own view just
    before it: ``cards`` a shown set (live number first), ``card`` a scouted card as it
    went into the hand. None for the flip decision (S-5, secret)."""
    words = text.split()
    if not words or words[0] not in ("show", "scout"):
        return None
    view = before.view(seat, log=False)
    hand = list(view.get("hand") or [])
    note: dict[str, Any] = {}
    if words[0] == "scout":  # "scout L [flip] @i [show a-b]"
        table = (view.get("table") or {}).get("cards") or []
        if not table:
            return None
        flip = "flip" in words
        card = _scout_card(table[0] if words[1] == "L" else table[-1], flip)
        at = int(next(w for w in words if w.startswith("@"))[1:])
        hand.insert(at, card)
        note["card"] = card
        words = words[words.index("show") :] if "show" in words else []
    if words:  # "show a-b"
        first, _, last = words[1].partition("-")
        note["cards"] = hand[int(first) : int(last or first) + 1]
    return note


def scout_notes(
    game: Game, players: int, seed: int, options: Mapping[str, Any], actions: Sequence[tuple[int, str]]
) -> list[dict[str, Any] | None]:
    """:func:`scout_note` of every action of a stored log, replayed from its deal (as far
    as it replays: an archived record this engine no longer replays gets no notes from there)."""
    notes: list[dict[str, Any] | None] = []
    try:
        state = game.new_state(players, seed, dict(options))
    except RulesError:
        return [None] * len(actions)
    for seat, text in actions:
        notes.append(scout_note(state, seat, text))
        try:
            state.apply(seat, text)
        except RulesError:  # an archived record: its log as stored, without notes
            break
    return notes + [None] * (len(actions) - len(notes))
