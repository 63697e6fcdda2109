"""Saving decisions off the UI thread, in order, and saying when each is durable.

A maintainer's decision (a hunk resolution, a disposition) is saved the moment
it is made, but the event loop must never wait for git or fsync. Each screen
that decides owns one :class:`OrderedSaver`: one writer thread that runs
durable work in the order it was handed in, so a later decision is never
overwritten by an earlier one (``m`` then ``x`` on one finding ends as ``x``).

:class:`Persister` is the workspace's. Each save gets a number, and an
:class:`Outcome` comes back for it once it is durable (one journal line,
fsynced) or has failed: the screen shows a decision as pending until then, so
a decision shown as made is one a kill cannot take away. The same thread looks
for other desks' saves (:meth:`Persister.look`) and reads the texts of what
they decided, so the screen can show them.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from typing import Any, TypeVar

from syncdesk.services.decisions.models import SyncKey, SyncState
from syncdesk.services.decisions.store import Saved, state_file
from syncdesk.services.errors import ServiceError, error_line
from syncdesk.services.git.runner import Git
from syncdesk.services.git.storage import read_blobs, write_blob
from syncdesk.services.lines import bytes_to_lines
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
        except Exception as error:
            self._on_error(failure_line(error))
        else:
            if then is not None:
                then(result)


def failure_line(error: Exception) -> str:
    """The one line that says a save failed, and why."""
    return one_line(f"not saved: {error_line(error)}")


@dataclass(frozen=True, slots=True)
class Outcome:
    """What became of one save, or of a look for other desks' saves (``number`` 0)."""

    number: int
    saved: Saved | None  # None: not saved (``error`` says why), or nothing new on a look
    error: str | None = None
    # The lines of the blobs other desks' decisions name, for the screen to show them.
    texts: dict[str, tuple[str, ...]] = field(default_factory=dict)


class Persister(OrderedSaver):
    """The workspace's saver: each state with the blobs it needs, and learned approvals.

    ``on_outcome`` gets (on the writer thread) each save's :class:`Outcome`, and
    a look's when another desk saved something.
    """

    def __init__(
        self,
        git: Git,
        on_error: Callable[[str], object],
        on_outcome: Callable[[Outcome], object] | None = None,
    ) -> None:
        super().__init__(on_error, name="syncdesk-persister")
        self._git = git
        self._on_outcome = on_outcome
        self._number = 0

    def save(self, state: SyncState, blobs: dict[str, bytes] | None = None) -> int:
        """Queue ``state`` (and the blobs it needs) to be saved; the save's number."""
        self._number += 1
        self.submit(partial(self._write, self._number, state, dict(blobs or {})), self._report)
        self.submit(partial(self._settle, state.sync), self._warn)
        return self._number

    def look(self, sync: SyncKey) -> None:
        """Queue a look for what other desks saved in ``sync`` (cheap when nothing changed)."""
        self.submit(partial(self._look, sync), self._report)

    def run(self, job: Callable[[], object]) -> None:
        """Queue other durable work (learning an approval); a string it returns is a warning."""
        self.submit(job, self._warn)

    def _warn(self, warning: object) -> None:
        if isinstance(warning, str) and warning:
            self._on_error(warning)

    def _report(self, outcome: Outcome) -> None:
        if outcome.saved is not None and outcome.saved.warning:
            self._on_error(outcome.saved.warning)
        if self._on_outcome is not None:
            self._on_outcome(outcome)
        elif outcome.error is not None:
            self._on_error(outcome.error)

    def _write(self, number: int, state: SyncState, blobs: dict[str, bytes]) -> Outcome:
        try:
            for expected, data in blobs.items():
                written = write_blob(self._git, data)
                if written != expected:
                    raise ServiceError(f"git stored a blob as {written}, expected {expected}")
            saved = state_file(self._git, state.sync).save(state)
        except Exception as error:
            return Outcome(number, None, failure_line(error))
        return Outcome(number, saved, texts=self._texts_of_others(saved))

    def _settle(self, sync: SyncKey) -> str | None:
        return state_file(self._git, sync).settle()

    def _look(self, sync: SyncKey) -> Outcome:
        saved = state_file(self._git, sync).check()
        if saved is None:
            return Outcome(0, None)
        return Outcome(0, saved, texts=self._texts_of_others(saved))

    def _texts_of_others(self, saved: Saved) -> dict[str, tuple[str, ...]]:
        if saved.disk is saved.base:
            return {}
        new = saved.disk.blobs() - saved.base.blobs()
        # A file over the large-file limit is shown by blob id: its text is not read.
        found = read_blobs(self._git, new, limit=self._git.large_file_limit)
        return {oid: tuple(bytes_to_lines(data)) for oid, data in found.items()}
