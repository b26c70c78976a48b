"""Root pytest configuration: the doctests of compiled modules (paohuzi/_compiled.py; docs/decisions.md, "The
compiled engine").

With the compiled engine active, a module of ``paohuzi._compiled.MODULES`` is an extension module, and pytest
cannot collect the doctests of its ``.py`` (the imported module is not that file). Those doctests run in
``make test``'s second pass (``PAOHUZI_PURE=1``), on the same source; the first pass runs every other test
against the compiled code.
"""

from __future__ import annotations

from pathlib import Path

from paohuzi import _compiled


def pytest_ignore_collect(collection_path: Path) -> bool | None:
    if _compiled.ACTIVE and collection_path.suffix == ".py":
        if collection_path.resolve() in {_compiled.source_path(m) for m in _compiled.MODULES}:
            return True
    return None
