"""A review that follows no finding grammar, kept whole as one finding.

A person's review is often prose: one concern, a question, two sentences about a file
and a line. When a review body or an inline comment holds no finding the grammar
recognises (no header, tag, announced list or id row), :func:`remark` makes the whole
text one finding, so that nothing a reviewer wrote is dropped: its title is its first
sentence that is not an approval, its severity the one its words give ("a blocking
issue", "(minor)"), its ranges every link and prose citation in it. A text with
nothing to act on (:mod:`~syncdesk.services.review.actionable`: an approval, thanks, a
bot command) is no finding. Lines that only carry status hints ("F4 is fixed") do
not count as a remark's words: the hint already says it.
"""

from __future__ import annotations

import re

from syncdesk.services.review.actionable import nothing_to_act_on, without_approvals
from syncdesk.services.review.grammar import clean_title, first_sentence, sentences, tag_in
from syncdesk.services.review.models import Finding
from syncdesk.services.review.reading import Line
from syncdesk.services.review.scan import Scan, section_ranges
from syncdesk.services.review.severity import prose_severity

_MAX_TITLE = 120
_ALERT = re.compile(r"\[!\w{1,20}\]")  # GitHub's "> [!NOTE]" callout marker


def remark(
    scan: Scan, finding_id: str, review_id: int | None, head: str | None = None
) -> Finding | None:
    """The whole text of ``scan`` as one finding ``finding_id``; None if nothing to act on."""
    lines = [
        line
        for index, line in enumerate(scan.reading.lines)
        if line.plain and index not in scan.hints.lines
    ]
    words = "\n".join(line.plain for line in lines)
    words += "\n" + scan.text[scan.reading.extent :]  # past what was read as markdown, if any
    if nothing_to_act_on(words):
        return None
    return Finding(
        id=finding_id,
        severity=tag_in(words[:2000]) or prose_severity(without_approvals(words[:4000])),
        category="",
        title=_title(lines) or first_sentence(words),
        body=scan.text.strip(),
        ranges=section_ranges(scan, 0, len(scan.text), head),
        review_id=review_id,
    )


def _title(lines: list[Line]) -> str:
    """The first sentence that asks for something (not "Thanks, looks good")."""
    for line in lines[:50]:
        for sentence in sentences(line.plain[:2000]):
            if not nothing_to_act_on(sentence) and not _ALERT.fullmatch(sentence):
                title = clean_title(sentence)
                if len(title) > _MAX_TITLE:
                    return title[: _MAX_TITLE - 1].rstrip() + "…"
                return title
    return ""
