"""``syncdesk report``: the sync's facts as JSON, plain text or Markdown.

The JSON shape is documented in ``docs/report-schema.md`` and versioned by
``schema_version``; later issues add top-level sections, never rename keys.
:func:`to_json` builds the data and :func:`~syncdesk.services.report.serialize.to_json_text`
prints it, sanitising every string. The text and Markdown formats rely on the
sanitising done at ingestion, so they contain no terminal control bytes even
when commit messages do.
"""

from __future__ import annotations

from typing import Any

from syncdesk.services.audit.model import Audit
from syncdesk.services.conflicts.models import Attribution, ConflictFile, ConflictSet
from syncdesk.services.report.audit import (
    accident_blocks,
    audit_summary_json,
    audit_text,
    block_line,
    class_counts,
    judged_line,
)
from syncdesk.services.sanitize import one_line
from syncdesk.services.sync.config import Config
from syncdesk.services.sync.models import Slice, SliceCommit, SyncReport
from syncdesk.services.sync.ours import Ours, ours_summary
from syncdesk.services.sync.policies import policy_for

SCHEMA_VERSION = 1


def _commit_json(commit: SliceCommit) -> dict[str, Any]:
    return {
        "index": commit.index,
        "sha": commit.sha,
        "subject": commit.subject,
        "author_name": commit.author_name,
        "author_email": commit.author_email,
        "date": commit.date,
        "pr": commit.pr,
        "signed_off": commit.signed_off,
        "signoff_matches_author": commit.signoff_matches_author,
        "signed": commit.signed,
        "is_merge": commit.is_merge,
        "signoffs": list(commit.signoffs),
    }


def to_json(report: SyncReport, config: Config) -> dict[str, Any]:
    """The report as a JSON-ready dict (see ``docs/report-schema.md``)."""
    refs, the_slice, anatomy = report.refs, report.slice, report.anatomy
    return {
        "schema_version": SCHEMA_VERSION,
        "repo": report.repo,
        "refs": {
            "head": {"name": refs.head_name, "sha": refs.head, "branch": refs.branch},
            "dev": {"name": refs.dev_name, "sha": refs.dev},
            "main": {"name": refs.main_name, "sha": refs.main},
        },
        "config": {
            "slice_size": config.slice_size,
            "keep_dev": list(config.keep_dev),
            "override_from_main": list(config.override_from_main),
            "remote": config.remote,
            "sources": list(config.sources),
        },
        "slice": {
            "dev_base": the_slice.dev_base,
            "main_tip": the_slice.main_tip,
            "size": the_slice.size,
            "imported": the_slice.imported,
            "expected": the_slice.usual,
            "tip": the_slice.tip,
            "remaining": the_slice.remaining,
            "commits": [_commit_json(c) for c in the_slice.commits],
        },
        "anatomy": {
            "ok": anatomy.ok,
            "head": anatomy.head,
            "merge": anatomy.merge,
            "dev_base": anatomy.dev_base,
            "slice_tip": anatomy.slice_tip,
            "slice_position": anatomy.slice_position,
            "repair": anatomy.repair,
            "on_top": list(anatomy.on_top),
            "problems": [{"code": p.code, "message": p.message} for p in anatomy.problems],
            "ours": ours_json(anatomy.ours),
        },
        "dev_advanced": {
            "dev_tip": report.dev_advanced.dev_tip,
            "commits": [
                {"sha": c.sha, "subject": c.subject, "author_name": c.author_name, "date": c.date}
                for c in report.dev_advanced.commits
            ],
            "merges_cleanly": report.dev_advanced.merges_cleanly,
        },
        "protected_files": [
            {
                "path": p.path,
                "identical": p.identical,
                "at_head": p.at_head,
                "at_dev_base": p.at_dev_base,
            }
            for p in report.protected_files
        ],
        "stats": {
            "python": {
                "added": report.stats.python_added,
                "deleted": report.stats.python_deleted,
                "files": report.stats.python_files,
                "summary": report.stats.python_summary,
            },
            "remerge_diff_files": list(report.stats.remerge_diff_files),
        },
        "conflicts": _conflicts_json(report, config),
    }


def ours_json(ours: Ours | None) -> dict[str, Any] | None:
    """Which commits above the merge were counted as ours, and which dev's (``docs/ours.md``)."""
    if ours is None:
        return None
    return {
        "dev": ours.dev,
        "commits": list(ours.commits),
        "repairs": list(ours.repairs),
        "merges": list(ours.merges),
        "from_dev": list(ours.from_dev),
        "strays": list(ours.strays),
    }


def _conflicts_json(report: SyncReport, config: Config) -> dict[str, Any] | None:
    conflicts, attribution = report.conflicts, report.attribution
    if conflicts is None:
        return None
    return {
        "dev_side": conflicts.dev_side,
        "main_side": conflicts.main_side,
        "head": conflicts.head,
        "clean": conflicts.clean,
        "messages": list(conflicts.messages),
        "files": [_conflict_json(c, attribution, config) for c in conflicts.files],
        "audit": _audit_json(report.audit),
        "audit_summary": audit_summary_json(report.audit),
    }


def _audit_json(audit: Audit | None) -> list[dict[str, Any]] | None:
    """The preservation audit's findings, accidents first; None when not audited."""
    if audit is None:
        return None
    return [
        {
            "path": finding.shown_path,
            "line": finding.line,
            "text": finding.text,
            "classification": str(finding.classification),
            "commit": finding.commit,
            "subject": finding.subject,
            "other_path": one_line(finding.other_path) if finding.other_path else None,
            "detail": one_line(finding.detail) if finding.detail else None,
            "block": finding.block,
            "evidence": finding.evidence,
            "flagged": finding.is_accident,
            "verdict": str(finding.judgment.verdict) if finding.judgment else None,
            "change": finding.judgment.change if finding.judgment else None,
            "verdict_commit": finding.judgment.commit if finding.judgment else None,
            "verdict_evidence": finding.verdict_evidence,
        }
        for finding in audit.findings
    ]


def _conflict_json(
    conflict: ConflictFile, attribution: Attribution | None, config: Config
) -> dict[str, Any]:
    blamed = attribution.for_path(conflict.path) if attribution is not None else None
    return {
        "path": conflict.display_path,
        "old_paths": [one_line(path) for path in conflict.old_paths],
        "type": conflict.type,
        "binary": conflict.binary,
        "too_large": conflict.too_large or None,
        "hunks": len(conflict.hunks),
        "resolution": conflict.resolution,
        "hunk_resolutions": [hunk.resolution for hunk in conflict.hunks],
        "policy": policy_for(conflict.path, config),
        "attribution": [
            {"dev": [c.sha for c in hunk.dev], "main": [c.sha for c in hunk.main]}
            for hunk in (blamed.hunks if blamed is not None else ())
        ],
    }


def short(sha: str | None) -> str:
    """An abbreviated SHA, or a dash for none."""
    return sha[:8] if sha else "-"


def verdict_lines(report: SyncReport) -> list[str]:
    """The anatomy verdict in words, one problem a line."""
    anatomy = report.anatomy
    if anatomy.ok:
        repair = f" + repair {short(anatomy.repair)}" if anatomy.repair else ", no repair commit"
        count = len(report.slice.commits)
        return [f"OK: {count} original main commits + merge {short(anatomy.merge)}{repair}"]
    return [f"{p.code}: {p.message}" for p in anatomy.problems]


def dev_advanced_line(report: SyncReport) -> str:
    """Whether dev moved on since the dev base, and whether it merges cleanly."""
    advanced = report.dev_advanced
    if not advanced.commits:
        return "dev has not moved since the dev base"
    verdict = "merges cleanly" if advanced.merges_cleanly else "CONFLICTS with the head"
    return f"{len(advanced.commits)} new dev commits up to {short(advanced.dev_tip)}: {verdict}"


def slice_count(s: Slice, *, usual: bool = True) -> str:
    """How many commits the slice holds: "274 imported (the bot's usual 100)" or "100 of 100".

    A merge imported what it imported; the configured size is only beside it
    (left out with ``usual=False``, for :func:`usual_size` on a line of its own).
    Without a merge, the configured size picks the next slice (fewer when main
    has fewer left).
    """
    if not s.imported:
        return f"{len(s.commits)} of {s.size}"
    beside = f" ({usual_size(s)})" if usual and usual_size(s) else ""
    return f"{len(s.commits)} imported{beside}"


def usual_size(s: Slice) -> str:
    """ "the bot's usual 100" when the merge imported another count, else ""."""
    return f"the bot's usual {s.usual}" if s.imported and s.usual != s.size else ""


def to_text(report: SyncReport) -> str:
    """A plain-text report for a terminal or a pipe (no control bytes, no colour)."""
    s, anatomy = report.slice, report.anatomy
    lines = [
        f"Repository   {report.repo}",
        f"Head         {report.refs.head_name} {short(report.refs.head)}",
        f"Dev base     {short(s.dev_base)}",
        f"Slice        {slice_count(s)}, tip {short(s.tip)}, {s.remaining} left after it",
        f"Merge        {short(anatomy.merge)}",
        f"Repair       {short(anatomy.repair)}",
        *([f"Ours         {line}"] if (line := ours_summary(anatomy.ours)) else []),
        "",
        "Anatomy",
        *(f"  {line}" for line in verdict_lines(report)),
        "",
        f"Dev advanced {dev_advanced_line(report)}",
        *(f"  {short(c.sha)} {c.subject}" for c in report.dev_advanced.commits),
        "",
        "Protected files",
        *(
            f"  {'identical' if p.identical else 'DIFFERS  '}  {p.path}"
            for p in report.protected_files
        ),
        "",
        f"Python       {report.stats.python_summary}",
        f"Remerge-diff {len(report.stats.remerge_diff_files)} files",
        *(f"  {path}" for path in report.stats.remerge_diff_files),
        "",
        *_conflict_text(report.conflicts),
        "",
        *(audit_text(report.audit) if report.conflicts is not None else []),
        "",
        "Slice",
        *(_text_row(c) for c in s.commits),
    ]
    return "\n".join(lines) + "\n"


def conflict_summary(conflicts: ConflictSet | None) -> str:
    """Conflicted files and hunks, and how many files each resolution took, in one line."""
    if conflicts is None:
        return "nothing to merge"
    if not conflicts.files:
        return "the merge is clean" if conflicts.clean else "conflicts with no file to resolve"
    counts: dict[str, int] = {}
    for conflict in conflicts.files:
        counts[conflict.resolution] = counts.get(conflict.resolution, 0) + 1
    spread = ", ".join(f"{name} {count}" for name, count in sorted(counts.items()))
    files, hunks = len(conflicts.files), conflicts.hunk_count
    return (
        f"{files} file{'' if files == 1 else 's'}, {hunks} hunk{'' if hunks == 1 else 's'} "
        f"({spread})"
    )


def _conflict_text(conflicts: ConflictSet | None) -> list[str]:
    rows = [
        f"  {c.resolution:<10} {c.type:<13} {len(c.hunks):>4}  {c.display_path}"
        for c in (conflicts.files if conflicts is not None else ())
    ]
    extra = [f"  {message}" for message in (conflicts.messages if conflicts else ())]
    return [f"Conflicts    {conflict_summary(conflicts)}", *rows, *extra]


def _text_row(commit: SliceCommit) -> str:
    pr = f"#{commit.pr}" if commit.pr else "-"
    signed = "signed" if commit.signed else ""
    return (
        f"  {commit.index:>3} {commit.short_sha} {commit.signoff_mark} {pr:>7} "
        f"{commit.date[:10]} {commit.author_name}: {commit.subject} {signed}".rstrip()
    )


def _md(text: str) -> str:
    """Escape untrusted text for a Markdown table cell (no HTML, no links, no pipes)."""
    for char in "\\`*_[]<>|#!":
        text = text.replace(char, "\\" + char)
    return text


def to_markdown(report: SyncReport) -> str:
    """A Markdown report, for a pull request description or a comment."""
    s = report.slice
    lines = [
        "## Sync report",
        "",
        f"- dev base: `{s.dev_base}`",
        f"- slice tip: `{s.tip or '-'}` ({slice_count(s)}; {s.remaining} left)",
        f"- merge: `{report.anatomy.merge or '-'}`; repair: `{report.anatomy.repair or '-'}`",
        *([f"- ours: {_md(line)}"] if (line := ours_summary(report.anatomy.ours)) else []),
        *(f"- anatomy: {_md(line)}" for line in verdict_lines(report)),
        f"- dev: {_md(dev_advanced_line(report))}",
        f"- Python: {report.stats.python_summary}; "
        f"remerge-diff: {len(report.stats.remerge_diff_files)} files",
        "",
        "| Protected file | At head |",
        "|---|---|",
        *(
            f"| {_md(p.path)} | {'identical to dev' if p.identical else '**differs from dev**'} |"
            for p in report.protected_files
        ),
        "",
        *_conflict_markdown(report.conflicts),
        *_audit_markdown(report.audit),
        "| # | SHA | Subject | Author | PR | Sign-off | Signed |",
        "|---|---|---|---|---|---|---|",
        *(
            f"| {c.index} | `{c.short_sha}` | {_md(c.subject)} | {_md(c.author_name)} | "
            f"{'#' + str(c.pr) if c.pr else ''} | {c.signoff_mark} | {'yes' if c.signed else ''} |"
            for c in s.commits
        ),
    ]
    return "\n".join(lines) + "\n"


def _audit_markdown(audit: Audit | None) -> list[str]:
    if audit is None:
        return []
    return [
        f"- preservation audit: {_md(judged_line(audit))}; {_md(class_counts(audit))}",
        *(f"  - {_md(block_line(block))}" for block in accident_blocks(audit)),
        "",
    ]


def _conflict_markdown(conflicts: ConflictSet | None) -> list[str]:
    lines = [f"- conflicts: {_md(conflict_summary(conflicts))}", ""]
    if conflicts is None or not conflicts.files:
        return lines
    return [
        *lines,
        "| Conflicted file | Type | Hunks | Resolution at head |",
        "|---|---|---|---|",
        *(
            f"| {_md(c.display_path)} | {c.type} | {len(c.hunks)} | {c.resolution} |"
            for c in conflicts.files
        ),
        "",
    ]
