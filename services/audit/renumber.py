"""An audit's findings numbered in the dev base's files, for the conflict workspace.

When dev was merged into the sync branch afterwards, the audit judges the
newest dev commit the head holds, and numbers its findings in that commit's
files. The workspace shows the sync merge's own conflicts, numbered in the
dev base's files (the merge's first parent): each finding is moved to the
same line there by aligning the two versions of its file. A line that only
the later dev version has (dev wrote it after the sync) has no place in the
merge's hunks: it stays in the report and is left out here.
"""

from __future__ import annotations

from dataclasses import replace

from syncdesk.services.audit.lines import alignment, raw_lines
from syncdesk.services.audit.model import Audit, LostLine, shown_order
from syncdesk.services.git.objects import read_objects
from syncdesk.services.git.runner import Git


def in_dev_base(git: Git, audit: Audit) -> Audit:
    """``audit`` with every finding numbered in the dev base's file (unplaceable ones dropped)."""
    if not audit.dev or audit.dev == audit.dev_base:
        return audit
    paths = sorted({finding.path for finding in audit.findings})
    names = [f"{rev}:{path}" for path in paths for rev in (audit.dev, audit.dev_base)]
    found = read_objects(git, names)
    moved: list[LostLine] = []
    for path in paths:
        judged, base = (found.get(f"{rev}:{path}") for rev in (audit.dev, audit.dev_base))
        if judged is None or base is None or judged.content is None or base.content is None:
            continue
        placed = alignment(raw_lines(judged.content), raw_lines(base.content), exact=False)
        for finding in audit.in_file(path):
            at = placed.get(finding.line - 1)
            if at is not None:
                block = placed.get(finding.block - 1) if finding.block else None
                numbered = None if block is None else block + 1
                moved.append(replace(finding, line=at + 1, block=numbered))
    moved.sort(key=shown_order)
    return replace(audit, findings=tuple(moved))
