"""The dispositions reply: a markdown table of findings, origins and dispositions, then notes.

Everything in it comes from review text (untrusted) or from git facts. Cells
are escaped so that text from a review cannot break the table, hide text in an
HTML comment, or mention (and so notify) anyone: ``|`` and ``<`` are escaped,
line breaks become spaces, and an ``@`` gets a zero-width joiner after it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from syncdesk.services.github.models import Review
from syncdesk.services.review.models import Disposition, Finding
from syncdesk.services.sanitize import markdown_cell

LABELS = {
    Disposition.FIX_ON_MAIN: "Fix on main",
    Disposition.FIX_HERE: "Fix here (repair commit)",
    Disposition.FIX_ON_DEV: "Fix on dev",
    Disposition.CLOSED: "Closed",
    Disposition.UNDECIDED: "Undecided",
}


@dataclass(frozen=True, slots=True)
class ReplyRow:
    """One finding's line of the table."""

    finding: Finding
    evidence: str  # one sentence of facts: where the cited lines come from
    disposition: Disposition
    note: str = ""


def label(disposition: Disposition) -> str:
    """How a disposition reads in the reply and on screen."""
    return LABELS[disposition]


def compose_reply(head_sha: str, rows: Sequence[ReplyRow], reviews: Sequence[Review]) -> str:
    """The reply's markdown, for the preview and the post."""
    covered = ", ".join(
        f"{review.id} ({review.commit_id[:7]})" if review.commit_id else str(review.id)
        for review in reviews
        if review.body.strip()
    )
    lines = [f"Sync review dispositions (head {head_sha[:7]})", ""]
    if covered:
        lines += [
            f"This covers reviews {covered}. Each cited range was traced with git blame on "
            "the head and classified by where its lines come from: the slice (main), dev, "
            "shared history, the merge's resolution or the repair commit.",
            "",
        ]
    lines += ["| Finding | Origin | Disposition |", "|---|---|---|"]
    for row in rows:
        finding = row.finding
        name = f"{finding.label} {finding.title}".strip()
        lines.append(
            f"| {markdown_cell(name)} | {markdown_cell(row.evidence)} | {label(row.disposition)} |"
        )
    generated = sorted({_kind(row.finding.id) for row in rows} - {""})
    if generated:
        lines += [
            "",
            "Findings the reviewers gave no id are labelled here: " + "; ".join(generated) + ".",
        ]
    notes = [row for row in rows if row.note.strip()]
    if notes:
        lines += ["", "Notes:", ""]
        lines += [
            f"- {markdown_cell(row.finding.label)}: {markdown_cell(row.note)}" for row in notes
        ]
    return "\n".join(lines) + "\n"


def thread_reply(row: ReplyRow) -> str:
    """The short reply posted in a finding's inline thread."""
    text = f"{label(row.disposition)}. {markdown_cell(row.evidence)}"
    if row.note.strip():
        text += f"\n\n{markdown_cell(row.note)}"
    return text


_REVIEWERS_ID = re.compile(r"(?:[FR]|#)\d+")
_GENERATED = (
    (re.compile(r"R\d+-\d+"), "R<review>-<n> is the n-th finding of that review's text"),
    (re.compile(r"C\d+"), "C<comment> is an inline comment, by its id"),
    (re.compile(r"T\d+"), "T<n> is the n-th finding of the text"),
)


def _kind(finding_id: str) -> str:
    """How a label the desk gave is read ("" for a reviewer's own id)."""
    if _REVIEWERS_ID.fullmatch(finding_id):
        return ""
    return next((said for pattern, said in _GENERATED if pattern.fullmatch(finding_id)), "")
