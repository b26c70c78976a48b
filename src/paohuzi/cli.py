"""The ``paohuzi`` command: ``paohuzi analyze | replay | review | simulate | serve | verify | dataset | migrate``.

Each subcommand lives in its own module under :mod:`paohuzi.commands` with two functions:
``add_parser(subparsers)`` and ``run(args) -> int`` (the exit status).
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Sequence

# Subcommand name -> module under paohuzi.commands. Every module is imported to build the parser (each adds
# its own arguments); only `serve` defers its heavy imports (FastAPI, uvicorn, SQLAlchemy) into its `run`, so
# `paohuzi analyze` does not pay for the server's. The core ones (`analyze`, `replay`, `simulate`) import
# the engine at once.
COMMANDS = {
    "analyze": "analyze",
    "replay": "replay",
    "review": "review",
    "simulate": "simulate",
    "serve": "serve",
    "verify": "verify",
    "dataset": "dataset",
    "migrate": "migrate",
}


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="paohuzi", description="跑胡子 (字牌): rules engine, bots and game server")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    for module_name in COMMANDS.values():
        try:
            module = importlib.import_module(f"paohuzi.commands.{module_name}")
        except ModuleNotFoundError as exc:
            if exc.name != f"paohuzi.commands.{module_name}":
                raise
            continue  # not built yet
        module.add_parser(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        status: int = args.run(args)
        sys.stdout.flush()
    except BrokenPipeError:
        # The reader went away (`paohuzi simulate | head`): stop quietly, as Unix tools do, instead of a
        # traceback; stdout goes to devnull so the interpreter's final flush cannot raise again.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 1
    return status


if __name__ == "__main__":
    sys.exit(main())
