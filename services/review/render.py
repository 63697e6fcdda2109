"""Findings as the ``syncdesk findings`` command prints them: JSON or a text listing.

The text listing makes every string a review supplied visible with
:func:`~syncdesk.services.sanitize.one_line` (terminal controls and line breaks shown,
never obeyed). The JSON document is printed by
:func:`~syncdesk.services.report.serialize.to_json_text`, which sanitises every string;
``one_line`` there only keeps the one-line fields (category, title, path, commit) on one line.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from syncdesk.services.review.models import CitedRange, Finding
from syncdesk.services.review.parse import SHAPES
from syncdesk.services.sanitize import one_line


def findings_to_json(findings: Sequence[Finding]) -> dict[str, Any]:
    """The ``syncdesk findings --format json`` document, to print with ``to_json_text``."""
    return {
        "findings": [
            {
                "id": finding.id,
                "label": finding.label,
                "severity": finding.severity,
                "level": finding.level.value,
                "category": one_line(finding.category),
                "title": one_line(finding.title),
                "ranges": [
                    {
                        "path": one_line(cited.path),
                        "start": cited.start,
                        "end": cited.end,
                        "commit": None if cited.commit is None else one_line(cited.commit),
                    }
                    for cited in finding.ranges
                ],
                "status": finding.status,
            }
            for finding in findings
        ]
    }


def findings_to_text(findings: Sequence[Finding]) -> str:
    """A readable listing: one line per finding, then its cited ranges, all made visible."""
    if not findings:
        return "No findings.\n"
    out: list[str] = []
    for finding in findings:
        out.append(finding_line(finding))
        out.extend(f"    {cited_words(cited)}" for cited in finding.ranges)
    return "\n".join(out) + "\n"


def finding_line(finding: Finding) -> str:
    """``F3 [IMPORTANT Correctness] (unresolved) Title``, every part made visible."""
    tag = " ".join(part for part in (finding.severity, finding.category) if part)
    line = one_line(finding.label) + (f" [{one_line(tag)}]" if tag else "")
    line += f" ({finding.status})" if finding.status else ""
    return f"{line} {one_line(finding.title)}".rstrip()


def cited_words(cited: CitedRange) -> str:
    """``path:12-20 at 1a2b3c4d5e6f (outdated)``, every part made visible."""
    where = f"{one_line(cited.path)}:{cited.start}-{cited.end}"
    if cited.commit:
        where += f" at {one_line(cited.commit[:12])}"
    if cited.side == "LEFT":
        where += " (base side)"
    if cited.outdated:
        where += " (outdated)"
    return where


def shapes_looked_for() -> str:
    """What ``syncdesk findings`` says when a text holds no finding: the shapes it reads."""
    out = ["No finding in this text. Looked for (docs/findings.md has the grammar):"]
    for shape in SHAPES:
        out.append(f"  {shape.what}:")
        out.extend(f"      {example.replace(chr(10), ' / ')}" for example in shape.examples)
    out.append("An approval, thanks or a bot command alone is no finding.")
    return "\n".join(out) + "\n"
