"""What became of a dev change the result lost: the verdict a maintainer acts on.

The line triage (:mod:`~syncdesk.services.audit.lost_lines`) says what each
lost line *looks like*: removed on main, reformatted, moved, in a hunk taken
as main. This module says what became of the *dev change* behind it. Megatron-LM's
own sync guide is the ground truth here: a resolution that takes main's side
of a hunk is how dev's follow-up work is lost, never by itself the
explanation of a loss. So a lost line of a dev commit is innocent only with
evidence of one of these, tried in this order (:func:`judge`):

1. ``not-a-dev-change``: blame charges it to history dev shares with main
   (a boundary commit of ``git blame MERGE_BASE..DEV``): main removed its own
   older code.
2. ``kept-in-another-form``: the result holds it reformatted, moved to
   another file, moved with its function, or with a name main renamed (the
   line triage's content checks).
3. ``replaced-by-ours``: the sync merge's result still held the line, and our
   commits on top removed it (the evidence names our commit).
4. ``ported-by-main``: a commit of main carries the same change to the same
   file: the same subject, or either message cites the other's pull request
   (main's history is searched, not only the slice: a port older than the
   merge base reached dev through an earlier sync).
5. ``removed-with-main-deletion``: main deleted the file, or the function or
   class holding the line (from the merge base, by name, in main and the
   result alike), or the code on both sides of a line dev inserted (not
   when main wrote most of that code again elsewhere in the file: a move).
6. ``rewritten-by-main``: dev edited base lines that a slice commit also
   changed (the dev line is a version of one of the base lines its own edit
   replaced), or a slice commit removed that very line.
7. ``lost``: everything else, flagged for the maintainer.

Lines of ``by-policy`` files (keep-dev, override-from-main) are judged the
same way: taking main's whole file is how an override loses dev's work (the
guide's own list of accidents has one), so only the evidence above excuses
a line there; such a line is ``lost`` with the policy named.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum


class Verdict(StrEnum):
    """What became of the dev change a lost line belongs to."""

    LOST = "lost"
    SHARED = "not-a-dev-change"
    KEPT = "kept-in-another-form"
    REPLACED = "replaced-by-ours"
    PORTED = "ported-by-main"
    DELETED = "removed-with-main-deletion"
    REWRITTEN = "rewritten-by-main"
    POLICY = "by-policy"


@dataclass(frozen=True, slots=True)
class Judgment:
    """A lost line's verdict, the dev commit that wrote it, and the commit that explains it."""

    verdict: Verdict
    change: str | None = None  # the dev commit that wrote the line (None: not blamed)
    commit: str | None = None  # the commit the evidence names (slice or ours)
    subject: str | None = None  # its subject (untrusted: sanitize to show)
    reason: str = ""  # the evidence in words, without the commit (untrusted parts inside)
    flagged: bool = False  # the maintainer is asked to look at it


_PR_NUMBER = re.compile(r"(?:#|/pull/)(\d{2,7})\b")
# Pull requests named by the word instead: "PR 3890", "PRs (3890, 4071 and 4095)" (a port
# of several dev pull requests lists them so).
_PR_WORD = re.compile(r"\bPRs?\b\s*\(?\s*((?:#?\d{2,7}\b\s*(?:(?:,|and|&)\s*)?)+)", re.IGNORECASE)
_DIGITS = re.compile(r"\d{2,7}")
# Bracketed tags ("[dev]", "[Main][feat]"), pull request numbers and cherry-pick words:
# what differs between dev's commit and main's port of it when the change is the same.
_SUBJECT_NOISE = re.compile(r"\[[^\]]*\]|\(#\d+\)|#\d+|\b(?:cp|cherry[- ]pick(?:ed)?|dev|main)\b:?")
_NOT_A_WORD = re.compile(r"[^0-9a-z]+")
# A subject shorter than this after the noise is gone ("fix", "update") says nothing.
_SUBJECT_LEAST = 12


def pull_requests(message: str) -> frozenset[int]:
    """The pull request numbers a commit message cites (``#123``, ``.../pull/123``,
    ``PR 123``, ``PRs (123, 456)``)."""
    listed = (number for group in _PR_WORD.findall(message) for number in _DIGITS.findall(group))
    return frozenset(int(number) for number in (*_PR_NUMBER.findall(message), *listed))


def subject_key(subject: str) -> str:
    """A subject with its tags, pull request numbers and punctuation gone, for comparing
    dev's commit with main's port of the same change ("" when too short to say anything)."""
    key = _NOT_A_WORD.sub(" ", _SUBJECT_NOISE.sub(" ", subject.lower())).strip()
    return key if len(key) >= _SUBJECT_LEAST else ""


@dataclass(frozen=True, slots=True)
class MainCommit:
    """A commit of main's history, as the ported-by-main test reads it."""

    sha: str
    subject: str
    pulls: frozenset[int]  # the pull requests its message cites
    paths: frozenset[str]  # the files it changed, of those the audit asked about


class Ports:
    """Which commit of main carries a dev commit's change to a file: the same subject, or
    a pull request either message cites, and the file among those it changed.

    main's port may be older than the merge base (it reached dev through an earlier
    sync, and main rewrote it since), so main's history is searched, not only the slice.
    """

    def __init__(self, commits: list[MainCommit]) -> None:
        self._by_subject: dict[str, list[MainCommit]] = {}
        self._by_pull: dict[int, list[MainCommit]] = {}
        for commit in commits:
            key = subject_key(commit.subject)
            if key:
                self._by_subject.setdefault(key, []).append(commit)
            for number in commit.pulls:
                self._by_pull.setdefault(number, []).append(commit)

    def port_of(self, subject: str, message: str, path: str) -> MainCommit | None:
        """The commit of main carrying, in ``path``, the dev commit with ``subject``/``message``."""
        key = subject_key(subject)
        candidates = list(self._by_subject.get(key, ())) if key else []
        for number in sorted(pull_requests(message)):
            candidates += self._by_pull.get(number, ())
        return next((commit for commit in candidates if path in commit.paths), None)
