"""The workspace's keys for the audit's probable accidents: go to the next one (x), restore (R)."""

from __future__ import annotations

from textual import work

from syncdesk.screens.workspace.core import WorkspaceCore
from syncdesk.services.audit.model import LostLine
from syncdesk.services.conflicts.models import ConflictFile
from syncdesk.services.decisions.models import Action
from syncdesk.services.lines import lines_to_bytes
from syncdesk.services.workspace.accidents import (
    next_accident_hunk,
    next_outside,
    outside_hunks,
    restore_in_hunk,
    restore_outside,
)
from syncdesk.services.workspace.layout import decide_file
from syncdesk.services.workspace.load import dev_file
from syncdesk.tui.widgets.threeway import ThreeWayView


class RestoreActions(WorkspaceCore):
    """The keys that find and put back dev lines lost by accident (bound in WorkspaceScreen)."""

    def action_next_accident(self) -> None:
        """Go to the next hunk holding a dev line that the result lost by accident."""
        conflict, state = self.conflict, self.state
        if conflict is None or state is None or conflict.whole_file_only:
            return
        accidents = self._accidents(conflict)
        following = next_accident_hunk(conflict, accidents, state.cursor.hunk)
        if following is None:
            # The rest lie between the hunks: go to the hunk nearest the next one and say
            # where it is; R puts them back (the whole file becomes an edit).
            between = next_outside(conflict, accidents, state.cursor.hunk)
            if between is None:
                self.notify("No probable accident left in this file.")
                return
            following, finding = between
            count = len(outside_hunks(conflict, accidents))
            self.notify(
                f"{count} probable accident line(s) lie between the hunks; the next is dev "
                f"line {finding.line}: {finding.text.strip()[:60]} (R puts them back)",
                markup=False,
            )
        self._move_cursor(conflict.path, following)
        self.query_one(ThreeWayView).scroll_to_hunk(following)
        self._redraw()

    def action_restore(self) -> None:
        """Put the dev lines the audit found missing in this hunk back into its result."""
        conflict, state = self.conflict, self.state
        if conflict is None or state is None or conflict.whole_file_only:
            return
        index = state.cursor.hunk
        current = self._results(conflict)[index]
        lines = restore_in_hunk(conflict, index, current, self._accidents(conflict))
        if lines != current:
            self._decide_hunk(conflict, index, Action.EDITED, lines)
            return
        outside = outside_hunks(conflict, self._accidents(conflict))
        if not outside:
            self.notify("Nothing to restore in this hunk.")
            return
        # Outside the hunks: the whole file becomes an edit, with dev's lines back.
        self._restore_outside(conflict, outside)

    @work(thread=True, exit_on_error=False, group="restore")
    def _restore_outside(self, conflict: ConflictFile, findings: list[LostLine]) -> None:
        lines = dev_file(self.session, conflict)
        if lines is not None:
            self.app.call_from_thread(self._restored_outside, conflict, findings, lines)

    def _restored_outside(
        self, conflict: ConflictFile, findings: list[LostLine], dev_file: tuple[str, ...]
    ) -> None:
        # On the UI thread, against the current state and result.
        if self.state is None:
            return
        self._dev_files[conflict.path] = dev_file
        result = self._layout(conflict).lines
        lines = restore_outside(dev_file, result, findings)
        if lines != result:
            self._apply(decide_file(self.state, conflict, Action.EDITED, lines_to_bytes(lines)))
