"""Types and linters are gates (STYLE 12): ``ruff check`` on the code and ``mypy --strict`` on the package.

``make lint`` runs the same two commands (``python tests/test_lint.py``).
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
LINTED = ["src", "tests", "bench", "examples"]
PACKAGE = "src/paohuzi"

# Not yet under the gate: these were being edited by other engineers when the gate was added. Their findings
# are still reported by mypy but do not fail it, and ruff skips them. Bring each under the gate (delete it
# here) once its findings are fixed. This is the only list: the tests and `make lint` both read it.
PENDING: list[str] = []

RUFF = [sys.executable, "-m", "ruff", "check", "--no-cache", "--output-format", "concise"]
RUFF += ["--extend-exclude", ",".join(PENDING), *LINTED]
# The cache is kept under the repository (gitignored): a cold run takes ~12 s, a warm one well under 1 s.
MYPY = [sys.executable, "-m", "mypy", "--strict", "--cache-dir", str(ROOT / ".mypy_cache"), PACKAGE]

_MYPY_LINE = re.compile(r"^(?P<path>[^:\s]+):\d+(?::\d+)?: (?:error|note): ")


def _pending(path: str) -> bool:
    return any(path == p or path.startswith(p.rstrip("/") + "/") for p in PENDING)


def _run(cmd: list[str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, check=False)


def ruff_findings() -> tuple[bool, str]:
    """(whether ruff passes, its output)."""
    proc = _run(RUFF)
    return proc.returncode == 0, proc.stdout + proc.stderr


def mypy_findings() -> tuple[bool, str]:
    """(whether mypy passes outside PENDING, its output less the lines about PENDING paths)."""
    proc = _run(MYPY)
    out = proc.stdout + proc.stderr
    kept = []
    pending_errors = 0
    for line in out.splitlines():
        m = _MYPY_LINE.match(line)
        if m and _pending(m["path"]):
            pending_errors += " error: " in line
            continue
        kept.append(line)
    errors = sum(" error: " in line for line in kept)
    if pending_errors:
        kept.append(f"({pending_errors} of those errors are in PENDING paths, not shown: not yet gated)")
    # rc 1 with every error in PENDING passes; any other failure (a crash, a bad option) does not.
    ok = proc.returncode == 0 or (proc.returncode == 1 and errors == 0 and pending_errors > 0)
    return ok, "\n".join(kept)


def test_ruff() -> None:
    ok, out = ruff_findings()
    assert ok, f"{' '.join(RUFF[1:])} failed:\n{out}"


@pytest.mark.timeout(300)  # ~12 s cold (a fresh checkout, as in CI), <1 s with the cache in .mypy_cache
def test_mypy_strict() -> None:
    ok, out = mypy_findings()
    assert ok, f"{' '.join(MYPY[1:])} failed:\n{out}"


def main() -> int:
    """``make lint``: both commands, their findings printed; exit status 1 if either fails."""
    failed = 0
    for name, (ok, out) in (("ruff", ruff_findings()), ("mypy", mypy_findings())):
        print(f"== {name}: {'ok' if ok else 'FAILED'}")
        if out.strip():
            print(out.rstrip())
        failed |= not ok
    return int(failed)


if __name__ == "__main__":
    sys.exit(main())
