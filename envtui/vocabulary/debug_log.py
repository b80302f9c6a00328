"""The debug log: what a bug report needs, through the standard ``logging`` module.

envtui logs nothing unless asked: every module logs through :func:`logger`, which gives the
``envtui`` logger a ``NullHandler`` first, so a record never reaches a terminal through
Python's last-resort handler. (The package itself does not import ``logging``: commands
that log nothing, such as ``envtui render``, start without it.) ``--debug`` attaches a file
handler at DEBUG level: connection attempts and their outcome, retries and their delay,
and the protocol messages exchanged with exec-servers and the app-server, each cut to
:data:`EXCERPT` characters. Values from config files that may be secret (an exec-server's
``env``) are never logged.
"""

from __future__ import annotations

import logging
from pathlib import Path

EXCERPT = 500
"""How much of one protocol message the log keeps."""

FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"


_ROOT = logging.getLogger("envtui")
_ROOT.addHandler(logging.NullHandler())


def logger(name: str) -> logging.Logger:
    """The logger of module ``name``: silent unless ``--debug`` attached a handler."""
    return logging.getLogger(name)


def excerpt(text: str, limit: int = EXCERPT) -> str:
    """``text`` cut to ``limit`` characters, saying how much was left out."""
    if len(text) <= limit:
        return text
    return f"{text[:limit]}… ({len(text) - limit} more characters)"


def start(path: Path) -> logging.Handler:
    """Send envtui's DEBUG records to ``path`` (its folder is created); returns the handler.

    Raises OSError when the file cannot be opened, so the command can say so in one line.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    handler = logging.FileHandler(path, encoding="utf-8")
    handler.setFormatter(logging.Formatter(FORMAT))
    logger = logging.getLogger("envtui")
    logger.addHandler(handler)
    logger.setLevel(logging.DEBUG)
    return handler


def stop(handler: logging.Handler) -> None:
    logger = logging.getLogger("envtui")
    logger.removeHandler(handler)
    handler.close()
