"""The lost dev changes as the workspace lists them, and a whole change put back in a file.

The audit groups the lines the result lost by the dev commit that wrote them
(:class:`~syncdesk.services.audit.model.DevChange`): "dev PR #4318's class is
gone", not "line 1112 is missing". The workspace lists the changes with
flagged lines, ranked the way a maintainer should read them: a change whose
loss breaks the result first (a caller passing a lost keyword, a name used
after its import was lost), then by how many lines it lost. One key puts a
whole change back in one conflicted file
(:func:`~syncdesk.services.workspace.accidents.restore_outside` puts its
lines back); the preview shows :func:`restore_diff`.

The workspace's audit is numbered in the dev base's files
(:func:`~syncdesk.services.audit.renumber.in_dev_base`), so a change's lines
are read from the audit's findings, not from the change's own copies (which
keep the numbering of the dev version judged).
"""

from __future__ import annotations

import difflib
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass

from syncdesk.services.audit.model import Audit, Breakage, DevChange, LostLine


@dataclass(frozen=True, slots=True)
class ChangeFile:
    """One file of a lost dev change: its flagged lines, and whether the desk can restore
    them (only a conflicted file has decisions; another file is fixed by hand)."""

    path: str
    flagged: tuple[LostLine, ...]  # in line order, numbered in the dev base's file
    conflicted: bool


@dataclass(frozen=True, slots=True)
class LostChange:
    """A dev change the result lost flagged lines of, with the breakage it explains."""

    change: DevChange
    files: tuple[ChangeFile, ...]  # conflicted files first, then by path
    breakage: tuple[Breakage, ...]

    @property
    def flagged_count(self) -> int:
        """How many of its lines the maintainer is asked to look at, in every file."""
        return sum(len(part.flagged) for part in self.files)


def lost_changes(
    audit: Audit, conflicted: Collection[str], missing: Mapping[str, Sequence[LostLine]]
) -> tuple[LostChange, ...]:
    """The dev changes with flagged lines, ranked: the most breakage first, then the most
    flagged lines, then the most lost lines (a tie keeps the audit's order).

    The audit judged the head; ``missing`` holds, for the files the maintainer has
    decided in since, the flagged lines their current result still lacks: a change
    restored there is no longer listed for that file.
    """
    broken: dict[str, list[Breakage]] = {}
    for link in audit.breakage:
        if link.change is not None:
            broken.setdefault(link.change.sha, []).append(link.breakage)
    flagged: dict[str, dict[str, list[LostLine]]] = {}
    for finding in audit.accidents:
        still = missing.get(finding.path)
        if still is not None and finding not in still:
            continue
        judged = finding.judgment
        if judged is not None and judged.change is not None:
            flagged.setdefault(judged.change, {}).setdefault(finding.path, []).append(finding)
    found = []
    for change in audit.changes:
        by_path = flagged.get(change.sha)
        if not by_path:
            continue  # every line of it is explained: ported, replaced, removed with main's
        files = tuple(
            sorted(
                (
                    ChangeFile(path, tuple(sorted(lines, key=lambda f: f.line)), path in conflicted)
                    for path, lines in by_path.items()
                ),
                key=lambda part: (not part.conflicted, part.path),
            )
        )
        found.append(LostChange(change, files, tuple(broken.get(change.sha, ()))))
    found.sort(key=lambda lost: (-len(lost.breakage), -lost.flagged_count, -lost.change.lost_count))
    return tuple(found)


def change_of(finding: LostLine) -> str | None:
    """The dev commit that wrote a lost line (None: not judged, or no dev change)."""
    return finding.judgment.change if finding.judgment is not None else None


def restore_diff(path: str, before: Sequence[str], after: Sequence[str]) -> str:
    """What a restore changes in the file, as a unified diff with three lines of context."""
    return "".join(
        line if line.endswith("\n") else line + "\n"
        for line in difflib.unified_diff(
            list(before), list(after), f"a/{path} (now)", f"b/{path} (restored)", lineterm=""
        )
    )
