"""OpenSpiel games: importing this module registers ``python_spieltisch_scout`` and
``python_spieltisch_schmaus`` with ``pyspiel.register_game`` (docs/rl.md).

>>> import pyspiel, spieltisch.rl.envs.openspiel
>>> game = pyspiel.load_game("python_spieltisch_scout", {"players": 3})
>>> state = game.new_initial_state()
>>> state.is_chance_node(), len(state.chance_outcomes())  # the first card: 36 cards, either way up
(True, 72)

* Actions are the learning ids of :mod:`spieltisch.rl` (Scout 1,405, the scout
  & show as two decisions; Waschbär-Schmaus 183).
* Chance: a chance node per random card (:mod:`spieltisch.rl.envs.chance`). Scout
  deals each round card by card (outcome = the oriented card
  ``top * 11 + bottom``, uniform over the cards not dealt yet, either way up,
  S-1, S-2, S-16). In Waschbär-Schmaus every card that enters a hand is one:
  the deal (W-3) and every draw during play (W-5, W-6, W-15, refill), outcome
  = the card kind 0..11 with probability ``count / size`` of the draw pile; a
  reshuffle (W-17) turns the discards into that pile. A decision that makes
  cards be drawn (the last lay of a round, say) is followed by the chance nodes
  of those cards before the next decision. A state reached this way equals the
  engine's state for the corresponding deal (:func:`spieltisch.rl.envs.chance.record_game`
  turns an engine game into that chance history; tested).
* Sealed simultaneous decisions (Scout's flips, Waschbär-Schmaus' lays,
  grocer / ×5 choices, discards) are **turn-based with hidden commits**: the
  seats decide one after another in seat order, and no seat's observation or
  information state shows what another committed before the reveal.
* Utilities are the final game totals (general sum); no intermediate rewards.
* Parameters: ``players`` and the games' rule options (:data:`PARAMETERS`;
  Waschbär-Schmaus' deck as ``deck_F1`` .. ``deck_GUARDIAN``, Scout's research
  options that shrink the game). ``rounds`` / ``hand_size`` 0 mean the rules'
  count for the player number. :data:`MINI` holds each game's mini variant
  for exact game-theory methods (docs/rl.md, "Mini variants").
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

import numpy as np
import pyspiel

from spieltisch.engine import OptionsError, get_game
from spieltisch.engine.schmaus.cards import DECK
from spieltisch.rl.envs.chance import (
    SCHMAUS_OUTCOMES,
    SCOUT_OUTCOMES,
    ChanceQueue,
    ChanceSchmaus,
    ChanceScout,
    Distribution,
    NeedChance,
    outcome_text,
)
from spieltisch.rl.envs.frame import make_episode
from spieltisch.rl.episode import Episode
from spieltisch.rl.scout.episode import ScoutEpisode

PLAYERS_DEFAULT = 4

PARAMETERS: dict[str, dict[str, int | str]] = {
    "scout": {"players": PLAYERS_DEFAULT, "numbers": 10, "hand_size": 0, "rounds": 0, "scout_chips": 3},
    "schmaus": {
        "players": PLAYERS_DEFAULT,
        "rounds": 0,
        "short_hand": "draw-until-playable",
        "hunter_draw": "everybody",
        "hand_size": 7,
        "loser_draws": 2,
        "hand_limit": 12,
        "refill_to": 0,
        **{f"deck_{card}": count for card, count in DECK.items()},
    },
}
"""Each game's OpenSpiel parameters and their defaults (the rules' game). ``rounds`` and
Scout's ``hand_size`` 0: the rules' count for the player number (S-2, W-2)."""

MINI: dict[str, dict[str, int | str]] = {
    "scout": {"players": 2, "numbers": 4, "hand_size": 2, "rounds": 1, "scout_chips": 0},
    "schmaus": {
        "players": 2,
        "rounds": 1,
        "hand_size": 4,
        "short_hand": "play-what-you-can",
        "loser_draws": 0,
        **{f"deck_{card}": 0 for card in DECK},
        "deck_F1": 3,
        "deck_F3": 2,
        "deck_X5": 1,
        "deck_GROCER": 1,
        "deck_GUARDIAN": 1,
    },
}
"""Each game's mini variant (docs/rl.md, "Mini variants"): 2 players, one round, short
hands and few cards, small enough for OpenSpiel's exact best response and CFR."""


def rule_options(game: str, params: Mapping[str, Any]) -> dict[str, Any]:
    """The engine's rule options for OpenSpiel ``params`` (``players`` and the defaults left out)."""
    name = get_game(game).name
    spec = PARAMETERS[name]
    options: dict[str, Any] = {}
    deck: dict[str, int] = {}
    for key, value in params.items():
        if key not in spec:
            raise ValueError(
                f"unknown parameter {key!r} for python_spieltisch_{name}; known: {', '.join(spec)}"
            )
        if key == "players" or value == spec[key]:
            continue
        if key.startswith("deck_"):
            deck[key.removeprefix("deck_")] = value
        else:
            options[key] = value
    if deck:
        options["deck"] = deck
    return options


def _utility_bounds(game: str, players: int, rounds: int) -> tuple[float, float, int]:
    """Bounds on a final total and on the game's length (for ``GameInfo``)."""
    if game == "scout":
        return -45.0 * rounds, 90.0 * rounds, 3000 * rounds
    best = ((5 + 5 + 4 * 5) << 2) + 3  # F5 F5 ×5 on F5, doubled by both ×2 raccoons, + base (W-11, W-12)
    return 0.0, float(rounds * players * best), rounds * 40 * players


def _game_type(game: str) -> pyspiel.GameType:
    g = get_game(game)
    return pyspiel.GameType(
        short_name=f"python_spieltisch_{g.name}",
        long_name=f"Spieltisch {g.title}",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=pyspiel.GameType.Utility.GENERAL_SUM,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=g.max_players,
        min_num_players=g.min_players,
        provides_information_state_string=True,
        provides_information_state_tensor=True,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification=dict(PARAMETERS[g.name]),
    )


class _Game(pyspiel.Game):
    name: str

    def __init__(self, params: Mapping[str, Any] | None = None) -> None:
        params = {**PARAMETERS[self.name], **(params or {})}
        players = int(params["players"])
        g = get_game(self.name)
        if not g.min_players <= players <= g.max_players:
            raise ValueError(f"{g.title} is for {g.min_players} to {g.max_players} players, not {players}")
        options = rule_options(self.name, params)
        try:
            template = (ChanceScout if self.name == "scout" else ChanceSchmaus).new(players, 0, options)
            if isinstance(template, ChanceSchmaus):
                ChanceSchmaus.dealt_by_chance(players, ChanceQueue(), options, template)
        except NeedChance:
            pass  # the options can be dealt by chance
        except (OptionsError, ValueError) as exc:
            raise ValueError(f"python_spieltisch_{self.name}: {exc}") from None
        self.players = players
        self.options = options
        self.template: ChanceScout | ChanceSchmaus = template
        low, high, length = _utility_bounds(self.name, players, template.rounds)
        probe = make_episode(self.name, players, 0, options)
        self.tensor_sizes = (probe.obs_size, probe.info_size, probe.full_size)
        self._first: Distribution | None = None
        info = pyspiel.GameInfo(
            num_distinct_actions=probe.num_actions,
            max_chance_outcomes=SCOUT_OUTCOMES if self.name == "scout" else SCHMAUS_OUTCOMES,
            num_players=players,
            min_utility=low,
            max_utility=high,
            utility_sum=None,
            max_game_length=length,
        )
        super().__init__(_game_type(self.name), info, params)

    def new_initial_state(self) -> _State:
        return _State(self)

    def deal(self, outcomes: list[int]) -> Episode:
        """The episode after the first deal's ``outcomes`` (:class:`NeedChance` when more are needed)."""
        queue = ChanceQueue(outcomes)
        if isinstance(self.template, ChanceScout):
            state: ChanceScout | ChanceSchmaus = ChanceScout.dealt_by_chance(
                self.players, queue, self.template
            )
        else:
            state = ChanceSchmaus.dealt_by_chance(self.players, queue, template=self.template)
        return make_episode(self.name, self.players, 0, self.options, state=state)

    def first_outcomes(self) -> Distribution:
        """The chance outcomes of the first card (the same in every game)."""
        if self._first is None:
            try:
                self.deal([])
            except NeedChance as need:
                self._first = need.distribution
        assert self._first is not None
        return list(self._first)

    def make_py_observer(
        self, iig_obs_type: pyspiel.IIGObservationType | None = None, params: Mapping[str, Any] | None = None
    ) -> _Observer:
        if params:
            raise ValueError(f"observation parameters are not supported; got {dict(params)}")
        return _Observer(self, _observer_kind(iig_obs_type))


class ScoutGame(_Game):
    """Scout for 2-5 players (parameters ``players`` and Scout's research options)."""

    name = "scout"


class SchmausGame(_Game):
    """Waschbär-Schmaus for 2-5 players (parameters ``players`` and the rule options)."""

    name = "schmaus"


DEAL = -1
"""The seat of the pending "step" that deals the first hands."""


def _chance_state(episode: Episode) -> ChanceScout | ChanceSchmaus:
    state = episode.state
    assert isinstance(state, ChanceScout | ChanceSchmaus)
    return state


class _State(pyspiel.State):
    """``episode`` is the last complete position; a decision that needs chance
    cards stays ``pending`` (with the outcomes chosen so far) until it has them all
    and is then applied to a copy of ``episode`` in one go, as the engine applies it."""

    def __init__(self, game: _Game) -> None:
        super().__init__(game)
        self.game_name = game.name
        self.players = game.players
        self.episode: Episode | None = None
        self.pending: tuple[int, int] | None = (DEAL, 0)
        self.outcomes: list[int] = []
        self.distribution: Distribution = game.first_outcomes()

    def _advance(self) -> None:
        assert self.pending is not None
        seat, action = self.pending
        queue = ChanceQueue(self.outcomes)
        try:
            if seat == DEAL:
                game = self.get_game()
                assert isinstance(game, _Game)
                episode = game.deal(self.outcomes)
            else:
                assert self.episode is not None
                episode = self.episode.clone()
                _chance_state(episode).chance = queue
                episode.step(seat, action)
        except NeedChance as need:
            self.distribution = need.distribution
            return
        _chance_state(episode).chance = ChanceQueue()
        self.episode, self.pending, self.outcomes, self.distribution = episode, None, [], []

    def current_player(self) -> int:
        if self.pending is not None:
            return int(pyspiel.PlayerId.CHANCE)
        assert self.episode is not None
        if self.episode.is_over():
            return int(pyspiel.PlayerId.TERMINAL)
        return self.episode.to_move()[0]

    def _legal_actions(self, player: int) -> list[int]:
        assert self.episode is not None
        return self.episode.legal_ids(player)

    def chance_outcomes(self) -> Distribution:
        assert self.pending is not None
        return self.distribution

    def _apply_action(self, action: int) -> None:
        if self.pending is None:
            assert self.episode is not None
            self.pending = (self.episode.to_move()[0], int(action))
        else:
            self.outcomes.append(int(action))
        self._advance()

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            return outcome_text(self.game_name, int(action))
        if self.episode is None:
            return str(action)
        return self.episode.action_text(player, int(action))

    def is_terminal(self) -> bool:
        return self.pending is None and self.episode is not None and self.episode.is_over()

    def returns(self) -> list[float]:
        if not self.is_terminal():
            return [0.0] * self.players
        assert self.episode is not None
        return [float(x) for x in self.episode.scores()]

    def __str__(self) -> str:
        if self.episode is None:
            return f"{self.game_name} {self.players}p: dealing ({len(self.outcomes)} cards dealt)"
        text = self.episode.state.describe()
        if self.pending is not None:
            text += f" | seat {self.pending[0]} decided; {len(self.outcomes)} chance cards drawn so far"
        return text


def _observer_kind(iig: pyspiel.IIGObservationType | None) -> str:
    """Which tensor an observer type asks for (docs/rl.md, "OpenSpiel")."""
    if iig is None:
        return "observation"
    private = iig.private_info
    if private == pyspiel.PrivateInfoType.SINGLE_PLAYER:
        return "information_state" if iig.perfect_recall else "observation"
    if not iig.perfect_recall and iig.public_info:
        if private == pyspiel.PrivateInfoType.NONE:
            return "spectator"
        return "full_state"  # ALL_PLAYERS: every hand, for research
    raise ValueError(
        "observers: a seat's observation or information state, a spectator's observation "
        "(public only) or the full state (all players' private information, no recall); "
        f"not {iig}"
    )


class _Observer:
    """Tensors and strings of one player's view (PyObserver protocol): the seat's
    observation or information state, a spectator's observation, or the full state."""

    def __init__(self, game: _Game, kind: str) -> None:
        self.kind = kind
        size = {
            "observation": game.tensor_sizes[0],
            "information_state": game.tensor_sizes[1],
            "spectator": game.tensor_sizes[0],
            "full_state": game.tensor_sizes[2],
        }[kind]
        self.tensor = np.zeros(size, np.float32)
        self.dict = {"observation": self.tensor}

    def set_from(self, state: _State, player: int) -> None:
        episode = state.episode
        if episode is None:
            self.tensor.fill(0)
        elif self.kind == "observation":
            self.tensor[:] = episode.observe(player)
        elif self.kind == "information_state":
            self.tensor[:] = episode.information_state(player)
        elif self.kind == "spectator":
            self.tensor[:] = episode.spectator_tensor()
        else:
            self.tensor[:] = episode.full_state_tensor()

    def string_from(self, state: _State, player: int) -> str:
        episode = state.episode
        if episode is None:
            return f"dealing: {len(state.outcomes)} cards dealt"
        if self.kind == "full_state":
            return json.dumps(episode.state.to_json(), sort_keys=True, separators=(",", ":"))
        seat = None if self.kind == "spectator" else player
        view = episode.state.view(seat, log=self.kind == "information_state")
        pending = episode.pending if isinstance(episode, ScoutEpisode) else None
        if seat is not None and pending is not None and seat in episode.to_move():
            view = {**view, "pending_scout": episode.action_text(seat, pending)}
        return json.dumps(view, sort_keys=True, separators=(",", ":"))


pyspiel.register_game(_game_type("scout"), ScoutGame)
pyspiel.register_game(_game_type("schmaus"), SchmausGame)
