"""The Findings screen: every review finding, where its cited lines come from, and the reply."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from functools import partial
from typing import ClassVar

from textual import on, work
from textual.app import ComposeResult, SystemCommand
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, VerticalScroll
from textual.message import Message
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Header, Label, Static
from textual.worker import Worker, WorkerState, get_current_worker

from syncdesk.screens.confirm_screen import ConfirmScreen
from syncdesk.screens.note_screen import NoteScreen
from syncdesk.screens.reply_screen import ReplyPreviewScreen
from syncdesk.services.github.link import GitHubLink
from syncdesk.services.review.dispositions import Book, Decision, decide, load_book
from syncdesk.services.review.models import Disposition
from syncdesk.services.review.pull_request import (
    FindingsData,
    FindingView,
    load_findings,
    post_reply,
    reply_text,
)
from syncdesk.services.sanitize import one_line
from syncdesk.services.sync.session import SyncSession, reopen
from syncdesk.tui.text import error_line
from syncdesk.tui.widgets.finding_detail import render_detail
from syncdesk.tui.widgets.findings_table import FindingsTable
from syncdesk.tui.widgets.loading_bar import LoadingBar


class DecisionSaved(Message):
    """A disposition reached the disk (posted from the saver thread), or failed to."""

    def __init__(self, book: Book | None, error: str) -> None:
        super().__init__()
        self.book = book
        self.error = error


class FindingsScreen(Screen[None]):
    """Findings on the left, the selected one in full on the right; a key per disposition."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("m", "dispose('fix-on-main')", "Fix on main", id="findings.main"),
        Binding("h", "dispose('fix-here')", "Fix here", id="findings.here"),
        Binding("v", "dispose('fix-on-dev')", "Fix on dev", id="findings.dev"),
        Binding("x", "dispose('closed')", "Closed", id="findings.closed"),
        Binding("a", "accept", "Accept suggestion", id="findings.accept"),
        Binding("n", "note", "Note", id="findings.note"),
        Binding("R", "reply", "Reply", id="findings.reply"),
        Binding("r", "reload", "Reload", id="findings.reload"),
        Binding("escape", "back", "Back", id="findings.back"),
    ]

    def __init__(self, session: SyncSession, link: Callable[[], GitHubLink]) -> None:
        super().__init__()
        self.session = session
        self._link = link  # resolved in the worker: finding the token may run `gh`
        self.data: FindingsData | None = None
        self._replying = False
        self._saver = ThreadPoolExecutor(max_workers=1, thread_name_prefix="syncdesk-findings")

    def compose(self) -> ComposeResult:
        yield Header(icon="⇄")
        self._bar = LoadingBar("Reading the pull request…", id="findings-loading")
        yield self._bar
        yield Label("", id="findings-notes", markup=False)
        with Horizontal(id="findings-body"):
            yield FindingsTable(id="findings-table")
            with VerticalScroll(id="finding-pane"):
                yield Static(id="finding-detail")
        yield Footer()

    def on_mount(self) -> None:
        self.action_reload()

    def on_unmount(self) -> None:
        # Queued decisions still reach the disk (the executor's thread finishes
        # its queue; Python joins it at exit); the event loop does not wait.
        self._saver.shutdown(wait=False)

    # -- loading ----------------------------------------------------------------------

    def action_reload(self) -> None:
        """Read the pull request and trace the findings again."""
        self.query_one(LoadingBar).start("Reading the pull request…")
        self._load()

    @work(thread=True, exclusive=True, exit_on_error=False, group="findings-load")
    def _load(self) -> FindingsData:
        worker = get_current_worker()
        link = self.data.link if self.data is not None else self._link()

        # The refs are read again: a write, a re-sign or a push elsewhere moved them.
        self.session = session = reopen(self.session)
        return load_findings(
            session, link, progress=self._bar.report, cancelled=lambda: worker.is_cancelled
        )

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if event.worker.group != "findings-load":
            return
        if event.state == WorkerState.SUCCESS:
            data = event.worker.result
            assert isinstance(data, FindingsData)
            self._show(data)
        elif event.state == WorkerState.ERROR and event.worker.error is not None:
            self.query_one(LoadingBar).fail(error_line(event.worker.error))

    def _show(self, data: FindingsData) -> None:
        self.data = data
        self.query_one(LoadingBar).done()
        pr = data.pr
        header = f"#{pr.number} {one_line(pr.title)} · {len(data.views)} finding(s)"
        notes = " · ".join(one_line(note) for note in data.notes)
        self.query_one("#findings-notes", Label).update(header + (f" · {notes}" if notes else ""))
        table = self.query_one(FindingsTable)
        table.show(data)
        table.focus()
        self._show_detail()

    # -- the selected finding ---------------------------------------------------------

    @property
    def view(self) -> FindingView | None:
        """The finding under the cursor."""
        if self.data is None:
            return None
        selected = self.query_one(FindingsTable).selected_id
        return next((v for v in self.data.views if v.finding.id == selected), None)

    @on(DataTable.RowHighlighted, "#findings-table")
    def _highlighted(self) -> None:
        self._show_detail()

    def _show_detail(self) -> None:
        view, data = self.view, self.data
        detail = self.query_one("#finding-detail", Static)
        if view is None or data is None:
            detail.update("No findings in this pull request's reviews.")
            return
        detail.update(render_detail(view, data.decision(view.finding.id)))

    # -- deciding ---------------------------------------------------------------------

    def action_dispose(self, value: str) -> None:
        """Set the selected finding's disposition (its note is kept)."""
        view, data = self.view, self.data
        if view is None or data is None:
            return
        decided = data.decision(view.finding.id)
        note = decided.note if decided is not None else ""
        self._save(view.finding.id, Decision(Disposition(value), note))

    def action_accept(self) -> None:
        """Take the suggested disposition for the selected finding."""
        view, data = self.view, self.data
        if view is None or data is None:
            return
        decided = data.decision(view.finding.id)
        note = decided.note if decided is not None else ""
        self._save(view.finding.id, Decision(view.suggested, note))

    @work(exclusive=True, group="findings-note", exit_on_error=False)
    async def action_note(self) -> None:
        """Write the note that goes with the selected finding's disposition."""
        view, data = self.view, self.data
        if view is None or data is None:
            return
        decided = data.decision(view.finding.id)
        title = f"Note for {view.finding.id}: {view.finding.title}"
        note = await self.app.push_screen_wait(
            NoteScreen(title, decided.note if decided is not None else "")
        )
        if note is None:
            return
        disposition = decided.disposition if decided is not None else view.suggested
        self._save(view.finding.id, Decision(disposition, note))

    def _save(self, finding_id: str, decision: Decision) -> None:
        # Saved before the screen shows it: a decision on screen is a decision
        # on disk. One writer thread keeps the saves in the order of the keys
        # pressed (m then x on one finding ends as x), off the event loop.
        data = self.data
        if data is None:
            return
        repo, number = data.link.target.full_name, data.pr.number
        self._saver.submit(self._save_now, repo, number, finding_id, decision)

    def _save_now(self, repo: str, number: int, finding_id: str, decision: Decision) -> None:
        # On the saver thread. It reports with post_message, which never waits
        # for the event loop: call_from_thread would, and the screen's unmount
        # (which lets this thread finish) runs on that loop.
        try:
            book = decide(self.session.git, repo, number, finding_id, decision)
        except Exception as error:
            self.post_message(DecisionSaved(None, f"not saved: {error_line(error)}"))
            return
        self.post_message(DecisionSaved(book, ""))

    def on_decision_saved(self, message: DecisionSaved) -> None:
        if message.error:
            self.notify(message.error, severity="error", markup=False, timeout=12)
            return
        if self.data is None or message.book is None or not self.is_mounted:
            return
        self.data = replace(self.data, book=message.book)
        self.query_one(FindingsTable).show(self.data)
        self._show_detail()

    def _drain(self) -> None:
        """Wait (in a thread) until every decision pressed so far is on disk."""
        self._saver.submit(lambda: None).result()

    # -- the reply --------------------------------------------------------------------

    def action_reply(self) -> None:
        """Preview the dispositions reply, then post it once, after a confirmation."""
        if self._replying:
            # A second worker would not stop the first one's thread from posting.
            self.notify("A reply is already in progress.", markup=False)
            return
        self._replying = True
        self._reply()

    @work(group="findings-reply", exit_on_error=False)
    async def _reply(self) -> None:
        try:
            await self._reply_flow()
        finally:
            self._replying = False

    async def _reply_flow(self) -> None:
        data = self.data
        if data is None:
            return
        # The reply must hold every decision pressed so far: wait for the saver,
        # then read the book as it is on disk (another window may have added to it).
        await asyncio.to_thread(self._drain)
        git, repo, number = self.session.git, data.link.target.full_name, data.pr.number
        book = await asyncio.to_thread(load_book, git, repo, number)
        data = self.data = replace(data, book=book)
        text = reply_text(data)
        threads = sum(len(v.finding.comment_ids) for v in data.views)
        choice = await self.app.push_screen_wait(ReplyPreviewScreen(data.pr.number, text, threads))
        if choice is None:
            return
        where = f"#{data.pr.number} on {data.link.target.full_name}"
        question = f"Post the dispositions reply on {where}" + (
            f", and reply in {threads} inline thread(s)?" if choice and threads else "?"
        )
        if not await self.app.push_screen_wait(ConfirmScreen(question, "Post")):
            self.notify("Nothing was posted.", markup=False)
            return
        try:
            results = await asyncio.to_thread(
                partial(post_reply, self.session, data, threads=choice)
            )
        except Exception as error:
            self.notify(error_line(error), severity="error", markup=False, timeout=12)
            return
        first = results[0]
        if first.already_posted:
            message = f"Already posted (comment {first.comment_id}): nothing was sent again."
        elif first.confirmed_after_error:
            message = f"GitHub errored, but the reply is there (comment {first.comment_id})."
        else:
            message = f"Posted the reply (comment {first.comment_id})."
        if len(results) > 1:
            message += f" {len(results) - 1} thread reply(ies)."
        self.notify(message, title="Reply", markup=False, timeout=12)

    def action_back(self) -> None:
        """Back to the Slice screen."""
        self.workers.cancel_group(self, "findings-load")
        self.dismiss(None)

    def palette_commands(self) -> Iterable[SystemCommand]:
        """This screen's actions, for the command palette."""
        yield SystemCommand("Reply", "Preview and post the dispositions reply", self.action_reply)
        yield SystemCommand("Reload findings", "Read the pull request again", self.action_reload)
        yield SystemCommand(
            "Accept suggestion", "Take the suggested disposition", self.action_accept
        )
