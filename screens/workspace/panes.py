"""Room for the text: the file list folds away, and one pane can fill the whole view.

Below 140 columns the file list starts folded: its 60 columns beside the
panes would leave each pane fewer columns than all 80 give them without it.
``F`` unfolds it with the cursor in it, and there picking a file folds it
again. ``Z`` zooms one pane to the view's full width, the next one each
press: dev, result, main, base, then all again.
"""

from __future__ import annotations

from textual import on
from textual.reactive import reactive
from textual.widgets import DataTable

from syncdesk.screens.workspace.core import WorkspaceCore
from syncdesk.tui.widgets.conflict_list import ConflictList
from syncdesk.tui.widgets.threeway import ThreeWayView

# What Z shows next: None is every pane side by side.
ZOOM_CYCLE: tuple[str | None, ...] = (None, "dev", "result", "main", "base")

# Columns from which the file list (60) stays beside three readable panes.
FILES_BESIDE_FROM = 140


def folds_files(width: int) -> bool:
    """Whether a workspace ``width`` columns wide keeps its file list folded."""
    return width < FILES_BESIDE_FROM


class PaneActions(WorkspaceCore):
    """The file list's fold and the view's zoom."""

    # init=False: the watcher runs only on a change; fit_to_width sets the first value.
    files_shown: reactive[bool] = reactive(True, init=False)

    def fit_to_width(self) -> None:
        """Fold the file list on a narrow terminal (called once, when the screen mounts).

        The screen has no size yet at mount (it comes with the first resize),
        so this asks the app's.
        """
        self.files_shown = not folds_files(self.app.size.width)

    def watch_files_shown(self, shown: bool) -> None:
        files = self.query_one(ConflictList)
        files.display = shown
        view = self.query_one(ThreeWayView)
        if shown and folds_files(self.size.width):
            files.focus()  # unfolded to pick a file: the cursor is in the list
        elif not shown and view.display:
            view.focus()  # a hidden widget keeps no focus: give it to the text

    def action_files(self) -> None:
        """Show or hide the list of conflicted files."""
        self.files_shown = not self.files_shown

    @on(DataTable.RowSelected, "#ws-files")
    def _fold_after_pick(self) -> None:
        # On a narrow terminal the list is unfolded only to pick a file. (The
        # core's handler for the same message opens it: Textual calls the
        # handlers of every class along the MRO.)
        if folds_files(self.size.width):
            self.files_shown = False

    def action_zoom(self) -> None:
        """Show one pane across the whole view, the next one each time, then all of them."""
        view = self.query_one(ThreeWayView)
        position = ZOOM_CYCLE.index(view.zoom) if view.zoom in ZOOM_CYCLE else 0
        view.zoom = ZOOM_CYCLE[(position + 1) % len(ZOOM_CYCLE)]
