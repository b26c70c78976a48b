"""What the tests of the two compiled accelerators share — ``paohuzi._accel`` (tests/analysis/test_accel.py) and
``paohuzi._accel_bots`` (tests/bots/test_evaluation_accel.py): whether one is built, whether ``PAOHUZI_PURE=1``
forces Python, that it is loaded exactly when built, switching it off, and a stale copy refused."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from importlib.machinery import EXTENSION_SUFFIXES
from pathlib import Path
from types import ModuleType

import pytest

import paohuzi

PACKAGE = Path(paohuzi.__file__).resolve().parent
PURE_FORCED = os.environ.get("PAOHUZI_PURE", "") not in ("", "0")


def built(stem: str) -> list[Path]:
    """The compiled modules named ``stem`` (e.g. ``_accel``) that lie in the package."""
    return [
        p for p in PACKAGE.iterdir() if p.name.startswith(stem + ".") and p.name.endswith(tuple(EXTENSION_SUFFIXES))
    ]


def check_loaded_when_built(accelerated: bool, stem: str, what: str) -> None:
    """Off under ``PAOHUZI_PURE=1``; on whenever built (or ``PAOHUZI_REQUIRE_ACCEL`` is set): a silent fall-back
    cannot pass for an accelerated run."""
    if PURE_FORCED:
        assert not accelerated, "PAOHUZI_PURE=1 must force the pure-Python path"
    elif built(stem) or os.environ.get("PAOHUZI_REQUIRE_ACCEL"):
        assert accelerated, (
            f"{what} {[p.name for p in built(stem)]} is built but not loaded: {stem}.pyx changed since the build "
            "(stale) or it failed to import; rebuild with `make venv` or `pip install -e .`"
        )
    else:
        pytest.skip(f"{what} is not built (no C compiler at install time)")


@contextmanager
def python_only(module: ModuleType) -> Iterator[None]:
    """Switch ``module``'s accelerator (its ``_ACCEL``, and ``_ACCEL_Y``, the 一五十 copy of R9.3, where it has one)
    off for the calls in the block."""
    saved = module._ACCEL
    saved_y = getattr(module, "_ACCEL_Y", None)
    module._ACCEL = None
    if saved_y is not None:
        module._ACCEL_Y = None
    try:
        yield
    finally:
        module._ACCEL = saved
        if saved_y is not None:
            module._ACCEL_Y = saved_y


def check_a_stale_copy_is_refused(tmp_path: Path, user: str, stem: str) -> None:
    """In a copy of the package, ``user`` (the module that loads the accelerator) runs accelerated until
    ``stem``.pyx is edited, then Python."""
    copy = tmp_path / "paohuzi"
    shutil.copytree(PACKAGE, copy, ignore=shutil.ignore_patterns("__pycache__", "web"))
    probe = f"import paohuzi, {user} as m; print(m.ACCELERATED, paohuzi.__file__)"
    env = {**os.environ, "PYTHONPATH": str(tmp_path)}
    env.pop("PAOHUZI_PURE", None)

    def accelerated() -> bool:
        out = subprocess.run([sys.executable, "-c", probe], env=env, capture_output=True, text=True, check=True)
        flag, where = out.stdout.split()
        assert where.startswith(str(tmp_path)), where
        return flag == "True"

    assert accelerated()
    with (copy / f"{stem}.pyx").open("a", encoding="utf-8") as f:
        f.write("\n# edited after the build\n")
    assert not accelerated()
