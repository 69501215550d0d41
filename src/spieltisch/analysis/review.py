"""Post-game review: every decision of a seat rated from what it could see then.

For each decision of a reviewed seat (a turn with more than one legal action)
the review estimates the expected outcome of the move played and of the best
alternative, by determinization: it samples the hidden cards consistent with
that seat's view at that moment (``state.view(seat)`` during the replay, never
the full state), plays every candidate move out in each sampled world with
medium for every seat, and averages.

* Scout: worlds come from :func:`spieltisch.bots.scout.sample_world` (the
  cards the seat has seen this round are known, every other card may be in an
  unknown slot); each playout runs to the end of the round with medium's
  policy as the hard bots' playouts play it (:func:`spieltisch.bots.scout.play_out`).
  Utility: the seat's round points minus the mean round points of the others.
* Waschbär-Schmaus: the opponents' hands and the draw pile are dealt from the
  unseen cards (:func:`spieltisch.bots.schmaus.unseen_counts`) into a table at
  the start of the round (``SchmausState.from_position``; after the reveal,
  every seat lays its revealed cards again); each playout runs to the end of
  the round after next (:data:`SCHMAUS_HORIZON` rounds, or the game end).
  Utility: the seat's total minus the mean total of the others. Lays, grocer
  targets and ×5 cards are rated; hand-limit discards are listed as not rated.

The budget is counted in work: ``worlds`` sampled worlds per decision, and in
each world every candidate is played out ``playouts`` times (common random
numbers: the same world and bot seeds for every candidate, so the loss and its
error come from the paired per-world differences); a decision whose mark is
still uncertain gets up to ``extra`` more worlds for the move played and its
contenders only (:func:`rate`). Every random
choice comes from a generator seeded by the record's seed, the decision's
number, the seat and the budget, so the same record and budget give the same
review on any machine and with any number of worker processes.

Marks (loss = estimate of the best alternative minus that of the move played,
0 when the move played is the best): a *mistake* loses at least
:attr:`Thresholds.mistake`, a *blunder* at least :attr:`Thresholds.blunder`
(in the game's utility, see :func:`thresholds`), and the loss must be clear of the sampling noise
(more than twice its standard error over the worlds).
"""

from __future__ import annotations

import json
import math
import random
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from spieltisch.bots import make_bot, scout
from spieltisch.bots.base import Bot, View
from spieltisch.bots.schmaus import counts_of, opponent_model, unseen_counts
from spieltisch.engine import GameRecord, RulesError, State, get_game
from spieltisch.engine.schmaus import SchmausState
from spieltisch.engine.schmaus import actions as schmaus_actions
from spieltisch.engine.scout import ScoutState

SCHMAUS_HORIZON = 3
"""Waschbär-Schmaus rounds a playout covers: this one and the next two."""

ALTERNATIVES = 6
"""How many of medium's best distinct moves are compared with the move played."""


class ReviewError(ValueError):
    """A record or option the review cannot work with; the message says why."""


@dataclass(frozen=True)
class ReviewBudget:
    """Work per decision: ``worlds`` sampled worlds × ``playouts`` per
    candidate for every decision, and up to :attr:`extra` more worlds (on the
    move played and the contending alternatives only) for a decision whose
    mark is still uncertain (see :func:`rate`)."""

    worlds: int = 16
    playouts: int = 1
    more: int | None = None
    """Extra worlds for uncertain decisions; ``None``: :data:`EXTRA` × ``worlds``."""

    @property
    def extra(self) -> int:
        return EXTRA * self.worlds if self.more is None else self.more

    @classmethod
    def parse(cls, text: str) -> ReviewBudget:
        """``"16"`` (worlds), ``"16x2"`` (worlds × playouts per world), each
        optionally ``+EXTRA`` (``"16+0"``: no extra worlds)."""
        spec, plus, extra_text = text.strip().lower().partition("+")
        head, _, tail = spec.partition("x")
        try:
            worlds = int(head)
            playouts = int(tail) if tail else 1
            more = int(extra_text) if plus else None
        except ValueError:
            raise ReviewError(
                f"budget {text!r}: write WORLDS, WORLDSxPLAYOUTS or either +EXTRA, e.g. 16, 16x2 or 16+0"
            ) from None
        if not 1 <= worlds <= 100_000 or not 1 <= playouts <= 1000 or not 0 <= (more or 0) <= 1_000_000:
            raise ReviewError(
                f"budget {text!r}: worlds must be 1..100000, playouts 1..1000, extra 0..1000000"
            )
        return cls(worlds, playouts, more)

    def __str__(self) -> str:
        return f"{self.worlds}x{self.playouts}+{self.extra}"


EXTRA = 7
"""By default a decision whose mark is uncertain gets up to this many times
its ``worlds`` again, so the most a decision costs is bounded (and known
before it starts)."""


@dataclass(frozen=True)
class Thresholds:
    """Losses (in the game's utility) that mark a decision."""

    mistake: float
    blunder: float


SCHMAUS_POT_PER_PLAYER = 8.4
"""A Waschbär-Schmaus round's pot is about this many points a player (the
prior the hard bot uses too); the winner of the round takes it all (W-14)."""


def thresholds(game: str, players: int) -> Thresholds:
    """Scout: 2 and 4 round points relative to the others (a card in hand is
    -1, a captured card +1, S-11). Waschbär-Schmaus: a quarter and a half of
    a typical pot (8.4 points a player: 8.4 and 16.8 with 4 players)."""
    if game == "scout":
        return Thresholds(2.0, 4.0)
    pot = SCHMAUS_POT_PER_PLAYER * players
    return Thresholds(round(pot / 4, 2), round(pot / 2, 2))


UTILITY = {
    "scout": "round points minus the others' mean (to the end of the round)",
    "schmaus": f"total minus the others' mean after {SCHMAUS_HORIZON} rounds (or the game end)",
}


@dataclass(frozen=True)
class Task:
    """One decision to rate: everything the seat could see, nothing else."""

    game: str
    seat: int
    number: int
    """The decision's action number in the record (1-based)."""
    view: Mapping[str, Any]
    legal: tuple[int, ...]
    played: int
    pool: tuple[int, ...]
    """Scout: the cards that may be in an opponent's unknown slot (from the
    cards this seat has seen this round); empty for Waschbär-Schmaus."""
    key: str
    """The decision's name (game, record seed, action number, seat): seeds
    what does not depend on the budget (the candidates)."""
    budget: ReviewBudget

    @property
    def seed(self) -> str:
        """Seeds the worlds and playouts."""
        return f"{self.key}/{self.budget}"


@dataclass
class Decision:
    """The rating of one decision."""

    seat: int
    number: int
    round: int
    played: str
    played_estimate: float | None
    best: str | None
    best_estimate: float | None
    difference: float | None
    """Estimate of the move played minus that of the best alternative."""
    loss: float | None
    """How much the move played gives away to the best alternative (≥ 0)."""
    error: float | None
    """Standard error of the paired difference over the worlds."""
    mark: str | None
    """``"blunder"``, ``"mistake"`` or ``None``."""
    rated: bool = True
    better: bool = False
    """Whether the best alternative is clearly better than the move played: its
    loss is clear of the sampling noise (more than twice its standard error) and
    shows as at least 0.1. Otherwise the move played is as good as any found
    (within the noise), and no interface says "better: ..." or marks it."""
    worlds: int = 0
    """Sampled worlds the move played was rated in (the budget's worlds, more
    when the mark was uncertain; a failed sample counts as none)."""
    candidates: list[dict[str, Any]] = field(default_factory=list)


@dataclass
class Summary:
    seat: int
    decisions: int
    rated: int
    accuracy: float
    """Mean loss per rated decision (lower is better)."""
    mistakes: int
    blunders: int
    biggest: list[int]
    """Action numbers of the three biggest losses."""


@dataclass
class Review:
    game: str
    players: int
    seed: int
    budget: str
    utility: str
    thresholds: dict[str, float]
    decisions: list[Decision]
    summary: list[Summary]

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


# -- reading a record -------------------------------------------------------------


def load_record(path: Path) -> tuple[State, list[tuple[int, str]], int]:
    """The start state, the actions and the seed of a record file.

    Accepted: a game record (``{"game", "players", "seed", "options",
    "actions"}``), the web table's replay answer (``{"record": {...}, ...}``)
    or a hand-made start (``{"game", "position": STATE_JSON, "actions"}``,
    the state JSON of ``state.to_json()``)."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ReviewError(f"cannot read {path}: {exc.strerror or exc}") from None
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ReviewError(f"{path} is not a JSON game record: {exc}") from None
    if isinstance(data, dict) and isinstance(data.get("record"), dict):
        data = data["record"]
    if not isinstance(data, dict):
        raise ReviewError(f"{path}: a game record is a JSON object, not {type(data).__name__}")
    try:
        if "position" in data:
            game = get_game(str(data.get("game")))
            start = game.state_from_json(data["position"])
            actions = [(int(s), str(t)) for s, t in data.get("actions", [])]
            return start, actions, start.seed
        record = GameRecord.from_json(data)
        start = get_game(record.game).new_state(record.players, record.seed, record.options)
    except (RulesError, TypeError, ValueError) as exc:
        why = str(exc).removeprefix("broken game record: ")  # (a RecordError says it already)
        raise ReviewError(f"{path}: broken game record: {why}") from None
    try:
        record.replay()
    except RulesError as exc:  # e.g. played under rules this engine no longer plays (docs/storage.md)
        raise ReviewError(
            f"{path} is an archived record that no longer replays under this engine: {exc}"
        ) from None
    return start, list(record.actions), record.seed


def collect(
    start: State, actions: Sequence[tuple[int, str]], seats: Iterable[int], budget: ReviewBudget, seed: int
) -> list[Task]:
    """Replay the record and cut out every decision of ``seats`` with the
    seat's view at that moment; raises :class:`ReviewError` when an action
    does not replay."""
    game = start.game.name
    state = start.clone()
    wanted = set(seats)
    knowledge: dict[int, scout.Knowledge] = {}
    if game == "scout":
        knowledge = {s: scout.Knowledge() for s in wanted}
    tasks = []
    for number, (seat, text) in enumerate(actions, 1):
        for s, k in knowledge.items():
            _see(k, state.view(s))
        try:
            _, ids = state.validate(seat, text)
        except RulesError as exc:
            raise ReviewError(f"action {number} ({seat}: {text!r}) does not replay: {exc}") from None
        if seat in wanted:
            legal = tuple(state.legal_action_ids(seat))
            played = ids[0]
            view = state.view(seat)
            pool: tuple[int, ...] = ()
            if game == "scout" and view["phase"] != "over":
                pool = tuple(knowledge[seat].unseen(scout.Position.from_view(view)))
            if len(legal) > 1:
                key = f"review/{game}/{seed}/{number}/{seat}"
                tasks.append(Task(game, seat, number, view, legal, played, pool, key, budget))
        state.apply(seat, text)
    return tasks


def _see(knowledge: scout.Knowledge, view: View) -> None:
    if view["phase"] != "over":
        knowledge.update(view, scout.Position.from_view(view))


# -- rating one decision ------------------------------------------------------------


WORLD_TRIES = 20
"""Samples tried per world until one allows every candidate (a Waschbär-Schmaus
table can turn out different from the view, e.g. when a sampled hand draws
for W-5); a decision without any such world is listed as not rated."""


SETTLED = 1.5
"""A decision's mark is settled once its loss is this many standard errors
away from every threshold; until then it gets extra worlds (up to the
budget's :attr:`ReviewBudget.extra`)."""

CONTENDERS = 3
"""Alternatives the extra worlds play out besides the move played: the best
one and the others not clearly worse than it (by 2 standard errors of
their paired difference), at most this many."""


def rate(task: Task) -> Decision:
    """Rate one decision (runs in a worker process).

    Every candidate is played out in the same sampled worlds with the same
    bot seeds (common random numbers), so the loss and its standard error
    come from the paired per-world differences. First ``budget.worlds``
    worlds for every candidate; then, while the loss is within
    :data:`SETTLED` standard errors of a threshold (the mark could still
    change), batches of extra worlds for the move played and the
    :data:`CONTENDERS` best alternatives, up to ``budget.extra`` worlds. Every
    step depends only on the task and the worlds drawn from its seed, so the
    work and the result are the same on any machine and for any ``-j``."""
    rng = random.Random(task.seed)
    game = get_game(task.game)
    sample: Callable[[], State | None]
    if task.game == "scout":
        cands: list[int] | None = _scout_candidates(task)
        sample = lambda: _scout_world(task, rng)  # noqa: E731
        horizon = 1
    else:
        cands = _schmaus_candidates(task)
        sample = lambda: _schmaus_world(task, rng)  # noqa: E731
        horizon = SCHMAUS_HORIZON
    if not cands:
        return _judge(task, game, [task.played], [[]], [0])
    playouts = task.budget.playouts

    def play_world(which: Sequence[int]) -> list[float] | None:
        world = _allowing(sample, task.seat, cands)
        if world is None:
            return None
        sums = [0.0] * len(which)
        for _ in range(playouts):
            bot_seed = rng.randrange(1 << 30)
            for j, i in enumerate(which):
                sums[j] += _playout(world.clone(), task, cands[i], bot_seed, horizon)
        return [x / playouts for x in sums]

    limits = thresholds(task.game, int(task.view["players"]))
    values, live = sample_adaptively(len(cands), task.budget, limits, play_world)
    return _judge(task, game, cands, values, live)


def sample_adaptively(
    count: int,
    budget: ReviewBudget,
    limits: Thresholds,
    play_world: Callable[[Sequence[int]], list[float] | None],
) -> tuple[list[list[float]], list[int]]:
    """The per-world values of ``count`` candidates (index 0: the move played)
    and the candidates played out in every world (see :func:`rate`).
    ``play_world(which)`` samples the next world and plays the candidates
    ``which`` out in it (``None``: no usable world; it still counts)."""
    values: list[list[float]] = [[] for _ in range(count)]

    def world(which: Sequence[int]) -> None:
        got = play_world(which)
        if got is not None:
            for i, v in zip(which, got, strict=True):
                values[i].append(v)

    live = list(range(count))
    for _ in range(budget.worlds):
        world(live)
    extra = budget.extra
    step = max(2, budget.worlds // 2)
    while extra > 0 and len(values[0]) > 1 and count > 1:
        live = _contenders(values, live)
        # How far the loss is from each threshold: a move played that is ahead of
        # every alternative is that much further away (its loss is not cut at 0 here).
        loss, se, _ = _paired_loss(values, live, signed=True)
        if all(abs(loss - t) >= SETTLED * se for t in (limits.mistake, limits.blunder)):
            break
        batch = min(step, extra)
        for _ in range(batch):
            world(live)
        extra -= batch
    return values, live


def _mean_se(xs: Sequence[float]) -> tuple[float, float]:
    n = len(xs)
    mean = sum(xs) / n
    se = math.sqrt(sum((x - mean) ** 2 for x in xs) / (n - 1) / n) if n > 1 else 0.0
    return mean, se


def _paired_loss(
    values: Sequence[list[float]], live: Sequence[int], signed: bool = False
) -> tuple[float, float, int]:
    """The loss of the move played (index 0) to the best live alternative,
    the standard error of their paired difference, and that alternative.
    The loss is at least 0; ``signed``: a move played that is ahead of the
    alternative has a negative loss (by how much it is ahead)."""
    n = len(values[0])
    alts = [i for i in live if i != 0]
    best = max(alts, key=lambda i: (sum(values[i]) / n, -i))
    d, se = _mean_se([a - b for a, b in zip(values[0], values[best], strict=True)])
    return (-d if signed else max(0.0, -d)), se, best


def _contenders(values: Sequence[list[float]], live: Sequence[int]) -> list[int]:
    """The move played and the live alternatives not clearly worse than the
    best one (at most :data:`CONTENDERS`); all of them have every world."""
    n = len(values[0])
    alts = sorted((i for i in live if i != 0), key=lambda i: (-sum(values[i]) / n, i))
    if not alts:
        return [0]
    best = alts[0]
    keep = [best]
    for i in alts[1:]:
        gap, se = _mean_se([a - b for a, b in zip(values[best], values[i], strict=True)])
        if gap <= 2 * se and len(keep) < CONTENDERS:
            keep.append(i)
    return [0, *sorted(keep)]


def _allowing(sample: Callable[[], State | None], seat: int, cands: Sequence[int]) -> State | None:
    """A sampled world in which every candidate is legal, or ``None``."""
    for _ in range(WORLD_TRIES):
        world = sample()
        if world is not None:
            legal = set(world.legal_action_ids(seat))
            if all(c in legal for c in cands):
                return world
    return None


def _judge(
    task: Task, game: Any, cands: Sequence[int], values: Sequence[list[float]], live: Sequence[int]
) -> Decision:
    n = len(values[0])
    played_text = game.action_from_id(task.played).to_text()
    if n == 0 or len(cands) < 2:
        return Decision(task.seat, task.number, int(task.view["round"]), played_text,
                        None, None, None, None, None, None, None, rated=False)  # fmt: skip
    means = [sum(v) / len(v) if v else -math.inf for v in values]
    loss, se, best = _paired_loss(values, live)
    d = means[0] - means[best]
    limits = thresholds(task.game, int(task.view["players"]))
    clear = loss > 2 * se and round(loss, 1) > 0
    mark = None
    if clear and loss >= limits.blunder:
        mark = "blunder"
    elif clear and loss >= limits.mistake:
        mark = "mistake"
    # The candidates played out in every world first (best first), then those
    # left out of the extra worlds (their estimates over the first worlds).
    ranked = sorted(range(len(cands)), key=lambda i: (i not in live, -means[i], i))
    return Decision(
        seat=task.seat,
        number=task.number,
        round=int(task.view["round"]),
        played=played_text,
        played_estimate=round(means[0], 3),
        best=game.action_from_id(cands[best]).to_text(),
        best_estimate=round(means[best], 3),
        difference=round(d, 3),
        loss=round(loss, 3),
        error=round(se, 3),
        mark=mark,
        better=clear,
        worlds=n,
        candidates=[
            {
                "action": game.action_from_id(cands[i]).to_text(),
                "estimate": round(means[i], 3),
                "worlds": len(values[i]),
            }
            for i in ranked
        ],
    )


def _playout(world: State, task: Task, first: int, seed: int, horizon: int) -> float:
    """Play ``first`` for the reviewed seat, then medium for every seat, until
    the horizon; the seat's utility."""
    me = task.seat
    world.apply_id(me, first)
    if task.game == "scout":
        assert isinstance(world, ScoutState)
        points = scout.play_out(world)
    else:
        points = _schmaus_playout(world, task, seed, int(task.view["round"]) + horizon - 1)
    others = [p for s, p in enumerate(points) if s != me]
    return float(points[me] - sum(others) / len(others))


def _schmaus_playout(world: State, task: Task, seed: int, end_round: int) -> list[int]:
    """The built-in medium bot plays every seat to the end of ``end_round``;
    the totals (W-14)."""
    bots: dict[int, Bot] = {}
    while not world.is_over() and _round(world) <= end_round:
        for seat in world.to_move():
            if seat not in world.to_move():
                continue
            bot = bots.get(seat)
            if bot is None:
                bot = bots[seat] = make_bot(task.game, "medium", seat, seed)
            world.apply_id(seat, bot.choose(world.view(seat), world.legal_action_ids(seat)))
            if world.is_over():
                break
    return list(world.view(None)["scores"])


def _round(world: State) -> int:
    return int(world.view(None, log=False)["round"])


def _scout_candidates(task: Task) -> list[int]:
    """The move played, then one move per other resulting position among
    medium's :data:`ALTERNATIVES` best distinct moves and the moves the default
    hard version searches at this table (:meth:`HardBot.candidate_actions`:
    medium's best plus the scouts that build a long set, wider with five
    players; a kept candidate that is not the default changes no review); in
    the flip decision (S-5) the other choice."""
    pos = scout.Position.from_view(task.view)
    others = [a for a in task.legal if a != task.played]
    if pos.phase == "flip":
        return [task.played, *others]
    proposed = [*scout.candidate_moves(pos, task.legal, ALTERNATIVES + 1), *_hard_scout_proposals(task, pos)]
    # A move that leaves the same hand and table as an earlier one is the same
    # candidate (distinct_moves keeps the first: the move played).
    unique = scout.distinct_moves(pos, [task.played, *proposed])
    return [task.played, *(unique[1:] or others[:1])]


def _hard_scout_proposals(task: Task, pos: scout.Position) -> list[int]:
    """The moves the default hard bot searches at this table (medium's best
    and the long-set scouts)."""
    hard = make_bot("scout", "hard", task.seat, 0)
    return hard.candidate_actions(pos, task.legal) if isinstance(hard, scout.HardBot) else []


def _scout_world(task: Task, rng: random.Random) -> State:
    return scout.sample_world(scout.Position.from_view(task.view), task.pool, rng)


def _schmaus_candidates(task: Task) -> list[int] | None:
    """The move played and the others to compare: in the lay, medium's best
    other lays; in the choices after the reveal, every other grocer target
    (W-9) or ×5 card (W-11). ``None`` for a discard (not rated)."""
    A = schmaus_actions
    view = task.view
    if view["phase"] == "target" and A.TARGET_BASE <= task.played < A.DISCARD_BASE:
        return [
            task.played,
            *(a for a in task.legal if a != task.played and A.TARGET_BASE <= a < A.DISCARD_BASE),
        ]
    if task.played >= A.TARGET_BASE or view["phase"] != "play":
        return None
    me = view["seat"]
    model = opponent_model(view, random.Random(task.key + "/model"))
    lays = [a for a in task.legal if a < A.TARGET_BASE and a != task.played]
    lays.sort(key=lambda a: (-model.gain(a), a))
    hard = make_bot("schmaus", "hard", me, random.Random(task.key + "/hard").randrange(1 << 30))
    lay = hard.choose(view, list(task.legal))
    chosen = lays[:ALTERNATIVES]
    return [task.played, *chosen, *([lay] if lay in lays and lay not in chosen else [])]


def _schmaus_world(task: Task, rng: random.Random) -> State | None:
    """The round's table with the unseen cards dealt at random: each opponent
    gets its hand (and its sealed lay, if it has laid already: it lays again in
    the playout, without knowing this seat's lay either way), the rest is the
    draw pile. After the reveal (grocer and ×5 choices) every seat holds its
    revealed lay too and lays it again, which brings the table to the same
    choices; the other choosers choose again in the playout."""
    view = task.view
    me, n = view["seat"], view["players"]
    revealed: list[list[str]] = view["revealed"] if view["phase"] == "target" else [[] for _ in range(n)]
    counts = unseen_counts(view)
    pool = [k for k in range(12) for _ in range(counts[k])]
    rng.shuffle(pool)
    hands: list[list[int]] = []
    k = 0
    for s in range(n):
        laid = _kinds(counts_of(revealed[s]))
        if s == me:
            hands.append(_kinds(counts_of(view["hand"])) + laid)
            continue
        size = view["hand_sizes"][s]
        if view["phase"] == "play" and view["committed"][s]:
            size += 3
        hands.append(pool[k : k + size] + laid)
        k += size
    discard = _kinds(counts_of(view["discard"]))
    try:
        world = SchmausState.from_position(
            n, hands, pool[k:], discard, options=view["options"], scores=view["scores"],
            round=view["round"], rounds=view["rounds"],
        )  # fmt: skip
        if view["phase"] == "target":
            for s in range(n):
                world.apply(s, "play " + (" ".join(revealed[s]) or "-"))
    except RulesError:
        return None
    return world


def _kinds(counts: Sequence[int]) -> list[int]:
    return [c for c in range(12) for _ in range(counts[c])]


# -- the whole review -----------------------------------------------------------------


def summarize(decisions: Sequence[Decision], seats: Iterable[int]) -> list[Summary]:
    out = []
    for seat in seats:
        mine = [d for d in decisions if d.seat == seat]
        rated = [d for d in mine if d.rated and d.loss is not None]
        losses = [d.loss or 0.0 for d in rated]
        lost = [d for d in rated if d.better]  # a loss within the noise is no loss to list
        biggest = sorted(lost, key=lambda d: (-(d.loss or 0), d.number))[:3]
        out.append(
            Summary(
                seat=seat,
                decisions=len(mine),
                rated=len(rated),
                accuracy=round(sum(losses) / len(losses), 3) if losses else 0.0,
                mistakes=sum(d.mark == "mistake" for d in rated),
                blunders=sum(d.mark == "blunder" for d in rated),
                biggest=[d.number for d in biggest],
            )
        )
    return out


def review(
    start: State,
    actions: Sequence[tuple[int, str]],
    seed: int,
    seats: Sequence[int] | None = None,
    budget: ReviewBudget | None = None,
    workers: int = 1,
    advance: Callable[[int], None] = lambda _n: None,
    on_total: Callable[[int], None] = lambda _n: None,
) -> Review:
    """Review the decisions of ``seats`` (default: every seat) in the record
    ``start`` + ``actions``; ``workers`` processes (the result is the same
    for any number)."""
    budget = budget or ReviewBudget()
    if workers < 1:
        raise ReviewError(f"-j must be at least 1, not {workers}")
    all_seats = list(range(start.players))
    chosen = list(seats) if seats is not None else all_seats
    for s in chosen:
        if s not in all_seats:
            raise ReviewError(f"seat {s} is not in this game: its seats are 0..{start.players - 1}")
    tasks = collect(start, actions, chosen, budget, seed)
    on_total(len(tasks))
    results: list[Decision | None] = [None] * len(tasks)
    if workers == 1 or len(tasks) <= 1:
        for i, t in enumerate(tasks):
            results[i] = rate(t)
            advance(1)
    else:
        with ProcessPoolExecutor(max_workers=workers) as pool:
            pending: dict[Future[Decision], int] = {pool.submit(rate, t): i for i, t in enumerate(tasks)}
            while pending:
                done, _ = wait(pending, return_when=FIRST_COMPLETED)
                for f in done:
                    results[pending.pop(f)] = f.result()
                    advance(1)
    return assemble(start, [d for d in results if d is not None], chosen, budget, seed)


def assemble(
    start: State, decisions: Sequence[Decision], seats: Sequence[int], budget: ReviewBudget, seed: int
) -> Review:
    """The review of ``seats`` from their rated decisions (in record order)."""
    limits = thresholds(start.game.name, start.players)
    return Review(
        game=start.game.name,
        players=start.players,
        seed=seed,
        budget=str(budget),
        utility=UTILITY[start.game.name],
        thresholds={"mistake": limits.mistake, "blunder": limits.blunder},
        decisions=list(decisions),
        summary=summarize(decisions, seats),
    )
