"""The pull request of a sync as syncdesk reads it from GitHub: plain frozen dataclasses.

:mod:`syncdesk.services.github.api` fills them from the REST API (through PyGithub);
the sandbox serves the same shapes. Text fields hold what GitHub sent,
untouched: show them with :func:`syncdesk.services.sanitize.visible` or ``one_line``.
Ids are GitHub's integers; commit ids are full SHAs where GitHub gives them.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class PrCommit:
    """One commit of the pull request, with GitHub's signature verification."""

    sha: str
    message: str
    author_name: str
    author_email: str
    committer_name: str
    committer_email: str
    author_login: str | None  # the GitHub account, when GitHub matched one
    verified: bool | None = None  # None: GitHub sent no verification object
    verification_reason: str = ""  # "valid", "unsigned", "unknown_key", ...
    parents: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Review:
    """A submitted review: its body may hold many findings."""

    id: int
    user: str
    state: str  # COMMENTED, APPROVED, CHANGES_REQUESTED, DISMISSED, PENDING
    body: str
    commit_id: str | None
    submitted_at: str  # ISO 8601, "" when GitHub sent none
    html_url: str = ""


@dataclass(frozen=True, slots=True)
class ReviewComment:
    """An inline comment on the diff (a thread's top comment, or a reply to one).

    ``line`` is None when the comment is outdated (its lines are gone from the
    current diff); ``original_line`` still says where it was on
    ``original_commit_id``. ``start_line`` is set for a multi-line comment.
    """

    id: int
    review_id: int | None
    user: str
    body: str
    path: str
    line: int | None
    start_line: int | None
    side: str | None  # "RIGHT" (the head) or "LEFT" (the base)
    start_side: str | None
    commit_id: str
    original_commit_id: str
    original_line: int | None
    original_start_line: int | None
    in_reply_to_id: int | None
    diff_hunk: str
    created_at: str
    html_url: str = ""

    @property
    def outdated(self) -> bool:
        """The comment no longer anchors to a line of the current diff."""
        return self.line is None


@dataclass(frozen=True, slots=True)
class IssueComment:
    """A comment on the pull request's conversation."""

    id: int
    user: str
    body: str
    created_at: str
    html_url: str = ""


@dataclass(frozen=True, slots=True)
class CheckRun:
    """A check run on the head commit."""

    id: int
    name: str
    status: str  # queued, in_progress, completed, ...
    conclusion: str | None  # success, failure, action_required, skipped, ... (None: not done)
    title: str
    summary: str
    app_slug: str
    html_url: str
    details_url: str
    started_at: str
    completed_at: str


@dataclass(frozen=True, slots=True)
class CommitStatus:
    """A commit status (the older API: DCO fallbacks, codecov/patch, CI bots)."""

    id: int
    context: str
    state: str  # error, failure, pending, success
    description: str
    target_url: str
    created_at: str


@dataclass(frozen=True, slots=True)
class PullRequest:
    """Everything syncdesk reads of a sync pull request.

    ``partial`` names the lists that could not be read whole (a page failed,
    or a limit was reached): what is there is right, but something is missing.
    """

    number: int
    title: str
    body: str
    user: str
    state: str
    merged: bool
    head_ref: str
    head_sha: str
    base_ref: str
    base_sha: str
    html_url: str
    labels: tuple[str, ...] = ()
    commits: tuple[PrCommit, ...] = ()
    reviews: tuple[Review, ...] = ()
    review_comments: tuple[ReviewComment, ...] = ()
    issue_comments: tuple[IssueComment, ...] = ()
    check_runs: tuple[CheckRun, ...] = ()
    statuses: tuple[CommitStatus, ...] = ()
    partial: tuple[str, ...] = ()
