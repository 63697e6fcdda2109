"""Review findings parsed out of review bodies and inline comments.

Review bots and people write findings in many shapes, and a sync maintainer answers
each one by its id across review rounds. The grammar is documented in
``docs/findings.md``; in short:

- a header with the reviewer's id ``F<n>``, ``R<n>`` or ``#<n>`` (``F6 — Title``,
  ``### R07 — Title [IMPORTANT Correctness]``, ``**F1 (CRITICAL) — Title**``,
  ``F3 [minor] ...``, ``<summary>R07 — Title</summary>``), graded by a tag on its
  line or the next one (``[IMPORTANT Compatibility] Failure: ...``);
- a tag with no id (``[CRITICAL Correctness] ...``, ``**[BLOCKING]** ...``,
  ``Nit: ...``): one finding with a generated id;
- each item of a list announced as findings ("Two non-blocking follow-ups:");
- a table row whose id column names a finding, joined by id to its section;
- status hints: ``unresolved prior F6``, ``F9 is fixed``, ``R3 is addressed``,
  ``R3 is superseded by R9``, ``That finding is closed`` (a stub finding for an id
  with no section of its own);
- cited ranges from blob links and from prose (``path:12``, ``path#L3-L9``, a path
  then "line 12"), the latter at the reviewed head;
- a review or inline comment with none of these, and something to act on, is one
  finding holding all of its text (:mod:`~syncdesk.services.review.remark`).

Work grows linearly with the text: a hostile 2 MB review body cannot stall the UI.
Text is kept as GitHub sent it; show it with :mod:`syncdesk.services.sanitize`.

The parts: :mod:`~syncdesk.services.review.reading` (markdown into plain lines),
:mod:`~syncdesk.services.review.grammar` (the line grammar),
:mod:`~syncdesk.services.review.severity` (the one scale),
:mod:`~syncdesk.services.review.scan` (sections of one text),
:mod:`~syncdesk.services.review.tables`, :mod:`~syncdesk.services.review.hints`,
:mod:`~syncdesk.services.review.links` (cited ranges) and
:mod:`~syncdesk.services.review.render` (the command's output). This module merges
the findings of a pull request.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace

from syncdesk.services.github.models import Review, ReviewComment
from syncdesk.services.review.actionable import nothing_to_act_on
from syncdesk.services.review.links import comment_range
from syncdesk.services.review.models import CitedRange, Finding
from syncdesk.services.review.remark import remark
from syncdesk.services.review.scan import Scan, scan_text, section_finding
from syncdesk.services.review.tables import IdRow

_REVIEWER_ID = re.compile(r"(?:[FR]|#)\d+")


@dataclass(frozen=True, slots=True)
class Shape:
    """One shape of finding the grammar reads, with texts written in it."""

    what: str
    examples: tuple[str, ...]


# What ``syncdesk findings`` says it looked for when it finds nothing (each example parses:
# tests/test_findings_grammar.py holds them to it). docs/findings.md has the whole grammar.
SHAPES = (
    Shape(
        "a header with the reviewer's id F<n>, R<n> or #<n>",
        (
            "F3 — Bound the queue",
            "### R07 — Bound the queue [IMPORTANT Correctness]",
            "**F1 (CRITICAL) — Bound the queue**",
            "**F2: Bound the queue** (important)",
            "F3 [minor] Bound the queue.",
            "<details><summary>R07 — Bound the queue</summary>",
        ),
    ),
    Shape(
        "a severity tag, with or without an id",
        (
            "[CRITICAL Correctness] The queue is unbounded.",
            "**[BLOCKING]** The queue is unbounded.",
            "Nit: rename tmp2.",
            "Severity: high",
        ),
    ),
    Shape(
        "a list whose lead-in announces findings",
        ("Two non-blocking follow-ups:\n1. Bound the queue.\n2. Rename tmp2.",),
    ),
    Shape(
        "a table row whose id column names a finding",
        ("| ID | Priority | Title |\n|---|---|---|\n| R07 | Important | Bound the queue |",),
    ),
    Shape(
        "a bold title under a heading that grades it, or with a badge",
        (
            "### 🔴 Critical\n\n**1. Bound the queue** — engine.py:12",
            "**![P1 Badge](https://img.shields.io/badge/P1-orange) Bound the queue**",
        ),
    ),
    Shape(
        "a table row that cites code and says what is wrong",
        ("| Priority | File | Lines | Issue |\n|---|---|---|---|\n| P1 | a.py | 12 | Bound it |",),
    ),
    Shape(
        "a comment under a file's collapsed block, opening with its lines",
        ("<details><summary>engine.py (1)</summary>\n\n`12-14`: Bound the queue here.\n",),
    ),
    Shape(
        "a status hint on an earlier finding",
        ("This is unresolved prior F6.", "F9 is fixed.", "R3 is superseded by R9."),
    ),
    Shape(
        "prose that asks for something (kept whole, as one finding)",
        ("The retry loop in engine.py never backs off after line 88.",),
    ),
)


def parse_text(
    text: str, *, review_id: int | None = None, head: str | None = None
) -> list[Finding]:
    """The findings the grammar recognises in one text, in the order they appear.

    Sections with a reviewer's id keep it; without one, a finding gets
    ``R<review_id>-<n>`` (``T<n>`` when ``review_id`` is None). Status hints set
    ``status`` and make a stub (empty body) for an id that has no section here.
    Ranges cited in prose name commit ``head`` (the reviewed head; None: the local
    head). Prose that follows no shape gives nothing here: see :func:`review_findings`.
    Never raises.
    """
    return _findings(scan_text(text), review_id, head)


def review_findings(
    text: str, *, review_id: int | None = None, head: str | None = None
) -> list[Finding]:
    """The findings of one review body: :func:`parse_text`, and the body as one finding
    when the grammar recognises none and it holds something to act on."""
    scan = scan_text(text)
    findings = _findings(scan, review_id, head)
    if scan.sections or scan.rows:
        return findings
    whole = remark(scan, _generated_prefix(review_id) + "1", review_id, head)
    return findings if whole is None else [*findings, whole]


def _generated_prefix(review_id: int | None) -> str:
    return "T" if review_id is None else f"R{review_id}-"


def _findings(scan: Scan, review_id: int | None, head: str | None) -> list[Finding]:
    generated = 0
    for section in scan.sections:
        if not section.id:
            generated += 1
            section.id = f"{_generated_prefix(review_id)}{generated}"
    found: dict[str, Finding] = {}
    for section in scan.sections:
        finding = section_finding(scan, section, review_id, head)
        old = found.get(finding.id)
        found[finding.id] = finding if old is None else _merge(old, finding)
    first = {section.id: section.start for section in reversed(scan.sections)}
    for finding_id, row in scan.rows.items():
        if finding_id in found:
            found[finding_id] = _with_row(found[finding_id], row, scan)
            first[finding_id] = min(first[finding_id], row.start)
        elif not nothing_to_act_on(row.text):
            found[finding_id] = _row_finding(row, review_id, scan)
            first[finding_id] = row.start
    for finding_id, hint in scan.hints.by_id.items():
        if finding_id not in found:
            stub = Finding(finding_id, "", "", hint.title, "", status=hint.status)
            found[finding_id] = replace(stub, review_id=review_id)
    seen = scan.hints.seen
    first.update({k: v for k, v in seen.items() if k not in first or v < first[k]})
    return sorted(found.values(), key=lambda finding: first[finding.id])


def _with_row(finding: Finding, row: IdRow, scan: Scan) -> Finding:
    """A section's finding with what its table row adds: severity, category, title, status."""
    return replace(
        finding,
        severity=finding.severity or row.severity,
        category=finding.category or row.category,
        title=finding.title or row.title,
        status=finding.status if finding.id in scan.hints.by_id else row.status,
    )


def _row_finding(row: IdRow, review_id: int | None, scan: Scan) -> Finding:
    hint = scan.hints.by_id.get(row.id)
    return Finding(
        id=row.id,
        severity=row.severity,
        category=row.category,
        title=row.title or row.text[:120],
        body=row.text,
        status=hint.status if hint else row.status,
        review_id=review_id,
    )


def finding_from_comment(comment: ReviewComment) -> Finding | None:
    """The finding an inline comment holds, anchored at the lines it comments on.

    The id is the body's own (``F<n>``) if it names one, else ``C<comment id>``. A
    top-level comment with no finding shape is still a finding (a person's remark on
    those lines) unless it has nothing to act on ("Thanks, LGTM"); a reply
    (``in_reply_to_id``) or an empty body is not. Ranges cited in prose name the
    comment's commit. An outdated comment cites its original lines on its original commit.
    """
    if comment.in_reply_to_id is not None or not comment.body.strip():
        return None
    scan = scan_text(comment.body)
    anchor = comment_range(comment)
    own = (anchor,) if anchor is not None else ()
    head = comment.commit_id or comment.original_commit_id or None
    finding: Finding | None
    if scan.sections:
        section = scan.sections[0]
        section.end = max(section.end, scan.sections[-1].end)  # one comment, one finding
        # "[HIGH Correctness] ... This is unresolved prior F4." re-raises F4
        reraised = [key for key, hint in scan.hints.by_id.items() if hint.status == "unresolved"]
        section.id = section.id or (reraised[0] if reraised else f"C{comment.id}")
        finding = section_finding(scan, section, comment.review_id, head)
    elif scan.hints.by_id:
        finding_id, hint = next(iter(scan.hints.by_id.items()))
        finding = Finding(finding_id, "", "", hint.title, "", status=hint.status)
    else:
        finding = remark(scan, f"C{comment.id}", comment.review_id, head)
    if finding is None:
        return None
    return replace(
        finding,
        ranges=_union(own, finding.ranges),
        review_id=comment.review_id,
        comment_ids=(comment.id,),
    )


def collect_findings(reviews: Sequence[Review], comments: Sequence[ReviewComment]) -> list[Finding]:
    """Every finding of a pull request, one per id, merged across review rounds.

    Reviews are read oldest first (by ``submitted_at``), each with
    :func:`review_findings` at the commit it reviewed; each inline comment right
    after the body of its review. A later mention wins for the text, title,
    severity and status; cited ranges and comment ids are unioned. A stub (a bare
    "F9 is closed") never erases a real title, and a later full section with no
    status hint reopens a finding earlier marked closed. Sorted by
    :func:`natural_key`: the reviewers' ids, then the generated ones.
    """
    submitted = {review.id: review.submitted_at for review in reviews}
    events: list[tuple[tuple[str, int, str, int], list[Finding]]] = []
    for review in reviews:
        key = (review.submitted_at, 0, "", review.id)
        found = review_findings(review.body, review_id=review.id, head=review.commit_id)
        events.append((key, found))
    for comment in comments:
        finding = finding_from_comment(comment)
        if finding is not None:
            when = submitted.get(comment.review_id or -1, comment.created_at)
            events.append(((when, 1, comment.created_at, comment.id), [finding]))
    events.sort(key=lambda event: event[0])
    merged: dict[str, Finding] = {}
    for _, findings in events:
        for finding in findings:
            old = merged.get(finding.id)
            merged[finding.id] = finding if old is None else _merge(old, finding)
    return sorted(merged.values(), key=lambda finding: natural_key(finding.id))


def natural_key(finding_id: str) -> tuple[tuple[int, int, str], ...]:
    """Sort key: F1 < F2 < F10 < R1 < #1, and every reviewer's id before the generated ids."""
    reviewers = _REVIEWER_ID.fullmatch(finding_id) is not None
    head = (0, 0, "") if reviewers else (1, 0, "")
    order = {"F": "0", "R": "1", "#": "2"} if reviewers else {}
    parts = (
        (0, int(part), "") if part.isdigit() else (1, 0, order.get(part, part))
        for part in re.split(r"(\d+)", finding_id)
        if part
    )
    return (head, *parts)


def _union(first: Sequence[CitedRange], second: Sequence[CitedRange]) -> tuple[CitedRange, ...]:
    return tuple(dict.fromkeys([*first, *second]))


def _merge(old: Finding, new: Finding) -> Finding:
    """``new`` is a later mention of ``old``'s id."""
    stub = not new.body
    if stub:
        title, severity, category = (
            old.title or new.title,
            old.severity or new.severity,
            old.category or new.category,
        )
        body, status = old.body, new.status or old.status
    else:
        title, severity, category = (
            new.title or old.title,
            new.severity or old.severity,
            new.category or old.category,
        )
        body = new.body
        status = new.status or ("" if old.status == "closed" else old.status)
    return Finding(
        id=old.id,
        severity=severity,
        category=category,
        title=title,
        body=body,
        ranges=_union(old.ranges, new.ranges),
        status=status,
        review_id=new.review_id if new.review_id is not None else old.review_id,
        comment_ids=tuple(dict.fromkeys([*old.comment_ids, *new.comment_ids])),
        written=old.written or new.written,  # the first spelling the reviewer used
    )
