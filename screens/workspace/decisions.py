"""The workspace's one-key decisions: a side, a union, a suggestion, a whole file, undo, approve."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

from textual import work

from syncdesk.screens.workspace.core import WorkspaceCore, in_order
from syncdesk.services.conflicts.models import ConflictFile
from syncdesk.services.decisions.learn import remember_approval
from syncdesk.services.decisions.models import Action, SyncState, redo, undo
from syncdesk.services.lines import lines_to_bytes
from syncdesk.services.workspace.layout import (
    Decided,
    approve_file,
    decide_by_id,
    decide_file,
    decide_side_by_id,
    decide_submodule,
)
from syncdesk.services.workspace.load import WorkspaceData, side_file


class DecisionActions(WorkspaceCore):
    """The keys that decide a hunk or a file (bound in WorkspaceScreen.BINDINGS)."""

    @in_order
    def action_take(self, action: str) -> None:
        """Resolve the current hunk with one of its sides or a union."""
        conflict, state = self.conflict, self.state
        if conflict is None or state is None:
            return
        if conflict.whole_file_only:
            self.notify("This file can only be resolved whole: D or M.", severity="warning")
            return
        self._decide_hunk(conflict, state.cursor.hunk, Action(action))

    @in_order
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
        if found is not None and conflict.too_large:  # taken by its blob id, never read
            self._apply(decide_by_id(state, conflict, found.action, found.blob))
            self.notify(f"Taken: {found.describe()}", markup=False)
            return
        if found is None or (found.blob is not None and found.blob not in self.texts):
            self.notify("No resolution learned for this file.")
            return
        content = None if found.blob is None else lines_to_bytes(self.texts[found.blob])
        action = Action.DELETED if content is None else (found.action or Action.EDITED)
        decided = decide_file(state, conflict, action, content)
        self._apply(decided)
        self.notify(f"Taken: {found.describe()}", markup=False)

    @in_order
    def action_whole(self, side: str) -> None:
        """Resolve the whole file as dev's or main's version (deleted if that side has none)."""
        conflict, state = self.conflict, self.state
        if conflict is None or state is None:
            return
        if conflict.type == "submodule":  # a commit id, nothing to read
            self._apply(decide_submodule(state, conflict, Action(side)))
            return
        if conflict.too_large:  # a blob id, never read
            self._apply(decide_side_by_id(state, conflict, Action(side)))
            return
        self.read_started()
        self._take_whole(conflict, Action(side))

    @work(thread=True, exit_on_error=False, group="whole-file", description="whole file")
    def _take_whole(self, conflict: ConflictFile, action: Action) -> None:
        # The worker only reads; the decision is made on the UI thread, and keys
        # typed meanwhile wait for it (in_order), so they apply in the order typed.
        landing: Callable[[], object] | None = None
        try:
            data = side_file(self.session, conflict, action)
            landing = partial(self._decide_whole, conflict, action, data)
        finally:
            self.app.call_from_thread(self.landed, landing)

    def _decide_whole(self, conflict: ConflictFile, action: Action, data: bytes | None) -> None:
        if self.state is None:
            return
        final = Action.DELETED if data is None else action
        self._apply(decide_file(self.state, conflict, final, data))

    @in_order
    def action_undo(self) -> None:
        """Undo the last decision in this file."""
        if self.state is not None and self.conflict is not None:
            if not self.state.file(self.conflict.path).undo:
                self.notify("Nothing to undo in this file.", markup=False)
                return
            self._apply(Decided(undo(self.state, self.conflict.path), {}))

    @in_order
    def action_redo(self) -> None:
        """Redo the last undone decision in this file."""
        if self.state is not None and self.conflict is not None:
            if not self.state.file(self.conflict.path).redo:
                self.notify("Nothing to redo in this file.", markup=False)
                return
            self._apply(Decided(redo(self.state, self.conflict.path), {}))

    @in_order
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
            branch = self.data.branch or self.session.refs.branch or self.session.refs.head_name
            self.persister.run(lambda: remember_approval(store, conflict, results, branch))
        self.action_next_file()
