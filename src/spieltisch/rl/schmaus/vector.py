"""Waschbär-Schmaus for learners at engine speed: B games in one batch with observations,
rewards and opponents inside it (docs/rl.md, "Batched learner environments"). Needs numba
(extra ``rl-fast``).

>>> env = SchmausVectorEnv(1024, players=4, seed=1)      # learner in seat 0, random opponents
>>> obs, mask = env.reset()                              # (1024, 143) float32, (1024, 183) bool
>>> obs, reward, terminated, truncated, mask = env.step(env.sample(np.random.default_rng(0)))

Each :meth:`SchmausVectorEnv.step` is one decision of a learner seat in every game (the
engine's ids, :mod:`spieltisch.rl.schmaus.obs`), in the AEC environment's order: the sealed
decisions (lays, grocer / ×5 choices, discards) are taken one seat at a time, the lowest seat
still to decide first, with hidden commits (a later seat sees who has committed, never what);
a seat that must discard two cards decides twice in a row. Then the opponents decide inside
the compiled kernel until a learner seat decides again. ``learners`` names the learner seats:
one seat (the default, seat 0) against opponents, several, or every seat (``learners="all"``,
self-play: the step returns the observation and mask of whichever seat decides next,
:attr:`SchmausVectorEnv.seat`).

* **Observations** are exactly :func:`spieltisch.rl.schmaus.obs.observation` of the deciding
  seat's view (bit for bit; tested against ``SchmausEpisode`` at 2–5 players), written by a
  numba kernel from the batched state.
* **Rewards** (B, P) float32: every seat's change of its game total over the step, so a
  seat's return is its final total (the learner's column is its reward).
* **Autoreset (same step):** a game that ends in a step (``terminated``) or reaches
  ``max_steps`` learner decisions (``truncated``) is dealt anew within the same step: the
  returned observation and mask are the new game's first learner decision, the step's reward
  still the old game's last points; :attr:`final_totals` and :attr:`final_obs` keep its final
  totals and the first learner's observation at its end. Every returned mask has a legal id
  (every round starts with every seat's lay, W-4), and no call is ever needed to reset a
  single game.
* **Opponents:** ``"random"``: a uniformly random legal id per decision (as the ``random``
  bot picks among the engine's ids, from the env's own random numbers). ``"easy"``:
  ``spieltisch.bots.schmaus`` easy's decisions, computed in the kernel from two uniform
  numbers per decision of the env's Generator (its ``rng.random()`` and, as ``int(u * n)``,
  its ``rng.randrange(n)``; ``_vector_kernels.easy_id``): the same decision as the bot given
  those draws (tested), not the same stream as the bot's own ``random.Random``. ``"medium"``:
  ``spieltisch.bots.schmaus`` medium's decisions (``_vector_kernels.medium_id``): its lay the
  best expected pot share against its opponent model of 32 hands sampled from the unseen cards
  (``OpponentModel``, ``medium_lay``), each hand drawn as ``random.Random.sample``'s list
  variant draws with ``randbelow(m)`` taken as ``int(u * m)`` from the env's Generator; its
  grocer target, ×5 card and discards (no draws) as the bot's. The same decision as the bot
  whose ``rng.sample`` returns those hands (tested), not the same stream as its own
  ``random.Random``. ``hard`` plays in the single-game environments
  (``gymnasium.make("spieltisch/Schmaus-v0")``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from spieltisch.bots.schmaus.model import (
    BASE_POINTS,
    EFFECT,
    FOOD_MAX,
    FOOD_SUM,
    KEEP_VALUE,
    SOLO,
    cost,
)
from spieltisch.engine import get_game
from spieltisch.engine.schmaus.cards import GARBAGE, X2, X3, X5
from spieltisch.engine.schmaus.cards import IDS as CARD_IDS
from spieltisch.engine.schmaus.cards import KIND as CARD_KIND
from spieltisch.rl._numba import kernels
from spieltisch.rl.schmaus import obs as schmaus_obs
from spieltisch.rl.schmaus.batched import KINDS, MAX_CARDS, engine_shuffler
from spieltisch.rl.schmaus.fast import FastSchmaus, _Source, _tables

KERNELS = "spieltisch.rl.schmaus._vector_kernels"
OPPONENTS = ("random", "easy", "medium")
MAX_STEPS = 10_000
"""Learner decisions after which a game is truncated (as the single-game environments)."""
ENGINE_RESHUFFLES = 12
"""W-17 reshuffles per game replayed exactly as the engine's with ``engine_seeds`` (tests)."""

Obs = npt.NDArray[np.float32]
Mask = npt.NDArray[np.bool_]


def _accumulated() -> npt.NDArray[np.float32]:
    """(3, 64): ``n`` cards counted with scale 1/12, 1/3 and 1/15, summed in float32 one card
    at a time as :func:`spieltisch.rl.schmaus.obs.observation` counts them."""
    out = np.zeros((3, 64), dtype=np.float32)
    for i, scale in enumerate((1 / 12, 1 / 3, 1 / 15)):
        acc = np.zeros(1, dtype=np.float32)
        for n in range(1, 64):
            acc[0] += scale
            out[i, n] = acc[0]
    return out


def _medium_tables(deck: npt.NDArray[np.int64]) -> tuple[npt.NDArray[Any], ...]:
    """The medium opponents' tables (``_vector_kernels.medium_id``), from
    ``spieltisch.bots.schmaus.model`` (so the floats are the bot's own): per lay (float64, 4
    rows) ``OpponentModel.gain``'s score ``mine``, the score ``mine / scale`` it is compared at,
    ``scale`` and the lay's ``cost``; (int64, 4 rows) its ``EFFECT``, ``FOOD_SUM``, ``FOOD_MAX``
    and ``BASE_POINTS``; the deck's counts per kind; ``KEEP_VALUE``."""
    lays = len(SOLO)
    mf = np.zeros((4, lays), dtype=np.float64)
    for a in range(lays):
        e = EFFECT[a]  # as OpponentModel.gain
        food = FOOD_SUM[a] * (3 if e == X3 else 1) + (4 * FOOD_MAX[a] if e == X5 else 0)
        scale = 2.0 if e == X2 else 0.5 if e == GARBAGE else 1.0
        mine = food * scale + BASE_POINTS[a]
        mf[:, a] = (mine, mine / scale, scale, cost(a))
    mi = np.array([EFFECT, FOOD_SUM, FOOD_MAX, BASE_POINTS], dtype=np.int64)
    counts = np.bincount(deck, minlength=len(KEEP_VALUE)).astype(np.int64)
    return mf, mi, counts, np.array(KEEP_VALUE, dtype=np.float64)


class SchmausVectorEnv:
    """``num_envs`` Waschbär-Schmaus games of ``players`` seats: learners in ``learners``, the
    others played by ``opponents`` inside the batch (see the module docs)."""

    def __init__(
        self,
        num_envs: int,
        players: int = 4,
        learners: int | Sequence[int] | str = 0,
        opponents: str = "random",
        seed: int = 0,
        max_steps: int | None = MAX_STEPS,
        engine_seeds: Sequence[int] | None = None,
        log: int = 0,
    ) -> None:
        """``engine_seeds`` (tests): every game of batch slot g is dealt as the reference engine
        deals the game of seed ``engine_seeds[g]`` and reshuffles as it does (its first
        :data:`ENGINE_RESHUFFLES` W-17 reshuffles), so ``SchmausEpisode`` can follow it;
        ``log``: keep the first ``log`` decisions of every slot, learners' and opponents', across
        autoresets, in :attr:`action_log`."""
        self._k = kernels(KERNELS)
        if opponents not in OPPONENTS:
            raise ValueError(
                f"opponents must be one of {list(OPPONENTS)} in the batched environment, not {opponents!r} "
                "(the built-in levels play in gymnasium.make('spieltisch/Schmaus-v0', opponents=...), or "
                "make_vec(..., vectorization_mode='sync'))"
            )
        if isinstance(num_envs, bool) or num_envs < 1:
            raise ValueError(f"num_envs must be a positive whole number, not {num_envs!r}")
        if not 2 <= players <= 5:
            raise ValueError(f"Waschbär-Schmaus takes 2 to 5 players, not {players!r}")
        if max_steps is not None and (isinstance(max_steps, bool) or max_steps < 1):
            raise ValueError(f"max_steps must be a positive whole number or None, not {max_steps!r}")
        if engine_seeds is not None and len(engine_seeds) != num_envs:
            raise ValueError(
                f"engine_seeds must name one seed per game ({num_envs}), not {len(engine_seeds)}"
            )
        self.engine = FastSchmaus(num_envs, players, seed=seed)
        self.num_envs, self.players = num_envs, players
        self.learners = _learners(learners, players)
        self.opponents = opponents
        self.max_steps = max_steps if max_steps is not None else np.iinfo(np.int64).max
        self._source = _Source(self.engine.rng)
        self._track = (
            np.zeros(num_envs, dtype=np.int64),
            np.zeros((num_envs, log), dtype=np.int64),
            np.zeros(num_envs, dtype=np.int64),
            self.engine.reshuffles,
        )
        self._fixed = _engine_deals(players, engine_seeds) if engine_seeds is not None else _no_deals(players)
        self._scratch = (
            np.zeros((num_envs, players), dtype=np.int64),
            np.zeros(players, dtype=np.int64),
            np.zeros(MAX_CARDS, dtype=np.int64),
            _tables()["deck"],
            np.zeros(MAX_CARDS, dtype=np.int64),
            np.zeros(MAX_CARDS, dtype=np.int64),
            np.zeros(64 + KINDS, dtype=np.int64),  # the medium kernel's score histogram and a hand
            np.zeros((1, 1), dtype=np.float64),
        )
        t = _tables()
        lays, peffect, pcounts = t["sample_tables"]
        solo = np.array(SOLO, dtype=np.int64)
        medium = _medium_tables(t["deck"])
        self._tb = (t["step_tables"], lays, peffect, pcounts, t["mask_tables"], _accumulated(), solo, medium)
        self._level = OPPONENTS.index(opponents)
        self._seat_mask = np.zeros(players, dtype=np.bool_)
        self._seat_mask[list(self.learners)] = True
        self.steps = np.zeros(num_envs, dtype=np.int64)
        """Learner decisions of each game so far (for ``max_steps``)."""
        self.final_totals = np.zeros((num_envs, players), dtype=np.int64)
        """The final totals of each slot's last ended (or truncated) game."""
        self.final_obs = np.zeros((num_envs, schmaus_obs.OBS_SIZE), dtype=np.float32)
        """The observation of the first learner seat at the end of each slot's last ended (or
        truncated) game (rows where the last step said ``terminated`` or ``truncated``)."""
        self._reward = np.zeros((num_envs, players), dtype=np.int64)
        self._done = np.zeros(num_envs, dtype=np.bool_)
        self._cut = np.zeros(num_envs, dtype=np.bool_)
        self._obs = np.zeros((num_envs, schmaus_obs.OBS_SIZE), dtype=np.float32)
        self._mask = np.zeros((num_envs, schmaus_obs.NUM_ACTIONS), dtype=np.bool_)
        self._seat = np.zeros(num_envs, dtype=np.int64)
        self._no_actions = np.zeros(num_envs, dtype=np.int64)
        self.observation_size, self.num_actions = schmaus_obs.OBS_SIZE, schmaus_obs.NUM_ACTIONS

    @property
    def action_log(self) -> list[list[int]]:
        """Per slot, the decisions applied so far (learners' and opponents', in order, across
        autoresets; at most ``log`` each, see ``__init__``): replay a slot's first game with
        ``spieltisch.rl.replay.replay_in_engine("schmaus", players, engine_seeds[g], log[g])``."""
        log, log_n = self._track[1], self._track[2]
        return [log[g, : log_n[g]].tolist() for g in range(self.num_envs)]

    @property
    def seat(self) -> npt.NDArray[np.int64]:
        """(B,): the (learner) seat whose observation and mask the last call returned."""
        return self._seat

    def _play(self, reset: bool, actions: npt.NDArray[np.int64]) -> None:
        bits = self._source.load()
        try:
            self._k.play(
                reset, actions, self.engine._state(), self._track, self._fixed, self._scratch, self._tb, bits,
                self._seat_mask, self.steps, self.max_steps, self._reward, self._done, self._cut,
                self.final_totals, self.final_obs, self.learners[0], self._level,
            )  # fmt: skip
        finally:
            self._source.store()
        if self._fixed[0].shape[0] and int(self.engine.reshuffles.max()) > ENGINE_RESHUFFLES:
            raise RuntimeError(
                f"a game reshuffled more than {ENGINE_RESHUFFLES} times: the engine's deals cover fewer"
            )

    def reset(self, seed: int | None = None) -> tuple[Obs, Mask]:
        """Deal every game anew (from a new Generator with ``seed``): the learners' first
        observations and masks (copies)."""
        if seed is not None:
            self.engine.rng = np.random.default_rng(seed)
            self._source = _Source(self.engine.rng)
        self._play(True, self._no_actions)
        self.observe_into(self._obs, self._mask)
        return self._obs.copy(), self._mask.copy()

    def step(
        self, actions: npt.ArrayLike
    ) -> tuple[Obs, npt.NDArray[np.float32], npt.NDArray[np.bool_], npt.NDArray[np.bool_], Mask]:
        """One learner decision per game (trusted: legal ids of the last mask); returns the next
        observations, every seat's reward (B, P), terminated, truncated and the next masks (new
        arrays; see the module docs for autoreset)."""
        reward, done, cut = self.step_into(actions, self._obs, self._mask)
        return self._obs.copy(), reward.astype(np.float32), done.copy(), cut.copy(), self._mask.copy()

    def step_into(
        self, actions: npt.ArrayLike, obs: Obs, mask: Mask
    ) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.bool_], npt.NDArray[np.bool_]]:
        """:meth:`step` without new arrays: the observations and masks are written into ``obs``
        (B, 143) float32 and ``mask`` (B, 183) bool, both C-ordered (e.g. the next slices of a
        rollout buffer); returns the rewards (B, P, whole points), terminated and truncated as
        the environment's own arrays, overwritten by the next call (copy what you keep)."""
        acts = np.ascontiguousarray(actions, dtype=np.int64)
        if acts.shape != (self.num_envs,):
            raise ValueError(f"actions must have shape ({self.num_envs},), not {acts.shape}")
        self._play(False, acts)
        self.observe_into(obs, mask)
        return self._reward, self._done, self._cut

    def observe_into(self, obs: Obs, mask: Mask) -> None:
        """The current observations and masks written into ``obs`` (B, 143) float32 and
        ``mask`` (B, 183) bool, both C-ordered (e.g. slices of a rollout buffer)."""
        if obs.shape != self._obs.shape or obs.dtype != np.float32 or not obs.flags.c_contiguous:
            raise ValueError(f"obs must be a C-ordered float32 array of shape {self._obs.shape}")
        if mask.shape != self._mask.shape or mask.dtype != np.bool_ or not mask.flags.c_contiguous:
            raise ValueError(f"mask must be a C-ordered bool array of shape {self._mask.shape}")
        st = self.engine._state()
        self._k.seats(st, self._seat)
        self._k.observe(st, self._track, self._tb, self._seat, obs)
        self._k.mask(st, self._tb, self._seat, mask)

    def sample(self, rng: np.random.Generator) -> npt.NDArray[np.int64]:
        """A uniformly random legal id for every game's deciding learner (as the random
        opponents pick, from ``rng``)."""
        out = np.empty(self.num_envs, dtype=np.int64)
        source = _Source(rng)
        bits = source.load()
        self._k.sample(self.engine._state(), self._tb, self._seat, bits, out)
        source.store()
        return out


def _learners(learners: int | Sequence[int] | str, players: int) -> tuple[int, ...]:
    if learners == "all":
        return tuple(range(players))
    if isinstance(learners, str):
        raise ValueError(f"learners must be a seat, a list of seats or 'all', not {learners!r}")
    seats = (learners,) if isinstance(learners, int) else tuple(learners)
    if not seats or any(not 0 <= s < players for s in seats) or len(set(seats)) != len(seats):
        raise ValueError(f"learners must be distinct seats 0..{players - 1}, not {learners!r}")
    return seats


def _no_deals(players: int) -> tuple[npt.NDArray[np.int64], ...]:
    return (
        np.zeros((0, players, KINDS), dtype=np.int64),
        np.zeros((0, MAX_CARDS), dtype=np.int64),
        np.zeros(0, dtype=np.int64),
        np.zeros((0, 1, MAX_CARDS + 1, MAX_CARDS), dtype=np.int64),
    )


def _engine_deals(players: int, seeds: Sequence[int]) -> tuple[npt.NDArray[np.int64], ...]:
    """The reference engine's deals of ``seeds`` (hands and draw pile, read with ``to_json``:
    for replaying the engine's games, never for an agent) and its W-17 permutations."""
    n = len(seeds)
    hands = np.zeros((n, players, KINDS), dtype=np.int64)
    piles = np.zeros((n, MAX_CARDS), dtype=np.int64)
    sizes = np.zeros(n, dtype=np.int64)
    perms = np.zeros((n, ENGINE_RESHUFFLES, MAX_CARDS + 1, MAX_CARDS), dtype=np.int64)
    order = engine_shuffler(list(seeds))
    game = get_game("schmaus")
    for g, seed in enumerate(seeds):
        data = game.new_state(players, seed).to_json()
        hands[g] = [[h.count(k) for k in CARD_IDS] for h in data["hands"]]
        pile = [CARD_KIND[c] for c in reversed(data["draw_pile"])]
        sizes[g] = len(pile)
        piles[g, : len(pile)] = pile
        for r in range(ENGINE_RESHUFFLES):
            for size in range(1, MAX_CARDS + 1):
                perms[g, r, size, :size] = order(g, r + 1, size)
    return hands, piles, sizes, perms
