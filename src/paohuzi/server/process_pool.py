"""Worker processes that end with the server (the bots' ``bot_workers``, the reviews' ``review_workers``).

A :class:`~concurrent.futures.ProcessPoolExecutor`'s workers block reading its call queue, whose write end each
of them holds too: when the server is killed (kill -9, the out-of-memory killer) they never see the queue
close and would live on — with multiprocessing's resource tracker — as orphans, one set per crash. So each
worker watches its parent and leaves as soon as it is gone.
"""

from __future__ import annotations

import multiprocessing
import os
import threading
import time
from concurrent.futures import ProcessPoolExecutor

__all__ = ["process_pool"]

_WATCH_SECONDS = 0.5  # how soon an orphaned worker notices; a wake-up costs microseconds


def process_pool(workers: int) -> ProcessPoolExecutor:
    """``workers`` spawned processes (not forked: the server's threads and sockets stay out of them), each of
    which exits once the process that made the pool is gone."""
    return ProcessPoolExecutor(
        workers,
        mp_context=multiprocessing.get_context("spawn"),
        initializer=_watch_parent,
        initargs=(os.getpid(),),
    )


def _watch_parent(parent: int) -> None:
    """In a worker: a daemon thread that ends the process when it is no longer ``parent``'s child (an orphan
    is adopted by init or a subreaper, so its parent id changes)."""

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(_WATCH_SECONDS)
        os._exit(0)  # nothing to clean: the work was the dead server's

    threading.Thread(target=watch, name="paohuzi-parent-watch", daemon=True).start()
