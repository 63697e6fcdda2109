"""The summary panel: the sync's verdict at a glance."""

from __future__ import annotations

from textual.content import Content
from textual.widgets import Static

from syncdesk.services.report.facts import conflict_summary, short, slice_count, usual_size
from syncdesk.services.sync.models import Anatomy, Slice, SyncReport
from syncdesk.services.sync.ours import ours_summary
from syncdesk.tui.text import counted

OK = "$success"
BAD = "$error"
WARN = "$warning"
MUTED = "$text-muted"


def _row(label: str, *value: str | Content | tuple[str, str]) -> Content:
    return Content.assemble((f"{label:<13}", f"bold {MUTED}"), *value)


def summary_lines(report: SyncReport, approved: int | None = None) -> list[Content]:
    """The panel's lines; every repository string enters as literal text.

    ``approved``: how many conflicted files the maintainer approved (None:
    unknown), for the line that says what comes next.
    """
    s, anatomy = report.slice, report.anatomy
    lines = slice_lines(s, anatomy)
    advanced = report.dev_advanced
    if not advanced.commits:
        lines.append(_row("Dev", "has not moved since the dev base"))
    else:
        new = counted(len(advanced.commits), "new commit")
        lines.append(_row("Dev", f"{new} · tip {short(advanced.dev_tip)}"))
        if advanced.merges_cleanly:
            lines.append(_row("", ("✓ merges cleanly", OK)))
        else:
            lines.append(_row("", ("✗ conflicts: O rebuilds on it", f"bold {BAD}")))
    lines.append(Content(""))
    lines.append(Content.styled("Protected files", f"bold {MUTED}"))
    ours = report.anatomy.ours
    # With dev merged on top, dev's version is the newest dev the head holds.
    against = f"dev {short(ours.dev)}" if ours is not None and ours.merges else "dev base"
    for item in report.protected_files:
        mark, style = ("✓", OK) if item.identical else ("✗", BAD)
        verdict = "" if item.identical else f"  differs from {against}"
        lines.append(Content.assemble(("  " + mark + " ", style), item.path, (verdict, style)))
    lines.append(Content(""))
    lines.append(_row("Conflicts", conflict_summary(report.conflicts)))
    lines.append(Content.styled(f"{'':13}{next_step(report, approved)}", MUTED))
    lines.append(_row("Python", report.stats.python_summary))
    lines.append(_row("Remerge-diff", counted(len(report.stats.remerge_diff_files), "file")))
    return [*lines, *_signoff_lines(s)]


def early_lines(s: Slice, anatomy: Anatomy) -> list[Content]:
    """The panel while the merges are still being read: what the slice and anatomy say."""
    reading = "dev's progress, protected files and conflicts: reading…"
    return [*slice_lines(s, anatomy), Content.styled(reading, MUTED), *_signoff_lines(s)]


def _signoff_lines(s: Slice) -> list[Content]:
    signoffs_missing = sum(1 for c in s.commits if not c.signed_off)
    signoffs_other = sum(1 for c in s.commits if c.signed_off and not c.signoff_matches_author)
    dco_style = OK if signoffs_missing == signoffs_other == 0 else WARN
    return [
        _row("Sign-off", (f"{signoffs_missing} missing · {signoffs_other} by another", dco_style)),
        _row("Signed", counted(sum(1 for c in s.commits if c.signed), "commit")),
    ]


def slice_lines(s: Slice, anatomy: Anatomy) -> list[Content]:
    """The lines the slice and the anatomy alone give: refs, the verdict and its problems."""
    lines = [
        _row("Dev base", short(s.dev_base)),
        _row("Slice", f"{slice_count(s, usual=False)} · tip {short(s.tip)}"),
        *([_row("", (usual, MUTED))] if (usual := usual_size(s)) else []),
        _row("Backlog", f"{s.remaining} more on main"),
        _row("Merge", short(anatomy.merge)),
        _row("Repair", short(anatomy.repair) if anatomy.repair else "none"),
    ]
    ours = ours_summary(anatomy.ours)
    if ours is not None:  # dev merged in, or several commits: say which are counted as ours
        lines.append(_row("Ours", ours))
    lines.append(Content(""))
    if anatomy.ok:
        lines.append(_row("Anatomy", ("✓ healthy", f"bold {OK}")))
    else:
        lines.append(_row("Anatomy", (f"✗ {len(anatomy.problems)} problem(s)", f"bold {BAD}")))
        for problem in anatomy.problems:
            lines.append(Content.assemble(("  • ", BAD), (problem.code, "bold"), ": "))
            lines.append(Content.assemble("    ", problem.message))
    return lines


def next_step(report: SyncReport, approved: int | None) -> str:
    """What comes next, under the conflicts: "3 of 11 files approved · W previews the repair"."""
    conflicts = report.conflicts
    total = len(conflicts.files) if conflicts is not None else 0
    ours = report.anatomy.ours
    if ours is not None and ours.merges:
        # The workspace's dev side and every write need one merge on the newest dev:
        # said before any decision is made, not by the write at the end.
        return "dev is merged on top: O first rebuilds it as one merge + one repair (same files)"
    if not total or approved is None:
        return "c opens the conflict workspace"
    done = f"{approved} of {counted(total, 'file')} approved"
    if not approved:
        return f"{done} · c opens the conflict workspace, a approves a file"
    if approved < total:
        return f"{done} · W previews the repair · c decides the rest"
    return f"{done} · W previews the repair"


class SyncSummary(Static):
    """Shows a :class:`SyncReport`'s verdicts; empty until one arrives."""

    def show(self, report: SyncReport, approved: int | None = None) -> None:
        """Render ``report`` (``approved``: conflicted files the maintainer approved)."""
        self.update(Content("\n").join(summary_lines(report, approved)))

    def show_early(self, s: Slice, anatomy: Anatomy) -> None:
        """Render what the slice and the anatomy say while the rest is read."""
        self.update(Content("\n").join(early_lines(s, anatomy)))
