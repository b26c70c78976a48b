"""The optional compiled accelerators (docs/decisions.md "Speed"): the hand analysis (``paohuzi._accel``), the
bots' split search (``paohuzi._accel_bots``) and the batched environment's tensor (``paohuzi._accel_tensor``),
Cython; and the engine's own modules compiled by mypyc as they are (``paohuzi._compiled.MODULES``), with a
manifest of the sources they were compiled from.

Everything else is in pyproject.toml. The extension is optional: without Cython or a working C compiler the
build says so in one line and goes on, and ``paohuzi.analysis`` / ``paohuzi.bots.evaluation`` run their
pure-Python paths (identical answers). ``PAOHUZI_PURE_BUILD=1`` skips them on purpose. For a checkout used
with ``PYTHONPATH=src``: ``python setup.py build_ext --inplace`` puts the modules next to their sources (``make
venv`` does it).
"""

from __future__ import annotations

import hashlib
import json
import os
import runpy
import sys
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = Path(__file__).resolve().parent
PACKAGE = ROOT / "src" / "paohuzi"
# Module name -> its sources, in the order of the module's own SOURCES (the guard is included by both; the
# analysis also includes its objects and its search): the analysis and the bots' split search.
SOURCES = {
    "paohuzi._accel": (
        PACKAGE / "_accel.pyx",
        PACKAGE / "_accel_guard.pxi",
        PACKAGE / "_accel_objects.pxi",
        PACKAGE / "_accel_search.pxi",
        PACKAGE / "_accel_every.pxi",
    ),
    "paohuzi._accel_bots": (PACKAGE / "_accel_bots.pyx", PACKAGE / "_accel_guard.pxi"),
    "paohuzi._accel_tensor": (PACKAGE / "_accel_tensor.pyx", PACKAGE / "_accel_guard.pxi"),
    "paohuzi._accel_ws": (PACKAGE / "_accel_ws.pyx", PACKAGE / "_accel_guard.pxi"),
}
# The analysis again, with the 一五十 shape set (R9.3): the same sources (and hash), compiled from a one-line
# wrapper that includes _accel.pyx, as a second module with its own tables and memo.
SOURCES["paohuzi._accel_yiwushi"] = SOURCES["paohuzi._accel"]
COMPILED_FROM = {"paohuzi._accel_yiwushi": PACKAGE / "_accel_yiwushi.pyx"}


def _sha256(paths: tuple[Path, ...]) -> str:
    digest = hashlib.sha256()
    for path in paths:
        digest.update(path.read_bytes())
    return digest.hexdigest()


def _say(text: str) -> None:
    print(f"paohuzi: {text}", file=sys.stderr)


# paohuzi/_compiled.py, read without importing the package (it needs nothing but the standard library).
COMPILED = runpy.run_path(str(PACKAGE / "_compiled.py"))
# The engine sources as mypyc compiled them in this run (None: not compiled), for the manifest.
_ENGINE_DIGESTS: dict[str, str] | None = None


class OptionalBuildExt(build_ext):
    """build_ext that never fails the install: a compile error leaves the pure-Python path in place. The
    compiled engine's manifest is written only when every one of its modules was built (else removed), so
    that paohuzi/_compiled.py never takes an old build for the current sources."""

    _failed: set[str]

    def run(self) -> None:
        self._failed = set()
        manifest = Path(self.get_ext_fullpath(COMPILED["GROUP"])).parent / COMPILED["MANIFEST"].name
        manifest.unlink(missing_ok=True)
        try:
            super().run()
        except Exception as exc:  # noqa: BLE001 — any build failure means "no accelerator", never a failed install
            _say(f"the compiled accelerator was not built ({type(exc).__name__}: {exc}); using pure Python")
            self._failed.add("*")
        engine = {COMPILED["SHARED_LIBRARY"], *COMPILED["MODULES"]}
        if _ENGINE_DIGESTS is not None and not self._failed & (engine | {"*"}):
            manifest.parent.mkdir(parents=True, exist_ok=True)
            manifest.write_text(
                json.dumps({"python": sys.implementation.cache_tag, "modules": _ENGINE_DIGESTS}, indent=1) + "\n",
                encoding="utf-8",
            )
        elif _ENGINE_DIGESTS is not None:
            _say("the compiled engine was not built; the engine runs as pure Python")

    def build_extension(self, ext: Extension) -> None:
        try:
            super().build_extension(ext)
        except Exception as exc:  # noqa: BLE001 — as above
            self._failed.add(ext.name)
            _say(f"the compiled accelerator {ext.name} was not built ({type(exc).__name__}: {exc}); using pure Python")


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
            [str(COMPILED_FROM.get(name, sources[0]).relative_to(ROOT))],
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


# The build type-checks without the package's dependencies (pip builds in an isolated environment: no numpy,
# Gymnasium …), so the checks that depend on their stubs are relaxed here; `make lint` runs the strict check.
# None of these changes the compiled code of the modules, which use none of those packages' types.
_MYPYC_CHECKS = [
    "--ignore-missing-imports",
    "--no-warn-unused-ignores",
    "--allow-subclassing-any",
    "--no-warn-return-any",
    "--allow-untyped-calls",
    "--allow-untyped-decorators",
]


def _engine_extensions() -> list[Extension]:
    """The engine modules compiled by mypyc (the same .py files: identical behaviour, tests/test_compiled.py)."""
    global _ENGINE_DIGESTS
    if os.environ.get("PAOHUZI_PURE_BUILD", "") not in ("", "0"):
        return []
    try:
        from mypyc.build import mypycify
    except ImportError:
        _say("mypy (mypyc) is not installed: not compiling the engine (pure Python)")
        return []
    digests = COMPILED["source_digests"]()
    paths = [str(COMPILED["source_path"](m).relative_to(ROOT)) for m in COMPILED["MODULES"]]
    try:
        exts = list(mypycify([*_MYPYC_CHECKS, *paths], opt_level="3", debug_level="0", group_name=COMPILED["GROUP"]))
    except BaseException as exc:  # noqa: BLE001 — mypyc exits on a type error: still never a failed install
        _say(f"mypyc could not compile the engine ({type(exc).__name__}: {exc}); the engine runs as pure Python")
        return []
    _ENGINE_DIGESTS = digests
    return exts


setup(ext_modules=_extensions() + _engine_extensions(), cmdclass={"build_ext": OptionalBuildExt})
