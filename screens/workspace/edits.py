"""The workspace's hand edits of a hunk's result: in the app (e), or in $EDITOR (E)."""

from __future__ import annotations

import os
import shlex
import subprocess
import tempfile
from pathlib import Path

from rich.syntax import Syntax
from textual.app import SuspendNotSupported

from syncdesk.screens.edit_hunk_screen import EditHunkScreen
from syncdesk.screens.workspace.core import WorkspaceCore, in_order
from syncdesk.services.decisions.models import Action
from syncdesk.services.lines import encode_text, split_lines
from syncdesk.services.sanitize import visible


class EditActions(WorkspaceCore):
    """The keys that edit the current hunk's result by hand (bound in WorkspaceScreen)."""

    @in_order
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

    @in_order
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
            # suspend() stops the driver so the editor owns the terminal; a driver
            # that cannot (headless, web) raises SuspendNotSupported instead.
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
