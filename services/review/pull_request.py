"""The findings of a sync's pull request, with the origin of every cited line, and the reply.

This joins the parts: the pull request read from GitHub
(:mod:`syncdesk.services.github.api`), its findings (:mod:`syncdesk.services.review.parse`), the
blame origin of their cited ranges on the local head (:mod:`syncdesk.services.review.trace`),
the maintainer's saved dispositions (:mod:`syncdesk.services.review.dispositions`), and the
reply posted exactly once (:mod:`syncdesk.services.review.reply`).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from syncdesk.services.github.api import (
    GitHubClient,
    GitHubError,
    PostResult,
    ThreadState,
    content_key,
    review_threads,
)
from syncdesk.services.github.link import GitHubLink, posting_client, pull_number
from syncdesk.services.github.models import PullRequest
from syncdesk.services.progress import QUIET, Steps
from syncdesk.services.review.dispositions import (
    Book,
    Decision,
    Posted,
    load_book,
    now,
    record_post,
)
from syncdesk.services.review.models import Disposition, Finding
from syncdesk.services.review.parse import collect_findings
from syncdesk.services.review.reply import ReplyRow, compose_reply, thread_reply
from syncdesk.services.review.trace import FindingView, trace_findings
from syncdesk.services.sync.ours import ours_summary
from syncdesk.services.sync.session import SyncSession


@dataclass(frozen=True, slots=True)
class FindingsData:
    """Everything the Findings screen shows."""

    link: GitHubLink
    pr: PullRequest
    views: tuple[FindingView, ...]
    book: Book
    local_head: str
    notes: tuple[str, ...] = ()  # what the maintainer should know (a head that differs...)

    def decision(self, finding_id: str) -> Decision | None:
        """The saved decision for ``finding_id``, if any."""
        return self.book.decisions.get(finding_id)

    def disposition(self, view: FindingView) -> Disposition:
        """The decided disposition, else the suggested one."""
        decided = self.decision(view.finding.id)
        if decided is None or decided.disposition is None:
            return view.suggested
        return decided.disposition


def load_findings(
    session: SyncSession,
    link: GitHubLink,
    *,
    steps: Steps = QUIET,
) -> FindingsData:
    """Read the pull request, parse its findings and blame every cited range."""
    client = GitHubClient(link.target, link.token)
    steps("Finding the pull request")
    pr = client.pull_request(pull_number(session, link, client), steps=steps)
    steps("Parsing the findings")
    findings = collect_findings(pr.reviews, pr.review_comments)
    threads: dict[int, ThreadState] = {}
    notes: list[str] = []
    if any(f.comment_ids for f in findings):
        steps("Reading the review threads (GraphQL)")
        try:
            threads = review_threads(link.target, link.token, pr.number)
        except GitHubError as error:  # REST has the comments; only "resolved" is missing
            notes.append(f"thread resolution unknown: {error.message}")
    git, refs = session.git, session.refs
    if pr.head_sha != refs.head:
        notes.append(
            f"the pull request's head is {pr.head_sha[:12]}, the local head {refs.head[:12]}: "
            "origins are traced on the local head"
        )
    if pr.partial:
        notes.append("partly read (GitHub did not give every page): " + ", ".join(pr.partial))
    traced = trace_findings(session, findings, steps=steps)
    notes.extend(traced.notes)
    if (ours := ours_summary(traced.ours)) is not None:
        notes.append(f"counted as ours: {ours}")
    views = [_with_threads(view, threads) for view in traced.views]
    book = load_book(git, link.target.full_name, pr.number)
    if book.note:
        notes.append(book.note)
    found = GitHubLink(link.target, link.token, pr.number, link.codecov_url)
    return FindingsData(found, pr, tuple(views), book, refs.head, tuple(notes))


def _with_threads(view: FindingView, threads: dict[int, ThreadState]) -> FindingView:
    """``view`` with how many of its inline threads GitHub shows resolved; a finding whose
    every thread is resolved there, and whose text says nothing of its status, is closed."""
    resolved = _resolved(view.finding, threads)
    finding = view.finding
    if finding.comment_ids and resolved == len(finding.comment_ids) and not finding.status:
        finding = replace(finding, status="closed")
        reason = "GitHub shows every inline thread of this finding resolved"
        return replace(
            view, finding=finding, resolved_threads=resolved,
            suggested=Disposition.CLOSED, reason=reason,
        )  # fmt: skip
    return replace(view, resolved_threads=resolved)


def _resolved(finding: Finding, threads: dict[int, ThreadState]) -> int:
    """How many of the finding's inline threads GitHub shows as resolved."""
    return sum(1 for c in finding.comment_ids if c in threads and threads[c].resolved)


def reply_rows(data: FindingsData) -> list[ReplyRow]:
    """The table's rows: every finding, with its decided (or suggested) disposition."""
    rows = []
    for view in data.views:
        decided = data.decision(view.finding.id)
        note = decided.note if decided is not None else ""
        rows.append(ReplyRow(view.finding, view.evidence, data.disposition(view), note))
    return rows


def reply_text(data: FindingsData) -> str:
    """The dispositions reply, as it will be posted."""
    reviews = [r for r in data.pr.reviews if r.body.strip()]
    return compose_reply(data.pr.head_sha, reply_rows(data), reviews)


def post_reply(session: SyncSession, data: FindingsData, *, threads: bool) -> list[PostResult]:
    """Post the reply (once per text and head), and optionally one reply per inline thread.

    Each post is keyed by its content and the head: pressing again, or after an
    error, finds the earlier post instead of making a second one.
    """
    client = posting_client(data.link, session.git)
    body = reply_text(data)
    key = content_key("dispositions", data.pr.head_sha, body)
    results = [client.post_comment(data.pr.number, body, key)]
    _remember(session, data, key, results[0])
    if threads:
        for row in reply_rows(data):
            text = thread_reply(row)
            for comment_id in row.finding.comment_ids:
                thread_key = content_key(f"thread-{comment_id}", data.pr.head_sha, text)
                try:
                    result = client.reply_in_thread(data.pr.number, comment_id, text, thread_key)
                except GitHubError as error:
                    # Say what did get posted: pressing again is safe (each post
                    # is keyed), but "nothing was posted" would be untrue.
                    raise GitHubError(
                        f"the reply is posted (comment {results[0].comment_id}) with "
                        f"{len(results) - 1} thread reply(ies); then {error.message}"
                    ) from None
                _remember(session, data, thread_key, result)
                results.append(result)
    return results


def _remember(session: SyncSession, data: FindingsData, key: str, result: PostResult) -> None:
    posted = Posted(key, result.comment_id, result.html_url, now())
    record_post(session.git, data.link.target.full_name, data.pr.number, posted)
