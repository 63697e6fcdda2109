"""The Slice screen: which main commits come in, and whether the branch is right."""

from __future__ import annotations

from collections.abc import Iterable
from typing import ClassVar

from textual import on, work
from textual.app import ComposeResult, SystemCommand
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, VerticalScroll
from textual.message import Message
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Header, Label, LoadingIndicator
from textual.worker import Worker, WorkerState, get_current_worker

from screens.commit_screen import CommitScreen
from screens.workspace_screen import WorkspaceScreen
from services.models import SyncReport
from services.sync import SyncSession, load_report
from tui.text import error_line
from tui.widgets.slice_table import SliceTable
from tui.widgets.sync_summary import SyncSummary


class LoadProgressed(Message):
    """A loading step began (posted from the worker thread)."""

    def __init__(self, step: str) -> None:
        super().__init__()
        self.step = step


class SliceScreen(Screen[None]):
    """The slice table beside the sync's summary."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("c", "conflicts", "Conflicts", id="slice.conflicts"),
        Binding("r", "reload", "Reload", id="slice.reload"),
        Binding("escape", "cancel", "Cancel loading", id="slice.cancel", show=False),
    ]

    def __init__(self, session: SyncSession) -> None:
        super().__init__()
        self.session = session
        self.report: SyncReport | None = None

    def compose(self) -> ComposeResult:
        yield Header(icon="⇄")
        with Horizontal(id="loading-bar"):
            yield LoadingIndicator(id="spinner")
            yield Label("", id="progress", markup=False)
        with Horizontal(id="slice-body"):
            yield SliceTable(id="slice-table")
            with VerticalScroll(id="summary-pane"):
                yield SyncSummary(id="summary")
        yield Footer()

    def on_mount(self) -> None:
        self.action_reload()

    def action_reload(self) -> None:
        """Read the sync again from the repository."""
        self.query_one("#loading-bar").display = True
        self.query_one("#spinner").display = True
        progress = self.query_one("#progress", Label)
        progress.remove_class("error")
        progress.update("Loading the sync…")
        self._load()

    @work(thread=True, exclusive=True, exit_on_error=False, group="load-report")
    def _load(self) -> SyncReport:
        # Runs in a thread: git never blocks the event loop. Progress goes back
        # as messages (post_message is thread-safe); the worker's cancellation
        # flag is polled between steps.
        worker = get_current_worker()

        def progress(step: str) -> None:
            self.post_message(LoadProgressed(step))

        return load_report(
            self.session, progress=progress, cancelled=lambda: worker.is_cancelled, detail=False
        )

    def on_load_progressed(self, message: LoadProgressed) -> None:
        self.query_one("#progress", Label).update(f"{message.step}…")

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if event.worker.group != "load-report":
            return
        if event.state == WorkerState.SUCCESS:
            result = event.worker.result
            assert isinstance(result, SyncReport)
            self._show(result)
        elif event.state == WorkerState.ERROR and event.worker.error is not None:
            self._fail(error_line(event.worker.error))
        elif event.state == WorkerState.CANCELLED:
            self._fail("Loading cancelled: press r to load again")

    def _show(self, report: SyncReport) -> None:
        self.report = report
        self.query_one("#loading-bar").display = False
        self.query_one(SliceTable).show(report.slice)
        self.query_one(SyncSummary).show(report)
        self.query_one(SliceTable).focus()

    def _fail(self, line: str) -> None:
        self.query_one("#spinner").display = False
        self.query_one("#progress", Label).update(line)
        self.query_one("#progress").add_class("error")

    def action_conflicts(self) -> None:
        """Open the conflict workspace of this sync."""
        self.app.push_screen(WorkspaceScreen(self.session), lambda _: self.action_reload())

    def action_cancel(self) -> None:
        """Stop loading."""
        self.workers.cancel_group(self, "load-report")

    def action_open_commit(self) -> None:
        """Show the full message and stats of the commit under the cursor."""
        sha = self.query_one(SliceTable).selected_sha
        if sha is not None:
            self.app.push_screen(CommitScreen(self.session, sha))

    @on(DataTable.RowSelected, "#slice-table")
    def _row_selected(self) -> None:
        self.action_open_commit()

    def palette_commands(self) -> Iterable[SystemCommand]:
        """This screen's actions, for the command palette."""
        yield SystemCommand("Open commit", "Full message and stats", self.action_open_commit)
        yield SystemCommand("Conflicts", "Review and resolve the conflicts", self.action_conflicts)
        yield SystemCommand("Reload", "Read the sync again from git", self.action_reload)
        yield SystemCommand("Cancel loading", "Stop reading the sync", self.action_cancel)
