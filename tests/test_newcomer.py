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

The copy starts without ``.venv``: ``scripts/start`` installs the web
extras from the package index and ``scripts/setup lab`` the lab's, as on a
new machine (about 2–3 minutes in all, most of it pip). Without an index, set
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


def newcomer_script(blocks: list[Block]) -> str:
    """One bash script: every README command, each announced and timed."""
    out = ["set -euo pipefail", "export PIP_DISABLE_PIP_VERSION_CHECK=1"]
    for block in blocks:
        if block.lang == "python":
            out.append("echo '>>> README python block'")
            out.append(f".venv/bin/python - <<'PYTHON'\n{block.text}PYTHON")
            continue
        for raw in block.text.splitlines():
            line = raw.strip()
            if not line or line.startswith("#"):
                continue
            command = with_quick_look(line)
            out.append(f"echo {shlex.quote('>>> ' + command)}")
            if command == "scripts/start":
                out.append(START)
            elif command == "scripts/test":
                out.append("test -x scripts/test  # CI runs it around this test")
            elif command.startswith("source "):
                out.append(command)
            elif command.startswith("spieltisch play "):  # answer "1" (a menu item) at every prompt
                out.append("printf '1\\n%.0s' $(seq 1 5000) > answers.txt")
                out.append(
                    f"timeout 240 {command} < answers.txt > play.log || {{ tail -20 play.log; exit 1; }}"
                )
            else:
                out.append(f"timeout 300 {command}")
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
    report = textwrap.indent(done.stdout[-3000:] + "\n--- stderr ---\n" + done.stderr[-3000:], "  ")
    assert done.returncode == 0, f"README command failed after {steps[-1:]}:\n{report}"
    assert steps[-1] == ">>> all README commands passed"
    assert any("source .venv/bin/activate" in s for s in steps)
    assert len(steps) >= 12, steps  # every command ran
