"""One line that says what is being read, with a spinner, or why it failed."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.message import Message
from textual.widgets import Label, LoadingIndicator


class LoadingBar(Horizontal):
    """A spinner and a line of progress; shown while a worker reads, hidden when done.

    Every line is literal text (``markup=False``): steps and errors can carry
    names from the repository or the server.
    """

    class Stepped(Message):
        """A worker began a step (posted from its thread)."""

        def __init__(self, step: str) -> None:
            super().__init__()
            self.step = step

    def __init__(self, first: str, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._first = first

    def compose(self) -> ComposeResult:
        yield LoadingIndicator()
        yield Label(self._first, markup=False)

    def start(self, line: str) -> None:
        """Show the bar with ``line`` and a spinning indicator."""
        self.display = True
        self.query_one(LoadingIndicator).display = True
        label = self.query_one(Label)
        label.remove_class("error")
        label.update(line)

    def step(self, line: str) -> None:
        """Say what is being done now."""
        self.query_one(Label).update(line)

    def report(self, step: str) -> None:
        """A worker's progress callback: safe from any thread, it never waits.

        post_message is thread-safe; the step is shown when the event loop
        gets to it, while the worker goes on.
        """
        self.post_message(self.Stepped(step))

    def on_loading_bar_stepped(self, message: Stepped) -> None:
        message.stop()
        self.step(f"{message.step}…")

    def fail(self, line: str) -> None:
        """Stop spinning and keep the bar, with ``line`` as an error."""
        self.display = True
        self.query_one(LoadingIndicator).display = False
        label = self.query_one(Label)
        label.update(line)
        label.add_class("error")

    def done(self) -> None:
        """Hide the bar."""
        self.display = False
