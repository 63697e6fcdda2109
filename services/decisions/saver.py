"""Saving the workspace state off the UI thread, in order, at once.

Each decision produces a new state (and perhaps new blobs). The screen hands
it to :class:`Persister`, which writes the blobs first and then the state
file, atomically, on one background thread: decisions are saved in the order
they were made, a later state never overwritten by an earlier one, and the
event loop never waits for git or fsync.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable
from functools import partial

from syncdesk.services.decisions.models import SyncState
from syncdesk.services.decisions.store import save_state
from syncdesk.services.errors import ServiceError
from syncdesk.services.git.runner import Git
from syncdesk.services.git.storage import write_blob
from syncdesk.services.sanitize import one_line

_STOP = object()


class Persister:
    """One writer thread; ``on_error`` is called (from that thread) with a one-line message."""

    def __init__(self, git: Git, on_error: Callable[[str], None]) -> None:
        self._git = git
        self._on_error = on_error
        self._queue: queue.Queue[object] = queue.Queue()
        self._thread = threading.Thread(target=self._run, name="syncdesk-persister", daemon=True)
        self._thread.start()

    def save(self, state: SyncState, blobs: dict[str, bytes] | None = None) -> None:
        """Queue ``state`` (and the blobs it needs) to be saved."""
        self._queue.put((state, dict(blobs or {})))

    def run(self, job: Callable[[], object]) -> None:
        """Queue other durable work (learning an approval, say) behind the saves before it."""
        self._queue.put(job)

    def flush(self) -> None:
        """Wait until everything queued so far is saved."""
        self._queue.join()

    def close(self) -> None:
        """Save what is queued, then stop the thread."""
        self._queue.put(_STOP)
        self._thread.join()

    def _run(self) -> None:
        while True:
            item = self._queue.get()
            try:
                if item is _STOP:
                    return
                if callable(item):
                    self._guarded(item)
                else:
                    assert isinstance(item, tuple)
                    state, blobs = item
                    self._guarded(partial(self._write, state, blobs))
            finally:
                self._queue.task_done()

    def _guarded(self, job: Callable[[], object]) -> None:
        # Nothing may kill the writer thread: every later decision depends on it.
        try:
            warning = job()
        except ServiceError as error:
            self._on_error(f"not saved: {error.message}")
        except OSError as error:
            self._on_error(one_line(f"not saved: {error}"))
        except Exception as error:
            self._on_error(one_line(f"not saved: internal error: {type(error).__name__}: {error}"))
        else:
            if isinstance(warning, str) and warning:
                self._on_error(warning)

    def _write(self, state: SyncState, blobs: dict[str, bytes]) -> str | None:
        for expected, data in blobs.items():
            written = write_blob(self._git, data)
            if written != expected:
                raise ServiceError(f"git stored a blob as {written}, expected {expected}")
        return save_state(self._git, state)
