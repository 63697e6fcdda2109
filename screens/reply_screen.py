"""The preview of the dispositions reply, before it is posted."""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.reactive import reactive
from textual.screen import Screen
from textual.widgets import Header, Label, Static

from syncdesk.tui.text import literal
from syncdesk.tui.widgets.key_footer import KeyFooter

SUGGESTED_STYLE = "bold yellow"
SUGGESTED_MARK = "  ◀ only suggested"


def suggested_line(suggested: Sequence[str]) -> str:
    """The warning above the reply: which dispositions nobody decided yet."""
    names = ", ".join(suggested)
    return (
        f"{len(suggested)} disposition(s) are only syncdesk's suggestion, not your decision "
        f"(marked below, the mark is not posted): {names}. On the Findings screen, a accepts a "
        "suggestion; m, H, d or X decides."
    )


def marked_reply(text: str, suggested: Sequence[str]) -> Text:
    """The reply as it will be posted, each row of a suggested finding marked beside it.

    The mark is drawn after the line, in the preview only: the text itself
    stays exactly what is posted. A row is ``| <id> <title> | ... |``.
    """
    shown = Text()
    for line in text.rstrip("\n").split("\n"):
        row = line.startswith("| ") and any(line.startswith(f"| {fid} ") for fid in suggested)
        shown.append(literal(line).plain, SUGGESTED_STYLE if row else "")
        if row:
            shown.append(SUGGESTED_MARK, SUGGESTED_STYLE)
        shown.append("\n")
    shown.rstrip()
    return shown


class ReplyPreviewScreen(Screen[bool | None]):
    """Shows the reply exactly as it will be posted.

    Dismisses with True (post, and reply in each finding's inline thread),
    False (post the reply only) or None (cancel). ``T`` toggles the threads.
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("P", "post", "Post", id="reply.post"),
        Binding("T", "toggle_threads", "Also reply in threads", id="reply.threads"),
        Binding("escape", "cancel", "Cancel", id="reply.cancel"),
    ]
    LEGEND = "reply"

    threads: reactive[bool] = reactive(False)

    def __init__(
        self, number: int, text: str, thread_count: int, suggested: Sequence[str] = ()
    ) -> None:
        super().__init__()
        self._number = number
        self._text = text
        self._thread_count = thread_count
        # The findings whose disposition is syncdesk's suggestion, not the maintainer's.
        self._suggested = tuple(suggested)

    def compose(self) -> ComposeResult:
        yield Header(icon="⇄")
        yield Label("", id="reply-summary")
        if self._suggested:
            yield Label(literal(suggested_line(self._suggested)), id="reply-suggested")
        with VerticalScroll(id="reply-body"):
            yield Static(marked_reply(self._text, self._suggested), id="reply-text")
        yield KeyFooter()

    def on_mount(self) -> None:
        self.watch_threads(self.threads)
        self.query_one("#reply-body").focus()

    def watch_threads(self, threads: bool) -> None:
        where = f"as a comment on #{self._number}"
        if threads and self._thread_count:
            where += f", and a short reply in each of {self._thread_count} inline thread(s)"
        self.query_one("#reply-summary", Label).update(
            f"The reply, exactly as it will be posted {where}. P posts (after a y)."
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
