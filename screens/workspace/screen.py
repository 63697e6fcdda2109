"""The conflict workspace: every conflict of the sync merge, reviewed and resolved hunk by hunk.

The screen binds the keys, lays out the panes and loads the conflicts. What it
holds and draws is :class:`~syncdesk.screens.workspace.core.WorkspaceCore`; its actions
come in groups, one mixin each: decisions, hand edits, accident restores and
attribution.
"""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.widgets import Footer, Header, Static

from syncdesk.screens.workspace.attribution import AttributionActions
from syncdesk.screens.workspace.decisions import DecisionActions
from syncdesk.screens.workspace.edits import EditActions
from syncdesk.screens.workspace.restores import RestoreActions
from syncdesk.services.progress import Steps
from syncdesk.services.report.audit import judged_line
from syncdesk.services.sync.policies import policy_for
from syncdesk.services.workspace.load import WorkspaceData, load_workspace
from syncdesk.tui.widgets.conflict_list import ConflictList
from syncdesk.tui.widgets.loading_bar import LoadingBar
from syncdesk.tui.widgets.threeway import ThreeWayView


# Textual resolves action_* methods and message handlers (on_*, @on) along the
# MRO, so the mixins' actions answer these bindings as if they were written
# here. BINDINGS are merged along the MRO too; only this class declares them,
# so self.BINDINGS (the palette below) lists every key. Each mixin subclasses
# WorkspaceCore, whose attributes and helpers they share; @work methods in
# them run as this screen's workers (the handler below sees their errors).
class WorkspaceScreen(DecisionActions, EditActions, RestoreActions, AttributionActions):
    """File list on the left; dev | result | main on the right; one key per decision."""

    LOADING = "Reading the conflicts…"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("n", "next_hunk", "Next hunk", id="ws.next"),
        Binding("p", "previous_hunk", "Prev hunk", id="ws.prev"),
        Binding("N", "next_file", "Next unresolved", id="ws.next_file"),
        Binding("d", "take('dev')", "Take dev", id="ws.dev"),
        Binding("m", "take('main')", "Take main", id="ws.main"),
        Binding("u", "take('union')", "Union dev+main", id="ws.union"),
        Binding("U", "take('union-main-first')", "Union main+dev", id="ws.union_main", show=False),
        Binding("b", "take('base')", "Take base", id="ws.base", show=False),
        Binding("s", "suggestion", "Take suggestion", id="ws.suggestion", show=False),
        Binding("e", "edit", "Edit", id="ws.edit"),
        Binding("E", "edit_external", "Edit in $EDITOR", id="ws.editor", show=False),
        Binding("D", "whole('dev')", "File: dev", id="ws.file_dev", show=False),
        Binding("M", "whole('main')", "File: main", id="ws.file_main", show=False),
        Binding("z", "undo", "Undo", id="ws.undo"),
        Binding("y", "redo", "Redo", id="ws.redo", show=False),
        Binding("a", "approve", "Approve", id="ws.approve"),
        Binding("i", "attribution", "Who wrote it", id="ws.attribution"),
        Binding("v", "toggle_base", "Show base", id="ws.show_base", show=False),
        Binding("x", "next_accident", "Next accident", id="ws.next_accident", show=False),
        Binding("R", "restore", "Restore dev lines", id="ws.restore", show=False),
        Binding("escape", "back", "Back", id="ws.back"),
    ]

    def compose(self) -> ComposeResult:
        yield Header(icon="⇄")
        yield LoadingBar(self.LOADING, id="ws-loading")
        with Horizontal(id="ws-body"):
            yield ConflictList(id="ws-files")
            with Vertical(id="ws-main"):
                yield Static(id="ws-hunk-info")
                yield Static(id="ws-pane-titles")
                yield ThreeWayView(id="ws-view")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#ws-body").display = False
        self.action_reload()

    def on_unmount(self) -> None:
        self.persister.close()

    # -- loading ----------------------------------------------------------------------

    def load(self, steps: Steps) -> WorkspaceData:
        return load_workspace(self.session, steps)

    def loaded(self, data: WorkspaceData) -> None:
        self.data, self.state, self.texts = data, data.loaded.state, dict(data.texts)
        self._dev_files.update(data.dev_files)
        config = self.session.config
        self.policies = {f.path: policy_for(f.path, config) for f in data.conflicts.files}
        self.query_one("#ws-body").display = True
        for note in data.loaded.notes:
            self.notify(note, severity="warning", markup=False)
        audit = data.audit
        if audit is not None and audit.dev and audit.dev != audit.dev_base:
            # dev was merged into the sync branch: say what the accidents are judged on.
            self.notify(f"Audit: {judged_line(audit)}.", markup=False, timeout=10)
        if not data.conflicts.files:
            self.query_one("#ws-hunk-info", Static).update(
                Content("No conflicts: the merge of the dev base and the slice tip is clean.")
            )
            return
        self._refresh_list()
        cursor = self.state.cursor
        resumed = data.conflicts.file(cursor.path) if cursor.path is not None else None
        path = resumed.path if resumed is not None else data.conflicts.files[0].path
        files = self.query_one(ConflictList)
        files.move_cursor(row=files.get_row_index(path))
        self._open(path, hunk=cursor.hunk)
        self.query_one(ThreeWayView).focus()

    def action_toggle_base(self) -> None:
        """Show or hide the merge base's lines beside dev's."""
        view = self.query_one(ThreeWayView)
        view.show_base = not view.show_base

    def action_back(self) -> None:
        """Return to the Slice screen."""
        self.dismiss()
