"""``/api/tutorial`` (issue #35): a step's position, the taught move let through with the
others' replies, anything else refused with the reason; nothing is stored."""

from __future__ import annotations

from server_harness import ServerThread


def test_a_lesson_is_walked_step_by_step(server: ServerThread) -> None:
    with server.client() as c:
        lesson = c.get("/api/tutorial/scout").json()
        assert [s["id"] for s in lesson["steps"]][:2] == ["flip", "show"]
        assert lesson["final"] == {"players": 3, "options": {}}
        for index in range(len(lesson["steps"])):
            step = c.get(f"/api/tutorial/scout/{index}").json()
            assert step["view"]["seat"] == 0 and "hands" in step["view"]
            # Opponents' cards stay hidden: the view is a seat's view.
            hands = step["view"]["hands"]
            assert hands[0] == step["view"]["hand"] and all(c is None for h in hands[1:] for c in h)
            legal = {text for _, text in step["legal"]}
            assert set(step["teach"]) <= legal
            moved = c.post(f"/api/tutorial/scout/{index}", json={"action": step["teach"][0]}).json()
            assert moved["accepted"] and "refusal" not in moved and moved["view"]["seat"] == 0
        last = c.post(f"/api/tutorial/scout/{len(lesson['steps']) - 1}", json={"action": "show 0-1"}).json()
        assert last["view"]["phase"] == "over" and last["view"]["round_results"][-1]["points"] == [5, 0, 1]


def test_wrong_moves_are_refused_with_the_reason(server: ServerThread) -> None:
    with server.client() as c:
        keep = c.post("/api/tutorial/scout/0", json={"action": "keep"}).json()
        message = "keep is a legal move, but this step teaches flip"
        assert keep == {"accepted": False, "refusal": {"reason": "not_taught", "message": message}}
        weak = c.post("/api/tutorial/scout/2", json={"action": "show 0"}).json()["refusal"]
        assert weak["ruling"] == "S-7" and weak["reason"] == "not_beating"
        assert weak["params"]["table"] == "6-7"
        twice = c.post("/api/tutorial/schmaus/0", json={"action": "play F5 F5 F4"}).json()["refusal"]
        assert twice["ruling"] == "W-4" and twice["reason"] == "not_held"
        bad = c.post("/api/tutorial/schmaus/0", json={"action": "lay it all"}).json()["refusal"]
        assert bad["reason"] == "malformed" and "cannot read" in bad["message"] and "ruling" not in bad
        assert c.post("/api/tutorial/schmaus/0", json={"action": 3}).status_code == 422
        assert c.post("/api/tutorial/schmaus/0", json={"action": "x" * 201}).status_code == 422
        assert c.post("/api/tutorial/schmaus/0", json={"action": "play", "seat": 1}).status_code == 422


def test_unknown_games_and_steps_are_404_with_a_sentence(server: ServerThread) -> None:
    with server.client() as c:
        r = c.get("/api/tutorial/chess")
        assert r.status_code == 404 and "no lesson for 'chess'" in r.json()["detail"]
        r = c.get("/api/tutorial/schmaus/99")
        assert r.status_code == 404 and "not 99" in r.json()["detail"]
        assert c.post("/api/tutorial/schmaus/-1", json={"action": "keep"}).status_code == 404
        assert c.get("/learn/scout").status_code == 200  # the client's page
