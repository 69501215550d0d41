"""The newcomer test: the README as a new user reads it, in a fresh copy of the project.

It copies the project as a clone would have it (the files git knows, without
.venv or build output), runs the quick start and then every command of the
README's ``bash`` and ``python`` blocks, as written and in order, in one
shell — except that a line ending in ``# ... quick look: ARGS`` runs with
those settings (each option in ARGS replaces the line's value, or is added),
the way the README offers them. Each command must succeed.

Two commands get special care: ``scripts/start`` serves for ever, so it runs
in the background (with ``--port 0``, a free port, beside any server already
running) until its printed address answers; ``scripts/test`` is
what CI runs around this very test (running it here would recurse), so it is
only checked to exist.

The commands that only use what is installed (``spieltisch …`` and the python
blocks) run side by side between those that change it (``scripts/setup``,
``source``, …), which run alone and in their place: each command still finds
exactly what the README's order gives it, and the test takes the time of its
longest command per stretch instead of their sum (``newcomer_script``).

The copy starts without ``.venv``: ``scripts/start`` installs the web
extras from the package index and ``scripts/setup lab`` the lab's, as on a
new machine. Without an index, set
``NEWCOMER_REUSE=1``: the copy's ``.venv`` then sees this environment's
packages (a ``.pth`` file) and pip installs only the project itself.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
import sysconfig
import textwrap
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
QUICK_LOOK = re.compile(r"#.*?quick look:\s*(.+)$")


@dataclass(frozen=True)
class Block:
    lang: str
    text: str


def readme_blocks(text: str) -> list[Block]:
    """The README's ``bash`` and ``python`` code blocks, in order."""
    return [
        Block(m.group(1), m.group(2))
        for m in re.finditer(r"^```(bash|python)\n(.*?)^```", text, flags=re.MULTILINE | re.DOTALL)
    ]


def with_quick_look(line: str) -> str:
    """The command of ``line`` with its "quick look" settings applied; comments dropped."""
    match = QUICK_LOOK.search(line)
    command = shlex.split(line, comments=True)
    if match is None:
        return shlex.join(command)
    quick = shlex.split(match.group(1))
    i = 0
    while i < len(quick):
        option = quick[i]
        has_value = i + 1 < len(quick) and not quick[i + 1].startswith("-")
        value = quick[i + 1] if has_value else None
        if option in command:
            at = command.index(option)
            if value is not None:
                command[at + 1] = value
        else:
            command += [option] + ([value] if value is not None else [])
        i += 2 if has_value else 1
    return shlex.join(command)


def test_quick_look_settings_replace_or_add_options() -> None:
    line = "spieltisch lab tournament -n 40 --html r.html  # ~3 min; quick look: -n 8 --seconds 0.05"
    assert with_quick_look(line) == "spieltisch lab tournament -n 8 --html r.html --seconds 0.05"
    assert with_quick_look("spieltisch bench engine    # one core") == "spieltisch bench engine"


def test_commands_run_side_by_side_only_between_the_ones_that_change_the_setup() -> None:
    readme = (
        "```bash\nscripts/start\nsource .venv/bin/activate\nspieltisch a --html x.html\n"
        "spieltisch b --html y.html  # quick look: --seconds 1\nspieltisch c x.html\n```\n"
        "```python\nimport spieltisch\n```\n```bash\nscripts/setup lab\nspieltisch d\n```\n"
    )
    lines = newcomer_script(readme_blocks(readme)).splitlines()
    said = [line[5:].strip("'") if line.startswith("echo ") else line for line in lines]
    order = [line for line in said if line.startswith(">>> ") or line == "join"]
    assert order == [
        "join", ">>> scripts/start", "join", ">>> source .venv/bin/activate",
        ">>> spieltisch a --html x.html", ">>> spieltisch b --html y.html --seconds 1",
        "join", ">>> spieltisch c x.html",  # x.html: it may read what a wrote
        ">>> README python block",
        "join", ">>> scripts/setup lab", ">>> spieltisch d",
        "join", ">>> all README commands passed",
    ]  # fmt: skip
    script = "\n".join(lines)
    assert "(\ntimeout 600 spieltisch b --html y.html --seconds 1\n) > step-3.log 2>&1 &" in script
    assert "\ntimeout 600 scripts/setup lab\n" in script  # alone, in the foreground


START = """\
# scripts/start serves for ever: wait for its address, fetch the page, stop it
scripts/start --port 0 > start.log 2>&1 &
start_pid=$!
for _ in $(seq 1 1200); do  # up to 10 min: on a new machine it installs first
  if grep -q "open http" start.log; then break; fi
  if ! kill -0 $start_pid 2>/dev/null; then cat start.log; echo "scripts/start died" >&2; exit 1; fi
  sleep 0.5
done
url=$(grep -o "open http[^ ]*" start.log | head -1 | cut -d" " -f2 || true)
test -n "$url" || { cat start.log; echo "scripts/start printed no address" >&2; exit 1; }
.venv/bin/python -c "import sys, urllib.request as u; u.urlopen(sys.argv[1], timeout=20).read()" "$url"
kill $start_pid; wait $start_pid || true
"""


@dataclass(frozen=True)
class Step:
    """One README command (or python block) as the script runs it."""

    said: str
    """What the README says (with the quick look applied): announced as ``>>> said``."""
    shell: str
    """The bash that runs it."""
    alone: bool
    """It changes the environment of the commands after it (``scripts/…``, ``source``,
    anything that is not a ``spieltisch`` command or a python block): it runs once the
    commands before it have ended, and the ones after it start when it has ended."""


def _files(command: str) -> set[str]:
    """The arguments of ``command`` that look like files (a dot or a slash in them)."""
    return {word for word in shlex.split(command)[1:] if "." in word or "/" in word}


def readme_steps(blocks: list[Block]) -> list[Step]:
    """Every README command, in order, with how the script runs it."""
    steps: list[Step] = []
    for block in blocks:
        if block.lang == "python":
            shell = f".venv/bin/python - <<'PYTHON'\n{block.text}PYTHON"
            steps.append(Step("README python block", shell, alone=False))
            continue
        for raw in block.text.splitlines():
            line = raw.strip()
            if not line or line.startswith("#"):
                continue
            command = with_quick_look(line)
            if command == "scripts/start":
                steps.append(Step(command, START, alone=True))
            elif command == "scripts/test":
                steps.append(Step(command, "test -x scripts/test  # CI runs it around this test", alone=True))
            elif command.startswith("source "):
                steps.append(Step(command, command, alone=True))
            elif command.startswith("spieltisch play "):  # answer "1" (a menu item) at every prompt
                n = len(steps)
                shell = (
                    f"printf '1\\n%.0s' $(seq 1 5000) > answers-{n}.txt\n"
                    f"timeout 240 {command} < answers-{n}.txt > play-{n}.log"
                    f" || {{ tail -20 play-{n}.log; exit 1; }}"
                )
                steps.append(Step(command, shell, alone=False))
            else:
                alone = not command.startswith("spieltisch ")
                steps.append(Step(command, f"timeout 600 {command}", alone=alone))
    return steps


JOIN = """\
join() {  # wait for the README commands running side by side; show their output in order
  local failed=0 entry pid n rc
  for entry in "${running[@]}"; do
    pid=${entry%%:*}; n=${entry#*:}; rc=0
    wait "$pid" || rc=$?
    cat "step-$n.log"
    if [ "$rc" != 0 ]; then echo "!!! README command failed (exit $rc): ${said[$n]}"; failed=1; fi
  done
  running=()
  [ "$failed" = 0 ] || exit 1
}
"""


def newcomer_script(blocks: list[Block]) -> str:
    """One bash script: every README command, each announced. The commands between two
    that change the environment (``Step.alone``) run side by side (their output is shown
    when they have all ended); one that names a file an earlier one of them names starts
    a new stretch, so it waits for a file that an earlier one may write. Each command
    still sees exactly what the README's order gives it: what was installed and sourced
    before it."""
    out = ["set -euo pipefail", "export PIP_DISABLE_PIP_VERSION_CHECK=1"]
    out += ["running=()", "declare -A said", JOIN]
    together: set[str] = set()  # the files the commands running side by side name
    for n, step in enumerate(readme_steps(blocks)):
        files = set() if step.alone else _files(step.said)
        if step.alone or files & together:
            out.append("join")
            together = set()
        out.append(f"echo {shlex.quote('>>> ' + step.said)}")
        if step.alone:
            out.append(step.shell)
        else:
            together |= files
            out.append(f"said[{n}]={shlex.quote(step.said)}")
            out.append(f"(\n{step.shell}\n) > step-{n}.log 2>&1 &")
            out.append(f'running+=("$!:{n}")')
    out.append("join")
    out.append("echo '>>> all README commands passed'")
    return "\n".join(out) + "\n"


def copy_project(target: Path) -> None:
    """The project as a fresh clone has it: the files git tracks or would track."""
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT,
        capture_output=True,
        check=True,
    ).stdout.decode()
    for name in filter(None, listed.split("\0")):
        source = ROOT / name
        if source.is_file():
            dest = target / name
            dest.parent.mkdir(parents=True, exist_ok=True)
            dest.write_bytes(source.read_bytes())
            dest.chmod(source.stat().st_mode)


def reuse_packages(clone: Path) -> None:
    """A ``.venv`` in the copy that sees this environment's packages (not this project)."""
    subprocess.run([sys.executable, "-m", "venv", str(clone / ".venv")], check=True)
    here = Path(sysconfig.get_paths()["purelib"])
    (site,) = (clone / ".venv" / "lib").glob("python*/site-packages")
    (site / "zz-newcomer-reuse.pth").write_text(f"{here}\n")


@pytest.mark.slow
def test_every_readme_command_works_in_a_fresh_copy(tmp_path: Path) -> None:
    if not (ROOT / ".git").exists():
        pytest.skip("needs the project's git checkout")
    clone = tmp_path / "spieltisch"
    clone.mkdir()
    copy_project(clone)
    assert not (clone / ".venv").exists()
    if os.environ.get("NEWCOMER_REUSE"):
        reuse_packages(clone)
    script = newcomer_script(readme_blocks(README.read_text(encoding="utf-8")))
    (clone / "newcomer.sh").write_text(script)
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHONPATH")}
    # A newcomer's PATH: no project .venv on it (the README must say how).
    env["PATH"] = os.pathsep.join(
        p for p in env.get("PATH", "").split(os.pathsep) if not p.startswith(str(ROOT))
    )
    done = subprocess.run(
        ["bash", "newcomer.sh"],
        cwd=clone,
        env=env,
        capture_output=True,
        text=True,
        timeout=1200,
        check=False,
    )
    steps = [line for line in done.stdout.splitlines() if line.startswith(">>> ")]
    failed = [line for line in done.stdout.splitlines() if line.startswith("!!! ")] or steps[-1:]
    report = textwrap.indent(done.stdout[-3000:] + "\n--- stderr ---\n" + done.stderr[-3000:], "  ")
    assert done.returncode == 0, f"README command failed: {failed}:\n{report}"
    assert steps[-1] == ">>> all README commands passed"
    assert any("source .venv/bin/activate" in s for s in steps)
    assert len(steps) >= 12, steps  # every command ran
