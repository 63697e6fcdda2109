"""Who wrote each side of a hunk: the slice commits on main's side, dev's commits on dev's."""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Label, Static

from syncdesk.services.conflicts.models import BlamedCommit, HunkAttribution


def _side(title: str, commits: tuple[BlamedCommit, ...], empty: str) -> list[Content]:
    lines = [Content.styled(title, "bold $accent")]
    if not commits:
        lines.append(Content.styled(f"  {empty}", "$text-muted"))
    for commit in commits:
        # Subjects, names and emails were sanitized by the service; they enter as text.
        lines.append(
            Content.assemble(
                "  ", (commit.sha[:10], "bold"), "  ", commit.subject,
            )
        )  # fmt: skip
        lines.append(
            Content.styled(
                f"             {commit.author_name} <{commit.author_email}>  {commit.date[:10]}",
                "$text-muted",
            )
        )
    return lines


class AttributionScreen(ModalScreen[None]):
    """The commits behind one hunk, both sides."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,i", "close", "Close", id="attribution.close"),
    ]

    def __init__(self, title: str, attribution: HunkAttribution, problems: tuple[str, ...]) -> None:
        super().__init__()
        self._title = title
        self._attribution = attribution
        self._problems = problems

    def compose(self) -> ComposeResult:
        lines = [
            *_side(
                "main's side: slice commits that wrote these lines",
                self._attribution.main,
                "no slice commit (the lines are older than the dev base, or main's side is empty)",
            ),
            Content(""),
            *_side(
                "dev's side: dev commits that wrote these lines",
                self._attribution.dev,
                "no dev commit (the lines are older than the fork, or dev's side is empty)",
            ),
            *(Content.styled(f"\n{problem}", "$warning") for problem in self._problems),
        ]
        with VerticalScroll(id="attribution-box"):
            yield Label(self._title, id="attribution-title", markup=False)
            yield Static(Content("\n").join(lines))

    def action_close(self) -> None:
        """Back to the workspace."""
        self.dismiss()
