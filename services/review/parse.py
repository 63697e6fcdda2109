"""Review findings parsed out of review bodies and inline comments.

Review bots and people write findings in a few shapes, and a sync maintainer
answers each one by its id across review rounds. This module reads them:

- a header line ``F6 — Title`` (em or en dash, hyphen, colon or period; markdown
  ``###``, ``**...**``, bullets allowed) with the severity tag on a following
  line, ``[IMPORTANT Compatibility] Failure: ...``;
- the tag first, ``[CRITICAL Correctness] F1 — Title``;
- ``Severity: high`` lines and ``(critical, correctness)`` tags;
- text with tags but no ``F<n>`` header: one finding per tag, with a generated id;
- status hints: ``unresolved prior F6`` marks F6 unresolved; ``prior F9's ...
  is resolved``, ``That finding is closed``, ``F9 is fixed``, ``F9: closed``
  mark F9 closed (a stub finding when F9 has no section of its own);
- cited lines from blob links ``https://host/owner/repo/blob/<ref>/<path>#La-Lb``
  anywhere in a finding's text.

Everything is parsed line by line with anchored or bounded patterns, so work
grows linearly with the text: a hostile 2 MB review body cannot stall the UI.
Text is kept as GitHub sent it; show it with :mod:`syncdesk.services.sanitize`.

The work is split by meaning: :mod:`syncdesk.services.review.grammar` (the line grammar:
headers, tags, trailers), :mod:`syncdesk.services.review.scan` (sections and status
hints of one text), :mod:`syncdesk.services.review.links` (cited ranges) and
:mod:`syncdesk.services.review.render` (the JSON and text output). This module merges
the findings of a pull request; every public name stays importable from here.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace

from syncdesk.services.github.models import Review, ReviewComment
from syncdesk.services.review.grammar import first_sentence
from syncdesk.services.review.links import blob_ranges, comment_range
from syncdesk.services.review.models import CitedRange, Finding
from syncdesk.services.review.scan import scan_text, section_finding


def parse_text(text: str, *, review_id: int | None = None) -> list[Finding]:
    """The findings of one review body or comment body, in the order they appear.

    Sections with an ``F<n>`` header keep the reviewer's id; without any such
    header, each severity tag starts a finding ``R<review_id>-<n>`` (``T<n>``
    when ``review_id`` is None). Status hints set ``status`` and make a stub
    (empty body) for an id that has no section here. Never raises.
    """
    scan = scan_text(text)
    prefix = "T" if review_id is None else f"R{review_id}-"
    generated = 0
    for section in scan.sections:
        if not section.id:
            generated += 1
            section.id = f"{prefix}{generated}"
    found: dict[str, Finding] = {}
    for section in scan.sections:
        finding = section_finding(scan, section, review_id)
        old = found.get(finding.id)
        found[finding.id] = finding if old is None else _merge(old, finding)
    for finding_id, hint in scan.hints.items():
        if finding_id not in found:
            stub = Finding(finding_id, "", "", hint.title, "", status=hint.status)
            found[finding_id] = replace(stub, review_id=review_id)
    first = {section.id: section.start for section in reversed(scan.sections)}
    first.update({k: v for k, v in scan.seen.items() if k not in first or v < first[k]})
    return sorted(found.values(), key=lambda finding: first[finding.id])


def finding_from_comment(comment: ReviewComment) -> Finding | None:
    """The finding an inline comment holds, anchored at the lines it comments on.

    The id is the body's ``F<n>`` if it names one, else ``C<comment id>``. A
    top-level comment without any tag is still a finding (a person's remark on
    those lines); a reply (``in_reply_to_id``) or an empty body is not.
    An outdated comment cites its original lines on its original commit.
    """
    if comment.in_reply_to_id is not None or not comment.body.strip():
        return None
    scan = scan_text(comment.body)
    anchor = comment_range(comment)
    own = (anchor,) if anchor is not None else ()
    if scan.sections:
        section = scan.sections[0]
        # "[HIGH Correctness] ... This is unresolved prior F4." re-raises F4
        reraised = [key for key, hint in scan.hints.items() if hint.status == "unresolved"]
        section.id = section.id or (reraised[0] if reraised else f"C{comment.id}")
        finding = section_finding(scan, section, comment.review_id)
    elif scan.hints:
        finding_id, hint = next(iter(scan.hints.items()))
        finding = Finding(finding_id, "", "", hint.title, "", status=hint.status)
    else:
        body = comment.body.strip()
        finding = Finding(f"C{comment.id}", "", "", first_sentence(body), body)
        finding = replace(finding, ranges=tuple(blob_ranges(body, 0, len(body))))
    return replace(
        finding,
        ranges=_union(own, finding.ranges),
        review_id=comment.review_id,
        comment_ids=(comment.id,),
    )


def collect_findings(reviews: Sequence[Review], comments: Sequence[ReviewComment]) -> list[Finding]:
    """Every finding of a pull request, one per id, merged across review rounds.

    Reviews are read oldest first (by ``submitted_at``); each inline comment
    right after the body of its review. A later mention wins for the text,
    title, severity and status; cited ranges and comment ids are unioned. A
    stub (a bare "F9 is closed") never erases a real title, and a later full
    section with no status hint reopens a finding earlier marked closed.
    Sorted F1, F2, ..., F10, then the generated ids.
    """
    submitted = {review.id: review.submitted_at for review in reviews}
    events: list[tuple[tuple[str, int, str, int], list[Finding]]] = []
    for review in reviews:
        key = (review.submitted_at, 0, "", review.id)
        events.append((key, parse_text(review.body, review_id=review.id)))
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
    """Sort key: F1 < F2 < F10, and every ``F<n>`` before the generated ids."""
    head = (0, 0, "") if re.fullmatch(r"F\d+", finding_id) else (1, 0, "")
    parts = (
        (0, int(part), "") if part.isdigit() else (1, 0, part)
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
    )
