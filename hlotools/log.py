"""Logging for the command lines: `-v` info, `-vv` debug, `-vvv` trace, or HLOTOOLS_LOG.

Everything hlotools logs goes through loggers under "hlotools" (passes use "hlotools.passes"
and report their decisions at debug level through PassContext.decision). The CLI calls
`setup_logging` once; the library itself never configures logging, so an embedding program
keeps control of its handlers.

HLOTOOLS_LOG takes a level name (warning, info, debug, trace) or a count like `-v` (0-3);
the more verbose of it and the flags wins. Lines read `info: MESSAGE` (like the `error:`
lines of HloError), and BISECT lines are shown whenever bisection is on, whatever the level,
because they are the point of `--bisect-limit`.
"""
from __future__ import annotations

import logging
import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TextIO

TRACE = 5  # below DEBUG: per-pass module text and other very chatty output
logging.addLevelName(TRACE, "TRACE")

ROOT = "hlotools"
ENV = "HLOTOOLS_LOG"
LEVELS = {"error": logging.ERROR, "warning": logging.WARNING, "warn": logging.WARNING,
          "info": logging.INFO, "debug": logging.DEBUG, "trace": TRACE}
_BY_COUNT = [logging.WARNING, logging.INFO, logging.DEBUG, TRACE]
_HANDLER_FLAG = "_hlotools_cli_handler"


def level_for(verbosity: int) -> int:
    """The logging level of `-v` given `verbosity` times (0: warnings only)."""
    return _BY_COUNT[max(0, min(verbosity, len(_BY_COUNT) - 1))]


def env_level(value: str | None) -> int | None:
    """HLOTOOLS_LOG's level, or None when unset; a bad value is a ValueError naming the choices."""
    if value is None or not value.strip():
        return None
    text = value.strip().lower()
    if text.isdigit():
        return level_for(int(text))
    if text in LEVELS:
        return LEVELS[text]
    raise ValueError(f"{ENV}={value!r}: expected one of {', '.join(LEVELS)} or 0-3")


class _LevelOrPrefix(logging.Filter):
    """Passes records at or above `level`, and any record whose message starts with a prefix."""

    def __init__(self, level: int, prefixes: tuple[str, ...]) -> None:
        super().__init__()
        self.level = level
        self.prefixes = prefixes

    def filter(self, record: logging.LogRecord) -> bool:
        if record.levelno >= self.level:
            return True
        return bool(self.prefixes) and record.getMessage().startswith(self.prefixes)


class _Formatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        return f"{record.levelname.lower()}: {record.getMessage()}"


def setup_logging(verbosity: int = 0, stream: TextIO | None = None,
                  always_show: tuple[str, ...] = ()) -> int:
    """Send hlotools' log records to `stream` (stderr) at the level asked for; returns it.

    `always_show` lists message prefixes shown at any level (e.g. "BISECT:"). Calling it
    again replaces the handler it installed before.
    """
    level = level_for(verbosity)
    from_env = env_level(os.environ.get(ENV))
    if from_env is not None:
        level = min(level, from_env)
    logger = logging.getLogger(ROOT)
    _remove_cli_handlers(logger)
    handler = logging.StreamHandler(stream if stream is not None else sys.stderr)
    setattr(handler, _HANDLER_FLAG, True)
    handler.setFormatter(_Formatter())
    handler.addFilter(_LevelOrPrefix(level, always_show))
    logger.addHandler(handler)
    # The logger lets through what the handler may show; the filter decides.
    logger.setLevel(min(level, logging.INFO) if always_show else level)
    logger.propagate = False
    return level


def _remove_cli_handlers(logger: logging.Logger) -> None:
    for h in list(logger.handlers):
        if getattr(h, _HANDLER_FLAG, False):
            logger.removeHandler(h)


@contextmanager
def cli_logging(verbosity: int = 0, stream: TextIO | None = None,
                always_show: tuple[str, ...] = ()) -> Iterator[int]:
    """setup_logging for the length of one command, then the logger as it was before.

    A command may run many times in one process (tests, embedding); its handler must not
    outlive the stream it writes to, nor leave the library logging at debug level.
    """
    logger = logging.getLogger(ROOT)
    saved = (logger.level, logger.propagate)
    try:
        yield setup_logging(verbosity, stream, always_show)
    finally:
        _remove_cli_handlers(logger)
        logger.setLevel(saved[0])
        logger.propagate = saved[1]
