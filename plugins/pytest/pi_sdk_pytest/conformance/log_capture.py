"""Every log record of a block, from every logger at DEBUG: where a leaked secret would show."""

from __future__ import annotations

import logging
from collections.abc import Generator
from contextlib import contextmanager

__all__ = ["LogCapture", "every_log_record"]


class LogCapture(logging.Handler):
    """Keeps every record it gets, formatted (logger name, level, message, exception)."""

    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.setFormatter(logging.Formatter("%(name)s %(levelname)s %(message)s"))
        self.lines: list[str] = []
        """The formatted records, in order."""

    def emit(self, record: logging.LogRecord) -> None:
        """Format and keep ``record``."""
        self.lines.append(self.format(record))


@contextmanager
def every_log_record() -> Generator[LogCapture]:
    """Set every logger to DEBUG (those that exist now and those created later) for the block.

    Yields the :class:`LogCapture` on the root logger; the levels are restored afterwards.
    Records a logger does not propagate to the root are not seen.
    """
    handler = LogCapture()
    root = logging.getLogger()
    loggers = [root, *(logging.getLogger(name) for name in list(root.manager.loggerDict))]
    levels = [(logger, logger.level) for logger in loggers]
    for logger in loggers:
        logger.setLevel(logging.DEBUG)
    root.addHandler(handler)
    try:
        yield handler
    finally:
        root.removeHandler(handler)
        for logger, level in levels:
            logger.setLevel(level)
