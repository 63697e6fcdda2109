"""The workspace's "who wrote it" key: the commits behind the current hunk, on both sides."""

from __future__ import annotations

from dataclasses import replace

from textual import work

from syncdesk.screens.attribution_screen import AttributionScreen
from syncdesk.screens.workspace.core import WorkspaceCore, in_order
from syncdesk.services.conflicts.attribution import attribute
from syncdesk.services.conflicts.models import ConflictFile, ConflictSet, FileAttribution


class AttributionActions(WorkspaceCore):
    """The key that blames the current hunk (bound in WorkspaceScreen.BINDINGS)."""

    @in_order
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

    @work(thread=True, exclusive=True, exit_on_error=False, group="blame", description="blame")
    def _blame(self, one_file: ConflictSet, conflict: ConflictFile) -> None:
        # One blame per side with every hunk's -L range (syncdesk.services.conflicts.attribution).
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
