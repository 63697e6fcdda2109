"""What the conflict workspace holds, draws and moves through, and how a decision reaches it.

:class:`WorkspaceCore` is the base of :class:`~syncdesk.screens.workspace.screen.WorkspaceScreen`
and of the mixins that group its actions (decisions, hand edits, restores,
attribution): each of those subclasses it, so every attribute and helper they
use is declared once, here, and typed for ``mypy --strict``.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from functools import partial, wraps
from typing import Concatenate, ParamSpec, TypeVar

from textual import on
from textual.command import SimpleCommand
from textual.content import Content
from textual.markup import escape
from textual.message import Message
from textual.widgets import DataTable, Static

from syncdesk.screens.desk import DeskScreen
from syncdesk.services.audit.model import LostLine
from syncdesk.services.conflicts.models import ConflictFile, FileAttribution
from syncdesk.services.decisions.merge import changed_places, merge_states
from syncdesk.services.decisions.models import (
    Action,
    Cursor,
    Decisions,
    SyncState,
    move_cursor,
)
from syncdesk.services.decisions.saver import Outcome, Persister
from syncdesk.services.lines import split_lines
from syncdesk.services.sanitize import one_line
from syncdesk.services.sync.policies import KEEP_DEV, OVERRIDE_FROM_MAIN
from syncdesk.services.sync.session import SyncSession
from syncdesk.services.workspace.accidents import AccidentCache, hunk_index_of
from syncdesk.services.workspace.layout import (
    Decided,
    Layout,
    action_lines,
    decide_hunk,
    decide_in_edited,
    edited_lines,
    file_status,
    first_unresolved,
    layout,
)
from syncdesk.services.workspace.load import WorkspaceData
from syncdesk.services.workspace.whole_file import whole_file_view
from syncdesk.tui.widgets.conflict_list import ConflictList
from syncdesk.tui.widgets.hunk_info import hunk_info
from syncdesk.tui.widgets.threeway import ThreeWayView

# What a file's layout is built from: the file, its decisions, its policy, and the
# texts of the blobs the decisions name (None for one not read yet).
_LayoutInputs = tuple[
    ConflictFile, Decisions, str | None, tuple[tuple[str, tuple[str, ...] | None], ...]
]


class SaveFailed(Message):
    """The persister could not save a decision (posted from its thread)."""

    def __init__(self, line: str) -> None:
        super().__init__()
        self.line = line


class SaveDone(Message):
    """A save became durable or failed, or a look found another desk's saves (from its thread)."""

    def __init__(self, outcome: Outcome) -> None:
        super().__init__()
        self.outcome = outcome


# A file's mark while its decisions are not on disk: (saving, failed).
PENDING_MARKS = ("…", "!")

Core = TypeVar("Core", bound="WorkspaceCore")
Params = ParamSpec("Params")


def in_order(
    action: Callable[Concatenate[Core, Params], None],
) -> Callable[Concatenate[Core, Params], None]:
    """Make a key's action wait for every earlier key still reading in a worker.

    ``D`` reads the whole file in a worker; an ``a`` typed before it lands must
    approve what ``D`` decided, not the file before it. Keys that read or change
    the decisions or the cursor are queued while such a read runs, and run in
    the order typed when it lands (:meth:`WorkspaceCore.landed`).
    """

    @wraps(action)
    def run(self: Core, /, *args: Params.args, **kwargs: Params.kwargs) -> None:
        if self.reads_in_flight:
            self.typed_ahead.append(partial(action, self, *args, **kwargs))
            return
        action(self, *args, **kwargs)

    return run


# What a load reads: the sync opened again (its refs resolved anew) and its conflicts.
WorkspaceLoaded = tuple[SyncSession, WorkspaceData]


class WorkspaceCore(DeskScreen[WorkspaceLoaded]):
    """The workspace's state and view; the keys are bound in the subclass."""

    def __init__(self, session: SyncSession) -> None:
        super().__init__(session)
        self.data: WorkspaceData | None = None
        self.state: SyncState | None = None
        self.texts: dict[str, tuple[str, ...]] = {}
        self.policies: dict[str, str | None] = {}
        self._attributions: dict[str, FileAttribution] = {}
        self._dev_files: dict[str, tuple[str, ...]] = {}  # dev base's file, read for restores
        # Each file's missing accidents, worked out again only when its result changes.
        self._accident_cache = AccidentCache()
        # Each file's layout, with what it was built from (see _layout).
        self._layouts: dict[str, tuple[_LayoutInputs, Layout]] = {}
        self.persister = Persister(session.git, self._save_failed, self._save_done)
        # Keys typed while a decision reads in a worker, and how many such reads run.
        self.typed_ahead: deque[Callable[[], None]] = deque()
        self.reads_in_flight = 0
        # Each file's last save, by number; the last save known durable; why the last failed.
        self._saving: dict[str, int] = {}
        self._durable = 0
        self._save_error: str | None = None
        self._looking = False  # a look for other desks' saves is queued

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
        return self._pending_mark(conflict.path) + mark + self._accident_mark(conflict)

    def _pending_mark(self, path: str) -> str:
        """… while a decision in ``path`` is not yet on disk (! when its save failed)."""
        if path not in self._saving:
            return ""
        return PENDING_MARKS[self._save_error is not None]

    def pending(self, path: str) -> str | None:
        """What stands between ``path``'s decisions on screen and the disk, or None."""
        if path not in self._saving:
            return None
        return self._save_error or "saving…"

    def _accident_mark(self, conflict: ConflictFile) -> str:
        """⚠ when the file's result still lacks a probable accident's dev line.

        The file's missing accidents as last worked out (on screen, after each
        decision); a file not opened yet counts the audit's, which judged the head.
        """
        audit = self.data.audit if self.data is not None else None
        if audit is None:
            return ""
        known = self._accident_cache.known(conflict.path)
        if known is None:
            known = tuple(f for f in audit.in_file(conflict.path) if f.is_accident)
        return "⚠" if known else ""

    def _open(self, path: str, hunk: int = 0) -> None:
        assert self.data is not None and self.state is not None
        conflict = self.data.conflicts.file(path)
        if conflict is None:
            return
        self._move_cursor(path, hunk)
        self._redraw()
        view = self.query_one(ThreeWayView)
        if conflict.whole_file_only:
            view.text_offset = 0  # a whole file starts at its left edge, whatever came before
            view.call_after_refresh(view.scroll_to, x=0, y=0, animate=False)
        else:
            view.scroll_to_hunk(self.state.cursor.hunk)

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
            policy = self.policies.get(conflict.path)
            whole = whole_file_view(conflict, state.decisions(conflict.path), self.texts, policy)
            # A text file resolved whole shows each side's file; binary content shows nothing.
            view.display = self.query_one("#ws-pane-titles").display = whole is not None
            if whole is not None:
                view.show(whole[0], whole[1])
                view.current_hunk = -1  # no hunk of its own to mark: the whole file is one
        else:
            view.display = self.query_one("#ws-pane-titles").display = True
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
        # A whole-file-only file shows no hunk, so no accident line: skip the audit.
        accidents = () if conflict.whole_file_only else self._accidents(conflict)
        policy = self.policies.get(conflict.path)
        return hunk_info(
            conflict, self.state, policy, self.data, accidents, self.pending(conflict.path)
        )

    # -- navigation -------------------------------------------------------------------

    @on(DataTable.RowSelected, "#ws-files")
    def _file_selected(self, event: DataTable.RowSelected) -> None:
        if event.row_key.value is not None:
            self._open(event.row_key.value)
            self.query_one(ThreeWayView).focus()

    @in_order
    def action_next_hunk(self) -> None:
        """Go to the next hunk."""
        self._step_hunk(+1)

    @in_order
    def action_previous_hunk(self) -> None:
        """Go to the previous hunk."""
        self._step_hunk(-1)

    def _step_hunk(self, delta: int) -> None:
        """One hunk on; past a file's last (or first) hunk, on into the next (previous) file."""
        conflict = self.conflict
        if conflict is None or self.state is None or self.data is None:
            return
        count = len(conflict.hunks)
        target = self.state.cursor.hunk + delta
        if 0 <= target < count:
            self._move_cursor(conflict.path, target)
            self.query_one(ThreeWayView).scroll_to_hunk(self.state.cursor.hunk)
            self.query_one("#ws-hunk-info", Static).update(self._info(conflict))
            return
        files = self.data.conflicts.files
        index = next((i for i, f in enumerate(files) if f.path == conflict.path), 0) + delta
        if not 0 <= index < len(files):
            where = "last hunk of the last file" if delta > 0 else "first hunk of the first file"
            self.notify(f"This is the {where}.", markup=False)
            return
        following = files[index]
        self.go_to_file(following.path, 0 if delta > 0 else max(0, len(following.hunks) - 1))

    def go_to_file(self, path: str, hunk: int = 0) -> None:
        """Open ``path`` at ``hunk``, with the file list's cursor on it and the view focused."""
        files = self.query_one(ConflictList)
        files.move_cursor(row=files.get_row_index(path))
        self._open(path, hunk=hunk)
        view = self.query_one(ThreeWayView)
        # A file with nothing to draw hid the view, and Textual moved the focus
        # away from it: give it back, or ←/→ would scroll nothing.
        if view.display:
            view.focus()

    @in_order
    def action_next_file(self) -> None:
        """Go to the next file that is not approved."""
        if self.data is None or self.state is None:
            return
        following = first_unresolved(self.state, self.data.conflicts, self.state.cursor.path)
        if following is None:
            self.notify("Every file is approved.")
            return
        self.go_to_file(following.path)

    def action_find_file(self) -> None:
        """Type to find a conflicted file by any part of its path, and open it."""
        if self.data is None or self.state is None:
            return
        self.app.search_commands(self.file_commands(), placeholder="Find a conflicted file…")

    def file_commands(self) -> list[SimpleCommand]:
        """One palette command per conflicted file: its path, what is left in it."""
        if self.data is None or self.state is None:
            return []
        commands = []
        for conflict in self.data.conflicts.files:
            word = file_status(self.state, conflict, self.policies.get(conflict.path)).value
            hunks = f"{len(conflict.hunks)} hunk(s)" if conflict.hunks else "whole file"
            commands.append(
                SimpleCommand(
                    # The palette reads a command's name as markup: a path is escaped.
                    escape(conflict.display_path),
                    partial(self.go_to_file, conflict.path),
                    f"{word} · {hunks} · {conflict.type}",
                )
            )
        return commands

    # -- decisions --------------------------------------------------------------------

    def _apply(self, decided: Decided) -> None:
        """Show a decision at once, marked pending, and save it in the background, in order.

        The mark goes when the save is durable (:meth:`on_save_done`): what is
        shown without it is on disk, whatever happens to this process.
        """
        before = self.state
        self.state = decided.state
        for blob, data in decided.blobs.items():
            self.texts[blob] = tuple(split_lines(data.decode("utf-8", "surrogateescape")))
        number = self.persister.save(decided.state, decided.blobs)
        if before is not None:
            for path in _changed_files(before, decided.state):
                self._saving[path] = number
        self._redraw()
        conflict = self.conflict
        if conflict is not None:
            status = file_status(self.state, conflict, self.policies.get(conflict.path))
            files = self.query_one(ConflictList)
            files.update_status(conflict.path, status)
            files.update_badges(conflict.path, self._badge(conflict))  # ⚠ gone once restored

    def _layout(self, conflict: ConflictFile) -> Layout:
        """The file's current result, built again only when what it is built from changed.

        A layout is a function of the file, its decisions, its policy and the
        texts of the blobs those decisions name (a blob id names one content),
        so a hunk move, which changes none of them, reuses the last one: in a
        file edited whole, building it places every hunk in the edit.
        """
        assert self.state is not None
        decisions = self.state.decisions(conflict.path)
        policy = self.policies.get(conflict.path)
        texts = tuple((blob, self.texts.get(blob)) for blob in sorted(decisions.blobs()))
        inputs: _LayoutInputs = (conflict, decisions, policy, texts)
        known = self._layouts.get(conflict.path)
        if known is not None and known[0][0] is conflict and known[0][1:] == inputs[1:]:
            return known[1]
        current = layout(conflict, decisions, self.texts, policy)
        self._layouts[conflict.path] = (inputs, current)
        return current

    def _results(self, conflict: ConflictFile) -> list[tuple[str, ...]]:
        return list(self._layout(conflict).results)  # a copy: the layout is shared

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

    # -- the audit's accidents --------------------------------------------------------

    def _accidents(self, conflict: ConflictFile) -> tuple[LostLine, ...]:
        """The audit's probable accidents in this file that the current result still lacks.

        Worked out once per result of the file: a hunk move reuses them, a
        decision that changes the result works them out again.
        """
        audit = self.data.audit if self.data is not None else None
        if audit is None:
            return ()
        dev_file = self._dev_files.get(conflict.path)
        return self._accident_cache.missing(audit, conflict, self._layout(conflict), dev_file)

    def _hunk_of(self, conflict: ConflictFile, dev_line: int) -> int | None:
        return hunk_index_of(conflict, dev_line)

    # -- saving -----------------------------------------------------------------------

    def _save_failed(self, line: str) -> None:
        # Called on the persister's thread: a message is the thread-safe way back.
        self.post_message(SaveFailed(line))

    def on_save_failed(self, message: SaveFailed) -> None:
        self.notify(message.line, severity="error", markup=False, timeout=10)

    def _save_done(self, outcome: Outcome) -> None:
        self.post_message(SaveDone(outcome))  # on the persister's thread, like _save_failed

    def on_save_done(self, message: SaveDone) -> None:
        outcome = message.outcome
        if outcome.number:
            if outcome.error is not None:
                self._save_error = outcome.error
                self.notify(outcome.error, severity="error", markup=False, timeout=10)
            else:
                self._durable = max(self._durable, outcome.number)
                self._save_error = None
        else:
            self._looking = False
        settled = [path for path, number in self._saving.items() if number <= self._durable]
        for path in settled:
            del self._saving[path]
        changed = self._rebase(outcome) if outcome.saved is not None else []
        if self.data is None or self.state is None:
            return
        if changed:
            self._refresh_list()
        else:
            files = self.query_one(ConflictList)
            for path in settled if outcome.error is None else list(self._saving):
                conflict = self.data.conflicts.file(path)
                if conflict is not None:
                    files.update_badges(path, self._badge(conflict))
        self._redraw()

    def _rebase(self, outcome: Outcome) -> list[str]:
        """Show what other desks saved, on top of what this one decided since; the places."""
        saved = outcome.saved
        if saved is None or self.state is None or saved.disk is saved.base:
            return []
        self.texts.update(outcome.texts)
        before = self.state
        self.state = merge_states(saved.base, before, saved.disk).state
        places = changed_places(before, self.state)
        if places:
            more = f" and {len(places) - 6} more" if len(places) > 6 else ""
            shown = ", ".join(places[:6]) + more
            self.notify(
                # Paths are untrusted: one_line makes their control characters visible.
                one_line(
                    f"Another syncdesk decided in this sync: {shown}. Shown here now; z undoes."
                ),
                title="Decided elsewhere",
                severity="warning",
                markup=False,
                timeout=15,
            )
        return places

    def look_for_other_desks(self) -> None:
        """Ask the persister whether another desk saved this sync (one look at a time)."""
        if self.state is None or self._looking:
            return
        self._looking = True
        self.persister.look(self.state.sync)

    # -- keys typed ahead of a read -------------------------------------------------------

    def read_started(self) -> None:
        """A decision's read went to a worker: keys typed from now on wait for it."""
        self.reads_in_flight += 1

    def landed(self, decide: Callable[[], object] | None) -> None:
        """A decision's read came back (None: it failed): decide, then run the keys it held."""
        try:
            if decide is not None:
                decide()
        finally:
            self.reads_in_flight -= 1
            while self.typed_ahead and not self.reads_in_flight:
                self.typed_ahead.popleft()()


def _changed_files(before: SyncState, after: SyncState) -> list[str]:
    """The paths whose decisions or stacks ``after`` changed (unchanged files are shared)."""
    old = {item.path: item for item in before.files}
    return [item.path for item in after.files if old.get(item.path) is not item]
