"""``/api/tutorial``: the guided lessons of "Learn to play" (:mod:`spieltisch.tutorial`).

Nothing is stored and nothing is secret: a step's position follows from the lesson
file, so ``GET`` builds it and ``POST`` tries one move there. Only a taught move is
let through (answered with the view after it and the other seats' replies); any
other is refused with the reason, the engine's ruling for an illegal one.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, HTTPException

from spieltisch.server.messages import TutorialMoveIn, TutorialMoveOut, TutorialOut, TutorialStepOut
from spieltisch.server.notation import action_text
from spieltisch.tutorial import FINAL_GAME, GAMES, LEARNER, Lesson, Step, attempt, lesson

_NOT_FOUND: dict[int | str, dict[str, Any]] = {404: {"description": "no such game or step"}}


def tutorial_routes() -> APIRouter:
    router = APIRouter()

    @router.get("/api/tutorial/{game}", response_model=TutorialOut, responses=_NOT_FOUND)
    async def tutorial(game: str) -> dict[str, Any]:
        """The lesson of a game (``scout`` or ``schmaus``): its steps and the game it ends in."""
        found = _lesson(game)
        steps = [{"id": s.id, "rules": list(s.rules)} for s in found.steps]
        return {"game": game, "steps": steps, "final": FINAL_GAME[game]}

    @router.get("/api/tutorial/{game}/{step}", response_model=TutorialStepOut, responses=_NOT_FOUND)
    async def tutorial_step(game: str, step: int) -> dict[str, Any]:
        """A step's position as the learner (seat 0) sees it, with the moves it teaches."""
        found = _step(game, step)
        state = found.position(game)
        legal = [(a, action_text(game, state, a)) for a in state.legal_action_ids(LEARNER)]
        return {
            "step": step,
            "id": found.id,
            "rules": list(found.rules),
            "view": _view(state),
            "legal": legal,
            "teach": list(found.teach),
        }

    @router.post("/api/tutorial/{game}/{step}", response_model=TutorialMoveOut, responses=_NOT_FOUND,
                 response_model_exclude_none=True)
    async def tutorial_move(game: str, step: int, body: TutorialMoveIn) -> dict[str, Any]:
        """Try a move at a step: a taught one is played (with the others' replies), any
        other is refused with the reason."""
        outcome = attempt(game, _step(game, step), body.action)
        if not outcome.accepted:
            return {"accepted": False, "refusal": outcome.refusal}
        return {"accepted": True, "view": _view(outcome.state)}

    return router


def _lesson(game: str) -> Lesson:
    if game not in GAMES:
        raise HTTPException(404, f"no lesson for {game!r}: choose {' or '.join(GAMES)}")
    return lesson(game)


def _step(game: str, index: int) -> Step:
    try:
        return _lesson(game).step(index)
    except IndexError as exc:
        raise HTTPException(404, str(exc)) from None


def _view(state: Any) -> dict[str, Any]:
    view: dict[str, Any] = state.view(LEARNER, log=False)
    view.pop("log", None)
    return view
