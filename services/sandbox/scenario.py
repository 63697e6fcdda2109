"""What the sandbox serves: plain dataclasses holding the store's initial content.

A :class:`Scenario` is data only. The server copies it into its store at start,
so a scenario can be reused by several sandboxes (each starts from the same
state). Every API payload is derived from it by the builders; nothing here
knows about URLs or JSON shapes.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

EPOCH = "2025-01-06T09:00:00Z"


@dataclass(slots=True)
class GitPerson:
    """A git identity with its timestamp (ISO 8601, UTC), and the GitHub login it maps to."""

    name: str
    email: str
    date: str = EPOCH
    login: str | None = None  # None: GitHub could not map the email to an account


@dataclass(slots=True)
class Verification:
    """GitHub's reading of a commit signature (REST ``commit.verification``)."""

    verified: bool = False
    reason: str = "unsigned"  # valid, unsigned, unknown_key, bad_email, ...
    signature: str | None = None
    payload: str | None = None
    verified_at: str | None = None


@dataclass(slots=True)
class CheckRunSpec:
    """One check run on a commit (the Checks API), e.g. the DCO app's ``DCO`` run."""

    name: str
    status: str = "completed"  # queued | in_progress | completed | ...
    conclusion: str | None = (
        None  # success | failure | action_required | ... (None unless completed)
    )
    title: str | None = None
    summary: str | None = None
    text: str | None = None
    app_slug: str = "github-actions"
    app_name: str = "GitHub Actions"
    details_url: str | None = None
    started_at: str = EPOCH
    completed_at: str | None = None
    id: int = 0  # 0: assigned by the store


@dataclass(slots=True)
class StatusSpec:
    """One legacy commit status (the Statuses API), e.g. ``codecov/patch``."""

    context: str
    state: str  # error | failure | pending | success
    description: str | None = None
    target_url: str | None = None
    creator: str = "codecov[bot]"
    created_at: str = EPOCH
    id: int = 0


@dataclass(slots=True)
class CommitSpec:
    """A commit as GitHub knows it: the git object's fields plus checks and statuses."""

    sha: str
    message: str
    author: GitPerson
    committer: GitPerson
    parents: list[str] = field(default_factory=list)
    tree: str = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"
    verification: Verification = field(default_factory=Verification)
    check_runs: list[CheckRunSpec] = field(default_factory=list)
    statuses: list[StatusSpec] = field(default_factory=list)


@dataclass(slots=True)
class ReviewSpec:
    """A submitted pull request review (its summary body)."""

    id: int
    user: str
    body: str
    commit_id: str
    state: str = "COMMENTED"  # APPROVED | CHANGES_REQUESTED | COMMENTED | DISMISSED
    submitted_at: str = EPOCH


@dataclass(slots=True)
class ReviewCommentSpec:
    """An inline review comment. ``line`` None means outdated (GitHub's ``line: null``)."""

    id: int
    user: str
    body: str
    path: str
    commit_id: str
    original_commit_id: str
    line: int | None
    original_line: int
    start_line: int | None = None
    original_start_line: int | None = None
    side: str = "RIGHT"
    start_side: str | None = None
    review_id: int | None = None
    in_reply_to_id: int | None = None
    diff_hunk: str = "@@ -1 +1 @@"
    subject_type: str = "line"
    created_at: str = EPOCH
    updated_at: str | None = None


@dataclass(slots=True)
class IssueCommentSpec:
    """A pull request conversation comment (the Issues API)."""

    id: int
    user: str
    body: str
    created_at: str = EPOCH
    updated_at: str | None = None


@dataclass(slots=True)
class LabelSpec:
    """A repository label."""

    name: str
    color: str = "ededed"
    description: str | None = None
    id: int = 0


@dataclass(slots=True)
class PullSpec:
    """A pull request and everything hanging off it."""

    number: int
    title: str
    body: str
    user: str
    head_ref: str
    head_sha: str
    base_ref: str
    base_sha: str
    commits: list[str] = field(default_factory=list)  # SHAs, oldest first
    labels: list[str] = field(default_factory=list)
    reviews: list[ReviewSpec] = field(default_factory=list)
    review_comments: list[ReviewCommentSpec] = field(default_factory=list)
    issue_comments: list[IssueCommentSpec] = field(default_factory=list)
    resolved_threads: list[int] = field(default_factory=list)  # top-level comment ids
    state: str = "open"
    merged: bool = False
    merged_by: str | None = None
    merge_commit_sha: str | None = None
    created_at: str = EPOCH
    updated_at: str = EPOCH
    closed_at: str | None = None
    merged_at: str | None = None
    additions: int = 0
    deletions: int = 0
    changed_files: int = 0


@dataclass(slots=True)
class CodecovLine:
    """One line of a Codecov file comparison (coverage: 0 hit, 1 miss, 2 partial, None)."""

    number: int
    value: str
    coverage: int | None
    added: bool = True


@dataclass(slots=True)
class CodecovFile:
    """A file of a Codecov comparison, with its diff lines."""

    path: str
    lines: list[CodecovLine] = field(default_factory=list)
    base_coverage: float = 80.0
    head_coverage: float = 78.0


@dataclass(slots=True)
class CodecovSpec:
    """Codecov's comparison of a pull request (API v2 ``compare/?pullid=``)."""

    pullid: int
    base_commit: str
    head_commit: str
    patch_hits: int
    patch_misses: int
    patch_partials: int
    target: float = 80.0
    base_coverage: float = 81.2
    head_coverage: float = 80.9
    files: list[CodecovFile] = field(default_factory=list)
    state: str = "open"
    title: str = ""
    author: str = ""
    ci_passed: bool | None = None

    @property
    def patch_coverage(self) -> float:
        """``hits / (hits + misses + partials) * 100``, rounded to 2 places as Codecov does."""
        total = self.patch_hits + self.patch_misses + self.patch_partials
        return round(100.0 * self.patch_hits / total, 2) if total else 0.0


@dataclass(slots=True)
class FaultSpec:
    """An injected failure: the next ``times`` requests matching answer ``status``.

    ``path`` is a regular expression searched in the request path relative to
    the API root (``/repos/o/r/...``, whatever the base URL shape). With
    ``apply`` a write is carried out first and *then* answered with the fault
    (an ambiguous failure: the comment exists, the client saw a 502).
    With ``delay`` the server first waits that long (status 0: then it answers
    normally, as a slow server does).
    """

    method: str
    path: str
    status: int
    times: int = 1
    headers: dict[str, str] | None = None
    body: Any = None
    apply: bool = False
    # Seconds the server waits before handling the request (a slow server, whose
    # POST may be stored after the client gave up); with ``status`` 0 it then
    # answers normally.
    delay: float = 0.0


@dataclass(slots=True)
class UserSpec:
    """A GitHub account the scenario mentions (logins not listed get defaults)."""

    login: str
    name: str | None = None
    email: str | None = None


@dataclass(slots=True)
class Scenario:
    """The whole initial content of a sandbox."""

    owner: str
    name: str
    web_url: str = "https://github.com"
    default_branch: str = "main"
    description: str | None = None
    viewer: str = "maintainer"
    users: list[UserSpec] = field(default_factory=list)
    labels: list[LabelSpec] = field(default_factory=list)
    branches: dict[str, str] = field(default_factory=dict)  # name -> sha
    commits: list[CommitSpec] = field(default_factory=list)
    pulls: list[PullSpec] = field(default_factory=list)
    codecov: list[CodecovSpec] = field(default_factory=list)
    required_checks: list[str] = field(default_factory=list)  # GraphQL isRequired
    valid_tokens: list[str] | None = None  # None: any token (or none) is accepted
    faults: list[FaultSpec] = field(default_factory=list)
    notes: dict[str, Any] = field(default_factory=dict)  # what a scenario builder promises

    @property
    def full_name(self) -> str:
        """``owner/name``."""
        return f"{self.owner}/{self.name}"
