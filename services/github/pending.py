"""Posts whose outcome is unknown: a retry looks first, and waits for GitHub to settle.

A POST that timed out or lost its connection may still be stored: the server
can finish it after the client gave up (measured: a POST delayed 25 s past the
client's 20 s timeout, retried at once, ended as two comments with one marker).
Reading the comments back right away cannot tell, because the first request may
still be in flight. So such a post is recorded as *pending* (when it was sent),
and until ``settle`` seconds have passed since, a retry that does not find the
marker posts nothing and says when to press again; after that, GitHub has
either stored it (the marker is found) or never will, and the retry posts.

A definite answer (a comment created, or an error GitHub answered) clears the
record. Records live beside the post's lock file, so every syncdesk process on
the repository sees them; without a lock directory, in this process only.
"""

from __future__ import annotations

import threading
import time
from pathlib import Path

from syncdesk.services.git.atomic import write_atomic

SETTLE_SECONDS = 60.0

_in_process: dict[str, float] = {}
_guard = threading.Lock()


class PendingPosts:
    """The pending record of each post, by its lock file (or its id, in this process)."""

    def __init__(self, settle: float = SETTLE_SECONDS) -> None:
        self.settle = settle

    def wait_left(self, where: str | Path) -> float:
        """Seconds until a retry of the post at ``where`` may send again (0: now)."""
        sent = self._read(where)
        if sent is None:
            return 0.0
        return max(0.0, sent + self.settle - time.time())

    def mark(self, where: str | Path) -> None:
        """Record that the post at ``where`` is being sent now."""
        if isinstance(where, Path):
            write_atomic(_record(where), f"{time.time():.3f}\n".encode())
        else:
            with _guard:
                _in_process[where] = time.time()

    def clear(self, where: str | Path) -> None:
        """The outcome of the post at ``where`` is known: forget the record."""
        if isinstance(where, Path):
            _record(where).unlink(missing_ok=True)
        else:
            with _guard:
                _in_process.pop(where, None)

    def _read(self, where: str | Path) -> float | None:
        if not isinstance(where, Path):
            with _guard:
                return _in_process.get(where)
        try:
            return float(_record(where).read_text(encoding="ascii").strip())
        except (OSError, ValueError):  # absent, or not ours to trust: no wait
            return None


def _record(lock_file: Path) -> Path:
    return lock_file.with_suffix(".pending")
