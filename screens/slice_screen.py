"""The Slice screen: which main commits come in, and whether the branch is right."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Iterable
from typing import ClassVar

from textual import on, work
from textual.app import ComposeResult, SystemCommand
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, VerticalScroll
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Header
from textual.worker import Worker, WorkerState, get_current_worker

from syncdesk.screens.branch_writes import written_message
from syncdesk.screens.commit_screen import CommitScreen
from syncdesk.screens.confirm_screen import ConfirmScreen
from syncdesk.screens.findings_screen import FindingsScreen
from syncdesk.screens.preview_screen import PreviewScreen
from syncdesk.screens.status_screen import StatusScreen
from syncdesk.screens.workspace_screen import WorkspaceScreen
from syncdesk.services.sync.models import SyncReport
from syncdesk.services.sync.session import SyncSession, load_report, reopen
from syncdesk.services.write.session import (
    plan_from_approved,
    push_confirmed,
    push_lease,
    push_question,
    undo_confirmed,
    undo_question,
    undo_target,
    undone_message,
    write_confirmed,
)
from syncdesk.tui.text import error_line
from syncdesk.tui.widgets.loading_bar import LoadingBar
from syncdesk.tui.widgets.slice_table import SliceTable
from syncdesk.tui.widgets.sync_summary import SyncSummary


class SliceScreen(Screen[None]):
    """The slice table beside the sync's summary."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("c", "conflicts", "Conflicts", id="slice.conflicts"),
        Binding("f", "findings", "Findings", id="slice.findings"),
        Binding("s", "status", "Status", id="slice.status"),
        Binding("r", "reload", "Reload", id="slice.reload"),
        Binding("W", "write_repair", "Write repair", id="slice.write"),
        Binding("U", "undo", "Undo write", id="slice.undo"),
        Binding("P", "push", "Push", id="slice.push"),
        Binding("escape", "cancel", "Cancel loading", id="slice.cancel", show=False),
    ]

    def __init__(self, session: SyncSession) -> None:
        super().__init__()
        self.session = session
        self.report: SyncReport | None = None
        self._acting = False

    def compose(self) -> ComposeResult:
        yield Header(icon="⇄")
        self._bar = LoadingBar("", id="loading-bar")
        yield self._bar
        with Horizontal(id="slice-body"):
            yield SliceTable(id="slice-table")
            with VerticalScroll(id="summary-pane"):
                yield SyncSummary(id="summary")
        yield Footer()

    def on_mount(self) -> None:
        self.action_reload()

    def action_reload(self) -> None:
        """Read the sync again from the repository."""
        self.query_one(LoadingBar).start("Loading the sync…")
        self._load()

    @work(thread=True, exclusive=True, exit_on_error=False, group="load-report")
    def _load(self) -> tuple[SyncSession, SyncReport]:
        # Runs in a thread: git never blocks the event loop. Progress goes back
        # as messages (post_message is thread-safe); the worker's cancellation
        # flag is polled between steps. The refs are resolved anew, so a reload
        # after a write, an undo or an outside change shows where they are now.
        worker = get_current_worker()

        session = reopen(self.session)
        report = load_report(
            session, progress=self._bar.report, cancelled=lambda: worker.is_cancelled, detail=False
        )
        return session, report

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if event.worker.group != "load-report":
            return
        if event.state == WorkerState.SUCCESS:
            loaded = event.worker.result
            assert isinstance(loaded, tuple)
            session, report = loaded
            self.session = session
            self._show(report)
        elif event.state == WorkerState.ERROR and event.worker.error is not None:
            self._fail(error_line(event.worker.error))
        elif event.state == WorkerState.CANCELLED:
            self._fail("Loading cancelled: press r to load again")

    def _show(self, report: SyncReport) -> None:
        self.report = report
        self.query_one(LoadingBar).done()
        self.query_one(SliceTable).show(report.slice)
        self.query_one(SyncSummary).show(report)
        self.query_one(SliceTable).focus()

    def _fail(self, line: str) -> None:
        self.query_one(LoadingBar).fail(line)

    # -- writing the repair, undo, push ----------------------------------------------
    #
    # Each is one async worker that reads in a thread, asks on a modal screen
    # (push_screen_wait only works inside a worker), then writes in a thread:
    # git never runs on the event loop, and nothing is written without a yes.
    # The services re-check every ref with a compare-and-swap at the moment of
    # writing, so what changed while the question was open is refused, not lost.

    def action_write_repair(self) -> None:
        """Preview the repair the approved resolutions make, and write it on confirmation."""
        self._one_at_a_time(self._write_repair)

    async def _write_repair(self) -> None:
        session = self.session
        try:
            self._busy("Planning the repair from the approved resolutions…")
            plan = await asyncio.to_thread(plan_from_approved, session)
            self._idle()
            if not await self.app.push_screen_wait(PreviewScreen(plan)):
                self.notify("Nothing was written.", markup=False)
                return
            self._busy("Writing the repair…")
            result = await asyncio.to_thread(write_confirmed, session, plan)
        except Exception as error:
            self._failed(error)
            return
        message, severity = written_message(result)
        self.notify(message, title="Repair written", severity=severity, markup=False, timeout=12)
        self.action_reload()

    def action_undo(self) -> None:
        """Restore the branch to the backup taken before syncdesk's last write."""
        self._one_at_a_time(self._undo)

    async def _undo(self) -> None:
        session = self.session
        try:
            self._busy("Reading the backups…")
            target = await asyncio.to_thread(undo_target, session)
            self._idle()
            if not await self.app.push_screen_wait(ConfirmScreen(undo_question(target), "Undo")):
                return
            self._busy("Restoring the backup…")
            result = await asyncio.to_thread(undo_confirmed, session, target)
        except Exception as error:
            self._failed(error)
            return
        self.notify(undone_message(result), title="Undone", markup=False, timeout=12)
        self.action_reload()

    def action_push(self) -> None:
        """Push the branch with a lease on the remote's expected commit, after a confirmation."""
        self._one_at_a_time(self._push)

    async def _push(self) -> None:
        session = self.session
        try:
            self._busy("Reading the remote-tracking branch…")
            lease = await asyncio.to_thread(push_lease, session)
            self._idle()
            if not await self.app.push_screen_wait(ConfirmScreen(push_question(lease), "Push")):
                self.notify("Nothing was pushed.", markup=False)
                return
            self._busy(f"Pushing to {lease.remote}…")
            result = await asyncio.to_thread(push_confirmed, session, lease)
        except Exception as error:
            self._failed(error)
            return
        self._idle()
        self.notify(
            result.message,
            title="Pushed" if result.ok else "Push refused",
            severity="information" if result.ok else "error",
            markup=False,
            timeout=12,
        )

    def _one_at_a_time(self, flow: Callable[[], Awaitable[None]]) -> None:
        # One branch action at a time, and never by cancelling the one running:
        # its git thread would go on (a write, a push) with its result unseen,
        # and a push could send a head other than the one confirmed.
        if self._acting:
            self.notify("Another write, undo or push is in progress.", markup=False)
            return
        self._acting = True
        self._act(flow)

    @work(group="branch-write", exit_on_error=False)
    async def _act(self, flow: Callable[[], Awaitable[None]]) -> None:
        try:
            await flow()
        finally:
            self._acting = False

    def _busy(self, line: str) -> None:
        self.query_one(LoadingBar).start(line)

    def _idle(self) -> None:
        self.query_one(LoadingBar).done()

    def _failed(self, error: BaseException) -> None:
        self._idle()
        self.notify(error_line(error), severity="error", markup=False, timeout=12)

    def action_conflicts(self) -> None:
        """Open the conflict workspace of this sync."""
        self.app.push_screen(WorkspaceScreen(self.session), lambda _: self.action_reload())

    def action_findings(self) -> None:
        """Open the review findings of the sync's pull request."""
        link = getattr(self.app, "github_link", None)
        if callable(link):
            self.app.push_screen(FindingsScreen(self.session, link))

    def action_status(self) -> None:
        """Open DCO, coverage and CI status of the sync's pull request."""
        link = getattr(self.app, "github_link", None)
        if callable(link):
            self.app.push_screen(StatusScreen(self.session, link), lambda _: self.action_reload())

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
        yield SystemCommand(
            "Findings", "The review findings and their origin", self.action_findings
        )
        yield SystemCommand("Reload", "Read the sync again from git", self.action_reload)
        yield SystemCommand(
            "Write repair", "Preview, then write the approved resolutions", self.action_write_repair
        )
        yield SystemCommand("Undo write", "Restore the branch's last backup", self.action_undo)
        yield SystemCommand("Push", "Push the branch with a lease, after asking", self.action_push)
        yield SystemCommand("Cancel loading", "Stop reading the sync", self.action_cancel)
