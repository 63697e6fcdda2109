"""The lost lines grouped by the dev change behind them: what each dev commit kept and lost.

A maintainer thinks "dev PR #4318's class is gone, its config flag and test
are still here", not "line 1112 is missing". The verdicts already carry the
dev commit that wrote each line (blame over dev's own history); this groups
them by that commit and file.
"""

from __future__ import annotations

from collections.abc import Iterable

from syncdesk.services.audit.evidence import Evidence
from syncdesk.services.audit.model import ChangeInFile, DevChange, LostLine
from syncdesk.services.audit.verdicts import Verdict, pull_requests


def dev_changes(evidence: Evidence, findings: Iterable[LostLine]) -> tuple[DevChange, ...]:
    """The dev changes the result lost lines of, ranked: the most flagged lines first,
    then the most lost lines. Lines of shared history are no dev change and are left out."""
    lost: dict[str, dict[str, list[LostLine]]] = {}
    for finding in findings:
        judged = finding.judgment
        if judged is None or judged.change is None or judged.verdict is Verdict.SHARED:
            continue
        lost.setdefault(judged.change, {}).setdefault(finding.path, []).append(finding)
    changes = []
    for sha, by_path in lost.items():
        files = tuple(
            ChangeInFile(path, tuple(sorted(lines, key=lambda line: line.line)))
            for path, lines in sorted(by_path.items())
        )  # fmt: skip
        author = evidence.author(files[0].path, files[0].lost[0].line)
        subject = author.summary if author is not None else ""
        pulls = tuple(sorted(pull_requests(evidence.messages.get(sha, subject))))
        changes.append(DevChange(sha, subject, pulls, files))
    changes.sort(key=lambda change: (-len(change.flagged), -change.lost_count, change.sha))
    return tuple(changes)
