"""The sync PR's description: written from verified facts, and checked against them.

A sync PR's body ends with the ordered list of the slice's source SHAs, and
reviewers trust it: the real PR this product was designed from claimed 100
commits and listed 96. :func:`generate_body` writes a description whose every
number and SHA comes from a :class:`SyncReport`; :func:`verify_body` reads any
description (hand-written, a bot's, an older one of ours) and says where it
disagrees with the report: the SHA list (missing, unknown, out of order), the
counts it claims, and the dev base, tips, merge and repair it names.

Bodies are untrusted text and can be large: parsing never raises and uses only
bounded regular expressions, so a 1 MB body is checked in well under a second.

The checker is :mod:`syncdesk.services.description.check`, which reads the SHA list with
:mod:`syncdesk.services.description.shas`; its public names stay importable from here.
"""

from __future__ import annotations

from collections.abc import Sequence

from syncdesk.services.conflicts.models import ConflictSet
from syncdesk.services.description.check import SHOWN
from syncdesk.services.sanitize import markdown_cell
from syncdesk.services.sync.models import SliceCommit, SyncReport

_RESOLVED_AS = {
    "custom": "hand-edited",
    "main": "main's version",
    "dev": "dev's version",
    "union": "a union of both sides",
    "base": "the base version",
    "deleted": "deleted",
    "unresolved": "still unresolved",
}


# --- writing ---------------------------------------------------------------------------------


def generate_body(
    report: SyncReport, *, conflicts_note: str = "", tested: Sequence[str] = ()
) -> str:
    """A sync PR description in the seed PR's structure, from the report's facts only.

    Sections with nothing verified behind them are left out rather than filled
    in; "Tested" lists only ``tested`` (what the caller ran). ``conflicts_note``
    is the maintainer's own words on how the conflicts were resolved. Every
    piece of text that came from a repository or a caller is made inert
    markdown (no mention, no HTML).
    """
    sections = [
        ("Background", _background(report)),
        ("What changed", _what_changed(report)),
        ("Details", _details(report, conflicts_note)),
        ("Tested", [f"• {markdown_cell(item)}" for item in tested if item.strip()] or _NOT_TESTED),
    ]
    parts = [f"{title}\n\n" + "\n".join(lines) for title, lines in sections if lines]
    commits = report.slice.commits
    if commits:
        parts.append(f"Ordered {len(commits)} source SHAs\n\n" + " ".join(_short_names(commits)))
    return "\n\n".join(parts) + "\n"


_NOT_TESTED = ["Nothing has been run on this head yet."]


def _short_names(commits: Sequence[SliceCommit]) -> list[str]:
    """Each SHA abbreviated to 7 characters, or more where 7 would be ambiguous in the slice."""
    names = []
    for commit in commits:
        length = SHOWN
        while length < len(commit.sha) and any(
            other.sha != commit.sha and other.sha.startswith(commit.sha[:length])
            for other in commits
        ):
            length += 1
        names.append(commit.sha[:length])
    return names


def _background(report: SyncReport) -> list[str]:
    the_slice, advanced = report.slice, report.dev_advanced
    count = len(the_slice.commits)
    if not count:
        return [f"Main → dev sync. Dev already has every commit of main ({the_slice.main_tip})."]
    whole = " (the whole backlog)" if count < the_slice.size and not the_slice.remaining else ""
    lines = [
        f"Main → dev sync. This branch brings the oldest {count} commits of dev..main into "
        f"dev{whole}.",
        "",
        f"• dev base: {the_slice.dev_base}",
        f"• slice tip on main: {the_slice.tip}",
        f"• main tip: {the_slice.main_tip}, with {the_slice.remaining} more commits of "
        "dev..main left for later syncs.",
    ]
    if advanced.commits:
        verdict = {
            True: "it merges into this head with no conflict",
            False: "it conflicts with this head, so the sync needs a rebuild",
            None: "",
        }[advanced.merges_cleanly]
        lines.append(
            f"• dev has moved on by {len(advanced.commits)} commits since the dev base"
            + (f"; {verdict}." if verdict else ".")
        )
        # The dash keeps a subject such as "(dev)" from reading as this SHA's label.
        lines += [f"  • {c.sha[:8]} — {markdown_cell(c.subject)}" for c in advanced.commits]
    else:
        lines.append("• dev has not moved since the dev base.")
    return lines


def _what_changed(report: SyncReport) -> list[str]:
    anatomy, the_slice = report.anatomy, report.slice
    if anatomy.merge is None:
        return []
    lines = []
    if anatomy.ok:
        ahead = len(the_slice.commits) + 1 + len(anatomy.on_top)
        lines += [
            f"The branch is {ahead} commits ahead of the dev base:",
            "",
            f"• {len(the_slice.commits)} original main commits, unchanged and in slice order.",
        ]
    else:
        lines += ["The branch's shape has problems:", ""]
        lines += [
            f"• {problem.code}: {markdown_cell(problem.message)}" for problem in anatomy.problems
        ]
    parents = ""
    tip = the_slice.tip
    if tip is not None and anatomy.dev_base == the_slice.dev_base and anatomy.slice_tip == tip:
        parents = f", with parents {the_slice.dev_base[:8]} (dev) and {tip[:8]} (main)"
    lines.append(f"• 1 merge commit, {anatomy.merge}{parents}.")
    if anatomy.repair is not None:
        lines.append(f"• 1 squashed repair commit, {anatomy.repair}.")
    elif anatomy.ok:
        lines.append("• No repair commit.")
    stats = report.stats
    lines.append(f"• Python from the dev base to the head: {stats.python_summary}.")
    return lines


def _details(report: SyncReport, conflicts_note: str) -> list[str]:
    lines = [*_conflict_lines(report.conflicts, conflicts_note)]
    if report.protected_files:
        same = [markdown_cell(p.path) for p in report.protected_files if p.identical]
        differ = [markdown_cell(p.path) for p in report.protected_files if not p.identical]
        if same:
            lines.append(f"• Keep-dev files {', '.join(same)}: identical to the dev base.")
        if differ:
            lines.append(f"• Keep-dev files {', '.join(differ)}: DIFFER from the dev base.")
    if report.anatomy.merge is not None:
        count = len(report.stats.remerge_diff_files)
        merge = report.anatomy.merge[:8]
        lines.append(f"• Remerge-diff: git show --remerge-diff {merge} shows {count} files.")
    lines += _dco_lines(report.slice.commits)
    lines += [f"• Warning: {markdown_cell(warning)}" for warning in report.warnings]
    return lines


def _conflict_lines(conflicts: ConflictSet | None, note: str) -> list[str]:
    lines = []
    if conflicts is not None and conflicts.files:
        counts: dict[str, int] = {}
        for conflict in conflicts.files:
            counts[conflict.resolution] = counts.get(conflict.resolution, 0) + 1
        spread = ", ".join(
            f"{count} {_RESOLVED_AS.get(name, name)}" for name, count in sorted(counts.items())
        )
        lines.append(
            f"• Conflicts: {len(conflicts.files)} files, {conflicts.hunk_count} hunks; "
            f"as resolved at the head: {spread}."
        )
    elif conflicts is not None and conflicts.clean:
        lines.append("• Conflicts: none, the merge is clean.")
    if note.strip():
        lines.append(f"• Conflict resolution: {markdown_cell(note)}")
    return lines


def _dco_lines(commits: Sequence[SliceCommit]) -> list[str]:
    if not commits:
        return []
    unsigned = [c for c in commits if not c.signed_off]
    mismatched = [c for c in commits if c.signed_off and not c.signoff_matches_author]
    signed = sum(1 for c in commits if c.signed)
    lines = [
        f"• Signatures: {signed} of {len(commits)} imported commits carry a signature header "
        "(read from the commit object, not verified here)."
    ]
    if not unsigned and not mismatched:
        return [*lines, "• DCO: every imported commit is signed off by its author."]
    lines.append(
        f"• DCO: {_count(len(unsigned), 'imported commit has', 'imported commits have')} "
        f"no sign-off and {_count(len(mismatched), 'is', 'are')} signed off by someone other "
        "than the author. They keep their original SHAs, so the DCO check needs a maintainer "
        "override."
    )
    lines += [f"  • no sign-off: {c.sha[:8]} by {markdown_cell(c.author_name)}" for c in unsigned]
    lines += [
        f"  • other sign-off: {c.sha[:8]} by {markdown_cell(c.author_name)}" for c in mismatched
    ]
    return lines


def _count(number: int, one: str, many: str) -> str:
    return f"{number} {one if number == 1 else many}"
