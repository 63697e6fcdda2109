"""The Textual application: wires the screens to a sync session."""

from __future__ import annotations

import time
import traceback
from collections.abc import Callable, Iterable
from contextlib import ExitStack
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

import platformdirs
from rich.text import Text
from textual import events
from textual.app import App, SystemCommand
from textual.binding import Binding, BindingType
from textual.screen import Screen

from syncdesk.screens.help_screen import HelpScreen
from syncdesk.screens.legend_screen import LegendScreen
from syncdesk.screens.opening_screen import OpeningScreen
from syncdesk.services.collector import collect_deferred, full_collections_deferred
from syncdesk.services.sanitize import one_line
from syncdesk.tui.breakpoints import BREAKPOINTS
from syncdesk.tui.legend import Symbol, symbols_of

if TYPE_CHECKING:  # the session's and the Slice screen's modules load after the first frame
    from syncdesk.services.github.link import GitHubLink
    from syncdesk.services.sync.options import SyncOptions
    from syncdesk.services.sync.session import SyncSession


class SyncDeskApp(App[None]):
    """syncdesk: the maintainer's desk for a main -> dev sync."""

    CSS_PATH = str(Path(__file__).parent.parent / "assets" / "syncdesk.tcss")
    TITLE = "syncdesk"
    ENABLE_COMMAND_PALETTE = True
    # Every screen carries -narrow or -wide (the stylesheet stacks or folds panes by it).
    HORIZONTAL_BREAKPOINTS = BREAKPOINTS
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("question_mark", "help", "Help", id="app.help"),
        Binding("L", "legend", "Legend", id="app.legend"),
        Binding("q", "quit", "Quit", id="app.quit"),
    ]

    # Python's full collections wait for a pause in the typing (services.collector):
    # after this long with no key or mouse event, checked this often.
    IDLE_BEFORE_COLLECTING = 2.0
    IDLE_CHECK_EVERY = 1.0

    def __init__(
        self,
        session: SyncSession | None = None,
        github: Callable[[], GitHubLink] | None = None,
        *,
        options: SyncOptions | None = None,
        user_config: Path | None = None,
        pr: int | None = None,
    ) -> None:
        """The desk on ``session``, or on the sync ``options`` name, opened in a worker
        after the first frame (the ``syncdesk`` command's way: see OpeningScreen)."""
        super().__init__()
        if session is None and options is None:
            raise ValueError("the desk needs a session or the options to open one")
        self._session = session
        self._options, self._user_config = options, user_config
        # How the pull request is reached: the demo passes its sandbox; otherwise
        # the config's repository (or pull request ``pr``) and a token found gh's way.
        self._github = github
        self._pr = pr
        self._last_input = time.monotonic()
        self._deferred = ExitStack()

    def github_link(self) -> GitHubLink:
        """Where the sync's pull request lives (called from a worker: it may run gh)."""
        if self._github is not None:
            return self._github()
        # Imported here: the GitHub client costs ~0.3 s at start, before the first paint.
        from syncdesk.services.github.link import github_link_for

        return github_link_for(self.session, self._pr)

    @property
    def session(self) -> SyncSession:
        """The sync the desk was opened on (the screens keep their own, reopened, copies)."""
        if self._session is None:
            raise RuntimeError("the sync is not open yet")
        return self._session

    def on_mount(self) -> None:
        self._deferred.enter_context(full_collections_deferred())
        self.set_interval(self.IDLE_CHECK_EVERY, self._collect_when_idle)
        if self._session is not None:
            self.opened(self._session)
        else:
            assert self._options is not None
            self.push_screen(OpeningScreen(self._options, self._user_config))

    def opened(self, session: SyncSession) -> None:
        """Show the Slice screen of ``session`` (in place of the opening screen, if shown)."""
        from syncdesk.screens.slice_screen import SliceScreen

        self._session = session
        refs = session.refs
        self.sub_title = f"{Path(session.repo_path).name} · {refs.branch or refs.head_name}"
        if isinstance(self.screen, OpeningScreen):
            self.switch_screen(SliceScreen(session))
        else:
            self.push_screen(SliceScreen(session))

    def could_not_open(self, line: str) -> None:
        """End the desk: the sync cannot be opened; the shell shows ``line`` once."""
        # Rich's Text parses no markup; one_line shows any control character as text.
        self.exit(return_code=1, message=Text(f"syncdesk: {one_line(line)}"))

    def on_unmount(self) -> None:
        self._deferred.close()  # the collector's own thresholds again

    async def on_event(self, event: events.Event) -> None:
        # Every key and mouse event reaches the app first (then the screen).
        if isinstance(event, events.InputEvent):
            self._last_input = time.monotonic()
        await super().on_event(event)

    def _collect_when_idle(self) -> None:
        if time.monotonic() - self._last_input >= self.IDLE_BEFORE_COLLECTING:
            collect_deferred()

    def action_help(self) -> None:
        """Show every binding of the app and the current screen."""
        if not isinstance(self.screen, HelpScreen):
            self.push_screen(HelpScreen(self.screen))

    def action_legend(self) -> None:
        """Show what the current screen's symbols mean (L again closes it)."""
        symbols = legend_of(self.screen)
        if symbols:
            self.push_screen(LegendScreen(symbols))

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        # A screen without symbols has no legend: no L in its footer, and L does nothing.
        return bool(legend_of(self.screen)) if action == "legend" else True

    def get_system_commands(self, screen: Screen[Any]) -> Iterable[SystemCommand]:
        """The palette lists Textual's own commands, then every binding of the current screen.

        Built from the screen's ``BINDINGS`` (along its class hierarchy), so a key
        added to a screen is in the palette too, with its key as the help line.
        """
        yield from super().get_system_commands(screen)
        yield SystemCommand("Help", "Show every key binding (?)", self.action_help)
        if legend_of(screen):
            yield SystemCommand("Legend", "What this screen's symbols mean (L)", self.action_legend)
        for binding in screen_bindings(screen):
            yield SystemCommand(
                binding.description,
                f"key {binding.key_display or binding.key}",
                partial(screen.run_action, binding.action),
            )
        # The workspace's conflicted files: "training" finds megatron/training/training.py.
        file_commands = getattr(screen, "file_commands", None)
        if callable(file_commands):
            for command in file_commands():
                help_line = command.help_text or ""
                yield SystemCommand(f"Open {command.name}", help_line, command.callback)

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


def screen_bindings(screen: Screen[Any]) -> list[Binding]:
    """The bindings ``screen``'s classes declare, with a description, each action once."""
    found: dict[str, Binding] = {}
    for cls in type(screen).__mro__:
        for binding in vars(cls).get("BINDINGS", []):
            if isinstance(binding, Binding) and binding.description:
                found.setdefault(binding.action, binding)
    return list(found.values())


def legend_of(screen: Screen[Any]) -> tuple[Symbol, ...]:
    """The symbols ``screen`` shows (its class names them with ``LEGEND``)."""
    return symbols_of(getattr(screen, "LEGEND", ""))


def _crash_log_path() -> Path:
    return platformdirs.user_state_path("syncdesk") / "crash.log"
