"""The optional compiled engine (mypyc, paohuzi/_compiled.py; issue 15, docs/decisions.md "Speed"): used exactly
when built and current, never mixed with source modules, refused when stale, and identical to the Python path."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from importlib.machinery import EXTENSION_SUFFIXES
from pathlib import Path

import pytest

from paohuzi import _compiled

ROOT = Path(__file__).resolve().parent.parent
PURE_FORCED = os.environ.get("PAOHUZI_PURE", "") not in ("", "0")
BUILT = _compiled.MANIFEST.exists()
needs_build = pytest.mark.skipif(not BUILT, reason="the compiled engine is not built (no C compiler or mypy)")


def _is_extension(path: str | None) -> bool:
    return path is not None and path.endswith(tuple(EXTENSION_SUFFIXES))


def test_loaded_exactly_when_built_and_wanted() -> None:
    """Compiled whenever built (and not ``PAOHUZI_PURE=1``): a silent fall-back cannot pass for a compiled run;
    all the modules one way or all the other (they call each other natively)."""
    import importlib

    modules = [importlib.import_module(m) for m in _compiled.MODULES]
    compiled = [_is_extension(m.__file__) for m in modules]
    assert compiled == [_compiled.ACTIVE] * len(modules), (_compiled.reason(), compiled)
    if PURE_FORCED:
        assert not _compiled.ACTIVE and _compiled.reason() == "PAOHUZI_PURE is set"
    elif BUILT or os.environ.get("PAOHUZI_REQUIRE_ACCEL"):
        assert _compiled.ACTIVE, f"the compiled engine is built but not used: {_compiled.reason()}"
    else:
        assert not _compiled.ACTIVE


def test_the_manifest_lists_every_module() -> None:
    assert len(set(_compiled.MODULES)) == len(_compiled.MODULES)
    for module in _compiled.MODULES:
        assert _compiled.source_path(module).is_file(), module
    if BUILT:
        built = json.loads(_compiled.MANIFEST.read_text(encoding="utf-8"))
        assert set(built["modules"]) == set(_compiled.MODULES)


def _probe(tmp_path: Path, **env: str) -> tuple[str, str, str]:
    """(ACTIVE, reason, the file paohuzi.engine.hand came from) in a process importing the copy in ``tmp_path``."""
    probe = (
        "import paohuzi, paohuzi._compiled as c, paohuzi.engine.hand as h, paohuzi.bots.greedy as g; "
        "assert h.__file__.endswith('.py') == g.__file__.endswith('.py'); "
        "print(c.ACTIVE, h.__file__, c.reason(), sep='|')"
    )
    environ = {**os.environ, "PYTHONPATH": str(tmp_path), **env}
    if "PAOHUZI_PURE" not in env:
        environ.pop("PAOHUZI_PURE", None)
    out = subprocess.run([sys.executable, "-c", probe], env=environ, capture_output=True, text=True, check=True)
    active, where, why = out.stdout.strip().split("|")
    assert where.startswith(str(tmp_path)), where
    return active, why, where


@needs_build
def test_a_stale_or_switched_off_build_is_not_used(tmp_path: Path) -> None:
    """In a copy of the package: compiled as built; Python under ``PAOHUZI_PURE=1``; Python for every module
    once one compiled module's source is edited (an old build must never stand in for new code); Python when
    the manifest is gone."""
    copy = tmp_path / "paohuzi"
    shutil.copytree(_compiled.PACKAGE, copy, ignore=shutil.ignore_patterns("__pycache__", "web"))
    active, why, where = _probe(tmp_path)
    assert (active, why) == ("True", "compiled") and _is_extension(where)
    active, why, where = _probe(tmp_path, PAOHUZI_PURE="1")
    assert (active, why) == ("False", "PAOHUZI_PURE is set") and where.endswith("hand.py")
    with (copy / "engine" / "claims.py").open("a", encoding="utf-8") as f:
        f.write("\n# edited after the build\n")
    active, why, where = _probe(tmp_path)
    assert active == "False" and "paohuzi.engine.claims changed since it was compiled" in why
    assert where.endswith("hand.py")
    (copy / "_compiled.json").unlink()
    active, why, _ = _probe(tmp_path)
    assert active == "False" and (why.startswith("not built") or "the compiled build at" in why)
    # Sources without a build in front of a compiled one (PYTHONPATH=src before an installed paohuzi, issue 36):
    # the reason names the build that is not used and why, rather than "not built".
    active, why, _ = _probe(tmp_path, PYTHONPATH=f"{tmp_path}{os.pathsep}{ROOT / 'src'}")
    assert active == "False"
    assert why == (f"these sources ({copy}) run as Python: the compiled build at {ROOT / 'src' / 'paohuzi'} is not "
                   "used, as PYTHONPATH puts these sources first (unset it to run the compiled engine)")


def _digest(hands: int, **env: str) -> str:
    environ = {**os.environ, "PYTHONPATH": str(ROOT / "src"), **env}
    if "PAOHUZI_PURE" not in env:
        environ.pop("PAOHUZI_PURE", None)
    script = ROOT / "tests" / "support" / "compiled_digest.py"
    out = subprocess.run([sys.executable, str(script), str(hands)], env=environ, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    return out.stdout.strip()


@needs_build
def test_compiled_and_python_paths_agree_on_everything() -> None:
    """Random hands in the four rule sets (every event, referee and per seat; observations, tensors, masks,
    action IDs, records, outcomes), greedy and search matches, and the refusals of bad input: one digest."""
    compiled = _digest(40)
    python = _digest(40, PAOHUZI_PURE="1")
    assert compiled.split()[0] == "compiled"  # also in make test's PAOHUZI_PURE=1 pass: the child drops it
    assert python.split()[0] == "python"
    assert compiled.split()[1] == python.split()[1]


def test_setup_reads_the_same_module_list() -> None:
    """setup.py compiles paohuzi/_compiled.py's MODULES (read without importing the package) and the Makefile
    rebuilds when any of their sources changes."""
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    assert '"MODULES"' in (ROOT / "setup.py").read_text(encoding="utf-8")
    out = subprocess.run(["make", "-s", "-p", "-n", "-f", str(ROOT / "Makefile"), "venv"], cwd=ROOT,
                         capture_output=True, text=True)
    line = next(x for x in out.stdout.splitlines() if x.startswith("COMPILED_SOURCES :="))
    listed = line.split(":=", 1)[1].split()
    assert sorted(listed) == sorted(str(_compiled.source_path(m).relative_to(ROOT)) for m in _compiled.MODULES)
    assert "$(COMPILED_SOURCES)" in makefile


def _written_out_inits() -> list[tuple[str, str, list[str], list[str], list[str]]]:
    """(file, class, its dataclass fields incl. inherited, __init__'s parameters, the fields it sets in order)
    for every ``@dataclass(..., init=False)`` class of the compiled modules."""
    import ast

    found = []
    for module in _compiled.MODULES:
        path = _compiled.source_path(module)
        tree = ast.parse(path.read_text(encoding="utf-8"))
        own: dict[str, list[str]] = {}
        for node in tree.body:
            if not isinstance(node, ast.ClassDef):
                continue
            names = [s.target.id for s in node.body if isinstance(s, ast.AnnAssign) and isinstance(s.target, ast.Name)]
            base = node.bases[0].id if node.bases and isinstance(node.bases[0], ast.Name) else None
            own[node.name] = own.get(base, []) + names if base else names
            written = any(
                isinstance(d, ast.Call) and any(k.arg == "init" for k in d.keywords) for d in node.decorator_list
            )
            if not written:
                continue
            init = next(s for s in node.body if isinstance(s, ast.FunctionDef) and s.name == "__init__")
            params = [a.arg for a in init.args.args[1:]]
            calls = [c.value for c in init.body if isinstance(c, ast.Expr) and isinstance(c.value, ast.Call)]
            sets = [c.args[1].value for c in calls]
            found.append((path.name, node.name, own[node.name], params, sets))
    return found


def test_written_out_inits_match_their_fields() -> None:
    """The frozen dataclasses built on the hot path write their ``__init__`` out (``init=False``) so that mypyc
    compiles it (docs/decisions.md "The compiled engine"): each takes exactly its fields, in order, and sets
    each of them, in order — what the generated one would do."""
    import dataclasses
    import importlib

    inits = _written_out_inits()
    assert {cls for _, cls, *_ in inits} >= {"Discard", "Draw", "Hu", "Observation", "RowCard", "View", "World"}
    for file, cls, fields, params, sets in inits:
        assert params == fields == sets, (file, cls)
    for module in _compiled.MODULES:
        for value in vars(importlib.import_module(module)).values():
            if isinstance(value, type) and dataclasses.is_dataclass(value) and value.__module__ == module:
                names = [f.name for f in dataclasses.fields(value)]
                match = [i for i in inits if i[1] == value.__name__]
                if match:
                    assert names == match[0][2], value
