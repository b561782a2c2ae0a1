"""The progress bar that ``progress=True`` draws on stderr for the package's long calls."""

from __future__ import annotations

import sys
import time
from typing import Optional, TextIO


class Bar:
    """A one-line bar, redrawn in place: ``title stage: [#####.....] done/total  12.3 s``.

    Call it as ``bar(done, total, stage)`` (the callback form every long call takes); a line
    break ends the bar when ``done`` reaches ``total`` of the last stage."""

    def __init__(self, title: str, stream: Optional[TextIO] = None, width: int = 30):
        self.title = title
        self.stream = stream
        self.width = width
        self.started = time.monotonic()
        self._stage: Optional[str] = None
        self._open = False  # a line drawn and not yet ended

    def __call__(self, done: int, total: int, stage: str) -> None:
        out = self.stream if self.stream is not None else sys.stderr
        if self._open and stage != self._stage:
            out.write("\n")
        self._stage = stage
        elapsed = time.monotonic() - self.started
        if total > 0:
            filled = min(self.width, self.width * done // total)
            bar = "#" * filled + "." * (self.width - filled)
            text = f"\r{self.title} {stage}: [{bar}] {done}/{total} {elapsed:6.1f} s"
        else:
            text = f"\r{self.title} {stage}: {done} {elapsed:6.1f} s"
        out.write(text)
        self._open = True
        if total > 0 and done >= total:
            out.write("\n")
            self._open = False
        out.flush()
