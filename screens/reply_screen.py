"""The preview of the dispositions reply, before it is posted."""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.reactive import reactive
from textual.screen import Screen
from textual.widgets import Footer, Header, Label, Static

from syncdesk.tui.text import literal


class ReplyPreviewScreen(Screen[bool | None]):
    """Shows the reply exactly as it will be posted.

    Dismisses with True (post, and reply in each finding's inline thread),
    False (post the reply only) or None (cancel). ``t`` toggles the threads.
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("p", "post", "Post", id="reply.post"),
        Binding("t", "toggle_threads", "Also reply in threads", id="reply.threads"),
        Binding("escape", "cancel", "Cancel", id="reply.cancel"),
    ]

    threads: reactive[bool] = reactive(False)

    def __init__(self, number: int, text: str, thread_count: int) -> None:
        super().__init__()
        self._number = number
        self._text = text
        self._thread_count = thread_count

    def compose(self) -> ComposeResult:
        yield Header(icon="⇄")
        yield Label("", id="reply-summary")
        with VerticalScroll(id="reply-body"):
            yield Static(literal(self._text.rstrip("\n")), id="reply-text")
        yield Footer()

    def on_mount(self) -> None:
        self.watch_threads(self.threads)
        self.query_one("#reply-body").focus()

    def watch_threads(self, threads: bool) -> None:
        where = f"as a comment on #{self._number}"
        if threads and self._thread_count:
            where += f", and a short reply in each of {self._thread_count} inline thread(s)"
        self.query_one("#reply-summary", Label).update(
            f"The reply, exactly as it will be posted {where}. p posts (after a y)."
        )

    def action_toggle_threads(self) -> None:
        """Also answer in each finding's inline thread, or not."""
        self.threads = not self.threads

    def action_post(self) -> None:
        """Go on to the confirmation."""
        self.dismiss(self.threads)

    def action_cancel(self) -> None:
        """Post nothing."""
        self.dismiss(None)
