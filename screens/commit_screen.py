"""The commit view: one commit's full message, people, signature and file stats."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.content import Content
from textual.screen import Screen
from textual.widgets import DataTable, Header, Label, LoadingIndicator, Static
from textual.worker import Worker, WorkerState

from syncdesk.services.errors import error_line
from syncdesk.services.sync.models import CommitDetails
from syncdesk.services.sync.session import SyncSession, load_commit
from syncdesk.tui.text import counted, literal
from syncdesk.tui.widgets.key_footer import KeyFooter
from syncdesk.tui.widgets.row_table import RowTable


def header_lines(details: CommitDetails) -> Content:
    """The commit's identity block; names and emails enter as literal text."""
    muted = "bold $text-muted"
    parents = " ".join(p[:8] for p in details.parents) or "none (root commit)"
    rows = [
        Content.assemble(("commit     ", muted), (details.sha, "bold")),
        Content.assemble(("parents    ", muted), parents),
        Content.assemble(
            ("author     ", muted), f"{details.author.name} <{details.author.email}>  ",
            (details.author_date, "$text-muted"),
        ),
        Content.assemble(
            ("committer  ", muted), f"{details.committer.name} <{details.committer.email}>  ",
            (details.committer_date, "$text-muted"),
        ),
        Content.assemble(
            ("signature  ", muted), "signature header present" if details.signed else "none"
        ),
        Content.assemble(
            ("changes    ", muted),
            (f"+{details.added}", "$success"), " ", (f"-{details.deleted}", "$error"),
            f"  in {counted(len(details.files), 'file')}",
        ),
    ]  # fmt: skip
    return Content("\n").join(rows)


class CommitScreen(Screen[None]):
    """Full message and stats of one commit, loaded in a worker."""

    LEGEND = "commit"  # L explains the file table's counts (syncdesk.tui.legend)

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "back", "Back", id="commit.back"),
        Binding("j", "scroll_down", "Scroll down", show=False, id="commit.down"),
        Binding("k", "scroll_up", "Scroll up", show=False, id="commit.up"),
    ]

    def __init__(self, session: SyncSession, sha: str) -> None:
        super().__init__()
        self.session = session
        self.sha = sha
        self.details: CommitDetails | None = None

    def compose(self) -> ComposeResult:
        yield Header(icon="⇄")
        yield LoadingIndicator(id="commit-loading")
        with VerticalScroll(id="commit-body"):
            yield Static(id="commit-header")
            yield Static(id="commit-message")
            yield Label("Files", id="files-title")
            yield RowTable[Text](id="commit-files", cursor_type="row", zebra_stripes=True)
        yield KeyFooter()

    def on_mount(self) -> None:
        self.query_one("#commit-body").display = False
        table: DataTable[Text] = self.query_one("#commit-files", DataTable)
        table.add_column("File", key="path")
        table.add_column("Added", key="added")
        table.add_column("Deleted", key="deleted")
        self._load()

    @work(thread=True, exclusive=True, exit_on_error=False, group="load-commit")
    def _load(self) -> CommitDetails:
        return load_commit(self.session, self.sha)

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if event.worker.group != "load-commit":
            return
        if event.state == WorkerState.SUCCESS:
            result = event.worker.result
            assert isinstance(result, CommitDetails)
            self._show(result)
        elif event.state == WorkerState.ERROR and event.worker.error is not None:
            self.query_one("#commit-loading").display = False
            self.notify(error_line(event.worker.error), severity="error", markup=False)

    def _show(self, details: CommitDetails) -> None:
        self.details = details
        self.query_one("#commit-loading").display = False
        self.query_one("#commit-body").display = True
        self.query_one("#commit-header", Static).update(header_lines(details))
        self.query_one("#commit-message", Static).update(literal(details.message))
        table: DataTable[Text] = self.query_one("#commit-files", DataTable)
        for stat in details.files:
            table.add_row(
                literal(stat.path),
                Text("binary" if stat.added is None else f"+{stat.added}", justify="right"),
                Text("" if stat.deleted is None else f"-{stat.deleted}", justify="right"),
            )
        self.query_one("#commit-body").focus()

    def action_back(self) -> None:
        """Return to the slice."""
        self.dismiss()

    def action_scroll_down(self) -> None:
        self.query_one("#commit-body", VerticalScroll).scroll_down()

    def action_scroll_up(self) -> None:
        self.query_one("#commit-body", VerticalScroll).scroll_up()
