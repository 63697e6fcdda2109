"""The Slice screen: which main commits come in, and whether the branch is right."""

from __future__ import annotations

from contextlib import suppress
from typing import ClassVar

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, VerticalScroll
from textual.message import Message
from textual.widgets import DataTable, Header
from textual.worker import get_current_worker

from syncdesk.screens.branch_writes import rebuilt_message, written_message
from syncdesk.screens.confirm_screen import ConfirmScreen
from syncdesk.screens.desk import DeskScreen
from syncdesk.services.conflicts.models import ConflictSet
from syncdesk.services.errors import ServiceError
from syncdesk.services.progress import Steps
from syncdesk.services.sync.models import Anatomy, Slice, SyncReport
from syncdesk.services.sync.results import audit_ahead, results_notes
from syncdesk.services.sync.session import SyncSession, load_report, reopen
from syncdesk.services.workspace.approvals import approvals
from syncdesk.tui.memory import release_freed_memory
from syncdesk.tui.widgets.key_footer import KeyFooter
from syncdesk.tui.widgets.loading_bar import LoadingBar
from syncdesk.tui.widgets.slice_table import SliceTable
from syncdesk.tui.widgets.sync_summary import SyncSummary

# The worker group of the audit read ahead (see SliceScreen._audit_ahead).
AHEAD = "audit-ahead"

# What the Slice screen reads: the session, the report, and how many files are approved.
SliceLoaded = tuple[SyncSession, SyncReport, int | None]


class SliceEarly(Message):
    """The slice and its anatomy, read before the merges (posted from the load's thread)."""

    def __init__(self, the_slice: Slice, anatomy: Anatomy) -> None:
        super().__init__()
        self.slice = the_slice
        self.anatomy = anatomy


class SliceScreen(DeskScreen[SliceLoaded]):
    """The slice table beside the sync's summary."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("c", "conflicts", "Conflicts", id="slice.conflicts"),
        Binding("f", "findings", "Findings", id="slice.findings"),
        Binding("s", "status", "Status", id="slice.status"),
        Binding("r", "reload", "Reload", id="slice.reload"),
        Binding("W", "write_repair", "Write repair", id="slice.write"),
        Binding("O", "rebuild", "Rebuild", id="slice.rebuild"),
        Binding("z", "undo", "Undo write", id="slice.undo"),
        Binding("P", "push", "Push", id="slice.push"),
        Binding("enter", "open_commit", "Open commit", id="slice.open", show=False),
        Binding("escape", "cancel", "Cancel loading", id="slice.cancel", show=False),
    ]

    LOADING = "Loading the sync…"
    LEGEND = "slice"

    def __init__(self, session: SyncSession) -> None:
        super().__init__(session)
        self.report: SyncReport | None = None
        self.approved: int | None = None  # conflicted files approved (None: unknown)

    def compose(self) -> ComposeResult:
        yield Header(icon="⇄")
        yield LoadingBar(self.LOADING, id="loading-bar")
        with Horizontal(id="slice-body"):
            yield SliceTable(id="slice-table")
            with VerticalScroll(id="summary-pane"):
                yield SyncSummary(id="summary")
        yield KeyFooter()

    def on_mount(self) -> None:
        self.action_reload()
        # The other screens (and the GitHub client the Findings and Status screens
        # use) are imported on a thread once this one is up: not before the first
        # paint, and not when their key is first pressed.
        self.run_worker(_import_the_other_screens, thread=True, group="imports")

    def load(self, steps: Steps) -> SliceLoaded:
        # The refs are resolved anew, so a reload after a write, an undo or an
        # outside change shows where they are now.
        session = reopen(self.session)
        report = load_report(session, steps=steps, detail=False, early=self._early_from_thread)
        conflicts = report.conflicts
        approved, notes = approvals(session.git, conflicts) if conflicts is not None else (0, ())
        # A corrupt state set aside, a cache entry computed again: said here, as the CLI does.
        for note in (*notes, *results_notes(session)):
            self.app.call_from_thread(
                self.notify, note, severity="warning", markup=False, timeout=15
            )
        return session, report, approved

    def _early_from_thread(self, the_slice: Slice, anatomy: Anatomy) -> None:
        # The slice and the anatomy take a few git commands; the merges after them take
        # seconds on a real sync. Painted now, the table can be read meanwhile. A message,
        # not call_from_thread: that would hold the read until the UI has painted.
        self.post_message(SliceEarly(the_slice, anatomy))

    @on(SliceEarly)
    def _on_early(self, message: SliceEarly) -> None:
        self._early(message.slice, message.anatomy)

    def _early(self, the_slice: Slice, anatomy: Anatomy) -> None:
        self.query_one(SliceTable).show(the_slice)
        self.query_one(SyncSummary).show_early(the_slice, anatomy)
        self.query_one(SliceTable).focus()

    def loaded(self, result: SliceLoaded) -> None:
        self.session, self.report, self.approved = result
        self.query_one(SliceTable).show(self.report.slice)
        self.query_one(SyncSummary).show(self.report, self.approved)
        self.query_one(SliceTable).focus()
        if self.report.conflicts is not None:
            self._audit_ahead(self.session, self.report.conflicts)

    def action_reload(self) -> None:
        """Read everything again (an audit read ahead for the old refs is stopped)."""
        self.workers.cancel_group(self, AHEAD)
        super().action_reload()

    # Every @work that takes the sync's data names its description: without one, Textual
    # describes the worker by repr() of every argument, on the UI thread (a ConflictSet's
    # repr is every line of every conflicted file: 0.22 s of a paint on 13_08).
    @work(thread=True, exclusive=True, exit_on_error=False, group=AHEAD, description=AHEAD)
    def _audit_ahead(self, session: SyncSession, conflicts: ConflictSet) -> None:
        # The audit is the workspace's slowest read (seconds on a real sync): read now,
        # while the maintainer reads the slice, into the results cache. Nothing is held
        # here (the workspace reads it back, or waits for this read if `c` comes first),
        # so the desk's memory does not grow by an audit; nothing is shown, and an
        # error is the workspace's to say when it reads the audit itself.
        worker = get_current_worker()
        with suppress(ServiceError):  # Cancelled too: a reload, or the desk quitting
            audit_ahead(session, conflicts, Steps(None, lambda: worker.is_cancelled))
        release_freed_memory()  # the audit's working state, freed: 80 MB on 13_08

    # -- writing the repair, undo, push ----------------------------------------------
    #
    # Each is one async worker that reads in a thread, asks on a modal screen
    # (push_screen_wait only works inside a worker), then writes in a thread:
    # git never runs on the event loop, and nothing is written without a yes.
    # The services re-check every ref with a compare-and-swap at the moment of
    # writing, so what changed while the question was open is refused, not lost.

    def action_write_repair(self) -> None:
        """Preview the repair the approved resolutions make, and write it on confirmation."""
        self.start_action(self._write_repair)

    async def _write_repair(self) -> None:
        from syncdesk.services.write.session import plan_from_approved, write_confirmed

        session = self.session
        plan = await self.busy(
            "Planning the repair from the approved resolutions…", plan_from_approved, session
        )
        from syncdesk.screens.preview_screen import PreviewScreen

        if not await self.app.push_screen_wait(PreviewScreen(plan)):
            self.notify("Nothing was written.", markup=False)
            return
        # The preview asked again about anything that blocks (a file that does not compile).
        result = await self.busy(
            "Writing the repair…", write_confirmed, session, plan, despite_blocking=True
        )
        message, severity = written_message(result)
        self.notify(message, title="Repair written", severity=severity, markup=False, timeout=12)
        self.action_reload()

    def action_rebuild(self) -> None:
        """Rebuild the sync: fold dev merged on top, else onto dev's new tip (after a yes)."""
        self.start_action(self._rebuild)

    async def _rebuild(self) -> None:
        from syncdesk.services.write.fold import fold_question
        from syncdesk.services.write.session import (
            fold_confirmed,
            fold_plan,
            rebuild_confirmed,
            rebuild_question,
        )

        session, report = self.session, self.report
        if report is None:
            return
        ours = report.anatomy.ours
        if ours is not None and ours.merges:
            plan = await self.busy("Reading the merges of dev on top…", fold_plan, session)
            if not await self.app.push_screen_wait(ConfirmScreen(fold_question(plan), "Fold")):
                self.notify("Nothing was written.", markup=False)
                return
            result = await self.busy("Folding the merges of dev…", fold_confirmed, session, plan)
            message, severity = written_message(result)
            self.notify(message, title="Rebuilt", severity=severity, markup=False, timeout=12)
            self.action_reload()
            return
        advanced = report.dev_advanced
        if not advanced.commits:
            self.notify(
                "Nothing to rebuild: no merge of dev sits on top, and dev has not moved since "
                "the dev base.",
                markup=False,
            )
            return
        question = rebuild_question(report)
        if not await self.app.push_screen_wait(ConfirmScreen(question, "Rebuild")):
            self.notify("Nothing was written.", markup=False)
            return
        rebuilt = await self.busy(
            "Rebuilding on dev's tip…",
            rebuild_confirmed,
            session,
            report.refs.head,
            advanced.dev_tip,
        )
        message, severity = rebuilt_message(rebuilt)
        self.notify(message, title="Rebuilt", severity=severity, markup=False, timeout=15)
        self.action_reload()

    def action_undo(self) -> None:
        """Restore the branch to the backup taken before syncdesk's last write."""
        self.start_action(self._undo)

    async def _undo(self) -> None:
        from syncdesk.services.write.session import (
            undo_confirmed,
            undo_question,
            undo_target,
            undone_message,
        )

        session = self.session
        target = await self.busy("Reading the backups…", undo_target, session)
        if not await self.app.push_screen_wait(ConfirmScreen(undo_question(target), "Undo")):
            return
        result = await self.busy("Restoring the backup…", undo_confirmed, session, target)
        self.notify(undone_message(result), title="Undone", markup=False, timeout=12)
        self.action_reload()

    def action_push(self) -> None:
        """Push the branch with a lease on the remote's expected commit, after a confirmation."""
        self.start_action(self._push)

    async def _push(self) -> None:
        from syncdesk.services.write.session import push_confirmed, push_lease, push_question

        session = self.session
        lease = await self.busy("Reading the remote-tracking branch…", push_lease, session)
        if not await self.app.push_screen_wait(ConfirmScreen(push_question(lease), "Push")):
            self.notify("Nothing was pushed.", markup=False)
            return
        result = await self.busy(f"Pushing to {lease.remote}…", push_confirmed, session, lease)
        self.notify(
            result.message,
            title="Pushed" if result.ok else "Push refused",
            severity="information" if result.ok else "error",
            markup=False,
            timeout=12,
        )

    def action_conflicts(self) -> None:
        """Open the conflict workspace of this sync."""
        from syncdesk.screens.workspace.screen import WorkspaceScreen

        conflicts = self.report.conflicts if self.report is not None else None
        self.app.push_screen(
            WorkspaceScreen(self.session, conflicts), lambda _: self.action_reload()
        )

    def action_findings(self) -> None:
        """Open the review findings of the sync's pull request."""
        link = getattr(self.app, "github_link", None)
        if callable(link):
            from syncdesk.screens.findings_screen import FindingsScreen

            self.app.push_screen(FindingsScreen(self.session, link))

    def action_status(self) -> None:
        """Open DCO, coverage and CI status of the sync's pull request."""
        link = getattr(self.app, "github_link", None)
        if callable(link):
            from syncdesk.screens.status_screen import StatusScreen

            self.app.push_screen(StatusScreen(self.session, link), lambda _: self.action_reload())

    def action_open_commit(self) -> None:
        """Show the full message and stats of the commit under the cursor."""
        sha = self.query_one(SliceTable).selected_sha
        if sha is not None:
            from syncdesk.screens.commit_screen import CommitScreen

            self.app.push_screen(CommitScreen(self.session, sha))

    @on(DataTable.RowSelected, "#slice-table")
    def _row_selected(self) -> None:
        self.action_open_commit()


def _import_the_other_screens() -> None:
    # The writers too: the first paint does without them (each action imports its own).
    pass
