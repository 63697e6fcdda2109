"""The workspace's keys for the audit's probable accidents: go to the next one (x), restore (R),
and the lost dev changes (A): a whole change put back in a file, after a preview."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from functools import partial
from typing import ClassVar

from textual import work
from textual.binding import Binding, BindingType

from syncdesk.screens.lost_changes_screen import ChangeChoice, LostChangesScreen
from syncdesk.screens.text_preview_screen import TextPreviewScreen
from syncdesk.screens.workspace.core import WorkspaceCore, in_order
from syncdesk.services.audit.broken import with_breakage
from syncdesk.services.audit.model import Audit, LostLine
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
from syncdesk.services.workspace.lost_changes import change_of, restore_diff
from syncdesk.tui.widgets.conflict_list import ConflictList
from syncdesk.tui.widgets.threeway import ThreeWayView


class RestoreActions(WorkspaceCore):
    """The keys that find and put back dev lines lost by accident (bound in WorkspaceScreen)."""

    @in_order
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

    @in_order
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
        self.read_started()
        self._restore_outside(conflict, outside)

    @work(thread=True, exit_on_error=False, group="restore", description="restore outside")
    def _restore_outside(self, conflict: ConflictFile, findings: list[LostLine]) -> None:
        landing: Callable[[], object] | None = None
        try:
            lines = dev_file(self.session, conflict)
            if lines is not None:
                landing = partial(self._restored_outside, conflict, findings, lines)
        finally:
            # Keys typed meanwhile wait for this (see in_order), even when the read failed.
            self.app.call_from_thread(self.landed, landing)

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

    # -- the lost dev changes ---------------------------------------------------------

    @in_order
    def action_lost_changes(self) -> None:
        """List the dev changes the result lost lines of; go to one, or restore it in a file."""
        audit = self.data.audit if self.data is not None else None
        if audit is None or self.data is None:
            self.notify("The audit has not run: there is no result to audit yet.", markup=False)
            return
        conflicted = [conflict.path for conflict in self.data.conflicts.files]
        # The files decided in since the audit judged the head: what they still lack.
        missing = {path: known for path in conflicted
                   if (known := self._accident_cache.known(path)) is not None}  # fmt: skip
        git = self.session.git
        screen = LostChangesScreen(
            audit,
            conflicted,
            missing,
            lambda audit: with_breakage(git, audit, conflicted),  # in the list's worker
            self._breakage_found,
        )
        self.app.push_screen(screen, self._change_chosen)

    def _breakage_found(self, audit: Audit) -> None:
        # The list looked for breakage: keep it, so the list opens ranked next time.
        if self.data is not None:
            self.data = replace(self.data, audit=audit)

    def _change_chosen(self, choice: ChangeChoice | None) -> None:
        if choice is None or self.data is None:
            return
        conflict = self.data.conflicts.file(choice.path)
        if conflict is None:
            return
        self._open_at_dev_line(conflict, choice.line)
        if choice.action == "restore":
            self._restore_change(conflict, choice.sha)

    def _open_at_dev_line(self, conflict: ConflictFile, line: int) -> None:
        """Open ``conflict`` at the hunk holding dev's ``line``, or the nearest one."""
        self.query_one(ConflictList).move_cursor(
            row=self.query_one(ConflictList).get_row_index(conflict.path)
        )
        hunk = self._hunk_of(conflict, line)
        if hunk is None and conflict.hunks:
            hunk = min(
                range(len(conflict.hunks)),
                key=lambda index: abs(conflict.hunks[index].dev_start - line),
            )
        self._open(conflict.path, hunk=hunk or 0)
        view = self.query_one(ThreeWayView)
        if view.display:
            view.focus()

    def _restore_change(self, conflict: ConflictFile, sha: str) -> None:
        if conflict.whole_file_only:
            self.notify(
                "This file is resolved whole: D takes dev's file, or e edits it.", markup=False
            )
            return
        if conflict.path in self._dev_files:
            self._preview_restore(conflict, sha, self._dev_files[conflict.path])
        else:
            self.read_started()
            self._read_dev_file_for(conflict, sha)

    @work(thread=True, exit_on_error=False, group="restore", description="read dev's file")
    def _read_dev_file_for(self, conflict: ConflictFile, sha: str) -> None:
        landing: Callable[[], object] | None = None
        try:
            lines = dev_file(self.session, conflict)
            if lines is None:
                gone = "Dev has no such file to restore from."
                landing = partial(self.notify, gone, markup=False)
            else:
                landing = partial(self._preview_restore, conflict, sha, lines)
        finally:
            self.app.call_from_thread(self.landed, landing)

    @work(exclusive=True, group="restore-preview", description="restore preview")
    async def _preview_restore(
        self, conflict: ConflictFile, sha: str, dev_lines: tuple[str, ...]
    ) -> None:
        # On the UI thread (an async worker): the preview and the decision see the same result.
        self._dev_files[conflict.path] = dev_lines
        wanted = [finding for finding in self._accidents(conflict) if change_of(finding) == sha]
        before = self._layout(conflict).lines
        after = restore_outside(dev_lines, before, wanted)
        if not wanted or after == before:
            self.notify("The result already holds this change's lines in this file.")
            return
        summary = (
            f"Restore dev change {sha[:8]} in {conflict.display_path}: {len(wanted)} flagged "
            "line(s) back where dev had them (the file becomes an edit; z undoes it)."
        )
        preview = RestorePreviewScreen(summary, restore_diff(conflict.display_path, before, after))
        if not await self.app.push_screen_wait(preview):
            return
        if self.state is None or self._layout(conflict).lines != before:
            self.notify("The file changed meanwhile: nothing restored.", markup=False)
            return
        self._apply(decide_file(self.state, conflict, Action.EDITED, lines_to_bytes(after)))
        self.notify(f"Restored {len(wanted)} line(s) of dev change {sha[:8]}.", markup=False)


class RestorePreviewScreen(TextPreviewScreen):
    """The diff a restore makes, before it is made: R restores, escape leaves it.

    R, as in the workspace: P sends something to the remote everywhere (tui/keys.py),
    so the preview's P is hidden here (BINDINGS merge along the MRO; a False check hides).
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("R", "restore", "Restore", id="preview_restore.restore"),
    ]

    def __init__(self, summary: str, diff: str) -> None:
        super().__init__(summary, diff, action="Restore")

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        return action != "proceed"

    def action_restore(self) -> None:
        """Make the restore shown."""
        self.dismiss(True)
