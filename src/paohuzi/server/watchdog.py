"""systemd's readiness and watchdog protocol (``sd_notify``), by a datagram to ``$NOTIFY_SOCKET`` — no
library needed (issue 35). With ``Type=notify`` in the unit (deploy/systemd/paohuzi@.service) the server says
``READY=1`` once it serves (database migrated, open rooms resumed, the shared mode's Redis joined), so
``systemctl start``/``restart`` returns only then and a rolling restart can go on to the next process; with
``WatchdogSec=`` it says ``WATCHDOG=1`` from its event loop every third of that time, so a process whose
loop hangs (what ``/healthz`` would show by not answering) is killed and restarted by systemd; and
``STOPPING=1`` when it begins to stop. Without ``$NOTIFY_SOCKET`` (run by hand, tests) every call does nothing.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import socket

__all__ = ["Notifier"]


class Notifier:
    """The process's link to systemd; ``env`` is read once (default ``os.environ``)."""

    def __init__(self, env: dict[str, str] | None = None) -> None:
        env = dict(os.environ) if env is None else env
        path = env.get("NOTIFY_SOCKET", "")
        # An abstract socket is written "@name" (its address starts with a NUL byte).
        self.address = "\0" + path[1:] if path.startswith("@") else path
        usec = env.get("WATCHDOG_USEC", "")
        pid = env.get("WATCHDOG_PID", "")
        mine = not pid or pid == str(os.getpid())
        self.interval = int(usec) / 3e6 if usec.isdigit() and int(usec) > 0 and mine else None
        self._task: asyncio.Task[None] | None = None

    def notify(self, message: str) -> bool:
        """Send ``message`` (``READY=1``, …); False when there is no systemd to tell or it cannot be told."""
        if not self.address:
            return False
        try:
            with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as sock:
                sock.sendto(message.encode(), self.address)
            return True
        except OSError:
            return False

    def ready(self) -> None:
        """Serving: ``READY=1`` (and the watchdog's pings start, when systemd asked for them)."""
        self.notify(f"READY=1\nMAINPID={os.getpid()}")
        if self.interval is not None and self._task is None:
            self._task = asyncio.get_running_loop().create_task(self._ping(self.interval), name="sd-watchdog")

    async def _ping(self, interval: float) -> None:
        while True:  # from the event loop itself: a loop stuck for WatchdogSec misses its pings
            self.notify("WATCHDOG=1")
            await asyncio.sleep(interval)

    async def stopping(self) -> None:
        """``STOPPING=1``; the pings end (systemd's stop timeout covers the hand-over from here)."""
        self.notify("STOPPING=1")
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None
