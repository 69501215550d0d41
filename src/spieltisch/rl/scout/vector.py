"""Scout for learners at engine speed: B games in one batch with observations, rewards and
opponents inside it (docs/rl.md, "Batched learner environments"). Needs numba (extra
``rl-fast``).

>>> env = ScoutVectorEnv(1024, players=4, seed=1)        # learner in seat 0, random opponents
>>> obs, mask = env.reset()                              # (1024, 1380) float32, (1024, 1405) bool
>>> obs, reward, terminated, truncated, mask = env.step(env.sample(np.random.default_rng(0)))
>>> against = ScoutVectorEnv(1024, players=4, opponents="medium")  # or one level per other seat

Each :meth:`ScoutVectorEnv.step` is one decision of a learner seat in every game (the
learning ids of :mod:`spieltisch.rl.scout.actions`: a scout & show is two decisions, S-9);
then the opponents decide inside the compiled kernel until a learner seat decides again.
``learners`` names the learner seats: one seat (the default, seat 0) against opponents, or
every seat (``learners="all"``, self-play: the step returns the observation and mask of
whichever seat decides next, :attr:`ScoutVectorEnv.seat`).

* **Observations** are exactly :func:`spieltisch.rl.scout.obs.observation` of the deciding
  seat's view (bit for bit; tested against the reference engine at 2–5 players), written by a
  numba kernel from the batched state.
* **Rewards** (B, P) float32: every seat's change of its game total over the step, so a seat's
  return is its final total (the learner's column is its reward).
* **Autoreset (same step):** a game that ends in a step (``terminated``) or reaches
  ``max_steps`` learner decisions (``truncated``) is dealt anew within the same step: the
  returned observation and mask are the new game's first decision, the step's reward still
  the old game's last points; :attr:`final_totals` and :attr:`final_obs` keep its final
  totals and the first learner's last observation (every hand shown, as in its final view). So every
  returned mask has a legal id (a learner always decides: every round starts with every
  seat's flip, S-5), and no call is ever needed to reset a single game.
* **Opponents** (one level for every other seat, or a list with one per other seat, in seat
  order): ``"random"``: a uniformly random legal learning id per decision (as
  ``sample_legal``, from the engine's Generator; this is not the ``random`` bot, which is
  uniform over the engine's action ids, where one scout & show is one action). ``"easy"`` and
  ``"medium"``: the built-in bots (:class:`~spieltisch.bots.scout.bots.EasyBot`,
  :class:`~spieltisch.bots.scout.bots.MediumBot`) compiled
  (:mod:`~spieltisch.rl.scout._bot_kernels`): the same decision as the single-state bot from
  the seat's view, given the same random draws. Their draws come from their own Generator
  (:attr:`ScoutVectorEnv.bot_rng`, :func:`bot_rng`), a ``random()`` being one double and
  ``randrange(n)`` ``floor(random() * n)``; the single-state bots draw from Python's
  ``random.Random`` (so the same seed does not give the same games), and :class:`BotDraws` is
  the batched stream in its shape. One more difference: the batched bots take the legal
  actions in ascending engine id order, while the engine lists a scout & show's ids in
  another; it shows only in medium's random move (half of its moves in a round past 150 plays,
  :data:`~spieltisch.bots.scout.bots.LONG_ROUND`), uniform either way but another pick for the
  same draw.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from spieltisch.rl._numba import bitgen_addresses, kernels
from spieltisch.rl.scout import actions as SA
from spieltisch.rl.scout import obs as scout_obs
from spieltisch.rl.scout.batched import Dealer
from spieltisch.rl.scout.fast import FastScout

KERNELS = "spieltisch.rl.scout._vector_kernels"
BOT_KERNELS = "spieltisch.rl.scout._bot_kernels"
OPPONENTS = ("random", "easy", "medium")
"""The opponent levels, their codes in the kernels being their places here."""
MAX_STEPS = 10_000
"""Learner decisions after which a game is truncated (as the single-game environments)."""

Obs = npt.NDArray[np.float32]
Mask = npt.NDArray[np.bool_]


class ScoutVectorEnv:
    """``num_envs`` Scout games of ``players`` seats: learners in ``learners``, the others
    played by ``opponents`` inside the batch (see the module docs)."""

    def __init__(
        self,
        num_envs: int,
        players: int = 4,
        learners: int | Sequence[int] | str = 0,
        opponents: str | Sequence[str] = "random",
        seed: int = 0,
        max_steps: int | None = MAX_STEPS,
        dealer: Dealer | None = None,
        log: int = 0,
    ) -> None:
        """``dealer`` (tests): every game of batch slot g is dealt ``dealer(g, round)`` (e.g.
        :func:`~spieltisch.rl.scout.batched.engine_dealer`, so the reference engine can follow
        it); ``log``: keep the first ``log`` decisions of every slot, learners' and opponents',
        across autoresets, in :attr:`action_log` (tests, debugging)."""
        self._k = kernels(KERNELS)
        self.engine = FastScout(num_envs, players, seed=seed)
        self.num_envs, self.players = num_envs, players
        self.learners = _learners(learners, players)
        self.opponents = _opponents(opponents, players, self.learners)
        """Each seat's opponent level (``None`` for a learner)."""
        self.bot_rng = bot_rng(seed)
        """The Generator the easy and medium opponents draw from (:func:`bot_rng`)."""
        self._levels = np.array(
            [-1 if o is None else OPPONENTS.index(o) for o in self.opponents], dtype=np.int64
        )
        self._bot_scratch = kernels(BOT_KERNELS).scratch()
        self._botgen_of: np.random.Generator | None = None
        self._botgen = np.zeros(3, dtype=np.uint64)
        if max_steps is not None and (isinstance(max_steps, bool) or max_steps < 1):
            raise ValueError(f"max_steps must be a positive whole number or None, not {max_steps!r}")
        self.max_steps = max_steps if max_steps is not None else np.iinfo(np.int64).max
        e = self.engine
        self._track = (
            np.zeros((num_envs, players, e.top.shape[2]), dtype=np.bool_),
            np.zeros((num_envs, 45), dtype=np.bool_),
            np.full(num_envs, -1, dtype=np.int64),
            np.zeros((num_envs, log), dtype=np.int64),
            np.zeros(num_envs, dtype=np.int64),
            np.zeros(num_envs, dtype=np.int64),
        )
        cards = len(e._tables[2])
        fixed = np.zeros((0, 1, cards), dtype=np.int16)
        if dealer is not None:
            rounds = 1 if players == 2 else e.rounds  # S-16: two players' round 2 is set aside
            fixed = np.array(
                [[list(dealer(g, r)) for r in range(rounds)] for g in range(num_envs)], dtype=np.int16
            )
        self._scratch = (
            e._step, e._runlen, e._fewest, e._left, e._right, e._hm, e._blocks, e._spans,
            np.zeros(1, dtype=np.int64), np.zeros((1, cards), dtype=np.int16), fixed,
        )  # fmt: skip
        self._seat_mask = np.zeros(players, dtype=np.bool_)
        self._seat_mask[list(self.learners)] = True
        self.steps = np.zeros(num_envs, dtype=np.int64)
        """Learner decisions of each game so far (for ``max_steps``)."""
        self.final_totals = np.zeros((num_envs, players), dtype=np.int64)
        """The final totals of each slot's last ended (or truncated) game."""
        self.final_obs = np.zeros((num_envs, scout_obs.OBS_SIZE), dtype=np.float32)
        """The observation of the first learner seat at the end of each slot's last ended (or
        truncated) game (rows where the last step said ``terminated`` or ``truncated``)."""
        self._reward = np.zeros((num_envs, players), dtype=np.int64)
        self._done = np.zeros(num_envs, dtype=np.bool_)
        self._cut = np.zeros(num_envs, dtype=np.bool_)
        self._obs = np.zeros((num_envs, scout_obs.OBS_SIZE), dtype=np.float32)
        self._mask = np.zeros((num_envs, SA.NUM_ACTIONS), dtype=np.bool_)
        self._seat = np.zeros(num_envs, dtype=np.int64)
        self.observation_size, self.num_actions = scout_obs.OBS_SIZE, SA.NUM_ACTIONS

    @property
    def action_log(self) -> list[list[int]]:
        """Per slot, the decisions applied so far (learners' and opponents', in order, across
        autoresets; at most ``log`` each, see ``__init__``)."""
        log, log_n = self._track[3], self._track[4]
        return [log[g, : log_n[g]].tolist() for g in range(self.num_envs)]

    @property
    def seat(self) -> npt.NDArray[np.int64]:
        """(B,): the (learner) seat whose observation and mask the last call returned."""
        return self._seat

    def _common(self) -> tuple[Any, ...]:
        e = self.engine
        return (e._state(), self._track, e._tables, e.rounds, e.dealt, e._bitgen(), self._scratch)

    def _opp(self) -> tuple[Any, ...]:
        if self._botgen_of is not self.bot_rng:  # the addresses of the bots' Generator
            self._botgen = np.array(bitgen_addresses(self.bot_rng), dtype=np.uint64)
            self._botgen_of = self.bot_rng
        return (self._levels, self._botgen, self._bot_scratch)

    def reset(self, seed: int | None = None) -> tuple[Obs, Mask]:
        """Deal every game anew (from new Generators with ``seed``, the deals' and the bots'):
        the learners' first observations and masks (copies)."""
        if seed is not None:
            self.engine.rng = np.random.default_rng(seed)
            self.bot_rng = bot_rng(seed)
        st, tr, tb, rounds, dealt, bitgen, sc = self._common()
        self._k.reset(st, tr, tb, rounds, dealt, bitgen, sc, self._seat_mask, self.steps, self._opp())
        return self._observe()

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
        (B, 1380) float32 and ``mask`` (B, 1405) bool, both C-ordered (e.g. the next slices of a
        rollout buffer); returns the rewards (B, P, whole points), terminated and truncated as
        the environment's own arrays, overwritten by the next call (copy what you keep)."""
        acts = np.ascontiguousarray(actions, dtype=np.int64)
        if acts.shape != (self.num_envs,):
            raise ValueError(f"actions must have shape ({self.num_envs},), not {acts.shape}")
        st, tr, tb, rounds, dealt, bitgen, sc = self._common()
        self._k.advance(
            acts, st, tr, tb, rounds, dealt, bitgen, sc, self._seat_mask, self.steps, self.max_steps,
            self._reward, self._done, self._cut, self.final_totals, self.final_obs, self.learners[0],
            self._opp(),
        )  # fmt: skip
        self.observe_into(obs, mask)
        return self._reward, self._done, self._cut

    def _observe(self) -> tuple[Obs, Mask]:
        self.observe_into(self._obs, self._mask)
        return self._obs.copy(), self._mask.copy()

    def observe_into(self, obs: Obs, mask: Mask) -> None:
        """The current observations and masks written into ``obs`` (B, 1380) float32 and
        ``mask`` (B, 1405) bool, both C-ordered (e.g. slices of a rollout buffer)."""
        if obs.shape != self._obs.shape or obs.dtype != np.float32 or not obs.flags.c_contiguous:
            raise ValueError(f"obs must be a C-ordered float32 array of shape {self._obs.shape}")
        e = self.engine
        self._seat[:] = e.to_move()
        self._k.observe(e._state(), self._track, self._seat, e.rounds, obs)
        e.legal_mask(out=mask)

    def sample(self, rng: np.random.Generator) -> npt.NDArray[np.int64]:
        """A uniformly random legal id for every game's learner (``BatchedScout.sample_legal``)."""
        return self.engine.sample_legal(rng)


def bot_rng(seed: int) -> np.random.Generator:
    """The Generator the batched easy and medium opponents draw from, for ``seed`` (not the
    deals' ``default_rng(seed)``)."""
    return np.random.default_rng([seed, BOT_STREAM])


BOT_STREAM = 0x5C0B07
"""Mixed into the bots' seed (:func:`bot_rng`), so that their draws are not the deals'."""


class BotDraws:
    """The batched bots' random stream in the shape of ``random.Random``: give it to a
    single-state bot as its ``rng`` and it draws what the batched bot draws from ``rng``."""

    def __init__(self, rng: np.random.Generator) -> None:
        self.rng = rng

    def random(self) -> float:
        """One double in [0, 1) (the bit generator's ``next_double``)."""
        return float(self.rng.random())

    def randrange(self, n: int) -> int:
        """``floor(random() * n)`` (at most ``n - 1``)."""
        return min(int(self.random() * n), n - 1)


def _opponents(
    opponents: str | Sequence[str], players: int, learners: tuple[int, ...]
) -> tuple[str | None, ...]:
    others = [s for s in range(players) if s not in learners]
    levels = [opponents] * len(others) if isinstance(opponents, str) else list(opponents)
    if len(levels) != len(others):
        raise ValueError(
            f"opponents must be one level or {len(others)} (one per other seat), not {opponents!r}"
        )
    for level in levels:
        if level not in OPPONENTS:
            raise ValueError(
                f"opponents must be among {list(OPPONENTS)} in the batched environment, not {level!r} "
                "(other bots play in gymnasium.make('spieltisch/Scout-v0', opponents=...), or "
                "make_vec(..., vectorization_mode='sync'))"
            )
    out: list[str | None] = [None] * players
    for seat, level in zip(others, levels, strict=True):
        out[seat] = level
    return tuple(out)


def _learners(learners: int | Sequence[int] | str, players: int) -> tuple[int, ...]:
    if learners == "all":
        return tuple(range(players))
    if isinstance(learners, str):
        raise ValueError(f"learners must be a seat, a list of seats or 'all', not {learners!r}")
    seats = (learners,) if isinstance(learners, int) else tuple(learners)
    if not seats or any(not 0 <= s < players for s in seats) or len(set(seats)) != len(seats):
        raise ValueError(f"learners must be distinct seats 0..{players - 1}, not {learners!r}")
    return seats
