"""The desk's first screen: painted at once, while the repository is opened in a worker.

Opening a sync (finding the repository, resolving the refs, reading the config)
is git work, and the Slice screen's modules are most of what the desk imports:
both happen in this screen's worker thread, after its first frame. When the
sync is open the app replaces this screen with the Slice screen; when it cannot
be opened (not a repository, a missing ref) the desk exits and the shell shows
the one line that says why, as it would have before the screen took the
terminal.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual import work
from textual.app import ComposeResult
from textual.screen import Screen
from textual.widgets import Header
from textual.worker import Worker, WorkerState

from syncdesk.tui.widgets.loading_bar import LoadingBar

if TYPE_CHECKING:
    from pathlib import Path

    from syncdesk.services.sync.options import SyncOptions
    from syncdesk.services.sync.session import SyncSession

OPEN = "open"


class OpeningScreen(Screen[None]):
    """A loading bar while the sync named by ``options`` is opened."""

    def __init__(self, options: SyncOptions, user_config: Path | None = None) -> None:
        super().__init__()
        self._options = options
        self._user_config = user_config

    def compose(self) -> ComposeResult:
        yield Header(icon="⇄")
        yield LoadingBar("Opening the repository…", id="loading-bar")

    def on_mount(self) -> None:
        self._open()

    @work(thread=True, exclusive=True, exit_on_error=False, group=OPEN, description=OPEN)
    def _open(self) -> SyncSession:
        # Imported here, on the worker's thread: the session's modules (GitPython among
        # them) and the Slice screen's are what the first frame does without.
        import syncdesk.screens.slice_screen  # noqa: F401 (the next screen, warmed)
        from syncdesk.services.sync.session import open_sync

        return open_sync(self._options, self._user_config)

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        """Hand the open sync to the app, or end the desk with the one line that says why."""
        worker = event.worker
        if worker.group != OPEN:
            return
        if event.state == WorkerState.SUCCESS and worker.result is not None:
            opened = getattr(self.app, "opened", None)
            if callable(opened):
                opened(worker.result)
        elif event.state == WorkerState.ERROR and worker.error is not None:
            from syncdesk.services.errors import error_line

            failed = getattr(self.app, "could_not_open", None)
            if callable(failed):
                failed(error_line(worker.error))
