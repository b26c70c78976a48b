"""The optional compiled accelerators (Cython; docs/decisions.md "Speed"): the hand analysis (``paohuzi._accel``)
and the bots' split search (``paohuzi._accel_bots``).

Everything else is in pyproject.toml. The extension is optional: without Cython or a working C compiler the
build says so in one line and goes on, and ``paohuzi.analysis`` / ``paohuzi.bots.evaluation`` run their
pure-Python paths (identical answers). ``PAOHUZI_PURE_BUILD=1`` skips them on purpose. For a checkout used
with ``PYTHONPATH=src``: ``python setup.py build_ext --inplace`` puts the modules next to their sources (``make
venv`` does it).
"""

from __future__ import annotations

import hashlib
import os
import sys
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = Path(__file__).resolve().parent
PACKAGE = ROOT / "src" / "paohuzi"
# Module name -> its sources, in the order of the module's own SOURCES (the guard is included by both): the
# analysis and the bots' split search.
SOURCES = {
    "paohuzi._accel": (PACKAGE / "_accel.pyx", PACKAGE / "_accel_guard.pxi"),
    "paohuzi._accel_bots": (PACKAGE / "_accel_bots.pyx", PACKAGE / "_accel_guard.pxi"),
}


def _sha256(paths: tuple[Path, ...]) -> str:
    digest = hashlib.sha256()
    for path in paths:
        digest.update(path.read_bytes())
    return digest.hexdigest()


def _say(text: str) -> None:
    print(f"paohuzi: {text}", file=sys.stderr)


class OptionalBuildExt(build_ext):
    """build_ext that never fails the install: a compile error leaves the pure-Python path in place."""

    def run(self) -> None:
        try:
            super().run()
        except Exception as exc:  # noqa: BLE001 — any build failure means "no accelerator", never a failed install
            _say(f"the compiled accelerator was not built ({type(exc).__name__}: {exc}); using pure Python")

    def build_extension(self, ext: Extension) -> None:
        try:
            super().build_extension(ext)
        except Exception as exc:  # noqa: BLE001 — as above
            _say(f"the compiled accelerator was not built ({type(exc).__name__}: {exc}); using pure Python")


def _extensions() -> list[Extension]:
    if os.environ.get("PAOHUZI_PURE_BUILD", "") not in ("", "0"):
        _say("PAOHUZI_PURE_BUILD is set: not building the compiled accelerator")
        return []
    try:
        from Cython.Build import cythonize
    except ImportError:
        _say("Cython is not installed: not building the compiled accelerator (pure Python)")
        return []
    exts = [
        Extension(
            name,
            [str(sources[0].relative_to(ROOT))],
            # The sources' hash, so that the module refuses to stand in for an edited source (usable() checks).
            define_macros=[("PAOHUZI_SOURCE_SHA256", f'"{_sha256(sources)}"')],
        )
        for name, sources in SOURCES.items()
    ]
    try:
        return list(cythonize(exts, language_level=3, quiet=True))
    except Exception as exc:  # noqa: BLE001 — a Cython error must not fail the install either
        _say(f"Cython could not translate the accelerator ({exc}); using pure Python")
        return []


setup(ext_modules=_extensions(), cmdclass={"build_ext": OptionalBuildExt})
