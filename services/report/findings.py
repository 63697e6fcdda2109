"""Findings with their origins: the pull request side of ``syncdesk report``, and
``syncdesk findings --repo`` (any review text, traced offline) in the same shapes."""

from __future__ import annotations

from typing import Any

from syncdesk.services.report.facts import ours_json
from syncdesk.services.review.advice import origin_summary
from syncdesk.services.review.models import Origin, RangeOrigin
from syncdesk.services.review.pull_request import FindingsData
from syncdesk.services.review.render import cited_words, finding_line, findings_to_json
from syncdesk.services.review.reply import label
from syncdesk.services.review.trace import Traced
from syncdesk.services.sanitize import one_line
from syncdesk.services.sync.ours import ours_words


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
        findings.append(
            {
                "id": finding.id,
                "label": finding.label,
                "severity": finding.severity,
                "category": one_line(finding.category),
                "title": one_line(finding.title),
                "status": finding.status,
                "ranges": [range_json(origin) for origin in view.origins],
                "suggested": view.suggested.value,
                "suggested_reason": one_line(view.reason),
                "disposition": data.disposition(view).value,
                "decided": decided is not None and decided.decided,
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


def range_json(origin: RangeOrigin) -> dict[str, Any]:
    """One cited range with its blame origin, as the report and ``syncdesk findings`` print it."""
    cited = origin.range
    return {
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


def traced_json(traced: Traced) -> dict[str, Any]:
    """``syncdesk findings --repo --format json``: the parser's document, traced on the head.

    Each finding keeps the parser's keys
    (:func:`~syncdesk.services.review.render.findings_to_json`), its ranges are
    the report's (:func:`range_json`), and it gains ``suggested`` and
    ``suggested_reason``; ``head``, ``ours`` (``anatomy.ours`` of the report) and
    ``notes`` say what it was traced on.
    """
    parsed = findings_to_json([view.finding for view in traced.views])["findings"]
    for entry, view in zip(parsed, traced.views, strict=True):
        entry["ranges"] = [range_json(origin) for origin in view.origins]
        entry["suggested"] = view.suggested.value
        entry["suggested_reason"] = one_line(view.reason)
    return {
        "head": traced.head,
        "ours": ours_json(traced.ours),
        "notes": [one_line(note) for note in traced.notes],
        "findings": parsed,
    }


def traced_text(traced: Traced) -> str:
    """``syncdesk findings --repo``: each finding, its suggestion, its ranges with their origins."""
    lines = [f"Traced on {traced.head[:12]}"]
    if traced.ours is not None:
        lines.append(f"Ours: {ours_words(traced.ours)}")
    lines += [f"note: {one_line(note)}" for note in traced.notes]
    if not traced.views:
        return "\n".join([*lines, "No findings."]) + "\n"
    for view in traced.views:
        lines.append(finding_line(view.finding))
        lines.append(f"    suggested: {label(view.suggested)}: {one_line(view.reason)}")
        for origin in view.origins:
            lines.append(f"    {cited_words(origin.range)}: {_origin_words(origin)}")
    return "\n".join(lines) + "\n"


def _origin_words(origin: RangeOrigin) -> str:
    """``lines 12-20: dev 6 · repair 3; file identical to main; <note>``."""
    parts = []
    if origin.start:
        parts.append(f"lines {origin.start}-{origin.end}: {origin_summary([origin])}")
    if origin.file_identical_to:
        side = "main and dev" if origin.file_identical_to == "both" else origin.file_identical_to
        parts.append(f"file identical to {side}")
    if origin.note:
        parts.append(one_line(origin.note))
    return "; ".join(parts) or "not traced"


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
            f"  {one_line(finding.label):<6} {one_line(finding.severity):<10} "
            f"{label(data.disposition(view)):<24} {view.summary or '-'}  {one_line(finding.title)}"
        )
    lines += [f"note: {one_line(note)}" for note in data.notes]
    return "\n".join(lines) + "\n"
