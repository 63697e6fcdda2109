"""The preview of a repair write: what the new repair commit holds and what it changes."""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.screen import Screen
from textual.widgets import Header, Label, Static

from syncdesk.screens.confirm_screen import ConfirmScreen
from syncdesk.services.sanitize import one_line
from syncdesk.services.write.models import PreviewCheck, RepairPlan
from syncdesk.tui.text import literal
from syncdesk.tui.widgets.key_footer import KeyFooter


def summary_line(plan: RepairPlan) -> str:
    """One line: which branch, and whether the write adds, replaces or squashes the repair."""
    branch = one_line(plan.branch)
    count = len(plan.replaces)
    if plan.old_repair is None:
        what = f"{branch} at {plan.old_head[:12]}: adds the first repair commit on the merge"
    elif count == 1:
        what = f"{branch}: replaces the repair {plan.old_head[:12]}"
    else:
        what = (
            f"{branch} at {plan.old_head[:12]}: squashes the {count} commits on the merge "
            "into one repair"
        )
    files = len(plan.changes)
    signed = "signed" if plan.sign else "not signed"
    found = f"; look first: {len(plan.checks)} finding(s) below" if plan.checks else ""
    return f"{what}; {files} file{'s' if files != 1 else ''} change; {signed}{found}"


def diff_text(patch: str) -> Text:
    """A patch coloured by line kind; its text stays literal (it is file content)."""
    text = Text(no_wrap=True)
    for line in patch.splitlines(keepends=True):
        shown_line = literal(line.rstrip("\n")).plain + "\n"
        if line.startswith(("+++", "---", "diff ", "index ")):
            style = "bold"
        elif line.startswith("+"):
            style = "green"
        elif line.startswith("-"):
            style = "red"
        elif line.startswith("@@"):
            style = "cyan"
        else:
            style = ""
        text.append(shown_line, style)
    return text


CHECK_MARKS = {"syntax": "✗", "keep-dev": "⚠", "duplicate-def": "⚠"}


def checks_text(checks: Sequence[PreviewCheck]) -> Text:
    """One line a check, blocking ones first and in red; the messages stay literal text."""
    text = Text()
    for check in sorted(checks, key=lambda c: not c.blocking):
        style = "bold red" if check.blocking else "yellow"
        text.append(f"{CHECK_MARKS.get(check.kind, '⚠')} ", style)
        text.append(literal(check.message).plain, style)
        if check.blocking:
            text.append("  (w asks before writing it)", "dim")
        text.append("\n")
    text.rstrip()
    return text


class PreviewScreen(Screen[bool]):
    """Everything the write will do; dismisses True only after a confirmed ``w``."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("w", "write", "Write the repair", id="preview.write"),
        Binding("escape", "cancel", "Cancel", id="preview.cancel"),
    ]
    LEGEND = "preview"

    def __init__(self, plan: RepairPlan) -> None:
        super().__init__()
        self.plan = plan

    def compose(self) -> ComposeResult:
        plan = self.plan
        yield Header(icon="⇄")
        yield Label(literal(summary_line(plan)), id="preview-summary")
        with VerticalScroll(id="preview-body"):
            if plan.checks:
                yield Label("Before you write: what the preview found", classes="preview-title")
                yield Static(checks_text(plan.checks), id="preview-checks")
            yield Label("The commit message", classes="preview-title")
            yield Static(literal(plan.message.rstrip("\n")), id="preview-message")
            yield Label("The new repair, against the merge", classes="preview-title")
            yield Static(literal(plan.diff_stat.rstrip("\n")), id="preview-stat")
            yield Label(
                "What changes against the previous repair"
                if plan.old_repair
                else "What the repair changes",
                classes="preview-title",
            )
            yield Static(diff_text(plan.diff_vs_old_repair), id="preview-diff")
        yield KeyFooter()

    def on_mount(self) -> None:
        self.query_one("#preview-body").focus()

    @work(exclusive=True, group="preview-confirm")
    async def action_write(self) -> None:
        """Ask once more, naming the branch; write only on yes."""
        plan = self.plan
        if plan.blocking:
            # A file that does not compile is written only after its own yes.
            found = "; ".join(check.message for check in plan.blocking)
            doubt = f"{found}. Write the repair with this anyway?"
            if not await self.app.push_screen_wait(ConfirmScreen(doubt, yes="Write anyway")):
                return
        question = (
            f"Write the new repair on {one_line(plan.branch)}? The branch moves from "
            f"{plan.old_head[:12]} only if it is still there; a backup ref keeps the old "
            "head, and undo restores it."
        )
        if await self.app.push_screen_wait(ConfirmScreen(question, yes="Write")):
            self.dismiss(True)

    def action_cancel(self) -> None:
        """Leave without writing."""
        self.dismiss(False)
