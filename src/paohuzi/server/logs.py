"""Structured logs: one JSON object per line on stderr (``ts``, ``level``, ``logger``, ``msg`` and the
fields given with ``extra={"fields": {...}}``). Tokens and concealed cards are never logged.

>>> import logging
>>> record = logging.LogRecord("paohuzi.server", logging.INFO, __file__, 1, "hand over", None, None)
>>> record.fields = {"hand": 9}
>>> line = JsonFormatter().format(record)
>>> '"msg": "hand over"' in line and '"hand": 9' in line
True
"""

from __future__ import annotations

import json
import logging
import sys
from datetime import UTC, datetime
from types import TracebackType
from typing import Any

__all__ = ["JsonFormatter", "configure", "debug_on", "log"]

_LOGGER = logging.getLogger("paohuzi.server")
#: ``exc_info`` as :mod:`logging` takes it.
ExcInfo = BaseException | bool | tuple[type[BaseException], BaseException, TracebackType | None] | None


class JsonFormatter(logging.Formatter):
    """Formats a record as one JSON line. Exceptions become a single ``exc`` string (server side only)."""

    def format(self, record: logging.LogRecord) -> str:
        data: dict[str, Any] = {
            "ts": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname.lower(),
            "logger": record.name,
            "msg": record.getMessage(),
        }
        fields = getattr(record, "fields", None)
        if isinstance(fields, dict):
            data.update(fields)
        if record.exc_info:
            data["exc"] = self.formatException(record.exc_info)
        return json.dumps(data, ensure_ascii=False, default=str)


def configure(level: str = "INFO", json_lines: bool = True, access_log: bool = False) -> dict[str, object]:
    """Set up logging for the server process; returns a ``logging.config`` dict for uvicorn too. ``access_log``:
    uvicorn's line per HTTP request (``PAOHUZI_ACCESS_LOG``), otherwise only its warnings."""
    formatter = (
        {"()": JsonFormatter} if json_lines else {"format": "%(asctime)s %(levelname)s %(name)s %(message)s"}
    )
    config: dict[str, Any] = {
        "version": 1,
        "disable_existing_loggers": False,
        "formatters": {"default": formatter},
        "handlers": {
            "stderr": {"class": "logging.StreamHandler", "formatter": "default", "stream": sys.stderr}
        },
        "loggers": {
            "paohuzi": {"handlers": ["stderr"], "level": level.upper(), "propagate": False},
            "uvicorn": {"handlers": ["stderr"], "level": level.upper(), "propagate": False},
            "uvicorn.error": {"level": level.upper()},
            "uvicorn.access": {
                "handlers": ["stderr"], "level": "INFO" if access_log else "WARNING", "propagate": False
            },
            "alembic": {"handlers": ["stderr"], "level": "WARNING", "propagate": False},
        },
    }
    import logging.config

    logging.config.dictConfig(config)
    return config


def log(level: int, msg: str, exc_info: ExcInfo = None, **fields: object) -> None:
    """Log ``msg`` with structured ``fields`` on the server's logger (``exc_info`` as for :mod:`logging`).
    A level the logger does not show costs one cached check (``log(DEBUG, "action", …)`` runs for every action)."""
    if not _LOGGER.isEnabledFor(level):
        return
    _LOGGER.log(level, msg, exc_info=exc_info, extra={"fields": fields})


def debug_on() -> bool:
    """Whether the server's logger shows DEBUG: a per-action ``log(DEBUG, …)`` checks this first, and builds its
    fields only then (issue 33)."""
    return _LOGGER.isEnabledFor(10)
