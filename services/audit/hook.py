"""The real Megatron-LM pre-push audit's raw findings, and how the triage accounts for each.

Megatron-LM's nightly-sync skill runs a preservation audit before every push
that differs from the reference hook (``tests/data/preservation_hook.sh``,
which :func:`~syncdesk.services.audit.lost_lines.raw_findings` reproduces):

- its refs are the newest merge reachable from the head: parent 1 as dev,
  parent 2 as main (:func:`hook_refs`);
- its files are those ``git diff --name-only <dev> HEAD`` lists for a few
  code extensions (``*.py``, ``*.md``, ``*.yaml``, ``*.yml``, ``*.toml``,
  ``*.sh``, ``*.cpp``, ``*.cu``, ``*.h``), minus the override-from-main
  list and the keep-dev files, minus files gone at the head;
- its lines are sets (``sort -u``), and a line counts only if it holds a
  letter, a digit or an underscore (``grep -E '[[:alnum:]_]'``).

:func:`hook_findings` computes exactly that from a snapshot read for those
refs; :meth:`~syncdesk.services.audit.model.Audit.hook_account` says,
for every one of its lines, which triage class the audit gave it (or why
the audit has no such line).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from syncdesk.services.audit.policy import AuditPolicy
from syncdesk.services.git.runner import Git
from syncdesk.services.patterns import listed
from syncdesk.services.sanitize import decode

# A type only: the audit's model imports this module and opening a sync imports the model,
# so the blob readers stay out of the desk's start.
if TYPE_CHECKING:
    from syncdesk.services.audit.sources import Snapshot

# The extensions the skill's ``git diff --name-only`` pathspecs name.
HOOK_EXTENSIONS = ("*.py", "*.md", "*.yaml", "*.yml", "*.toml", "*.sh", "*.cpp", "*.cu", "*.h")


@dataclass(frozen=True, slots=True)
class HookFinding:
    """One line the hook prints under its file's header."""

    path: str
    line: bytes


def hook_refs(git: Git, head: str) -> tuple[str, str] | None:
    """The skill's DEV_REF and MAIN_REF: the newest merge reachable from ``head``'s parents."""
    merge = git.text("rev-list", "--min-parents=2", "--max-count=1", head, "--").strip()
    if not merge:
        return None
    parents = git.lines("rev-parse", f"{merge}^1", f"{merge}^2")
    return parents[0], parents[1]


def hook_findings(
    snapshot: Snapshot, policy: AuditPolicy, extensions: Iterable[str] = HOOK_EXTENSIONS
) -> list[HookFinding]:
    """The hook's output for the refs ``snapshot`` was read with, in path then byte order."""
    patterns = tuple(extensions)
    found: list[HookFinding] = []
    for path in sorted(snapshot.changed):
        change = snapshot.changed[path]
        # git's pathspec glob: '*' crosses '/', so '*.py' names a file at any depth.
        if change.after is None or not listed(path, patterns):
            continue  # gone at the head (``git cat-file -e HEAD:f`` fails), or not code
        if listed(path, policy.keep_dev) or listed(path, policy.override_from_main):
            continue
        main = snapshot.main_side(path)
        if change.before is None or change.before in (main, change.after):
            continue  # no dev lines, or all of them on main's side or at the head
        # difference() takes the other two as they are: no set built for them.
        lost = set(snapshot.lines(change.before)).difference(
            snapshot.lines(main), snapshot.lines(change.after)
        )
        found += (HookFinding(path, line) for line in sorted(lost) if _has_a_word(line))
    return found


def _has_a_word(line: bytes) -> bool:
    """``grep -E '[[:alnum:]_]'`` in a UTF-8 locale: a letter, a digit or an underscore."""
    return any(char.isalnum() or char == "_" for char in decode(line))
