"""A progress line on stderr: rewritten in place on a terminal, a few lines in a log.

A long reading (a 566-page manual) must not print a line a page: on a terminal the line is
rewritten where it stands; where stderr is a file or a pipe (a log), a line is written at
the start, at most once every ``every`` seconds, and at the end.
"""
from __future__ import annotations

import sys
import time


class StatusLine:
    """``update`` a line that moves (page 12/566); ``say`` a line of its own."""

    def __init__(self, prefix: str, stream=None, every: float = 10.0, clock=time.monotonic):
        self.prefix, self.stream, self.every, self.clock = prefix, stream or sys.stderr, every, clock
        self.tty = hasattr(self.stream, "isatty") and self.stream.isatty()
        self.shown_at: float | None = None
        self.open = False  # a status line stands unfinished on the terminal

    def update(self, message: str, final: bool = False) -> None:
        """The moving line: on a terminal always (in place), in a log when due."""
        now = self.clock()
        if self.tty:
            end = "\n" if final else ""
            self.stream.write(f"\r\x1b[K{self.prefix}: {message}{end}")
            self.open = not final
        elif final or self.shown_at is None or now - self.shown_at >= self.every:
            self.stream.write(f"{self.prefix}: {message}\n")
            self.shown_at = now
        self.stream.flush()

    def say(self, message: str) -> None:
        """A line of its own, below the moving line."""
        if self.open:
            self.stream.write("\r\x1b[K")
            self.open = False
        self.stream.write(f"{self.prefix}: {message}\n")
        self.stream.flush()
