"""Imports go one way (STYLE 1): cards → groups → rules → analysis → scoring → engine → {bots, env, server}.

Each module may import only the layers below it; the engine stays pure (no I/O, no clock, no global random).
"""

from __future__ import annotations

import ast
import functools
from dataclasses import dataclass
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parent.parent / "src" / "paohuzi"

# layer -> the paohuzi layers it may import
ALLOWED = {
    "cards": set(),
    "groups": {"cards"},
    "rules": {"cards"},
    "analysis": {"cards", "groups", "rules"},
    "scoring": {"cards", "groups", "rules", "analysis"},
    "engine": {"cards", "groups", "rules", "analysis", "scoring"},
    "bots": {"cards", "groups", "rules", "analysis", "scoring", "engine", "stats"},
    "stats": set(),
    "env": {"cards", "groups", "rules", "analysis", "scoring", "engine", "bots", "stats"},
    # The compiled build's bookkeeping (paohuzi/_compiled.py): below every layer, it imports none of them. The
    # compiled modules import its run-time no-ops (mypyc_attr, reduce_frozen).
    "_compiled": set(),
}
for _layer_imports in ALLOWED.values():
    if _layer_imports is not ALLOWED["_compiled"]:
        _layer_imports.add("_compiled")
# Modules the pure core must never import (R2 decision: a hand is reproducible from rules, seed, actions).
IMPURE = {"time", "datetime", "socket", "asyncio", "os", "subprocess", "threading", "sqlalchemy", "fastapi"}
PURE_LAYERS = {"cards", "groups", "rules", "analysis", "scoring", "engine"}


@functools.cache
def _tree(path: Path) -> ast.Module:
    """The syntax tree of a source file, parsed once for all the checks of a run (they only read it)."""
    return ast.parse(path.read_text(encoding="utf-8"))


def _layer(path: Path) -> str:
    rel = path.relative_to(SRC)
    return rel.parts[0].removesuffix(".py")


def _module(path: Path) -> str:
    """``src/paohuzi/engine/hand.py`` → ``paohuzi.engine.hand``; a package's ``__init__`` is the package."""
    parts = list(path.relative_to(SRC.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


@dataclass(frozen=True)
class Import:
    name: str  # the module named: ``a.b`` for ``import a.b`` and ``from a.b import c``
    names: tuple[str, ...]  # what a ``from`` import takes from it
    line: int
    type_only: bool  # under ``if TYPE_CHECKING:``: never runs


class _Imports(ast.NodeVisitor):
    """Every absolute import of a module, at any depth (inside functions too: those run, later), each marked
    whether it sits under ``if TYPE_CHECKING:`` (only its body; its ``else`` runs)."""

    def __init__(self) -> None:
        self.found: list[Import] = []
        self._type_only = 0

    def visit_If(self, node: ast.If) -> None:
        if not _is_type_checking(node.test):
            self.generic_visit(node)
            return
        self._type_only += 1
        for child in node.body:
            self.visit(child)
        self._type_only -= 1
        for child in node.orelse:
            self.visit(child)

    def visit_Import(self, node: ast.Import) -> None:
        self.found += [Import(a.name, (), node.lineno, self._type_only > 0) for a in node.names]

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        assert node.level == 0, f"line {node.lineno}: relative import (the package uses absolute imports)"
        assert node.module is not None
        names = tuple(a.name for a in node.names)
        self.found.append(Import(node.module, names, node.lineno, self._type_only > 0))


def _imports(path: Path) -> list[Import]:
    visitor = _Imports()
    visitor.visit(_tree(path))
    return visitor.found


def test_type_checking_imports_are_told_apart() -> None:
    """The ``if TYPE_CHECKING:`` body is type-only; everything else, nested in functions too, runs."""
    code = (
        "import typing\nfrom typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import a\n"
        "    if x:\n        import b\nelse:\n    import c\nif typing.TYPE_CHECKING:\n    import d\n"
        "def f():\n    from e import g\n"
    )
    visitor = _Imports()
    visitor.visit(ast.parse(code))
    assert [(i.name, i.type_only) for i in visitor.found] == [
        ("typing", False),
        ("typing", False),
        ("a", True),
        ("b", True),
        ("c", False),
        ("d", True),
        ("e", False),
    ]


FILES = sorted(p for p in SRC.rglob("*.py") if _layer(p) in ALLOWED)
ALL_FILES = sorted(SRC.rglob("*.py"))


@pytest.mark.parametrize("path", FILES, ids=lambda p: str(p.relative_to(SRC)))
def test_imports_go_one_way(path: Path) -> None:
    """Type-only imports too: a type from an upper layer is still a dependency on it."""
    layer = _layer(path)
    for imp in _imports(path):
        parts = imp.name.split(".")
        if parts[0] == "paohuzi" and len(parts) > 1:
            target = parts[1]
            assert target == layer or target in ALLOWED[layer], f"{path.name}:{imp.line} ({layer}) imports {imp.name}"
        if parts[0] == "paohuzi" and len(parts) == 1:  # ``from paohuzi import engine``; not a name of the root
            for target in [n for n in imp.names if (SRC / n).is_dir() or (SRC / f"{n}.py").is_file()]:
                assert target == layer or target in ALLOWED[layer], f"{path.name}:{imp.line} ({layer}) imports {target}"
        if layer in PURE_LAYERS and not imp.type_only:
            # A type-only import never runs: it cannot make the core impure.
            assert parts[0] not in IMPURE, f"{path.name}:{imp.line}: the pure core imports {imp.name}"


def _graph() -> dict[str, set[str]]:
    """Module → the package's modules it imports when it runs (type-only imports left out). ``from p import
    m`` is an import of the module ``p.m`` when there is one, else of ``p``."""
    modules = {_module(p): p for p in ALL_FILES}
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        edges = graph.setdefault(name, set())
        for imp in _imports(path):
            if imp.type_only or imp.name.split(".")[0] != "paohuzi":
                continue
            subs = [f"{imp.name}.{n}" for n in imp.names if f"{imp.name}.{n}" in modules]
            if imp.name in modules and len(subs) < len(imp.names):
                edges.add(imp.name)
            edges.update(subs)
    return graph


def _cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One import cycle, as the modules along it, or None."""
    state: dict[str, int] = {}  # 1: on the path, 2: done
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        path.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                return path[path.index(nxt) :] + [nxt]
            if nxt not in state and (found := visit(nxt)) is not None:
                return found
        state[node] = 2
        path.pop()
        return None

    for node in sorted(graph):
        if node not in state and (found := visit(node)) is not None:
            return found
    return None


def test_cycle_finder() -> None:
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": set()}) is None
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]


def test_the_package_has_no_import_cycle() -> None:
    """No module of the package imports (at run time, at any depth) one that imports it back, directly or
    through others (issue #10: the server's room and hub were such a pair)."""
    graph = _graph()
    assert "paohuzi.server.room" in graph and "paohuzi.server.hub" in graph["paohuzi.server.ws"]
    cycle = _cycle(graph)
    assert cycle is None, "import cycle: " + " → ".join(cycle)


@pytest.mark.parametrize("path", [p for p in FILES if _layer(p) in PURE_LAYERS], ids=lambda p: str(p.relative_to(SRC)))
def test_core_uses_no_global_random(path: Path) -> None:
    tree = _tree(path)
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and node.value.id == "random"
            and node.attr not in ("Random",)
        ):
            raise AssertionError(f"{path.name}:{node.lineno}: random.{node.attr} uses the global random state")


# Issue 10 acceptance: no module of the package over ~600 lines; a longer one holds several concerns (split it).
MAX_LINES = 600
# Explicit exceptions, each with its reason and its line count today (the test also fails if one grows, so the
# debt can only shrink): delete an entry once the module is split.
OVERSIZED: dict[str, int] = {}


@pytest.mark.parametrize("path", ALL_FILES, ids=lambda p: str(p.relative_to(SRC)))
def test_no_module_is_over_600_lines(path: Path) -> None:
    rel = path.relative_to(SRC).as_posix()
    lines = len(path.read_text(encoding="utf-8").splitlines())
    limit = OVERSIZED.get(rel, MAX_LINES)
    assert lines <= limit, f"{rel} has {lines} lines (at most {limit}): split it along its seams"


def test_oversized_exceptions_are_still_needed() -> None:
    """An exception for a module that is already short enough (or gone) is removed, not left to hide growth."""
    for rel in OVERSIZED:
        path = SRC / rel
        assert path.is_file(), f"OVERSIZED lists {rel}, which does not exist"
        assert len(path.read_text(encoding="utf-8").splitlines()) > MAX_LINES, f"{rel} is short enough: unlist it"


# ---- the test tree (issue 28): a package, helpers in tests/support/, no sys.path edits ---------------------

TESTS = Path(__file__).resolve().parent
# Folders of data, not code: recorded games and golden corpora.
DATA_FOLDERS = {"__pycache__", "records", "replays", "simulate_qq_records", "simulate_hunan_records"}


def _test_folders() -> list[Path]:
    return [TESTS, *(p for p in sorted(TESTS.rglob("*")) if p.is_dir() and not DATA_FOLDERS & set(p.parts))]


def test_every_tests_folder_is_a_package() -> None:
    """Every folder of ``tests/`` holding code has an ``__init__.py``: a helper is imported relatively
    (``from ..support.server import ServerProcess``) and every module has one dotted name, never found
    through ``sys.path`` or pytest's rootdir."""
    missing = [str(p.relative_to(TESTS.parent)) for p in _test_folders() if not (p / "__init__.py").is_file()]
    assert not missing, f"not a package (add an __init__.py): {missing}"
    stray = [
        str(p.relative_to(TESTS.parent))
        for p in TESTS.rglob("*.py")
        if DATA_FOLDERS & set(p.relative_to(TESTS).parts)
    ]
    assert not stray, f"code in a data folder: {stray}"


def _edits_sys_path(tree: ast.AST) -> bool:
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.attr == "path" and getattr(node.value, "id", None) == "sys":
            return True
        if isinstance(node, ast.Attribute) and node.attr == "syspath_prepend":
            return True
    return False


def _names_sys_and_path(path: Path) -> bool:
    """Whether the source has both words :func:`_edits_sys_path` looks for (the name ``sys``, an attribute
    ``path`` or ``syspath_prepend``): only those files are parsed — a test tree's parse was ~4 s under load."""
    text = path.read_text(encoding="utf-8")
    return "sys" in text and "path" in text


# tests/bots/test_registry.py loads a bot from a module of the user's (its ``module:factory`` spec, docs/bots.md):
# the folder it writes that module into is on sys.path as a user's would be.
SYS_PATH_ALLOWED = {"tests/bots/test_registry.py", "tests/test_architecture.py"}


def test_no_test_module_edits_sys_path() -> None:
    """Shared helpers live in tests/support/ (the server launcher, the databases, the accelerator checks, the
    examples' scripts as modules) and are imported as a package's modules, not put on ``sys.path``."""
    editing = [
        name
        for p in sorted(TESTS.rglob("*.py"))
        if (name := str(p.relative_to(TESTS.parent))) not in SYS_PATH_ALLOWED
        and _names_sys_and_path(p)
        and _edits_sys_path(_tree(p))
    ]
    assert not editing, f"edit sys.path (use tests/support/ instead): {editing}"


# ---- composition, not inheritance (issue 28; docs/DEVELOPING.md, convention 12) ----------------------------

# A server class may derive from another only to be one of these kinds of thing (the base's family is judged
# by its own bases, down to a name outside the server): an exception, a Protocol, an enum, a pydantic model,
# a TypedDict, a NamedTuple, or an SQLAlchemy model.
ALLOWED_FAMILIES = {
    *("BaseException", "Exception", "RuntimeError", "ValueError", "KeyError", "LookupError", "PaohuziError"),
    *("Protocol", "Enum", "IntEnum", "StrEnum", "BaseModel", "TypedDict", "NamedTuple", "DeclarativeBase"),
}
# Built-in containers used as a base: the class then *is* a dict (every caller may write past its rules).
CONTAINERS = {"dict", "list", "set", "frozenset", "tuple", "defaultdict", "OrderedDict", "Counter", "deque",
              "UserDict", "UserList"}


def _base_name(node: ast.expr) -> str:
    if isinstance(node, ast.Subscript):
        return _base_name(node.value)
    if isinstance(node, ast.Attribute):
        return node.attr
    return node.id if isinstance(node, ast.Name) else ""


def _server_classes() -> dict[str, tuple[str, list[str]]]:
    """Class name → (module, base names) for every class defined in src/paohuzi/server."""
    found = {}
    for path in sorted(SERVER.glob("*.py")):
        for node in ast.walk(_tree(path)):
            if isinstance(node, ast.ClassDef):
                found[node.name] = (path.stem, [_base_name(b) for b in node.bases])
    return found


def _family_allowed(name: str, classes: dict[str, tuple[str, list[str]]], seen: frozenset[str] = frozenset()) -> bool:
    if name in ALLOWED_FAMILIES:
        return True
    if name not in classes or name in seen:
        return False
    return any(_family_allowed(b, classes, seen | {name}) for b in classes[name][1])


def test_no_server_class_inherits_from_another_server_class() -> None:
    """A behaviour that differs is an object passed in (a port), not a subclass (the shared mode's hub used to
    override 15 of the hub's methods) nor a container subclass that does I/O in ``__setitem__``."""
    classes = _server_classes()
    bad = [
        f"{module}.{name}({base})"
        for name, (module, bases) in sorted(classes.items())
        for base in bases
        if base in CONTAINERS or (base in classes and not _family_allowed(base, classes))
    ]
    assert not bad, f"server classes deriving from a server class or a container: {bad}"


def test_the_inheritance_check_tells_families_apart() -> None:
    classes = {
        "Hub": ("hub", []),
        "SharedHub": ("shared", ["Hub"]),
        "RoomError": ("frames", ["Exception"]),
        "_Frame": ("protocol", ["BaseModel"]),
    }
    assert [n for n in ("Hub", "RoomError", "_Frame") if _family_allowed(n, classes)] == ["RoomError", "_Frame"]


def _type_checking_members(tree: ast.AST) -> list[str]:
    """``Class: line`` of every ``if TYPE_CHECKING:`` block inside a class body that declares members."""
    found = []
    for cls in [n for n in ast.walk(tree) if isinstance(n, ast.ClassDef)]:
        for node in cls.body:
            if isinstance(node, ast.If) and _is_type_checking(node.test):
                members = (ast.FunctionDef, ast.AsyncFunctionDef, ast.AnnAssign, ast.Assign)
                if any(isinstance(x, members) for x in node.body):
                    found.append(f"{cls.name}: {node.lineno}")
    return found


def test_no_type_checking_import_describes_a_siblings_private_methods() -> None:
    """A mixin used to declare its host class's private methods under ``if TYPE_CHECKING:`` (so that mypy
    believed them); a collaborator is given what it calls instead."""
    bad = [
        f"{path.relative_to(SRC)} {where}"
        for path in ALL_FILES
        for where in _type_checking_members(_tree(path))
    ]
    assert not bad, f"classes declaring members under TYPE_CHECKING: {bad}"


def test_the_type_checking_finder_sees_a_class_body_block() -> None:
    code = "class A:\n    x: int\n    if TYPE_CHECKING:\n        def _f(self) -> None: ...\n"
    assert _type_checking_members(ast.parse(code)) == ["A: 3"]



def test_no_module_is_kept_short_by_a_mixin() -> None:
    """Issue 28: the 600-line limit was once met by splitting one class into mixins stacked across files
    (the engine's ``Hand``, the hub's public tables, the room's dissolution). A behaviour that differs is an
    object passed in; a class of ``src/`` named ``…Mixin`` is the old split."""
    bad = [
        f"{path.relative_to(SRC)}: {node.name}"
        for path in ALL_FILES
        for node in ast.walk(_tree(path))
        if isinstance(node, ast.ClassDef) and node.name.endswith("Mixin")
    ]
    assert not bad, f"mixin classes (compose instead): {bad}"

# ---- the size limit in every language (issue 28) ------------------------------------------------------------

# A module is code read as one unit: Python, the web client's ES modules (src/paohuzi/web/js), Cython sources
# and their includes. Data is not a module: the client's words (web/i18n/*.json), presets (*.toml), records.
MODULE_SUFFIXES = (".py", ".js", ".pyx", ".pxi")


def test_no_module_over_600_lines_in_any_language() -> None:
    """:data:`MAX_LINES` and :data:`OVERSIZED` (the limit of ``test_no_module_is_over_600_lines``) for every
    module under ``src/``, whatever its language: a long client module or Cython file holds several concerns
    as surely as a long Python one."""
    modules = sorted(p for p in SRC.parent.rglob("*") if p.suffix in MODULE_SUFFIXES and p.is_file())
    assert {".py", ".js", ".pyx"} <= {p.suffix for p in modules}, "the search finds every language"
    over = {}
    for path in modules:
        rel = (path.relative_to(SRC) if SRC in path.parents else path.relative_to(SRC.parent)).as_posix()
        lines = len(path.read_text(encoding="utf-8").splitlines())
        if lines > OVERSIZED.get(rel, MAX_LINES):
            over[rel] = lines
    assert not over, f"over {MAX_LINES} lines (or over their OVERSIZED count): {over}; split them along their seams"


# ---- typed seams (issue 28): `Any` only where JSON enters or leaves ------------------------------------

SERVER = SRC / "server"
# Public server functions whose signature may still mention `Any` (issue 28 acceptance: at most 20).
MAX_ANY_SIGNATURES = 20


def _mentions(node: ast.AST | None, names: set[str]) -> bool:
    """Whether an annotation names ``Any`` (or an alias of it: ``View = dict[str, Any]``)."""
    if node is None:
        return False
    for n in ast.walk(node):
        if isinstance(n, ast.Name) and n.id in names or isinstance(n, ast.Attribute) and n.attr in names:
            return True
        if isinstance(n, ast.Constant) and isinstance(n.value, str):
            # a string annotation ("dict[str, Any]") or a name in it
            if any(name in n.value.replace("[", " ").replace("]", " ").replace(",", " ").split() for name in names):
                return True
    return False


def _any_aliases(trees: list[ast.Module]) -> set[str]:
    """``Any`` and the server's module-level aliases of types that mention it (``View = dict[str, Any]``)."""
    names = {"Any"}
    for tree in trees:
        for node in tree.body:
            if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
                target, value = node.targets[0].id, node.value
            elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.value is not None:
                target, value = node.target.id, node.value
            else:
                continue
            if target[:1].isupper() and isinstance(value, ast.Subscript | ast.BinOp) and _mentions(value, {"Any"}):
                names.add(target)
    return names


def _public_functions(tree: ast.Module) -> list[tuple[str, ast.FunctionDef | ast.AsyncFunctionDef]]:
    """Module-level functions and the methods of public classes, named ``_x`` only for ``__init__``."""
    found: list[tuple[str, ast.FunctionDef | ast.AsyncFunctionDef]] = []
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            found.append((node.name, node))
        elif isinstance(node, ast.ClassDef) and not node.name.startswith("_"):
            found += [
                (f"{node.name}.{sub.name}", sub)
                for sub in node.body
                if isinstance(sub, ast.FunctionDef | ast.AsyncFunctionDef)
            ]
    return [(name, fn) for name, fn in found if fn.name == "__init__" or not fn.name.startswith("_")]


def _signatures_mentioning_any(paths: list[Path]) -> list[str]:
    trees = {path: _tree(path) for path in paths}
    names = _any_aliases(list(trees.values()))
    offenders = []
    for path, tree in trees.items():
        for name, fn in _public_functions(tree):
            a = fn.args
            params = [*a.posonlyargs, *a.args, *a.kwonlyargs, *(x for x in (a.vararg, a.kwarg) if x is not None)]
            if any(_mentions(x.annotation, names) for x in params) or _mentions(fn.returns, names):
                offenders.append(f"{path.stem}.{name}")
    return offenders


def test_the_any_counter_sees_parameters_returns_and_aliases(tmp_path: Path) -> None:
    code = (
        "from typing import Any\nView = dict[str, Any]\nJob = int\n"
        "def a(x: Any) -> None: ...\ndef b() -> list[View]: ...\nasync def c(**k: 'Any') -> None: ...\n"
        "def d(x: Job) -> int: ...\ndef _e(x: Any) -> None: ...\n"
        "class P:\n    def __init__(self, x: View) -> None: ...\n    def _f(self) -> Any: ...\n"
        "class _Q:\n    def g(self) -> Any: ...\n"
    )
    path = tmp_path / "x.py"
    path.write_text(code, encoding="utf-8")
    assert _signatures_mentioning_any([path]) == ["x.a", "x.b", "x.c", "x.P.__init__"]


def test_public_server_functions_mentioning_any() -> None:
    """Issue 28: the server's seams are typed (TypedDicts, dataclasses, RoomOptions …); ``Any`` stays only
    where JSON enters or leaves and no better type exists — in at most 20 public signatures."""
    offenders = _signatures_mentioning_any(sorted(SERVER.glob("*.py")))
    assert len(offenders) <= MAX_ANY_SIGNATURES, (
        f"{len(offenders)} public server functions mention Any (at most {MAX_ANY_SIGNATURES}): {offenders}"
    )


def test_hand_mro_holds_at_most_two_engine_classes() -> None:
    """Issue 28: the engine's ``Hand`` is composed (a state, its seats, the turn logic, the claim window), not
    one class stacked across modules by inheritance: its MRO holds itself and at most one other class of
    ``paohuzi.engine``."""
    from paohuzi.engine import Hand

    engine = [c.__qualname__ for c in Hand.__mro__ if c.__module__.startswith("paohuzi.engine")]
    assert engine[0] == "Hand" and len(engine) <= 2, f"Hand's MRO holds {engine}"


def test_server_and_commands_import_the_engine_only_from_its_package() -> None:
    """Issue 28: the server and the CLI use the engine's public names (``paohuzi.engine``: Hand, Match, the
    typed records, ``replay_match``, ``FORMAT_VERSION`` …), never one of its modules."""
    outside = [
        f"{p.relative_to(SRC)}:{imp.line} imports {imp.name}"
        for p in ALL_FILES
        if p.relative_to(SRC).parts[0] in ("server", "commands")
        for imp in _imports(p)
        if imp.name.startswith("paohuzi.engine.")
    ]
    assert not outside, outside
