"""The breakage of a sync's result, linked to the lost dev changes that explain it.

:mod:`~syncdesk.services.audit.breakage` finds what the result breaks (names
used and defined nowhere, imports of names a module lost, calls that no
longer fit their callee); this picks the files to check and says which lost
dev change each breakage comes from: the one whose flagged lines name the
broken name (a lost parameter a caller still passes, a lost import whose name
is still used). A breakage no lost change explains is shown all the same:
main's caller meeting dev's callee with another signature loses no dev line. A call
that no longer fits its callee is also explained by a lost change with flagged lines
inside that callee on dev (a lost parameter).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace

from syncdesk.services.audit.breakage import find_breakage
from syncdesk.services.audit.lines import raw_lines
from syncdesk.services.audit.model import Audit, Breakage, BreakageKind, DevChange, LinkedBreakage
from syncdesk.services.audit.names import outline
from syncdesk.services.audit.tree import GitTree
from syncdesk.services.git.runner import Git


def with_breakage(git: Git, audit: Audit, conflicted: Sequence[str]) -> Audit:
    """``audit`` with the breakage of the result's Python files where the resolution
    decided (the ``conflicted`` ones) and of those with flagged lines, linked to lost dev
    changes, and those changes ranked first.

    Every Python file both sides changed would catch more (main's caller in a cleanly
    merged file), but on 13_08 that took 23 s and 650 MB: parsing the modules they import
    is the cost (services/audit/resolve.py)."""
    dev = audit.dev or audit.dev_base
    flagged = {line.path for line in audit.accidents}
    wanted = {*conflicted, *flagged}
    paths = sorted(path for path in wanted if path.endswith(".py"))
    if not paths:
        return replace(audit, breakage_checked=True)
    dev_tree = GitTree(git, dev)
    found = find_breakage(paths, GitTree(git, audit.head), dev_tree, GitTree(git, audit.slice_tip))
    holders = _Holders(dev_tree)
    linked = tuple(
        LinkedBreakage(
            broken,
            _explained_by(audit.changes, broken.name) or _in_callee(audit.changes, broken, holders),
        )
        for broken in found
    )
    broken_changes = {id(link.change) for link in linked if link.change is not None}
    # A change with breakage first: the strongest evidence there is (stable sort).
    ranked = sorted(audit.changes, key=lambda change: id(change) not in broken_changes)
    return replace(audit, breakage=linked, changes=tuple(ranked), breakage_checked=True)


def _explained_by(changes: tuple[DevChange, ...], name: str) -> DevChange | None:
    """The first lost dev change whose flagged lines name ``name`` as a whole word."""
    word = re.compile(rb"(?<![\w])" + re.escape(name.encode()) + rb"(?![\w])")
    for change in changes:
        if any(word.search(line.raw) for line in change.flagged):
            return change
    return None


# The breakage of a call against its callee's signature: a lost parameter explains it.
_CALL_KINDS = frozenset(
    {BreakageKind.UNKNOWN_KEYWORD, BreakageKind.TOO_MANY_POSITIONAL, BreakageKind.MISSING_ARGUMENT}
)


class _Holders:
    """For each dev line of a file, the function or class holding it (read on first ask)."""

    def __init__(self, dev: GitTree) -> None:
        self._dev = dev
        self._known: dict[str, list[bytes | None]] = {}

    def of(self, path: str) -> list[bytes | None]:
        if path not in self._known:
            data = self._dev.read([path]).get(path, b"")
            self._known[path] = outline(raw_lines(data))
        return self._known[path]


def _in_callee(
    changes: tuple[DevChange, ...], broken: Breakage, holders: _Holders
) -> DevChange | None:
    """For a call that no longer fits its callee, the first lost dev change with flagged
    lines inside that callee on dev (a lost parameter: the guide's ``num_sms`` accident,
    where main's caller passes one positional more than the result's function takes)."""
    if broken.kind not in _CALL_KINDS or not broken.callee or ":" not in broken.callee:
        return None
    path, qualname = broken.callee.rsplit(":", 1)
    function = qualname.rsplit(".", 1)[-1].encode()
    for change in changes:
        for line in change.flagged:
            if line.path != path:
                continue
            held = holders.of(path)
            if 0 < line.line <= len(held) and held[line.line - 1] == function:
                return change
    return None
