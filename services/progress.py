"""Long work's progress and cancellation, as one object handed down the call chain.

A UI creates one :class:`Steps` per piece of long work (a load, a trace) from
its progress callback and its worker's cancellation flag, and passes it down;
every service that does long work takes ``steps`` and calls it before each
step. The same object reaches the deepest loop, so cancelling is honoured
everywhere at once, and a caller without a UI passes nothing (:data:`QUIET`).
"""

from __future__ import annotations

from collections.abc import Callable

from syncdesk.services.errors import Cancelled

Progress = Callable[[str], None]


class Steps:
    """Report a step before doing it, and stop between steps once the user cancelled."""

    def __init__(
        self, progress: Progress | None = None, cancelled: Callable[[], bool] | None = None
    ) -> None:
        self._progress = progress
        self._cancelled = cancelled

    def __call__(self, label: str) -> None:
        """Begin the step ``label``: raises :class:`Cancelled` first if the user cancelled."""
        self.check()
        if self._progress is not None:
            self._progress(label)

    def check(self) -> None:
        """Raise :class:`Cancelled` if the user cancelled; for loops inside one step."""
        if self._cancelled is not None and self._cancelled():
            raise Cancelled("cancelled: nothing was changed")


QUIET = Steps()  # no progress shown, never cancelled: scripts, tests, the CLI
