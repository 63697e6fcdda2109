"""The Findings screen: every review finding, where its cited lines come from, and the reply."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from functools import partial
from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, VerticalScroll
from textual.message import Message
from textual.widgets import DataTable, Header, Label, Static

from syncdesk.screens.confirm_screen import ConfirmScreen
from syncdesk.screens.desk import DeskScreen
from syncdesk.screens.note_screen import NoteScreen
from syncdesk.screens.reply_screen import ReplyPreviewScreen
from syncdesk.services.decisions.saver import OrderedSaver
from syncdesk.services.github.link import GitHubLink
from syncdesk.services.progress import Steps
from syncdesk.services.review.dispositions import Book, Decision, decide, load_book
from syncdesk.services.review.models import Disposition
from syncdesk.services.review.pull_request import (
    FindingsData,
    load_findings,
    post_reply,
    reply_text,
)
from syncdesk.services.review.trace import FindingView
from syncdesk.services.sanitize import one_line
from syncdesk.services.sync.session import SyncSession, reopen
from syncdesk.tui.breakpoints import breakpoints
from syncdesk.tui.widgets.finding_detail import render_detail
from syncdesk.tui.widgets.findings_table import FindingsTable
from syncdesk.tui.widgets.key_footer import KeyFooter
from syncdesk.tui.widgets.loading_bar import LoadingBar


class DecisionSaved(Message):
    """A disposition reached the disk (posted from the saver thread), or failed to."""

    def __init__(self, book: Book | None, error: str = "") -> None:
        super().__init__()
        self.book = book
        self.error = error


class FindingsScreen(DeskScreen[tuple[SyncSession, FindingsData]]):
    """Findings on the left, the selected one in full on the right; a key per disposition."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("m", "dispose('fix-on-main')", "Fix on main", id="findings.main"),
        Binding("H", "dispose('fix-here')", "Fix here", id="findings.here"),
        Binding("d", "dispose('fix-on-dev')", "Fix on dev", id="findings.dev"),
        Binding("X", "dispose('closed')", "Closed", id="findings.closed"),
        Binding("a", "accept", "Accept suggestion", id="findings.accept"),
        Binding("e", "note", "Note", id="findings.note"),
        Binding("P", "reply", "Reply", id="findings.reply"),
        Binding("r", "reload", "Reload", id="findings.reload"),
        Binding("escape", "back", "Back", id="findings.back"),
    ]

    LOADING = "Reading the pull request…"
    LEGEND = "findings"
    # The table needs 98 columns beside a readable detail pane: below 150 the
    # detail goes under the table (the stylesheet's FindingsScreen.-narrow).
    HORIZONTAL_BREAKPOINTS = breakpoints(150)

    def __init__(self, session: SyncSession, link: Callable[[], GitHubLink]) -> None:
        super().__init__(session)
        self._link = link  # resolved in the worker: finding the token may run `gh`
        self.data: FindingsData | None = None
        # What each key pressed decided, before the saver reports it saved: a note
        # written right after "x" goes with "x", not with what the screen showed.
        self._pressed: dict[str, Decision] = {}
        # The saver's thread reports with post_message, which never waits for the
        # event loop (call_from_thread would, and on_unmount waits for the saver).
        self._saver = OrderedSaver(
            lambda line: self.post_message(DecisionSaved(None, line)), name="syncdesk-findings"
        )

    def compose(self) -> ComposeResult:
        yield Header(icon="⇄")
        yield LoadingBar(self.LOADING, id="findings-loading")
        yield Label("", id="findings-notes", markup=False)
        with Horizontal(id="findings-body"):
            yield FindingsTable(id="findings-table")
            with VerticalScroll(id="finding-pane"):
                yield Static(id="finding-detail")
        yield KeyFooter()

    def on_mount(self) -> None:
        self.action_reload()

    def on_unmount(self) -> None:
        # Every decision pressed reaches the disk before the screen goes.
        self._saver.close()

    # -- loading ----------------------------------------------------------------------

    def load(self, steps: Steps) -> tuple[SyncSession, FindingsData]:
        link = self.data.link if self.data is not None else self._link()
        # The refs are read again: a write, a re-sign or a push elsewhere moved them.
        session = reopen(self.session)
        return session, load_findings(session, link, steps=steps)

    def loaded(self, result: tuple[SyncSession, FindingsData]) -> None:
        self.session, data = result
        self._show(data)

    def _show(self, data: FindingsData) -> None:
        self.data = data
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
        # Another finding starts at its top, not where the previous one was scrolled to.
        self.query_one("#finding-pane", VerticalScroll).scroll_home(animate=False)

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
        decided = self._decision(view.finding.id)
        note = decided.note if decided is not None else ""
        self._save(view.finding.id, Decision(Disposition(value), note))

    def action_accept(self) -> None:
        """Take the suggested disposition for the selected finding."""
        view, data = self.view, self.data
        if view is None or data is None:
            return
        decided = self._decision(view.finding.id)
        note = decided.note if decided is not None else ""
        self._save(view.finding.id, Decision(view.suggested, note))

    def action_note(self) -> None:
        """Write the note that goes with the selected finding's disposition."""
        self.start_action(self._note_flow)

    async def _note_flow(self) -> None:
        view, data = self.view, self.data
        if view is None or data is None:
            return
        decided = self._decision(view.finding.id)
        title = f"Note for {view.finding.id}: {view.finding.title}"
        note = await self.app.push_screen_wait(
            NoteScreen(title, decided.note if decided is not None else "")
        )
        if note is None:
            return
        # A note alone decides nothing: without a disposition chosen, the
        # suggestion stays a suggestion (the reply marks it so).
        disposition = decided.disposition if decided is not None else None
        self._save(view.finding.id, Decision(disposition, note))

    def _decision(self, finding_id: str) -> Decision | None:
        """The finding's latest decision: the last key pressed, else the saved one."""
        if finding_id in self._pressed:
            return self._pressed[finding_id]
        return self.data.decision(finding_id) if self.data is not None else None

    def _save(self, finding_id: str, decision: Decision) -> None:
        # Saved before the screen shows it: a decision on screen is a decision
        # on disk. One writer thread keeps the saves in the order of the keys
        # pressed (m then X on one finding ends as X), off the event loop.
        data = self.data
        if data is None:
            return
        self._pressed[finding_id] = decision
        repo, number = data.link.target.full_name, data.pr.number
        save = partial(decide, self.session.git, repo, number, finding_id, decision)
        self._saver.submit(save, lambda book: self.post_message(DecisionSaved(book)))

    def on_decision_saved(self, message: DecisionSaved) -> None:
        if message.error:
            self.notify(message.error, severity="error", markup=False, timeout=12)
            return
        if self.data is None or message.book is None or not self.is_mounted:
            return
        self.data = replace(self.data, book=message.book)
        self.query_one(FindingsTable).show(self.data)
        self._show_detail()

    # -- the reply --------------------------------------------------------------------

    def action_reply(self) -> None:
        """Preview the dispositions reply, then post it once, after a confirmation."""
        self.start_action(self._reply_flow)

    async def _reply_flow(self) -> None:
        data = self.data
        if data is None:
            return
        # The reply must hold every decision pressed so far: wait for the saver,
        # then read the book as it is on disk (another window may have added to it).
        await self.in_thread(self._saver.flush)
        git, repo, number = self.session.git, data.link.target.full_name, data.pr.number
        book = await self.in_thread(load_book, git, repo, number)
        data = self.data = replace(data, book=book)
        self._pressed.clear()  # every key pressed so far is in the book now
        text = reply_text(data)
        threads = sum(len(v.finding.comment_ids) for v in data.views)
        suggested = [
            v.finding.id
            for v in data.views
            if (decided := data.decision(v.finding.id)) is None or not decided.decided
        ]
        choice = await self.app.push_screen_wait(
            ReplyPreviewScreen(data.pr.number, text, threads, suggested)
        )
        if choice is None:
            return
        where = f"#{data.pr.number} on {data.link.target.full_name}"
        question = f"Post the dispositions reply on {where}" + (
            f", and reply in {threads} inline thread(s)?" if choice and threads else "?"
        )
        if not await self.app.push_screen_wait(ConfirmScreen(question, "Post")):
            self.notify("Nothing was posted.", markup=False)
            return
        results = await self.in_thread(post_reply, self.session, data, threads=choice)
        threads_note = f"{len(results) - 1} thread reply(ies)." if len(results) > 1 else ""
        self.posted("reply", results[0], threads_note)

    def action_back(self) -> None:
        """Back to the Slice screen."""
        self.action_cancel()
        self.dismiss(None)
