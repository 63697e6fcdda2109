"""The lost dev changes: which dev commits the result lost lines of, ranked, one row per file.

Opened from the workspace (``A``). A change row says what the dev commit was
(commit, pull request, subject), how many of its lines the result lost and
what of it breaks the result; its file rows follow. Enter goes to the file
and its first lost line; ``R`` on a file row puts the whole change back in
that file, after a preview; ``B`` looks for breakage (it reads the result's
Python files and the modules they import: seconds on a large sync, so it is
asked for, in a worker, and escape leaves it running to no one).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import ClassVar, Literal

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.screen import Screen
from textual.widgets import DataTable, Header, Label
from textual.worker import Worker, WorkerState

from syncdesk.services.audit.model import Audit, LostLine
from syncdesk.services.errors import error_line
from syncdesk.services.sanitize import one_line
from syncdesk.services.workspace.lost_changes import LostChange, lost_changes
from syncdesk.tui.text import literal
from syncdesk.tui.widgets.key_footer import KeyFooter
from syncdesk.tui.widgets.row_table import RowTable

BREAKAGE = "breakage"


@dataclass(frozen=True, slots=True)
class ChangeChoice:
    """What the maintainer asked for on a row: open the file at a dev line, or restore."""

    action: Literal["open", "restore"]
    sha: str
    path: str
    line: int  # the change's first flagged line in that file (dev base numbering)


class LostChangesScreen(Screen[ChangeChoice | None]):
    """The audit's lost dev changes; dismisses with the row's file and what to do there."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "choose('open')", "Go to", id="lost.open", priority=True),
        Binding("R", "choose('restore')", "Restore in file", id="lost.restore"),
        Binding("B", "breakage", "Find breakage", id="lost.breakage"),
        Binding("escape", "back", "Back", id="lost.back"),
    ]

    def __init__(
        self,
        audit: Audit,
        conflicted: Sequence[str],
        missing: Mapping[str, Sequence[LostLine]],
        look_for_breakage: Callable[[Audit], Audit],
        found_breakage: Callable[[Audit], None],
    ) -> None:
        super().__init__()
        self._look_for_breakage = look_for_breakage
        self._audit = audit
        self._conflicted = tuple(conflicted)
        self._missing = missing
        self._found_breakage = found_breakage
        self._rows: dict[str, tuple[LostChange, str | None]] = {}
        self._looking = False

    def compose(self) -> ComposeResult:
        yield Header(icon="⇄")
        yield Label(id="lost-summary")
        yield RowTable[Text](id="lost-table", cursor_type="row", zebra_stripes=True)
        yield KeyFooter()

    def on_mount(self) -> None:
        table = self.query_one(DataTable)
        for label, key, width in (
            ("Commit", "commit", 10),
            ("PR", "pr", 7),
            ("Lines", "lines", 5),
            ("Broken", "broken", 6),
            ("Change / file", "what", None),
        ):
            table.add_column(label, key=key, width=width)
        self._fill()
        table.focus()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "breakage":
            # None: shown dimmed while it looks; False: hidden once it has looked.
            return None if self._looking else not self._audit.breakage_checked
        return True

    # -- the rows ------------------------------------------------------------------------

    def _fill(self) -> None:
        table = self.query_one(DataTable)
        current = self._current_key()
        table.clear()
        self._rows.clear()
        changes = lost_changes(self._audit, self._conflicted, self._missing)
        for lost in changes:
            change = lost.change
            pulls = " ".join(f"#{pull}" for pull in change.pulls[:1])
            broken = str(len(lost.breakage)) if lost.breakage else ""
            key = change.sha
            self._rows[key] = (lost, None)
            table.add_row(
                Text(change.sha[:8], style="bold"),
                Text(pulls),
                Text(str(lost.flagged_count), justify="right"),
                Text(broken, style="bold red", justify="right"),
                literal(one_line(change.subject) or "(no subject)"),
                key=key,
            )
            for part in lost.files:
                where = "" if part.conflicted else "  (not conflicted: fix by hand)"
                key = f"{change.sha}:{part.path}"
                self._rows[key] = (lost, part.path)
                broken_here = sum(1 for b in lost.breakage if b.path == part.path)
                table.add_row(
                    Text(""),
                    Text(""),
                    Text(str(len(part.flagged)), justify="right", style="dim"),
                    Text(str(broken_here) if broken_here else "", justify="right", style="dim"),
                    Text("  ").append_text(literal(one_line(part.path))).append(where, style="dim"),
                    key=key,
                )
        if current in self._rows:
            table.move_cursor(row=table.get_row_index(current))
        self.query_one("#lost-summary", Label).update(literal(self._summary(changes)))

    def _summary(self, changes: Sequence[LostChange]) -> str:
        lines = sum(lost.flagged_count for lost in changes)
        said = f"{len(changes)} lost dev change(s), {lines} flagged line(s)"
        if not self._audit.breakage_checked:
            return f"{said}; ranked by size (B looks for breakage, which ranks first)."
        broken = len(self._audit.breakage)
        unexplained = sum(1 for link in self._audit.breakage if link.change is None)
        return (
            f"{said}; {broken} breakage(s) in the result, {unexplained} explained by no lost "
            "change: ranked by breakage, then size."
        )

    def _current_key(self) -> str | None:
        table = self.query_one(DataTable)
        if table.row_count == 0:
            return None
        return table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value

    # -- the keys ------------------------------------------------------------------------

    def action_choose(self, action: Literal["open", "restore"]) -> None:
        """Go to the row's file (its change's first lost line), or restore the change there."""
        key = self._current_key()
        if key is None:
            return
        lost, path = self._rows[key]
        if path is None:
            if action == "restore" and len(lost.files) > 1:
                self.notify(
                    "This change lost lines in several files: choose one of its file rows.",
                    markup=False,
                )
                return
            path = lost.files[0].path
        part = next(part for part in lost.files if part.path == path)
        if not part.conflicted:
            self.notify(
                "That file is not a conflict of the sync merge: the desk has no decision to "
                "make there. Restore the lines by hand (the report lists them).",
                markup=False,
            )
            return
        self.dismiss(ChangeChoice(action, lost.change.sha, path, part.flagged[0].line))

    def action_breakage(self) -> None:
        """Look for code the result breaks, and rank the changes that explain it first."""
        if self._looking or self._audit.breakage_checked:
            return
        self._looking = True
        self.refresh_bindings()
        self.query_one("#lost-summary", Label).update(
            "Looking for breakage in the result's Python files…"
        )
        self._look()

    @work(thread=True, exclusive=True, exit_on_error=False, group=BREAKAGE)
    def _look(self) -> Audit:
        return self._look_for_breakage(self._audit)

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if event.worker.group != BREAKAGE or not event.worker.is_finished:
            return
        self._looking = False
        self.refresh_bindings()
        if event.state == WorkerState.SUCCESS and isinstance(event.worker.result, Audit):
            self._audit = event.worker.result
            self._found_breakage(self._audit)
            self._fill()
        elif event.state == WorkerState.ERROR:
            error = event.worker.error
            reason = error_line(error) if error is not None else "it stopped"
            self.notify(f"Could not look for breakage: {reason}", severity="error", markup=False)
            self._fill()

    def action_back(self) -> None:
        """Back to the workspace."""
        self.dismiss(None)
