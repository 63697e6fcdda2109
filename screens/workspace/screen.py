"""The conflict workspace: every conflict of the sync merge, reviewed and resolved hunk by hunk.

The screen binds the keys, lays out the panes and loads the conflicts. What it
holds and draws is :class:`~syncdesk.screens.workspace.core.WorkspaceCore`; its actions
come in groups, one mixin each: decisions, hand edits, accident restores,
attribution, and the room the panes get.
"""

from __future__ import annotations

import gc
from dataclasses import replace
from typing import ClassVar, cast

from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.widgets import Header, Static
from textual.worker import Worker, WorkerState, get_current_worker

from syncdesk.screens.desk import LOAD
from syncdesk.screens.workspace.attribution import AttributionActions
from syncdesk.screens.workspace.core import WorkspaceLoaded
from syncdesk.screens.workspace.decisions import DecisionActions
from syncdesk.screens.workspace.edits import EditActions
from syncdesk.screens.workspace.panes import PaneActions
from syncdesk.screens.workspace.restores import RestoreActions
from syncdesk.services.audit.model import Audit
from syncdesk.services.conflicts.models import ConflictSet
from syncdesk.services.progress import Steps
from syncdesk.services.report.audit import judged_line
from syncdesk.services.sync.policies import policy_for
from syncdesk.services.sync.results import results_notes
from syncdesk.services.sync.session import SyncSession, reopen
from syncdesk.services.workspace.load import load_accidents, load_workspace
from syncdesk.tui.memory import release_freed_memory
from syncdesk.tui.widgets.conflict_list import ConflictList
from syncdesk.tui.widgets.key_footer import KeyFooter
from syncdesk.tui.widgets.loading_bar import LoadingBar
from syncdesk.tui.widgets.threeway import ThreeWayView

# Textual resolves action_* methods and message handlers (on_*, @on) along the
# MRO, so the mixins' actions answer these bindings as if they were written
# here. BINDINGS are merged along the MRO too; only this class declares them,
# so self.BINDINGS (the palette below) lists every key. Each mixin subclasses
# WorkspaceCore, whose attributes and helpers they share; @work methods in
# them run as this screen's workers (the handler below sees their errors).
# How often the workspace looks for another desk's saves (two lstat calls when none).
LOOK_SECONDS = 2.0
# The worker group of the audit, read after the conflicts are on screen.
AUDIT = "audit"
# What it reads: the audit, and the dev base's files its restores need.
Accidents = tuple[Audit | None, dict[str, tuple[str, ...]]]


class WorkspaceScreen(
    DecisionActions, EditActions, RestoreActions, AttributionActions, PaneActions
):
    """File list on the left; dev | result | main on the right; one key per decision."""

    LOADING = "Reading the conflicts…"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("n", "next_hunk", "Next hunk", id="ws.next"),
        Binding("p", "previous_hunk", "Prev hunk", id="ws.prev"),
        Binding("N", "next_file", "Next unresolved", id="ws.next_file"),
        Binding("slash", "find_file", "Find file", id="ws.find"),
        Binding("F", "files", "Files", id="ws.files"),
        Binding("Z", "zoom", "Zoom", id="ws.zoom"),
        Binding("d", "take('dev')", "Take dev", id="ws.dev"),
        Binding("m", "take('main')", "Take main", id="ws.main"),
        Binding("u", "take('union')", "Union dev+main", id="ws.union"),
        Binding("U", "take('union-main-first')", "Union main+dev", id="ws.union_main", show=False),
        Binding("b", "take('base')", "Take base", id="ws.base", show=False),
        Binding("S", "suggestion", "Take suggestion", id="ws.suggestion", show=False),
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
        Binding("A", "lost_changes", "Lost dev changes", id="ws.lost_changes", show=False),
        Binding("r", "reload", "Reload", id="ws.reload", show=False),
        Binding("escape", "back", "Back", id="ws.back"),
    ]
    LEGEND = "workspace"
    # What still works while a reload reads: the state on screen is about to be
    # replaced, so a key that decides or moves the cursor would be lost from view.
    WHILE_READING = frozenset({"back", "reload", "toggle_base", "files", "zoom"})

    # What waits for the audit: the accidents it finds are what these act on.
    NEED_THE_AUDIT = frozenset({"next_accident", "restore", "lost_changes"})

    def __init__(self, session: SyncSession, conflicts: ConflictSet | None = None) -> None:
        super().__init__(session)
        self._reading = False
        self._auditing = False
        # The conflicts the Slice screen read: the first load uses them if the
        # refs have not moved since (a reload always merges again).
        self._known = conflicts

    def compose(self) -> ComposeResult:
        yield Header(icon="⇄")
        yield LoadingBar(self.LOADING, id="ws-loading")
        with Horizontal(id="ws-body"):
            yield ConflictList(id="ws-files")
            with Vertical(id="ws-main"):
                yield Static(id="ws-hunk-info")
                yield Static(id="ws-pane-titles")
                yield ThreeWayView(id="ws-view")
        yield KeyFooter()

    def on_mount(self) -> None:
        self.query_one("#ws-body").display = False
        self.fit_to_width()
        self.action_reload()
        # Another desk on this sync (a second terminal) saves to the same state:
        # look every LOOK_SECONDS, so a decision it replaced is told here too.
        self.set_interval(LOOK_SECONDS, self.look_for_other_desks)

    def on_unmount(self) -> None:
        self.persister.close()

    # -- loading ----------------------------------------------------------------------

    def action_reload(self) -> None:
        """Read the conflicts and the saved decisions again (every decision is kept)."""
        self.workers.cancel_group(self, AUDIT)  # of the state about to be replaced
        self._reading = True
        self._auditing = False
        self.refresh_bindings()
        super().action_reload()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        # None: the key stays in the footer, dimmed, and does nothing until the read ends.
        if self._reading and action not in self.WHILE_READING:
            return None
        return None if self._auditing and action in self.NEED_THE_AUDIT else True

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        # Textual calls DeskScreen's handler for the same message right after this
        # one (handlers run along the MRO), which shows the result: no key comes between.
        # (It also reports an audit's error, once, as for any other worker.)
        worker = event.worker
        if worker.group == LOAD and worker.is_finished:
            self._reading = False
            self.refresh_bindings()
        elif worker.group == AUDIT and worker.is_finished:
            self._auditing = False
            self.query_one(LoadingBar).done()
            self.refresh_bindings()
            if event.state == WorkerState.SUCCESS:
                self._audited(cast(Accidents, worker.result))

    def load(self, steps: Steps) -> WorkspaceLoaded:
        # Every decision made so far reaches the disk before the state is read
        # back; the refs are resolved anew (a write or a rebuild elsewhere moved them).
        self.persister.flush()
        session = reopen(self.session)
        known, self._known = self._known, None
        return session, load_workspace(session, steps, audit=False, known=known)

    # A description, not Textual's repr() of the arguments (see SliceScreen._audit_ahead).
    @work(thread=True, exclusive=True, exit_on_error=False, group=AUDIT, description=AUDIT)
    def _audit(self, session: SyncSession, conflicts: ConflictSet, bar: LoadingBar) -> Accidents:
        # The audit takes seconds on a large sync: the conflicts are on screen and
        # usable meanwhile, the loading bar says what it reads (report() only posts
        # a message: safe from this thread), and r cancels it.
        worker = get_current_worker()
        return load_accidents(session, conflicts, Steps(bar.report, lambda: worker.is_cancelled))

    def _audited(self, found: Accidents) -> None:
        audit, dev_files = found
        if self.data is None or audit is None:
            return
        self.data = replace(self.data, audit=audit, dev_files=dev_files)
        self._dev_files.update(dev_files)
        for note in results_notes(self.session):  # the audit's entry was unreadable
            self.notify(note, severity="warning", markup=False)
        gc.freeze()  # long-lived, like the load's facts (see DeskScreen)
        release_freed_memory()  # the audit's blobs and lines: 70 MB on a Megatron sync
        if audit.dev and audit.dev != audit.dev_base:
            # dev was merged into the sync branch: say what the accidents are judged on.
            self.notify(f"Audit: {judged_line(audit)}.", markup=False, timeout=10)
        self._refresh_list()  # the marks of the files with accidents
        self._redraw()

    def loaded(self, result: WorkspaceLoaded) -> None:
        self.session, data = result
        self.data, self.state, self.texts = data, data.loaded.state, dict(data.texts)
        # What is on screen now is what was read from disk: nothing is pending.
        self._saving.clear()
        self._save_error = None
        self._attributions.clear()  # blamed at the head read before
        self._dev_files.update(data.dev_files)
        config = self.session.config
        self.policies = {f.path: policy_for(f.path, config) for f in data.conflicts.files}
        self.query_one("#ws-body").display = True
        for note in (*data.loaded.notes, *results_notes(self.session)):
            self.notify(note, severity="warning", markup=False)
        if data.merges_on_top:
            self.notify(
                f"Dev is merged on top of this sync ({len(data.merges_on_top)} merge(s)): the dev "
                "side here is the old dev base, and no repair can be written over a merge. "
                "Rebuild first (O on the Slice screen): one merge on the newest dev plus one "
                "repair, the same files.",
                title="Rebuild before deciding",
                severity="warning",
                markup=False,
                timeout=20,
            )
        if data.built:  # (with no conflict too: it says what it judged)
            self._auditing = True
            bar = self.query_one(LoadingBar)
            bar.start("Auditing dev's lines in the result…")
            self._audit(self.session, data.conflicts, bar)
        if not data.conflicts.files:
            self.query_one(ConflictList).show((), {}, {})  # a reload may have emptied it
            self.query_one(ThreeWayView).display = False
            self.query_one("#ws-pane-titles").display = False
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
