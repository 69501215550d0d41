"""Rule scenarios: hand-written positions, the actions played from them and what
the rules say must follow (format: ``shared/scenarios/FORMAT.md``, summarised
in ``docs/scenarios.md``).

A Scout scenario's position is played as the last round of a game, so the
position stays on the table after the round ends; a Waschbär-Schmaus full-form
scenario is a table at the start of round ``round`` of ``rounds``.

PROJECT extensions (they add keys and never change the meaning of a FORMAT key):

* seeded setup: ``setup`` with ``seed`` and no ``hands`` (nor ``plays``) deals a
  real game with the engine's shuffle (``options`` apply to Waschbär-Schmaus);
  ``skip_rounds: K`` first plays K whole rounds with a fixed filler policy
  (every seat to move plays its first legal action), e.g. to look at the deal
  and the start player of a later round;
* expectations for any setup: ``hand_sizes`` (per seat), ``rounds`` (of the
  game), ``round`` (1-based, the current one), ``game_over`` (bool),
  ``winners`` (the outcome's winners, ``null`` while the game goes on);
  Scout only: ``cards_held`` (card -> seat holding it, either way up; ``null``
  = in nobody's hand), ``start_player`` (the seat that makes the first turn of
  the current round), ``removed`` (the cards not in play this round, smaller
  number first: S-2's removed cards, and in a 2-player round 2 the cards of
  round 1), ``set_aside_size`` (S-2, two players), ``phase`` (``"flip"``,
  ``"play"``, ``"over"``) and ``totals``;
* ``setup_error: TEXT``: the setup must be refused (e.g. bad rule options) with
  a message containing TEXT.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from spieltisch.engine.core import RulesError, State
from spieltisch.engine.schmaus import cards as sc
from spieltisch.engine.schmaus import options as schmaus_options
from spieltisch.engine.schmaus.state import SchmausState, check_short_form
from spieltisch.engine.scout.cards import ALL_CARDS, card_text, identity, parse_card
from spieltisch.engine.scout.state import ScoutState


class ScenarioError(ValueError):
    """The scenario itself is malformed (not a rules failure)."""


@dataclass
class Result:
    source: str
    name: str
    rule: str
    ok: bool
    problems: list[str] = field(default_factory=list)
    error: bool = False


# -- loading ---------------------------------------------------------------------


def iter_files(paths: Iterable[str | Path]) -> Iterator[Path]:
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            yield from sorted(p for p in path.rglob("*.json") if p.is_file())
        else:
            yield path


def load(path: Path) -> list[tuple[str, Any]]:
    """``(label, scenario)`` pairs of a file; raises :class:`ScenarioError`."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ScenarioError(f"{path}: no such file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ScenarioError(f"{path}: cannot read: {exc}") from None
    except json.JSONDecodeError as exc:
        raise ScenarioError(f"{path}: bad JSON at line {exc.lineno} column {exc.colno}: {exc.msg}") from None
    except RecursionError:
        raise ScenarioError(f"{path}: bad JSON: nested too deeply") from None
    items = data if isinstance(data, list) else [data]
    return [(f"{path}#{i + 1}", item) for i, item in enumerate(items)]


def run_paths(paths: Iterable[str | Path]) -> list[Result]:
    results: list[Result] = []
    for path in iter_files(paths):
        try:
            items = load(path)
        except ScenarioError as exc:
            results.append(Result(str(path), "(file)", "", False, [str(exc)], error=True))
            continue
        results.extend(run_scenario(item, label) for label, item in items)
    return results


# -- running ---------------------------------------------------------------------


def run_scenario(scenario: Any, source: str = "<scenario>") -> Result:
    name = scenario.get("name", "(unnamed)") if isinstance(scenario, Mapping) else "(unnamed)"
    rule = scenario.get("rule", "") if isinstance(scenario, Mapping) else ""
    try:
        if not isinstance(scenario, Mapping):
            raise ScenarioError("a scenario must be a JSON object")
        for key in ("game", "name", "setup"):
            if key not in scenario:
                raise ScenarioError(f"missing key {key!r}")
        game = scenario["game"]
        setup, steps, expect = scenario["setup"], scenario.get("steps", []), scenario.get("expect", {})
        if not isinstance(setup, Mapping) or not isinstance(expect, Mapping):
            raise ScenarioError("'setup' and 'expect' must be objects")
        if not isinstance(steps, list):
            raise ScenarioError("'steps' must be a list")
        if game not in ("scout", "schmaus"):
            raise ScenarioError(f"unknown game {game!r} (scout or schmaus)")
        refusal = expect.get("setup_error")
        if refusal is not None:
            return _expect_refused_setup(scenario, source, str(refusal))
        problems = _run_scout(setup, steps, expect) if game == "scout" else _run_schmaus(setup, steps, expect)
    except (ScenarioError, RulesError) as exc:
        return Result(source, str(name), str(rule), False, [f"malformed scenario: {exc}"], error=True)
    except Exception as exc:
        problem = f"the runner could not read this scenario ({type(exc).__name__}: {exc}); please report it"
        return Result(source, str(name), str(rule), False, [problem], error=True)
    return Result(source, str(name), str(rule), not problems, problems)


def _expect_refused_setup(scenario: Mapping[str, Any], source: str, text: str) -> Result:
    """PROJECT extension ``setup_error``: the setup must be refused with a
    message containing ``text`` (e.g. bad rule options)."""
    name, rule = str(scenario["name"]), str(scenario.get("rule", ""))
    setup = scenario["setup"]
    try:
        if scenario["game"] == "scout":
            _run_scout(setup, [], {})
        else:
            _run_schmaus(setup, [], {})
    except (ScenarioError, RulesError) as exc:
        if text in str(exc):
            return Result(source, name, rule, True)
        problem = f"setup_error: expected {text!r} in the refusal {str(exc)!r}"
        return Result(source, name, rule, False, [problem])
    return Result(source, name, rule, False, [f"setup_error: the setup should be refused ({text!r})"])


def _play_steps(state: State, steps: Sequence[Any], illegal: bool) -> list[str]:
    """Apply the steps; with ``illegal`` the last one must be refused."""
    for number, step in enumerate(steps, 1):
        if not isinstance(step, Mapping) or "player" not in step or "action" not in step:
            raise ScenarioError(f"step {number} needs 'player' and 'action'")
        seat = step["player"]
        if not _is_whole(seat) or not 0 <= seat < state.players:
            raise ScenarioError(f"step {number}: no seat {seat!r}")
        last = number == len(steps)
        try:
            action = state.game.parse_action(step["action"])
        except RulesError as exc:  # a typo must not pass as the expected refusal
            raise ScenarioError(f"step {number}: {exc}") from None
        if illegal and last:
            before = state.to_json()
            try:
                state.apply(seat, action)
            except RulesError:
                if state.to_json() != before:
                    return [f"step {number} was refused but the state changed"]
                return []
            return [f"step {number} ({step['action']}) should be refused but was accepted"]
        try:
            state.apply(seat, action)
        except RulesError as exc:
            return [f"step {number} ({step['action']}) was refused: {exc}"]
    if illegal and not steps:
        raise ScenarioError("'illegal' needs at least one step")
    return []


def _compare(problems: list[str], key: str, expected: Any, actual: Any) -> None:
    if expected != actual:
        problems.append(f"{key}: expected {json.dumps(expected)}, got {json.dumps(actual)}")


def _list(value: Any, what: str, players: int | None = None) -> list[Any]:
    if not isinstance(value, list) or (players is not None and len(value) != players):
        want = f"a list of {players}" if players is not None else "a list"
        raise ScenarioError(f"{what} must be {want}, got {value!r}")
    return value


def _is_whole(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _counts(value: Any, what: str, players: int, flags: bool = False) -> list[int] | None:
    """``None`` or one whole number >= 0 per seat (``flags``: or true/false, as
    the FORMAT writes 3-5 player Scout chips)."""
    if value is None:
        return None
    values = _list(value, what, players)
    if flags and all(isinstance(v, bool) for v in values):
        return [int(v) for v in values]
    if not all(_is_whole(v) and v >= 0 for v in values):
        kind = "true/false or whole numbers >= 0" if flags else "whole numbers >= 0"
        raise ScenarioError(f"{what} must hold {kind}, got {value!r}")
    return values


def _players(setup: Mapping[str, Any]) -> int:
    n = setup.get("players")
    if not isinstance(n, int) or isinstance(n, bool) or not 2 <= n <= 5:
        raise ScenarioError(f"'players' must be 2 to 5, got {n!r}")
    return n


def _mover(state: State, preferred: Any) -> int:
    movers = state.to_move()
    if preferred in movers:
        return int(preferred)
    if not movers:
        raise ScenarioError("legal_includes/legal_excludes: nobody is to move")
    return movers[0]


def _check_legal(problems: list[str], state: State, expect: Mapping[str, Any], seat: int) -> None:
    for key, want in (("legal_includes", True), ("legal_excludes", False)):
        for action in _list(expect.get(key, []), key):
            try:
                legal = state.is_legal(seat, state.game.parse_action(action))
            except RulesError:
                legal = False
            if legal != want:
                verdict = "illegal" if want else "legal"
                problems.append(f"{key}: {json.dumps(action)} is {verdict} for seat {seat}")


# -- Scout -------------------------------------------------------------------------


def _scout_cards(values: Any, what: str) -> list[int]:
    return [parse_card(c) for c in _list(values, what)]


def _seeded(setup: Mapping[str, Any]) -> int | None:
    """The seed of a PROJECT seeded setup (a real deal), or ``None``."""
    if "seed" not in setup or "hands" in setup or "plays" in setup:
        return None
    seed = setup["seed"]
    if not isinstance(seed, int) or isinstance(seed, bool):
        raise ScenarioError(f"'seed' must be a whole number, got {seed!r}")
    return seed


def _skip_rounds(state: State, setup: Mapping[str, Any]) -> None:
    """PROJECT extension ``skip_rounds``: play K whole rounds with a fixed filler
    policy (each seat to move plays its first legal action)."""
    k = setup.get("skip_rounds", 0)
    if not isinstance(k, int) or isinstance(k, bool) or k < 0:
        raise ScenarioError(f"'skip_rounds' must be a whole number >= 0, got {k!r}")
    results: list[Any] = state.results  # type: ignore[attr-defined]
    target = len(results) + k
    while len(results) < target and not state.is_over():
        seat = state.to_move()[0]
        state.apply_id(seat, state.legal_action_ids(seat)[0])


def _project_keys(problems: list[str], state: State, expect: Mapping[str, Any]) -> None:
    """PROJECT expectation keys shared by both games."""
    public = state.view(None, log=False)
    for key in ("hand_sizes", "rounds", "round"):
        if key in expect:
            _compare(problems, key, expect[key], public[key])
    if "game_over" in expect:
        _compare(problems, "game_over", expect["game_over"], state.is_over())
    if "winners" in expect:
        outcome = state.outcome()
        _compare(problems, "winners", expect["winners"], None if outcome is None else list(outcome.winners))


GameKeys = Callable[[list[str], Mapping[str, Any], Mapping[str, Any] | None], None]
"""A game's own expectation keys: ``(problems, the state's JSON after the steps,
the round result the steps finished or None)``."""


def _expect(
    state: ScoutState | SchmausState,
    steps: Sequence[Any],
    expect: Mapping[str, Any],
    mover: int | None,
    keys: GameKeys,
    after: Callable[[list[str]], None] | None = None,
) -> list[str]:
    """Play ``steps``, then check ``expect``: the game's own ``keys``, the legal
    moves, the keys both games share, and ``after`` (more of the game's own)."""
    done = len(state.results)
    problems = _play_steps(state, steps, bool(expect.get("illegal")))
    if problems or expect.get("illegal"):
        return problems
    keys(problems, state.to_json(), state.results[-1] if len(state.results) > done else None)
    if "legal_includes" in expect or "legal_excludes" in expect:
        _check_legal(problems, state, expect, _mover(state, mover))
    _project_keys(problems, state, expect)
    if after is not None:
        after(problems)
    return problems


def position(game: str, setup: Mapping[str, Any]) -> State:
    """The state a full-form (or seeded) scenario ``setup`` describes, before its steps.

    Raises :class:`ScenarioError` (or the engine's ``RulesError``) for a setup the
    rules refuse. Also the base of the web table's guided lessons (``spieltisch.tutorial``).
    """
    if game == "scout":
        return _scout_position(setup)
    if game == "schmaus":
        if "plays" in setup:
            raise ScenarioError("a short-form setup ('plays') is one round's lays, not a position")
        return _schmaus_position(setup)
    raise ScenarioError(f"unknown game {game!r} (scout or schmaus)")


def _run_scout(setup: Mapping[str, Any], steps: Sequence[Any], expect: Mapping[str, Any]) -> list[str]:
    state = _scout_position(setup)
    mover = None if _seeded(setup) is not None else _mover(state, setup.get("to_move"))
    return _expect_scout(state, steps, expect, mover)


def _scout_position(setup: Mapping[str, Any]) -> ScoutState:
    n = _players(setup)
    ScoutState.game.normalize_options(setup.get("options"))  # Scout has none: refuse any
    seed = _seeded(setup)
    if seed is not None:
        state = ScoutState.new(n, seed)
        _skip_rounds(state, setup)
        return state
    hands = [_scout_cards(h, "a hand") for h in _list(setup.get("hands"), "'hands'", n)]
    table_spec = setup.get("table")
    table: list[int] = []
    owner = None
    if table_spec is not None:
        if not isinstance(table_spec, Mapping):
            raise ScenarioError("'table' must be null or {owner, cards}")
        table = _scout_cards(table_spec.get("cards"), "table cards")
        owner = table_spec.get("owner")
    seen = Counter(identity(c) for c in [c for h in hands for c in h] + table)
    dupes = [f"{c // 11}/{c % 11}" for c, k in seen.items() if k > 1]
    if dupes:
        raise ScenarioError(f"duplicate card(s) {', '.join(dupes)}: every card exists once (S-1)")
    if table and not (_is_whole(owner) and 0 <= int(owner) < n):  # type: ignore[arg-type]
        raise ScenarioError(f"the table's 'owner' must be a seat 0..{n - 1}, got {owner!r}")
    to_move = setup.get("to_move", 0)
    if not _is_whole(to_move) or not 0 <= to_move < n:
        raise ScenarioError(f"'to_move' must be a seat 0..{n - 1}, got {to_move!r}")
    phase = setup.get("phase", "play")
    if phase not in ("play", "flip"):
        raise ScenarioError(f'\'phase\' must be "play" or "flip", got {phase!r}')
    counters = {
        key: _counts(setup.get(key), f"'{key}'", n, key == "chips" and n > 2)
        for key in ("chips", "collected", "tokens")
    }
    return ScoutState.from_position(
        players=n,
        hands=hands,
        table=table,
        owner=owner,
        to_move=to_move,
        phase=phase,
        chips=counters["chips"],
        collected=counters["collected"],
        tokens=counters["tokens"],
    )


def _expect_scout(
    state: ScoutState, steps: Sequence[Any], expect: Mapping[str, Any], mover: int | None
) -> list[str]:
    n = state.players

    def keys(problems: list[str], data: Mapping[str, Any], last: Mapping[str, Any] | None) -> None:
        if "hands" in expect:
            _compare(problems, "hands", expect["hands"], data["hands"])
        if "table" in expect:
            table_now = {"owner": data["owner"], "cards": data["table"]} if data["table"] else None
            _compare(problems, "table", expect["table"], table_now)
        if "to_move" in expect:
            movers = state.to_move()
            _compare(problems, "to_move", expect["to_move"], movers[0] if len(movers) == 1 else list(movers))
        if "chips" in expect:
            chips_now: list[Any] = list(state.chips) if n == 2 else [bool(c) for c in state.chips]
            _compare(problems, "chips", expect["chips"], chips_now)
        for key in ("collected", "tokens"):
            if key in expect:
                _compare(problems, key, expect[key], data[key])
        if "round_over" in expect:
            _compare(problems, "round_over", expect["round_over"], last is not None)
        if "ended_by" in expect:
            _compare(problems, "ended_by", expect["ended_by"], last and last["ended_by"])
        if "round_points" in expect:
            _compare(problems, "round_points", expect["round_points"], last and last["points"])

    return _expect(
        state, steps, expect, mover, keys, lambda problems: _scout_project_keys(problems, state, expect)
    )


def _scout_project_keys(problems: list[str], state: ScoutState, expect: Mapping[str, Any]) -> None:
    """PROJECT expectation keys of Scout (see the module docstring)."""
    if "start_player" in expect:
        start = (state.first_start + state.round) % state.players  # S-3, S-4
        _compare(problems, "start_player", expect["start_player"], start)
    if "removed" in expect:
        present = set(state.card_locations())
        removed = [card_text(c) for c in ALL_CARDS if c not in present]
        _compare(problems, "removed", expect["removed"], removed)
    if "set_aside_size" in expect:
        _compare(problems, "set_aside_size", expect["set_aside_size"], len(state.set_aside))
    if "phase" in expect:
        _compare(problems, "phase", expect["phase"], state.phase)
    if "totals" in expect:
        _compare(problems, "totals", expect["totals"], list(state.totals))
    if "cards_held" in expect:
        held = expect["cards_held"]
        if not isinstance(held, Mapping):
            raise ScenarioError("'cards_held' must map cards to seats")
        for text, seat in held.items():
            c = identity(parse_card(text))
            actual = next((s for s, h in enumerate(state.hands) if c in map(identity, h)), None)
            _compare(problems, f"cards_held[{text}]", seat, actual)


# -- Waschbär-Schmaus ------------------------------------------------------------


def _schmaus_cards(values: Any, what: str) -> list[int]:
    return [sc.parse_card(c) for c in _list(values, what)]


def _check_deck(options: Mapping[str, Any], groups: Iterable[Sequence[int]]) -> None:
    counts = Counter(c for g in groups for c in g)
    deck = schmaus_options.deck_counts(options)
    over = [f"{counts[k]} × {sc.IDS[k]} (the deck has {deck[k]})" for k in counts if counts[k] > deck[k]]
    if over:
        raise ScenarioError(f"more cards than the deck holds: {', '.join(over)}")


def _round_keys(problems: list[str], expect: Mapping[str, Any], result: Mapping[str, Any] | None) -> None:
    for key in ("individual", "pot", "awarded", "lowest"):
        if key in expect:
            actual = None if result is None else result[key]
            if key == "lowest" and actual is not None:
                _compare(problems, key, sorted(expect[key]), sorted(actual))
            else:
                _compare(problems, key, expect[key], actual)


def _run_schmaus(setup: Mapping[str, Any], steps: Sequence[Any], expect: Mapping[str, Any]) -> list[str]:
    if "plays" in setup:
        n = _players(setup)
        return _run_schmaus_short(n, schmaus_options.normalize_options(setup.get("options")), setup, expect)
    return _expect_schmaus(_schmaus_position(setup), steps, expect)


def _schmaus_position(setup: Mapping[str, Any]) -> SchmausState:
    n = _players(setup)
    options = schmaus_options.normalize_options(setup.get("options"))
    seed = _seeded(setup)
    if seed is not None:
        state = SchmausState.new(n, seed, options)
        _skip_rounds(state, setup)
        return state
    hands = [_schmaus_cards(h, "a hand") for h in _list(setup.get("hands"), "'hands'", n)]
    draw = _schmaus_cards(setup.get("draw_pile", []), "'draw_pile'")
    discard = _schmaus_cards(setup.get("discard", []), "'discard'")
    _check_deck(options, [*hands, draw, discard])
    scores = setup.get("scores")
    if scores is not None and not all(_is_whole(x) for x in _list(scores, "'scores'", n)):
        raise ScenarioError(f"'scores' must hold whole numbers, got {scores!r}")
    for key in ("round", "rounds"):
        if key in setup and not _is_whole(setup[key]):
            raise ScenarioError(f"{key!r} must be a whole number, got {setup[key]!r}")
    return SchmausState.from_position(
        players=n,
        hands=hands,
        draw_pile=draw,
        discard=discard,
        options=options,
        scores=scores,
        round=setup.get("round", 1),
        rounds=setup.get("rounds"),
    )


def _expect_schmaus(state: SchmausState, steps: Sequence[Any], expect: Mapping[str, Any]) -> list[str]:
    n = state.players

    def keys(problems: list[str], data: Mapping[str, Any], last: Mapping[str, Any] | None) -> None:
        if "hands" in expect:
            want = [sorted(_schmaus_cards(h, "expected hand")) for h in _list(expect["hands"], "hands", n)]
            got = [sorted(sc.parse_card(c) for c in h) for h in data["hands"]]
            if want != got:
                problems.append(
                    f"hands: expected {[sc.texts(h) for h in want]}, got {[sc.texts(h) for h in got]}"
                )
        if "scores" in expect:
            _compare(problems, "scores", expect["scores"], data["scores"])
        if "draw_pile_size" in expect:
            _compare(problems, "draw_pile_size", expect["draw_pile_size"], len(data["draw_pile"]))
        if "discard_size" in expect:
            _compare(problems, "discard_size", expect["discard_size"], len(data["discard"]))
        if "phase" in expect:
            _compare(problems, "phase", expect["phase"], data["phase"])
        _round_keys(problems, expect, last)

    return _expect(state, steps, expect, None, keys)


def _run_schmaus_short(
    n: int, options: Mapping[str, Any], setup: Mapping[str, Any], expect: Mapping[str, Any]
) -> list[str]:
    plays = [tuple(sorted(_schmaus_cards(p, "a play"))) for p in _list(setup["plays"], "'plays'", n)]
    _check_deck(options, plays)
    targets = setup.get("targets") or [None] * n
    x5 = [None if k is None else sc.parse_card(k) for k in _list(setup.get("x5") or [None] * n, "'x5'", n)]
    targets = list(_list(targets, "'targets'", n))
    if not all(t is None or _is_whole(t) for t in targets):
        raise ScenarioError(f"'targets' must hold seats or null, got {targets!r}")
    grocer, times5 = sc.choices_needed(plays)
    for seat in range(n):
        if grocer[seat] and targets[seat] is None and n == 2:
            targets[seat] = 1 - seat  # W-9: forced with two players
        if times5[seat] and x5[seat] is None:  # FORMAT: the most valuable food card
            food = [k for k in plays[seat] if k < 5]
            x5[seat] = max(food) if food else None
        if grocer[seat] and targets[seat] is None and not expect.get("illegal"):
            raise ScenarioError(f"seat {seat}'s grocer needs a target in 'targets'")
    try:
        for seat in range(n):
            if not grocer[seat]:
                targets[seat] = None
            if not times5[seat]:
                x5[seat] = None
        check_short_form(plays, targets, x5)
    except RulesError as exc:
        if expect.get("illegal"):
            return []
        return [f"the round was refused: {exc}"]
    if expect.get("illegal"):
        return ["the round should be refused but was accepted"]
    result = sc.resolve(plays, targets, x5, options["hunter_draw"]).to_json()
    problems: list[str] = []
    _round_keys(problems, expect, result)
    return problems


# -- reporting --------------------------------------------------------------------


def report(results: Sequence[Result]) -> tuple[str, bool]:
    """Text for the terminal (failures in full) and whether all passed."""
    lines: list[str] = []
    for r in results:
        if r.ok:
            continue
        kind = "ERROR" if r.error else "FAIL"
        rule = f" [{r.rule}]" if r.rule else ""
        lines.append(f"{kind} {r.source}: {r.name}{rule}")
        lines.extend(f"    {p}" for p in r.problems)
    passed = sum(r.ok for r in results)
    failed = len(results) - passed
    lines.append(f"{passed} passed, {failed} failed")
    return "\n".join(lines), failed == 0
