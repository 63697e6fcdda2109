"""The Textual application: wires the screens to a sync session."""

from __future__ import annotations

import traceback
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import ClassVar

import platformdirs
from rich.text import Text
from textual.app import App, SystemCommand
from textual.binding import Binding, BindingType
from textual.screen import Screen

from syncdesk.screens.help_screen import HelpScreen
from syncdesk.screens.slice_screen import SliceScreen
from syncdesk.services.github.link import GitHubLink
from syncdesk.services.review.pull_request import github_link_for
from syncdesk.services.sync.session import SyncSession


class SyncDeskApp(App[None]):
    """syncdesk: the maintainer's desk for a main -> dev sync."""

    CSS_PATH = str(Path(__file__).parent.parent / "assets" / "syncdesk.tcss")
    TITLE = "syncdesk"
    ENABLE_COMMAND_PALETTE = True
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("question_mark", "help", "Help", id="app.help"),
        Binding("q", "quit", "Quit", id="app.quit"),
    ]

    def __init__(
        self, session: SyncSession, github: Callable[[], GitHubLink] | None = None
    ) -> None:
        super().__init__()
        self.session = session
        # How the pull request is reached: the demo passes its sandbox; otherwise
        # the config's repository and a token found gh's way (in a worker).
        self._github = github

    def github_link(self) -> GitHubLink:
        """Where the sync's pull request lives (called from a worker: it may run gh)."""
        if self._github is not None:
            return self._github()
        return github_link_for(self.session)

    def on_mount(self) -> None:
        self.sub_title = f"{Path(self.session.repo_path).name} · {self.session.refs.head_name}"
        self.push_screen(SliceScreen(self.session))

    def action_help(self) -> None:
        """Show every binding of the app and the current screen."""
        if not isinstance(self.screen, HelpScreen):
            self.push_screen(HelpScreen(self.screen))

    def get_system_commands(self, screen: Screen[object]) -> Iterable[SystemCommand]:
        """The palette lists every action of the app and of the current screen."""
        yield from super().get_system_commands(screen)
        yield SystemCommand("Help", "Show every key binding", self.action_help)
        commands = getattr(screen, "palette_commands", None)
        if callable(commands):
            yield from commands()

    def _fatal_error(self) -> None:
        # Textual's default crash report is a Rich traceback with show_locals=True,
        # which would print whatever sits in local variables (a token, review text)
        # and put a traceback in the user's face. Instead: one line on screen, the
        # traceback (without locals) in a log file for bug reports.
        log = _crash_log_path()
        detail = "".join(traceback.format_exc())
        try:
            log.parent.mkdir(parents=True, exist_ok=True)
            log.write_text(detail)
            where = f" (details in {log})"
        except OSError:
            where = ""
        self.bell()
        self._exit_renderables.append(Text(f"syncdesk: internal error{where}"))
        self._close_messages_no_wait()


def _crash_log_path() -> Path:
    return platformdirs.user_state_path("syncdesk") / "crash.log"
