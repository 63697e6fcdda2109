"""The sandbox's one store: commits, pull requests, reviews, comments, labels, checks.

REST payloads, the GraphQL rollup and review threads are all *views* of this
state, so the two APIs cannot disagree, and a POSTed comment shows up in the
next GET. Every access goes through one lock: the HTTP server is threaded.
"""

from __future__ import annotations

import copy
import threading
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Generic, TypeVar

from syncdesk.services.sandbox.scenario import (
    CheckRunSpec,
    CodecovSpec,
    CommitSpec,
    IssueCommentSpec,
    LabelSpec,
    PullSpec,
    ReviewCommentSpec,
    Scenario,
    StatusSpec,
)

FIRST_NEW_ID = 900_001  # ids of objects created through the API start here
# (GraphQL databaseId is a 32-bit Int: keep every id below 2**31, as GitHub long did.)


def now_iso() -> str:
    """The current time as GitHub writes it (``2025-01-06T09:00:00Z``)."""
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class Located(Generic[T]):
    """An object found in the store, with the pull request it belongs to."""

    pull: PullSpec
    item: T


class Store:
    """Mutable sandbox state, initialised from a deep copy of a :class:`Scenario`."""

    def __init__(self, scenario: Scenario) -> None:
        self.scenario = copy.deepcopy(scenario)
        self.lock = threading.RLock()
        self._commits = {commit.sha: commit for commit in self.scenario.commits}
        self._assign_ids()
        self._next_id = max(FIRST_NEW_ID, self._max_id() + 1)

    def _assign_ids(self) -> None:
        counter = 7_000_001
        for commit in self.scenario.commits:
            items: list[CheckRunSpec | StatusSpec] = [*commit.check_runs, *commit.statuses]
            for item in items:
                if item.id == 0:
                    item.id = counter
                    counter += 1
        for index, label in enumerate(self.scenario.labels):
            if label.id == 0:
                label.id = 5_000_001 + index

    def _max_id(self) -> int:
        ids = [0]
        for pull in self.scenario.pulls:
            ids += [c.id for c in pull.review_comments] + [c.id for c in pull.issue_comments]
            ids += [r.id for r in pull.reviews]
        return max(ids)

    def new_id(self) -> int:
        """A fresh id for an object created through the API."""
        with self.lock:
            value = self._next_id
            self._next_id += 1
            return value

    # -- lookups -------------------------------------------------------------------------

    def repo_matches(self, owner: str, name: str) -> bool:
        """Whether ``owner/name`` is this sandbox's repository (GitHub ignores case here)."""
        return self.scenario.full_name.lower() == f"{owner}/{name}".lower()

    def commit(self, ref: str) -> CommitSpec | None:
        """The commit a full SHA, an unambiguous short SHA (>= 4) or a branch name names."""
        if ref in self._commits:
            return self._commits[ref]
        branch = self.scenario.branches.get(ref.removeprefix("refs/heads/"))
        if branch is not None:
            return self._commits.get(branch)
        for pull in self.scenario.pulls:
            if ref == pull.head_ref:
                return self._commits.get(pull.head_sha)
        if len(ref) >= 4 and all(c in "0123456789abcdef" for c in ref.lower()):
            found = [c for sha, c in self._commits.items() if sha.startswith(ref.lower())]
            if len(found) == 1:
                return found[0]
        return None

    def pull(self, number: int) -> PullSpec | None:
        """The pull request with this number."""
        return next((p for p in self.scenario.pulls if p.number == number), None)

    def pulls(self, state: str, head: str | None, base: str | None) -> list[PullSpec]:
        """Pull requests filtered as ``GET /pulls?state=&head=owner:branch&base=`` does."""
        found = [p for p in self.scenario.pulls if state == "all" or p.state == state]
        if head:
            owner, _, branch = head.partition(":")
            if not branch or owner.lower() != self.scenario.owner.lower():
                return []
            found = [p for p in found if p.head_ref == branch]
        if base:
            found = [p for p in found if p.base_ref == base]
        # GitHub's default sort is by creation, newest first.
        return sorted(found, key=lambda p: (p.created_at, p.number), reverse=True)

    def review_comment(self, comment_id: int) -> Located[ReviewCommentSpec] | None:
        """An inline review comment by id, wherever it lives."""
        for pull in self.scenario.pulls:
            for comment in pull.review_comments:
                if comment.id == comment_id:
                    return Located(pull, comment)
        return None

    def issue_comment(self, comment_id: int) -> Located[IssueCommentSpec] | None:
        """A conversation comment by id."""
        for pull in self.scenario.pulls:
            for comment in pull.issue_comments:
                if comment.id == comment_id:
                    return Located(pull, comment)
        return None

    def check_run(self, run_id: int) -> tuple[CommitSpec, CheckRunSpec] | None:
        """A check run by id, with its commit."""
        for commit in self.scenario.commits:
            for run in commit.check_runs:
                if run.id == run_id:
                    return commit, run
        return None

    def label(self, name: str) -> LabelSpec | None:
        """A repository label by name (GitHub matches label names case-insensitively)."""
        return next((lb for lb in self.scenario.labels if lb.name.lower() == name.lower()), None)

    def codecov(self, pullid: int) -> CodecovSpec | None:
        """Codecov's comparison for a pull request."""
        return next((c for c in self.scenario.codecov if c.pullid == pullid), None)

    def statuses(self, commit: CommitSpec) -> list[StatusSpec]:
        """The commit's statuses, newest first (GitHub's order for ``/statuses``)."""
        return sorted(commit.statuses, key=lambda s: (s.created_at, s.id), reverse=True)

    def thread_root(self, pull: PullSpec, comment: ReviewCommentSpec) -> ReviewCommentSpec:
        """The top-level comment of the thread ``comment`` belongs to."""
        by_id = {c.id: c for c in pull.review_comments}
        while comment.in_reply_to_id is not None and comment.in_reply_to_id in by_id:
            comment = by_id[comment.in_reply_to_id]
        return comment

    # -- writes --------------------------------------------------------------------------

    def add_issue_comment(self, pull: PullSpec, user: str, body: str) -> IssueCommentSpec:
        """Append a conversation comment."""
        with self.lock:
            stamp = now_iso()
            comment = IssueCommentSpec(self.new_id(), user, body, stamp, stamp)
            pull.issue_comments.append(comment)
            pull.updated_at = stamp
            return comment

    def add_review_comment(self, pull: PullSpec, comment: ReviewCommentSpec) -> None:
        """Append an inline comment (already validated by the route)."""
        with self.lock:
            pull.review_comments.append(comment)
            pull.updated_at = comment.created_at

    def edit_issue_comment(self, comment: IssueCommentSpec, body: str) -> None:
        """Replace a conversation comment's body."""
        with self.lock:
            comment.body = body
            comment.updated_at = now_iso()

    def add_labels(self, pull: PullSpec, names: list[str]) -> None:
        """Add labels to a pull request, creating unknown ones on the repository as GitHub does."""
        with self.lock:
            for name in names:
                label = self.label(name)
                if label is None:
                    label = LabelSpec(name, id=self.new_id())
                    self.scenario.labels.append(label)
                if label.name not in pull.labels:
                    pull.labels.append(label.name)

    def set_labels(self, pull: PullSpec, names: list[str]) -> None:
        """Replace a pull request's labels."""
        with self.lock:
            pull.labels.clear()
            self.add_labels(pull, names)

    def remove_label(self, pull: PullSpec, name: str) -> bool:
        """Remove one label; False if the pull request did not carry it."""
        with self.lock:
            for existing in pull.labels:
                if existing.lower() == name.lower():
                    pull.labels.remove(existing)
                    return True
            return False
