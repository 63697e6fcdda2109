"""The pull request side of ``syncdesk report``: the PR and its findings with their origins."""

from __future__ import annotations

from typing import Any

from syncdesk.services.review.models import Origin
from syncdesk.services.review.pull_request import FindingsData
from syncdesk.services.review.reply import label
from syncdesk.services.sanitize import one_line


def findings_json(data: FindingsData) -> dict[str, Any]:
    """``pull_request`` and ``findings`` sections (see ``docs/report-schema.md``).

    Print it with :func:`~syncdesk.services.report.serialize.to_json_text`, which
    sanitises every string; ``one_line`` here only keeps one-line fields on one line.
    """
    pr = data.pr
    findings = []
    for view in data.views:
        finding = view.finding
        decided = data.decision(finding.id)
        ranges = []
        for origin in view.origins:
            cited = origin.range
            ranges.append(
                {
                    "path": one_line(cited.path),
                    "start": cited.start,
                    "end": cited.end,
                    "commit": None if cited.commit is None else one_line(cited.commit),
                    "source": cited.source,
                    "outdated": cited.outdated,
                    "head_start": origin.start,
                    "head_end": origin.end,
                    "origins": {o.value: origin.counts.get(o, 0) for o in Origin},
                    "file_identical_to": origin.file_identical_to,
                    "note": one_line(origin.note),
                }
            )
        findings.append(
            {
                "id": finding.id,
                "severity": finding.severity,
                "category": one_line(finding.category),
                "title": one_line(finding.title),
                "status": finding.status,
                "ranges": ranges,
                "suggested": view.suggested.value,
                "suggested_reason": one_line(view.reason),
                "disposition": (decided.disposition if decided else view.suggested).value,
                "decided": decided is not None,
                "note": decided.note if decided else "",
            }
        )
    return {
        "pull_request": {
            "repo": data.link.target.full_name,
            "number": pr.number,
            "title": one_line(pr.title),
            "head_sha": pr.head_sha,
            "base_ref": one_line(pr.base_ref),
            "local_head": data.local_head,
            "reviews": len(pr.reviews),
            "review_comments": len(pr.review_comments),
            "partial": list(pr.partial),
            "notes": [one_line(note) for note in data.notes],
        },
        "findings": findings,
    }


def findings_text(data: FindingsData) -> str:
    """The same as plain text lines."""
    pr = data.pr
    lines = [
        "",
        f"Pull request #{pr.number} {one_line(pr.title)} ({data.link.target.full_name})",
        f"Findings     {len(data.views)}",
    ]
    for view in data.views:
        finding = view.finding
        lines.append(
            f"  {one_line(finding.id):<6} {one_line(finding.severity):<10} "
            f"{label(data.disposition(view)):<24} {view.summary or '-'}  {one_line(finding.title)}"
        )
    lines += [f"note: {one_line(note)}" for note in data.notes]
    return "\n".join(lines) + "\n"
