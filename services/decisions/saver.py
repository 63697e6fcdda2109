"""Saving decisions off the UI thread, in order, at once.

A maintainer's decision (a hunk resolution, a disposition) is saved the moment
it is made, but the event loop must never wait for git or fsync. Each screen
that decides owns one :class:`OrderedSaver`: one writer thread that runs
durable work in the order it was handed in, so a later decision is never
overwritten by an earlier one (``m`` then ``x`` on one finding ends as ``x``).
:class:`Persister` is the workspace's: it writes a state's blobs first and
then the state file, atomically.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable
from functools import partial
from typing import Any, TypeVar

from syncdesk.services.decisions.models import SyncState
from syncdesk.services.decisions.store import save_state
from syncdesk.services.errors import ServiceError
from syncdesk.services.git.runner import Git
from syncdesk.services.git.storage import write_blob
from syncdesk.services.sanitize import one_line

T = TypeVar("T")
# A queued job and what receives its result.
_Job = tuple[Callable[[], Any], Callable[[Any], object] | None]


class OrderedSaver:
    """One writer thread for durable work; ``on_error`` gets (on that thread) a one-line message.

    ``on_error`` and the ``then`` callbacks run on the writer thread: a UI must
    hand their results to its event loop without waiting for it (Textual's
    ``post_message``), since the loop may itself be waiting in :meth:`close`.
    """

    def __init__(self, on_error: Callable[[str], object], *, name: str = "syncdesk-saver") -> None:
        self._on_error = on_error
        self._queue: queue.Queue[_Job | None] = queue.Queue()  # None: stop
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)
        self._thread.start()

    def submit(self, job: Callable[[], T], then: Callable[[T], object] | None = None) -> None:
        """Queue ``job``; once it has run, ``then`` gets its result (not after an error)."""
        self._queue.put((job, then))

    def flush(self) -> None:
        """Wait until everything queued so far has run."""
        self._queue.join()

    def close(self) -> None:
        """Run what is queued, then stop the thread."""
        self._queue.put(None)
        self._thread.join()

    def _run(self) -> None:
        while True:
            item = self._queue.get()
            try:
                if item is None:
                    return
                self._guarded(*item)
            finally:
                self._queue.task_done()

    def _guarded(self, job: Callable[[], Any], then: Callable[[Any], object] | None) -> None:
        # Nothing may kill the writer thread: every later decision depends on it.
        try:
            result = job()
        except ServiceError as error:
            self._on_error(f"not saved: {error.message}")
        except OSError as error:
            self._on_error(one_line(f"not saved: {error}"))
        except Exception as error:
            self._on_error(one_line(f"not saved: internal error: {type(error).__name__}: {error}"))
        else:
            if then is not None:
                then(result)


class Persister(OrderedSaver):
    """The workspace's saver: each state with the blobs it needs, and learned approvals."""

    def __init__(self, git: Git, on_error: Callable[[str], object]) -> None:
        super().__init__(on_error, name="syncdesk-persister")
        self._git = git

    def save(self, state: SyncState, blobs: dict[str, bytes] | None = None) -> None:
        """Queue ``state`` (and the blobs it needs) to be saved."""
        self.submit(partial(self._write, state, dict(blobs or {})), self._warn)

    def run(self, job: Callable[[], object]) -> None:
        """Queue other durable work (learning an approval); a string it returns is a warning."""
        self.submit(job, self._warn)

    def _warn(self, warning: object) -> None:
        if isinstance(warning, str) and warning:
            self._on_error(warning)

    def _write(self, state: SyncState, blobs: dict[str, bytes]) -> str | None:
        for expected, data in blobs.items():
            written = write_blob(self._git, data)
            if written != expected:
                raise ServiceError(f"git stored a blob as {written}, expected {expected}")
        return save_state(self._git, state)
