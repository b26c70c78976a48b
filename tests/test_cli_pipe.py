"""A reader that goes away early (``paohuzi simulate | head -1``) ends the command quietly: no traceback."""

from __future__ import annotations

import subprocess
import sys


def test_simulate_into_a_closed_pipe_prints_no_traceback() -> None:
    code = "import sys; from paohuzi.cli import main; sys.exit(main(sys.argv[1:]))"
    argv = [sys.executable, "-c", code, "simulate", "--hands", "30", "--bots", "random,random,random", "--quiet"]
    sim = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert sim.stdout is not None and sim.stderr is not None
    sim.stdout.close()  # hang up before the table is printed, as `head` does once it has its lines
    err = sim.stderr.read().decode()
    status = sim.wait(timeout=120)
    assert "Traceback" not in err and "BrokenPipeError" not in err, err
    assert status in (0, 1)
