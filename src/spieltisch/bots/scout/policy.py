"""The hand evaluation and one-move lookahead shared by the Scout bots.

Everything here works on plain ints (oriented cards ``top * 11 + bottom`` and
their live numbers), so the hard bot's playouts stay fast. Action ids follow
the engine's fixed numbering (``engine/scout/actions.py``); the generator
below produces exactly the ids the engine lists as legal (S-6 .. S-9, S-13,
S-14), each with a score: what the action gains now plus the value of the
hand it leaves.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from spieltisch.engine.scout.actions import MAX_HAND, SCOUT_BASE, SHOW_BASE, SS_BASE
from spieltisch.engine.scout.cards import BOTTOM, TOP, beating_sets, set_key
from spieltisch.engine.scout.state import ScoutState

H: Final = MAX_HAND
HH: Final = H * H

# -- weights ------------------------------------------------------------------
CARD: Final = 0.5
"""Value lost per card held (S-11: -1 per card left in hand at the round end)."""
TOKEN: Final = 0.6
"""A scout hands the active set's owner a token (S-8); relative to the table
that costs a little less than a full point."""
CHIP_2P: Final = 1.0
"""S-14/S-16: a 2-player scout spends a chip worth a point at the round end."""
SS_CHIP: Final = 0.7
"""S-9: the once-per-round scout & show chip has option value."""
EMPTY_BONUS: Final = 3.0
"""S-10 (a): emptying the hand ends the round while everybody else still holds cards."""


def _segment_table(per: float, growth: float = 0.1, single: float = -1.0) -> list[float]:
    # Value of a set of n cards kept together: it costs one turn to shed and
    # longer sets beat more (S-7), so each extra card is worth more than the last.
    return [0.0, single] + [single + per * (n - 1) + growth * (n - 2) ** 2 for n in range(2, H + 2)]


SEG_MATCH: Final = _segment_table(0.95)
SEG_RUN: Final = _segment_table(0.85)


class Weights:
    """The weights of the one-move lookahead's score, for the incremental
    policy (:func:`fast_best_action`): medium's by default (:data:`MEDIUM`,
    the constants above, to the last bit), or another set (the research
    scripts tune them).

    ``card``, ``token``, ``ss_chip`` and ``empty_bonus`` are :data:`CARD`,
    :data:`TOKEN`, :data:`SS_CHIP` and :data:`EMPTY_BONUS`; a set of ``n >= 2``
    cards kept together is worth ``single + per * (n - 1) + growth * (n - 2) ** 2``
    (``per``: ``match`` or ``run``), a lone card ``single + slope * v``, every
    set ``low`` per point of its smallest number, and a shown set of ``n``
    cards risks ``exposure * n * p`` points, ``p`` the chance that it is
    beaten (:func:`exposure`, whose factor is medium's 0.8).
    """

    def __init__(
        self,
        card: float = CARD,
        token: float = TOKEN,
        ss_chip: float = SS_CHIP,
        empty_bonus: float = EMPTY_BONUS,
        match: float = 0.95,
        run: float = 0.85,
        growth: float = 0.1,
        single: float = -1.0,
        slope: float = 0.03,
        low: float = 0.02,
        exposure: float = 0.8,
    ) -> None:
        self.card = card
        self.token = token
        self.ss_chip = ss_chip
        self.empty_bonus = empty_bonus
        self.single = single
        self.slope = slope
        self.low = low
        self.seg_match = _segment_table(match, growth, single)
        self.seg_run = _segment_table(run, growth, single)
        self.exposure = [_exposure(max(1, k // 64), k, exposure) for k in range(64 * (H + 2))]
        """The risk of a shown set by its key alone (a key holds the set's size, S-7)."""
        self.memo: dict[tuple[tuple[int, ...], tuple[int, ...], int, int], int] = {}
        """:func:`fast_best_action`'s choices under these weights."""

    def value(self, vals: list[int]) -> float:
        """:func:`hand_value` of the live numbers ``vals`` under these weights."""
        return _prefix(vals, None, 0, self)[-1] - self.card * len(vals)


_CACHE: Final[dict[tuple[int, ...], float]] = {}
_CACHE_LIMIT: Final = 500_000


def hand_value(vals: Sequence[int]) -> float:
    """The best split of the hand into adjacent sets (S-6), minus the cards held.

    A pure function of the live numbers, memoised (playouts meet the same
    hands again and again).
    """
    key = tuple(vals)
    found = _CACHE.get(key)
    if found is None:
        if len(_CACHE) >= _CACHE_LIMIT:
            _CACHE.clear()
        found = _CACHE[key] = _hand_value(list(key))
    return found


def _hand_value(vals: list[int]) -> float:
    """Dynamic programming over positions: ``f[i]`` is the best value of the
    first ``i`` cards; a set ending at ``i`` is a match or run reaching back."""
    return _prefix(vals)[-1] - CARD * len(vals)


def exposure(n: int, key: int) -> float:
    """Expected points handed to the next owner who beats this set (S-6)."""
    return _exposure(n, key, 0.8)


def _exposure(n: int, key: int, scale: float) -> float:
    lo = key % 16
    if n == 1:
        p = 0.95 - 0.06 * lo
    elif n == 2:
        p = (0.55 if key % 64 >= 16 else 0.65) - 0.03 * lo
    elif n == 3:
        p = 0.3 - 0.01 * lo
    else:
        p = 0.1
    return scale * n * p


MEDIUM: Final = Weights()
"""Medium's weights (the module's constants): the incremental policy's default."""


def show_score(rest: Sequence[int], n: int, key: int, captured: int) -> float:
    if not rest:
        return captured + EMPTY_BONUS  # S-10 (a): the round ends at once
    return captured + hand_value(rest) - exposure(n, key)


def fit_positions(vals: Sequence[int], v: int) -> list[int]:
    """Insert positions where the card ``v`` touches a neighbour it could form a
    set with, plus both ends (an insert that joins nothing is as good there)."""
    h = len(vals)
    out = [0]
    for at in range(1, h + 1):
        left = vals[at - 1] - v
        if -1 <= left <= 1 or (at < h and -1 <= vals[at] - v <= 1):
            out.append(at)
    if out[-1] != h:
        out.append(h)
    return out


def score_actions(
    hand: Sequence[int],
    table: Sequence[int],
    players: int,
    chips: int,
    full: bool = True,
) -> list[tuple[float, int]]:
    """Every action of the seat to move with its one-move-lookahead score.

    ``full``: every legal action id (what the medium bot scores); otherwise a
    pruned list for playouts: a scouted card goes only where it touches a
    neighbour it could form a set with, or to either end (an insert that joins
    nothing scores the same there, unless it splits a set, which never helps),
    so the best action is almost always the same as with ``full``.
    """
    vals = [TOP[c] for c in hand]
    h = len(vals)
    m = len(table)
    table_key = set_key([TOP[c] for c in table]) if table else -1
    out: list[tuple[float, int]] = []
    for s, n, k in beating_sets(vals, table_key):
        rest = vals[:s] + vals[s + n :]
        out.append((show_score(rest, n, k, m), SHOW_BASE + s * H + n - 1))
    if not table:
        return out
    two = players == 2
    if two and chips == 0:
        return out  # S-14: no chips, no scouting
    cost = CHIP_2P if two else TOKEN
    with_ss = not two and chips > 0 and h + 1 <= H  # S-9, S-13
    for end in (0, 1) if m > 1 else (0,):  # a one-card set is scouted once (engine numbering)
        c = table[0] if end == 0 else table[-1]
        reduced = table[1:] if end == 0 else table[:-1]
        rkey = set_key([TOP[x] for x in reduced]) if reduced else -1
        rm = len(reduced)
        for turn in (0, 1):
            v = BOTTOM[c] if turn else TOP[c]
            positions: Sequence[int] = range(h + 1) if full else fit_positions(vals, v)
            for at in positions:
                index = (end * 2 + turn) * (H + 1) + at
                nv = [*vals[:at], v, *vals[at:]]
                out.append((hand_value(nv) - cost, SCOUT_BASE + index))
                if not with_ss:
                    continue
                base = SS_BASE + index * HH
                sets = beating_sets(nv, rkey)
                for s, n, k in sets:
                    rest = nv[:s] + nv[s + n :]
                    out.append((show_score(rest, n, k, rm) - TOKEN - SS_CHIP, base + s * H + n - 1))
    return out


_BEST: Final[dict[tuple[tuple[int, ...], tuple[int, ...], int, int, bool], int]] = {}


def best_action(hand: Sequence[int], table: Sequence[int], players: int, chips: int, full: bool) -> int:
    """The highest-scoring action id (first one on ties); memoised like :func:`hand_value`."""
    key = (tuple(hand), tuple(table), players, chips, full)
    found = _BEST.get(key)
    if found is None:
        if len(_BEST) >= _CACHE_LIMIT:
            _BEST.clear()
        found = _BEST[key] = _best_action(hand, table, players, chips, full)
    return found


def _best_action(hand: Sequence[int], table: Sequence[int], players: int, chips: int, full: bool) -> int:
    if not full:
        return _best_pruned(hand, table, players, chips)
    best_score = -1e9
    best = -1
    for score, action in score_actions(hand, table, players, chips, full):
        if score > best_score:
            best_score, best = score, action
    return best


_VALUES: Final[dict[int, float]] = {}
"""Hand values by :func:`_hand_key` (the playouts' memo)."""
SH: Final[list[int]] = [4 * i for i in range(H + 2)]
"""``SH[i]``: where the ``i``-th number of a hand key starts (bits)."""
MASK: Final[list[int]] = [(1 << 4 * i) - 1 for i in range(H + 2)]
"""``key & MASK[i]``: the key of the first ``i`` numbers."""


def _hand_key(vals: list[int]) -> int:
    """The live numbers (1..10) in one int, four bits each, the first card
    lowest (no number is 0, so the key also tells the length)."""
    key = 0
    for i in range(len(vals) - 1, -1, -1):
        key = (key << 4) | vals[i]
    return key


def _remember(values: dict[int, float], key: int, value: float) -> None:
    if len(values) >= _CACHE_LIMIT:
        values.clear()
    values[key] = value


def _best_pruned(hand: Sequence[int], table: Sequence[int], players: int, chips: int) -> int:
    """``max(score_actions(..., full=False))`` (first on ties) without building
    the list: the playouts' hot path. Every score is computed with exactly the
    same operations in the same order as :func:`score_actions` (a test checks
    that both always agree), and the actions are tried in its order; only the
    hand values are found differently: memoised by an int key
    (:func:`_hand_key`) and, when missing, computed from the part of the
    dynamic programme of the hand in front of the change (:func:`_prefix`),
    which gives the very same value."""
    vals: list[int] = [TOP[c] for c in hand]
    h = len(vals)
    m = len(table)
    key = _hand_key(vals)
    table_key = set_key([TOP[c] for c in table]) if table else -1
    best_score, best, pre = _best_show(vals, key, None, 0, table_key, m, False, -1e9, -1, SHOW_BASE)
    if not table:
        return best
    two = players == 2
    if two and chips == 0:
        return best
    cost = CHIP_2P if two else TOKEN
    with_ss = not two and chips > 0 and h + 1 <= H
    values = _VALUES
    rkey = -1
    rm = 0
    # A one-card set has one card to scout: its right end would repeat the left's scores.
    for end in range(2 if m > 1 else 1):
        c = table[0] if end == 0 else table[-1]
        if with_ss:
            reduced = table[1:] if end == 0 else table[:-1]
            rkey = set_key([TOP[x] for x in reduced]) if reduced else -1
            rm = len(reduced)
        for turn in range(2):
            v = BOTTOM[c] if turn else TOP[c]
            index0 = (end * 2 + turn) * (H + 1)
            for at in range(h + 1):
                if 0 < at < h:  # fit_positions: touching a neighbour, or at either end
                    d = vals[at - 1] - v
                    if d < -1 or d > 1:
                        d = vals[at] - v
                        if d < -1 or d > 1:
                            continue
                low = key & MASK[at]
                high = key >> SH[at]
                nkey = low | (v << SH[at]) | (high << SH[at + 1])
                nv: list[int] | None = None
                npre: list[float] | None = None
                hv = values.get(nkey)
                if hv is None:
                    nv = [*vals[:at], v, *vals[at:]]
                    if pre is None:
                        pre = _prefix(vals)
                    npre = _prefix(nv, pre, at)
                    hv = npre[h + 1] - CARD * (h + 1)
                    _remember(values, nkey, hv)
                score = hv - cost
                if score > best_score:
                    best_score, best = score, SCOUT_BASE + index0 + at
                if not with_ss:
                    continue
                if nv is None:
                    nv = [*vals[:at], v, *vals[at:]]
                base = SS_BASE + (index0 + at) * HH
                known = at  # nv's programme starts as the hand's
                if npre is not None:
                    known = h + 1
                else:
                    npre = pre
                best_score, best, _ = _best_show(
                    nv, nkey, npre, known, rkey, rm, True, best_score, best, base
                )
    return best


def _best_show(
    vals: list[int],
    key: int,
    pre: list[float] | None,
    known: int,
    beat: int,
    m: int,
    ss: bool,
    best_score: float,
    best: int,
    base: int,
) -> tuple[float, int, list[float] | None]:
    """:func:`_best_pruned`'s shows (``ss``: the shows of a scout & show, S-9)
    of the hand ``vals`` (int key ``key``) that beat the set key ``beat``,
    ``m`` cards on the table: the best of them and of ``best_score``/``best``
    (the first on ties), tried in :func:`beating_sets`' order. ``pre[: known +
    1]`` (if given) is the start of ``_prefix(vals)``; returned is as much of
    it as is known afterwards (``None``: nothing)."""
    h = len(vals)
    values = _VALUES
    for s in range(h):
        v0 = vals[s]
        step = vals[s + 1] - v0 if s + 1 < h else 2
        kind = 16 if step == 0 else 0
        lo = v0
        k = 80 + v0  # set_key of the single card
        e = s + 1  # the set is vals[s:e]
        while True:
            if k > beat:
                n = e - s
                if n == h:
                    score = m + EMPTY_BONUS  # S-10 (a): the round ends at once
                else:
                    rkey = (key & MASK[s]) | ((key >> SH[e]) << SH[s])
                    hv = values.get(rkey)
                    if hv is None:
                        if pre is None or s > known:
                            pre = _prefix(vals) if pre is None else _prefix(vals, pre, known)
                            known = h
                        rest = vals[:s] + vals[e:]
                        hv = _prefix(rest, pre, s)[h - n] - CARD * (h - n)
                        _remember(values, rkey, hv)
                    score = m + hv - EXPOSURE[k]
                if ss:
                    score = score - TOKEN - SS_CHIP
                if score > best_score:
                    best_score, best = score, base + s * H + e - s - 1
            if e >= h or step < -1 or step > 1 or vals[e] - vals[e - 1] != step:
                break
            if vals[e] < lo:
                lo = vals[e]
            e += 1
            k = (e - s) * 64 + kind + lo  # set_key of vals[s:e] (S-7)
    return best_score, best, pre


def play_round(w: ScoutState, limit: int, flip_id: int, keep_id: int, fast: bool = False) -> list[int]:
    """Play the round of ``w`` out with :func:`best_action` (``full=False``) for
    every seat, each seat turning its hand (S-5) if :func:`wants_flip`; after
    ``limit`` turns (a show/scout cycle) the hands are scored as they are (S-11).
    The round's points per seat (hard's playouts). ``fast``: the same moves
    chosen by :func:`fast_best_action` (the review's playouts)."""
    turns = 0
    while not w.is_over():
        turns += 1
        if turns > limit:
            bonus = w.chips if w.players == 2 else w.tokens
            return [w.collected[s] + bonus[s] - len(w.hands[s]) for s in range(w.players)]
        movers = w.to_move()
        if w.phase == "flip":
            for s in movers:
                w.apply_id(s, flip_id if wants_flip(w.hands[s]) else keep_id)
            continue
        s = movers[0]
        if fast:
            w.apply_id(s, fast_best_action(w.hands[s], w.table, w.players, w.chips[s]))
        else:
            w.apply_id(s, best_action(w.hands[s], w.table, w.players, w.chips[s], False))
    points: list[int] = w.results[-1]["points"]
    return points


def flipped(hand: Sequence[int]) -> list[int]:
    """S-5: the hand turned like real cards (mirrored, other number live)."""
    return [BOTTOM[c] * 11 + TOP[c] for c in reversed(hand)]


def wants_flip(hand: Sequence[int], w: Weights | None = None) -> bool:
    """S-5: turn the hand if that gives the better hand (by medium's values,
    or under the weights ``w``)."""
    if w is not None:
        return w.value([TOP[c] for c in flipped(hand)]) > w.value([TOP[c] for c in hand])
    return hand_value([TOP[c] for c in flipped(hand)]) > hand_value([TOP[c] for c in hand])


# -- the fast playout policy ----------------------------------------------
# The same scores as :func:`score_actions` with ``full=False``, computed
# incrementally: the best split of the hand into sets is found once from the
# left (``f[i]``: the best value of the first ``i`` cards) and once from the
# right (``g[i]``: of the cards from ``i`` on); a scouted card or a removed set
# then only changes the sets that touch it, so every action costs a few
# additions instead of a whole dynamic programme. The sums are associated
# differently, so two actions that tie exactly may be ordered differently by
# a rounding error; the choice is otherwise the same (a test checks it).


def _prefix(
    vals: list[int], f: list[float] | None = None, start: int = 0, w: Weights = MEDIUM
) -> list[float]:
    """``f[i]``: the best value of the first ``i`` cards (as in :func:`_hand_value`;
    under the weights ``w``, medium's by default); ``f[: start + 1]`` may be
    given (it depends on those cards only)."""
    single, slope, low, seg_match, seg_run = w.single, w.slope, w.low, w.seg_match, w.seg_run
    h = len(vals)
    f = [0.0] * (h + 1) if f is None else f[: start + 1] + [0.0] * (h - start)
    for i in range(start, h):
        v = vals[i]
        best = f[i] + single + slope * v
        if i:
            d = v - vals[i - 1]
            if -1 <= d <= 1:
                table = seg_match if d == 0 else seg_run
                j = i - 1
                lo = v if v < vals[j] else vals[j]
                n = 2
                while True:
                    cand = f[j] + table[n] + low * lo
                    if cand > best:
                        best = cand
                    if j == 0 or vals[j] - vals[j - 1] != d:
                        break
                    j -= 1
                    n += 1
                    if vals[j] < lo:
                        lo = vals[j]
        f[i + 1] = best
    return f


def _suffix(
    vals: Sequence[int], g: list[float] | None = None, stop: int | None = None, w: Weights = MEDIUM
) -> list[float]:
    """``g[i]``: the best value of the cards from ``i`` on (under the weights
    ``w``, medium's by default); ``g[stop:]`` may be given (it depends on those
    cards only)."""
    single, slope, low, seg_match, seg_run = w.single, w.slope, w.low, w.seg_match, w.seg_run
    h = len(vals)
    if g is None or stop is None:
        g = [0.0] * (h + 1)
        stop = h
    else:
        g = [0.0] * stop + g[stop:]
    for i in range(stop - 1, -1, -1):
        v = vals[i]
        best = g[i + 1] + single + slope * v
        if i + 1 < h:
            d = vals[i + 1] - v
            if -1 <= d <= 1:
                table = seg_match if d == 0 else seg_run
                j = i + 1
                lo = v if v < vals[j] else vals[j]
                n = 2
                while True:
                    cand = g[j + 1] + table[n] + low * lo
                    if cand > best:
                        best = cand
                    if j + 1 >= h or vals[j + 1] - vals[j] != d:
                        break
                    j += 1
                    n += 1
                    if vals[j] < lo:
                        lo = vals[j]
        g[i] = best
    return g


def value_with(
    vals: Sequence[int], f: Sequence[float], g: Sequence[float], at: int, v: int, w: Weights = MEDIUM
) -> float:
    """:func:`hand_value` of ``vals`` with the number ``v`` inserted at ``at``
    (``f``, ``g``: :func:`_prefix` and :func:`_suffix` of ``vals`` under the
    weights ``w``, medium's by default)."""
    h = len(vals)
    best = f[at] + g[at] + w.single + w.slope * v
    left = vals[at - 1] if at else None
    right = vals[at] if at < h else None
    for d in (-1, 0, 1):
        l_ok = left is not None and v - left == d
        r_ok = right is not None and right - v == d
        if not (l_ok or r_ok):
            continue
        table = w.seg_match if d == 0 else w.seg_run
        nl = 0
        if l_ok:
            nl = 1
            while at - nl - 1 >= 0 and vals[at - nl] - vals[at - nl - 1] == d:
                nl += 1
        nr = 0
        if r_ok:
            nr = 1
            while at + nr < h and vals[at + nr] - vals[at + nr - 1] == d:
                nr += 1
        for i in range(nl + 1):
            first = vals[at - i] if i else v
            fa = f[at - i]
            for j in range(nr + 1):
                if i + j == 0:
                    continue
                last = vals[at + j - 1] if j else v
                lo = first if first < last else last
                cand = fa + table[i + j + 1] + w.low * lo + g[at + j]
                if cand > best:
                    best = cand
    return best - w.card * (h + 1)


def value_without(
    vals: Sequence[int], f: Sequence[float], g: Sequence[float], s: int, n: int, w: Weights = MEDIUM
) -> float:
    """:func:`hand_value` of ``vals`` without the ``n`` cards from ``s`` on
    (``f``, ``g``: :func:`_prefix` and :func:`_suffix` of ``vals`` under the
    weights ``w``, medium's by default)."""
    h = len(vals)
    e = s + n
    best = f[s] + g[e]
    if s and e < h:
        d = vals[e] - vals[s - 1]
        if -1 <= d <= 1:
            table = w.seg_match if d == 0 else w.seg_run
            nl = 1
            while s - nl - 1 >= 0 and vals[s - nl] - vals[s - nl - 1] == d:
                nl += 1
            nr = 1
            while e + nr < h and vals[e + nr] - vals[e + nr - 1] == d:
                nr += 1
            for i in range(1, nl + 1):
                first = vals[s - i]
                fa = f[s - i]
                for j in range(1, nr + 1):
                    last = vals[e + j - 1]
                    lo = first if first < last else last
                    cand = fa + table[i + j] + w.low * lo + g[e + j]
                    if cand > best:
                        best = cand
    return best - w.card * (h - n)


EXPOSURE: Final = [exposure(max(1, k // 64), k) for k in range(64 * (H + 2))]
""":func:`exposure` by set key alone (a key holds the set's size, S-7)."""


def fast_best_action(
    hand: Sequence[int], table: Sequence[int], players: int, chips: int, w: Weights = MEDIUM
) -> int:
    """The best action of :func:`score_actions` with ``full=False`` (first on
    ties, up to rounding), scored incrementally (the review's playout
    policy). ``w``: other weights than medium's."""
    memo = w.memo
    key = (tuple(hand), tuple(table), players, chips)
    found = memo.get(key)
    if found is None:
        if len(memo) >= _CACHE_LIMIT:
            memo.clear()
        found = memo[key] = _fast_best(hand, table, players, chips, w)[1]
    return found


def _fast_best(
    hand: Sequence[int], table: Sequence[int], players: int, chips: int, w: Weights
) -> tuple[float, int]:
    vals = [TOP[c] for c in hand]
    h = len(vals)
    m = len(table)
    f = _prefix(vals, None, 0, w)
    g = _suffix(vals, None, None, w)
    card, token, ss_chip, empty_bonus, risk = w.card, w.token, w.ss_chip, w.empty_bonus, w.exposure
    table_key = set_key([TOP[c] for c in table]) if table else -1
    best_score = -1e9
    best = -1
    for s, n, k in beating_sets(vals, table_key):
        score = m + value_without(vals, f, g, s, n, w) - risk[k] if n < h else m + empty_bonus
        if score > best_score:
            best_score, best = score, SHOW_BASE + s * H + n - 1
    if not table:
        return best_score, best
    two = players == 2
    if two and chips == 0:
        return best_score, best
    cost = CHIP_2P if two else token
    with_ss = not two and chips > 0 and h + 1 <= H
    for end in (0, 1):
        c = table[0] if end == 0 else table[-1]
        if with_ss:
            reduced = table[1:] if end == 0 else table[:-1]
            rkey = set_key([TOP[x] for x in reduced]) if reduced else -1
            rm = len(reduced)
        for turn in (0, 1):
            v = BOTTOM[c] if turn else TOP[c]
            index0 = (end * 2 + turn) * (H + 1)
            for at in fit_positions(vals, v):
                score = value_with(vals, f, g, at, v, w) - cost
                if score > best_score:
                    best_score, best = score, SCOUT_BASE + index0 + at
                if not with_ss:
                    continue
                nv = [*vals[:at], v, *vals[at:]]
                sets = beating_sets(nv, rkey)
                if not sets:
                    continue
                f2 = _prefix(nv, f, at, w)  # the cards before ``at`` are unchanged
                g2 = _suffix(nv, [0.0, *g], at + 1, w)  # and those after it
                base = SS_BASE + (index0 + at) * HH
                last = h  # the last index of ``nv``
                for s, n, k in sets:
                    if n <= h:
                        e = s + n
                        if s == 0 or e > last or not -1 <= nv[e] - nv[s - 1] <= 1:
                            # nothing joins across the gap (value_without's first line, inlined)
                            rest = f2[s] + g2[e] - card * (last + 1 - n)
                        else:
                            rest = value_without(nv, f2, g2, s, n, w)
                        score = rm + rest - risk[k] - token - ss_chip
                    else:
                        score = rm + empty_bonus - token - ss_chip
                    if score > best_score:
                        best_score, best = score, base + s * H + n - 1
    return best_score, best
