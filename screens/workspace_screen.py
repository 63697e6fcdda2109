"""The conflict workspace: every conflict of the sync merge, reviewed and resolved hunk by hunk."""

from __future__ import annotations

import os
import shlex
import subprocess
import tempfile
from collections.abc import Iterable
from dataclasses import replace
from functools import partial
from pathlib import Path
from typing import ClassVar

from rich.syntax import Syntax
from textual import on, work
from textual.app import ComposeResult, SuspendNotSupported, SystemCommand
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.message import Message
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Header, Static
from textual.worker import Worker, WorkerState, get_current_worker

from screens.attribution_screen import AttributionScreen
from screens.edit_hunk_screen import EditHunkScreen
from services.attribution import attribute
from services.audit import Classification, Finding
from services.conflict_models import (
    ConflictFile,
    ConflictSet,
    FileAttribution,
    encode_text,
    split_lines,
)
from services.learn import remember_approval
from services.persister import Persister
from services.policies import KEEP_DEV, OVERRIDE_FROM_MAIN, policy_for
from services.sanitize import visible
from services.state_model import (
    Action,
    Cursor,
    SyncState,
    move_cursor,
    redo,
    undo,
)
from services.storage import lines_to_bytes, read_blobs, read_lines
from services.sync import SyncSession
from services.workspace import (
    Decided,
    Layout,
    action_lines,
    approve_file,
    decide_file,
    decide_hunk,
    decide_in_edited,
    edited_lines,
    file_status,
    first_unresolved,
    hunk_holding_dev_line,
    layout,
    restore_in_file,
    restored,
    whole_file_action,
)
from services.workspace_loader import WorkspaceData, load_workspace
from tui.text import error_line
from tui.widgets.conflict_list import ConflictList
from tui.widgets.loading_bar import LoadingBar
from tui.widgets.threeway import ThreeWayView

ACTION_LABELS = {
    Action.DEV: "dev",
    Action.MAIN: "main",
    Action.UNION: "union (dev, then main)",
    Action.UNION_MAIN_FIRST: "union (main, then dev)",
    Action.BASE: "base",
    Action.EDITED: "edited by hand",
    Action.DELETED: "deleted",
}


class SaveFailed(Message):
    """The persister could not save a decision (posted from its thread)."""

    def __init__(self, line: str) -> None:
        super().__init__()
        self.line = line


class WorkspaceScreen(Screen[None]):
    """File list on the left; dev | result | main on the right; one key per decision."""

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

    def __init__(self, session: SyncSession) -> None:
        super().__init__()
        self.session = session
        self.data: WorkspaceData | None = None
        self.state: SyncState | None = None
        self.texts: dict[str, tuple[str, ...]] = {}
        self.policies: dict[str, str | None] = {}
        self._attributions: dict[str, FileAttribution] = {}
        self._dev_files: dict[str, tuple[str, ...]] = {}  # dev base's file, read for restores
        self.persister = Persister(session.git, self._save_failed)

    def compose(self) -> ComposeResult:
        yield Header(icon="⇄")
        yield LoadingBar("Reading the conflicts…", id="ws-loading")
        with Horizontal(id="ws-body"):
            yield ConflictList(id="ws-files")
            with Vertical(id="ws-main"):
                yield Static(id="ws-hunk-info")
                yield Static(id="ws-pane-titles")
                yield ThreeWayView(id="ws-view")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#ws-body").display = False
        self._load()

    def on_unmount(self) -> None:
        self.persister.close()

    # -- loading ----------------------------------------------------------------------

    @work(thread=True, exclusive=True, exit_on_error=False, group="load-workspace")
    def _load(self) -> WorkspaceData:
        worker = get_current_worker()

        def progress(step: str) -> None:
            self.app.call_from_thread(self._progress, step)

        return load_workspace(self.session, progress, lambda: worker.is_cancelled)

    def _progress(self, step: str) -> None:
        self.query_one(LoadingBar).step(f"{step}…")

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if event.worker.group != "load-workspace":
            if event.state == WorkerState.ERROR and event.worker.error is not None:
                self.notify(error_line(event.worker.error), severity="error", markup=False)
            return
        if event.state == WorkerState.SUCCESS and isinstance(event.worker.result, WorkspaceData):
            self._loaded(event.worker.result)
        elif event.state == WorkerState.ERROR and event.worker.error is not None:
            self.query_one(LoadingBar).fail(error_line(event.worker.error))

    def _loaded(self, data: WorkspaceData) -> None:
        self.data, self.state, self.texts = data, data.loaded.state, dict(data.texts)
        self._dev_files.update(data.dev_files)
        config = self.session.config
        self.policies = {f.path: policy_for(f.path, config) for f in data.conflicts.files}
        self.query_one(LoadingBar).done()
        self.query_one("#ws-body").display = True
        for note in data.loaded.notes:
            self.notify(note, severity="warning", markup=False)
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

    # -- what is on screen -----------------------------------------------------------

    @property
    def conflict(self) -> ConflictFile | None:
        """The file in the view."""
        if self.data is None or self.state is None or self.state.cursor.path is None:
            return None
        return self.data.conflicts.file(self.state.cursor.path)

    def _refresh_list(self) -> None:
        assert self.data is not None and self.state is not None
        statuses = {
            f.path: file_status(self.state, f, self.policies[f.path])
            for f in self.data.conflicts.files
        }
        badges = {f.path: self._badge(f) for f in self.data.conflicts.files}
        self.query_one(ConflictList).show(self.data.conflicts.files, statuses, badges)

    def _badge(self, conflict: ConflictFile) -> str:
        assert self.data is not None
        policy = self.policies.get(conflict.path)
        mark = {KEEP_DEV: "K", OVERRIDE_FROM_MAIN: "M"}.get(policy or "", "")
        if conflict.file_key in self.data.file_suggestions or any(
            self.data.suggestions.get(h.key) for h in conflict.hunks
        ):
            mark += "↺"
        return mark

    def _open(self, path: str, hunk: int = 0) -> None:
        assert self.data is not None and self.state is not None
        conflict = self.data.conflicts.file(path)
        if conflict is None:
            return
        self._move_cursor(path, hunk)
        self._redraw()
        self.query_one(ThreeWayView).scroll_to_hunk(self.state.cursor.hunk)

    def _move_cursor(self, path: str, hunk: int) -> None:
        assert self.state is not None
        conflict = self.data.conflicts.file(path) if self.data else None
        count = len(conflict.hunks) if conflict else 0
        hunk = max(0, min(hunk, count - 1)) if count else 0
        if self.state.cursor != Cursor(path, hunk):
            self.state = move_cursor(self.state, path, hunk)
            self.persister.save(self.state)

    def _redraw(self) -> None:
        conflict, state = self.conflict, self.state
        if conflict is None or state is None:
            return
        view = self.query_one(ThreeWayView)
        if conflict.whole_file_only:
            view.display = False
        else:
            view.display = True
            current = self._layout(conflict)
            view.show(conflict, current.results, current.gaps)
            view.current_hunk = state.cursor.hunk
        self.query_one("#ws-hunk-info", Static).update(self._info(conflict))

    @on(ThreeWayView.Resized)
    def _retitle(self) -> None:
        view = self.query_one(ThreeWayView)
        self.query_one("#ws-pane-titles", Static).update(Content(view.titles()))

    def _info(self, conflict: ConflictFile) -> Content:
        assert self.state is not None and self.data is not None
        decisions = self.state.decisions(conflict.path)
        policy = self.policies.get(conflict.path)
        status = file_status(self.state, conflict, policy)
        parts: list[str | tuple[str, str] | Content] = [
            (conflict.display_path, "bold"), f"  {conflict.type} · {status} · head: ",
            (conflict.resolution, "bold"),
        ]  # fmt: skip
        if decisions.whole_file is not None:
            parts.append(f" · you: whole file {ACTION_LABELS[decisions.whole_file.action]}")
        elif whole_file_action(decisions, policy) is not None:
            parts.append((f" · policy {policy}: whole file (any decision overrides)", "$accent"))
        learned = self.data.file_suggestions.get(conflict.file_key)
        if conflict.whole_file_only and learned is not None:
            parts.append(("\n↺ ", "bold $accent"))
            parts.append(f"suggested: {learned.describe()} (press s to take it)")
        if conflict.whole_file_only:
            parts.append("\nWhole-file choice only (")
            parts.append("binary" if conflict.binary else "no hunks to show")
            parts.append("): D takes dev's file, M takes main's.")
            for message in conflict.messages:
                parts.append(f"\n{message}")
            return Content.assemble(*parts)
        index = self.state.cursor.hunk
        hunk = conflict.hunks[index]
        choice = decisions.hunk(index)
        parts.append(f"\nhunk {index + 1}/{len(conflict.hunks)} · head resolved it as ")
        parts.append((hunk.resolution, "bold"))
        if choice is not None and choice.key == hunk.key:
            parts.append(" · you chose ")
            parts.append((ACTION_LABELS[choice.action], "bold $success"))
        accidents = self._accidents(conflict)
        if accidents:
            here = [f for f in accidents if self._hunk_of(conflict, f.line) == index]
            parts.append((f"\n⚠ {len(accidents)} probable accident(s) in this file", "$warning"))
            parts.append(f" ({len(here)} in this hunk): dev lines missing from the result")
            if here:
                parts.append(f" · line {here[0].line}: ")
                parts.append((here[0].text.strip()[:60], "bold"))
                parts.append(" · R restores it")
            else:
                parts.append(" · x goes to the next one")
        for suggestion in self.data.suggestions.get(hunk.key, [])[:1]:
            parts.append(("\n↺ ", "bold $accent"))
            parts.append(f"suggested: {suggestion.describe()} (press s to take it)")
        return Content.assemble(*parts)

    # -- navigation -------------------------------------------------------------------

    @on(DataTable.RowSelected, "#ws-files")
    def _file_selected(self, event: DataTable.RowSelected) -> None:
        if event.row_key.value is not None:
            self._open(event.row_key.value)
            self.query_one(ThreeWayView).focus()

    def action_next_hunk(self) -> None:
        """Go to the next hunk."""
        self._step_hunk(+1)

    def action_previous_hunk(self) -> None:
        """Go to the previous hunk."""
        self._step_hunk(-1)

    def _step_hunk(self, delta: int) -> None:
        conflict = self.conflict
        if conflict is None or self.state is None or not conflict.hunks:
            return
        self._move_cursor(conflict.path, self.state.cursor.hunk + delta)
        self.query_one(ThreeWayView).scroll_to_hunk(self.state.cursor.hunk)
        self.query_one("#ws-hunk-info", Static).update(self._info(conflict))

    def action_next_file(self) -> None:
        """Go to the next file that is not approved."""
        if self.data is None or self.state is None:
            return
        following = first_unresolved(self.state, self.data.conflicts, self.state.cursor.path)
        if following is None:
            self.notify("Every file is approved.")
            return
        files = self.query_one(ConflictList)
        files.move_cursor(row=files.get_row_index(following.path))
        self._open(following.path)

    # -- decisions --------------------------------------------------------------------

    def _apply(self, decided: Decided) -> None:
        """Show a decision at once and save it in the background, in order."""
        self.state = decided.state
        for blob, data in decided.blobs.items():
            self.texts[blob] = tuple(split_lines(data.decode("utf-8", "surrogateescape")))
        self.persister.save(decided.state, decided.blobs)
        self._redraw()
        conflict = self.conflict
        if conflict is not None:
            status = file_status(self.state, conflict, self.policies.get(conflict.path))
            self.query_one(ConflictList).update_status(conflict.path, status)

    def action_take(self, action: str) -> None:
        """Resolve the current hunk with one of its sides or a union."""
        conflict, state = self.conflict, self.state
        if conflict is None or state is None:
            return
        if conflict.whole_file_only:
            self.notify("This file can only be resolved whole: D or M.", severity="warning")
            return
        self._decide_hunk(conflict, state.cursor.hunk, Action(action))

    def action_suggestion(self) -> None:
        """Take the carried-over resolution suggested for this hunk (never applied silently)."""
        conflict, state, data = self.conflict, self.state, self.data
        if conflict is None or state is None or data is None:
            return
        if conflict.whole_file_only:
            self._take_file_suggestion(conflict, state, data)
            return
        hunk = conflict.hunks[state.cursor.hunk]
        found = [s for s in data.suggestions.get(hunk.key, []) if s.blob in self.texts]
        if not found:
            self.notify("No resolution learned for this hunk.")
            return
        best = found[0]
        assert best.blob is not None
        lines = self.texts[best.blob]
        action = best.action or Action.EDITED
        self._decide_hunk(conflict, hunk.index, action, lines, carried_from=best.describe())

    def _take_file_suggestion(
        self, conflict: ConflictFile, state: SyncState, data: WorkspaceData
    ) -> None:
        found = data.file_suggestions.get(conflict.file_key)
        if found is None or (found.blob is not None and found.blob not in self.texts):
            self.notify("No resolution learned for this file.")
            return
        content = None if found.blob is None else lines_to_bytes(self.texts[found.blob])
        action = Action.DELETED if content is None else (found.action or Action.EDITED)
        decided = decide_file(state, conflict, action, content)
        self._apply(decided)
        self.notify(f"Taken: {found.describe()}", markup=False)

    def action_whole(self, side: str) -> None:
        """Resolve the whole file as dev's or main's version (deleted if that side has none)."""
        conflict, state = self.conflict, self.state
        if conflict is None or state is None:
            return
        self._take_whole(conflict, Action(side))

    @work(thread=True, exit_on_error=False, group="whole-file")
    def _take_whole(self, conflict: ConflictFile, action: Action) -> None:
        # The worker only reads; the decision is made on the UI thread against the
        # state as it is then, so nothing decided meanwhile is overwritten.
        blob = conflict.dev_blob if action is Action.DEV else conflict.main_blob
        data = None if blob is None else read_blobs(self.session.git, [blob]).get(blob)
        self.app.call_from_thread(self._decide_whole, conflict, action, data)

    def _decide_whole(self, conflict: ConflictFile, action: Action, data: bytes | None) -> None:
        if self.state is None:
            return
        final = Action.DELETED if data is None else action
        self._apply(decide_file(self.state, conflict, final, data))

    def action_edit(self) -> None:
        """Edit the current hunk's result by hand."""
        conflict, state = self.conflict, self.state
        if conflict is None or state is None or conflict.whole_file_only:
            return
        index = state.cursor.hunk
        current = self._results(conflict)[index]
        # visible() changes exactly the lines holding control characters or bytes
        # that were not UTF-8: what the in-app editor would pass to the terminal.
        if any(visible(line.rstrip("\r\n")) != line.rstrip("\r\n") for line in current):
            self.notify(
                "This hunk holds control characters: edit it in $EDITOR (E).", severity="warning"
            )
            return
        language = Syntax.guess_lexer(conflict.path, "")
        title = f"{conflict.display_path} · hunk {index + 1}/{len(conflict.hunks)}"

        def done(lines: tuple[str, ...] | None) -> None:
            if lines is not None and self.state is not None:
                self._decide_hunk(conflict, index, Action.EDITED, lines)

        self.app.push_screen(EditHunkScreen(title, current, language), done)

    def action_edit_external(self) -> None:
        """Edit the current hunk's result in $VISUAL or $EDITOR."""
        conflict, state = self.conflict, self.state
        if conflict is None or state is None or conflict.whole_file_only:
            return
        editor = os.environ.get("VISUAL") or os.environ.get("EDITOR")
        if not editor:
            self.notify("Set $EDITOR (or $VISUAL) to edit outside the app.", severity="warning")
            return
        index = state.cursor.hunk
        current = self._results(conflict)[index]
        suffix = Path(conflict.path).suffix
        with tempfile.NamedTemporaryFile("wb", suffix=suffix, delete=False) as handle:
            handle.write(encode_text("".join(current)))
            scratch = Path(handle.name)
        try:
            # The editor command is the user's own setting; the file name is ours.
            with self.app.suspend():
                finished = subprocess.run([*shlex.split(editor), str(scratch)], check=False)
        except SuspendNotSupported:
            scratch.unlink(missing_ok=True)
            self.notify("This terminal cannot hand over to an editor: press e.", severity="warning")
            return
        try:
            if finished.returncode != 0:
                self.notify("The editor failed; the hunk is unchanged.", severity="warning")
                return
            text = scratch.read_bytes().decode("utf-8", "surrogateescape")
        finally:
            scratch.unlink(missing_ok=True)
        lines = tuple(split_lines(text))
        if lines != current:
            self._decide_hunk(conflict, index, Action.EDITED, lines)

    def _layout(self, conflict: ConflictFile) -> Layout:
        assert self.state is not None
        decisions = self.state.decisions(conflict.path)
        return layout(conflict, decisions, self.texts, self.policies.get(conflict.path))

    def _results(self, conflict: ConflictFile) -> list[tuple[str, ...]]:
        return self._layout(conflict).results

    def _decide_hunk(
        self,
        conflict: ConflictFile,
        index: int,
        action: Action,
        lines: tuple[str, ...] | None = None,
        carried_from: str | None = None,
    ) -> None:
        """Decide one hunk; in a file already edited whole, keep that edit around the hunk."""
        assert self.state is not None
        edited = edited_lines(self.state.decisions(conflict.path), self.texts)
        if edited is None:
            decided = decide_hunk(self.state, conflict, index, action, lines, carried_from)
        else:
            chosen = lines if lines is not None else action_lines(conflict.hunks[index], action)
            found = decide_in_edited(self.state, conflict, edited, index, chosen, self.texts)
            if found is None:
                self.notify("This hunk cannot be found in the edited file.", severity="warning")
                return
            decided = found
        self._apply(decided)

    def action_undo(self) -> None:
        """Undo the last decision in this file."""
        if self.state is not None and self.conflict is not None:
            self._apply(Decided(undo(self.state, self.conflict.path), {}))

    def action_redo(self) -> None:
        """Redo the last undone decision in this file."""
        if self.state is not None and self.conflict is not None:
            self._apply(Decided(redo(self.state, self.conflict.path), {}))

    def action_approve(self) -> None:
        """Approve this file's resolution, and go to the next unresolved file."""
        conflict, state = self.conflict, self.state
        if conflict is None or state is None:
            return
        approved = approve_file(state, conflict, self.policies.get(conflict.path))
        if approved is None:
            self.notify(
                "Some hunks still have conflict markers: decide them before approving.",
                severity="warning",
                markup=False,
            )
            return
        self._apply(approved)
        if self.data is not None and not conflict.whole_file_only:
            # Approving teaches the carry-over store, for the next sync's identical hunks.
            store, results = self.data.store, self._results(conflict)
            branch = self.data.branch or self.session.refs.head_name
            self.persister.run(lambda: remember_approval(store, conflict, results, branch))
        self.action_next_file()

    def _accidents(self, conflict: ConflictFile) -> tuple[Finding, ...]:
        """The audit's probable accidents in this file that the current result still lacks.

        The audit ran on the head; a line restored since (or a hunk re-decided to
        include it) no longer counts.
        """
        audit = self.data.audit if self.data is not None else None
        if audit is None:
            return ()
        results = None if conflict.whole_file_only else self._results(conflict)
        still = []
        for finding in audit.in_file(conflict.path):
            if finding.classification is not Classification.ACCIDENT:
                continue
            index = self._hunk_of(conflict, finding.line)
            back: tuple[str, ...] | None = ()
            if index is not None and results is not None:
                back = restored(conflict.hunks[index], results[index], finding.line)
            elif conflict.path in self._dev_files:
                whole = self._layout(conflict).lines
                back = restore_in_file(self._dev_files[conflict.path], whole, finding.line)
            if back is not None:  # None: the result holds the line again
                still.append(finding)
        return tuple(still)

    def _hunk_of(self, conflict: ConflictFile, dev_line: int) -> int | None:
        hunk = hunk_holding_dev_line(conflict, dev_line)
        return None if hunk is None else hunk.index

    def action_next_accident(self) -> None:
        """Go to the next hunk holding a dev line that the result lost by accident."""
        conflict, state = self.conflict, self.state
        if conflict is None or state is None or conflict.whole_file_only:
            return
        hunks = [self._hunk_of(conflict, f.line) for f in self._accidents(conflict)]
        located = sorted({h for h in hunks if h is not None})
        if not located:
            self.notify("No probable accident inside this file's conflict hunks.")
            return
        following = next((h for h in located if h > state.cursor.hunk), located[0])
        self._move_cursor(conflict.path, following)
        self.query_one(ThreeWayView).scroll_to_hunk(following)
        self._redraw()

    def action_restore(self) -> None:
        """Put the dev lines the audit found missing in this hunk back into its result."""
        conflict, state = self.conflict, self.state
        if conflict is None or state is None or conflict.whole_file_only:
            return
        index = state.cursor.hunk
        hunk = conflict.hunks[index]
        current = self._results(conflict)[index]
        lines: tuple[str, ...] | None = current
        for finding in self._accidents(conflict):
            if self._hunk_of(conflict, finding.line) == index and lines is not None:
                lines = restored(hunk, lines, finding.line) or lines
        if lines is not None and lines != current:
            self._decide_hunk(conflict, index, Action.EDITED, lines)
            return
        outside = [f for f in self._accidents(conflict) if self._hunk_of(conflict, f.line) is None]
        if not outside:
            self.notify("Nothing to restore in this hunk.")
            return
        # Outside the hunks: the whole file becomes an edit, with dev's lines back.
        self._restore_outside(conflict, outside)

    def action_attribution(self) -> None:
        """Show the commits behind the current hunk, both sides (blamed in a worker)."""
        conflict, state = self.conflict, self.state
        if conflict is None or state is None or not conflict.hunks or self.data is None:
            return
        cached = self._attributions.get(conflict.path)
        if cached is not None:
            self._show_attribution(conflict, cached)
            return
        self.notify("Blaming both sides…", timeout=2)
        self._blame(replace(self.data.conflicts, files=(conflict,)), conflict)

    @work(thread=True, exclusive=True, exit_on_error=False, group="blame")
    def _blame(self, one_file: ConflictSet, conflict: ConflictFile) -> None:
        # One blame per side with every hunk's -L range (services.attribution).
        found = attribute(self.session.git, one_file).for_path(conflict.path)
        if found is not None:
            self.app.call_from_thread(self._blamed, conflict, found)

    def _blamed(self, conflict: ConflictFile, found: FileAttribution) -> None:
        self._attributions[conflict.path] = found
        if self.conflict is not None and self.conflict.path == conflict.path:
            self._show_attribution(conflict, found)

    def _show_attribution(self, conflict: ConflictFile, found: FileAttribution) -> None:
        assert self.state is not None
        index = self.state.cursor.hunk
        if index >= len(found.hunks):
            return
        title = f"{conflict.display_path} · hunk {index + 1}/{len(conflict.hunks)}"
        self.app.push_screen(AttributionScreen(title, found.hunks[index], found.problems))

    @work(thread=True, exit_on_error=False, group="restore")
    def _restore_outside(self, conflict: ConflictFile, findings: list[Finding]) -> None:
        dev_blob = conflict.dev_blob
        if dev_blob is None:
            return
        dev_file = tuple(read_lines(self.session.git, dev_blob))
        self.app.call_from_thread(self._restored_outside, conflict, findings, dev_file)

    def _restored_outside(
        self, conflict: ConflictFile, findings: list[Finding], dev_file: tuple[str, ...]
    ) -> None:
        # On the UI thread, against the current state and result.
        if self.state is None:
            return
        self._dev_files[conflict.path] = dev_file
        result = self._layout(conflict).lines
        lines: tuple[str, ...] = result
        for finding in findings:
            lines = restore_in_file(dev_file, lines, finding.line) or lines
        if lines != result:
            self._apply(decide_file(self.state, conflict, Action.EDITED, lines_to_bytes(lines)))

    def action_toggle_base(self) -> None:
        """Show or hide the merge base's lines beside dev's."""
        view = self.query_one(ThreeWayView)
        view.show_base = not view.show_base

    def action_back(self) -> None:
        """Return to the Slice screen."""
        self.dismiss()

    def _save_failed(self, line: str) -> None:
        self.post_message(SaveFailed(line))

    def on_save_failed(self, message: SaveFailed) -> None:
        self.notify(message.line, severity="error", markup=False, timeout=10)

    def palette_commands(self) -> Iterable[SystemCommand]:
        """This screen's actions, for the command palette."""
        for binding in self.BINDINGS:
            assert isinstance(binding, Binding)
            yield SystemCommand(
                binding.description,
                f"key {binding.key}",
                partial(self.run_action, binding.action),
            )
