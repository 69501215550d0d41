"""The command line as a newcomer meets it: help, version, one error style,
missing extras named with their install command, and ``serve``'s port checks."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from spieltisch import extras

ROOT = Path(__file__).resolve().parents[1]
CLI = [sys.executable, "-m", "spieltisch.cli"]


def run(
    *args: str, timeout: float = 60, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*CLI, *args], capture_output=True, text=True, timeout=timeout, env=env, cwd=ROOT, check=False
    )


def test_help_is_plain_text_with_short_flag_and_brackets_kept() -> None:
    top = run("-h")
    assert top.returncode == 0 and "Usage: spieltisch" in top.stdout
    lab = run("lab", "tournament", "-h")
    assert lab.returncode == 0
    assert "Needs spieltisch[ray]." in " ".join(lab.stdout.split())
    assert "avoid=CARD:SPEC" in lab.stdout
    assert "<bool>" not in lab.stdout and "╭" not in lab.stdout
    assert "-q, --quiet " in lab.stdout  # a flag takes no value
    assert "--games GAMES" in lab.stdout and "--html FILE" in lab.stdout


def test_version() -> None:
    from importlib.metadata import version

    out = run("--version")
    assert out.returncode == 0 and out.stdout.strip() == f"spieltisch {version('spieltisch')}"


@pytest.mark.parametrize(
    "args",
    [
        ["play", "scout", "--seat", "1=wizard"],  # our own check
        ["play", "scout", "--players", "x"],  # Click's usage error
        ["serve", "--port", "99999"],
        ["lab", "tournament", "--bots", "hard", "--lang", "fr"],
        # Values that made no sense and were taken (issue #35): a time of nothing, no games.
        ["bench", "engine", "--seconds", "0"],
        ["bench", "bots", "--seconds", "0"],
        ["bench", "bots", "--games", "0"],
        ["bench", "rl", "--seconds", "0"],
        ["bench", "server", "--seconds", "-2"],
        ["lab", "tournament", "--bots", "easy,random", "--seconds", "-1"],
        ["lab", "tournament", "--bots", "easy,random", "--timeout", "0"],
        ["bench", "work", "--bots", ""],
        ["bench", "review", "--game", "chess"],
        ["play", "scout", "--record", "/no/such/folder/game.json"],  # said before the game, not after
    ],
)
def test_every_error_is_one_error_line_with_exit_code_2(args: list[str]) -> None:
    out = run(*args)
    assert out.returncode == 2
    errors = [line for line in out.stderr.splitlines() if line.startswith("Error: ")]
    assert len(errors) == 1, out.stderr
    assert "Traceback" not in out.stderr and "╭" not in out.stderr


def test_a_broken_record_is_named_once_with_what_is_missing(tmp_path: Path) -> None:
    empty = tmp_path / "empty.json"
    empty.write_text("{}")
    out = run("review", str(empty))
    assert out.returncode == 2
    assert out.stderr.strip() == f"Error: {empty}: broken game record: no 'game'"


def test_bench_bots_says_when_it_rounds_the_games_up() -> None:
    # The plan is the first thing it prints; the games themselves are not waited for.
    env = {**os.environ, "COLUMNS": "200"}
    with subprocess.Popen(
        [*CLI, "bench", "bots", "--games", "1", "--seconds", "0.01"],
        stdout=subprocess.PIPE, text=True, cwd=ROOT, env=env,
    ) as proc:
        assert proc.stdout is not None
        first = proc.stdout.readline()
        proc.kill()
    assert "then a 4-game strength tournament per game (--games) (1 rounded up" in first


def test_rounds_option_error_names_every_accepted_value() -> None:
    out = run("play", "schmaus", "--option", "rounds=abc")
    assert out.returncode == 2
    assert "must be a whole number from 1 to 1000, 3x-players or draw, not 'abc'" in out.stderr


def test_missing_extras_are_named_with_their_install_command(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(extras, "_installed", lambda name: name != "trueskill")
    assert extras.missing_extras("lab", "web") == ["lab"]
    message = extras.missing_message("spieltisch lab tournament", ["lab"])
    assert message.startswith("spieltisch lab tournament needs the extra 'lab' (not installed)")
    assert message.endswith("scripts/setup lab")  # this is a clone with scripts/setup


def _without(tmp_path: Path, module: str) -> dict[str, str]:
    """An environment in which ``import module`` fails and its distribution looks absent."""
    blocker = tmp_path / f"without-{module}"
    blocker.mkdir()
    (blocker / "sitecustomize.py").write_text(
        "import importlib.metadata as m\n"
        "_real = m.distribution\n"
        "def _distribution(name):\n"
        f"    if name.lower() == {module!r}:\n"
        "        raise m.PackageNotFoundError(name)\n"
        "    return _real(name)\n"
        "m.distribution = _distribution\n"
    )
    return {**os.environ, "PYTHONPATH": str(blocker)}


def test_lab_without_its_extra_stops_before_any_work(tmp_path: Path) -> None:
    env = _without(tmp_path, "trueskill")
    args = ["lab", "tournament", "--game", "scout", "--bots", "hard,medium", "-n", "400"]
    out = run(*args, env=env, timeout=20)
    assert out.returncode == 2
    assert out.stderr.strip() == (
        "Error: spieltisch lab tournament needs the extra 'lab' (not installed); "
        "install with: scripts/setup lab"
    )
    helped = run("lab", "tournament", "-h", env=env)  # help still works
    assert helped.returncode == 0


def test_ray_and_postgres_are_checked_too(tmp_path: Path) -> None:
    out = run("lab", "tournament", "--bots", "random", "--ray", "local", env=_without(tmp_path, "ray"))
    assert out.returncode == 2 and "needs the extra 'ray'" in out.stderr
    pg = run("serve", "--database", "postgresql+psycopg://x@127.0.0.1/db", env=_without(tmp_path, "psycopg"))
    assert pg.returncode == 2 and "needs the extra 'postgres'" in pg.stderr


def test_serve_refuses_a_busy_port_before_printing_an_address(tmp_path: Path) -> None:
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        out = run("serve", "--port", str(port), "--database", f"sqlite:///{tmp_path / 'x.db'}")
    assert out.returncode == 2
    assert "open http" not in out.stdout
    assert f"Error: port {port} on 127.0.0.1 is in use by another program" in out.stderr


def test_serve_prints_the_address_it_really_listens_on(tmp_path: Path) -> None:
    import httpx

    proc = subprocess.Popen(
        [*CLI, "serve", "--port", "0", "--database", f"sqlite:///{tmp_path / 'x.db'}"],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        cwd=ROOT,
    )
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        assert line.startswith("Spieltisch web table: open http://localhost:"), line
        url = line.split("open ", 1)[1].split()[0]
        assert not url.endswith(":0/")
        assert httpx.get(url, timeout=10).status_code == 200  # listening before it says so
    finally:
        proc.terminate()
        proc.wait(timeout=20)


def test_missing_requirements_of_extras_and_all(monkeypatch: pytest.MonkeyPatch) -> None:
    known = extras.extra_requirements()
    assert any(r.startswith("trueskill") for r in known["lab"])
    assert set(known["lab"]) | set(known["web"]) <= set(known["all"])  # 'all' names the others
    monkeypatch.setattr(extras, "_installed", lambda name: name not in ("trueskill", "fastapi"))
    assert [r.split(">")[0] for r in extras.missing_requirements("lab", "web")] == ["trueskill", "fastapi"]
    assert extras.missing_extras("all", "postgres") == ["all"]
    assert extras.main(["lab"]) == 0 and extras.main(["nope"]) == 2


def test_bench_rl_keeps_every_figure_whole_at_80_columns(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A table wider than the terminal gets a row per backend instead of cutting ``1,307…``."""
    from spieltisch.benchmarks import rl

    monkeypatch.setenv("COLUMNS", "80")
    monkeypatch.setattr(rl, "measure_batched", lambda *a, **k: (1307456.7, 19876543.2))
    monkeypatch.setattr(rl, "measure_env", lambda *a, **k: 123456.0)
    monkeypatch.setattr(rl, "compile_seconds", lambda games: 1.5)
    rl.run(seconds=0.01, batches=(64, 16384), players=(2, 5), backends=("numpy", "numba"))
    out = capsys.readouterr().out
    assert "…" not in out
    assert all(len(line) <= 80 for line in out.splitlines())
    lines = out.splitlines()
    # Schmaus: 4 rows x 2 backends x 3 figures; Scout: x 2 figures; whole, one per cell.
    assert sum(line.count("1,307,457") for line in lines) == 8 * 3 + 8 * 2
    assert sum(line.count("19,876,543") for line in lines) == 8 * 2
    assert out.count("123,456") == 4


def test_bench_review_times_a_record_beside_an_older_review() -> None:
    # The older review here is today's own file: the marks must agree.
    record = ROOT / "examples" / "schmaus-record.json"
    module = ROOT / "src" / "spieltisch" / "analysis" / "review.py"
    env = {**os.environ, "COLUMNS": "160"}
    out = run("bench", "review", "--record", str(record), "--budget", "2", "-j", "1", "--before", str(module),
              timeout=300, env=env)  # fmt: skip
    assert out.returncode == 0, out.stderr
    row = next(line for line in out.stdout.splitlines() if "schmaus-record.json" in line and "│" in line)
    cells = [c.strip() for c in row.split("│") if c.strip()]
    assert cells[0] == "schmaus-record.json" and int(cells[1]) > 0
    assert float(cells[2]) > 0 and float(cells[3]) > 0 and cells[-1] == "yes"
    assert "Target: a whole Scout game within 15 s wall on two cores" in " ".join(out.stdout.split())
