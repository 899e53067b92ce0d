"""Log lines as JSON (``--log-format json``): one object a line, with room and request ids."""

from __future__ import annotations

import json
import logging
from typing import Any

__all__ = ["JsonFormatter"]


class JsonFormatter(logging.Formatter):
    """One JSON object a line, with the room and request ids when the record has them."""

    def format(self, record: logging.LogRecord) -> str:
        entry: dict[str, Any] = {
            "ts": round(record.created, 3),
            "level": record.levelname.lower(),
            "logger": record.name,
            "msg": record.getMessage(),
        }
        for key in ("room", "req", "peer", "player"):
            if hasattr(record, key):
                entry[key] = getattr(record, key)
        if record.exc_info:
            entry["exc"] = self.formatException(record.exc_info)
        return json.dumps(entry)
