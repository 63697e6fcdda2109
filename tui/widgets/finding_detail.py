"""A finding in full: its text, its cited lines annotated by origin, its disposition."""

from __future__ import annotations

from rich.text import Text

from syncdesk.services.review.dispositions import Decision
from syncdesk.services.review.models import Origin
from syncdesk.services.review.reply import label
from syncdesk.services.review.trace import FindingView
from syncdesk.services.sanitize import one_line, visible

ORIGIN_STYLES = {
    Origin.SLICE: "cyan",
    Origin.DEV: "magenta",
    Origin.SHARED: "dim",
    Origin.MERGE: "yellow",
    Origin.REPAIR: "green",
}


def render_detail(view: FindingView, decided: Decision | None) -> Text:
    """The detail pane's text; everything from the review is literal."""
    finding = view.finding
    text = Text()
    head = " · ".join(part for part in (finding.label, finding.severity, finding.category) if part)
    text.append(one_line(head), "bold")
    if finding.status:
        text.append(f"  ({finding.status} in the review)", "italic")
    text.append("\n")
    text.append(one_line(finding.title) + "\n\n", "bold")
    text.append("Suggested: ", "bold")
    text.append(f"{label(view.suggested)}: {one_line(view.reason)}\n")
    text.append("Decided:   ", "bold")
    if decided is None or decided.disposition is None:
        text.append("nothing yet\n", "dim")
    else:
        text.append(label(decided.disposition) + "\n", "bold green")
    if decided is not None and decided.note:
        text.append("Note:      ", "bold")
        text.append(visible(decided.note) + "\n")
    if finding.comment_ids:
        threads = len(finding.comment_ids)
        text.append("Threads:   ", "bold")
        text.append(f"{threads} inline, {view.resolved_threads} resolved on GitHub\n")
    text.append("\n")
    text.append(visible(finding.body.strip()) + "\n\n")
    text.append("Cited lines\n", "bold underline")
    if not view.origins:
        text.append("  none: the finding cites no lines\n", "dim")
    for index, origin in enumerate(view.origins):
        cited = origin.range
        where = f"{cited.path} {cited.start}-{cited.end}"
        if cited.commit:
            where += f" at {cited.commit[:12]}"
        flags = [cited.source] + (["outdated"] if cited.outdated else [])
        if cited.side == "LEFT":
            flags.append("base side")
        text.append(f"\n{one_line(where)}", "bold")
        text.append(f"  [{', '.join(flags)}]", "dim")
        if origin.file_identical_to:
            text.append(f"  file identical to {one_line(origin.file_identical_to)}", "italic")
        text.append("\n")
        if origin.note:
            text.append(f"  {one_line(origin.note)}\n", "yellow")
        lines = view.code.get(index, ())
        for run in origin.runs:
            style = ORIGIN_STYLES.get(run.origin, "")
            text.append(f"  {run.start}-{run.end} ", "dim")
            text.append(f"{run.origin.value:<7}", f"bold {style}")
            text.append(f" {run.commit[:10]} {one_line(run.subject)} — {one_line(run.author)}\n")
            for number in range(run.start, run.end + 1):
                offset = number - origin.start
                if 0 <= offset < len(lines):
                    text.append(f"  {number:>6} │ ", style)
                    text.append(visible(lines[offset]) + "\n")
    return text
