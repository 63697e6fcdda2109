"""The breakage of a sync's result, linked to the lost dev changes that explain it.

:mod:`~syncdesk.services.audit.breakage` finds what the result breaks (names
used and defined nowhere, imports of names a module lost, calls that no
longer fit their callee); this picks the files to check and says which lost
dev change each breakage comes from: the one whose flagged lines name the
broken name (a lost parameter a caller still passes, a lost import whose name
is still used). A breakage no lost change explains is shown all the same:
main's caller meeting dev's callee with another signature loses no dev line.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace

from syncdesk.services.audit.breakage import find_breakage
from syncdesk.services.audit.model import Audit, DevChange, LinkedBreakage
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
    found = find_breakage(
        paths, GitTree(git, audit.head), GitTree(git, dev), GitTree(git, audit.slice_tip)
    )
    linked = tuple(LinkedBreakage(broken, _explained_by(audit.changes, broken.name))
                   for broken in found)  # fmt: skip
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
