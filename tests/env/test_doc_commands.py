"""docs/env.md's shell examples (issue 36): every ``$`` command runs, in the page's order and in one folder, and
prints what the page shows, line for line but the times. (The ``python`` blocks run in test_examples.py, the
MaskablePPO ``py`` block in test_rl_api.py when the ``train`` extra is installed.) The ``sh`` blocks without a
``$`` prompt are listed in NOT_RUN with the reason, so a new one cannot be added unseen."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOC = (ROOT / "docs" / "env.md").read_text(encoding="utf-8")

#: The first line of each ``sh`` block that is not run, and why.
NOT_RUN = {
    ".venv/bin/pip install torch==2.14.1 --index-url https://download.pytorch.org/whl/cpu   # no CUDA libraries":
        "installs packages (the network)",
    "PYTHONPATH=src python examples/sb3_train.py --steps 300000 --self-play 100000 --out ppo_self.zip":
        "needs the train extra (PyTorch) and half an hour",
    'C="nice -n 10 python examples/env_baselines.py --hands 3000 --eval 400 --eval-greedy 120 --ppo-steps 150000 '
    '--ppo-self-play 50000"': "the baseline table: hours, and the train extra",
    "PYTHONPATH=src python examples/env_train.py --hands 30000 --eval 0 --out src/paohuzi/env/weights/linear.npz":
        "makes the shipped checkpoint (minutes); its evaluation is checked against docs/baselines.json",
    "PYTHONPATH=src python examples/env_leaderboard.py --deals-random 2000 --deals-greedy 500 "
    "--out docs/baselines.json": "the leaderboard (minutes)",
    "paohuzi simulate --bots greedy,random,random --hands 100 --record games/":
        "simulate → dataset → .npz and the database are tests/env/test_data.py's",
}


def sh_blocks() -> list[list[str]]:
    return [block.splitlines() for block in re.findall(r"```sh\n(.*?)```", DOC, flags=re.S)]


def commands() -> list[tuple[str, list[str]]]:
    """Each ``$`` command of the page with the output lines shown after it."""
    out: list[tuple[str, list[str]]] = []
    for lines in sh_blocks():
        for line in lines:
            if line.startswith("$ "):
                out.append((line[2:], []))
            elif out and lines[0].startswith("$ ") and not line.startswith("#"):
                out[-1][1].append(line)
    return out


def untimed(line: str) -> str:
    """A line without what depends on the machine: seconds, hands per second, the ms/dec column."""
    line = re.sub(r"\d+(\.\d+)? (CPU )?s\b", "<time>", line)
    line = re.sub(r"\d+(\.\d+)? hands/s", "<rate>", line)
    if re.search(r"\d+\.\d%\s+\d+\.\d%", line):  # a bot's row of simulate's table: the last column is ms/dec
        line = line.rsplit(None, 1)[0]
    return line.rstrip()


def test_every_sh_block_is_run_or_listed() -> None:
    for lines in sh_blocks():
        assert lines[0].startswith("$ ") or lines[0] in NOT_RUN, lines[0]


def run(command: str, cwd: Path) -> list[str]:
    """One ``$`` line: ``VAR=value`` prefixes into the environment, ``.venv/bin/python``/``paohuzi`` as this
    interpreter, the repository's ``examples/`` and ``src`` on the path."""
    words = shlex.split(command)
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    while "=" in words[0] and words[0].split("=")[0].isidentifier():
        name, _, value = words.pop(0).partition("=")
        env[name] = os.pathsep.join(str(ROOT / p) for p in value.split(":")) + os.pathsep + env["PYTHONPATH"]
    if words[0] == "paohuzi":
        words = [sys.executable, "-m", "paohuzi.cli", *words[1:]]
    elif words[0] == ".venv/bin/python":
        words = [sys.executable, *words[1:]]
    words = [str(ROOT / w) if w.startswith("examples/") else w for w in words]
    done = subprocess.run(words, cwd=cwd, env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    return done.stdout.splitlines()


@pytest.mark.soak
def test_the_commands_print_what_the_page_shows(tmp_path: Path) -> None:
    cmds = commands()
    assert len(cmds) == 3  # training, self-play, the trained policy in simulate
    for command, shown in cmds:
        got = run(command, tmp_path)
        assert [untimed(x) for x in got] == [untimed(x) for x in shown], command
