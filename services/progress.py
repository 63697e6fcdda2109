"""Long work in steps: report each one, and stop between steps when the user cancels."""

from __future__ import annotations

from collections.abc import Callable

from syncdesk.services.errors import Cancelled

Progress = Callable[[str], None]


class Steps:
    """Call with a step's label before doing it: it reports progress or raises Cancelled."""

    def __init__(
        self, progress: Progress | None = None, cancelled: Callable[[], bool] | None = None
    ) -> None:
        self._progress = progress
        self._cancelled = cancelled

    def __call__(self, label: str) -> None:
        if self._cancelled is not None and self._cancelled():
            raise Cancelled("loading was cancelled")
        if self._progress is not None:
            self._progress(label)
