"""How Pilot tests wait: for what a user would see, never for a length of time.

``pilot.press`` returns once the app *looks* idle, and an app whose worker
thread waits for git or for the sandbox looks idle too. So after an action a
test waits for its effect: a screen on top (:func:`until_screen`), the
spinner gone (:func:`until_loaded`), a notification on screen
(:func:`until_toast`), a command offered (:func:`until_palette_offers`),
decisions on disk (:func:`saved`), or any condition (:func:`until`), checked
again after every ``pilot.pause()``.

The deadline only ends a wait that would otherwise hang, with a message saying
what was awaited and what was on screen. It asserts no speed: a loaded
machine only makes the wait longer.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Any, Protocol, TypeVar

from textual.app import App
from textual.command import CommandList, CommandPalette
from textual.pilot import Pilot
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import LoadingIndicator
from textual.widgets._toast import Toast, ToastRack  # App.notify's; not in textual.widgets

DEADLINE = 60.0  # seconds: far beyond any wait on a loaded machine

AnyScreen = TypeVar("AnyScreen", bound=Screen[Any])


async def until(
    pilot: Pilot[Any],
    condition: Callable[[], object],
    what: str | Callable[[], str],
    *,
    deadline: float = DEADLINE,
) -> None:
    """Let the app work (``pilot.pause()``) until ``condition()`` holds.

    ``what`` names the condition for the failure message (a callable: computed
    then, so it can show what was found instead).
    """
    end = time.monotonic() + deadline
    while True:
        await pilot.pause()  # processes pending messages, then waits for the app to go idle
        if condition():
            return
        if time.monotonic() > end:
            said = what() if callable(what) else what
            raise AssertionError(f"waited {deadline:.0f} s for {said}; {on_screen(pilot.app)}")


async def until_screen(pilot: Pilot[Any], what: type[AnyScreen]) -> AnyScreen:
    """Wait until a ``what`` is on top and mounted (composed, its ``on_mount`` run)."""
    app = pilot.app
    await until(
        pilot, lambda: isinstance(app.screen, what) and app.screen.is_mounted, what.__name__
    )
    screen = app.screen
    assert isinstance(screen, what)
    return screen


async def until_loaded(pilot: Pilot[Any], what: type[AnyScreen]) -> AnyScreen:
    """Wait until a ``what`` is on top and shows no spinner: its read is shown, or its error."""
    app = pilot.app

    def loaded() -> bool:
        screen = app.screen
        return isinstance(screen, what) and screen.is_mounted and not spinning(screen)

    await until(pilot, loaded, f"{what.__name__} loaded")
    screen = app.screen
    assert isinstance(screen, what)
    return screen


async def until_toast(pilot: Pilot[Any], *fragments: str) -> str:
    """Wait until a notification holding one of ``fragments`` is on screen; return its text."""
    # Textual's run_test shows no notification unless asked: run_test(notifications=True).
    assert pilot.app.screen.query(ToastRack), "notifications are off: run_test(notifications=True)"
    found: list[str] = []

    def shown() -> bool:
        found[:] = [text for text in toasts(pilot.app) if any(f in text for f in fragments)]
        return bool(found)

    await until(pilot, shown, "a notification saying " + " or ".join(map(repr, fragments)))
    return found[0]


async def until_palette_offers(pilot: Pilot[Any], title: str) -> None:
    """Wait until the command palette shows ``title`` highlighted: what enter runs.

    Typing starts a search that fills the list in batches: pressing enter
    before the list shows the command would run whatever is highlighted then.
    """

    def offered() -> bool:
        palette = pilot.app.screen
        if not isinstance(palette, CommandPalette) or not palette.is_mounted:
            return False
        commands = palette.query_one(CommandList)
        index = commands.highlighted
        if index is None:
            return False
        return str(commands.get_option_at_index(index).prompt).splitlines()[0] == title

    await until(pilot, offered, f"{title!r} highlighted in the command palette")


def toasts(app: App[Any]) -> list[str]:
    """The notifications on screen, as the user reads them: each one's title, then its message."""
    return [toast.render().plain for toast in app.screen.query(Toast) if toast.is_mounted]


def spinning(screen: Screen[Any]) -> bool:
    """Whether ``screen`` shows a loading indicator (a read still under way)."""
    return any(_displayed(indicator, screen) for indicator in screen.query(LoadingIndicator))


def _displayed(widget: Widget, screen: Screen[Any]) -> bool:
    node: Any = widget
    while node is not None and node is not screen:
        if not node.display:
            return False
        node = node.parent
    return True


def on_screen(app: App[Any]) -> str:
    """What the user sees, in a line, for a failure message."""
    try:
        screen = app.screen
    except Exception as error:  # the app is gone
        return f"no screen ({error})"
    state = ", loading" if spinning(screen) else ""
    return f"on screen: {type(screen).__name__}{state}; notifications: {toasts(app)}"


class Saver(Protocol):
    def flush(self) -> None: ...


async def saved(saver: Saver) -> None:
    """Wait until everything handed to ``saver`` so far is on disk (the event loop runs on)."""
    await asyncio.to_thread(saver.flush)
