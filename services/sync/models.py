"""The facts syncdesk states about a sync, as plain frozen dataclasses.

No GitPython or PyGithub object crosses into the UI: services convert at once.
All text fields that came from the repository are already sanitized
(:func:`syncdesk.services.sanitize.visible`), so any consumer can show them as text.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from syncdesk.services.audit.model import Audit
from syncdesk.services.conflicts.models import Attribution, ConflictSet
from syncdesk.services.sync.ours import Ours


@dataclass(frozen=True, slots=True)
class Person:
    """A commit's author or committer."""

    name: str
    email: str


@dataclass(frozen=True, slots=True)
class SliceCommit:
    """One main commit of the slice."""

    index: int  # 1-based position in the slice (1 = oldest)
    sha: str
    subject: str
    author_name: str
    author_email: str
    date: str  # author date, ISO 8601 strict
    committer_name: str
    committer_email: str
    pr: int | None  # from a "(#1234)" subject suffix
    signoffs: tuple[str, ...]  # the Signed-off-by trailer values
    signed_off: bool
    signoff_matches_author: bool  # the DCO app's rule: author's or committer's name and email
    signed: bool  # the commit object carries a gpgsig header (never verified with gpg)
    is_merge: bool  # main is linear in practice; a merge in the slice is reported

    @property
    def short_sha(self) -> str:
        return self.sha[:8]

    @property
    def signoff_mark(self) -> str:
        """``✓`` the DCO app accepts it, ``≠`` signed off by someone else, ``✗`` none."""
        if self.signoff_matches_author:
            return "✓"
        return "≠" if self.signed_off else "✗"


@dataclass(frozen=True, slots=True)
class Slice:
    """The oldest ``size`` commits of ``dev_base..main``, in first-parent order.

    With a sync merge, ``size`` is what it imported (its parent 2's place on
    main's line) and ``expected`` the configured size, the bot's usual; without
    one, the configured size picks the slice and the two are equal.
    """

    dev_base: str
    main_tip: str
    size: int
    commits: tuple[SliceCommit, ...]
    remaining: int  # commits of dev_base..main after the slice
    expected: int = 0  # the configured slice size (0: the same as ``size``)
    imported: bool = False  # True: read from the sync merge's parent 2

    @property
    def usual(self) -> int:
        """The configured size the bot usually imports."""
        return self.expected or self.size

    @property
    def tip(self) -> str | None:
        return self.commits[-1].sha if self.commits else None


@dataclass(frozen=True, slots=True)
class Problem:
    """One violation of the sync branch's anatomy."""

    code: str
    message: str


@dataclass(frozen=True, slots=True)
class Anatomy:
    """The shape of a sync branch: slice + one merge + at most one repair."""

    head: str
    merge: str | None
    dev_base: str | None
    slice_tip: str | None
    slice_position: int | None  # 1-based position of parent 2 in dev_base..main
    repair: str | None  # the single commit on top of the merge, if the shape allows one
    on_top: tuple[str, ...]  # every first-parent commit after the merge, oldest first
    problems: tuple[Problem, ...]
    # Which commits above the merge are ours and which dev's (services/sync/ours.py);
    # None without a sync merge, or when it was not asked for.
    ours: Ours | None = None

    @property
    def ok(self) -> bool:
        return not self.problems

    @property
    def codes(self) -> tuple[str, ...]:
        return tuple(problem.code for problem in self.problems)


@dataclass(frozen=True, slots=True)
class CommitSummary:
    """A commit named in a list (dev's new commits, say)."""

    sha: str
    subject: str
    author_name: str
    date: str


@dataclass(frozen=True, slots=True)
class DevAdvanced:
    """What dev did since the dev base, and whether it merges into the head cleanly."""

    dev_tip: str
    commits: tuple[CommitSummary, ...]
    merges_cleanly: bool | None  # None when there is nothing to merge


@dataclass(frozen=True, slots=True)
class ProtectedFile:
    """A keep-dev path compared between the head and the dev base."""

    path: str
    identical: bool
    at_head: str | None  # blob id, None when absent
    at_dev_base: str | None


@dataclass(frozen=True, slots=True)
class FileStat:
    """Lines added and deleted in one file (None for binary files)."""

    path: str
    added: int | None
    deleted: int | None


@dataclass(frozen=True, slots=True)
class Stats:
    """Python line stats from the dev base to the head, and the remerge-diff file list."""

    python_added: int
    python_deleted: int
    python_files: int
    remerge_diff_files: tuple[str, ...]

    @property
    def python_summary(self) -> str:
        files = "file" if self.python_files == 1 else "files"
        return f"+{self.python_added} / -{self.python_deleted} across {self.python_files} {files}"


@dataclass(frozen=True, slots=True)
class CommitDetails:
    """Everything the commit view shows about one commit."""

    sha: str
    parents: tuple[str, ...]
    author: Person
    author_date: str
    committer: Person
    committer_date: str
    message: str
    signed: bool
    files: tuple[FileStat, ...]

    @property
    def added(self) -> int:
        return sum(f.added or 0 for f in self.files)

    @property
    def deleted(self) -> int:
        return sum(f.deleted or 0 for f in self.files)


@dataclass(frozen=True, slots=True)
class SyncRefs:
    """The refs a report is about, as the user named them and as they resolved."""

    head_name: str
    head: str
    dev_name: str
    dev: str
    main_name: str
    main: str
    # The branch the head's name stands for (``HEAD`` on a branch, ``origin/x``):
    # services/git/branches.py; None for a detached HEAD, a SHA or a tag.
    branch: str | None = None


@dataclass(frozen=True, slots=True)
class SyncReport:
    """All the facts of issue 2's report, for the CLI and the Slice screen."""

    repo: str
    refs: SyncRefs
    slice: Slice
    anatomy: Anatomy
    dev_advanced: DevAdvanced
    protected_files: tuple[ProtectedFile, ...]
    stats: Stats
    warnings: tuple[str, ...] = field(default=())
    # None when there is nothing to merge (no sync merge and an empty slice).
    conflicts: ConflictSet | None = None
    attribution: Attribution | None = None
    audit: Audit | None = None
